"""Significance tests shared by every comparison: one-way ANOVA (F, degrees of freedom, p, η²) with
Tukey HSD (``crseval.stats.tukey``: statsmodels' ``pairwise_tukeyhsd`` table, faster), the two-sample
tests ``compare`` chooses between, and the Wilcoxon signed-rank p of paired errors."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from crseval.stats.tukey import TUKEY_COLUMNS, tukey_hsd

__all__ = ["TUKEY_COLUMNS", "Anova", "anova_tukey", "paired_or_welch", "wilcoxon_p"]


@dataclass
class Anova:
    F: float
    p: float
    df_between: float
    df_within: float
    eta_squared: float
    n: int
    tukey: pd.DataFrame  # one row per pair of groups (TUKEY_COLUMNS)
    note: str = ""  # why the test could not run, when it could not


def anova_tukey(values, groups) -> Anova:
    """One-way ANOVA and Tukey HSD over the groups that have at least two finite values. Needs two such
    groups and some variation within groups; otherwise every number is NaN and ``note`` says why."""
    d = pd.DataFrame({"y": np.asarray(values, float), "g": np.asarray(groups).astype(str)})
    d = d[np.isfinite(d["y"])]
    d = d[d.groupby("g")["y"].transform("size") >= 2]
    if d["g"].nunique() < 2 or not (d.groupby("g")["y"].var() > 0).any():
        return Anova(
            np.nan,
            np.nan,
            np.nan,
            np.nan,
            np.nan,
            len(d),
            pd.DataFrame(columns=TUKEY_COLUMNS),
            "needs ≥ 2 groups with ≥ 2 values and variation within groups",
        )
    samples = [g["y"].to_numpy() for _, g in d.groupby("g", sort=True)]
    res = stats.f_oneway(*samples)
    grand = d["y"].mean()
    ss_between = sum(len(s) * (s.mean() - grand) ** 2 for s in samples)
    ss_total = float(((d["y"] - grand) ** 2).sum())
    tukey = tukey_hsd(d["y"].to_numpy(float), d["g"].to_numpy(str))
    return Anova(
        float(res.statistic),
        float(res.pvalue),
        float(len(samples) - 1),
        float(len(d) - len(samples)),
        ss_between / ss_total if ss_total > 0 else np.nan,
        len(d),
        tukey,
    )


def paired_or_welch(a, b, paired: bool) -> tuple[str, float, float]:
    """(test name, statistic, p): a paired t-test on the pairs where both are finite, else Welch's t-test.
    Where the differences (paired) or both samples (Welch) do not vary beyond rounding, t is ±inf and p 0
    for a difference, no t for none — what scipy returns for exactly constant values; on values equal but
    for rounding scipy warned of precision loss and returned a t of ~1e16."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    if paired:
        ok = np.isfinite(a) & np.isfinite(b)
        a, b, name = a[ok], b[ok], f"paired t (n={int(ok.sum())})"
        if len(a) < 2:
            return name, np.nan, np.nan
        if _constant(a - b, scale=(a, b)):
            return (name, *_certain(float(np.mean(a - b)), scale=(a, b)))
        t = stats.ttest_rel(a, b)
        return name, float(t.statistic), float(t.pvalue)
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    if min(len(a), len(b)) < 2:
        return "Welch t", np.nan, np.nan
    if _constant(a, scale=(a, b)) and _constant(b, scale=(a, b)):
        return ("Welch t", *_certain(float(np.mean(a) - np.mean(b)), scale=(a, b)))
    t = stats.ttest_ind(a, b, equal_var=False)
    return "Welch t", float(t.statistic), float(t.pvalue)


def _tolerance(scale) -> float:
    """Rounding's reach for values of the size of ``scale``'s."""
    return 1e-12 * max(1.0, *(float(np.max(np.abs(x))) for x in scale))


def _constant(x: np.ndarray, scale) -> bool:
    return float(np.ptp(x)) <= _tolerance(scale)


def _certain(difference: float, scale) -> tuple[float, float]:
    """(t, p) of a difference with no spread: ±inf and 0, or none where there is no difference."""
    if abs(difference) <= _tolerance(scale):
        return np.nan, np.nan
    return float(np.copysign(np.inf, difference)), 0.0


def wilcoxon_p(x, y) -> float:
    """``scipy.stats.wilcoxon(x, y).pvalue`` (two-sided, zeros dropped). Where scipy runs its exact
    permutation test — at most 13 pairs with tied or zero differences — it evaluates the statistic once per
    sign assignment in Python (~1.4 s a call); here the same null distribution (the rank sum of the
    positive differences over every sign assignment) is one matrix product, and the p is computed as
    ``scipy.stats.permutation_test`` computes an exact one. Checked against scipy in
    ``tests/stats/test_tests.py``."""
    d = np.asarray(x, float) - np.asarray(y, float)
    nonzero = d[d != 0]
    ties = len(np.unique(np.abs(nonzero))) < len(nonzero)
    if len(d) > 13 or not len(nonzero) or not (ties or len(nonzero) < len(d)):
        return float(stats.wilcoxon(x, y).pvalue)
    ranks = stats.rankdata(np.abs(nonzero))
    flips = (np.arange(2 ** len(nonzero))[:, None] >> np.arange(len(nonzero))) & 1
    null = flips @ ranks  # every sign assignment: which differences are positive (a zero stays out)
    observed = ranks[nonzero > 0].sum()
    gamma = abs(np.finfo(float).eps * 100 * observed)
    less, greater = np.mean(null <= observed + gamma), np.mean(null >= observed - gamma)
    return float(np.clip(2 * min(less, greater), 0.0, 1.0))
