"""The user's wishes read by an LLM from the user's own words (``scoring.reader = "llm"``), for logs with
no simulator truth — the option beside the rule-based reading of :meth:`Following.read_wishes`.

After each user turn the LLM reads everything the user has said so far and answers, as JSON, what the user
wants now: genres (constrained to the catalogue's genres), a year range, an actor, director, writer or
language, plot keywords. Every answer is then grounded in the catalogue exactly as the rules' reading is
(names through the catalogue's name index, keywords through its plot vocabulary), so both readings give
:func:`~crseval.adaptation.following.wish_topics` the same shapes and every ``follow.*`` measure is
computed the same way. An answer that cannot be obtained or parsed reads as "no wish" for that turn and is
counted (``failures``). How far it agrees with logged truth: ``bench/following_from_words.py --reader
llm``.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from crseval.core.signature import prompt_hash
from crseval.data.kb import ATTRIBUTES, MovieKB
from crseval.llm import ChatRequest

PROMPT = (
    "A user is talking to a movie recommender. Everything the user has said so far, oldest first "
    "(quoted data):\n{said}\n\nWhat does the user want NOW, after the last message? Later wishes "
    "replace earlier ones; leave out what the user took back or said they do not want. Answer with "
    "JSON: genres (a list, from the allowed ones), year_from and year_to (numbers or null), actor, "
    "director, writer, language (a name, or null), keywords (plot words, a list)."
)


class LLMWishReader:
    """Reads the user's wishes after every user turn with ``client`` and grounds them in ``kb``."""

    def __init__(self, client: Any, kb: MovieKB) -> None:
        self.client, self.kb = client, kb
        self.failures = 0
        name = {"type": ["string", "null"], "maxLength": 60}
        year = {"type": ["integer", "null"], "minimum": 1880, "maximum": 2100}
        self.schema = {
            "type": "object",
            "properties": {
                "genres": {
                    "type": "array",
                    "maxItems": 3,
                    "items": {"enum": sorted(kb.genres)},
                },
                "year_from": year,
                "year_to": year,
                **{a: name for a in ATTRIBUTES},
                "keywords": {
                    "type": "array",
                    "maxItems": 4,
                    "items": {"type": "string", "maxLength": 30},
                },
            },
            "required": ["genres"],
        }
        ident = client.identity()
        self.signature = (
            f"llm({ident.get('backend')}:{ident.get('model')},prompt={prompt_hash(PROMPT)})"
        )

    def steps(self, utterances: Sequence[str]) -> list[dict[str, Any]]:
        """The grounded wishes after each utterance (constraint values, as the rules' reading gives)."""
        return self.client.map(range(len(utterances)), lambda k: self._read(utterances[: k + 1]))

    def _read(self, said: Sequence[str]) -> dict[str, Any]:
        text = "\n".join(f"{k + 1}. {u!r}" for k, u in enumerate(said))
        req = ChatRequest.chat(PROMPT.format(said=text), max_tokens=160, json_schema=self.schema)
        res = self.client.structured(req, self.schema)
        if res.value is None:
            self.failures += 1
            return {}
        return self.ground(res.value, " ".join(said))

    def ground(self, answer: dict[str, Any], said: str) -> dict[str, Any]:
        """The answer in the catalogue's terms and in the user's words: a genre from the catalogue's list
        (the reading may infer it: "something scary" → horror); a name, language, year or plot keyword only
        where the user said it and the catalogue knows it — a small model fills every field it is offered
        (the title it was recommended, "movie", an actor as the director too), which would read as wishes."""
        low = said.lower()
        out: dict[str, Any] = {}
        genres = [g for g in answer.get("genres") or [] if g in self.kb.genres]
        if genres:
            out["genres"] = list(dict.fromkeys(genres))
        years = {int(y) for y in re.findall(r"\d{2,4}", low)}
        lo, hi = answer.get("year_from"), answer.get("year_to")
        if (lo is not None or hi is not None) and any(_said_year(y, years) for y in (lo, hi)):
            out["year"] = [lo, hi]
        said_names = set(self.kb.find_names(said))
        for attr in ATTRIBUTES:
            value = answer.get(attr)
            found = [v for a, v in self.kb.find_names(value) if a == attr] if value else []
            if found and (attr, found[0]) in said_names:
                out[attr] = found[0]
        genre_words = {w for g in self.kb.genres for w in g.split()}
        words = [
            w.lower()
            for w in answer.get("keywords") or []
            if w.lower() in self.kb.keywords
            and w.lower() not in genre_words
            and re.search(rf"\b{re.escape(w.lower())}\b", low)
        ]
        if words:
            out["keywords"] = list(dict.fromkeys(words))
        return out


def _said_year(year: int | None, said: set[int]) -> bool:
    """A year the user's words hold: 1994, or 94 / 90 (as in "the 90s")."""
    return year is not None and (year in said or year % 100 in said)
