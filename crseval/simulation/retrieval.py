"""Retrieval for the rule-based CRS: intersect the movies matching each constraint; when nothing is left,
relax the least recently stated constraint first."""

from __future__ import annotations

from typing import Any

from crseval.data.kb import MovieKB
from crseval.simulation.nlu import Constraints


def candidate_set(kb: MovieKB, c: Constraints) -> tuple[set[int], list[str]]:
    """Movies satisfying every constraint; relaxes the least recently stated one while none are left.
    Returns (candidates, relaxed slots)."""

    def matching(slot: str, value: Any) -> set[int]:
        if slot == "genres":
            sets = [kb.genres.get(g, set()) for g in value]
            return set.intersection(*sets) if sets else set(range(len(kb)))
        if slot == "year":
            lo, hi = value
            return set().union(
                *(
                    s
                    for y, s in kb.years.items()
                    if (lo is None or y >= lo) and (hi is None or y <= hi)
                )
            )
        if slot == "keywords":
            return set().union(*(kb.keywords.get(w, set()) for w in value))
        return set(kb.index[slot].get(str(value).lower(), set()))

    active = sorted(c.values, key=lambda s: c.stated[s])
    relaxed: list[str] = []
    while True:
        out = set(range(len(kb)))
        for slot in active:
            out &= matching(slot, c.values[slot])
        if out or not active:
            return out, relaxed
        relaxed.append(active.pop(0))
