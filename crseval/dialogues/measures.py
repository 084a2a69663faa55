"""What a CRS recommends inside a dialogue: grounding, out-of-catalogue rate, repetition, novelty,
diversity and the turn of the first recommendation — per system turn, per dialogue and per system.

Every title a system turn names counts as a recommendation (CRSs name items to offer them: of the
movies ReDial's recommenders introduce, its questionnaire marks 98 % as suggested, test split). A
recommendation *repeats* when its item was already named in the dialogue (by the user, or by the
system in an earlier turn) and is a *rejected repeat* when the user answered its earlier
recommendation with a rejection or "seen it".
*Novelty* is the self-information −log2 p of an item, p = (dialogues naming it + 1) / (dialogues + 1)
in the popularity reference. *Diversity* is the mean pairwise distance between the distinct grounded
items of a dialogue: Jaccard over genre sets, cosine over item-text embeddings.
"""

from __future__ import annotations

import math
from collections import Counter
from itertools import combinations
from typing import Callable

import numpy as np
import pandas as pd

from crseval.core.registry import register_metric
from crseval.core.types import Item, Turn
from crseval.data.any_dialogues import DialogueSource, SourcedDialogue
from crseval.dialogues.metrics import C
from crseval.text.reactions import refused
from crseval.text.titles import Mention, TitleMatcher, title_key


DIALOGUE_METRICS: list[str] = []  # the per-dialogue measures, in declaration order
BOUNDS: dict[str, tuple[float, float]] = {}  # a measure's range: its system mean gets a t-interval


def _measure(name: str, description: str, *, bounds: tuple[float, float] | None = None, **spec):
    """Declare a per-dialogue measure (``dialogue_table`` computes it): a column of the per-dialogue
    table and, as its mean over a system's dialogues, of the per-system one — with a 95 % t-interval
    clipped to ``bounds`` where the measure has them."""
    register_metric(
        name,
        description,
        capability=C,
        tables=["dialogue_metrics", *([] if bounds else ["dialogue_systems"])],
        tables_with_ci=["dialogue_systems"] if bounds else [],
        **spec,
    )
    DIALOGUE_METRICS.append(name)
    if bounds:
        BOUNDS[name] = bounds


# first: the system table sums it instead of averaging
_measure(
    "recommendations",
    "Titles the system names (every named title counts as a recommendation)",
    label="recommendations",
    higher_is_better=None,
    scale="count",
)


def _rate(name: str, description: str, label: str, **spec) -> None:
    """A per-dialogue share of recommendations (``_RATES`` says of which), lower is better."""
    _measure(name, description, label=label, higher_is_better=False, scale="share 0–1", **spec)


_rate(
    "out_of_catalogue_rate",
    "Share of named titles no catalogue item matches (possibly hallucinated)",
    "out-of-catalogue",
    bounds=(0, 1),
)
_rate(
    "repetition_rate",
    "Share of recommendations of an item already named in the dialogue (by the user, or by "
    "the system in an earlier turn)",
    "repetition",
    bounds=(0, 1),
)
_rate(
    "rejected_repeat_rate",
    "Share of recommendations re-offering an item the user rejected or had seen (a "
    "rejection or 'seen it' in the reply to its earlier recommendation)",
    "rejected repeats",
)
_measure(
    "novelty",
    "Mean self-information −log2 p of the grounded recommendations, p = (dialogues naming the item + 1)"
    " / (dialogues + 1) in the popularity reference",
    label="novelty (bits)",
    scale="bits",
    bounds=(0, np.inf),
)
_measure(
    "genre_diversity",
    "Mean pairwise Jaccard distance of the genre sets of a dialogue's distinct recommended items",
    label="genre diversity",
    scale="Jaccard distance 0–1",
    bounds=(0, 1),
)
_measure(
    "embedding_diversity",
    "Mean pairwise cosine distance of the item-text embeddings (title, genres, plot) of a "
    "dialogue's distinct recommended items",
    label="embedding diversity",
    scale="cosine distance",
    bounds=(0, 2),
)
_measure(
    "distinct_items",
    "Distinct catalogue items recommended",
    label="distinct items",
    higher_is_better=None,
    scale="count",
)
_measure(
    "recommending_turns",
    "Share of the system's turns that name at least one title",
    label="turns recommending",
    higher_is_better=None,
    scale="share 0–1",
    bounds=(0, 1),
)
_measure(
    "first_rec_turn",
    "System turn (1 = first) of the first recommendation",
    label="first recommendation turn",
    higher_is_better=None,
    scale="system turn (1 = first)",
)
register_metric(
    "coverage",
    "Share of the catalogue the system recommends across all its dialogues",
    label="coverage",
    capability=C,
    scale="share 0–1",
    tables=["dialogue_systems"],
)
_RATES = {
    "out_of_catalogue_rate": ("out_of_catalogue", "recommendations"),
    "repetition_rate": ("repeated", "recommendations"),
    "rejected_repeat_rate": ("rejected_repeats", "recommendations"),
}


def mentions_of(turn: Turn, matcher: TitleMatcher, labelled: bool) -> list[Mention]:
    """The titles a turn names: its labelled items (ReDial @id mentions, INSPIRED movie lists) or, in
    text mode, what the matcher finds in its text."""
    if not labelled:
        return [m for u in turn.utterances for m in matcher.find(u.text)]
    out = []
    for u in turn.utterances:
        for name in u.items:
            it = matcher.items.get(name)
            out.append(Mention(it.title, it.id, "id") if it else matcher.match_title(name))
    return out


def ident(m: Mention) -> str:
    return m.item or "?" + title_key(m.surface)[0]


def walk(sd: SourcedDialogue, matcher: TitleMatcher, labelled: bool) -> tuple[list[dict], set[str]]:
    """(one row per system turn of one dialogue, the catalogue items either speaker named in it). A title
    the user's last turn asked about ("Who stars in Heat?") is answered, not repeated, when the system
    names it."""
    rows: list[dict] = []
    known: set[str] = set()
    rejected: set[str] = set()
    pending: list[str] = []
    asked: set[str] = set()
    offer = ""  # the system's last words, which the user's reply answers
    for pos, turn in enumerate(sd.dialogue.turns):
        found = list({ident(m): m for m in mentions_of(turn, matcher, labelled)}.values())
        if not turn.role.is_recommender:
            if pending and refused(turn.text, offer):
                rejected |= set(pending)
            pending = []
            known |= {ident(m) for m in found}
            asked = {ident(m) for m in found} if "?" in turn.text else set()
            continue
        ids = [ident(m) for m in found]
        rows.append(
            {
                "dialogue": sd.id,
                "system": sd.system,
                "turn": len(rows) + 1,
                "position": pos,
                "recommendations": len(found),
                "grounded": sum(m.item is not None for m in found),
                "out_of_catalogue": sum(m.item is None for m in found),
                "repeated": sum(i in known and i not in asked for i in ids),
                "rejected_repeats": sum(i in rejected for i in ids),
                "items": [m.item for m in found if m.item],
                "titles": [m.surface for m in found],
            }
        )
        known |= set(ids)
        pending, offer = ids, turn.text
    return rows, {i for i in known if not i.startswith("?")}


def popularity(
    sources: list[tuple[list[SourcedDialogue], bool]], matcher: TitleMatcher
) -> tuple[Counter, int]:
    """(dialogues naming each grounded item, by either speaker; number of dialogues) over (dialogues, labelled
    mentions?) pairs."""
    counts: Counter = Counter(
        i
        for dialogues, labelled in sources
        for sd in dialogues
        for i in walk(sd, matcher, labelled)[1]
    )
    return counts, sum(len(dialogues) for dialogues, _ in sources)


def _mean_pairwise(vectors: list, distance: Callable) -> float:
    pairs = list(combinations(vectors, 2))
    return float(np.mean([distance(a, b) for a, b in pairs])) if pairs else float("nan")


def _jaccard(a: set, b: set) -> float:
    return 1 - len(a & b) / len(a | b)


def dialogue_table(
    turns: pd.DataFrame,
    items: dict[str, Item],
    pop: tuple[Counter, int],
    embed: Callable[[list[str]], np.ndarray],
) -> pd.DataFrame:
    """Per dialogue: counts, rates, mean novelty, diversity, distinct items and the first recommending turn."""
    counts, n = pop
    rows = []
    for (system, did), g in turns.groupby(["system", "dialogue"], sort=False):
        recs = int(g["recommendations"].sum())
        grounded = [i for lst in g["items"] for i in lst]
        distinct = list(dict.fromkeys(grounded))
        genres = [set(items[i].get("genres") or []) for i in distinct if items[i].get("genres")]
        vecs = list(embed(distinct)) if len(distinct) > 1 else []
        first = g.loc[g["recommendations"] > 0, "turn"]
        row = {
            "system": system,
            "dialogue": did,
            "system_turns": len(g),
            "recommendations": recs,
            **{
                k: int(g[k].sum())
                for k in ("grounded", "out_of_catalogue", "repeated", "rejected_repeats")
            },
            "novelty": float(np.mean([-math.log2((counts[i] + 1) / (n + 1)) for i in grounded]))
            if grounded
            else float("nan"),
            "genre_diversity": _mean_pairwise(genres, _jaccard),
            "embedding_diversity": _mean_pairwise(vecs, lambda a, b: 1 - float(a @ b)),
            "distinct_items": len(distinct),
            "recommending_turns": float((g["recommendations"] > 0).mean()),
            "first_rec_turn": float(first.iloc[0]) if len(first) else float("nan"),
        }
        for rate, (num, den) in _RATES.items():
            row[rate] = row[num] / row[den] if row[den] else float("nan")
        rows.append(row)
    return pd.DataFrame(rows)


def _t_ci(values: pd.Series) -> tuple[float, float]:
    v = values.dropna()
    if len(v) < 2 or v.std(ddof=1) == 0:
        return (float(v.mean()), float(v.mean())) if len(v) else (float("nan"), float("nan"))
    from scipy import (
        stats,
    )  # here: importing scipy.stats costs ~1 s, and the registry imports this module

    lo, hi = stats.t.interval(0.95, len(v) - 1, loc=v.mean(), scale=v.std(ddof=1) / np.sqrt(len(v)))
    return float(lo), float(hi)


def system_table(dialogues: pd.DataFrame, turns: pd.DataFrame, catalogue_size: int) -> pd.DataFrame:
    """Per system: dialogue means with 95 % t-intervals over dialogues (dialogues are the unit; rates
    over the dialogues that recommend), pooled counts, catalogue coverage."""
    rows = []
    for system, g in dialogues.groupby("system", sort=True):
        row = {
            "system": system,
            "dialogues": len(g),
            "recommending_dialogues": int((g["recommendations"] > 0).sum()),
            "recommendations": int(g["recommendations"].sum()),
        }
        for m in DIALOGUE_METRICS[1:]:
            row[m] = float(g[m].mean())
            if (
                m in BOUNDS
            ):  # t-intervals, clipped to the metric's range (small samples overshoot it)
                lo, hi = _t_ci(g[m])
                row[f"{m}_lo"], row[f"{m}_hi"] = max(lo, BOUNDS[m][0]), min(hi, BOUNDS[m][1])
        row["coverage"] = (
            len({i for lst in turns.loc[turns["system"] == system, "items"] for i in lst})
            / catalogue_size
        )
        rows.append(row)
    return pd.DataFrame(rows)


def ground(
    source: DialogueSource,
    matcher: TitleMatcher,
    labelled: bool,
    tick: Callable[[int], None] = lambda n: None,
) -> tuple[pd.DataFrame, Counter]:
    """(the per-system-turn table of every dialogue, how many dialogues name each catalogue item) — the
    counts are the popularity of these dialogues, read in the same pass."""
    rows: list[dict] = []
    named: Counter = Counter()
    for sd in source.dialogues:
        turn_rows, items = walk(sd, matcher, labelled)
        rows += turn_rows
        named.update(items)
        tick(1)
    return pd.DataFrame(
        rows,
        columns=[
            "dialogue",
            "system",
            "turn",
            "position",
            "recommendations",
            "grounded",
            "out_of_catalogue",
            "repeated",
            "rejected_repeats",
            "items",
            "titles",
        ],
    ), named
