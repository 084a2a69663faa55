"""Sphinx configuration of crseval's documentation (MyST Markdown pages, the furo theme). The CLI, API,
metric and dataset references are generated from the code at build time: never edit them by hand."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

project = "crseval"
author = "the crseval developers"
extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "reference/_*.md"]  # generated fragments, included by their pages
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence"]
html_theme = "furo"
html_title = "crseval"
autodoc_member_order = "bysource"
autodoc_typehints = "description"
nitpicky = False


def _table(rows: list[dict], columns: list[str]) -> str:
    def cell(v) -> str:
        return str("" if v is None else v).replace("|", "\\|").replace("\n", " ")

    head = "| " + " | ".join(columns) + " |\n|" + "---|" * len(columns) + "\n"
    return head + "".join("| " + " | ".join(cell(r[c]) for c in columns) + " |\n" for r in rows)


def cli_reference(path: Path) -> None:
    """Every command, option and default, from the command tree (typer's own Markdown generator; typer
    builds on its own copy of click, which sphinx-click cannot read), one heading level down."""
    subprocess.run(
        [sys.executable, "-m", "typer", "crseval.cli.main", "utils", "docs", "--name", "crseval",
         "--output", str(path)],
        check=True, capture_output=True,
    )  # fmt: skip
    text = re.sub(r"^(#+) ", r"#\1 ", path.read_text(encoding="utf-8"), flags=re.M)
    path.write_text(text, encoding="utf-8")


def generate(app=None) -> None:
    """The CLI, metric and dataset references, from the command tree, the registry and the loaders."""
    cli_reference(HERE / "reference" / "_cli.md")
    from crseval.core.glossary import metric_reference
    from crseval.data import DATASETS

    rows = metric_reference()
    for r in rows:
        r["direction"] = {True: "higher", False: "lower", None: "—"}[r["higher is better"]]
        r["metric"] = f"`{r['metric']}`"
    (HERE / "reference" / "_metrics.md").write_text(
        _table(rows, ["metric", "label", "direction", "scale", "tables", "description"]),
        encoding="utf-8",
    )
    data = [
        {
            "name": f"`{s.name}`",
            "kind": s.kind,
            "what": s.description,
            "layout (under ../shared/data)": f"`{s.default_path}`" if s.default_path else "bundled",
            "source": s.source,
        }
        for s in DATASETS.values()
    ]
    (HERE / "reference" / "_datasets.md").write_text(
        _table(data, ["name", "kind", "what", "layout (under ../shared/data)", "source"]),
        encoding="utf-8",
    )


def setup(app):
    app.connect("builder-inited", generate)
