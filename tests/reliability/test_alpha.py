"""Krippendorff alpha against the krippendorff package."""
import krippendorff
import numpy as np
import pytest

from crseval.reliability.alpha import _matrix, alpha


def test_alpha_matches_the_krippendorff_package():
    rng = np.random.default_rng(0)
    items, raters = np.repeat(np.arange(40), 4), np.tile(np.arange(6), 40)[:160]
    truth = rng.integers(1, 6, 40)
    y = np.clip(truth[items] + rng.integers(-1, 2, 160), 1, 5)
    m = np.full((6, 40), np.nan)
    for v, i, r in zip(y, items, raters):
        m[r, i] = v
    assert np.allclose(_matrix(y, items, raters), m, equal_nan=True)
    ref_ord = krippendorff.alpha(reliability_data=m, level_of_measurement="ordinal", value_domain=[1, 2, 3, 4, 5])
    ref_int = krippendorff.alpha(reliability_data=m, level_of_measurement="interval")
    est, lo, hi = alpha(y, items, raters, "ordinal", n_boot=200, seed=1)
    assert est == pytest.approx(ref_ord)
    assert lo < est < hi
    assert alpha(y, items, raters, "interval")[0] == pytest.approx(ref_int)
