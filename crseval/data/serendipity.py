"""Serendipity user studies: Serendipity-2018 (MovieLens) and Taobao Serendipity.

Serendipity-2018: ground truth = mean of the unexpectedness statements s4 (not a movie I would find
on my own), s5 (different from what I usually watch) and s6 (surprised it was recommended), on 1–5;
the statements are a parameter. Titles/genres come from ``movies.csv`` beside the answers; movies it
lacks are *reported*. The column ``gpt-rating`` is an external evaluator's prediction and is kept.

Taobao: ground truth = ``Serendipity``; curiosity C1–C10 and personality P1–P10 are kept. The ids
are anonymised and there is no item text and no history, so history- and content-based measures
cannot be computed on it (listed in ``unavailable``).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from crseval.core.errors import CrsevalError
from crseval.core.types import Item
from crseval.data.io import dataset_info, existing, read_rows, read_text, to_float
from crseval.data.base import SerendipityStudy

S2018_FILE = "answers_with_gpt_rating.csv"
DEFAULT_STATEMENTS = ("s4", "s5", "s6")


_EMPTY = ("", "nan", "na", "null", "none")  # what ``to_float`` reads as an empty cell


def _numeric_frame(
    path: Path, required: Sequence[str], optional_numeric: Sequence[str] = ()
) -> pd.DataFrame:
    """The answers with ``required`` and ``optional_numeric`` columns as numbers (NaN where empty; the first
    two required ones may not be empty), converted a column at a time; cells pandas does not read as
    numbers go through ``to_float`` in file order, so the first bad one is reported as it always was."""
    header, rows = read_rows(path, required=tuple(required))
    lines, cells = [], []
    for line, row in rows:
        lines.append(line)
        cells.append([row[c] for c in header])
    if not cells:
        raise CrsevalError("no answers after the header", file=path)
    raw = pd.DataFrame(cells, columns=header, dtype=object)
    df, unread = pd.DataFrame({"_line": lines}), []
    for col, c in enumerate(header):
        if c not in required and c not in optional_numeric:
            df[c] = raw[c]
            continue
        text = raw[c].str.strip()
        empty = text.str.lower().isin(_EMPTY)
        df[c] = pd.to_numeric(text.where(~empty), errors="coerce").astype(float)
        check = (df[c].isna() & ~empty) | (empty & (c in required[:2]))
        unread += [(row, col) for row in np.flatnonzero(check.to_numpy())]
    for row, col in sorted(unread):
        c = header[col]
        value = to_float(
            raw[c].iloc[row], file=path, line=lines[row], field=c, allow_empty=c not in required[:2]
        )
        df.loc[row, c] = np.nan if value is None else value
    return df


def read_movielens(path: Path, wanted: set[str] | None, notes: list[str]) -> dict[str, Item]:
    """MovieLens movies.csv (every movie, or those in ``wanted``). Some titles hold an unquoted comma ("Million Dollar Duck;The (a.k.a. $1,000
    000 Duck)"): the id is the first field and the genres the last, so the middle is re-joined as the
    title and the repair is counted in the notes."""
    text = read_text(path)
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    if header != ["movieId", "title", "genres"]:
        raise CrsevalError(
            f"unexpected header {header}", file=path, line=1, expected="movieId,title,genres"
        )
    items, repaired = {}, 0
    for values in reader:
        if not values:
            continue
        if len(values) < 3:
            raise CrsevalError(
                f"row has {len(values)} fields",
                file=path,
                line=reader.line_num,
                expected="movieId,title,genres",
            )
        repaired += len(values) > 3
        mid, title, genres = values[0].strip(), ",".join(values[1:-1]).strip(), values[-1]
        if wanted is None or mid in wanted:
            items[mid] = Item(
                mid, title, {"genres": [] if genres == "(no genres listed)" else genres.split("|")}
            )
    if repaired:
        notes.append(f"movies.csv: {repaired} rows with an unquoted comma in the title re-joined")
    return items


def _check_answers(df: pd.DataFrame, statements: Sequence[str], path: Path) -> None:
    """Every statement's agreement on 1–5, and one answer per (user, movie)."""
    for c in statements:
        bad = df[(df[c] < 1) | (df[c] > 5)]
        if len(bad):
            raise CrsevalError(
                f"value {bad.iloc[0][c]} outside 1–5",
                file=path,
                line=int(bad.iloc[0]["_line"]),
                field=c,
                expected="an agreement score from 1 to 5",
            )
    dup = df.duplicated(["userId", "movieId"])
    if dup.any():
        raise CrsevalError(
            "duplicate (userId, movieId) answer",
            file=path,
            line=int(df[dup].iloc[0]["_line"]),
            field="movieId",
        )


def load_serendipity2018(
    path: str | Path, statements: Sequence[str] = DEFAULT_STATEMENTS
) -> SerendipityStudy:
    p = existing(path, "Serendipity-2018 data")
    answers_path = p / S2018_FILE if p.is_dir() else p
    folder = answers_path.parent
    stmts = [f"s{i}" for i in range(1, 9)]
    df = _numeric_frame(
        existing(answers_path, "Serendipity-2018 answers"),
        ["userId", "movieId", "rating", *statements],
        [*stmts, "predictedRating", "gpt-rating", "timestamp"],
    )
    _check_answers(df, statements, answers_path)
    movies_path = folder / "movies.csv"
    files = [answers_path] + ([movies_path] if movies_path.exists() else [])
    info = dataset_info("serendipity2018", p, *files)
    items: dict[str, Item] = {}
    if movies_path.exists():
        items = read_movielens(movies_path, {str(int(m)) for m in df["movieId"]}, info.notes)
    else:
        info.notes.append("movies.csv not found beside the answers: no titles or genres")
    out = pd.DataFrame(
        {
            "user": df["userId"].astype(int).astype(str),
            "item": df["movieId"].astype(int).astype(str),
            "rating": df["rating"],
            "predicted_rating": df.get("predictedRating"),
            "timestamp": df.get("timestamp"),
            "ground_truth": df[list(statements)].mean(axis=1),
            **{s: df[s] for s in stmts if s in df},
            **({"gpt-rating": df["gpt-rating"]} if "gpt-rating" in df else {}),
        }
    )
    missing = sorted(set(out["item"]) - set(items), key=int)
    if missing and items:
        info.notes.append(
            f"{len(missing)} of {out['item'].nunique()} movies lack titles/genres in movies.csv "
            f"(e.g. {', '.join(missing[:5])}); their answers are kept without item text"
        )
    empty = {s: int(df[s].isna().sum()) for s in stmts if s in df and df[s].isna().any()}
    if empty:
        info.notes.append(f"empty statement cells: {empty}")
    outcomes = tuple(c for c in ("ground_truth", "rating", *stmts) if c in out)
    return SerendipityStudy(
        info, out, items, "mean(" + ",".join(statements) + ")", outcomes=outcomes
    )


def load_taobao(path: str | Path) -> SerendipityStudy:
    p = existing(path, "Taobao Serendipity data")
    f = p / "umap2020_TSD_Wang.csv" if p.is_dir() else p
    likert = ["Relevance", "Novelty", "Unexpectedness", "Serendipity", "User satisfaction"]
    traits = [f"C{i}" for i in range(1, 11)] + [f"P{i}" for i in range(1, 11)]
    df = _numeric_frame(
        existing(f, "Taobao answers"),
        ["UserId", "ItemId", "Serendipity", *likert[:3]],
        [
            "CategoryId",
            "Clicked",
            "Purchased",
            "Pur_diversity",
            "Rec_diversity",
            "Timeliness",
            "User satisfaction",
            "Purchase intention",
            *traits,
        ],
    )
    bad = df[(df["Serendipity"] < 1) | (df["Serendipity"] > 5)]
    if len(bad):
        raise CrsevalError(
            "Serendipity outside 1–5", file=f, line=int(bad.iloc[0]["_line"]), field="Serendipity"
        )
    out = df.drop(columns=["_line"]).rename(
        columns={"UserId": "user", "ItemId": "item", "CategoryId": "category"}
    )
    out["user"] = out["user"].astype(int).astype(str)
    out["item"] = out["item"].astype(int).astype(str)
    out["ground_truth"] = out["Serendipity"]
    unavailable = {
        "history": "no interaction history is published (one recommended item per user)",
        "item text": "items are anonymised ids with a category id only",
        "content similarity to history": "needs item features and a history",
        "popularity": "the platform's HOT flag (the paper's popularity) is not in the published file",
    }
    outcomes = (
        "ground_truth",
        "Clicked",
        "Purchased",
        *likert,
        "Pur_diversity",
        "Rec_diversity",
        "Timeliness",
        "Purchase intention",
    )
    return SerendipityStudy(
        dataset_info("taobao-serendipity", p, f),
        out,
        {},
        "Serendipity",
        unavailable,
        outcomes=tuple(c for c in outcomes if c in out),
    )
