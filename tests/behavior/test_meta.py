"""Behavior metric meta-evaluation: preference kappa and mixtures."""
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from crseval.behavior.meta import metric_preferences, mix, preference_kappa


def test_kappa_and_bootstrap_against_sklearn():
    rng = np.random.default_rng(0)
    human = rng.choice(["A", "B", "same"], 200)
    metric = np.where(rng.random(200) < 0.7, human, rng.choice(["A", "B", "same"], 200))
    k, lo, hi = preference_kappa(metric, human, n_boot=300)
    assert k == pytest.approx(cohen_kappa_score(human, metric, labels=["A", "B", "same"]))
    assert lo < k < hi
    assert list(metric_preferences([1, 0, 0.5], [0, 1, 0.5])) == ["A", "B", "same"]


def test_mixture_replaces_the_requested_share():
    ideal = pd.DataFrame({"dialogue": ["d"] * 1000, "turn": range(1000), "response": ["good"] * 1000})
    worst = ideal.assign(response="bad")
    m = mix(ideal, worst, 0.3, seed=1)
    assert (m["response"] == "bad").mean() == pytest.approx(0.3, abs=0.04)
