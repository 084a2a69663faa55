"""Plain-text table formats shared by run directories and the CLI: Markdown and booktabs LaTeX."""

from __future__ import annotations

from typing import Any

import pandas as pd


def markdown_table(df: pd.DataFrame, floatfmt: str = ".3f") -> str:
    def cell(v: Any) -> str:
        if isinstance(v, float):
            return "" if v != v else format(v, floatfmt)
        return str(v).replace("|", "\\|")

    lines = [
        "| " + " | ".join(map(str, df.columns)) + " |",
        "|" + "|".join("---" for _ in df.columns) + "|",
    ]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines)


def latex_table(df: pd.DataFrame) -> str:
    return df.to_latex(index=False, float_format="%.3f", escape=True)
