"""Correlations with paired-bootstrap confidence intervals (items resampled with replacement)."""
from __future__ import annotations

import numpy as np
from scipy import stats

from crseval.stats.bootstrap import item_bootstrap


def correlation_ci(x, y, method: str = "pearson", *, n_boot: int = 1000, confidence: float = 0.95,
                   seed: int = 0) -> tuple[float, float, float, float]:
    """(r, lower, upper, p-value) for Pearson or Spearman; NaN when fewer than 3 complete pairs or a
    constant variable."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    nan = (float("nan"),) * 4
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return nan
    fn = stats.pearsonr if method == "pearson" else stats.spearmanr
    r, p = fn(x, y)
    if n_boot <= 0:
        return float(r), float("nan"), float("nan"), float(p)
    lo, hi = item_bootstrap(lambda i: fn(x[i], y[i])[0], len(x), n_boot=n_boot, confidence=confidence, seed=seed,
                            accept=lambda i: np.ptp(x[i]) > 0 and np.ptp(y[i]) > 0)
    return float(r), lo, hi, float(p)
