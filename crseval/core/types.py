"""The core data types every capability shares.

A :class:`Dialogue` is a list of :class:`Turn`; a turn groups the consecutive :class:`Utterance` of
one speaker (INSPIRED recommenders often send several messages in a row — each stays a separate
utterance with its own strategy label). :class:`Ratings` is a long-format table of judgments that
knows its scale.
"""

from __future__ import annotations

import enum
from statistics import harmonic_mean
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, NotRequired, TypedDict

import pandas as pd

from crseval.core.errors import CrsevalError


class Role(str, enum.Enum):
    SEEKER = "seeker"
    RECOMMENDER = "recommender"
    USER = "user"
    SYSTEM = "system"

    @property
    def is_recommender(self) -> bool:
        return self in (Role.RECOMMENDER, Role.SYSTEM)

    @classmethod
    def parse(cls, value: str) -> "Role":
        """Lenient in names: 'SEEKER', 'User', 'assistant', 'bot', 'crs' … map to the four roles."""
        v = str(value).strip().lower()
        aliases = {
            "seeker": cls.SEEKER,
            "user": cls.USER,
            "human": cls.USER,
            "recommender": cls.RECOMMENDER,
            "system": cls.SYSTEM,
            "assistant": cls.SYSTEM,
            "bot": cls.SYSTEM,
            "crs": cls.SYSTEM,
            "agent": cls.SYSTEM,
            "asst": cls.SYSTEM,
        }
        if v not in aliases:
            raise CrsevalError(
                f"unknown speaker role {value!r}",
                field="role",
                expected="one of " + ", ".join(sorted(aliases)),
            )
        return aliases[v]


@dataclass(frozen=True)
class Item:
    """A recommendable item (a movie) with free-form attributes (year, genres, director, …)."""

    id: str
    title: str
    attributes: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    def get(self, key: str, default: Any = None) -> Any:
        return self.attributes.get(key, default)


@dataclass
class Utterance:
    role: Role
    text: str
    strategy: str | None = None
    items: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class Turn:
    """Consecutive utterances of one speaker."""

    role: Role
    utterances: list[Utterance]

    @property
    def text(self) -> str:
        return " ".join(u.text for u in self.utterances)

    @property
    def strategies(self) -> list[str]:
        return [u.strategy for u in self.utterances if u.strategy]

    @property
    def items(self) -> list[str]:
        return [i for u in self.utterances for i in u.items]


@dataclass
class Dialogue:
    id: str
    turns: list[Turn]
    metadata: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_utterances(
        cls, id: str, utterances: Iterable[Utterance], metadata: dict[str, Any] | None = None
    ) -> "Dialogue":
        """Group consecutive same-role utterances into turns."""
        turns: list[Turn] = []
        for u in utterances:
            if turns and turns[-1].role == u.role:
                turns[-1].utterances.append(u)
            else:
                turns.append(Turn(u.role, [u]))
        return cls(id, turns, dict(metadata or {}))

    @property
    def utterances(self) -> Iterator[Utterance]:
        for t in self.turns:
            yield from t.utterances

    def __len__(self) -> int:
        return len(self.turns)


RATING_COLUMNS = ["item", "rater", "dimension", "value"]


# What a simulated user meant at one turn, logged beside its words (records/results.jsonl: turns[i].truth)
# and read back by the measures that know the simulator's truth; ``from`` is a keyword, hence this form.
TurnTruth = TypedDict(
    "TurnTruth",
    {
        "shift": bool,  # the user changed what they want at this turn
        "kind": str | None,  # what changed: genre, or an attribute such as actor or director
        "contradiction": bool,  # the user contradicts what they said before
        "blend": bool,  # a genre shift to two genres at once
        "from": Any,  # the value(s) the user wanted before the shift
        "to": Any,  # the value(s) the user wants now
        "topics": list[str],  # every preference the user holds now, as kind:value
        "named": NotRequired[list[str]],  # catalogue films named as liked (realistic users)
        "act": NotRequired[str],  # the turn's dialogue act (realistic users): ask, reject, thanks…
        "end": NotRequired[str],  # on a last turn: why the user left (satisfied, gave up…)
        "drift_error": NotRequired[str],  # why an LLM paraphrase was refused (scripted words kept)
    },
)


def truth_of(turn: dict[str, Any]) -> TurnTruth | None:
    """A logged turn's simulator truth; None for a turn no simulator logged (imported and real dialogues)."""
    return turn.get("truth")


@dataclass
class Ratings:
    """Long-format judgments: one row per (item, rater, dimension) with a numeric value.

    ``scale`` is the closed interval of valid values (e.g. ``(1, 5)`` for a Likert scale), or a dict
    dimension → interval when dimensions use different scales (AB-ReDial);
    ``extra`` holds per-rating side information (gold flag, time spent, attention checks) keyed
    by ``(item, rater)``.
    """

    data: pd.DataFrame
    scale: tuple[float, float] | dict[str, tuple[float, float]] = (1.0, 5.0)
    name: str = "ratings"
    extra: pd.DataFrame | None = None
    info: Any = None  # crseval.data DatasetInfo when loaded from a file

    def __post_init__(self) -> None:
        missing = [c for c in RATING_COLUMNS if c not in self.data.columns]
        if missing:
            raise CrsevalError(
                f"ratings table lacks columns {missing}",
                field=missing[0],
                expected="columns " + ", ".join(RATING_COLUMNS),
            )
        self.data = self.data[RATING_COLUMNS].copy()
        self.data["item"] = self.data["item"].astype(str)
        self.data["rater"] = self.data["rater"].astype(str)
        self.data["dimension"] = self.data["dimension"].astype(str)
        self.data["value"] = pd.to_numeric(self.data["value"], errors="raise").astype(float)
        for dim, rows in self.data.groupby("dimension", sort=False):
            lo, hi = self.scale_of(str(dim))
            bad = rows[(rows["value"] < lo) | (rows["value"] > hi)]
            if len(bad):
                raise CrsevalError(
                    f"rating {bad['value'].iloc[0]:g} outside the scale",
                    field=str(dim),
                    expected=f"values in [{lo:g}, {hi:g}]",
                )

    def scale_of(self, dimension: str) -> tuple[float, float]:
        if isinstance(self.scale, dict):
            if dimension not in self.scale:
                raise CrsevalError(f"no scale given for dimension {dimension!r}", field="scale")
            return tuple(self.scale[dimension])  # type: ignore[return-value]
        return tuple(self.scale)  # type: ignore[return-value]

    @property
    def dimensions(self) -> list[str]:
        return list(dict.fromkeys(self.data["dimension"]))

    @property
    def items(self) -> list[str]:
        return list(dict.fromkeys(self.data["item"]))

    @property
    def raters(self) -> list[str]:
        return list(dict.fromkeys(self.data["rater"]))

    def dimension(self, name: str) -> pd.DataFrame:
        """The (item, rater, value) rows of one dimension."""
        if name not in set(self.data["dimension"]):
            raise CrsevalError(
                f"no dimension {name!r}",
                field="dimension",
                expected="one of " + ", ".join(self.dimensions),
            )
        return self.data[self.data["dimension"] == name][["item", "rater", "value"]]

    def wide(self, dimension: str) -> pd.DataFrame:
        """Item × rater matrix of one dimension (NaN where a rater did not rate an item)."""
        d = self.dimension(dimension)
        return d.pivot_table(index="item", columns="rater", values="value", aggfunc="mean")

    def raters_per_item(self, dimension: str | None = None) -> pd.Series:
        d = self.data if dimension is None else self.dimension(dimension)
        return d.groupby("item")["rater"].nunique()

    def subset(
        self, items: Iterable[str] | None = None, raters: Iterable[str] | None = None
    ) -> "Ratings":
        d = self.data
        if items is not None:
            d = d[d["item"].isin(set(items))]
        if raters is not None:
            d = d[d["rater"].isin(set(raters))]
        return Ratings(d, self.scale, self.name, self.extra, self.info)

    def __len__(self) -> int:
        return len(self.data)

    def summary(self) -> dict[str, Any]:
        k = self.raters_per_item()
        scale = (
            {d: list(v) for d, v in self.scale.items()}
            if isinstance(self.scale, dict)
            else list(self.scale)
        )
        return {
            "dataset": self.info.signature() if self.info else self.name,
            "ratings": len(self.data),
            "items": len(k),
            "raters": self.data["rater"].nunique(),
            "dimensions": self.dimensions,
            "scale": scale,
            "raters per item": f"{k.min()}–{k.max()} (harmonic mean {harmonic_mean(k.tolist()):.2f})",
        }

    def preview(self, n: int = 5) -> str:
        return self.data.head(n).to_string(index=False)
