"""Render results for people (rich tables) or machines (json, csv, markdown, latex).

JSON is strict: NaN and infinities become ``null`` (strict parsers refuse ``NaN``)."""

from __future__ import annotations

import json
import math
from enum import Enum
from typing import Any

import numpy as np
import pandas as pd
from rich.console import Console
from rich.table import Table

from crseval.core.job import Result
from crseval.runs.formats import latex_table, markdown_table

console = Console()
err_console = Console(stderr=True)


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
        table = Table(title=title, show_lines=False)
        for c in (
            df.columns
        ):  # every column may fold: a long first column must not squeeze the numbers to 1 char
            table.add_column(str(c), overflow="fold")
        for row in df.itertuples(index=False):
            table.add_row(*[f"{v:.4g}" if isinstance(v, float) else str(v) for v in row])
        console.print(table)
    if signature and fmt is not Format.csv:
        console.print(f"[dim]{signature}[/dim]", soft_wrap=True)


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
