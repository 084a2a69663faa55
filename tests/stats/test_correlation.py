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


@pytest.mark.parametrize("method", ["pearson", "spearman"])
def test_vectorised_bootstrap_equals_the_scipy_loop(method):
    """All resamples at once give the interval the one-resample-at-a-time loop with scipy gives — same draws,
    degenerate (constant) resamples skipped — for the CI and for the paired difference."""
    from crseval.stats.bootstrap import item_bootstrap
    from crseval.stats.correlation import correlation_difference

    rng = np.random.default_rng(4)
    x = np.array([0, 0, 0, 0, 1, 1, 2, 0, 0, 1], float)  # many ties: some resamples are constant
    y = x + rng.integers(0, 2, 10)
    b = rng.integers(0, 3, 10).astype(float)
    fn = {"pearson": stats.pearsonr, "spearman": stats.spearmanr}[method]
    lo, hi = item_bootstrap(
        lambda i: fn(x[i], y[i])[0],
        10,
        n_boot=400,
        seed=2,
        accept=lambda i: np.ptp(x[i]) > 0 and np.ptp(y[i]) > 0,
    )
    assert correlation_ci(x, y, method, n_boot=400, seed=2)[1:3] == pytest.approx(
        (lo, hi), abs=1e-12
    )
    loop, r = [], np.random.default_rng(5)
    for _ in range(400):
        i = r.integers(0, 10, 10)
        if np.ptp(x[i]) > 0 and np.ptp(b[i]) > 0 and np.ptp(y[i]) > 0:
            loop.append(fn(x[i], y[i])[0] - fn(b[i], y[i])[0])
    d, dlo, dhi, p = correlation_difference(x, b, y, method, n_boot=400, seed=5)
    assert (dlo, dhi) == pytest.approx(tuple(np.percentile(loop, [2.5, 97.5])), abs=1e-12)
    assert p == pytest.approx(
        min(1.0, 2 * min(np.mean(np.array(loop) <= 0), np.mean(np.array(loop) >= 0)))
    )
