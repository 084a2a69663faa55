"""Partial correlation against the textbook formula; the paired bootstrap difference of correlations."""

import numpy as np
import pytest
from scipy import stats

from crseval.stats.correlation import (
    correlation_ci,
    correlation_difference,
    partial_correlation_ci,
    partial_r,
)


def test_partial_r_is_the_textbook_formula():
    rng = np.random.default_rng(1)
    z = rng.normal(size=200)
    x = z + rng.normal(size=200)
    y = 0.5 * z + 0.3 * x + rng.normal(size=200)
    rxy, rxz, ryz = np.corrcoef(x, y)[0, 1], np.corrcoef(x, z)[0, 1], np.corrcoef(y, z)[0, 1]
    expected = (rxy - rxz * ryz) / np.sqrt((1 - rxz**2) * (1 - ryz**2))
    assert partial_r(x, y, z) == pytest.approx(expected)
    r, lo, hi = partial_correlation_ci(x, y, z, n_boot=300)
    assert lo < r < hi


def test_a_judge_that_only_measures_length_has_no_partial_correlation():
    rng = np.random.default_rng(2)
    length = rng.normal(size=300)
    human = length + rng.normal(size=300)
    judge = 2 * length + 0.01 * rng.normal(size=300)
    assert correlation_ci(judge, human, "pearson", n_boot=0)[0] > 0.6
    assert abs(partial_correlation_ci(judge, human, length, n_boot=0)[0]) < 0.15


def test_kendall_is_scipy():
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=50), rng.normal(size=50)
    assert correlation_ci(x, y, "kendall", n_boot=0)[0] == pytest.approx(stats.kendalltau(x, y)[0])


def test_paired_difference():
    rng = np.random.default_rng(4)
    h = rng.normal(size=150)
    good, bad = h + 0.3 * rng.normal(size=150), h + 3 * rng.normal(size=150)
    d, lo, hi, p = correlation_difference(good, bad, h, n_boot=500)
    assert d == pytest.approx(stats.pearsonr(good, h)[0] - stats.pearsonr(bad, h)[0])
    assert 0 < lo < d < hi and p < 0.01
    same = correlation_difference(good, good, h, n_boot=200)
    assert same[0] == 0 and same[3] == 1
