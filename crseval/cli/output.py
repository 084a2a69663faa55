"""Render results for people (rich tables) or machines (json, csv, markdown, latex).

JSON is strict: NaN and infinities become ``null`` (strict parsers refuse ``NaN``)."""

from __future__ import annotations

import json
import math
from enum import Enum
from typing import Any

import numpy as np
import pandas as pd
from rich import box
from rich.console import Console
from rich.table import Table

from crseval.core.job import Result
from crseval.runs.formats import latex_table, markdown_table

console = Console(emoji=False)  # ":x:" in a signature (catalogue x) is text, not an emoji
err_console = Console(stderr=True, emoji=False)


class Format(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"
    markdown = "markdown"
    latex = "latex"


def strict(obj: Any) -> Any:
    """A JSON-safe copy: NaN/inf → None, numpy scalars → Python, DataFrames → records."""
    if isinstance(obj, pd.DataFrame):
        return strict(obj.to_dict(orient="records"))
    if isinstance(obj, dict):
        return {str(k): strict(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [strict(v) for v in obj]
    if isinstance(obj, (np.generic,)):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if obj is pd.NA or obj is pd.NaT:
        return None
    return obj


def dumps(obj: Any) -> str:
    return json.dumps(strict(obj), indent=2, ensure_ascii=False, default=str, allow_nan=False)


def emit(
    data: pd.DataFrame | dict | list,
    fmt: Format = Format.table,
    title: str | None = None,
    signature: str | None = None,
) -> None:
    """Print ``data`` in the requested format; tables carry the signature line underneath."""
    if fmt is Format.json:
        print(dumps({"signature": signature, "result": data} if signature else data))
        return
    df = (
        data
        if isinstance(data, pd.DataFrame)
        else pd.DataFrame(
            [
                {
                    "key": k,
                    "value": json.dumps(v, ensure_ascii=False, default=str)
                    if isinstance(v, (dict, list))
                    else v,
                }
                for k, v in (data.items() if isinstance(data, dict) else enumerate(data))
            ]
        )
    )
    if fmt is Format.csv:
        print(df.to_csv(index=False), end="")
    elif fmt is Format.markdown:
        print(markdown_table(df))
    elif fmt is Format.latex:
        print(latex_table(df))
    else:
        _rich_table(df, title)
    if signature and fmt is Format.latex:  # a comment: the output \input s as it is
        print(f"% {signature}")
    elif signature and fmt is not Format.csv:
        console.print(f"[dim]{signature}[/dim]", soft_wrap=True)


def _cell(v: Any) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def _needed(header: str, cells: list[str], wrap: bool = False) -> int:
    """A column's narrowest readable width: its widest value (text over 40 characters folds) — or, with
    ``wrap``, its longest word (text wraps between words) —, and its header's longest word (a header wraps
    between words, never inside one; a word over 16 may fold)."""
    words = [len(w) for w in header.split()] or [1]
    values = [max((len(w) for w in c.split()), default=0) if wrap else len(c) for c in cells]
    return max([min(40, v) for v in values] + [min(16, max(words))])


def _rich_table(df: pd.DataFrame, title: str | None) -> None:
    """The leading columns that fit the terminal (the first column, the row's name, always): every value on
    one line where that fits, else the widest columns narrowed, text wrapping between words, down to their
    longest word — in a box, or without one where the box would leave a column out; the columns left out
    even so are named on stderr with the formats that show all."""
    cells = {c: [_cell(v) for v in df[c]] for c in df.columns}
    full = {c: _needed(str(c), cells[c]) for c in df.columns}
    least = {c: _needed(str(c), cells[c], wrap=True) for c in df.columns}
    # a boxed column adds its padding and a border (3) to the left border; an open one two spaces: open
    # where that shows every column the box would not, else boxed with the columns that fit
    for room, gap in ((console.width - 1, 3), (console.width + 2, 2), (console.width - 1, 3)):
        keep: list = []
        for c in df.columns:
            if keep and sum(least[k] + gap for k in [*keep, c]) > room:
                break
            keep.append(c)
        if len(keep) == len(df.columns):
            break
    widths = {c: full[c] for c in keep}
    while sum(w + gap for w in widths.values()) > room:
        c = max(keep, key=lambda k: widths[k] - least[k])
        if widths[c] <= least[c]:
            break
        widths[c] -= 1
    table = (
        Table(title=title, show_lines=False)
        if gap == 3
        else Table(
            title=title, box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True
        )
    )
    for c in keep:
        table.add_column(str(c), overflow="fold", width=widths[c])
    for i in range(len(df)):
        table.add_row(*[cells[c][i] for c in keep])
    console.print(table)
    if len(keep) < len(df.columns):
        left = [str(c) for c in df.columns[len(keep) :]]
        err_console.print(
            f"[dim]{len(left)} more column(s) than fit {console.width} columns: "
            f"{', '.join(left[:6])}{', …' if len(left) > 6 else ''} — --format markdown, csv or json "
            "shows every column (the report too)[/dim]",
            soft_wrap=True,
            highlight=False,
        )


def show_result(result: Result, fmt: Format, seconds: float | None = None) -> None:
    """A job's result: the headline table (json: with every detail table), notes on stderr, the report."""
    if fmt is Format.json:
        print(
            dumps(
                {
                    "signature": result.signature_line,
                    "result": result.summary,
                    **({"details": result.details} if result.details else {}),
                    **({"notes": result.notes} if result.notes else {}),
                    "report": str(result.report) if result.report else None,
                }
            )
        )
        return
    if fmt is Format.table:
        for name, df in result.details.items():
            emit(df, fmt, title=name)
    emit(result.summary, fmt, title=result.title, signature=result.signature_line)
    for note in result.notes:
        err_console.print(f"[yellow]note:[/yellow] {note}", soft_wrap=True, highlight=False)
    if fmt is Format.table:
        done = f" in {seconds:.1f} s" if seconds is not None else ""
        console.print(
            f"report: [bold]{result.report}[/bold]" + done if result.report else f"finished{done}"
        )
