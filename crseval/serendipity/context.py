"""What an evaluator may know about one answer of a user study, and nothing more.

The SerenEva protocol: an evaluator predicts what a user said about a recommended item *before* seeing
it. So everything an evaluator (an LLM prompt or a proxy metric) is given comes from here:

* **the past**: the items the user rated *strictly before* the target's timestamp (never the target,
  never an item rated at or after it); with their ratings, never their survey answers;
* **the item**: its title and genres (or category), and its popularity as the study defines it;
* **the user's traits** where the study publishes them (Taobao's curiosity and personality answers).

Never the user's reaction to the target (its rating, the survey statements, the label, a click or a
purchase): those are the study's ``outcomes`` and no evaluator input may be built from them.
Everything is computed on the *whole* study, so evaluating a sample of answers changes which answers
are scored, never what the evaluator knows about them.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from crseval.data.base import SerendipityStudy


def has_history(study: SerendipityStudy) -> bool:
    """Whether the study publishes a behaviour history at all (Taobao does not)."""
    return "history" not in study.unavailable and "timestamp" in study.answers


def history(study: SerendipityStudy, user: str, item: str, k: int) -> pd.DataFrame:
    """The last ``k`` items ``user`` rated strictly before rating ``item`` (an earlier timestamp: never the
    target, never an item rated at the same moment or after it), oldest first."""
    a = study.answers
    users = a["user"].to_numpy()
    match = np.flatnonzero((users == user) & (a["item"].to_numpy() == item))
    if not len(match) or k <= 0 or not has_history(study):
        return a.iloc[0:0]
    ts = a["timestamp"].to_numpy(float)
    t = ts[match[0]]
    if not np.isfinite(t):
        return a.iloc[0:0]
    before = np.flatnonzero((users == user) & (ts < t))
    return a.iloc[before[np.argsort(ts[before], kind="stable")][-k:]]


def item_text(study: SerendipityStudy, item: str, category: float | None = None) -> str:
    """How an evaluator is told about an item: title and genres; a category where the study has only that."""
    it = study.items.get(item)
    if it is not None:
        return f"{it.title} ({', '.join(it.get('genres', [])) or 'unknown genres'})"
    if category is not None and pd.notna(category):
        return f"a product of category {category:g} (the study publishes no item description)"
    return f"an item (id {item}, no description available)"


def genre_distance(
    study: SerendipityStudy, user: str, item: str, k: int, past_items: Sequence[str] | None = None
) -> float | None:
    """Minimum genre Jaccard distance of ``item`` to the last ``k`` items ``user`` rated before it (None when
    the item or that history has no genres); ``past_items``: that history's items, where already read."""
    g = set(study.items[item].get("genres", [])) if item in study.items else set()
    if past_items is None:
        past_items = history(study, user, item, k)["item"]
    past = [set(study.items[i].get("genres", [])) for i in past_items if i in study.items]
    ds = [1 - len(g & h) / len(g | h) for h in past if g | h]
    return min(ds) if g and ds else None


def popularity(study: SerendipityStudy) -> pd.Series | None:
    """Per item, the share of the study's users who rated it (the paper's popularity for Serendipity-2018,
    on the users the file holds); None where the study has no such measure (Taobao's HOT flag is not in
    the published file)."""
    if "popularity" in study.unavailable:
        return None
    a = study.answers
    return a.groupby("item")["user"].nunique() / a["user"].nunique()


def item_popularity(study: SerendipityStudy, item: str) -> float:
    """``popularity(study)`` of one item (0 where nobody rated it), without building the whole table: a
    prompt needs one item's (the table was built again for every prompt)."""
    users = study.answers["user"].to_numpy()
    return len(set(users[study.answers["item"].to_numpy() == item])) / len(set(users))
