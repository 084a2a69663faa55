"""Ratings from pairwise votes.

* **Elo** exactly as the CRS arena computes it: sequential over the votes in file order, every system
  starts at 1000, K = 16, a tie counts ½ for each side. It depends on the order of the votes and has no
  uncertainty.
* **Bradley–Terry** (choix's ILSR maximum likelihood; a tie counts as half a win for each side, the same
  convention as the arena's Elo; a small regularisation ``alpha`` keeps systems that never won finite),
  or **Davidson's** (1970) extension that models ties: P(i beats j) = πᵢ / (πᵢ + πⱼ + ν√(πᵢπⱼ)),
  P(tie) = ν√(πᵢπⱼ) / (…), fitted by maximum likelihood (L-BFGS with the analytic gradient, the same
  L2 penalty ``alpha`` on log-strengths) — no library implements it;
  reported on the Elo scale (1000 + 400/ln 10 · strength, centred) so the two read alike, with
  bootstrap CIs over votes, the probability that each system beats each other, how often each rank holds
  under resampling, and how many votes a CI of a given width would need.
"""

from __future__ import annotations

import math

import choix
import numpy as np
import pandas as pd

from crseval.data.votes import TIE

ELO_SCALE = 400 / math.log(10)
TIE_SCORE = (
    0.5  # what a tie counts for each side (Elo; Bradley–Terry counts it as half a win each way)
)
ALPHA = 0.01  # the L2 penalty on log-strengths that keeps a system that never won finite


def elo(votes: pd.DataFrame, *, k: float = 16, initial: float = 1000) -> dict[str, float]:
    """Sequential Elo over the votes in order (the arena's ranking)."""
    r: dict[str, float] = {}
    for a, b, vote in zip(votes["crs1"], votes["crs2"], votes["vote"]):
        ra, rb = r.setdefault(a, initial), r.setdefault(b, initial)
        expected_a = 1 / (1 + 10 ** ((rb - ra) / 400))
        score_a = TIE_SCORE if vote == TIE else float(vote == a)
        r[a] = ra + k * (score_a - expected_a)
        r[b] = rb + k * ((1 - score_a) - (1 - expected_a))
    return r


def _pairs(votes: pd.DataFrame, index: dict[str, int]) -> list[tuple[int, int]]:
    """(winner, loser) pairs with ties as half a win each way: a decisive vote counts twice, a tie once each way."""
    out = []
    for a, b, vote in zip(votes["crs1"], votes["crs2"], votes["vote"]):
        i, j = index[a], index[b]
        if vote == TIE:
            out += [(i, j), (j, i)]
        else:
            w, l_ = (i, j) if vote == a else (j, i)
            out += [(w, l_), (w, l_)]
    return out


def bradley_terry(votes: pd.DataFrame, systems: list[str], *, alpha: float = ALPHA) -> np.ndarray:
    """Strengths on the Elo scale (centred on 1000), in the order of ``systems``."""
    theta = choix.ilsr_pairwise(
        len(systems),
        _pairs(votes, {s: i for i, s in enumerate(systems)}),
        alpha=alpha,
        max_iter=1000,
    )
    return 1000 + ELO_SCALE * (theta - theta.mean())


def _davidson_nll(x: np.ndarray, i: np.ndarray, j: np.ndarray, out: np.ndarray, alpha: float):
    """Negative log-likelihood and its gradient; x = (log-strengths…, log ν); out = 1 (i won), 0 (tie), -1 (j won)."""
    theta, log_nu = x[:-1], x[-1]
    a, b = theta[i], theta[j]
    ea, eb, t = np.exp(a), np.exp(b), np.exp(log_nu + (a + b) / 2)
    den = ea + eb + t
    ll = np.where(out == 1, a, np.where(out == -1, b, log_nu + (a + b) / 2)) - np.log(den)
    pa, pb, pt = (ea + t / 2) / den, (eb + t / 2) / den, t / den
    da = np.where(out == 1, 1.0, np.where(out == 0, 0.5, 0.0)) - pa
    db = np.where(out == -1, 1.0, np.where(out == 0, 0.5, 0.0)) - pb
    grad = np.zeros_like(x)
    np.add.at(grad, i, -da)
    np.add.at(grad, j, -db)
    grad[:-1] += 2 * alpha * theta
    grad[-1] = -np.sum((out == 0) - pt)
    return -ll.sum() + alpha * float(theta @ theta), grad


def davidson(
    votes: pd.DataFrame, systems: list[str], *, alpha: float = ALPHA
) -> tuple[np.ndarray, float]:
    """(strengths on the Elo scale centred on 1000, in the order of ``systems``; the tie parameter ν)."""
    from scipy.optimize import minimize

    index = {s: k for k, s in enumerate(systems)}
    i = np.array([index[a] for a in votes["crs1"]], dtype=int)
    j = np.array([index[b] for b in votes["crs2"]], dtype=int)
    out = np.where(votes["vote"] == TIE, 0, np.where(votes["vote"] == votes["crs1"], 1, -1))
    x0 = np.zeros(len(systems) + 1)
    res = minimize(
        _davidson_nll,
        x0,
        args=(i, j, out, alpha),
        jac=True,
        method="L-BFGS-B",
        bounds=[(None, None)] * len(systems) + [(-30, 10)],
    )
    theta = res.x[:-1]
    return 1000 + ELO_SCALE * (theta - theta.mean()), float(np.exp(res.x[-1]))


def win_probability(ratings: np.ndarray) -> np.ndarray:
    """P(row system beats column system) under the Bradley–Terry model (ties split)."""
    d = (ratings[:, None] - ratings[None, :]) / ELO_SCALE
    return 1 / (1 + np.exp(-d))


def fit(
    votes: pd.DataFrame, systems: list[str], *, alpha: float = ALPHA, ties: str = "half"
) -> np.ndarray:
    """Ratings on the Elo scale: Bradley–Terry with ties as half wins, or Davidson's tie model."""
    return (
        davidson(votes, systems, alpha=alpha)[0]
        if ties == "davidson"
        else bradley_terry(votes, systems, alpha=alpha)
    )


def bootstrap(
    votes: pd.DataFrame,
    systems: list[str],
    *,
    n_boot: int = 1000,
    seed: int = 0,
    alpha: float = ALPHA,
    ties: str = "half",
) -> np.ndarray:
    """(n_boot × systems) ratings refitted on votes resampled with replacement."""
    from crseval.stats.bootstrap import resample_blocks

    rng = np.random.default_rng(seed)
    return np.array(
        [
            fit(votes.iloc[idx], systems, alpha=alpha, ties=ties)
            for block in resample_blocks(len(votes), n_boot, rng)
            for idx in block
        ]
    )


def ranks(ratings: np.ndarray) -> np.ndarray:
    """1 = best; ties share the better rank."""
    return pd.Series(ratings).rank(ascending=False, method="min").to_numpy(int)


def votes_needed(width_now: float, n_votes: int, width: float) -> int:
    """Votes for a CI of ``width`` given the width with ``n_votes`` (widths shrink as 1/√votes)."""
    return (
        int(math.ceil(n_votes * (width_now / width) ** 2))
        if np.isfinite(width_now) and width > 0
        else 0
    )


def record(votes: pd.DataFrame, systems: list[str]) -> pd.DataFrame:
    """Wins, losses and ties per system."""
    rows = {s: {"wins": 0, "losses": 0, "ties": 0} for s in systems}
    for a, b, vote in zip(votes["crs1"], votes["crs2"], votes["vote"]):
        if vote == TIE:
            rows[a]["ties"] += 1
            rows[b]["ties"] += 1
        else:
            rows[vote]["wins"] += 1
            rows[b if vote == a else a]["losses"] += 1
    return pd.DataFrame.from_dict(rows, orient="index")
