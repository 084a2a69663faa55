"""Quantities of a rating design."""

from __future__ import annotations

import numpy as np


def harmonic_k(items) -> float:
    """Harmonic mean number of observations per item (the k of ICC(1,k) on unbalanced data); ``items`` has
    one label per observation."""
    counts = np.unique(np.asarray(items), return_counts=True)[1].astype(float)
    return float(len(counts) / np.sum(1.0 / counts)) if len(counts) else float("nan")
