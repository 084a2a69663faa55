"""The one renderer of plain-text tables — Markdown and booktabs LaTeX — with the one LaTeX escaper.

Run directories (``write_paper_table``), the CLI (``--format markdown|latex``), ``crseval compare`` and
``crseval report --latex`` all render through here; the HTML report escapes with ``html.escape``.
``marks`` set a cell in bold (``"best"``) or underlined (``"second"``) in either format.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

import pandas as pd

_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    # text-mode < and > print as ¡ and ¿ in LaTeX's default (OT1) font encoding
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    # symbols the labels use, as math so that plain pdflatex typesets them
    "α": r"$\alpha$",
    "κ": r"$\kappa$",
    "ρ": r"$\rho$",
    "η": r"$\eta$",
    "τ": r"$\tau$",
    "σ": r"$\sigma$",
    "Δ": r"$\Delta$",
    "²": r"$^2$",
    "₁": r"$_1$",
    "₂": r"$_2$",
    "≥": r"$\geq$",
    "≤": r"$\leq$",
    "×": r"$\times$",
    "−": r"$-$",
    "≈": r"$\approx$",
    "→": r"$\rightarrow$",
    "…": r"\ldots{}",
}
_SPECIAL_RE = re.compile("|".join(re.escape(k) for k in _SPECIAL))

Marks = Mapping[tuple[int, str], str]  # (row position, column) → "best" | "second"


def tex(text: object) -> object:
    """LaTeX-escape plain text in one pass (a replacement is never escaped again); non-text passes
    through."""
    return _SPECIAL_RE.sub(lambda m: _SPECIAL[m.group()], text) if isinstance(text, str) else text


def _text(v: Any, floatfmt: str, na: str) -> str:
    if isinstance(v, float):
        return na if v != v else format(v, floatfmt)
    return na if v is None else str(v)


def markdown_table(df: pd.DataFrame, floatfmt: str = ".3f", marks: Marks | None = None) -> str:
    marks = marks or {}

    def cell(i: int, c: str, v: Any) -> str:
        t = _text(v, floatfmt, "").replace("|", "\\|")
        return {"best": f"**{t}**", "second": f"<u>{t}</u>"}.get(marks.get((i, c), ""), t)

    lines = [
        "| " + " | ".join(str(c).replace("|", "\\|") for c in df.columns) + " |",
        "|" + "|".join("---" for _ in df.columns) + "|",
    ]
    lines += [
        "| " + " | ".join(cell(i, c, v) for c, v in zip(df.columns, row)) + " |"
        for i, row in enumerate(df.itertuples(index=False))
    ]
    return "\n".join(lines)


def latex_table(
    df: pd.DataFrame, floatfmt: str = ".3f", marks: Marks | None = None, na: str = "--"
) -> str:
    """A booktabs ``tabular``: heads and text escaped with :func:`tex`, numbers formatted."""
    marks = marks or {}

    def cell(i: int, c: str, v: Any) -> str:
        t = tex(_text(v, floatfmt, na))
        return {"best": rf"\textbf{{{t}}}", "second": rf"\underline{{{t}}}"}.get(
            marks.get((i, c), ""), t
        )

    rows = enumerate(df.itertuples(index=False))
    cells = [[cell(i, c, v) for c, v in zip(df.columns, row)] for i, row in rows]
    shown = pd.DataFrame(cells, columns=[tex(str(c)) for c in df.columns])
    align = "".join("r" if pd.api.types.is_numeric_dtype(t) else "l" for t in df.dtypes)
    return shown.to_latex(index=False, escape=False, column_format=align)
