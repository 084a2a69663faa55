"""Bootstrap confidence intervals (scipy.stats.bootstrap; BCa, falling back to percentile)."""
from __future__ import annotations

import warnings
from typing import Callable

import numpy as np
from scipy import stats


def bootstrap_ci(values, statistic: Callable = np.mean, *, confidence: float = 0.95, n_resamples: int = 2000,
                 seed: int = 0) -> tuple[float, float, float]:
    """(estimate, lower, upper); NaN bounds when fewer than 3 finite values or no variation."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if len(x) == 0:
        return float("nan"), float("nan"), float("nan")
    est = float(statistic(x))
    if len(x) < 3 or np.ptp(x) == 0:
        return est, float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    for method in ("BCa", "percentile"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = stats.bootstrap((x,), statistic, confidence_level=confidence, n_resamples=n_resamples,
                                  method=method, random_state=rng, vectorized=False)
        lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
        if np.isfinite(lo) and np.isfinite(hi):
            return est, lo, hi
    return est, float("nan"), float("nan")
