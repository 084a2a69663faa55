"""The one plain-text renderer: Markdown and booktabs LaTeX, with the one LaTeX escaper."""

import pandas as pd

from crseval.runs.formats import latex_table, markdown_table, tex


def test_tex_escapes_in_one_pass():
    assert (
        tex(r"a\b {x}_1 & 50% ~#$") == r"a\textbackslash{}b \{x\}\_1 \& 50\% \textasciitilde{}\#\$"
    )
    assert tex("Spearman ρ ≥ .5, η²") == r"Spearman $\rho$ $\geq$ .5, $\eta$$^2$"
    assert tex(1.5) == 1.5


FRAME = pd.DataFrame({"metric_name": ["a|b", "50% & up"], "n": [5, 6], "r": [0.5, float("nan")]})


def test_markdown_formats_numbers_escapes_pipes_and_marks_cells():
    md = markdown_table(FRAME, marks={(0, "r"): "best", (1, "n"): "second"})
    assert md.splitlines()[0] == "| metric_name | n | r |"
    assert "| a\\|b | 5 | **0.500** |" in md  # ints stay ints, floats to 3 places
    assert "| 50% & up | <u>6</u> |  |" in md  # NaN is an empty cell


def test_latex_is_booktabs_with_escaped_text_and_right_aligned_numbers():
    tex_table = latex_table(FRAME, marks={(0, "r"): "best"})
    assert tex_table.startswith(r"\begin{tabular}{lrr}")
    assert r"\toprule" in tex_table and r"\bottomrule" in tex_table
    assert r"metric\_name & n & r \\" in tex_table
    assert r"50\% \& up & 6 & -- \\" in tex_table
    assert r"\textbf{0.500}" in tex_table
