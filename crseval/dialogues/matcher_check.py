"""How far the title matcher can be trusted: its precision and recall on labelled mentions.

ReDial marks every movie as ``@id`` and INSPIRED lists the movies of each utterance. Two readings:

* ``title`` — each labelled mention's own title string ("American Pie ", "Police Academy  (1984)")
  grounded with :meth:`TitleMatcher.match_title`: is the item found the labelled one?
* ``text`` — the utterance text as a reader sees it (titles written out) read with
  :meth:`TitleMatcher.find`: are the items found the labelled ones (precision), and are the labelled
  ones found (recall)? Spans it leaves out of catalogue in utterances whose labelled items are all in
  the catalogue are false "out-of-catalogue" flags.

With ReDial's own movie table the labelled item is the ``@id``; with another catalogue, a mention is
correct when its title key and year agree.
"""

from __future__ import annotations

import pandas as pd

from crseval.core.registry import register_metric
from crseval.data.any_dialogues import DialogueSource
from crseval.dialogues.metrics import C
from crseval.text.titles import TitleMatcher, title_key

register_metric(
    "matcher_precision",
    "Items the title matcher found that are the labelled ones",
    label="matcher precision",
    capability=C,
    scale="0–1",
    tables=["dialogue_matcher"],
)
register_metric(
    "matcher_recall",
    "Labelled (in-catalogue) mentions the title matcher found",
    label="matcher recall",
    capability=C,
    scale="0–1",
    tables=["dialogue_matcher"],
)


def _gold(u, matcher: TitleMatcher, by_id: bool) -> list[str | None]:
    """The labelled identity of each mention of ``u`` (None: not in the catalogue)."""
    ids = u.metadata.get("mention_ids") or [None] * len(u.items)
    out = []
    for title, mid in zip(u.items, ids):
        if by_id and mid is not None:
            out.append(mid if mid in matcher.items else None)
        else:
            key = title_key(title)
            out.append(key if key[0] in matcher.by_key else None)
    return out


def _same(item_id: str | None, gold: object, matcher: TitleMatcher, by_id: bool) -> bool:
    """Is the item found the labelled one (its id; or its title key, and its year within one)?"""
    if item_id is None or by_id:
        return item_id is not None and item_id == gold
    key, year = gold
    other = matcher.items[item_id]
    return title_key(other.title)[0] == key and (
        year is None or other.get("year") is None or abs(other.get("year") - year) <= 1
    )


def matcher_check(source: DialogueSource, matcher: TitleMatcher, by_id: bool) -> pd.DataFrame:
    """One row per reading (``title``, ``text``) over every labelled utterance of ``source``."""
    t = {"mentions": 0, "in_catalogue": 0, "found": 0, "correct": 0, "fuzzy": 0, "ambiguous": 0}
    x = {
        "mentions": 0,
        "in_catalogue": 0,
        "found": 0,
        "correct": 0,
        "false_out_of_catalogue": 0,
        "utterances": 0,
    }
    for sd in source.dialogues:
        for u in sd.dialogue.utterances:
            if not u.items:
                continue
            gold = _gold(u, matcher, by_id)
            t["mentions"] += len(gold)
            for title, g in zip(u.items, gold):
                if g is None:
                    continue
                t["in_catalogue"] += 1
                m = matcher.match_title(title)
                t["found"] += m.item is not None
                t["correct"] += _same(m.item, g, matcher, by_id)
                t["fuzzy"] += m.how == "fuzzy"
                t["ambiguous"] += m.ambiguous
            wanted = {g for g in gold if g is not None}
            found = matcher.find(u.text)
            got = {m.item for m in found if m.item}
            if not by_id:  # compare title keys (a written year may be missing on either side)
                wanted, got = (
                    {g[0] for g in wanted},
                    {title_key(matcher.items[i].title)[0] for i in got},
                )
            x["utterances"] += 1
            x["mentions"] += len(gold)
            x["in_catalogue"] += len(wanted)
            x["found"] += len(got)
            x["correct"] += len(got & wanted)
            if len(wanted) == len(gold):
                x["false_out_of_catalogue"] += sum(m.item is None for m in found)
    rows = [
        {
            "reading": "title",
            **t,
            "matcher_precision": t["correct"] / t["found"] if t["found"] else float("nan"),
            "matcher_recall": t["correct"] / t["in_catalogue"]
            if t["in_catalogue"]
            else float("nan"),
        },
        {
            "reading": "text",
            **x,
            "matcher_precision": x["correct"] / x["found"] if x["found"] else float("nan"),
            "matcher_recall": x["correct"] / x["in_catalogue"]
            if x["in_catalogue"]
            else float("nan"),
        },
    ]
    return pd.DataFrame(rows)
