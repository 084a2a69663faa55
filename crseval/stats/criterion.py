"""Criterion validity: does a measure of a CRS predict what its real users felt?

Three levels, each oriented by the measure's declared direction (a value of .5 / 0 = no relation):

- *dialogue*: the concordance of the measure with the users' own labels — over every pair of dialogues
  whose labels differ, the share in which the better-labelled one has the better value, ties counted half
  (Harrell's C; for a binary label, the ROC AUC) — with a percentile CI from resampling users whole (a
  cluster bootstrap: a user's dialogues are not independent);
- *battle*: over the decided battles (one user, two CRSs, a vote), the share in which the measure prefers
  the CRS the user voted for, battles where it ties left out — with a CI from resampling users and an exact
  binomial p against .5;
- *system*: Kendall's τ between the systems' mean values and an external ranking (the arena's Elo), with a
  percentile CI from resampling dialogues within each system.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from crseval.stats.bootstrap import cluster_weights, item_bootstrap, percentile_interval
from crseval.stats.paired import Estimate


class Agreement(NamedTuple):
    share: float
    lo: float
    hi: float
    p: float
    n: int  # battles the measure decides
    ties: int  # battles where it does not


def _oriented(x, higher_is_better: bool) -> np.ndarray:
    x = np.asarray(x, float)
    return x if higher_is_better else -x


def concordance(
    x, label, clusters, *, higher_is_better: bool = True, n_boot: int = 2000, seed: int = 0
) -> Estimate:
    """Harrell's C of ``x`` for ``label`` (the AUC for a binary label), its CI from resampling ``clusters``
    whole; ``n``: dialogues with both values."""
    x, y = _oriented(x, higher_is_better), np.asarray(label, float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y, c = x[ok], y[ok], np.asarray(clusters)[ok]
    order = (y[:, None] > y[None, :]).astype(float)  # i labelled better than j
    if not order.any():
        return Estimate(float("nan"), float("nan"), float("nan"), int(ok.sum()))
    wins = order * ((x[:, None] > x[None, :]) + 0.5 * (x[:, None] == x[None, :]))
    w = cluster_weights(c, n_boot, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        draws = ((w @ wins) * w).sum(axis=1) / ((w @ order) * w).sum(axis=1)
    lo, hi = percentile_interval(draws)
    return Estimate(float(wins.sum() / order.sum()), lo, hi, len(x))


def battle_agreement(
    voted_for,
    voted_against,
    users,
    *,
    higher_is_better: bool = True,
    n_boot: int = 2000,
    seed: int = 0,
) -> Agreement:
    """How often the measure prefers the CRS the user voted for, over the battles where it prefers one."""
    from scipy.stats import binomtest

    a, b = _oriented(voted_for, higher_is_better), _oriented(voted_against, higher_is_better)
    ok = np.isfinite(a) & np.isfinite(b)
    decided = ok & (a != b)
    wins, u = (a > b)[decided].astype(float), np.asarray(users)[decided]
    if not len(wins):
        return Agreement(float("nan"), float("nan"), float("nan"), float("nan"), 0, int(ok.sum()))
    w = cluster_weights(u, n_boot, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        lo, hi = percentile_interval((w @ wins) / w.sum(axis=1))
    p = binomtest(int(wins.sum()), len(wins), 0.5).pvalue
    return Agreement(float(wins.mean()), lo, hi, float(p), len(wins), int((ok & ~decided).sum()))


def system_tau(
    x,
    systems,
    reference: dict[str, float],
    *,
    higher_is_better: bool = True,
    n_boot: int = 2000,
    seed: int = 0,
) -> Estimate:
    """Kendall's τ-b of the systems' mean ``x`` with ``reference`` (system → score, higher better), over the
    systems both have; ``n``: systems."""
    from scipy.stats import kendalltau

    x = _oriented(x, higher_is_better)
    s = np.asarray(systems)
    ok = np.isfinite(x) & np.isin(s, list(reference))
    x, s = x[ok], s[ok]
    names, strata = np.unique(s, return_inverse=True)
    if len(names) < 3:
        return Estimate(float("nan"), float("nan"), float("nan"), len(names))
    ref = np.array([reference[n] for n in names])

    def tau(idx: np.ndarray) -> float:
        means = np.bincount(strata[idx], x[idx], len(names)) / np.bincount(
            strata[idx], None, len(names)
        )
        return float(kendalltau(means, ref).statistic)

    lo, hi = item_bootstrap(tau, len(x), n_boot=n_boot, seed=seed, strata=strata)
    return Estimate(tau(np.arange(len(x))), lo, hi, len(names))
