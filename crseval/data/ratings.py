"""Ratings of dialogues by humans or LLM judges, from any long or wide CSV, plus named presets.

Wide: one row per (item, rater), one column per dimension. Long: item, rater, dimension, value
columns. Empty cells are skipped and *counted* in the dataset notes; anything else that is not a
number on the scale is an error naming the line and column.

Presets: ``crs-que`` (CRS-Que crowd ratings, 18 dimensions, gold dialogues flagged),
(AB-ReDial dimensions have their own scales: understanding 1–3, efficiency 0–1, relevance 0–4, …)
``ab-redial`` / ``ab-redial-turns`` (AB-ReDial dialogue- and turn-level; annotators are anonymous, so
raters are numbered within each dialogue and are *not* crossed identities), ``uss-redial`` (USS
ReDial user-turn satisfaction, 4 annotator slots).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from crseval.core.errors import CrsevalError
from crseval.core.types import Ratings
from crseval.data.io import dataset_info, existing, read_rows, read_text, to_float

CRS_QUE_DIMENSIONS = (
    "accuracy",
    "novelty",
    "interaction_adequacy",
    "explainability",
    "cui_adaptability",
    "cui_understanding",
    "cui_response_quality",
    "cui_attentiveness",
    "perceived_ease_of_use",
    "perceived_usefulness",
    "user_control",
    "transparency",
    "cui_humanness",
    "cui_rapport",
    "trust_confidence",
    "satisfaction",
    "intention_to_use",
    "intention_to_purchase",
)
AB_DIALOGUE_DIMENSIONS = (
    "understanding",
    "task-completion",
    "interest-arousal",
    "efficiency",
    "dialogue-overall",
)
AB_TURN_DIMENSIONS = ("relevance", "interestingness", "overall")


Scale = tuple[float, float] | dict[str, tuple[float, float]]
AB_SCALES = {
    "understanding": (1, 3),
    "task-completion": (1, 3),
    "interest-arousal": (0, 3),
    "efficiency": (0, 1),
    "dialogue-overall": (1, 5),
    "relevance": (0, 4),
    "interestingness": (1, 3),
    "overall": (1, 5),
}


def _check_scale(
    value: float, scale: Scale, *, file: Path, line: int, field: str, dim: str | None = None
) -> float:
    if isinstance(scale, dict):
        scale = scale[dim or field]
    if not scale[0] <= value <= scale[1]:
        raise CrsevalError(
            f"value {value:g} is outside the scale",
            file=file,
            line=line,
            field=field,
            expected=f"a number in [{scale[0]:g}, {scale[1]:g}]",
        )
    return value


def _rows(p: Path, ids: list[str], dims: Sequence[str] | None) -> tuple[Any, list[str] | None]:
    """(the file's rows, the wide format's dimension columns: ``dims``, or every column that is not an id
    or extra column). A long format passes its dimension and value columns as ``dims`` and gets them
    back."""
    header, rows = read_rows(p, required=tuple(ids + list(dims or [])))
    if dims is None:
        dims = [c for c in header if c and c not in set(ids)]
        if not dims:
            raise CrsevalError(
                "no dimension columns", file=p, line=1, expected="one column per rated dimension"
            )
    return rows, dims


def _ids(
    row: dict, item_col: str, rater_col: str | None, per_item: dict, p: Path, line: int
) -> tuple[str, str]:
    """The row's (item id, rater id); without a rater column, the item's rows are raters r1, r2, …"""
    item = row[item_col].strip()
    if not item:
        raise CrsevalError("empty item id", file=p, line=line, field=item_col)
    if rater_col:
        rater = row[rater_col].strip()
        if not rater:
            raise CrsevalError("empty rater id", file=p, line=line, field=rater_col)
        return item, rater
    per_item[item] = per_item.get(item, 0) + 1
    return item, f"r{per_item[item]}"


def _once(seen: dict, key: tuple[str, str, str], p: Path, line: int) -> None:
    """Refuse a second rating of an item by a rater on a dimension (``seen``: key → its first line)."""
    if key in seen:
        item, rater, dim = key
        raise CrsevalError(
            f"rater {rater!r} rated item {item!r} on {dim!r} twice (first on line {seen[key]})",
            file=p,
            line=line,
            field=dim,
            expected="one rating per item, rater and dimension",
        )
    seen[key] = line


def load_ratings(
    path: str | Path,
    *,
    item_col: str,
    rater_col: str | None = None,
    dims: Sequence[str] | None = None,
    long: tuple[str | None, str | None] | None = None,
    scale: Scale = (1, 5),
    extra_cols: Sequence[str] = (),
    name: str = "ratings",
) -> Ratings:
    """Read a long (``long``: its dimension and value columns) or wide (``dims``) ratings CSV.

    ``rater_col=None`` numbers the rows of each item as raters r1, r2, … (anonymous annotators).
    ``dims=None`` in wide format takes every column that is not an id or extra column.
    """
    p = existing(path, "ratings file")
    dimension_col, value_col = long or (None, None)
    long_format = dimension_col is not None or value_col is not None
    if long_format and not (dimension_col and value_col):
        raise CrsevalError("long format needs both dimension_col and value_col", field="value_col")
    ids = [item_col] + ([rater_col] if rater_col else []) + list(extra_cols)
    rows, dims = _rows(p, ids, [dimension_col, value_col] if long_format else dims)
    info = dataset_info(name, p)
    records, extras, skipped, seen = [], [], 0, {}
    per_item: dict[str, int] = {}
    for line, row in rows:
        item, rater = _ids(row, item_col, rater_col, per_item, p, line)
        pairs = (
            [(row[dimension_col].strip(), row[value_col])]
            if long_format
            else [(d, row[d]) for d in dims]
        )
        for dim, raw in pairs:
            value = to_float(
                raw,
                file=p,
                line=line,
                field=dim if not long_format else value_col,
                allow_empty=True,
            )
            if value is None:
                skipped += 1
                continue
            _once(seen, (item, rater, dim), p, line)
            value = _check_scale(value, scale, file=p, line=line, field=dim, dim=dim)
            records.append((item, rater, dim, value))
        if extra_cols:
            extras.append({"item": item, "rater": rater, **{c: row[c] for c in extra_cols}})
    if not records:
        raise CrsevalError("no ratings found", file=p, expected="at least one numeric rating")
    if skipped:
        info.notes.append(f"{skipped} empty rating cells skipped")
    data = pd.DataFrame(records, columns=["item", "rater", "dimension", "value"])
    ratings = Ratings(data, scale, name, pd.DataFrame(extras) if extras else None)
    ratings.info = info
    return ratings


def load_crs_que(path: str | Path) -> Ratings:
    """CRS-Que annotations: participant × dialogue, 18 dimensions on 1–5; ``is_gold_standard`` rows are
    quality-control dialogues (GOLD_001/002), kept here and flagged in ``extra['gold']``."""
    p = existing(path, "CRS-Que annotations")
    if p.is_dir():
        p = p / "annotations.csv"
    r = load_ratings(
        p,
        item_col="dialogue_id",
        rater_col="participant_id",
        dims=CRS_QUE_DIMENSIONS,
        extra_cols=("is_gold_standard", "time_spent"),
        name="crs-que",
    )
    extra = r.extra
    extra["gold"] = extra.pop("is_gold_standard").str.strip().isin(["1", "True", "true"])
    extra["time_spent"] = pd.to_numeric(extra["time_spent"], errors="coerce")
    return r


def load_ab_redial(path: str | Path, level: str = "dialogue") -> Ratings:
    """AB-ReDial: ``annotated_dialogues.csv`` (dialogue level) or ``annotated_turns.csv`` (turn level,
    wide columns relevanceK/interestingnessK/overallK → items ``ConvId#tK``)."""
    p = existing(path, "AB-ReDial data")
    if p.is_dir():
        p = p / ("annotated_dialogues.csv" if level == "dialogue" else "annotated_turns.csv")
    if level == "dialogue":
        return load_ratings(
            p, item_col="ConvId", dims=AB_DIALOGUE_DIMENSIONS, name="ab-redial", scale=AB_SCALES
        )
    header, rows = read_rows(p, required=("ConvId",))
    turn_cols = [
        (c, m.group(1), int(m.group(2)))
        for c in header
        if (m := re.fullmatch(r"(relevance|interestingness|overall)(\d+)", c))
    ]
    if not turn_cols:
        raise CrsevalError(
            "no relevanceK/interestingnessK/overallK columns", file=p, line=1, field="relevance1"
        )
    info = dataset_info("ab-redial-turns", p)
    records, per_item, skipped = [], {}, 0
    for line, row in rows:
        conv = row["ConvId"].strip()
        per_item[conv] = per_item.get(conv, 0) + 1
        rater = f"r{per_item[conv]}"
        for col, dim, k in turn_cols:
            value = to_float(row[col], file=p, line=line, field=col, allow_empty=True)
            if value is None:
                skipped += 1
                continue
            records.append(
                (
                    f"{conv}#t{k}",
                    rater,
                    dim,
                    _check_scale(value, AB_SCALES, file=p, line=line, field=col, dim=dim),
                )
            )
    if skipped:
        info.notes.append(f"{skipped} empty rating cells skipped")
    r = Ratings(
        pd.DataFrame(records, columns=["item", "rater", "dimension", "value"]),
        {d: AB_SCALES[d] for d in AB_TURN_DIMENSIONS},
        "ab-redial-turns",
    )
    r.info = info
    return r


def _uss_line(line: str, p: Path, line_no: int) -> tuple[list[str], str]:
    """A USS line's tab-separated parts and its role (USER or SYSTEM)."""
    parts = line.split("\t")
    if len(parts) < 2:
        raise CrsevalError(
            "line has no tab-separated role and text",
            file=p,
            line=line_no,
            expected="ROLE<TAB>text<TAB>action<TAB>ratings",
        )
    role = parts[0].strip().upper()
    if role not in ("USER", "SYSTEM"):
        raise CrsevalError(
            f"unknown role {parts[0]!r}",
            file=p,
            line=line_no,
            field="role",
            expected="USER or SYSTEM",
        )
    return parts, role


def load_uss_redial(path: str | Path) -> Ratings:
    """USS ReDial.txt: ``ROLE\\ttext\\taction\\tr1,r2,r3,r4`` on user lines, blank line between dialogues.
    Items are user turns ``d{dialogue}#u{turn}`` (dimension ``satisfaction``) and, from the closing
    ``USER\\tOVERALL`` line, dialogues ``d{dialogue}`` (dimension ``dialogue-overall``); raters are the
    annotator slots a1…a5."""
    p = existing(path, "USS ReDial file")
    if p.is_dir():
        p = p / "ReDial.txt"
    text = read_text(p)
    records, dialogue, turn = [], 0, 0
    for line_no, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            if turn:
                dialogue, turn = dialogue + 1, 0
            continue
        parts, role = _uss_line(line, p, line_no)
        overall = (
            role == "USER" and parts[1].strip() == "OVERALL"
        )  # the dialogue's rating, not a turn
        turn += not overall
        if role == "USER" and len(parts) >= 4 and parts[3].strip():
            item, dim = (
                (f"d{dialogue}", "dialogue-overall")
                if overall
                else (f"d{dialogue}#u{turn}", "satisfaction")
            )
            for slot, raw in enumerate(parts[3].split(","), 1):
                value = to_float(raw, file=p, line=line_no, field=f"{dim}[{slot}]")
                value = _check_scale(value, (1, 5), file=p, line=line_no, field=dim)
                records.append((item, f"a{slot}", dim, value))
    if not records:
        raise CrsevalError(
            "no rated user turns", file=p, expected="USER lines with comma-separated ratings"
        )
    r = Ratings(
        pd.DataFrame(records, columns=["item", "rater", "dimension", "value"]), (1, 5), "uss-redial"
    )
    r.info = dataset_info("uss-redial", p)
    return r
