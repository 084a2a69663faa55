"""``crseval report RUN --latex``: the tables and figures a paper needs, in RUN/paper/.

Every table a report section names becomes ``<table>.tex`` (booktabs, the registry's labels as column
heads, the headline columns of wide tables, a one-row table as label/value pairs, long text cut, scaled
to the text width where wider, the section's caption and a ``tab:<table>`` label); every figure's vector
PDF is copied beside. ``main.tex`` holds one section per report section with its ``figure``
environments (caption, ``fig:<figure>`` label) and ``\\input``s of its tables, so the folder compiles
as it is (pdflatex; checked in the tests where pdflatex is installed).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd

from crseval.core.glossary import describe
from crseval.core.registry import find_metric, get_table, shown_columns
from crseval.runs.formats import latex_table, tex
from crseval.runs.view import Run, current_names, entries

MAX_COLUMNS = 9
MAX_ROWS = 30  # longer tables are per-row data, left to the CSV
MAX_TEXT = 60  # characters of a text cell


def _shown(name: str, df: pd.DataFrame) -> pd.DataFrame:
    if len(df) == 1 and len(df.columns) > 4:
        return pd.DataFrame(
            {"": [describe(c, name)[0] for c in df.columns], "value": list(df.iloc[0])}
        )
    spec = get_table(name)
    cols = (
        shown_columns(name, df.columns)
        if spec and spec.headline
        else list(df.columns[:MAX_COLUMNS])
    )
    if "metric" in cols and "label" in cols:  # the label names the metric already
        cols = [c for c in cols if c != "metric"]
    shown = df[cols].copy()
    if "metric" in shown:  # a qualified metric name (shift.follow.follow_rate) as its label
        shown["metric"] = [spec.display if (spec := find_metric(m)) else m for m in shown["metric"]]
    return shown.rename(columns=lambda c: describe(c, name)[0])


def _cut(v: object) -> object:
    return v[: MAX_TEXT - 1] + "…" if isinstance(v, str) and len(v) > MAX_TEXT else v


def table_tex(name: str, df: pd.DataFrame, caption: str) -> str:
    """One booktabs table, scaled down to the text width where it is wider."""
    body = latex_table(_shown(name, df).map(_cut))
    return (
        "\\begin{table}[htbp]\n\\centering\n\\small\n" + FIT_WIDTH + "{%\n" + body + "}\n"
        f"\\caption{{{tex(caption)}}}\n\\label{{tab:{name}}}\n\\end{{table}}\n"
    )


def figure_tex(name: str, caption: str, file: str) -> str:
    return (
        "\\begin{figure}[htbp]\n\\centering\n"
        + f"\\includegraphics[width=\\linewidth,height=.4\\textheight,keepaspectratio]{{{file}}}\n"
        f"\\caption{{{tex(caption)}}}\n\\label{{fig:{name}}}\n\\end{{figure}}\n"
    )


# scale a table down to the text width only where it is wider, written out in each table so that a
# paper's own preamble needs only booktabs and graphicx to \input it
FIT_WIDTH = "\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}"
PREAMBLE = "\\documentclass{article}\n\\usepackage{booktabs,graphicx}\n\\begin{document}\n"


def _section(store: Run, sec: dict, out: Path) -> list[str]:
    """The LaTeX of one report section: its figures (the PDF copied beside, the PNG where the run wrote
    no PDF: ``CRSEVAL_FIGURES``) and inputs of its tables."""
    lines = [f"\\clearpage\n\\section{{{tex(sec['title'])}}}\n"]  # a section's floats stay in it
    for name, caption in entries(sec, "figures"):
        drawn = [p for s in ("pdf", "png") if (p := store.path("figures", f"{name}.{s}")).exists()]
        if drawn:
            shutil.copy(drawn[0], out / drawn[0].name)
            lines.append(figure_tex(name, caption or name.replace("_", " "), drawn[0].name))
    for name, caption in entries(sec, "tables"):
        path = store.path("tables", f"{name}.csv")
        if not path.exists():
            continue
        df = current_names(name, pd.read_csv(path))
        if (
            len(df) > MAX_ROWS
        ):  # per-row data (turns, answers) belongs in the supplement, not the paper
            lines.append(f"% {name}: {len(df)} rows, not typeset; the data is tables/{name}.csv\n")
            continue
        spec = get_table(name)
        (out / f"{name}.tex").write_text(
            table_tex(name, df, caption or (spec.description if spec else name))
        )
        lines.append(f"\\input{{{name}}}\n")
    return lines


def write_paper(run_dir: str | Path) -> Path:
    """RUN/paper/: a ``<table>.tex`` per report table of at most MAX_ROWS rows, the figures' PDFs, and
    ``main.tex`` putting them in report order (compiles with pdflatex)."""
    store = Run(run_dir)
    out = store.path("paper")
    out.mkdir(exist_ok=True)
    body = [line for sec in store.sections() for line in _section(store, sec, out)]
    (out / "main.tex").write_text(PREAMBLE + "".join(body) + "\\end{document}\n")
    return out
