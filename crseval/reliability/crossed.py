"""Crossed random-effects reliability: y = μ + u_item + v_rater + ε, item and rater *crossed*.

    Rel_single = σ²_item / (σ²_item + σ²_rater + σ²_resid)
    Rel_k      = σ²_item / (σ²_item + (σ²_rater + σ²_resid) / k)

with k the harmonic mean number of raters per item. Variance components by profiled REML
(:mod:`crseval.reliability.reml`). Confidence intervals, ``ci=``:

* ``"profile"`` (default): profile-likelihood intervals for Rel_single and Rel_k
  (:mod:`crseval.reliability.profile`; ~40 ms per dimension);
* ``"bootstrap"``: parametric bootstrap — data are simulated from the fitted model on the *same* design
  (which items each rater rated) and refitted, ``n_boot`` times; intervals for the variance components
  too (a refit per resample: seconds per dimension).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from crseval.stats.bootstrap import percentile_interval
from crseval.stats.design import harmonic_k
from crseval.reliability.profile import reliability_interval
from crseval.reliability.reml import fit_reml


@dataclass
class Crossed:
    var_item: float
    var_rater: float
    var_resid: float
    k: float
    mean: float
    ci: dict[str, tuple[float, float]] = field(default_factory=dict)

    @property
    def rel_single(self) -> float:
        total = self.var_item + self.var_rater + self.var_resid
        return self.var_item / total if total > 0 else float("nan")

    @property
    def rel_k(self) -> float:
        denom = self.var_item + (self.var_rater + self.var_resid) / self.k
        return self.var_item / denom if denom > 0 else float("nan")


def _components(values, items, raters) -> tuple[float, float, float, float]:
    fit = fit_reml(values, {"item": items, "rater": raters})
    v = fit.variances
    return v["item"], v["rater"], v["residual"], fit.mean


def crossed_reliability(
    values,
    items,
    raters,
    *,
    ci: str = "none",
    n_boot: int = 200,
    confidence: float = 0.95,
    seed: int = 0,
) -> Crossed:
    """Fit the crossed model; ``ci="profile"`` adds profile-likelihood intervals for Rel_single and Rel_k,
    ``ci="bootstrap"`` parametric-bootstrap percentile intervals (``n_boot`` refits) for those and the
    variance components."""
    y = np.asarray(values, float)
    items, raters = np.asarray(items), np.asarray(raters)
    fit = fit_reml(y, {"item": items, "rater": raters})
    v = fit.variances
    vi, vr, ve, mu = v["item"], v["rater"], v["residual"], fit.mean
    out = Crossed(vi, vr, ve, harmonic_k(items), mu)
    if ci == "profile":
        out.ci["rel_single"] = reliability_interval(fit, out.k, "single", confidence)
        out.ci["rel_k"] = reliability_interval(fit, out.k, "k", confidence)
    elif ci == "bootstrap" and n_boot > 0:
        rng = np.random.default_rng(seed)
        _, icode = np.unique(items, return_inverse=True)
        _, rcode = np.unique(raters, return_inverse=True)
        draws = []
        for _ in range(n_boot):
            sim = (
                mu
                + rng.normal(0, np.sqrt(vi), icode.max() + 1)[icode]
                + rng.normal(0, np.sqrt(vr), rcode.max() + 1)[rcode]
                + rng.normal(0, np.sqrt(ve), len(y))
            )
            b = Crossed(*_components(sim, icode, rcode)[:3], out.k, mu)
            draws.append((b.var_item, b.var_rater, b.var_resid, b.rel_single, b.rel_k))
        arr = np.array(draws)
        for j, name in enumerate(("var_item", "var_rater", "var_resid", "rel_single", "rel_k")):
            out.ci[name] = percentile_interval(arr[:, j], confidence)
    return out
