"""Meta-evaluation of behavior metrics.

* Preference agreement: for two systems' responses to the same contexts and human preference labels
  (A better / B better / same), each metric prefers A, B or neither per item; agreement with humans is
  Cohen's κ with a bootstrap 2.5–97.5 % interval (items resampled).
* Quality tracking (the paper's Figure 3): synthetic systems mix an "ideal" and a "worst" system's
  responses — exactly p of the turns take the worst response, p = 0, 10, …, 100 %, nested (each
  mixture keeps the smaller share's worst turns) — and each metric is computed per mixture, unscaled,
  with a band from resampling dialogues; a metric that tracks quality falls monotonically with p.
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


def preference_kappa(
    metric_pref: Sequence[str], human_pref: Sequence[str], *, n_boot: int = 1000, seed: int = 0
) -> tuple[float, float, float]:
    """(κ, 2.5 %, 97.5 %) between a metric's and the humans' preferences."""
    m, h = np.asarray(metric_pref), np.asarray(human_pref)
    labels = ["A", "B", "same"]
    from crseval.stats.bootstrap import item_bootstrap

    k = float(cohen_kappa_score(h, m, labels=labels))
    lo, hi = item_bootstrap(
        lambda idx: cohen_kappa_score(h[idx], m[idx], labels=labels),
        len(m),
        n_boot=n_boot,
        seed=seed,
        accept=lambda idx: len(set(h[idx])) > 1 or len(set(m[idx])) > 1,
    )
    return k, lo, hi


FRACTIONS = tuple(np.round(np.arange(0, 1.01, 0.1), 1))  # Figure 3's shares: 0, 10, …, 100 %
UNBANDED = (
    "crslab_dist2",
    "crslab_dist4",
)  # corpus counts: a bootstrap with repeats is biased for them


def mix(ideal: pd.DataFrame, worst: pd.DataFrame, fraction: float, seed: int = 0) -> pd.DataFrame:
    """Responses where exactly round(``fraction`` × n) of the n (dialogue, turn) rows take the worst system's
    answer: the first ones of one seeded order, so each mixture holds every worst answer of a smaller share."""
    merged = ideal.merge(worst, on=["dialogue", "turn"], suffixes=("_ideal", "_worst"))
    rank = np.random.default_rng(seed).permutation(len(merged))
    take = rank < round(fraction * len(merged))
    return merged.assign(
        response=np.where(take, merged["response_worst"], merged["response_ideal"])
    )[["dialogue", "turn", "response"]]


def curve_statistics(turns: pd.DataFrame) -> dict[str, Callable[[np.ndarray], float]]:
    """Each tracked metric as a function of row positions of ``turns`` (one answered recommender turn per
    row: match, sentence_match, p_same, system, human), so a resample of dialogues is a resample of rows:
    explicit (first label and all sentences) and implicit BA over counted turns (the first of a dialogue is not), BLEU@2/4 and DIST@2/4 the way CRSLab
    computes them (:mod:`crseval.behavior.generation`). DIST counts the distinct n-grams of the whole set, which
    a resample with repeated dialogues only shrinks, so its names are in ``UNBANDED``: no bootstrap band."""
    from crseval.behavior.generation import crslab_bleu, crslab_ngrams

    counted = (turns["turn"] > 0).to_numpy()
    match, p_same = turns["match"].to_numpy(float), turns["p_same"].to_numpy(float)
    sentence_match = turns["sentence_match"].to_numpy(float)
    sys_text, human = turns["system"].tolist(), turns["human"].tolist()
    bleu = {k: crslab_bleu(sys_text, human, k) for k in (2, 4)}
    grams = {k: [crslab_ngrams(t, k) for t in sys_text] for k in (2, 4)}

    def counted_mean(values):
        return lambda idx: (
            float(values[idx][counted[idx]].mean()) if counted[idx].any() else float("nan")
        )

    def distinct(k):
        return lambda idx: len(frozenset().union(*(grams[k][i] for i in idx))) / len(idx)

    return {
        "explicit_ba_counted": counted_mean(match),
        "explicit_ba_sentences": counted_mean(sentence_match),
        "implicit_ba": counted_mean(p_same),
        "crslab_bleu2": lambda idx: float(bleu[2][idx].mean()),
        "crslab_bleu4": lambda idx: float(bleu[4][idx].mean()),
        "crslab_dist2": distinct(2),
        "crslab_dist4": distinct(4),
    }


def quality_curve(
    ideal: pd.DataFrame,
    worst: pd.DataFrame,
    turns: Callable[[pd.DataFrame], pd.DataFrame],
    fractions: Sequence[float] = FRACTIONS,
    seed: int = 0,
    n_boot: int = 200,
) -> pd.DataFrame:
    """Each metric of each mixture (``turns(responses)`` gives its per-turn table), unscaled, with a 95 %
    percentile band from resampling dialogues (the same resamples for every mixture and metric)."""
    from crseval.stats.bootstrap import percentile_interval, resample_blocks

    rows = []
    for p in fractions:
        t = turns(mix(ideal, worst, p, seed)).reset_index(drop=True)
        dialogue_rows = list(t.groupby("dialogue", sort=True).indices.values())
        rng = np.random.default_rng(seed)
        draws = [
            np.concatenate([dialogue_rows[d] for d in resample])
            for block in resample_blocks(len(dialogue_rows), n_boot, rng)
            for resample in block
        ]
        everything = np.arange(len(t))
        for name, stat in curve_statistics(t).items():
            lo, hi = (
                percentile_interval(np.array([stat(idx) for idx in draws]))
                if name not in UNBANDED
                else (float("nan"), float("nan"))
            )
            rows.append(
                {
                    "worst_share": p,
                    "metric": name,
                    "value": stat(everything),
                    "ci_lo": lo,
                    "ci_hi": hi,
                }
            )
    return pd.DataFrame(rows)


def plot_quality_curve(curve: pd.DataFrame, path: Path) -> Path:
    """Figure 3 as the paper drew it: one panel per metric, its unscaled value against the share of turns
    the worst system answers, with the bootstrap band."""
    from crseval.plotting import plt, save, style

    style()
    names = list(dict.fromkeys(curve["metric"]))
    cols = min(3, len(names))
    rows = -(-len(names) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.9 * rows), squeeze=False)
    for ax, name in zip(axes.flat, names):
        g = curve[curve["metric"] == name]
        x = g["worst_share"] * 100
        ax.plot(x, g["value"], marker="o", ms=3)
        ax.fill_between(x, g["ci_lo"], g["ci_hi"], alpha=0.25, lw=0)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("worst system's share of turns (%)", fontsize=8)
    for ax in list(axes.flat)[len(names) :]:
        ax.set_visible(False)
    fig.tight_layout()
    save(fig, path)
    return path
