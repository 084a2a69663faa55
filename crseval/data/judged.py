"""Dialogues with human quality labels, for judge meta-evaluation, read as published.

* JSON (crseval's own layout and CRSArena-Eval's): ``[{conv_id, dialogue: [{role, utterance,
  turn_level_aggregated?: {aspect: value}}], dial_level_aggregated: {aspect: value}}]``; roles such as
  ``USER``/``ASST`` are accepted; an optional ``system`` field names the CRS;
* the CRS arena's dialogue layout (CRSArena-Dial): ``[{"conversation ID", "agent": {"id"},
  "conversation": [{"participant": USER|AGENT, "utterance"}], "metadata": {"sentiment":
  satisfied|frustrated}}]`` → aspect ``satisfied`` (1/0);
* AB-ReDial: ``annotated_dialogues.csv`` (dialogue level; one row per annotator, labels averaged) and
  ``annotated_turns.csv`` (turn level: each turn = two context utterances, the system response being
  judged and the user's next message; labels averaged over annotators);
* USS-ReDial ``ReDial.txt``: dialogue level = the ``OVERALL`` line (``dialogue-overall``, 1–5, mean of
  the annotators); turn level = each rated user turn's ``satisfaction`` with the system reply before it.

Aspect names are canonical: lower case with ``-`` (``dialogue_overall`` and ``Dialogue-Overall`` are
the same aspect). Every set keeps the human scale of each aspect (published, or the observed range
where a layout does not state one, marked as such).

Each :class:`JudgedItem` is what one judge call sees: a dialogue, optionally the index of the one
utterance to judge (turn level), and the human labels per aspect.
"""

from __future__ import annotations

import re
import urllib.parse
from collections import defaultdict
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from crseval.core.errors import CrsevalError
from crseval.core.types import Dialogue, Role, Utterance
from crseval.data.judged_types import JudgedItem, JudgedSet
from crseval.data.turn_table import is_turn_table
from crseval.data.io import (
    dataset_info,
    existing,
    read_json,
    read_rows,
    read_text,
    to_float,
)

Level = Literal["dialogue", "turn"]
SATISFIED = {"satisfied": (0.0, 1.0)}  # the arena's label: 1 satisfied, 0 frustrated


def aspect_key(name: str) -> str:
    """The canonical aspect name: ``dialogue_overall``, ``Dialogue Overall`` → ``dialogue-overall``."""
    return re.sub(r"[\s_\-]+", "-", str(name).strip().lower())


def _json(path: Path, level: Level, raw) -> JudgedSet:
    if not isinstance(raw, list):
        raise CrsevalError("top level is not a list", file=path, expected="a list of conversations")
    out = JudgedSet(dataset_info(f"judged-json-{level}", path), level)
    for i, conv in enumerate(raw):
        if not isinstance(conv, dict) or not isinstance(conv.get("dialogue"), list):
            raise CrsevalError(
                f"conversation #{i} has no 'dialogue' list", file=path, field="dialogue"
            )
        cid = str(conv.get("conv_id", i))
        utts = []
        for j, u in enumerate(conv["dialogue"]):
            if not isinstance(u, dict) or "utterance" not in u or "role" not in u:
                raise CrsevalError(
                    f"conversation {cid} turn #{j} needs role and utterance",
                    file=path,
                    field=f"dialogue[{j}]",
                )
            try:
                role = Role.parse(u["role"])
            except CrsevalError as e:
                raise CrsevalError(
                    e.message, file=path, field=f"{cid}.dialogue[{j}].role", expected=e.expected
                ) from None
            utts.append(
                Utterance(
                    role, str(u["utterance"]), metadata={"labels": u.get("turn_level_aggregated")}
                )
            )
        d = Dialogue.from_utterances(cid, utts)
        system = conv.get("system") or conv.get("crs")
        system = str(system) if system else None
        if level == "dialogue":
            labels = conv.get("dial_level_aggregated") or {}
            if labels:
                out.items.append(
                    JudgedItem(
                        cid,
                        d,
                        _numbers(labels, path, f"{cid}.dial_level_aggregated"),
                        system=system,
                    )
                )
        else:
            for j, u in enumerate(utts):
                if u.metadata.get("labels") and u.role.is_recommender:
                    ctx = Dialogue.from_utterances(f"{cid}#u{j}", utts[: j + 1])
                    labels = _numbers(
                        u.metadata["labels"], path, f"{cid}.dialogue[{j}].turn_level_aggregated"
                    )
                    out.items.append(JudgedItem(f"{cid}#u{j}", ctx, labels, j, system))
    if not out.items:
        raise CrsevalError(
            f"no {level}-level labels found",
            file=path,
            expected="dial_level_aggregated or turn_level_aggregated objects",
        )
    out.observed_scales = True
    return out


def _numbers(labels: dict, path: Path, where: str) -> dict[str, float]:
    """Canonical aspect → finite number; anything else is refused with the file and the field."""
    if not isinstance(labels, dict):
        raise CrsevalError(
            "labels are not an object", file=path, field=where, expected="{aspect: number}"
        )
    out = {}
    for k, v in labels.items():
        if v is None:
            continue
        try:
            x = float(v)
        except (TypeError, ValueError):
            x = float("nan")
        if isinstance(v, bool) or not np.isfinite(x):
            raise CrsevalError(
                f"non-numeric label {v!r}",
                file=path,
                field=f"{where}.{k}",
                expected="a finite number",
            )
        out[aspect_key(k)] = x
    return out


_ROLE_PREFIX = re.compile(r"^\s*(SYSTEM|USER)(?:\s+|$)", re.I)


def _ab_utterance(cell: str, path: Path, line: int, col: str) -> Utterance | None:
    """``ROLE<sep>text``; the separator is a tab in most cells but also spaces or an em space."""
    if not cell.strip():
        return None
    m = _ROLE_PREFIX.match(cell)
    if not m:
        raise CrsevalError(
            f"cell does not start with SYSTEM or USER: {cell[:30]!r}",
            file=path,
            line=line,
            field=col,
        )
    return Utterance(
        Role.SYSTEM if m.group(1).upper() == "SYSTEM" else Role.USER, cell[m.end() :].strip()
    )


def _ab_redial(folder: Path, level: Level) -> JudgedSet:
    from crseval.data.ratings import AB_DIALOGUE_DIMENSIONS, AB_SCALES, AB_TURN_DIMENSIONS

    f = folder / ("annotated_dialogues.csv" if level == "dialogue" else "annotated_turns.csv")
    header, rows = read_rows(existing(f, "AB-ReDial file"), required=("ConvId",))
    utt_cols = sorted(
        (c for c in header if re.fullmatch(r"utterance\d+", c)), key=lambda c: int(c[9:])
    )
    first: dict[str, tuple[int, dict]] = {}
    labels: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for line, row in rows:
        conv = row["ConvId"].strip()
        first.setdefault(conv, (line, row))
        if level == "dialogue":
            for a in AB_DIALOGUE_DIMENSIONS:
                v = to_float(row.get(a, ""), file=f, line=line, field=a, allow_empty=True)
                if v is not None:
                    labels[conv][a].append(_in_scale(v, AB_SCALES[a], f, line, a))
        else:
            for c in header:
                m = re.fullmatch(r"(relevance|interestingness|overall)(\d+)", c)
                if m:
                    v = to_float(row[c], file=f, line=line, field=c, allow_empty=True)
                    if v is not None:
                        labels[f"{conv}#t{m.group(2)}"][m.group(1)].append(
                            _in_scale(v, AB_SCALES[m.group(1)], f, line, c)
                        )
    out = JudgedSet(dataset_info(f"ab-redial-{level}", folder, f), level)
    out.scales = {
        a: tuple(map(float, AB_SCALES[a]))
        for a in (AB_DIALOGUE_DIMENSIONS if level == "dialogue" else AB_TURN_DIMENSIONS)
    }
    for conv, (line, row) in first.items():
        utts = [u for c in utt_cols if (u := _ab_utterance(row[c], f, line, c)) is not None]
        if level == "dialogue":
            lab = {a: float(np.mean(v)) for a, v in labels[conv].items()}
            if lab:
                out.items.append(JudgedItem(conv, Dialogue.from_utterances(conv, utts), lab))
            continue
        for k in range(1, len(utt_cols) // 4 + 1):
            key = f"{conv}#t{k}"
            cells = [_ab_utterance(row[c], f, line, c) for c in utt_cols[4 * (k - 1) : 4 * k]]
            if key not in labels or any(u is None for u in cells[:3]):
                continue
            shown = [u for u in cells if u is not None]
            lab = {a: float(np.mean(v)) for a, v in labels[key].items() if a in AB_TURN_DIMENSIONS}
            out.items.append(JudgedItem(key, Dialogue.from_utterances(key, shown), lab, 2))
    return out


def _in_scale(v: float, scale: tuple[float, float], path: Path, line: int, field_: str) -> float:
    if not scale[0] <= v <= scale[1]:
        raise CrsevalError(
            f"label {v:g} is outside the scale {scale[0]:g}–{scale[1]:g}",
            file=path,
            line=line,
            field=field_,
        )
    return v


def _uss_parts(row: str, path: Path, line: int) -> list[str]:
    parts = row.split("\t")
    if len(parts) < 2 or parts[0].strip().upper() not in ("USER", "SYSTEM"):
        raise CrsevalError(
            "line is not ROLE<TAB>text",
            file=path,
            line=line,
            expected="USER or SYSTEM, a tab, the text (tab, action, tab, ratings on user lines)",
        )
    return parts


def _uss(path: Path, level: Level) -> JudgedSet:
    """USS-ReDial: ``ROLE<TAB>text<TAB>action<TAB>r1,r2,…``; the ``USER<TAB>OVERALL`` line closes a dialogue."""
    text = read_text(path)
    out = JudgedSet(
        dataset_info(f"uss-redial-{level}", path),
        level,
        scales={"dialogue-overall" if level == "dialogue" else "satisfaction": (1.0, 5.0)},
    )
    utts: list[Utterance] = []
    k = 0

    def ratings(raw: str, line: int, field_: str) -> float:
        vals = [
            _in_scale(to_float(x, file=path, line=line, field=field_), (1, 5), path, line, field_)
            for x in raw.split(",")
        ]
        return float(np.mean(vals))

    for line, row in enumerate(text.split("\n"), 1):
        if not row.strip():
            continue
        parts = _uss_parts(row, path, line)
        role, body = parts[0].strip().upper(), urllib.parse.unquote(parts[1])
        rated = len(parts) >= 4 and parts[3].strip()
        if role == "USER" and body.strip() == "OVERALL":
            cid = f"d{k}"
            if level == "dialogue" and rated and utts:
                out.items.append(
                    JudgedItem(
                        cid,
                        Dialogue.from_utterances(cid, utts),
                        {"dialogue-overall": ratings(parts[3], line, "OVERALL")},
                    )
                )
            utts, k = [], k + 1
            continue
        utts.append(Utterance(Role.USER if role == "USER" else Role.SYSTEM, body))
        if level == "turn" and role == "USER" and rated:
            # the satisfaction of a user turn rates the system reply just before it
            prev = max((i for i, u in enumerate(utts[:-1]) if u.role.is_recommender), default=None)
            if prev is not None:
                iid = f"d{k}#u{len(utts) - 1}"
                out.items.append(
                    JudgedItem(
                        iid,
                        Dialogue.from_utterances(iid, list(utts)),
                        {"satisfaction": ratings(parts[3], line, "satisfaction")},
                        prev,
                    )
                )
    if not out.items:
        raise CrsevalError(
            f"no {level}-level ratings found",
            file=path,
            expected="USER<TAB>OVERALL<TAB><TAB>r1,r2,… lines closing each dialogue",
        )
    return out


def _arena(raw: list, path: Path) -> JudgedSet:
    """CRSArena-Dial dialogues: one item per conversation, aspect ``satisfied`` (1 satisfied, 0 frustrated)."""
    out = JudgedSet(dataset_info("crs-arena-dialogues", path), "dialogue", scales=SATISFIED)
    for i, conv in enumerate(raw):
        where = f"[{i}]"
        if not isinstance(conv, dict) or not isinstance(conv.get("conversation"), list):
            raise CrsevalError(
                "conversation has no 'conversation' list", file=path, field=f"{where}.conversation"
            )
        cid = str(conv.get("conversation ID", i))
        utts = []
        for j, u in enumerate(conv["conversation"]):
            if not isinstance(u, dict) or "participant" not in u or "utterance" not in u:
                raise CrsevalError(
                    "turn needs participant and utterance",
                    file=path,
                    field=f"{cid}.conversation[{j}]",
                )
            try:
                role = Role.parse(u["participant"])
            except CrsevalError as e:
                raise CrsevalError(
                    e.message,
                    file=path,
                    field=f"{cid}.conversation[{j}].participant",
                    expected=e.expected,
                ) from None
            utts.append(Utterance(role, str(u["utterance"])))
        sentiment = str((conv.get("metadata") or {}).get("sentiment", "")).strip().lower()
        if sentiment not in ("satisfied", "frustrated"):
            raise CrsevalError(
                f"sentiment {sentiment!r}",
                file=path,
                field=f"{cid}.metadata.sentiment",
                expected="satisfied or frustrated",
            )
        agent = conv.get("agent")
        system = (
            str(agent["id"])
            if isinstance(agent, dict) and agent.get("id")
            else cid.rsplit("_", 1)[0]
        )
        out.items.append(
            JudgedItem(
                cid,
                Dialogue.from_utterances(cid, utts),
                {"satisfied": float(sentiment == "satisfied")},
                system=system,
            )
        )
    if not out.items:
        raise CrsevalError("no conversations", file=path)
    return out


def load_predictions(path: str | Path, judged: JudgedSet) -> dict[str, pd.Series]:
    """A judge's published predictions in the FACE layout — ``[{conv_id, dial_level_pred: {aspect: value},
    turns: [{turn_ind, turn_level_pred: {aspect: value}}]}]``, ``turn_ind`` indexing the dialogue's
    utterances as CRSArena-Eval's do — for the items of ``judged``: aspect → prediction per item id (NaN
    where the file has none), for the aspects ``judged`` labels."""
    p = existing(path, "reference predictions")
    raw = read_json(p)
    if not isinstance(raw, list):
        raise CrsevalError(
            "top level is not a list",
            file=p,
            expected="a list of {conv_id, dial_level_pred, turns}",
        )
    values: dict[str, dict[str, float]] = defaultdict(dict)
    for i, conv in enumerate(raw):
        if not isinstance(conv, dict) or "conv_id" not in conv:
            raise CrsevalError(f"prediction #{i} has no conv_id", file=p, field="conv_id")
        cid = str(conv["conv_id"])
        turns = [t for t in conv.get("turns") or [] if isinstance(t, dict)]
        preds = (
            {cid: conv.get("dial_level_pred") or {}}
            if judged.level == "dialogue"
            else {f"{cid}#u{t.get('turn_ind')}": t.get("turn_level_pred") or {} for t in turns}
        )
        for item, by in preds.items():
            for aspect, v in _numbers(by, p, f"{item}.predictions").items():
                values[aspect][item] = v
    ids = [it.id for it in judged.items]
    out = {
        a: pd.Series(v, dtype=float).reindex(ids) for a, v in values.items() if a in judged.aspects
    }
    if not any(s.notna().any() for s in out.values()):
        raise CrsevalError(
            f"no {judged.level}-level prediction matches a labelled item",
            file=p,
            expected="the labelled file's conv_ids (and turn_ind of its ASST turns)",
        )
    return out


def load_judged(path: str | Path, level: Level = "dialogue") -> JudgedSet:
    """A JSON file (crseval / CRSArena-Eval layout, or the arena's dialogue layout), an AB-ReDial folder
    (or one of its CSV files), USS-ReDial's ``ReDial.txt`` (or its folder), or your own logs one turn per
    line with rating columns (:mod:`crseval.data.turn_table`), or ``sample``: the bundled dialogues with
    their simulated raters' mean ratings."""
    if str(path) == "sample":
        from crseval.data.bundled import judged

        return judged(level)
    p = existing(path, "judged dialogues")
    if level not in ("dialogue", "turn"):
        raise CrsevalError(f"unknown level {level!r}", field="level", expected="dialogue or turn")
    if p.is_dir() and (p / "ReDial.txt").exists():
        p = p / "ReDial.txt"
    if p.suffix == ".txt":
        return _uss(p, level)
    arena = sorted(p.glob("crs_arena_dial_*.json")) if p.is_dir() else []
    if arena:  # a CRSArena-Dial folder: its crowds' dialogue files as one set
        out = JudgedSet(dataset_info("crs-arena-dialogues", p, *arena), level, scales=SATISFIED)
        out.items = [it for f in arena for it in load_judged(f, level).items]
        return out
    if is_turn_table(p):
        from crseval.data.turn_table import judged_set

        return judged_set(p, level)
    if p.is_dir() or p.name.startswith("annotated_"):
        return _ab_redial(p if p.is_dir() else p.parent, level)
    raw = read_json(p)
    if isinstance(raw, list) and raw and isinstance(raw[0], dict) and "conversation" in raw[0]:
        if level != "dialogue":
            raise CrsevalError(
                "the arena's dialogues carry dialogue-level labels only",
                file=p,
                field="level",
                fix="use --level dialogue",
            )
        return _arena(raw, p)
    return _json(p, level, raw)
