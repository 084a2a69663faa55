"""Tukey HSD (Tukey–Kramer for unequal groups) with the studentized range distribution computed by fixed
Gauss–Legendre quadrature over all pairs at once.

scipy's ``studentized_range`` evaluates its double integral adaptively to 1e-12 for each value (10–30 ms),
and statsmodels' ``pairwise_tukeyhsd`` calls it once per pair and root-finds its quantile for the interval:
a preference-shift analysis of 25 metrics spent seconds there. The same integral on fixed nodes is a
few array operations per call; ``tests/stats/test_tukey.py`` checks it against scipy (sf and quantile)
and the table against statsmodels.

    P(Q ≤ q) = ∫₀^∞ f_S(s) · k ∫ φ(z) [Φ(z) − Φ(z − q s)]^(k−1) dz ds,   S = √(χ²_df / df)
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd
from scipy import optimize, special, stats

TUKEY_COLUMNS = ["group1", "group2", "meandiff", "p_tukey", "lower", "upper", "reject"]

_NODES = (
    96  # Gauss–Legendre nodes per dimension: |sf − scipy's| < 1e-10 on the tested grid (48: 1e-3)
)
_Z_RANGE = 8.5  # φ(z) < 1e-15 beyond it
_TAIL = 1e-15  # the mass of S left out on either side
# With fewer error df, S has mass near 0 where the range CDF at q·S changes within 1/q: for q ≥ 40 the fixed
# nodes miss it (|sf − scipy's| up to 1e-3 at 1 df, 30 means; ≤ 1.4e-8 from 4 df). Such tiny designs get
# scipy's adaptive integral, whose cost does not matter there.
_FEW_DF = 4


@lru_cache(maxsize=1)
def _legendre() -> tuple[np.ndarray, np.ndarray]:
    return np.polynomial.legendre.leggauss(_NODES)


@lru_cache(maxsize=256)
def _s_nodes(df: float) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights (density included) of S = √(χ²_df/df) over its central 1 − 2e-15."""
    x, w = _legendre()
    lo, hi = np.sqrt(stats.chi2.ppf(_TAIL, df) / df), np.sqrt(stats.chi2.isf(_TAIL, df) / df)
    s = (hi - lo) / 2 * x + (hi + lo) / 2
    log_f = (
        np.log(2.0)
        + (df / 2) * np.log(df / 2)
        - special.gammaln(df / 2)
        + (df - 1) * np.log(s)
        - df * s**2 / 2
    )
    return s, np.exp(log_f) * w * (hi - lo) / 2


def studentized_range_cdf(q, k: int, df: float) -> np.ndarray:
    """P(Q ≤ q) of the studentized range of ``k`` means with ``df`` error degrees of freedom, for every
    value of ``q`` at once."""
    q = np.atleast_1d(np.asarray(q, float))
    if df < _FEW_DF:
        return np.clip(stats.studentized_range.cdf(q, k, df), 0.0, 1.0)
    x, w = _legendre()
    z, wz = _Z_RANGE * x, _Z_RANGE * w
    s, ws = _s_nodes(float(df))
    phi_z = stats.norm.pdf(z)
    cdf_z = special.ndtr(z)
    # range CDF at every (q, s): k ∫ φ(z) [Φ(z) − Φ(z − w)]^(k−1) dz with w = q s
    width = q[:, None, None] * s[None, :, None]
    inner = np.clip(cdf_z - special.ndtr(z - width), 0.0, 1.0) ** (k - 1)
    range_cdf = k * (inner * (phi_z * wz)).sum(axis=-1)
    out = (range_cdf * ws).sum(axis=-1)
    return np.clip(np.where(q <= 0, 0.0, out), 0.0, 1.0)


def studentized_range_sf(q, k: int, df: float) -> np.ndarray:
    """P(Q > q): the Tukey HSD p-value of a studentized range ``q``."""
    return 1.0 - studentized_range_cdf(q, k, df)


@lru_cache(maxsize=512)
def studentized_range_ppf(p: float, k: int, df: float) -> float:
    """The ``p`` quantile (the HSD critical value at p = 1 − α)."""
    if df < _FEW_DF:
        return float(stats.studentized_range.ppf(p, k, df))
    return float(
        optimize.brentq(lambda q: studentized_range_cdf(q, k, df)[0] - p, 1e-9, 100.0, xtol=1e-12)
    )


def tukey_hsd(values: np.ndarray, groups: np.ndarray, alpha: float = 0.05) -> pd.DataFrame:
    """All pairs of groups (sorted names; ``meandiff`` = group2 − group1) with the Tukey–Kramer p and
    simultaneous 1 − ``alpha`` interval — statsmodels' ``pairwise_tukeyhsd`` table (TUKEY_COLUMNS)."""
    names, idx = np.unique(np.asarray(groups).astype(str), return_inverse=True)
    y = np.asarray(values, float)
    n = np.bincount(idx).astype(float)
    means = np.bincount(idx, weights=y) / n
    df = float(len(y) - len(names))
    mse = float(((y - means[idx]) ** 2).sum() / df)
    i, j = np.triu_indices(len(names), 1)
    diff = means[j] - means[i]
    se = np.sqrt(mse / 2 * (1 / n[i] + 1 / n[j]))
    p = studentized_range_sf(np.abs(diff) / se, len(names), df)
    half = studentized_range_ppf(1 - alpha, len(names), df) * se
    return pd.DataFrame(
        {
            "group1": names[i],
            "group2": names[j],
            "meandiff": diff,
            "p_tukey": p,
            "lower": diff - half,
            "upper": diff + half,
            "reject": np.abs(diff) > half,
        },
        columns=TUKEY_COLUMNS,
    )
