"""Krippendorff's alpha via the ``krippendorff`` package, with an item-bootstrap CI.

The bootstrap is vectorised: alpha is a function of the coincidence matrix, which is a sum of per-unit
contributions, so a resample of units (dialogues) is a weighted sum of the same per-unit matrices — one
matrix product gives every resample's coincidences, and alpha follows with the package's own formulas
(coincidences, random coincidences, ordinal/interval distances from the resample's value counts).
Checked against ``krippendorff.alpha`` on the resampled data in the tests.
"""

from __future__ import annotations

import krippendorff
import numpy as np

from crseval.stats.bootstrap import percentile_interval


def _matrix(values, items, raters) -> np.ndarray:
    """Raters × items matrix, NaN where a rater did not rate an item (duplicates averaged)."""
    _, i = np.unique(np.asarray(items), return_inverse=True)
    _, r = np.unique(np.asarray(raters), return_inverse=True)
    shape = (r.max() + 1, i.max() + 1)
    total = np.zeros(shape)
    count = np.zeros(shape)
    np.add.at(total, (r, i), np.asarray(values, float))
    np.add.at(count, (r, i), 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / count, np.nan)


def _value_counts(m: np.ndarray, domain: np.ndarray) -> np.ndarray:
    """Units × values: how many raters gave each value to each unit."""
    return np.stack([(m == v).sum(axis=0) for v in domain], axis=1).astype(float)


def _distances(level: str, domain: np.ndarray, n_v: np.ndarray) -> np.ndarray:
    """(B, V, V) squared distances; ordinal ones depend on each resample's value counts ``n_v`` (B, V)."""
    if level == "interval":
        return np.broadcast_to(
            (domain[:, None] - domain[None, :]) ** 2, (len(n_v), len(domain), len(domain))
        )
    cum = np.concatenate([np.zeros((len(n_v), 1)), np.cumsum(n_v, axis=1)], axis=1)
    i = np.arange(len(domain))
    lo, hi = np.minimum(i[:, None], i[None, :]), np.maximum(i[:, None], i[None, :])
    between = cum[:, hi + 1] - cum[:, lo]
    return (between - (n_v[:, lo] + n_v[:, hi]) / 2) ** 2


def alphas_of_resamples(m: np.ndarray, weights: np.ndarray, level: str = "ordinal") -> np.ndarray:
    """Alpha of every resample: ``weights`` (B × units) says how often each unit (column of the raters ×
    units matrix ``m``) was drawn. NaN where a resample has fewer than two distinct values."""
    domain = np.unique(m[np.isfinite(m)])
    vc = _value_counts(m, domain)
    pairable = np.maximum(vc.sum(axis=1), 2)
    per_unit = (vc[:, :, None] * vc[:, None, :] - vc[:, None, :] * np.eye(len(domain))) / (
        pairable - 1
    )[:, None, None]
    o = (weights @ per_unit.reshape(len(vc), -1)).reshape(len(weights), len(domain), len(domain))
    n_v = o.sum(axis=1)
    e = (n_v[:, :, None] * n_v[:, None, :] - n_v[:, None, :] * np.eye(len(domain))) / (
        n_v.sum(axis=1) - 1
    )[:, None, None]
    d = _distances(level, domain, n_v)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = 1 - (o * d).sum(axis=(1, 2)) / (e * d).sum(axis=(1, 2))
    seen = (weights @ vc) > 0
    return np.where(seen.sum(axis=1) > 1, out, np.nan)


def alpha(
    values,
    items,
    raters,
    level: str = "ordinal",
    *,
    n_boot: int = 0,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float, float]:
    """(alpha, lower, upper); bounds are NaN without a bootstrap. Items are resampled with
    replacement (the unit of analysis is the rated dialogue)."""
    m = _matrix(values, items, raters)
    domain = np.unique(m[np.isfinite(m)])
    if len(domain) < 2:
        return float("nan"), float("nan"), float("nan")
    kw = (
        {"level_of_measurement": level, "value_domain": domain}
        if level == "ordinal"
        else {"level_of_measurement": level}
    )
    est = float(krippendorff.alpha(reliability_data=m, **kw))
    if n_boot <= 0:
        return est, float("nan"), float("nan")
    rng, units = np.random.default_rng(seed), m.shape[1]
    weights = np.stack(
        [np.bincount(rng.integers(0, units, units), minlength=units) for _ in range(n_boot)]
    )
    return est, *percentile_interval(
        alphas_of_resamples(m, weights.astype(float), level), confidence
    )
