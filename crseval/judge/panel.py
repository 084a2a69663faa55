"""A panel of LLM judges (several models and/or repeated samples at temperature > 0) treated as
raters: the reliability analysis applies unchanged, plus each judge's agreement with the human
mean and the reliability of the mean of n judges as n grows."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.metrics import cohen_kappa_score

from crseval.core.types import Ratings
from crseval.reliability.icc import oneway_reml


def panel_ratings(
    records: Sequence[dict], aspect: str, scale: tuple[float, float] = (1, 5)
) -> Ratings:
    """Successful ratings of one aspect as a Ratings table; raters are ``judge#sample``."""
    rows = [
        (r["item"], f"{r['judge']}#s{r['sample']}", aspect, r["score"])
        for r in records
        if r["aspect"] == aspect and r["score"] is not None
    ]
    return Ratings(
        pd.DataFrame(rows, columns=["item", "rater", "dimension", "value"]),
        scale,
        f"panel:{aspect}",
    )


def judge_agreement(
    records: Sequence[dict],
    human: pd.Series,
    aspect: str,
    *,
    human_scale: tuple[float, float] | None = None,
) -> pd.DataFrame:
    """Per judge (mean over its samples): Pearson and Spearman with the human mean; quadratic-weighted
    Cohen's κ on rounded scores when the human labels use the judge's 1–5 scale."""
    df = pd.DataFrame([r for r in records if r["aspect"] == aspect and r["score"] is not None])
    rows = []
    for judge, grp in df.groupby("judge"):
        s = grp.groupby("item")["score"].mean()
        both = pd.concat([s.rename("judge"), human.rename("human")], axis=1, join="inner").dropna()
        row = {"judge": judge, "aspect": aspect, "n": len(both)}
        if len(both) >= 3 and both["judge"].nunique() > 1 and both["human"].nunique() > 1:
            row["pearson"] = float(stats.pearsonr(both["judge"], both["human"])[0])
            row["spearman"] = float(stats.spearmanr(both["judge"], both["human"])[0])
            if human_scale == (1, 5):
                row["kappa_quadratic"] = float(
                    cohen_kappa_score(
                        np.rint(both["judge"]).astype(int),
                        np.rint(both["human"]).astype(int),
                        weights="quadratic",
                    )
                )
        rows.append(row)
    return pd.DataFrame(rows)


def mean_of_n(
    ratings: Ratings, human: pd.Series, *, n_subsets: int = 50, seed: int = 0
) -> pd.DataFrame:
    """How reliable is the mean of n judges? Spearman–Brown from the panel's ICC(1) and, empirically,
    the Pearson correlation of the mean of n randomly chosen raters with the human mean."""
    wide = ratings.wide(ratings.dimensions[0])
    d = ratings.dimension(ratings.dimensions[0])
    icc = oneway_reml(d["value"], d["item"]).icc1 if wide.shape[1] > 1 else float("nan")
    rng = np.random.default_rng(seed)
    rows = []
    for n in range(1, wide.shape[1] + 1):
        corrs = []
        for _ in range(n_subsets if n < wide.shape[1] else 1):
            cols = rng.choice(wide.columns, size=n, replace=False)
            m = wide[cols].mean(axis=1)
            both = pd.concat([m.rename("m"), human.rename("h")], axis=1, join="inner").dropna()
            if len(both) >= 3 and both["m"].nunique() > 1 and both["h"].nunique() > 1:
                corrs.append(stats.pearsonr(both["m"], both["h"])[0])
        rows.append(
            {
                "n_judges": n,
                "spearman_brown_icc": n * icc / (1 + (n - 1) * icc) if np.isfinite(icc) else np.nan,
                "pearson_with_human": float(np.mean(corrs)) if corrs else np.nan,
            }
        )
    return pd.DataFrame(rows)
