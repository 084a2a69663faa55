"""Krippendorff's alpha via the ``krippendorff`` package, with an item-bootstrap CI."""
from __future__ import annotations

import krippendorff
import numpy as np

from crseval.stats.bootstrap import item_bootstrap



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


def alpha(values, items, raters, level: str = "ordinal", *, n_boot: int = 0, confidence: float = 0.95,
          seed: int = 0) -> tuple[float, float, float]:
    """(alpha, lower, upper); bounds are NaN without a bootstrap. Items are resampled with
    replacement (the unit of analysis is the rated dialogue)."""
    m = _matrix(values, items, raters)
    domain = np.unique(m[np.isfinite(m)])
    if len(domain) < 2:
        return float("nan"), float("nan"), float("nan")
    kw = {"level_of_measurement": level, "value_domain": domain} if level == "ordinal" else \
        {"level_of_measurement": level}
    est = float(krippendorff.alpha(reliability_data=m, **kw))
    if n_boot <= 0:
        return est, float("nan"), float("nan")
    lo, hi = item_bootstrap(lambda i: krippendorff.alpha(reliability_data=m[:, i], **kw), m.shape[1], n_boot=n_boot,
                            confidence=confidence, seed=seed,
                            accept=lambda i: len(np.unique(m[:, i][np.isfinite(m[:, i])])) > 1)
    return est, lo, hi
