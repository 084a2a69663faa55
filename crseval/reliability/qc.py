"""Quality control of ratings before reliability analysis.

Gold (quality-control) items are excluded from the analysis. Raters are *flagged* when they rate a
known-bad gold item as good (mean rating of the gold item ≥ ``bad_gold_threshold``), fail an
attention check, or finish implausibly fast (median time below ``min_seconds``); flagged raters
are removed only when ``drop_flagged`` is set. The report counts what was kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from crseval.core.types import Ratings
from crseval.stats.design import harmonic_k


@dataclass
class QCReport:
    ratings: Ratings  # what the analysis uses
    flagged: pd.DataFrame  # rater, reason
    counts: dict[str, float] = field(default_factory=dict)


def _gold_flags(ratings: Ratings, gold_items: list[str], threshold: float) -> list[tuple[str, str]]:
    """(rater, reason) for each rater who rated a known-bad gold item as good."""
    g = (
        ratings.data[ratings.data["item"].isin(gold_items)]
        .groupby(["rater", "item"])["value"]
        .mean()
    )
    return [
        (rater, f"rated known-bad gold item {item} as good (mean {v:.2f} ≥ {threshold:g})")
        for (rater, item), v in g.items()
        if v >= threshold
    ]


def quality_control(
    ratings: Ratings,
    *,
    gold_items: list[str] | None = None,
    bad_gold_threshold: float = 3.0,
    attention_col: str | None = None,
    time_col: str | None = None,
    min_seconds: float | None = None,
    drop_flagged: bool = False,
) -> QCReport:
    extra = ratings.extra if ratings.extra is not None else pd.DataFrame(columns=["item", "rater"])
    if gold_items is None and "gold" in extra:
        gold_items = sorted(extra.loc[extra["gold"].astype(bool), "item"].unique())
    gold_items = list(gold_items or [])
    flags = _gold_flags(ratings, gold_items, bad_gold_threshold) if gold_items else []
    if attention_col and attention_col in extra:
        failed = extra[
            ~extra[attention_col]
            .astype(str)
            .str.lower()
            .isin(["1", "true", "pass", "passed", "yes"])
        ]
        flags += [(r, f"failed attention check {attention_col}") for r in failed["rater"].unique()]
    if time_col and min_seconds is not None and time_col in extra:
        med = pd.to_numeric(extra[time_col], errors="coerce").groupby(extra["rater"]).median()
        flags += [
            (r, f"median {time_col} {t:.0f} s < {min_seconds:g} s")
            for r, t in med.items()
            if t < min_seconds
        ]
    flagged = pd.DataFrame(flags, columns=["rater", "reason"]).drop_duplicates()
    keep = ratings.subset(items=[i for i in ratings.items if i not in set(gold_items)])
    if drop_flagged and len(flagged):
        keep = keep.subset(raters=[r for r in keep.raters if r not in set(flagged["rater"])])
    per_item = keep.raters_per_item()
    counts = {
        "gold items excluded": len(gold_items),
        "raters flagged": int(flagged["rater"].nunique()),
        "raters retained": len(keep.raters),
        "items retained": len(keep.items),
        "ratings retained": len(keep),
        "raters per item (min)": int(per_item.min()),
        "raters per item (max)": int(per_item.max()),
        "harmonic mean k": round(
            harmonic_k(keep.data[["item", "rater"]].drop_duplicates()["item"]), 3
        ),
    }
    return QCReport(keep, flagged, counts)


def raters_per_item_distribution(ratings: Ratings) -> pd.DataFrame:
    k = ratings.raters_per_item()
    return k.value_counts().sort_index().rename_axis("raters per item").reset_index(name="items")


__all__ = ["QCReport", "quality_control", "raters_per_item_distribution"]
