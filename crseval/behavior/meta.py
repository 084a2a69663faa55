"""Meta-evaluation of behavior metrics.

* Preference agreement: for two systems' responses to the same contexts and human preference labels
  (A better / B better / same), each metric prefers A, B or neither per item; agreement with humans is
  Cohen's κ with a bootstrap 2.5–97.5 % interval (items resampled).
* Quality tracking: synthetic systems mix an "ideal" and a "worst" system's responses — a seeded
  share p of the turns take the worst response, p = 0.1 … 0.9 — and each metric is computed per
  mixture; a metric that tracks quality falls monotonically with p (a line plot per metric).
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd
from sklearn.metrics import cohen_kappa_score


def metric_preferences(a: Sequence[float], b: Sequence[float], tol: float = 0.0) -> np.ndarray:
    a, b = np.asarray(a, float), np.asarray(b, float)
    return np.where(a > b + tol, "A", np.where(b > a + tol, "B", "same"))


def preference_kappa(metric_pref: Sequence[str], human_pref: Sequence[str], *, n_boot: int = 1000,
                     seed: int = 0) -> tuple[float, float, float]:
    """(κ, 2.5 %, 97.5 %) between a metric's and the humans' preferences."""
    m, h = np.asarray(metric_pref), np.asarray(human_pref)
    labels = ["A", "B", "same"]
    k = float(cohen_kappa_score(h, m, labels=labels))
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(n_boot):
        idx = rng.integers(0, len(m), len(m))
        if len(set(h[idx])) > 1 or len(set(m[idx])) > 1:
            draws.append(cohen_kappa_score(h[idx], m[idx], labels=labels))
    lo, hi = np.nanpercentile(draws, [2.5, 97.5]) if draws else (np.nan, np.nan)
    return k, float(lo), float(hi)


def mix(ideal: pd.DataFrame, worst: pd.DataFrame, fraction: float, seed: int = 0) -> pd.DataFrame:
    """Responses where a seeded ``fraction`` of (dialogue, turn) rows take the worst system's answer."""
    merged = ideal.merge(worst, on=["dialogue", "turn"], suffixes=("_ideal", "_worst"))
    take = np.random.default_rng(seed).random(len(merged)) < fraction
    return merged.assign(response=np.where(take, merged["response_worst"], merged["response_ideal"]))[
        ["dialogue", "turn", "response"]]


def quality_curve(ideal: pd.DataFrame, worst: pd.DataFrame, metrics: Callable[[pd.DataFrame], dict[str, float]],
                  fractions: Sequence[float] = tuple(np.round(np.arange(0.1, 1.0, 0.1), 1)), seed: int = 0
                  ) -> pd.DataFrame:
    rows = []
    for p in fractions:
        for name, value in metrics(mix(ideal, worst, p, seed)).items():
            rows.append({"worst_share": p, "metric": name, "value": value})
    return pd.DataFrame(rows)


def plot_quality_curve(curve: pd.DataFrame, path: Path) -> Path:
    from crseval.plotting import plt, save, style
    style()
    fig, ax = plt.subplots(figsize=(6, 3.8))
    for name, g in curve.groupby("metric", sort=False):
        v = g["value"].to_numpy(float)
        span = np.nanmax(v) - np.nanmin(v)
        ax.plot(g["worst_share"] * 100, (v - np.nanmin(v)) / span if span else v * 0, marker="o", label=name)
    ax.set_xlabel("share of turns answered by the worst system (%)")
    ax.set_ylabel("metric value (min–max scaled)")
    ax.set_title("Do the metrics track quality?")
    ax.legend(fontsize=7)
    save(fig, path)
    return path
