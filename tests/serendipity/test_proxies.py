"""Serendipity proxies: Likert mapping, formulas and features by hand."""

import numpy as np
import pandas as pd
import pytest

from crseval.core.types import Item
from crseval.data.base import SerendipityStudy
from crseval.data.io import DatasetInfo
from crseval.serendipity.proxies import (
    desr,
    features,
    purs,
    score,
    signatures,
    snpr,
    sog,
    to_likert,
)


def study():
    items = {
        "a": Item("a", "A", {"genres": ["Comedy"]}),
        "b": Item("b", "B", {"genres": ["Comedy"]}),
        "c": Item("c", "C", {"genres": ["Horror"]}),
    }
    answers = pd.DataFrame(
        {
            "user": ["u1"] * 3 + ["u2"] * 2,
            "item": ["a", "b", "c", "a", "x"],
            "rating": [5.0, 4.0, 2.0, 4.0, 5.0],
            "predicted_rating": [5.0, 0.5, 2.75, 4.0, 3.0],
            "timestamp": [1, 3, 2, 1, 2],
            "ground_truth": [1.0, 2.0, 5.0, 1.0, 3.0],
        }
    )
    return SerendipityStudy(DatasetInfo("toy", "-", "0"), answers, items, "toy")


def test_likert_mapping_edge_cases():
    assert list(to_likert([0.0, 0.5, 1.0])) == [1.0, 3.0, 5.0]
    assert list(to_likert([2.0, 2.0])) == [3.0, 3.0]  # constant scores map to the midpoint
    out = to_likert([np.nan, 1.0, 3.0])
    assert np.isnan(out[0])
    assert list(out[1:]) == [1.0, 5.0]
    assert np.isnan(to_likert([np.nan, np.nan])).all()
    assert list(to_likert([0, 0.124, 0.126, 1])) == [
        1.0,
        1.0,
        2.0,
        5.0,
    ]  # round((x−min)/(max−min)·4 + 1)


def test_proxy_formulas_by_hand():
    f = pd.DataFrame(
        {
            "relevance": [0.8, 0.2],
            "diversity": [0.4, 0.6],
            "unexpectedness": [0.5, 0.0],
            "unpopularity": [0.2, 1.0],
            "purs_distance": [1.0, 0.0],
        }
    )
    assert sog(f, (0.25,) * 4) == pytest.approx(
        [(0.8 + 0.4 + 0.5 + 0.2) / 4, (0.2 + 0.6 + 0.0 + 1.0) / 4]
    )
    assert snpr(f, lam=0.3) == pytest.approx([0.3 * 0.8 + 0.7 * 0.5, 0.3 * 0.2])
    assert purs(f, factor=1.0) == pytest.approx([0.8 + 1.0 * np.exp(-1.0), 0.2])
    assert desr(f) == pytest.approx([0.8 * 0.5 / 1.3, 0.0])
    # what runs is what the metrics declare: SNPR's λ is the SerenEva paper's 70 % relevance weight
    assert score("snpr", f) == pytest.approx(snpr(f, lam=0.7))
    assert score("sog", f) == pytest.approx(sog(f, (0.25,) * 4))


def test_a_declared_parameter_reaches_the_scores_and_the_signature(monkeypatch):
    import dataclasses

    from crseval.core import registry

    f = pd.DataFrame({"relevance": [0.8, 0.2], "unexpectedness": [0.5, 0.0]})
    assert signatures(["snpr", "random", "llm"]) == {"snpr": "snpr(lam=0.7)"}
    declared = registry.get_metric("snpr", "serendipity")
    changed = dataclasses.replace(declared, params={"lam": 0.3})
    monkeypatch.setitem(registry.METRICS, declared.qualified, changed)
    assert signatures(["snpr"]) == {"snpr": "snpr(lam=0.3)"}
    assert score("snpr", f) == pytest.approx(snpr(f, lam=0.3))


def test_features_by_hand():
    f = features(study()).table
    # u1 rated a (t1), c (t2), b (t3). u1/c (horror): its past = {a} (comedy, liked) → cosine distance 1; the
    # later b is not its past
    assert f.loc[2, "unexpectedness"] == pytest.approx(1.0)
    assert f.loc[2, "diversity"] == pytest.approx(1.0)
    # u1/b: past {a, c}, liked {a} (comedy) → distance 0; the unliked c is not history but counts for diversity
    assert f.loc[1, "unexpectedness"] == pytest.approx(0.0)
    assert f.loc[1, "diversity"] == pytest.approx(0.5)
    # u1/a is the user's first rating: no past, so no history terms (NaN, counted)
    assert np.isnan(f.loc[0, "unexpectedness"]) and np.isnan(f.loc[0, "diversity"])
    assert f.loc[0, "relevance"] == pytest.approx(1.0)
    assert f.loc[1, "relevance"] == pytest.approx(0.0)
    # item 'a' is rated by both users, the others by one: unpopularity = 1 − log(1+n)/log(1+2)
    assert f.loc[0, "unpopularity"] == pytest.approx(0.0)
    assert f.loc[2, "unpopularity"] == pytest.approx(1 - np.log(2) / np.log(3))
    assert np.isnan(f.loc[4, "unexpectedness"])  # 'x' has no metadata: NaN, counted — not dropped
    assert features(study()).missing_items == 1
    assert f.loc[2, "purs_distance"] == pytest.approx(
        np.sqrt(2)
    )  # nearest cluster = the comedy item


def test_the_sereneva_protocol_by_hand():
    """The paper's Table 2 definitions: the last 10 items rated before the target whatever their rating,
    the nearest one's distance, every answer scored (no earlier item: history terms 0)."""
    f = features(study(), protocol="sereneva").table
    # u1/b: its past {a (comedy, liked), c (horror, rated 2)}: both count; the nearest is a → 0
    assert f.loc[1, "unexpectedness"] == pytest.approx(0.0)
    assert f.loc[1, "diversity"] == pytest.approx(0.5)
    # u1/a: no earlier item → 0, scored; 'x' has no metadata → 0, scored
    assert f.loc[0, "unexpectedness"] == 0 and f.loc[0, "diversity"] == 0
    assert f.loc[4, "unexpectedness"] == 0
    assert f[["unexpectedness", "diversity", "purs_distance"]].notna().all().all()


def test_the_papers_random_baseline_draws_integers_and_has_a_known_expectation():
    from crseval.serendipity.proxies import earlier_items, random_expectation, random_likert

    draws = random_likert(50_000, seed=1)
    assert set(np.unique(draws)) == {1.0, 2.0, 3.0, 4.0, 5.0}
    assert np.bincount(draws.astype(int))[1:].min() > 9_500  # uniform, the ends included
    truth = np.array([1.0, 2.5, 5.0, np.nan])
    mae, rmse = random_expectation(truth)
    # by hand: mean over truth values of the mean |k − t| for k = 1..5: (2 + 1.3 + 2) / 3
    assert mae == pytest.approx((2.0 + 1.3 + 2.0) / 3)
    assert rmse == pytest.approx(np.sqrt((6.0 + 2.25 + 6.0) / 3))
    t = np.tile(truth[:3], 20_000)
    draws = random_likert(len(t), seed=2)
    assert np.abs(draws - t).mean() == pytest.approx(mae, abs=0.01)
    assert list(earlier_items(study().answers)) == [0, 2, 1, 0, 1]
