import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from crseval.core.errors import CrsevalError
from crseval.report.compare import compare, shared_tables, to_latex, to_markdown
from crseval.runs import Run, RunStore

pytestmark = pytest.mark.any_table  # made-up tables: no declaration check


def make_run(root, name, values, dialogues=None):
    s = RunStore(root / name)
    n = len(values)
    s.write_table(
        "behavior_turns",
        pd.DataFrame(
            {
                "dialogue": dialogues or [f"d{i // 4}" for i in range(n)],
                "turn": [i % 4 for i in range(n)],
                "p_same": values,
                "match": (np.asarray(values) > 0.5).astype(int),
            }
        ),
    )
    return s.root


def test_paired_test_when_items_match(tmp_path):
    rng = np.random.default_rng(0)
    a = rng.random(40)
    b = np.clip(a + rng.normal(0.1, 0.05, 40), 0, 1)
    runs = [make_run(tmp_path, "A", a), make_run(tmp_path, "B", b)]
    assert shared_tables([Run(r) for r in runs]) == ["behavior_turns"]
    t = compare(runs, "behavior_turns", ["p_same"]).table.iloc[0]
    assert t["test"].startswith("paired t")
    assert t["p"] == pytest.approx(stats.ttest_rel(a, b).pvalue)
    assert t["A"] == pytest.approx(a.mean())
    assert t["B"] == pytest.approx(b.mean())


def test_welch_when_items_differ_and_anova_tukey_for_three(tmp_path):
    rng = np.random.default_rng(1)
    a, b, c = rng.normal(0.3, 0.1, 30), rng.normal(0.5, 0.1, 20), rng.normal(0.52, 0.1, 25)
    runs = [
        make_run(tmp_path, "A", a),
        make_run(tmp_path, "B", b, [f"x{i}" for i in range(20)]),
        make_run(tmp_path, "C", c, [f"y{i}" for i in range(25)]),
    ]
    w = compare(runs[:2], "behavior_turns", ["p_same"]).table.iloc[0]
    assert w["test"] == "Welch t"
    assert w["p"] == pytest.approx(stats.ttest_ind(a, b, equal_var=False).pvalue)
    three = compare(runs, "behavior_turns", ["p_same"]).table.iloc[0]
    assert three["p"] == pytest.approx(stats.f_oneway(a, b, c).pvalue)
    assert three["statistic"] == pytest.approx(stats.f_oneway(a, b, c).statistic)  # F is reported
    assert "A vs B" in three["Tukey HSD (p<0.05)"]
    assert "B vs C" not in three["Tukey HSD (p<0.05)"]


def test_best_bold_second_underlined_respecting_direction(tmp_path):
    runs = [
        make_run(tmp_path, n, v) for n, v in [("A", [0.2] * 8), ("B", [0.9] * 8), ("C", [0.5] * 8)]
    ]
    t = compare(runs, "behavior_turns", ["p_same"])
    md, tex = to_markdown(t), to_latex(t)
    assert "**0.900**" in md
    assert "<u>0.500</u>" in md
    assert r"\textbf{0.900}" in tex
    assert r"\underline{0.500}" in tex
    assert r"\toprule" in tex


def test_lower_is_better_comes_from_the_registry(tmp_path):
    for name, v in [("A", 0.2), ("B", 0.9)]:
        RunStore(tmp_path / name).write_table(
            "serendipity_meta_eval",
            pd.DataFrame(
                {"evaluator": ["sog", "random"], "mae": [v, v + 0.01], "mae_lo": [0.0, 0.0]}
            ),
        )
    c = compare([tmp_path / "A", tmp_path / "B"])
    assert c.table_name == "serendipity_meta_eval"
    assert list(c.table["metric"]) == ["mae"]  # the CI bound is context, never tested
    assert "**0.205**" in to_markdown(c)  # lower MAE is better: A is bold


def test_ties_are_never_bold(tmp_path):
    runs = [make_run(tmp_path, n, [0.5] * 8) for n in ("A", "B")]
    assert "**" not in to_markdown(compare(runs, "behavior_turns", ["p_same"]))


def test_ids_are_not_tested_and_anything_left_out_is_named(tmp_path):
    runs = [make_run(tmp_path, n, list(np.linspace(0, 1, 8))) for n in ("A", "B")]
    c = compare(runs, "behavior_turns")
    assert set(c.table["metric"]) == {"p_same", "match"}  # never dialogue or turn
    assert not c.dropped


def test_a_metric_without_a_value_is_left_out_with_its_reason(tmp_path):
    runs = [
        make_run(tmp_path, "A", [np.nan] * 8),
        make_run(tmp_path, "B", list(np.linspace(0, 1, 8))),
    ]
    c = compare(runs, "behavior_turns")
    assert list(c.table["metric"]) == ["match"]
    assert c.dropped == ["p_same: no value in A"]


def test_missing_runs_and_tables_are_clear_errors_that_create_nothing(tmp_path):
    run = make_run(tmp_path, "A", [0.1, 0.2, 0.3])
    with pytest.raises(CrsevalError, match="run directory not found"):
        compare([run, tmp_path / "nope"])
    assert not (tmp_path / "nope").exists()
    with pytest.raises(CrsevalError, match="no table"):
        compare([run, run], "shift_sessions")


def test_a_table_of_several_systems_is_compared_one_named_system_per_run(tmp_path):
    """shift_sessions holds every model of a run: comparing the pool would mix a reference's numbers
    into the user's; --systems names one per run and pairs their sessions."""
    from tests.support.cli import crseval

    runs = []
    for name in ("a", "b"):
        cfg = tmp_path / f"{name}.toml"
        cfg.write_text(
            'seed = 0\nsessions = 6\nturns = 4\n[[models]]\nname = "template"\nkind = "template"\n'
            '[[models]]\nname = "stubborn"\nkind = "reference"\nreference = "stubborn"\n'
            "[judge]\nenabled = false\n",
            encoding="utf-8",
        )
        crseval("shift", "run", cfg, "--out", tmp_path / name)
        runs.append(tmp_path / name)
    res = crseval("compare", *runs, "--table", "shift_sessions", check=False)
    assert res.returncode == 2 and "holds several systems" in res.stderr
    assert "--systems" in res.stderr
    res = crseval(
        "compare", *runs, "--table", "shift_sessions", "--systems", "template,stubborn",
        "--format", "json",
    )  # fmt: skip
    rows = json.loads(res.stdout)["result"]
    assert rows and all(r["test"].startswith("paired") for r in rows if r["test"])
    # every format carries the comparison's signature (issue #92: compare printed none)
    args = ("compare", *runs, "--table", "shift_sessions", "--systems", "template,stubborn")
    line = next(x for x in crseval(*args).stdout.splitlines() if x.startswith("crseval:"))
    assert "job:compare" in line and "table:shift_sessions" in line and "runs.a:" in line
    assert json.loads(res.stdout)["signature"] == line
    assert crseval(*args, "--format", "latex").stdout.rstrip().endswith(f"% {line}")
    assert crseval(*args, "--format", "markdown").stdout.rstrip().endswith(line)
    res = crseval("compare", *runs, "--table", "shift_sessions", "--systems", "x,y", check=False)
    assert res.returncode == 2 and "no system 'x'" in res.stderr
    # the default table is the sessions, not model_metrics_wide ("mean [lo, hi]" text: nothing to test)
    assert shared_tables([Run(r) for r in runs])[0] == "shift_sessions"
    res = crseval("compare", *runs, "--table", "model_metrics_wide", "--systems", "template,template", check=False)  # fmt: skip
    assert (
        res.returncode == 2
        and "has no metric to compare (follow.follow_rate: not numeric" in res.stderr
    )
    # one run, two of its systems: a column each (both were named after the run: one hid the other)
    res = crseval("compare", runs[0], runs[0], "--systems", "template,stubborn", "--format", "json")
    rows = {r["metric"]: r for r in json.loads(res.stdout)["result"]}
    sessions = Run(runs[0]).tables["shift_sessions"].groupby("system")["follow.wish_rate"].mean()
    wish = rows["follow.wish_rate"]
    assert wish["a (template)"] == pytest.approx(sessions["template"])
    assert wish["a (stubborn)"] == pytest.approx(sessions["stubborn"])
