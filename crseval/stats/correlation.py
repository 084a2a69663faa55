"""Correlations with paired-bootstrap confidence intervals (items resampled with replacement): Pearson,
Spearman, Kendall (or Fisher-z intervals); partial correlation controlling for a covariate (e.g. transcript length); and the
paired bootstrap test of the difference between two correlations with the same target."""

from __future__ import annotations

import numpy as np
from scipy import stats

from crseval.stats.bootstrap import item_bootstrap, percentile_interval, resample_blocks


def correlation_ci(
    x, y, method: str = "pearson", *, n_boot: int = 1000, confidence: float = 0.95, seed: int = 0
) -> tuple[float, float, float, float]:
    """(r, lower, upper, p-value) for Pearson, Spearman or Kendall (tau-b); NaN when fewer than 3 complete
    pairs or a constant variable."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    nan = (float("nan"),) * 4
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return nan
    fn = _METHODS[method]
    r, p = fn(x, y)
    if n_boot <= 0:
        return float(r), float("nan"), float("nan"), float(p)
    if method == "kendall":
        lo, hi = item_bootstrap(
            lambda i: fn(x[i], y[i])[0],
            len(x),
            n_boot=n_boot,
            confidence=confidence,
            seed=seed,
            accept=lambda i: np.ptp(x[i]) > 0 and np.ptp(y[i]) > 0,
        )
        return float(r), lo, hi, float(p)
    draws = np.concatenate(
        [
            row_correlations(x[i], y[i], method)
            for i in resample_blocks(len(x), n_boot, np.random.default_rng(seed))
        ]
    )
    lo, hi = percentile_interval(draws, confidence)
    return float(r), lo, hi, float(p)


_METHODS = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}


def row_correlations(x: np.ndarray, y: np.ndarray, method: str) -> np.ndarray:
    """The correlation of each row of ``x`` with the same row of ``y``, as scipy computes it (Pearson;
    Spearman = Pearson of average ranks; Kendall τ-b), NaN where either row is constant — all rows at once.
    Kendall compares every pair of columns: meant for few columns (e.g. systems)."""
    if method == "kendall":
        i, j = np.triu_indices(x.shape[1], 1)
        dx, dy = np.sign(x[:, j] - x[:, i]), np.sign(y[:, j] - y[:, i])
        pairs = len(i)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (dx * dy).sum(1) / np.sqrt(
                (pairs - (dx == 0).sum(1)) * (pairs - (dy == 0).sum(1))
            )
    varies = (np.ptp(x, 1) > 0) & (np.ptp(y, 1) > 0)
    if method == "spearman":
        x, y = stats.rankdata(x, axis=1), stats.rankdata(y, axis=1)
    xc, yc = x - x.mean(1, keepdims=True), y - y.mean(1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (xc * yc).sum(1) / np.sqrt((xc**2).sum(1) * (yc**2).sum(1))
    return np.where(varies, np.clip(r, -1.0, 1.0), np.nan)


def _complete(*cols) -> list[np.ndarray]:
    arrs = [np.asarray(c, float) for c in cols]
    ok = np.logical_and.reduce([np.isfinite(a) for a in arrs])
    return [a[ok] for a in arrs]


def partial_r(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> float:
    """Pearson correlation of x and y with z held constant (of the residuals of x~z and y~z)."""
    Z = np.column_stack([np.ones(len(z)), z])
    rx = x - Z @ np.linalg.lstsq(Z, x, rcond=None)[0]
    ry = y - Z @ np.linalg.lstsq(Z, y, rcond=None)[0]
    if np.ptp(rx) < 1e-12 or np.ptp(ry) < 1e-12:
        return float("nan")
    return float(np.corrcoef(rx, ry)[0, 1])


def partial_correlation_ci(
    x, y, z, *, n_boot: int = 1000, confidence: float = 0.95, seed: int = 0
) -> tuple[float, float, float]:
    """(partial r, lower, upper): x with y, controlling for z (e.g. a judge with people, length held constant)."""
    x, y, z = _complete(x, y, z)
    if len(x) < 4 or np.ptp(z) == 0:
        return (float("nan"),) * 3
    r = partial_r(x, y, z)
    if n_boot <= 0:
        return r, float("nan"), float("nan")
    lo, hi = item_bootstrap(
        lambda i: partial_r(x[i], y[i], z[i]),
        len(x),
        n_boot=n_boot,
        confidence=confidence,
        seed=seed,
        accept=lambda i: np.ptp(z[i]) > 0,
    )
    return r, lo, hi


def correlation_difference(
    a, b, y, method: str = "pearson", *, n_boot: int = 1000, confidence: float = 0.95, seed: int = 0
) -> tuple[float, float, float, float]:
    """Is r(a, y) larger than r(b, y)? (difference, lower, upper, two-sided p) from the paired bootstrap:
    the same resampled items feed both correlations, so their dependence is kept."""
    a, b, y = _complete(a, b, y)
    fn = _METHODS[method]
    if len(a) < 4 or min(np.ptp(a), np.ptp(b), np.ptp(y)) == 0:
        return (float("nan"),) * 4
    diff = float(fn(a, y)[0] - fn(b, y)[0])
    if n_boot <= 0:
        return diff, float("nan"), float("nan"), float("nan")
    blocks = resample_blocks(len(a), n_boot, np.random.default_rng(seed))
    if (
        method == "kendall"
    ):  # scipy per resample; a resample where any of the three is constant is skipped
        d = np.array(
            [
                fn(a[i], y[i])[0] - fn(b[i], y[i])[0]
                for block in blocks
                for i in block
                if np.ptp(a[i]) > 0 and np.ptp(b[i]) > 0 and np.ptp(y[i]) > 0
            ],
            float,
        )
    else:  # all resamples of a block at once (NaN where any of the three is constant)
        d = np.concatenate(
            [
                row_correlations(a[i], y[i], method) - row_correlations(b[i], y[i], method)
                for i in blocks
            ]
        )
    d = d[np.isfinite(d)]
    if not len(d):
        return diff, float("nan"), float("nan"), float("nan")
    lo, hi = percentile_interval(d, confidence)
    p = min(1.0, 2 * min(np.mean(d <= 0), np.mean(d >= 0)))
    return diff, lo, hi, float(p)


def fisher_ci(r: float, n: int, spearman: bool = False) -> tuple[float, float]:
    """95 % CI of a correlation over n units (Fisher z; Bonett–Wright standard error for Spearman)."""
    if n < 4 or not np.isfinite(r) or abs(r) >= 1:
        return float("nan"), float("nan")
    se = np.sqrt((1 + r * r / 2) / (n - 3)) if spearman else 1 / np.sqrt(n - 3)
    z = np.arctanh(r)
    return float(np.tanh(z - 1.96 * se)), float(np.tanh(z + 1.96 * se))
