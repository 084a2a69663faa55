"""The reliability table and the full analysis of a ratings set (QC → table → structure → power),
written into a run directory with its figures and report section."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from crseval.core.errors import CrsevalError
from crseval.core.types import Ratings
from crseval.reliability.alpha import alpha
from crseval.reliability.crossed import crossed_reliability
from crseval.reliability.icc import interpret, oneway_anova, oneway_reml
from crseval.reliability.power import min_detectable_icc, power_icc
from crseval.reliability.qc import QCReport, raters_per_item_distribution
from crseval.reliability.structure import plot_structure, structure
from crseval.core.output import Output


def dimension_row(d: pd.DataFrame, *, ci: str = "none", n_boot: int = 0, seed: int = 0) -> dict:
    """One dimension's row. ``ci``: "profile" (profile-likelihood intervals for Rel_single and Rel_k, an
    item bootstrap of ``n_boot`` resamples for α), "bootstrap" (parametric bootstrap for the crossed model,
    variance components included) or "none"."""
    y, items, raters = d["value"].to_numpy(float), d["item"].to_numpy(), d["rater"].to_numpy()
    reml, anova = oneway_reml(y, items), oneway_anova(y, items)
    cr = crossed_reliability(y, items, raters, ci=ci, n_boot=n_boot, seed=seed)
    a_ord = alpha(y, items, raters, "ordinal", n_boot=n_boot if ci != "none" else 0, seed=seed)
    a_int = alpha(y, items, raters, "interval")
    row = {
        "n_items": len(set(items)),
        "n_raters": len(set(raters)),
        "n_ratings": len(y),
        "k": round(cr.k, 3),
        "icc1": reml.icc1,
        "icc1_anova": anova.icc1,
        "icc1_k": reml.icc1k,
        "icc1_k_anova": anova.icc1k,
        "var_item": cr.var_item,
        "var_rater": cr.var_rater,
        "var_resid": cr.var_resid,
        "rel_single": cr.rel_single,
        "rel_k": cr.rel_k,
        "alpha_ordinal": a_ord[0],
        "alpha_interval": a_int[0],
        "interpretation": interpret(cr.rel_k),
    }
    for name, (lo, hi) in cr.ci.items():
        row[f"{name}_lo"], row[f"{name}_hi"] = lo, hi
    if ci != "none" and n_boot:
        row["alpha_ordinal_lo"], row["alpha_ordinal_hi"] = a_ord[1], a_ord[2]
    for name in ("icc1", "icc1_k", "rel_single", "alpha_ordinal"):
        row[f"{name}_band"] = interpret(row[name])
    return row


def reliability_table(
    ratings: Ratings,
    dims: Sequence[str] | None = None,
    *,
    ci: str = "none",
    n_boot: int = 0,
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
) -> pd.DataFrame:
    """One row per dimension, sorted by Rel_k (best first); Koo & Li bands next to each coefficient. The
    fits are thousands of small factorisations: BLAS threads only add overhead there, so they are held at 1."""
    from threadpoolctl import threadpool_limits

    rows = []
    groups = dict(tuple(ratings.data.groupby("dimension", sort=False)))
    for dim in dims or ratings.dimensions:
        if dim not in groups:
            raise CrsevalError(
                f"no dimension {dim!r}", field="dims", expected="one of " + ", ".join(groups)
            )
        n_items, n_ratings = groups[dim]["item"].nunique(), len(groups[dim])
        if n_items < 2 or n_ratings <= n_items:
            raise CrsevalError(
                f"dimension {dim!r} has {n_ratings} ratings of {n_items} items",
                field=dim,
                expected="at least two items, one of them rated more than once",
            )
        if groups[dim]["value"].nunique() < 2:
            raise CrsevalError(
                f"dimension {dim!r}: every rating is {groups[dim]['value'].iloc[0]:g} — no variance "
                "to split between items and raters",
                field=dim,
                fix="leave the dimension out, or collect ratings that differ",
            )
        with threadpool_limits(1, user_api="blas"):
            rows.append(
                {"dimension": dim, **dimension_row(groups[dim], ci=ci, n_boot=n_boot, seed=seed)}
            )
        if progress:
            progress(1)
    return pd.DataFrame(rows).sort_values("rel_k", ascending=False).reset_index(drop=True)


def plot_power(
    path: Path,
    observed_icc: float,
    k_values: Sequence[int] = (2, 3, 5, 8),
    alpha: float = 0.05,
    power: float = 0.8,
) -> Path:
    from crseval.plotting import plt, save, style

    style()
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    n = np.arange(10, 401, 5)
    for k in k_values:
        ax.plot(n, min_detectable_icc(n, k, alpha=alpha, power=power), label=f"k = {k} raters")
    if np.isfinite(observed_icc):
        ax.axhline(
            observed_icc,
            color="#333333",
            ls="--",
            lw=1,
            label=f"median observed ICC(1) = {observed_icc:.2f}",
        )
    ax.set_xlabel("number of rated items (dialogues)")
    ax.set_ylabel("minimum detectable ICC(1)")
    ax.set_title(f"Detectable ICC vs 0 (α = {alpha:g}, power = {power:g}; Walter et al. 1998)")
    ax.legend(fontsize=8)
    save(fig, path)
    return path


# what the reliability table computes; the settings (ci, n_boot, seed, drop_flagged) are signed from the config
METHOD = "icc1+icc1k(REML,k=harmonic)|crossed(REML,item×rater)|alpha(ordinal,interval)"


def analyze(
    qc: QCReport,
    *,
    dims: Sequence[str] | None = None,
    ci: str = "profile",
    n_boot: int = 200,
    seed: int = 0,
    n_clusters: int = 3,
    progress: Callable[[str, int], Callable[[int], None]] | None = None,
) -> Output:
    """Quality-controlled ratings (:func:`crseval.reliability.qc.quality_control`) → reliability table
    (``reliability``) → structure → power: tables, figures and a report section."""
    out = Output()
    data = qc.ratings
    dims = list(dims or data.dimensions)
    table = reliability_table(
        data,
        dims,
        ci=ci,
        n_boot=n_boot,
        seed=seed,
        progress=progress("reliability per dimension", len(dims)) if progress else None,
    )
    out.table("reliability", table)
    out.table("reliability_qc", pd.DataFrame([qc.counts]))
    out.table("reliability_flagged_raters", qc.flagged)
    out.table("reliability_raters_per_item", raters_per_item_distribution(data))
    if len(dims) >= 2:
        _structure(out, data, dims, n_clusters)
    med = float(np.nanmedian(table["icc1"]))
    out.figure(
        "reliability_power",
        lambda path: plot_power(path, med),
        "The smallest ICC(1) a design can tell from 0 (α = .05 one-sided, power "
        ".8) as the number of rated items grows, for 2–8 raters per item; dashed: the median observed",
    )
    _section(out, qc, table, med)
    return out


def _structure(out: Output, data: Ratings, dims: list[str], n_clusters: int) -> None:
    s = structure(data, dims, n_clusters=n_clusters)
    out.table("reliability_correlations", s.correlations.round(4).reset_index(names="dimension"))
    out.table(
        "reliability_clusters", s.clusters.reset_index().rename(columns={"index": "dimension"})
    )
    out.figure(
        "reliability_structure",
        lambda path: plot_structure(s, path),
        "Spearman correlations between the dimensions' item mean scores, "
        "ordered by hierarchical clustering: blocks of dimensions that carry one signal",
    )


def _section(out: Output, qc: QCReport, table: pd.DataFrame, med: float) -> None:
    k = int(round(float(np.nanmedian(table["k"]))))
    n = int(table["n_items"].max())
    out.section(
        "Reliability of judgments",
        f"{qc.counts['ratings retained']} ratings of {qc.counts['items retained']} items by "
        f"{qc.counts['raters retained']} raters ({qc.counts['gold items excluded']} gold items excluded, "
        f"{qc.counts['raters flagged']} raters flagged). ICC(1) and ICC(1,k) from the one-way REML model; "
        f"Rel_single and Rel_k from the crossed item × rater REML model (k = harmonic mean raters per item); "
        f"bands after Koo & Li (2016). With n = {n} items and k = {k}, the power to detect the median ICC(1) "
        f"= {med:.2f} against 0 is {power_icc(n, max(k, 2), min(max(med, 1e-6), 0.99)):.2f}.",
        tables=[
            "reliability",
            "reliability_qc",
            "reliability_flagged_raters",
            "reliability_raters_per_item",
            "reliability_clusters",
        ],
        figures=["reliability_structure", "reliability_power"],
    )
