"""A seeded, rule-based user simulator that keeps changing its mind, and logs every change.

It starts from a target genre (with probability ``error_rate`` from a deliberately wrong one, which
it corrects at its first shift), then alternates between *asking* (about actors, themes, mood),
*reacting* to the titles the CRS recommended, and — on a seeded schedule of every ``shift_every``
turns — *shifting*: to another genre (sometimes a blend of two), or by adding or changing an
attribute (year/decade, actor, director, writer, language, plot keyword) drawn from KB movies that
fit its current genre, so every wish is satisfiable. With probability ``contradiction_rate`` a shift
explicitly takes back something it said before.

Each user turn carries its ground truth: ``{"shift", "kind", "contradiction", "blend", "from", "to",
"topics"}``, which is what the shift detector is scored against. With a ``drift`` client the
utterance is rewritten by an LLM (meaning kept; the rule-based text is logged next to it).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from crseval.core.types import TurnTruth
from crseval.core.errors import CrsevalError
from crseval.llm.base import ChatRequest
from crseval.llm.client import LLMClient
from crseval.text.movie_text import genre_mentions, mentioned_titles, years
from crseval.data.kb import MovieKB

SHIFT_KINDS = ("genre", "year", "actor", "director", "writer", "language", "plot")
SHIFT_WEIGHTS = (0.35, 0.15, 0.15, 0.1, 0.05, 0.05, 0.15)
MOODS = ("light-hearted", "dark", "thought-provoking", "relaxing", "intense", "uplifting", "quirky")
MIN_GENRE_SIZE = 10

OPEN = (
    "Hi! I'm in the mood for {a} {g} movie tonight.",
    "Hello, can you recommend a good {g} film?",
    "I'd like to watch something in the {g} genre.",
)
GENRE_SHIFT = (
    "Actually, I'd rather watch {a} {g} movie now.",
    "Let's switch to {g}, please.",
    "Hmm, I changed my mind, something {g} would be better.",
)
BLEND = ("What about a mix of {g} and {h}?", "Could you find something that is both {g} and {h}?")
CONTRA = (
    "No, forget what I said about {old}, not {old} anymore. {new}",
    "Wait, not {old} after all. {new}",
)
ATTR = {
    "year": ("Ideally from the {v}.", "Something from the {v} would be great."),
    "actor": ("I'd love one with {v} in it.", "Is there one starring {v}?"),
    "director": ("Maybe something directed by {v}?", "I really like the films of {v}."),
    "writer": ("Anything written by {v}?",),
    "language": ("Could it be a movie in {v}?", "I'd like to watch something in {v}."),
    "plot": ("Something about {v}, maybe?", "I'm curious about a story involving {v}."),
}
ASK = {
    "actors": ("Who is in {t}?", "Who stars in {t}?"),
    "themes": ("What is {t} about?", "What kind of story does {t} tell?"),
    "mood": ("I want something {m} tonight.", "Is it more on the {m} side?"),
}
REACT = (
    "I've already seen {t}. Anything else?",
    "{t} sounds good, tell me more.",
    "Not sure about {t}. Do you have another idea?",
)


RECOMMENDER = re.compile(
    r"\b(your favou?rite|what (kind|sort|type) of (movies?|films?) do you|i (would |'d )?(recommend|suggest)|"
    r"you (might|may|will|would) (like|enjoy|love)|you're welcome|i can (suggest|recommend|help|find)|"
    r"let me (suggest|recommend|find)|here (are|is) (some|a|my))\b"
)


def _wishes(kb: MovieKB, text: str) -> set[str]:
    """What a turn asks for, in words crseval's rules read: genres (not negated), people, languages,
    decades and years."""
    found = {g for g, negated in genre_mentions(text) if not negated}
    found |= {value.lower() for _, value in kb.find_names(text)}
    span = years(text)
    return found | ({str(span)} if span else set())


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


@dataclass
class SimulatorConfig:
    error_rate: float = 0.1
    contradiction_rate: float = 0.2
    blend_rate: float = 0.1
    shift_every: tuple[int, int] = (3, 5)


@dataclass
class UserSimulator:
    kb: MovieKB
    seed: int
    config: SimulatorConfig = field(default_factory=SimulatorConfig)
    drift: LLMClient | None = None
    drift_settings: tuple[float, int] = (0.0, 256)  # the drift LLM's temperature and max tokens

    def __post_init__(self) -> None:
        self.rng = np.random.default_rng(self.seed)
        least = (
            MIN_GENRE_SIZE if len(self.kb) >= 20 * MIN_GENRE_SIZE else 2
        )  # small catalogues (the sample)
        genres = sorted(g for g, s in self.kb.genres.items() if len(s) >= least)
        if len(genres) < 3:
            raise CrsevalError(
                f"the movie KB has only {len(genres)} genres with ≥ {least} movies",
                field="kb",
                expected="a catalogue with at least 3 such genres",
            )
        self.genre_pool = genres
        self.true_genre = self._genre(genres)
        wrong = self.rng.random() < self.config.error_rate
        self.start_genre = (
            self._genre([g for g in genres if g != self.true_genre]) if wrong else self.true_genre
        )
        self.prefs: dict[str, Any] = {"genre": [self.start_genre]}
        self.stated: dict[str, Any] = {}  # values said so far, for contradictions
        self.next_shift = 0
        self._schedule(0)
        self.asks = 0

    # ---- public ------------------------------------------------------------------------------
    def opening(self) -> tuple[str, TurnTruth]:
        text = self._pick(OPEN).format(g=self.start_genre, a=_article(self.start_genre))
        return self._out(text, self._truth(False))

    def reply(self, turn: int, system_text: str) -> tuple[str, TurnTruth]:
        if turn >= self.next_shift:
            self._schedule(turn)
            return self._out(*self._shift())
        titles = mentioned_titles(self.kb, system_text)
        if titles and self.rng.random() < 0.5:
            return self._out(self._pick(REACT).format(t=titles[0]), self._truth(False))
        kind = ("actors", "themes", "mood")[self.asks % 3]
        self.asks += 1
        t = titles[0] if titles else "that one"
        return self._out(self._pick(ASK[kind]).format(t=t, m=self._pick(MOODS)), self._truth(False))

    # ---- internals ---------------------------------------------------------------------------
    def _schedule(self, turn: int) -> None:
        lo, hi = self.config.shift_every
        self.next_shift = turn + int(self.rng.integers(lo, hi + 1))

    shift_weights = SHIFT_WEIGHTS  # how often each of SHIFT_KINDS is the next shift

    def _genre(self, options: list[str]) -> str:
        """The genre a user wants next, among ``options``."""
        return str(self.rng.choice(options))

    def _pick(self, options):
        return options[int(self.rng.integers(len(options)))]

    def _truth(
        self,
        shift: bool,
        kind: str | None = None,
        old: Any = None,
        new: Any = None,
        contradiction: bool = False,
        blend: bool = False,
    ) -> TurnTruth:
        topics = [f"genre:{g}" for g in self.prefs["genre"]] + [
            f"{k}:{v}" for k, v in self.prefs.items() if k != "genre"
        ]
        return {
            "shift": shift,
            "kind": kind,
            "contradiction": contradiction,
            "blend": blend,
            "from": old,
            "to": new,
            "topics": topics,
        }

    def _shift(self) -> tuple[str, TurnTruth]:
        if self.start_genre != self.true_genre and self.prefs["genre"] == [self.start_genre]:
            return self._genre_to([self.true_genre], correction=True)
        kind = str(self.rng.choice(SHIFT_KINDS, p=self.shift_weights))
        if kind == "genre":
            others = [g for g in self.genre_pool if g not in self.prefs["genre"]]
            if self.rng.random() < self.config.blend_rate:
                pair = [str(g) for g in self.rng.choice(others, 2, replace=False)]
                if self.kb.genres[pair[0]] & self.kb.genres[pair[1]]:
                    return self._genre_to(pair)
            return self._genre_to([self._genre(others)])
        value = self._attribute(kind)
        if value is None:  # nothing in the KB for this genre: change genre instead
            return self._genre_to(
                [self._genre([g for g in self.genre_pool if g not in self.prefs["genre"]])]
            )
        old = self.prefs.get(kind)
        text = self._pick(ATTR[kind]).format(v=value)
        contra = old is not None and self.rng.random() < self.config.contradiction_rate
        if contra:
            text = self._pick(CONTRA).format(old=old, new=text)
        self.prefs[kind] = value
        return text, self._truth(True, kind, old, value, contradiction=contra)

    def _genre_to(self, genres: list[str], correction: bool = False) -> tuple[str, TurnTruth]:
        old = list(self.prefs["genre"])
        # a new genre makes the old attributes meaningless (they were drawn from the old genre's movies)
        self.prefs = {"genre": genres}
        if len(genres) == 2:
            text = self._pick(BLEND).format(g=genres[0], h=genres[1])
        else:
            text = self._pick(GENRE_SHIFT).format(g=genres[0], a=_article(genres[0]))
        contra = correction or self.rng.random() < self.config.contradiction_rate
        if contra:
            text = self._pick(CONTRA).format(old=" and ".join(old), new=text)
        return text, self._truth(
            True, "genre", old, genres, contradiction=contra, blend=len(genres) == 2
        )

    def _attribute(self, kind: str) -> Any:
        pool = set.intersection(*(self.kb.genres[g] for g in self.prefs["genre"]))
        pool = sorted(pool) or sorted(self.kb.genres[self.prefs["genre"][0]])
        for i in self.rng.permutation(pool)[:20]:
            m = self.kb.movies[int(i)]
            if kind == "year" and m.get("year"):
                return f"{int(m.get('year')) // 10 * 10}s"
            if kind == "plot":
                kws = self.kb.plot_keywords(int(i))
                if kws:
                    return kws[int(self.rng.integers(len(kws)))]
            elif kind == "language":
                langs = [v for v in m.get("language", []) if v.lower() != "english"]
                if langs:
                    return langs[0]
            elif kind in ("actor", "director", "writer") and m.get(kind):
                names = [
                    v for v in m.get(kind) if " " in v
                ]  # the CRS matches multi-word names only
                if names:
                    return names[int(self.rng.integers(len(names)))]
        return None

    def _out(self, text: str, truth: TurnTruth) -> tuple[str, TurnTruth]:
        """The turn as said: the rule text, or its LLM rewrite (``drift``) when the rewrite is whole (not cut
        off at its length), names no title the rule text does not, keeps every genre, person, language and
        decade the rule text asks for, and does not talk like the recommender."""
        if self.drift is None:
            return text, truth
        temperature, max_tokens = self.drift_settings
        examples = "\n".join(f"- {e}" for e in self._examples(truth.get("act") or "genre"))
        req = ChatRequest.chat(
            "You are the USER: a person chatting with a movie recommender, never the recommender. Rewrite "
            "the user's message below in your own casual words, the way real users write (short, plain):\n"
            f"{examples}\nKeep every genre, name, year, language and topic it mentions and add no "
            "movie title. Answer with the rewritten message only.\n"
            f"Message: {json.dumps(text)}",
            temperature=temperature,
            seed=self.seed,
            max_tokens=max_tokens,
        )
        res = self.drift.try_complete(req, accept=lambda r: bool(r.text.strip()))
        said = res.response.text.strip().strip('"') if res.response is not None else ""
        problem = (
            res.error
            or ("empty" if not said else None)
            or ("cut off" if res.response.finish_reason == "length" else None)
            or (
                "named a title"
                if set(mentioned_titles(self.kb, said)) - set(mentioned_titles(self.kb, text))
                else None
            )
            or ("dropped a wish" if _wishes(self.kb, text) - _wishes(self.kb, said) else None)
            or ("spoke as the recommender" if RECOMMENDER.search(said.lower()) else None)
        )
        if problem:
            return text, {**truth, "drift_error": problem}
        return said, {**truth, "rule_text": text}

    def _examples(self, act: str) -> list[str]:
        """Real users' way of saying things, shown to the LLM that rewrites a turn (none here: the realistic
        user shows its phrasebook's)."""
        return []
