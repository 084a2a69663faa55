import os
import shutil
import subprocess

import pandas as pd
import pytest

from crseval.report.paper import MAX_ROWS, table_tex, write_paper
from crseval.runs import RunStore

pytestmark = pytest.mark.any_table  # made-up tables: no declaration check


def test_one_row_table_is_label_value_pairs():
    tex = table_tex(
        "behavior_metrics",
        pd.DataFrame([{"explicit_ba": 0.25, "bleu4": 1.0, "dist1": 0.5, "dist2": 0.7, "turns": 9}]),
        "BA & co",
    )
    assert "explicit BA (formula) & 0.250" in tex
    assert r"\caption{BA \& co}" in tex and r"\label{tab:behavior_metrics}" in tex


def _run(tmp_path):
    s = RunStore(tmp_path / "run")
    s.write_table(
        "scores",
        pd.DataFrame(
            {
                "dialogue": ["d_1", "d_2"],
                "kappa": [0.5, float("nan")],
                "text": ["x" * 200, "50 % & $"],
            }
        ),
    )
    s.write_table("turns", pd.DataFrame({"turn": range(MAX_ROWS + 1)}))
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([1, 2])
    fig.savefig(s.figure_path("line").with_suffix(".pdf"))
    plt.close(fig)
    s.add_section(
        "Section_1 & more",
        "text",
        tables=[("scores", "Scores: κ per dialogue"), "turns"],
        figures=[("line", "A line, 100 %")],
    )
    return s.root


def test_paper_has_sections_tables_and_figures_in_report_order(tmp_path):
    out = write_paper(_run(tmp_path))
    main = (out / "main.tex").read_text()
    assert (
        main.index(r"\section{Section\_1 \& more}")
        < main.index("line.pdf")
        < main.index(r"\input{scores}")
    )
    assert "% turns: 31 rows, not typeset" in main and not (out / "turns.tex").exists()
    scores = (out / "scores.tex").read_text()
    assert "x" * 59 + r"\ldots{}" in scores and "x" * 60 not in scores  # long text is cut
    assert r"50 \% \& \$" in scores and "--" in scores  # escaped; NaN as a dash
    assert (out / "line.pdf").exists()


def test_a_run_without_pdf_figures_puts_its_pngs_in_the_paper(tmp_path):
    root = _run(tmp_path)
    pdf = root / "figures" / "line.pdf"
    pdf.with_suffix(".png").write_bytes(b"\x89PNG")
    pdf.unlink()  # a run made with CRSEVAL_FIGURES=png
    out = write_paper(root)
    assert "{line.png}" in (out / "main.tex").read_text() and (out / "line.png").exists()


def test_paper_compiles_with_pdflatex(tmp_path):
    if not shutil.which("pdflatex"):
        # CI installs it (.ci/run), so there a missing engine is a failure, not a skip
        msg = "pdflatex is not installed (apt install texlive-latex-base texlive-latex-recommended)"
        pytest.fail(msg) if os.environ.get("CI") else pytest.skip(msg)
    out = write_paper(_run(tmp_path))
    res = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "main.tex"],
        cwd=out,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stdout[-2000:]
    assert (out / "main.pdf").exists()
