"""Arena figures: ratings with CIs per vote set, and the win-probability matrix."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from crseval.plotting import OKABE_ITO, plt, save, style


def plot_ratings(ratings: pd.DataFrame, path: Path) -> Path:
    style()
    sets = list(dict.fromkeys(ratings["vote_set"]))
    order = ratings[ratings["vote_set"] == sets[-1]].sort_values("bt")["system"].tolist()
    order += sorted(set(ratings["system"]) - set(order))
    fig, ax = plt.subplots(figsize=(6.4, 0.42 * len(order) + 1.4))
    step = 0.8 / len(sets)
    for k, name in enumerate(sets):
        t = ratings[ratings["vote_set"] == name].set_index("system").reindex(order)
        y = np.arange(len(order)) + (k - (len(sets) - 1) / 2) * step
        color = OKABE_ITO[k % len(OKABE_ITO)]
        if "bt_lo" in t:
            err = np.array(
                [(t["bt"] - t["bt_lo"]).clip(lower=0), (t["bt_hi"] - t["bt"]).clip(lower=0)]
            )
            ax.errorbar(
                t["bt"],
                y,
                xerr=np.nan_to_num(err),
                fmt="o",
                color=color,
                capsize=2,
                label=f"{name}: BT",
            )
        else:
            ax.plot(t["bt"], y, "o", color=color, label=f"{name}: BT")
        ax.plot(t["elo"], y, "D", mfc="none", color=color, ms=5, label=f"{name}: Elo")
    ax.axvline(1000, color="#999999", lw=0.8)
    ax.set_yticks(range(len(order)), order)
    ax.set_xlabel("rating (Elo scale; Bradley–Terry with 95 % CI)")
    ax.set_title("Arena ratings")
    ax.legend(fontsize=7, loc="lower right")
    return save(fig, path)


def plot_win_probability(wins: pd.DataFrame, path: Path, name: str) -> Path:
    style()
    m = wins.pivot(index="system", columns="opponent", values="p_win")
    order = m.mean(axis=1).sort_values(ascending=False).index
    m = m.loc[order, order]
    fig, ax = plt.subplots(figsize=(0.6 * len(order) + 2.4, 0.5 * len(order) + 1.6))
    im = ax.imshow(m.to_numpy(float), cmap="RdBu", vmin=0, vmax=1)
    for i in range(len(order)):
        for j in range(len(order)):
            if i != j:
                ax.text(j, i, f"{m.iat[i, j]:.2f}", ha="center", va="center", fontsize=7)
    ax.set_xticks(range(len(order)), order, rotation=40, ha="right")
    ax.set_yticks(range(len(order)), order)
    ax.grid(False)
    fig.colorbar(im, ax=ax, label="P(row beats column)")
    ax.set_title(f"Win probability ({name})")
    return save(fig, path)
