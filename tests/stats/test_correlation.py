"""Correlations with bootstrap CIs against scipy."""
import numpy as np
import pytest
from scipy import stats

from crseval.stats.correlation import correlation_ci


def test_correlation_ci_against_scipy():
    rng = np.random.default_rng(1)
    x = rng.normal(size=50)
    y = x + rng.normal(size=50)
    r, lo, hi, p = correlation_ci(x, y, "spearman", n_boot=300)
    ref = stats.spearmanr(x, y)
    assert r == pytest.approx(ref[0])
    assert p == pytest.approx(ref[1])
    assert lo < r < hi
