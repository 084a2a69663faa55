import numpy as np
import pandas as pd
import pytest
from scipy import stats

from crseval.report.compare import compare, shared_tables, to_latex, to_markdown
from crseval.runs import RunStore


def make_run(root, name, values, dialogues=None):
    s = RunStore(root / name)
    n = len(values)
    s.write_table("behavior_turns", pd.DataFrame({"dialogue": dialogues or [f"d{i // 4}" for i in range(n)],
                                                  "turn": [i % 4 for i in range(n)], "p_same": values,
                                                  "match": (np.asarray(values) > 0.5).astype(int)}))
    return s.root


def test_paired_test_when_items_match(tmp_path):
    rng = np.random.default_rng(0)
    a = rng.random(40)
    b = np.clip(a + rng.normal(0.1, 0.05, 40), 0, 1)
    runs = [make_run(tmp_path, "A", a), make_run(tmp_path, "B", b)]
    assert shared_tables(runs) == ["behavior_turns"]
    t = compare(runs, "behavior_turns", ["p_same"]).iloc[0]
    assert t["test"].startswith("paired t") and t["p"] == pytest.approx(stats.ttest_rel(a, b).pvalue)
    assert t["A"] == pytest.approx(a.mean()) and t["B"] == pytest.approx(b.mean())


def test_welch_when_items_differ_and_anova_tukey_for_three(tmp_path):
    rng = np.random.default_rng(1)
    a, b, c = rng.normal(0.3, 0.1, 30), rng.normal(0.5, 0.1, 20), rng.normal(0.52, 0.1, 25)
    runs = [make_run(tmp_path, "A", a), make_run(tmp_path, "B", b, [f"x{i}" for i in range(20)]),
            make_run(tmp_path, "C", c, [f"y{i}" for i in range(25)])]
    w = compare(runs[:2], "behavior_turns", ["p_same"]).iloc[0]
    assert w["test"] == "Welch t" and w["p"] == pytest.approx(stats.ttest_ind(a, b, equal_var=False).pvalue)
    three = compare(runs, "behavior_turns", ["p_same"]).iloc[0]
    assert three["p"] == pytest.approx(stats.f_oneway(a, b, c).pvalue)
    assert "A vs B" in three["Tukey HSD (p<0.05)"] and "B vs C" not in three["Tukey HSD (p<0.05)"]


def test_best_bold_second_underlined_respecting_direction(tmp_path):
    runs = [make_run(tmp_path, n, v) for n, v in [("A", [0.2] * 8), ("B", [0.9] * 8), ("C", [0.5] * 8)]]
    t = compare(runs, "behavior_turns", ["p_same"])
    md, tex = to_markdown(t, ["A", "B", "C"]), to_latex(t, ["A", "B", "C"])
    assert "**0.900**" in md and "<u>0.500</u>" in md
    assert r"\textbf{0.900}" in tex and r"\underline{0.500}" in tex and r"\toprule" in tex
    low = compare(runs, "behavior_turns", ["p_same"], lower_is_better=["p_same"])
    assert "**0.200**" in to_markdown(low, ["A", "B", "C"])
