"""Bootstrap confidence intervals: one sample (scipy.stats.bootstrap; BCa, falling back to percentile)
and the item bootstrap every capability uses for statistics of several aligned arrays (correlations,
errors, κ, α): items are resampled with replacement and the statistic recomputed on each resample."""

from __future__ import annotations

import warnings
from typing import Callable, Iterator

import numpy as np


_VECTORISED = (np.mean, np.median, np.std, np.var, np.sum)


def bootstrap_ci(
    values,
    statistic: Callable = np.mean,
    *,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float, float]:
    """(estimate, lower, upper); NaN bounds when fewer than 3 finite values or no variation. NumPy
    reductions (``np.mean``, ``np.median`` …) run vectorised over all resamples at once (same numbers)."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if len(x) == 0:
        return float("nan"), float("nan"), float("nan")
    est = float(statistic(x))
    if len(x) < 3 or np.ptp(x) == 0:
        return est, float("nan"), float("nan")
    from scipy import stats  # here: importing scipy.stats costs ~1 s; the item bootstrap needs none

    rng = np.random.default_rng(seed)
    for method in ("BCa", "percentile"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = stats.bootstrap(
                (x,),
                statistic,
                confidence_level=confidence,
                n_resamples=n_resamples,
                method=method,
                random_state=rng,
                vectorized=statistic in _VECTORISED,
            )
        lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
        if np.isfinite(lo) and np.isfinite(hi):
            return est, lo, hi
    return est, float("nan"), float("nan")


def item_bootstrap(
    statistic: Callable[[np.ndarray], float],
    n_items: int,
    *,
    n_boot: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    rng: np.random.Generator | None = None,
    accept: Callable[[np.ndarray], bool] | None = None,
    strata: np.ndarray | None = None,
) -> tuple[float, float]:
    """Percentile interval of ``statistic(idx)`` over ``n_boot`` resamples of item indices ``idx`` (drawn
    with replacement; within each stratum, keeping its size, where ``strata`` labels the items).
    ``accept(idx)`` skips degenerate resamples (e.g. a constant variable); NaN values of the statistic are
    ignored. Pass ``rng`` to continue a shared random stream, else ``seed`` starts one. (NaN, NaN) when no
    resample is usable."""
    rng = rng if rng is not None else np.random.default_rng(seed)
    draws = [
        statistic(idx)
        for block in resample_blocks(n_items, n_boot, rng, strata, cells=1)
        for idx in block
        if accept is None or accept(idx)
    ]
    return percentile_interval(np.asarray(draws, float), confidence)


def resample_blocks(
    n_items: int,
    n_boot: int,
    rng: np.random.Generator,
    strata: np.ndarray | None = None,
    cells: int = 4_000_000,
) -> Iterator[np.ndarray]:
    """The item bootstrap's index draws — one resample after another from ``rng``, within each stratum
    where ``strata`` labels the items — as (resamples × items) blocks of at most ``cells`` indices, so a
    statistic can be computed for a whole block at once with the same draws as one at a time."""
    groups = (
        [np.flatnonzero(strata == g) for g in np.unique(strata)] if strata is not None else None
    )
    block = max(1, cells // max(n_items, 1))
    for start in range(0, n_boot, block):
        yield np.array(
            [
                rng.integers(0, n_items, n_items)
                if groups is None
                else np.concatenate([g[rng.integers(0, len(g), len(g))] for g in groups])
                for _ in range(min(block, n_boot - start))
            ],
            dtype=int,
        ).reshape(-1, n_items)


def cluster_weights(clusters, n_boot: int, seed: int) -> np.ndarray:
    """(n_boot × items) multiplicities of a cluster bootstrap: clusters drawn with replacement, each item
    counted as often as its cluster was drawn (a statistic weighted by them is the resampled one)."""
    codes, index = np.unique(np.asarray(clusters), return_inverse=True)
    rng = np.random.default_rng(seed)
    drawn = rng.multinomial(len(codes), np.full(len(codes), 1 / len(codes)), size=n_boot)
    return drawn[:, index].astype(float)


def percentile_interval(draws: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """The percentile interval of bootstrap ``draws``, NaN draws ignored; (NaN, NaN) without any."""
    draws = draws[np.isfinite(draws)]
    if not len(draws):
        return float("nan"), float("nan")
    lo, hi = np.percentile(draws, [(1 - confidence) / 2 * 100, (1 + confidence) / 2 * 100])
    return float(lo), float(hi)
