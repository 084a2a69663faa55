"""ICC(1) and ICC(1,k) from the one-way random-effects model y = μ + u_item + ε.

Two estimators, cross-checked: the ANOVA (method-of-moments) estimator for unbalanced designs
(Searle: σ²_u = (MSB − MSW) / n₀ with n₀ = (N − Σnᵢ²/N) / (a − 1)) and REML
(:func:`crseval.reliability.reml.fit_reml`, bounded at 0). ICC(1,k) uses k = the harmonic mean
number of ratings per item, the usual choice for unbalanced data.

Koo & Li (2016) bands: < 0.5 poor, 0.5–0.75 moderate, 0.75–0.9 good, > 0.9 excellent.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from crseval.reliability.reml import fit_reml
from crseval.stats.design import harmonic_k


def interpret(value: float) -> str:
    """Koo & Li (2016) interpretation band of a reliability coefficient."""
    if value is None or not np.isfinite(value):
        return "n/a"
    if value < 0.5:
        return "poor"
    if value < 0.75:
        return "moderate"
    if value < 0.9:
        return "good"
    return "excellent"


@dataclass
class OneWay:
    var_item: float
    var_resid: float
    k: float

    @property
    def icc1(self) -> float:
        total = self.var_item + self.var_resid
        return self.var_item / total if total > 0 else float("nan")

    @property
    def icc1k(self) -> float:
        denom = self.var_item + self.var_resid / self.k
        return self.var_item / denom if denom > 0 else float("nan")


def oneway_anova(values, items) -> OneWay:
    """Method-of-moments variance components (can be negative: reported, not clipped)."""
    y = np.asarray(values, float)
    _, g = np.unique(np.asarray(items), return_inverse=True)
    n_i = np.bincount(g).astype(float)
    means = np.bincount(g, weights=y) / n_i
    a, n = len(n_i), len(y)
    if a < 2 or n <= a:
        raise ValueError("need at least two items and more ratings than items")
    ssb = float(np.sum(n_i * (means - y.mean()) ** 2))
    ssw = float(np.sum((y - means[g]) ** 2))
    msb, msw = ssb / (a - 1), ssw / (n - a)
    n0 = (n - np.sum(n_i**2) / n) / (a - 1)
    return OneWay((msb - msw) / n0, msw, float(a / np.sum(1.0 / n_i)))


def oneway_reml(values, items) -> OneWay:
    fit = fit_reml(values, {"item": np.asarray(items)})
    return OneWay(fit.variances["item"], fit.residual, harmonic_k(items))
