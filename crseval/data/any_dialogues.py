"""Every dialogue source crseval reads, behind one call: ``read_dialogues(path)``.

The layout is told from the files: ReDial (``*.jsonl`` with ``messages``), INSPIRED (``*.tsv``), the
human-labelled sets of :mod:`crseval.data.judged` (AB-ReDial, USS-ReDial, CRSArena-Eval JSON, the
arena's dialogue layout), shift runs (a run folder, or its ``records/results.jsonl``), session logs of
:mod:`crseval.data.session_logs` (one JSON per session) and ``sample`` (the bundled dialogues). Each
dialogue comes with the system that produced it and its dialogue-level human labels, where known.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crseval.core.errors import CrsevalError
from crseval.core.types import Dialogue, Role, Utterance
from crseval.data.io import DatasetInfo, dataset_info, existing
from crseval.data.turn_table import is_turn_table

if TYPE_CHECKING:
    from crseval.core.job import Result


@dataclass
class SourcedDialogue:
    dialogue: Dialogue
    system: str
    labels: dict[str, float] = field(default_factory=dict)
    # session logs: the session, which the layout pairs across systems (a crseval run's simulated user
    # index; the user of an arena battle); None where the layout has none
    session: Any = None

    @property
    def id(self) -> str:
        return self.dialogue.id


@dataclass
class DialogueSource:
    info: DatasetInfo
    layout: str
    dialogues: list[SourcedDialogue]
    labelled_mentions: bool = (
        False  # utterances list the items they name (ReDial @id mentions, INSPIRED movies)
    )
    scales: dict[str, tuple[float, float]] = field(default_factory=dict)  # human scale per label

    def __len__(self) -> int:
        return len(self.dialogues)


LAYOUTS = ("redial", "inspired", "judged", "sessions")  # "sample" is a path of its own


def _jsonl_layout(path: Path) -> str:
    """ReDial when the first record of a .jsonl file has ``messages``, else crseval session records."""
    with open(path, encoding="utf-8", errors="replace") as f:
        line = next((ln for ln in f if ln.strip()), "")
    try:
        first = json.loads(line) if line else None
    except ValueError:
        first = None
    return "redial" if isinstance(first, dict) and "messages" in first else "sessions"


def detect_layout(p: Path) -> str:
    if p.is_dir():
        if (p / "records" / "results.jsonl").exists():
            return "sessions"
        if any(p.glob("*.tsv")):
            return "inspired"
        if (
            (p / "ReDial.txt").exists()
            or any(p.glob("annotated_*.csv"))
            or any(p.glob("crs_arena_dial_*.json"))
        ):
            return "judged"
        jsonl = sorted(p.glob("*.jsonl"))
        if jsonl:
            return _jsonl_layout(jsonl[0])
        if any(p.glob("*.json")):
            return "sessions"
        raise CrsevalError(
            "no dialogues in this folder",
            file=p,
            expected="ReDial *.jsonl, INSPIRED *.tsv, a shift "
            "run, session logs or a human-labelled set",
        )
    if p.suffix == ".tsv":
        return "inspired"
    if is_turn_table(p):
        return "sessions"
    if p.suffix in (".txt", ".csv"):
        return "judged"
    if p.suffix == ".jsonl":
        return _jsonl_layout(p)
    from crseval.data.io import read_json

    raw = read_json(p)
    first = raw[0] if isinstance(raw, list) and raw else raw
    if isinstance(first, dict) and ("model_name" in first or "model" in first):
        return "sessions"
    return "judged"


def read_dialogues(path: str | Path, layout: str = "auto") -> DialogueSource:
    """The dialogues at ``path`` (``sample`` for the bundled ones); ``layout`` overrides the detection."""
    from crseval.data import load_dataset

    if str(path) == "sample":
        ds = load_dataset("sample").dialogues
        return DialogueSource(ds.info, "sample", [SourcedDialogue(d, "sample") for d in ds])
    p = existing(path, "dialogues")
    layout = detect_layout(p) if layout == "auto" else layout
    if layout not in LAYOUTS:
        raise CrsevalError(
            f"unknown layout {layout!r}",
            field="layout",
            expected="auto or one of " + ", ".join(LAYOUTS),
        )
    if layout in ("redial", "inspired"):
        ds = load_dataset(layout, p)
        return DialogueSource(
            ds.info,
            layout,
            [SourcedDialogue(d, f"{layout}-human") for d in ds],
            labelled_mentions=True,
        )
    if layout == "judged":
        from crseval.data.judged import load_judged

        js = load_judged(p)
        systems = js.systems()
        return DialogueSource(
            js.info,
            f"judged:{js.info.name}",
            [_judged(it, it.system or systems.get(it.id, js.info.name)) for it in js.items],
            scales={a: js.scale(a) for a in js.aspects},
        )
    return _sessions(p)


def _judged(item, system: str) -> SourcedDialogue:
    """A labelled dialogue; its session the user where the id is ``{system}_{user}`` (CRSArena-Dial's
    conversation ids: a battle's two dialogues share the user)."""
    user = item.id.removeprefix(f"{system}_") if item.id.startswith(f"{system}_") else None
    return SourcedDialogue(item.dialogue, system, item.labels, user)


def _sessions(p: Path) -> DialogueSource:
    from crseval.data.session_logs import import_logs

    records, notes = import_logs(p)
    info = dataset_info("sessions", p)  # a run directory: its records, in any order
    info.notes += notes[:20] + (
        [f"… and {len(notes) - 20} more repairs"] if len(notes) > 20 else []
    )
    return _session_dialogues(records, info)


def part_sessions(name: str, result: Result) -> DialogueSource:
    """The sessions an earlier part of the same manifest ran (``shift``), from its result — never its
    folder; signed as that run directory is (its records' content)."""
    from crseval.data.session_logs import RUN_RECORDS, own_sessions

    where = Path(name, "records", f"{RUN_RECORDS}.jsonl")
    records = own_sessions(enumerate(result.records(RUN_RECORDS), 1), where)
    return _session_dialogues(records, DatasetInfo("sessions", name, result.digest))


def _session_dialogues(records: list[dict], info: DatasetInfo) -> DialogueSource:
    out = []
    for r in records:
        utts = [
            Utterance(role, t[key], items=list(t.get("items") or []) if role is Role.SYSTEM else [])
            for t in r["turns"]
            for role, key in ((Role.USER, "user"), (Role.SYSTEM, "system"))
        ]
        labels = {f"judge-{k}": v for k, v in (r.get("judge_scores") or {}).items()}
        out.append(
            SourcedDialogue(
                Dialogue.from_utterances(str(r["key"]), utts),
                str(r["model"]),
                labels,
                r.get("session"),
            )
        )
    return DialogueSource(info, "sessions", out)
