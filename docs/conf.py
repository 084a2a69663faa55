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


def benchmark_reference(bench: Path, path: Path) -> None:
    """One section per script in ``bench/``: what it measures (its docstring's first paragraph) and, from
    the records it wrote to ``bench/results/`` (``bench/_record.py``), each run's command, date, machine,
    signature, tables and printed output; a script without a record says so, and a record made by an
    earlier version of its script says that."""
    import json

    import pandas as pd

    from crseval.core.signature import content_hash
    from crseval.runs.formats import markdown_table

    out = []
    for script in sorted(bench.glob("[!_]*.py")):
        doc = re.search(r'"""(.*?)"""', script.read_text(encoding="utf-8"), re.S)
        about = doc.group(1).strip().split("\n\n")[0].replace("\n", " ") if doc else ""
        out.append(f"## `bench/{script.name}`\n\n{about}\n")
        records = sorted((bench / "results").glob(f"{script.stem}.json")) + sorted(
            (bench / "results").glob(f"{script.stem}.*.json")
        )
        if not records:
            out.append(f"*No record yet: run `python bench/{script.name}`.*\n")
        now = content_hash([script])
        for rec in records:
            r = json.loads(rec.read_text(encoding="utf-8"))
            m, sig = r["machine"], r["signature"]
            data = ", ".join(f"{k}@{v}" for k, v in sig["data"].items()) or "none named"
            out.append(
                f"`{r['command']}` — {r['date']}; {m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB, "
                f"{m['platform']}, Python {m['versions'].get('python')}; crseval {sig['crseval']} "
                f"(git {sig['git']}), script@{sig['script']}, data {data}; {r['wall_s']} s, exit "
                f"{r['status']}.\n"
            )
            if sig["script"] != now:
                out.append(f"*Recorded by an earlier version of the script (now script@{now}).*\n")
            for t in r["tables"]:
                table = markdown_table(pd.DataFrame(t["rows"]), floatfmt=".4g")
                out.append(f"**{t['title']}**\n\n{table}\n")
                if t["note"]:
                    out.append(t["note"] + "\n")
            out.append("```text\n" + r["output"].rstrip() + "\n```\n")
    path.write_text("\n".join(out), encoding="utf-8")


def validity_reference(path: Path) -> None:
    """One section per record of the validity gate (``crseval/validated/``): its command, date, commit, data,
    tolerances (its check's, by method), targets and figures."""
    import pandas as pd

    from crseval import validated
    from crseval.runs.formats import markdown_table

    if str(HERE.parent) not in sys.path:  # `sphinx-build` runs from anywhere: the checks live in tools/
        sys.path.insert(0, str(HERE.parent))
    from tools.validity_checks import CHECKS

    out = []
    for file in sorted(validated.HOME.glob("*.json")):
        r = validated.load(file.stem)
        data = ", ".join(f"`{k}`@{v}" for k, v in r.data.items()) or "none named"
        out.append(
            f"## `{r.check}`\n\n`{r.command}` — {r.date}, git {r.commit or 'unknown'}; data {data}.\n"
        )
        if r.check in CHECKS:  # each figure's tolerance, from the method that produced it
            by: dict = {}
            for col, p in CHECKS[r.check].tolerance.items():
                by.setdefault(p, []).append(col)
            out.append(
                "Tolerance: "
                + "; ".join(f"{', '.join(c)} ± {p.tolerance:g} ({p.method})" for p, c in by.items())
                + ".\n"
            )
        for col, (lo, hi) in r.target.items():
            out.append(f"Target: {col} in [{lo:g}, {hi:g}]; {r.known}.\n")
        figures = dict.fromkeys(c for row in r.rows for c in row if c not in r.key)
        frame = pd.DataFrame(r.rows)[[*r.key, *figures]]
        out.append(markdown_table(frame, floatfmt=".4g") + "\n")
    path.write_text("\n".join(out), encoding="utf-8")


def generate(app=None) -> None:
    """The CLI, metric and dataset references, from the command tree, the registry and the loaders."""
    cli_reference(HERE / "reference" / "_cli.md")
    benchmark_reference(HERE.parent / "bench", HERE / "reference" / "_benchmarks.md")
    validity_reference(HERE / "reference" / "_validity.md")
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


DATED = re.compile(r"^([ \t]*)<!--dated (\S+) ([0-9a-f]+)-->$", re.M)


def show_dates(app, docname: str, source: list[str]) -> None:
    """A dated passage (``tools/doc_figures.py``) says so on the page: its figures were measured once."""
    source[0] = DATED.sub(r"\1*As measured on \2 (commit \3), not re-measured since:*", source[0])


def setup(app):
    app.connect("builder-inited", generate)
    app.connect("source-read", show_dates)
