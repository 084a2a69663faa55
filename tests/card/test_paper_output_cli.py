"""The card on paper: LaTeX that \\inputs as it is (the signature a comment), readable metric names, a
caption that explains stars and CIs, and a forest plot where right is better on every row."""

import shutil
import subprocess

import pandas as pd
import pytest

from crseval.card.plots import oriented
from tests.support.cli import crseval

SMALL = ("--no-llm", "--against", "template", "--sessions", "6", "--turns", "4", "--n-boot", "100")


@pytest.fixture(scope="module")
def card(tmp_path_factory):
    out = tmp_path_factory.mktemp("paper") / "run"
    res = crseval("evaluate-crs", "examples/my_crs.py", *SMALL, "--out", out, "--format", "latex")
    return out, res.stdout


def test_latex_output_inputs_as_it_is_with_the_signature_as_a_comment(card):
    _, latex = card
    after = latex.split("\\end{tabular}")[1].split("\nreport:")[0]
    assert [line for line in after.splitlines() if line.strip()][0].startswith("% crseval:")
    assert all(line.startswith("%") for line in after.splitlines() if line.strip())


def test_the_paper_card_reads_like_a_paper_and_compiles(card, tmp_path):
    out, _ = card
    crseval("report", out, "--latex")
    tex = (out / "paper" / "card.tex").read_text(encoding="utf-8")
    assert "follow rate (verified)" in tex and "shift.follow" not in tex
    assert "Holm" in tex and "95 \\% bootstrap CI" in tex and "*** p" in tex
    assert " & n \\\\" in tex  # units run / planned
    comparisons = (out / "paper" / "card_comparisons.tex").read_text(encoding="utf-8")
    assert "dialogues.repetition_rate" not in comparisons and "repetition" in comparisons
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed: the LaTeX was checked, not compiled")
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "main.tex"],
        cwd=out / "paper", capture_output=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:]


def test_card_tex_inputs_into_a_paper_whose_preamble_has_booktabs_and_graphicx(card, tmp_path):
    """What a paper does with it: its own preamble, ``\\input{card.tex}``; "p < .05" in a caption is
    typeset as "<" (a text-mode < prints as "¡" in the default font encoding)."""
    out, _ = card
    crseval("report", out, "--latex")
    tex = (out / "paper" / "card.tex").read_text(encoding="utf-8")
    assert "\\fitwidth" not in tex and "<" not in tex.split("\\caption")[1]
    paper = tmp_path / "paper"
    paper.mkdir()
    shutil.copy(out / "paper" / "card.tex", paper)
    (paper / "mine.tex").write_text(
        "\\documentclass{article}\n\\usepackage{booktabs,graphicx}\n\\begin{document}\n"
        "\\input{card.tex}\n\\end{document}\n",
        encoding="utf-8",
    )
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed: the LaTeX was checked, not compiled")
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "mine.tex"],
        cwd=paper, capture_output=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:]


def test_the_forest_plot_signs_each_difference_so_that_right_is_better():
    rows = pd.DataFrame(
        {
            "metric": ["dialogues.repetition_rate", "shift.follow.follow_rate", "card.diff"],
            "label": ["repetition", "follow rate", "difference"],
            "diff": [-0.72, 0.3, 0.1],
            "diff_lo": [-0.8, 0.1, 0.0],
            "diff_hi": [-0.6, 0.5, 0.2],
        }
    )
    got = oriented(rows).set_index("metric")
    # fewer repeats is better: plotted right of 0, its CI flipped with it
    assert got.loc["dialogues.repetition_rate", ["diff", "diff_lo", "diff_hi"]].tolist() == [
        0.72,
        0.6,
        0.8,
    ]
    assert "lower is better" in got.loc["dialogues.repetition_rate", "label"]
    assert got.loc["shift.follow.follow_rate", "diff"] == 0.3
    assert got.loc["card.diff", "label"] == "difference (no direction)"
