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
    ref_ord = krippendorff.alpha(
        reliability_data=m, level_of_measurement="ordinal", value_domain=[1, 2, 3, 4, 5]
    )
    ref_int = krippendorff.alpha(reliability_data=m, level_of_measurement="interval")
    est, lo, hi = alpha(y, items, raters, "ordinal", n_boot=200, seed=1)
    assert est == pytest.approx(ref_ord)
    assert lo < est < hi
    assert alpha(y, items, raters, "interval")[0] == pytest.approx(ref_int)


def test_vectorised_bootstrap_equals_the_package_on_each_resample():
    from crseval.reliability.alpha import _matrix, alphas_of_resamples

    rng = np.random.default_rng(4)
    items = np.repeat(np.arange(30), 4)
    raters = np.tile(np.arange(4), 30)
    values = np.clip(np.round(rng.normal(3, 1, 30)[items] + rng.normal(0, 0.8, len(items))), 1, 5)
    m = _matrix(values, items, raters)
    domain = np.unique(m[np.isfinite(m)])
    draws = [rng.integers(0, 30, 30) for _ in range(5)]
    weights = np.stack([np.bincount(d, minlength=30) for d in draws]).astype(float)
    for level, kw in (("ordinal", {"value_domain": domain}), ("interval", {})):
        fast = alphas_of_resamples(m, weights, level)
        ref = [
            krippendorff.alpha(reliability_data=m[:, d], level_of_measurement=level, **kw)
            for d in draws
        ]
        assert fast == pytest.approx(ref, rel=1e-12)
