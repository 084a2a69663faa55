"""The rule-based CRS's understanding of the user: constraints re-derived from every user utterance in
order (stateless, so a resumed session is identical). Genre cues, years and decades come from
:mod:`crseval.text.movie_text`, people and languages from the KB indexes, plot keywords after
"something/a story/a movie about, involving, featuring" (genre words excluded). A later value replaces
an earlier one (contradictions win), a negated value ("no more horror") is removed, blend cues ("a mix
of", "both", "also") add a genre instead of replacing, "start over" resets everything."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Sequence

from crseval.data.kb import MovieKB
from crseval.text.movie_text import GENRE_CUES, NEGATION, genre_mentions, years

BLEND = re.compile(r"\b(mix|blend|both|combine|combination|also|as well|plus|along with)\b")
KEYWORD_CUE = re.compile(
    r"\b(?:(?:something|story|stories|movie|film|one|plot|tale)\s+(?:about|involving|featuring)|"
    r"(?:story|tale) of)\b(.{0,80})"
)
RESET = re.compile(r"\b(start over|forget everything|from scratch)\b")


@dataclass
class Constraints:
    """The CRS's current understanding; ``stated`` holds the user turn at which each slot was last set."""

    values: dict[str, Any] = field(default_factory=dict)
    stated: dict[str, int] = field(default_factory=dict)

    def set(self, slot: str, value: Any, turn: int) -> None:
        self.values[slot], self.stated[slot] = value, turn

    def drop(self, slot: str) -> None:
        self.values.pop(slot, None)
        self.stated.pop(slot, None)

    def as_dict(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, (tuple, set)) else v) for k, v in self.values.items()}


def extract(kb: MovieKB, utterances: Sequence[str]) -> Constraints:
    """Constraints after the user's utterances, in order (see the module docstring for the rules)."""
    steps = extract_steps(kb, utterances)
    return steps[-1] if steps else Constraints()


def extract_steps(kb: MovieKB, utterances: Sequence[str]) -> list[Constraints]:
    """The constraints after each of the user's utterances (one pass: ``extract`` of every prefix)."""
    c, out = Constraints(), []
    for turn, text in enumerate(utterances):
        low = text.lower()
        if RESET.search(low):
            c = Constraints()
        mentions = genre_mentions(text)
        if mentions:
            pos = [g for g, neg in mentions if not neg]
            neg = {g for g, n in mentions if n}
            current = [g for g in c.values.get("genres", []) if g not in neg]
            if pos:
                blend = len(set(pos)) == 1 and BLEND.search(
                    low
                )  # "also horror" adds; "a mix of A and B" sets both
                new = list(dict.fromkeys((current if blend else []) + pos))
                c.set("genres", new, turn)
            elif current != c.values.get("genres", []):
                c.set("genres", current, turn) if current else c.drop("genres")
        yrs = years(text)
        if yrs:
            c.set("year", yrs, turn)
        for attr, value in kb.find_names(text):
            start = low.find(value.lower())
            if start >= 0 and NEGATION.search(low[max(0, start - 30) : start]):
                if c.values.get(attr) == value:
                    c.drop(attr)
            else:
                c.set(attr, value, turn)
        m = KEYWORD_CUE.search(low)
        if m:
            kws = [
                w
                for w in dict.fromkeys(re.findall(r"[a-z][a-z'-]+", m.group(1)))
                if w in kb.keywords
                and w not in GENRE_CUES
                and not (w.endswith("s") and w[:-1] in GENRE_CUES)
            ]
            if kws:
                c.set("keywords", kws, turn)
        out.append(Constraints(dict(c.values), dict(c.stated)))
    return out
