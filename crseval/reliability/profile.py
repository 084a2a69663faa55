"""Profile-likelihood confidence intervals for the crossed model's reliabilities.

Rel_single = λ_i² / (λ_i² + λ_r² + 1) and Rel_k = λ_i² / (λ_i² + (λ_r² + 1)/k) depend only on the
relative standard deviations λ = (σ_item, σ_rater) / σ_e — σ² cancels — so their profile deviance is

    p(g) = min { d(λ) : Rel(λ) = g },

with d the REML deviance already profiled over the mean and σ² (:mod:`crseval.reliability.reml`). For a
given g and λ_rater, λ_item follows in closed form, so p is a one-dimensional minimisation over λ_rater.
The interval is {g : p(g) − d(λ̂) ≤ χ²₁(confidence)}: its ends are where the signed root
z(g) = sign(g − ĝ)·√(p(g) − d(λ̂)) reaches ±z_{1−α/2}. z is close to linear in logit(g), so a few secant
steps in that scale find each end (a lower end of 0 when even g = 0 stays inside). This is the interval
lme4's ``confint(method = "profile")`` gives for a function of the variance parameters; it is
asymmetric where the likelihood is, and costs tens of deviance evaluations instead of a refit per
bootstrap sample.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from scipy.special import ndtri

from crseval.reliability.reml import RemlFit

Kind = Literal["single", "k"]


def reliability(theta, k: float, kind: Kind) -> float:
    a, b = theta[0] ** 2, theta[1] ** 2
    return a / (a + b + 1) if kind == "single" else a / (a + (b + 1) / k)


def _lambda_item(g: float, lam_r: float, k: float, kind: Kind) -> float:
    b = lam_r * lam_r
    return float(np.sqrt(g * (b + 1) / ((1 - g) * (1 if kind == "single" else k))))


class _Profile:
    def __init__(self, fit: RemlFit, k: float, kind: Kind) -> None:
        self.prob, self.k, self.kind = fit.problem, k, kind
        self.dmin = self.prob.deviance(fit.theta)
        self.lam_r = float(fit.theta[1])  # warm start: the ridge moves smoothly with g
        self.evals = 0

    def _d(self, g: float, lam_r: float) -> float:
        self.evals += 1
        lam_r = max(lam_r, 0.0)
        return self.prob.deviance(np.array([_lambda_item(g, lam_r, self.k, self.kind), lam_r]))

    def excess(self, g: float) -> float:
        """p(g) − d(λ̂): a few parabolic steps in λ_rater from the last optimum (clipped at 0)."""
        x, h = self.lam_r, max(0.05, 0.2 * self.lam_r)
        fx = self._d(g, x)
        for _ in range(4):
            lo, hi = max(x - h, 0.0), x + h
            f_lo, f_hi = self._d(g, lo), self._d(g, hi)
            denom = f_lo - 2 * fx + f_hi
            if x - h < 0 and f_lo <= fx:  # the minimum sits on the boundary λ_rater = 0
                x, fx = 0.0, f_lo
                break
            step = 0.5 * h * (f_lo - f_hi) / denom if denom > 0 else (h if f_hi < f_lo else -h)
            step = float(np.clip(step, -2 * h, 2 * h))
            x_new = max(x + step, 0.0)
            f_new = self._d(g, x_new)
            if f_new < fx:
                x, fx = x_new, f_new
            h *= 0.3
        self.lam_r = x
        return max(fx - self.dmin, 0.0)


def _end(prof: _Profile, g_hat: float, z_target: float) -> float:
    """The g where the signed root reaches ``z_target`` (secant steps in logit(g))."""
    logit = lambda g: np.log(g / (1 - g))  # noqa: E731
    expit = lambda t: 1 / (1 + np.exp(-t))  # noqa: E731
    sign = np.sign(z_target)
    t_hat = logit(g_hat)
    t0, z0 = t_hat, 0.0
    t1 = t_hat + sign * 0.5
    for _ in range(30):
        z1 = sign * np.sqrt(prof.excess(expit(t1)))
        if abs(z1 - z_target) < 1e-3:
            break
        if abs(z1) < 1e-12 or abs(z1 - z0) < 1e-12:  # flat: step further out
            t0, z0, t1 = t1, z1, t1 + sign * 1.0
            continue
        t2 = t1 + (z_target - z1) * (t1 - t0) / (z1 - z0)
        t2 = float(np.clip(t2, t1 - 3, t1 + 3))
        t0, z0, t1 = t1, z1, t2
    return float(expit(t1))


def reliability_interval(
    fit: RemlFit, k: float, kind: Kind, confidence: float = 0.95
) -> tuple[float, float]:
    """(lower, upper) profile-likelihood interval of Rel_single (``kind="single"``) or Rel_k."""
    if fit.problem is None or fit.theta is None or len(fit.theta) != 2:
        raise ValueError("profile intervals need a crossed (two-factor) REML fit")
    z = float(ndtri(0.5 + confidence / 2))
    g_hat = reliability(fit.theta, k, kind)
    prof = _Profile(fit, k, kind)
    if g_hat <= 1e-9:  # the estimate sits on the boundary: search upwards only
        lo, g_hat = 0.0, 1e-6
    else:
        at_zero = prof.excess(0.0)
        prof.lam_r = float(fit.theta[1])
        lo = 0.0 if at_zero <= z * z else _end(prof, g_hat, -z)
    prof.lam_r = float(fit.theta[1])
    return lo, _end(prof, g_hat, z)
