"""Render results for people (rich tables) or machines (json, csv, markdown, latex)."""
from __future__ import annotations

import json
from enum import Enum
from typing import Any

import pandas as pd
from rich.console import Console
from rich.table import Table

console = Console()
err_console = Console(stderr=True)


class Format(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"
    markdown = "markdown"
    latex = "latex"


def markdown_table(df: pd.DataFrame, floatfmt: str = ".3f") -> str:
    def cell(v: Any) -> str:
        return format(v, floatfmt) if isinstance(v, float) else str(v).replace("|", "\\|")
    lines = ["| " + " | ".join(map(str, df.columns)) + " |", "|" + "|".join("---" for _ in df.columns) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines)


def emit(data: pd.DataFrame | dict | list, fmt: Format = Format.table, title: str | None = None,
         signature: str | None = None) -> None:
    """Print ``data`` in the requested format; tables carry the signature line underneath."""
    if fmt is Format.json:
        payload = data.to_dict(orient="records") if isinstance(data, pd.DataFrame) else data
        if signature:
            payload = {"signature": signature, "result": payload}
        print(json.dumps(payload, indent=2, ensure_ascii=False, default=str))
        return
    df = data if isinstance(data, pd.DataFrame) else pd.DataFrame(
        [{"key": k, "value": json.dumps(v, ensure_ascii=False, default=str) if isinstance(v, (dict, list)) else v}
         for k, v in (data.items() if isinstance(data, dict) else enumerate(data))])
    if fmt is Format.csv:
        print(df.to_csv(index=False), end="")
    elif fmt is Format.markdown:
        print(markdown_table(df))
    elif fmt is Format.latex:
        print(df.to_latex(index=False, float_format="%.3f", escape=True))
    else:
        table = Table(title=title, show_lines=False)
        for i, c in enumerate(df.columns):
            table.add_column(str(c), no_wrap=i == 0, overflow="ellipsis" if i == 0 else "fold")
        for row in df.itertuples(index=False):
            table.add_row(*[f"{v:.4g}" if isinstance(v, float) else str(v) for v in row])
        console.print(table)
    if signature and fmt is not Format.csv:
        console.print(f"[dim]{signature}[/dim]", soft_wrap=True)
