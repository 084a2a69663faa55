"""The bootstraps against scipy and against a hand-rolled resampling loop."""

import numpy as np
import pytest
from scipy import stats

from crseval.stats.bootstrap import bootstrap_ci, item_bootstrap


def test_one_sample_ci_matches_scipy_bca():
    x = np.random.default_rng(0).normal(3, 1, 40)
    est, lo, hi = bootstrap_ci(x, seed=5)
    ref = stats.bootstrap(
        (x,),
        np.mean,
        n_resamples=2000,
        method="BCa",
        vectorized=False,
        random_state=np.random.default_rng(5),
    ).confidence_interval
    assert est == pytest.approx(x.mean())
    assert (lo, hi) == pytest.approx((ref.low, ref.high))


def test_degenerate_samples_have_no_interval():
    assert np.isnan(bootstrap_ci([1.0, 1.0, 1.0])[1])
    assert np.isnan(bootstrap_ci([1.0, 2.0])[1])


def test_item_bootstrap_equals_the_loop_it_replaces():
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=30), rng.normal(size=30)
    loop, r = [], np.random.default_rng(9)
    for _ in range(200):
        i = r.integers(0, 30, 30)
        loop.append(np.mean(np.abs(x[i] - y[i])))
    got = item_bootstrap(lambda i: np.mean(np.abs(x[i] - y[i])), 30, n_boot=200, seed=9)
    assert got == pytest.approx(tuple(np.percentile(loop, [2.5, 97.5])))


def test_item_bootstrap_skips_rejected_resamples_and_continues_a_shared_stream():
    rng = np.random.default_rng(1)
    calls = []
    lo, hi = item_bootstrap(
        lambda i: float(i.sum()), 5, n_boot=50, rng=rng, accept=lambda i: calls.append(1) or True
    )
    assert len(calls) == 50
    assert lo <= hi
    nan = item_bootstrap(lambda i: 1.0, 5, n_boot=10, accept=lambda i: False)
    assert np.isnan(nan[0])


def test_vectorised_reductions_give_the_same_interval_as_a_python_statistic():
    x = np.random.default_rng(2).normal(size=60)
    fast = bootstrap_ci(x, np.mean, seed=4)
    slow = bootstrap_ci(x, lambda v: float(np.mean(v)), seed=4)
    assert fast == pytest.approx(slow, rel=1e-12)


def test_stratified_item_bootstrap_resamples_within_each_stratum():
    strata = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2])
    seen = []
    item_bootstrap(lambda i: seen.append(i) or 0.0, len(strata), n_boot=30, seed=4, strata=strata)
    for idx in seen:  # every resample keeps each stratum's size and draws only from it
        assert [np.sum(strata[idx] == g) for g in (0, 1, 2)] == [3, 2, 4]
        assert list(strata[idx]) == sorted(strata[idx])
    assert any(len(set(idx)) < len(idx) for idx in seen)  # with replacement
