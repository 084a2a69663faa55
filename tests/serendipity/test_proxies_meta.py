import numpy as np
import pandas as pd
import pytest
from scipy import stats

from crseval.core.types import Item
from crseval.data.io import DatasetInfo
from crseval.data.base import SerendipityStudy
from crseval.serendipity.meta import meta_evaluate
from crseval.serendipity.proxies import desr, features, purs, snpr, sog, to_likert


def test_likert_mapping_edge_cases():
    assert list(to_likert([0.0, 0.5, 1.0])) == [1.0, 3.0, 5.0]
    assert list(to_likert([2.0, 2.0])) == [3.0, 3.0]  # constant scores map to the midpoint
    out = to_likert([np.nan, 1.0, 3.0])
    assert np.isnan(out[0]) and list(out[1:]) == [1.0, 5.0]
    assert np.isnan(to_likert([np.nan, np.nan])).all()
    assert list(to_likert([0, 0.124, 0.126, 1])) == [1.0, 1.0, 2.0, 5.0]  # round((x−min)/(max−min)·4 + 1)


def test_proxy_formulas_by_hand():
    f = pd.DataFrame({"relevance": [0.8, 0.2], "diversity": [0.4, 0.6], "unexpectedness": [0.5, 0.0],
                      "unpopularity": [0.2, 1.0], "purs_distance": [1.0, 0.0]})
    assert sog(f) == pytest.approx([(0.8 + 0.4 + 0.5 + 0.2) / 4, (0.2 + 0.6 + 0.0 + 1.0) / 4])
    assert snpr(f, lam=0.3) == pytest.approx([0.3 * 0.8 + 0.7 * 0.5, 0.3 * 0.2])
    assert purs(f) == pytest.approx([0.8 + 1.0 * np.exp(-1.0), 0.2])
    assert desr(f) == pytest.approx([0.8 * 0.5 / 1.3, 0.0])


def study():
    items = {"a": Item("a", "A", {"genres": ["Comedy"]}), "b": Item("b", "B", {"genres": ["Comedy"]}),
             "c": Item("c", "C", {"genres": ["Horror"]})}
    answers = pd.DataFrame({"user": ["u1"] * 3 + ["u2"] * 2, "item": ["a", "b", "c", "a", "x"],
                            "rating": [5.0, 4.0, 2.0, 4.0, 5.0], "predicted_rating": [5.0, 0.5, 2.75, 4.0, 3.0],
                            "ground_truth": [1.0, 2.0, 5.0, 1.0, 3.0]})
    return SerendipityStudy(DatasetInfo("toy", "-", "0"), answers, items, "toy")


def test_features_by_hand():
    f = features(study()).table
    # u1/c (horror): history = liked others {a, b} (both comedy) → cosine distance 1 to each
    assert f.loc[2, "unexpectedness"] == pytest.approx(1.0) and f.loc[2, "diversity"] == pytest.approx(1.0)
    # u1/a: liked others = {b} (comedy) → distance 0; the unliked c (rating 2) is not history but is in the list
    assert f.loc[0, "unexpectedness"] == pytest.approx(0.0) and f.loc[0, "diversity"] == pytest.approx(0.5)
    assert f.loc[0, "relevance"] == pytest.approx(1.0) and f.loc[1, "relevance"] == pytest.approx(0.0)
    # item 'a' is answered twice, the others once: unpopularity = 1 − log(1+n)/log(1+2)
    assert f.loc[0, "unpopularity"] == pytest.approx(0.0) and f.loc[2, "unpopularity"] == pytest.approx(
        1 - np.log(2) / np.log(3))
    assert np.isnan(f.loc[4, "unexpectedness"])  # 'x' has no metadata: NaN, counted — not dropped
    assert features(study()).missing_items == 1
    assert f.loc[2, "purs_distance"] == pytest.approx(np.sqrt(2))  # nearest cluster = the comedy item


def test_meta_metrics_against_scipy_and_numpy():
    rng = np.random.default_rng(0)
    truth = rng.uniform(1, 5, 300)
    good = np.clip(np.rint(truth + rng.normal(0, 0.5, 300)), 1, 5)
    rand = rng.integers(1, 6, 300).astype(float)
    t = meta_evaluate({"mine": good, "random": rand}, truth, n_boot=300).set_index("evaluator")
    assert t.loc["mine", "pearson_%"] == pytest.approx(100 * stats.pearsonr(good, truth)[0])
    assert t.loc["mine", "mae"] == pytest.approx(np.mean(np.abs(good - truth)))
    assert t.loc["mine", "rmse"] == pytest.approx(np.sqrt(np.mean((good - truth) ** 2)))
    assert t.loc["mine", "pearson_%_lo"] < t.loc["mine", "pearson_%"] < t.loc["mine", "pearson_%_hi"]
    assert t.loc["mine", "rank"] == "best" and t.loc["random", "rank"] == "second"
    assert t.loc["mine", "vs_best_baseline"] == "random"
    e1, e2 = np.abs(good - truth), np.abs(rand - truth)
    assert t.loc["mine", "p_abs_error"] == pytest.approx(stats.wilcoxon(e1, e2).pvalue) and t.loc["mine", "significant"]


def test_gpt_rating_meta_evaluated_end_to_end(shared):
    from crseval.data import load_dataset
    s = load_dataset("serendipity2018", shared("serendipity/serendipity2018"))
    t = meta_evaluate({"import:gpt-rating": s.answers["gpt-rating"].to_numpy(float)},
                      s.answers["ground_truth"].to_numpy(float), n_boot=200).iloc[0]
    ok = s.answers[["gpt-rating", "ground_truth"]].dropna()
    assert t["n"] == len(ok) and t["pearson_%"] == pytest.approx(100 * stats.pearsonr(ok["gpt-rating"],
                                                                                       ok["ground_truth"])[0])


def test_ensemble_grid_averages_members_and_ranks():
    from crseval.serendipity.meta import ensemble_grid
    truth = np.array([1.0, 2, 3, 4, 5, 3])
    preds = {"a": truth + 1, "b": truth - 1, "c": np.array([3.0, np.nan, 3, 3, 3, 3])}
    g = ensemble_grid(preds, truth, max_size=3)
    assert len(g) == 4 and g.iloc[0]["ensemble"] in ("a + b", "a + b + c")
    ab = g.set_index("ensemble").loc["a + b"]
    assert ab["mae"] == 0.0 and ab["pearson_%"] == pytest.approx(100)
    ac = g.set_index("ensemble").loc["a + c"]  # NaN-aware: the answer without c uses a alone
    assert ac["n"] == 6


def test_baseline_without_any_scored_answer_is_not_the_best_baseline():
    truth = np.array([1.0, 2, 3, 4])
    t = meta_evaluate({"sog": np.full(4, np.nan), "random": np.array([2.0, 2, 3, 3])}, truth, n_boot=0)
    assert set(t["vs_best_baseline"]) == {"random"} and t.set_index("evaluator").loc["sog", "n"] == 0
