"""One figure style for every plot (colour-blind-safe Okabe–Ito palette, labelled axes, CIs drawn) and one
way to save a figure. Below every capability: capabilities draw, the report only embeds."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
GREY = "#999999"

__all__ = ["GREY", "OKABE_ITO", "bar_with_ci", "plt", "save", "style"]


def style() -> None:
    plt.rcParams.update(
        {
            "axes.prop_cycle": matplotlib.cycler(color=OKABE_ITO),
            "figure.dpi": 110,
            "savefig.dpi": 150,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "font.size": 10,
            "axes.titlesize": 11,
            "savefig.bbox": "tight",
        }
    )


def save(fig, path: str | Path) -> Path:
    """Save ``fig`` as ``path`` (PNG, for the report) and beside it as PDF (vector, for a paper), then close
    it (figures are never left open between jobs)."""
    fig.savefig(path)
    fig.savefig(Path(path).with_suffix(".pdf"))
    plt.close(fig)
    return Path(path)


def bar_with_ci(
    labels,
    values,
    lower=None,
    upper=None,
    *,
    ylabel: str,
    title: str,
    path: Path,
    colors: list[str] | None = None,
) -> Path:
    """Bars with asymmetric error bars from (lower, upper) confidence bounds (none when not given)."""
    style()
    fig, ax = plt.subplots(figsize=(max(4.0, 0.55 * len(labels) + 1.5), 3.4))
    err = None
    if lower is not None and upper is not None:
        err = [
            [max(0.0, v - lo) for v, lo in zip(values, lower)],
            [max(0.0, hi - v) for v, hi in zip(values, upper)],
        ]
    ax.bar(
        range(len(labels)),
        values,
        color=colors or OKABE_ITO[0],
        yerr=err,
        capsize=3,
        ecolor="#333333",
    )
    ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    return save(fig, path)
