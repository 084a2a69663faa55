"""Correlation structure of rating dimensions: which dimensions are really one signal?

Spearman correlations between dimensions of the item-level mean scores, hierarchical clustering
(Ward by default) on the distance √(2(1 − ρ)) — a Euclidean distance between standardised
rank profiles, as Ward's criterion needs — and a clustered heatmap with its dendrogram.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.cluster.hierarchy import dendrogram, fcluster, linkage
from scipy.spatial.distance import squareform

from crseval.core.types import Ratings


@dataclass
class Structure:
    correlations: pd.DataFrame  # dimension × dimension Spearman ρ
    linkage: np.ndarray
    order: list[str]  # leaf order of the dendrogram
    clusters: pd.Series  # dimension → cluster id (for n_clusters)


def item_means(ratings: Ratings, dims: list[str] | None = None) -> pd.DataFrame:
    d = ratings.data if dims is None else ratings.data[ratings.data["dimension"].isin(dims)]
    return d.pivot_table(index="item", columns="dimension", values="value", aggfunc="mean")


def structure(
    ratings: Ratings, dims: list[str] | None = None, *, method: str = "ward", n_clusters: int = 3
) -> Structure:
    means = item_means(ratings, dims)
    if means.shape[1] < 2:
        raise ValueError("structure needs at least two dimensions")
    corr = means.corr(method="spearman")
    dist = np.sqrt(np.clip(2 * (1 - corr.to_numpy()), 0, None))
    np.fill_diagonal(dist, 0.0)
    z = linkage(squareform(dist, checks=False), method=method)
    order = [corr.columns[i] for i in dendrogram(z, no_plot=True)["leaves"]]
    clusters = pd.Series(
        fcluster(z, t=min(n_clusters, len(corr)), criterion="maxclust"),
        index=corr.columns,
        name="cluster",
    )
    return Structure(corr, z, order, clusters)


def plot_structure(
    s: Structure, path: Path, title: str = "Spearman correlation of item mean scores"
) -> Path:
    from crseval.plotting import plt, save, style

    style()
    n = len(s.order)
    fig = plt.figure(figsize=(max(6, 0.42 * n + 3), max(5, 0.38 * n + 2)))
    ax_d = fig.add_axes([0.02, 0.1, 0.14, 0.75])
    dendrogram(
        s.linkage,
        orientation="left",
        labels=list(s.correlations.columns),
        ax=ax_d,
        no_labels=True,
        color_threshold=0,
        above_threshold_color="#555555",
    )
    ax_d.invert_yaxis()
    ax_d.axis("off")
    ax = fig.add_axes([0.17, 0.1, 0.55, 0.75])
    m = s.correlations.loc[s.order, s.order].to_numpy()
    vmin = min(0.5, float(np.floor(np.nanmin(m) * 10) / 10))  # contrast where the correlations are
    im = ax.imshow(m, cmap="cividis", vmin=vmin, vmax=1.0, aspect="auto")
    ax.set_xticks(range(n), s.order, rotation=60, ha="right", fontsize=8)
    ax.set_yticks(range(n), s.order, fontsize=8)
    ax.yaxis.tick_right()  # labels between heatmap and colour bar, clear of the dendrogram
    ax.grid(False)
    ax.set_title(title)
    cb = fig.add_axes([0.93, 0.1, 0.02, 0.75])
    fig.colorbar(im, cax=cb, label="Spearman ρ")
    save(fig, path)
    return path
