import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import roc_auc_score

from crseval.stats.paired import known_groups_auc, paired_difference, pooled, verdict


def test_pooled_is_the_ratio_of_sums_and_its_interval_covers_it():
    total, weight = np.array([3.0, 1, 4, 0, 5]), np.array([4.0, 2, 5, 1, 5])
    est = pooled(total, weight, n_boot=500)
    assert est.value == pytest.approx(13 / 17)
    assert est.lo < est.value < est.hi and est.n == 5


def test_pooled_of_plain_values_is_their_mean_and_skips_missing_units():
    est = pooled([1.0, np.nan, 0.0, 1.0], n_boot=200)
    assert est.value == pytest.approx(2 / 3) and est.n == 3


def test_paired_difference_is_the_mean_difference_with_scipys_paired_permutation_p():
    rng = np.random.default_rng(1)
    a = rng.normal(0.6, 0.2, 40)
    b = a - 0.1 + rng.normal(0, 0.05, 40)
    d = paired_difference(a, b, n_boot=500)
    assert d.diff == pytest.approx(np.mean(a - b))
    assert d.lo < d.diff < d.hi and d.lo > 0 and d.p < 0.01


def _scipy_p(a, b, n):
    return stats.permutation_test(
        (a, b),
        lambda x, y: np.mean(x) - np.mean(y),
        permutation_type="samples",
        n_resamples=n,
        vectorized=False,
        rng=np.random.default_rng(
            0
        ),  # unseeded, its Monte Carlo p strayed .018 from ours once in ~200 runs
    ).pvalue


def test_the_permutation_p_is_scipys_exactly_where_every_assignment_is_enumerated():
    rng = np.random.default_rng(3)
    for shift in (0.0, 0.3, 1.0):
        a = rng.normal(shift, 1, 8)
        b = rng.normal(0, 1, 8)
        assert paired_difference(a, b, n_boot=512).p == pytest.approx(_scipy_p(a, b, 512))


def test_the_permutation_p_agrees_with_scipys_monte_carlo_one_and_weights_pool_ratios():
    rng = np.random.default_rng(4)
    a, b = rng.normal(0.2, 1, 30), rng.normal(0, 1, 30)
    assert paired_difference(a, b, n_boot=20000).p == pytest.approx(
        _scipy_p(a, b, 20000), abs=0.015
    )
    # units with weights: the pooled difference, and a swap moves a whole unit (value and weight)
    at, aw, bt, bw = (
        np.array([3.0, 2, 5]),
        np.array([4.0, 2, 5]),
        np.array([1.0, 0, 2]),
        np.array([4.0, 2, 5]),
    )
    d = paired_difference(at, bt, aw, bw, n_boot=8)
    assert d.diff == pytest.approx(10 / 11 - 3 / 11)
    assert d.p == pytest.approx(
        2 / 8
    )  # only "nothing swapped" and "everything swapped" are as extreme


def test_known_groups_auc_is_sklearns_roc_auc_oriented_by_direction():
    rng = np.random.default_rng(2)
    good, bad = rng.normal(1, 1, 30).round(1), rng.normal(0, 1, 25).round(1)  # with ties
    y = np.r_[np.ones(30), np.zeros(25)]
    auc = known_groups_auc(good, bad, n_boot=300)
    assert auc.value == pytest.approx(roc_auc_score(y, np.r_[good, bad]))
    assert auc.lo < auc.value < auc.hi
    lower = known_groups_auc(good, bad, higher_is_better=False, n_boot=300)
    assert lower.value == pytest.approx(1 - auc.value)
    assert verdict(auc) == "held" and verdict(lower) == "reversed"
    assert verdict(known_groups_auc([0, 1, 0, 1], [1, 0, 1, 0], n_boot=200)) == "not separated"


def test_the_auc_interval_is_the_same_by_multiplicities_and_by_ranks():
    """The all-at-once bootstrap (multiplicities over the comparison matrix) and the one-resample-at-a-time
    one (ranks, for very large groups) estimate the same interval."""
    from crseval.stats.paired import _auc_by_ranks

    rng = np.random.default_rng(5)
    good, bad = rng.normal(0.5, 1, 60).round(1), rng.normal(0, 1, 50).round(1)
    fast = known_groups_auc(good, bad, n_boot=4000)
    slow = _auc_by_ranks(good, bad, 4000, 0)
    assert fast.value == pytest.approx(slow.value)
    assert fast.lo == pytest.approx(slow.lo, abs=0.02) and fast.hi == pytest.approx(
        slow.hi, abs=0.02
    )


def test_detectable_difference_is_what_statsmodels_solves_for_a_one_sample_z_test():
    from statsmodels.stats.power import NormalIndPower

    from crseval.stats.paired import detectable_difference

    n, sd = 20, 0.3
    se = sd / n**0.5
    lo, hi = -1.959964 * se, 1.959964 * se  # a 95 % CI around 0 with that standard error
    effect = NormalIndPower().solve_power(nobs1=n, alpha=0.05, power=0.8, ratio=0)
    assert detectable_difference(lo, hi, n) == pytest.approx(effect * sd, rel=1e-4)
    assert detectable_difference(lo, hi, n) == pytest.approx(2.8016 * se, rel=1e-3)
    # 5 pairs: the exact permutation test's smallest p is 2/32 > .05, so nothing is detectable
    assert detectable_difference(lo, hi, 5) == float("inf")
    assert detectable_difference(lo, hi, 6) < float("inf")
