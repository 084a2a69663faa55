"""Meta-evaluation of serendipity evaluators against scipy/numpy and on the real study."""

import numpy as np
import pytest
from scipy import stats

from crseval.serendipity.meta import meta_evaluate


def test_meta_metrics_against_scipy_and_numpy():
    rng = np.random.default_rng(0)
    truth = rng.uniform(1, 5, 300)
    good = np.clip(np.rint(truth + rng.normal(0, 0.5, 300)), 1, 5)
    rand = rng.integers(1, 6, 300).astype(float)
    t = meta_evaluate({"mine": good, "random": rand}, truth, n_boot=300).set_index("evaluator")
    assert t.loc["mine", "pearson_%"] == pytest.approx(100 * stats.pearsonr(good, truth)[0])
    assert t.loc["mine", "mae"] == pytest.approx(np.mean(np.abs(good - truth)))
    assert t.loc["mine", "rmse"] == pytest.approx(np.sqrt(np.mean((good - truth) ** 2)))
    assert (
        t.loc["mine", "pearson_%_lo"] < t.loc["mine", "pearson_%"] < t.loc["mine", "pearson_%_hi"]
    )
    assert t.loc["mine", "rank"] == "best"
    assert t.loc["random", "rank"] == "second"
    assert t.loc["mine", "vs_best_baseline"] == "random"
    e1, e2 = np.abs(good - truth), np.abs(rand - truth)
    assert t.loc["mine", "abs_error_p"] == pytest.approx(stats.wilcoxon(e1, e2).pvalue)
    assert t.loc["mine", "significant"]


def test_ranking_compares_evaluators_on_the_same_answers():
    rng = np.random.default_rng(1)
    truth = rng.uniform(1, 5, 200)
    noisy = truth + rng.normal(0, 3, 200)
    partial = np.where(
        np.arange(200) < 100, truth + rng.normal(0, 0.3, 200), np.nan
    )  # good, but on half
    t = meta_evaluate({"noisy": noisy, "partial": partial}, truth, n_boot=0).set_index("evaluator")
    assert t["n"].to_dict() == {"noisy": 200, "partial": 100} and (t["n_same"] == 100).all()
    assert t.loc["noisy", "pearson_%_same"] == pytest.approx(
        100 * stats.pearsonr(noisy[:100], truth[:100])[0]
    )
    assert t.loc["partial", "rank"] == "best" and t.loc["noisy", "rank"] == "second"


def test_gpt_rating_meta_evaluated_end_to_end(shared):
    from crseval.data import load_dataset

    s = load_dataset("serendipity2018", shared("serendipity/serendipity2018"))
    t = meta_evaluate(
        {"import:gpt-rating": s.answers["gpt-rating"].to_numpy(float)},
        s.answers["ground_truth"].to_numpy(float),
        n_boot=200,
    ).iloc[0]
    ok = s.answers[["gpt-rating", "ground_truth"]].dropna()
    assert t["n"] == len(ok)
    assert t["pearson_%"] == pytest.approx(
        100 * stats.pearsonr(ok["gpt-rating"], ok["ground_truth"])[0]
    )


def test_ensemble_grid_averages_members_and_ranks():
    from crseval.serendipity.meta import ensemble_grid

    truth = np.array([1.0, 2, 3, 4, 5, 3])
    preds = {"a": truth + 1, "b": truth - 1, "c": np.array([3.0, np.nan, 3, 3, 3, 3])}
    g = ensemble_grid(preds, truth, max_size=3)
    assert len(g) == 4
    assert g.iloc[0]["ensemble"] in ("a + b", "a + b + c")
    ab = g.set_index("ensemble").loc["a + b"]
    assert ab["mae"] == 0.0
    assert ab["pearson_%"] == pytest.approx(100)
    ac = g.set_index("ensemble").loc["a + c"]  # NaN-aware: the answer without c uses a alone
    assert ac["n"] == 6


def test_baseline_without_any_scored_answer_is_not_the_best_baseline():
    truth = np.array([1.0, 2, 3, 4])
    t = meta_evaluate(
        {"sog": np.full(4, np.nan), "random": np.array([2.0, 2, 3, 3])}, truth, n_boot=0
    )
    assert set(t["vs_best_baseline"]) == {"random"}
    assert t.set_index("evaluator").loc["sog", "n"] == 0
