"""Dialogues with human quality labels, for judge meta-evaluation.

Two layouts:

* JSON: ``[{conv_id, dialogue: [{role, utterance, turn_level_aggregated?: {aspect: value}}],
  dial_level_aggregated: {aspect: value}}]``;
* AB-ReDial: ``annotated_dialogues.csv`` (dialogue level; one row per annotator, labels averaged) and
  ``annotated_turns.csv`` (turn level: each turn = two context utterances, the system response being
  judged and the user's next message; labels averaged over annotators).

Each :class:`JudgedItem` is what one judge call sees: a dialogue, optionally the index of the one
utterance to judge (turn level), and the human labels per aspect.
"""
from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np

from crseval.core.errors import CrsevalError
from crseval.core.types import Dialogue, Role, Utterance
from crseval.data.io import DatasetInfo, dataset_info, existing, read_json, read_rows, to_float

Level = Literal["dialogue", "turn"]


@dataclass
class JudgedItem:
    id: str
    dialogue: Dialogue
    labels: dict[str, float]
    target: int | None = None  # utterance index judged at turn level; None = the whole dialogue


@dataclass
class JudgedSet:
    info: DatasetInfo
    level: str
    items: list[JudgedItem] = field(default_factory=list)

    @property
    def aspects(self) -> list[str]:
        return sorted({a for it in self.items for a in it.labels})

    def __len__(self) -> int:
        return len(self.items)


def _json(path: Path, level: Level) -> JudgedSet:
    raw = read_json(path)
    if not isinstance(raw, list):
        raise CrsevalError("top level is not a list", file=path, expected="a list of conversations")
    out = JudgedSet(dataset_info(f"judged-json-{level}", path), level)
    for i, conv in enumerate(raw):
        if not isinstance(conv, dict) or not isinstance(conv.get("dialogue"), list):
            raise CrsevalError(f"conversation #{i} has no 'dialogue' list", file=path, field="dialogue")
        cid = str(conv.get("conv_id", i))
        utts = []
        for j, u in enumerate(conv["dialogue"]):
            if not isinstance(u, dict) or "utterance" not in u or "role" not in u:
                raise CrsevalError(f"conversation {cid} turn #{j} needs role and utterance", file=path,
                                   field=f"dialogue[{j}]")
            try:
                role = Role.parse(u["role"])
            except CrsevalError as e:
                raise CrsevalError(e.message, file=path, field=f"{cid}.dialogue[{j}].role", expected=e.expected) from None
            utts.append(Utterance(role, str(u["utterance"]), metadata={"labels": u.get("turn_level_aggregated")}))
        d = Dialogue.from_utterances(cid, utts)
        if level == "dialogue":
            labels = conv.get("dial_level_aggregated") or {}
            if labels:
                out.items.append(JudgedItem(cid, d, _numbers(labels, path, cid)))
        else:
            for j, u in enumerate(utts):
                if u.metadata.get("labels") and u.role.is_recommender:
                    ctx = Dialogue.from_utterances(f"{cid}#u{j}", utts[: j + 1])
                    out.items.append(JudgedItem(f"{cid}#u{j}", ctx, _numbers(u.metadata["labels"], path, cid), j))
    if not out.items:
        raise CrsevalError(f"no {level}-level labels found", file=path,
                           expected="dial_level_aggregated or turn_level_aggregated objects")
    return out


def _numbers(labels: dict, path: Path, cid: str) -> dict[str, float]:
    try:
        return {str(k): float(v) for k, v in labels.items() if v is not None}
    except (TypeError, ValueError):
        raise CrsevalError(f"conversation {cid}: non-numeric label", file=path, field="labels") from None


_ROLE_PREFIX = re.compile(r"^\s*(SYSTEM|USER)(?:\s+|$)", re.I)


def _ab_utterance(cell: str, path: Path, line: int, col: str) -> Utterance | None:
    """``ROLE<sep>text``; the separator is a tab in most cells but also spaces or an em space."""
    if not cell.strip():
        return None
    m = _ROLE_PREFIX.match(cell)
    if not m:
        raise CrsevalError(f"cell does not start with SYSTEM or USER: {cell[:30]!r}", file=path, line=line, field=col)
    return Utterance(Role.SYSTEM if m.group(1).upper() == "SYSTEM" else Role.USER, cell[m.end():].strip())


def _ab_redial(folder: Path, level: Level) -> JudgedSet:
    from crseval.data.ratings import AB_DIALOGUE_DIMENSIONS, AB_TURN_DIMENSIONS
    f = folder / ("annotated_dialogues.csv" if level == "dialogue" else "annotated_turns.csv")
    header, rows = read_rows(existing(f, "AB-ReDial file"), required=("ConvId",))
    utt_cols = sorted((c for c in header if re.fullmatch(r"utterance\d+", c)), key=lambda c: int(c[9:]))
    first: dict[str, tuple[int, dict]] = {}
    labels: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for line, row in rows:
        conv = row["ConvId"].strip()
        first.setdefault(conv, (line, row))
        if level == "dialogue":
            for a in AB_DIALOGUE_DIMENSIONS:
                v = to_float(row.get(a, ""), file=f, line=line, field=a, allow_empty=True)
                if v is not None:
                    labels[conv][a].append(v)
        else:
            for c in header:
                m = re.fullmatch(r"(relevance|interestingness|overall)(\d+)", c)
                if m:
                    v = to_float(row[c], file=f, line=line, field=c, allow_empty=True)
                    if v is not None:
                        labels[f"{conv}#t{m.group(2)}"][m.group(1)].append(v)
    out = JudgedSet(dataset_info(f"ab-redial-{level}", folder, f), level)
    for conv, (line, row) in first.items():
        utts = [u for c in utt_cols if (u := _ab_utterance(row[c], f, line, c)) is not None]
        if level == "dialogue":
            lab = {a: float(np.mean(v)) for a, v in labels[conv].items()}
            if lab:
                out.items.append(JudgedItem(conv, Dialogue.from_utterances(conv, utts), lab))
            continue
        for k in range(1, len(utt_cols) // 4 + 1):
            key = f"{conv}#t{k}"
            cells = [_ab_utterance(row[c], f, line, c) for c in utt_cols[4 * (k - 1): 4 * k]]
            if key not in labels or any(u is None for u in cells[:3]):
                continue
            shown = [u for u in cells if u is not None]
            lab = {a: float(np.mean(v)) for a, v in labels[key].items() if a in AB_TURN_DIMENSIONS}
            out.items.append(JudgedItem(key, Dialogue.from_utterances(key, shown), lab, 2))
    return out


def load_judged(path: str | Path, level: Level = "dialogue") -> JudgedSet:
    """A JSON file in the layout above, or an AB-ReDial folder (or one of its CSV files)."""
    p = existing(path, "judged dialogues")
    if level not in ("dialogue", "turn"):
        raise CrsevalError(f"unknown level {level!r}", field="level", expected="dialogue or turn")
    if p.is_dir() or p.name.startswith("annotated_"):
        return _ab_redial(p if p.is_dir() else p.parent, level)
    return _json(p, level)
