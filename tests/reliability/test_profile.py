"""Profile-likelihood intervals for Rel_single and Rel_k: against a brute-force profile, and their coverage
on simulated crossed designs with known variance components."""

import numpy as np
import pytest
from scipy.optimize import brentq, minimize_scalar

from crseval.reliability.profile import reliability, reliability_interval
from crseval.reliability.reml import fit_reml
from crseval.stats.design import harmonic_k


def _design(rng, n_items=60, n_raters=25, per_item=4, var=(0.4, 0.15, 0.6)):
    items = np.repeat(np.arange(n_items), per_item)
    raters = np.concatenate([rng.choice(n_raters, per_item, replace=False) for _ in range(n_items)])
    y = (
        3
        + rng.normal(0, np.sqrt(var[0]), n_items)[items]
        + rng.normal(0, np.sqrt(var[1]), n_raters)[raters]
        + rng.normal(0, np.sqrt(var[2]), len(items))
    )
    return y, items, raters


def _brute_force(fit, k, kind):
    """The same interval by bounded 1-D minimisation and Brent root finding (slow, simple)."""
    prob, th = fit.problem, fit.theta
    dmin, q = prob.deviance(th), 1.959963984540054**2
    g_hat = reliability(th, k, kind)

    def excess(g):
        def d(lr):
            a = g * (lr * lr + 1) / ((1 - g) * (1 if kind == "single" else k))
            return prob.deviance(np.array([np.sqrt(a), lr]))

        return (
            minimize_scalar(
                d, bounds=(0, 3 * th[1] + 2), method="bounded", options={"xatol": 1e-6}
            ).fun
            - dmin
            - q
        )

    lo = 0.0 if excess(0.0) <= 0 else brentq(excess, 0.0, g_hat, xtol=1e-7)
    return lo, brentq(excess, g_hat, 0.999, xtol=1e-7)


@pytest.mark.parametrize("kind", ["single", "k"])
def test_matches_a_brute_force_profile(kind):
    y, items, raters = _design(np.random.default_rng(7))
    fit = fit_reml(y, {"item": items, "rater": raters})
    k = harmonic_k(items)
    lo, hi = reliability_interval(fit, k, kind)
    ref = _brute_force(fit, k, kind)
    assert lo == pytest.approx(ref[0], abs=2e-3)
    assert hi == pytest.approx(ref[1], abs=2e-3)
    assert lo < reliability(fit.theta, k, kind) < hi


def test_intervals_cover_the_true_reliability():
    rng = np.random.default_rng(0)
    var = (0.4, 0.15, 0.6)
    true_k = var[0] / (var[0] + (var[1] + var[2]) / 4)
    hits = []
    for _ in range(80):
        y, items, raters = _design(rng, var=var)
        fit = fit_reml(y, {"item": items, "rater": raters})
        lo, hi = reliability_interval(fit, harmonic_k(items), "k")
        hits.append(lo <= true_k <= hi)
    assert 0.88 <= np.mean(hits) <= 1.0  # nominal 0.95; 80 simulations: SE ≈ 0.024


def test_a_boundary_estimate_gives_a_lower_end_of_zero():
    rng = np.random.default_rng(3)
    y, items, raters = _design(rng, var=(0.0, 0.2, 1.0))
    fit = fit_reml(y, {"item": items, "rater": raters})
    lo, hi = reliability_interval(fit, harmonic_k(items), "k")
    assert lo == 0.0
    assert 0 < hi < 1
