"""The per-system figure of ``dialogues metrics``: four metrics side by side with 95 % t-intervals."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from crseval.core.registry import label
from crseval.plotting import OKABE_ITO, plt, save, style

PANELS = ("out_of_catalogue_rate", "repetition_rate", "genre_diversity", "novelty")


def plot_systems(systems: pd.DataFrame, path: Path) -> Path:
    style()
    t = systems.sort_values("system")
    y = np.arange(len(t))
    fig, axes = plt.subplots(
        1, len(PANELS), figsize=(2.6 * len(PANELS) + 1.2, 0.4 * len(t) + 1.3), sharey=True
    )
    for k, (ax, m) in enumerate(zip(axes, PANELS)):
        v = t[m].to_numpy(float)
        err = np.nan_to_num(
            np.array([(v - t[f"{m}_lo"]).clip(lower=0), (t[f"{m}_hi"] - v).clip(lower=0)])
        )
        ax.errorbar(
            np.nan_to_num(v), y, xerr=err, fmt="o", color=OKABE_ITO[k % len(OKABE_ITO)], capsize=2
        )
        ax.set_title(label(m, "dialogues"), fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(y, t["system"])
    axes[0].invert_yaxis()
    return save(fig, path)
