"""One figure style for every plot (colour-blind-safe Okabe–Ito palette, labelled axes, CIs drawn) and one
way to save a figure. Below every capability: capabilities draw, the report only embeds."""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
GREY = "#999999"

__all__ = ["GREY", "OKABE_ITO", "bar_with_ci", "figure_formats", "plt", "save", "style"]

VECTOR_FORMATS = ("pdf", "svg")


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


def figure_formats() -> list[str]:
    """The formats every figure is written in: PNG (the report embeds it) and the vector formats named by
    ``CRSEVAL_FIGURES`` (comma-separated from pdf, svg; default pdf, the one a paper includes; ``png``
    alone skips the vector copy, which costs about as much time as the PNG). ``none`` writes no figure at
    all — for sweeps where only the tables are read: rendering and saving is most of a figure's cost, and
    figures are most of a small run's time; the report then has its tables and no figures."""
    wanted = [f.strip().lower() for f in os.environ.get("CRSEVAL_FIGURES", "png,pdf").split(",")]
    if wanted == ["none"]:
        return []
    if bad := [f for f in wanted if f and f != "png" and f not in VECTOR_FORMATS]:
        from crseval.core.errors import ConfigError

        raise ConfigError(
            f"CRSEVAL_FIGURES names {', '.join(bad)}: figures are written as png and any of "
            f"{', '.join(VECTOR_FORMATS)}, or none at all (none, alone)"
        )
    return ["png", *[f for f in VECTOR_FORMATS if f in wanted]]


def save(fig, path: str | Path) -> Path:
    """Save ``fig`` as ``path`` (PNG, for the report) and beside it in each vector format of
    :func:`figure_formats` (PDF by default, for a paper; nothing under ``CRSEVAL_FIGURES=none``), then
    close it (figures are never left open between jobs)."""
    try:
        for fmt in figure_formats():
            fig.savefig(Path(path).with_suffix(f".{fmt}"))
    finally:
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
