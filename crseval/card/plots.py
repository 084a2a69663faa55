"""The card's figure: the CRS minus each reference per metric, with 95 % CIs (a forest plot)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from crseval.plotting import GREY, OKABE_ITO, plt, save, style


def oriented(comparisons: pd.DataFrame) -> pd.DataFrame:
    """Differences signed so that right is better for every metric: a lower-is-better metric's difference
    (and CI) negated and its label saying so; a metric without a direction kept and marked."""
    from crseval.core.registry import find_metric

    out = comparisons.copy()
    higher = [spec.higher_is_better if (spec := find_metric(m)) else None for m in out["metric"]]
    flip = np.array([h is False for h in higher])
    out.loc[flip, ["diff", "diff_lo", "diff_hi"]] = -out.loc[
        flip, ["diff", "diff_hi", "diff_lo"]
    ].to_numpy()
    out["label"] = [
        f"{lab} (lower is better: sign flipped)"
        if h is False
        else f"{lab} (no direction)"
        if h is None
        else lab
        for lab, h in zip(out["label"], higher)
    ]
    return out


def plot_differences(comparisons: pd.DataFrame, system: str, path: Path) -> None:
    style()
    comparisons = oriented(comparisons)
    labels = list(dict.fromkeys(comparisons["label"]))
    refs = list(dict.fromkeys(comparisons["reference"]))
    fig, ax = plt.subplots(figsize=(6.4, 0.45 * len(labels) * max(1, len(refs)) ** 0.5 + 1.2))
    step = 0.7 / max(1, len(refs))
    for k, (ref, color) in enumerate(zip(refs, OKABE_ITO)):
        d = comparisons[comparisons["reference"] == ref].set_index("label").reindex(labels)
        y = np.arange(len(labels)) + (k - (len(refs) - 1) / 2) * step
        err = np.vstack([d["diff"] - d["diff_lo"], d["diff_hi"] - d["diff"]])
        ax.errorbar(
            d["diff"],
            y,
            xerr=np.nan_to_num(err),
            fmt="o",
            color=color,
            label=f"vs {ref}",
            capsize=2,
            markersize=4,
        )
    ax.axvline(0, color=GREY, lw=0.8)
    ax.set_yticks(np.arange(len(labels)), labels)
    ax.invert_yaxis()
    ax.set_xlabel(f"← worse    {system} against the reference (95 % CI)    better →")
    ax.legend(  # above the axes: never over a point
        fontsize=8,
        loc="lower center",
        bbox_to_anchor=(0.5, 1.0),
        ncol=max(1, len(refs)),
        frameon=False,
    )
    save(fig, path)


def plot_criterion(table: pd.DataFrame, path: Path, bars: tuple[float, float]) -> None:
    """Two panels, a row per metric: the AUC for the users' label and the battles the metric agrees with,
    each with its bar (dashed)."""
    style()
    labels = [
        f"{lab}{'' if card else ' (not on the card)'}"
        for lab, card in zip(table["label"], table["on_card"])
    ]
    y = np.arange(len(table))
    fig, axes = plt.subplots(1, 2, figsize=(8.4, 0.4 * len(table) + 1.4), sharey=True)
    for ax, col, bar, title in zip(
        axes,
        ("label_auc", "vote_agreement"),
        bars,
        ("AUC for the users' own label", "battles: prefers the voted CRS"),
    ):
        err = np.vstack([table[col] - table[f"{col}_lo"], table[f"{col}_hi"] - table[col]])
        ax.errorbar(
            table[col],
            y,
            xerr=np.nan_to_num(err),
            fmt="o",
            color=OKABE_ITO[0],
            capsize=2,
            markersize=4,
        )
        ax.axvline(0.5, color=GREY, lw=0.8, ls=":")
        ax.axvline(bar, color=GREY, lw=0.8, ls="--")
        ax.set_xlim(0, 1)
        ax.set_xlabel(title)
    axes[0].set_yticks(y, labels)
    axes[0].invert_yaxis()
    save(fig, path)
