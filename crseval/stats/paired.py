"""Two systems measured on the same units (users, dialogues): a pooled score with its CI, the paired
difference with its CI and a paired permutation p, and the known-groups AUC of a metric.

A unit carries a value sum and a weight (a session: its score and 1; a dialogue of the behavior
capability: its turns' sum and their count), so a pooled ratio (Σ value / Σ weight) and a mean of unit
scores are one statistic. Units are resampled whole (a cluster bootstrap).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from crseval.stats.bootstrap import item_bootstrap, percentile_interval


class Estimate(NamedTuple):
    value: float
    lo: float
    hi: float
    n: int


class Difference(NamedTuple):
    diff: float
    lo: float
    hi: float
    p: float
    n: int


def _finite(total: np.ndarray, weight: np.ndarray) -> np.ndarray:
    return np.isfinite(total) & np.isfinite(weight) & (weight > 0)


def pooled(total, weight=None, *, n_boot: int = 2000, seed: int = 0) -> Estimate:
    """Σ total / Σ weight over the units, with a percentile CI from resampling units."""
    t = np.asarray(total, float)
    w = np.ones_like(t) if weight is None else np.asarray(weight, float)
    ok = _finite(t, w)
    t, w = t[ok], w[ok]
    if not len(t):
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    lo, hi = item_bootstrap(lambda i: t[i].sum() / w[i].sum(), len(t), n_boot=n_boot, seed=seed)
    return Estimate(float(t.sum() / w.sum()), lo, hi, len(t))


def paired_difference(
    a_total, b_total, a_weight=None, b_weight=None, *, n_boot: int = 2000, seed: int = 0
) -> Difference:
    """System a minus system b on the units both have: the difference of their pooled scores, its CI from
    resampling units (pairs kept together) and the two-sided p of a paired permutation test of that same
    difference (each unit's two systems swapped or not: every assignment when 2^n ≤ ``n_boot``, else
    ``n_boot`` random ones) — as ``scipy.stats.permutation_test(permutation_type="samples")`` computes it,
    for pooled ratios too."""
    at, bt = np.asarray(a_total, float), np.asarray(b_total, float)
    aw = np.ones_like(at) if a_weight is None else np.asarray(a_weight, float)
    bw = np.ones_like(bt) if b_weight is None else np.asarray(b_weight, float)
    ok = _finite(at, aw) & _finite(bt, bw)
    at, aw, bt, bw = at[ok], aw[ok], bt[ok], bw[ok]
    n = len(at)
    if n == 0:
        return Difference(float("nan"), float("nan"), float("nan"), float("nan"), 0)

    def diff(i):
        return at[i].sum() / aw[i].sum() - bt[i].sum() / bw[i].sum()

    lo, hi = item_bootstrap(diff, n, n_boot=n_boot, seed=seed) if n >= 3 else (np.nan, np.nan)
    observed = float(diff(np.arange(n)))
    return Difference(
        observed, float(lo), float(hi), _permutation_p(at, aw, bt, bw, observed, n_boot, seed), n
    )


def detectable_difference(
    lo: float, hi: float, n: int, *, alpha: float = 0.05, power: float = 0.8
) -> float:
    """The smallest true difference a paired comparison of ``n`` units detects with probability ``power`` at
    two-sided level ``alpha``: (z₁₋α/₂ + z_power) × its standard error, read from its 95 % CI [lo, hi] (the
    normal approximation of a z-test's power: 2.80 standard errors at the defaults). Infinite where no
    difference can be detected at all: the exact paired permutation test of n units cannot reach p < α
    (its smallest two-sided p is 2/2ⁿ: n ≤ 5 at α = .05)."""
    from scipy.stats import norm

    if n < 1 or 2.0 / 2**n >= alpha:
        return float("inf")
    se = (hi - lo) / (2 * norm.ppf(0.975))
    return float((norm.ppf(1 - alpha / 2) + norm.ppf(power)) * se)


def _permutation_p(at, aw, bt, bw, observed: float, n_perm: int, seed: int) -> float:
    n = len(at)
    exact = n < 63 and 2**n <= n_perm
    if exact:
        swap = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(bool)
    else:
        swap = np.random.default_rng(seed).random((n_perm, n)) < 0.5
    a = np.where(swap, bt, at).sum(1) / np.where(swap, bw, aw).sum(1)
    b = np.where(swap, at, bt).sum(1) / np.where(swap, aw, bw).sum(1)
    null = a - b
    eps = 1e-14 * max(1.0, abs(observed))  # scipy's tolerance for ties with the observed value
    adjust = 0 if exact else 1
    greater = ((null >= observed - eps).sum() + adjust) / (len(null) + adjust)
    less = ((null <= observed + eps).sum() + adjust) / (len(null) + adjust)
    return float(min(1.0, 2 * min(greater, less)))


def known_groups_auc(
    good, bad, *, higher_is_better: bool = True, n_boot: int = 2000, seed: int = 0
) -> Estimate:
    """P(a unit of the group expected to score better does, ties counted half) — the Mann–Whitney AUC,
    oriented by the metric's direction — with a percentile CI from resampling each group (as multiplicities
    over the pairwise comparison matrix, all resamples at once; one resample at a time for groups whose
    matrix would exceed 4 million cells)."""
    g, b = np.asarray(good, float), np.asarray(bad, float)
    g, b = g[np.isfinite(g)], b[np.isfinite(b)]
    if not (len(g) and len(b)):
        return Estimate(float("nan"), float("nan"), float("nan"), len(g) + len(b))
    if not higher_is_better:
        g, b = -g, -b
    if len(g) * len(b) > 4_000_000:
        return _auc_by_ranks(g, b, n_boot, seed)
    wins = (g[:, None] > b[None, :]) + 0.5 * (g[:, None] == b[None, :])
    rng = np.random.default_rng(seed)
    mg = rng.multinomial(len(g), np.full(len(g), 1 / len(g)), size=n_boot)
    mb = rng.multinomial(len(b), np.full(len(b), 1 / len(b)), size=n_boot)
    draws = ((mg @ wins) * mb).sum(axis=1) / (len(g) * len(b))
    lo, hi = percentile_interval(draws)
    return Estimate(float(wins.mean()), lo, hi, len(g) + len(b))


def _auc_by_ranks(g: np.ndarray, b: np.ndarray, n_boot: int, seed: int) -> Estimate:
    x = np.concatenate([g, b])
    strata = np.r_[np.zeros(len(g), int), np.ones(len(b), int)]

    def auc(i):
        return _auc(x[i[strata[i] == 0]], x[i[strata[i] == 1]])

    lo, hi = item_bootstrap(auc, len(x), n_boot=n_boot, seed=seed, strata=strata)
    return Estimate(_auc(g, b), lo, hi, len(x))


def _auc(g: np.ndarray, b: np.ndarray) -> float:
    """Mann–Whitney U / (n_g n_b) from the pooled ranks (average ranks for ties)."""
    from scipy.stats import rankdata

    r = rankdata(np.concatenate([g, b]))
    u = r[: len(g)].sum() - len(g) * (len(g) + 1) / 2
    return float(u / (len(g) * len(b)))


# fewer units than this in either group and an AUC's bootstrap CI says nothing (2 sessions a system gave
# "held 1.00 [1.00, 1.00]"): no verdict is drawn from it. 5 is the least at which even a perfect
# separation is significant (Mann–Whitney's exact two-sided p: 5 vs 5, .008; 3 vs 3, .10; 2 vs 2, .33)
MIN_GROUP = 5
TOO_FEW = "too few"


def verdict(auc: Estimate, smallest: int | None = None) -> str:
    """'held' (the CI above .5), 'reversed' (below), or 'not separated'; :data:`TOO_FEW` where the smaller
    group (``smallest`` units) has fewer than :data:`MIN_GROUP`."""
    if smallest is not None and smallest < MIN_GROUP:
        return TOO_FEW
    if np.isfinite(auc.lo) and auc.lo > 0.5:
        return "held"
    if np.isfinite(auc.hi) and auc.hi < 0.5:
        return "reversed"
    return "not separated"
