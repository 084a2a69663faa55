"""Dialogues (or turns) with people's labels, the data type every judge, meta-evaluation and calibrated
judge reads; the loaders that build them are in :mod:`crseval.data.judged`."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from crseval.core.types import Dialogue
from crseval.data.io import DatasetInfo


@dataclass
class JudgedItem:
    id: str
    dialogue: Dialogue
    labels: dict[str, float]
    target: int | None = None  # utterance index judged at turn level; None = the whole dialogue
    system: str | None = None  # the CRS that produced the dialogue, where known
    group: str | None = (
        None  # cross-validation group (the user, see JudgedSet.groups); None = the dialogue
    )


@dataclass
class JudgedSet:
    info: DatasetInfo
    level: str
    items: list[JudgedItem] = field(default_factory=list)
    scales: dict[str, tuple[float, float]] = field(default_factory=dict)  # human scale per aspect
    observed_scales: bool = (
        False  # True where the layout states no scale and ``scales`` is the observed range
    )

    @property
    def aspects(self) -> list[str]:
        return sorted({a for it in self.items for a in it.labels})

    def scale(self, aspect: str) -> tuple[float, float]:
        if aspect not in self.scales:
            values = [it.labels[aspect] for it in self.items if aspect in it.labels]
            return (min(values), max(values)) if values else (float("nan"), float("nan"))
        return self.scales[aspect]

    def systems(self) -> dict[str, str]:
        """item id → system where every item's system is known (explicit, or the shared prefix of conv ids
        such as ``kbrd_redial_…``: up to the last ``_``, or the last ``-`` in ids without ``_``, so a user id
        may be a UUID) and there are at least two systems; else empty."""
        explicit = {it.id: it.system for it in self.items if it.system}
        if len(explicit) == len(self.items) and len(set(explicit.values())) > 1:
            return explicit
        conv = {it.id: it.id.split("#")[0] for it in self.items}
        prefix = {
            i: c.rsplit("_" if "_" in c else "-", 1)[0]
            for i, c in conv.items()
            if "_" in c or "-" in c
        }
        counts = pd.Series(list(prefix.values())).value_counts() if prefix else pd.Series(dtype=int)
        if len(prefix) == len(self.items) and len(counts) > 1 and counts.min() >= 2:
            return prefix
        return {}

    def groups(self) -> dict[str, str]:
        """item id → cross-validation group: the **user** where conv ids name system and user
        (``kbrd_redial_<user id>``: an arena battle is one user talking to two systems, so both dialogues
        must fall on the same side of a split), else the dialogue."""
        systems = self.systems()
        out = {}
        for it in self.items:
            conv, system = it.id.split("#")[0], systems.get(it.id)
            out[it.id] = (
                "user:" + conv[len(system) + 1 :] if system and conv.startswith(system) else conv
            )
        return out

    def __len__(self) -> int:
        return len(self.items)

    def summary(self) -> dict:
        return {
            "items": len(self.items),
            "level": self.level,
            "systems": len(set(self.systems().values())),
            **{
                f"{a} (scale {lo:g}–{hi:g}{', observed' if self.observed_scales else ''})": sum(
                    a in it.labels for it in self.items
                )
                for a in self.aspects
                for lo, hi in [self.scale(a)]
            },
        }

    def preview(self, n: int = 1) -> str:
        out = []
        for it in self.items[: max(n, 1)]:
            lines = [
                f"{'>>> ' if k == it.target else ''}{u.role.value}: {u.text[:100]}"
                for k, u in enumerate(it.dialogue.utterances)
            ]
            out.append(f"{it.id} {it.labels}\n" + "\n".join(lines[:12]))
        return "\n\n".join(out)
