"""A simulated user that behaves like a real CRS user: it greets, asks about what it is offered, notices
every title (any title, in the catalogue or not), rejects films that miss its wish, complains about
repeats and invented films, loses patience and leaves — or thanks and leaves once it has found enough.

Its wishes and their shifts are :class:`~crseval.simulation.user.UserSimulator`'s (the same seeded
schedule, the same logged truth, so verified following reads it unchanged); what differs is what it
says and when it stops. Each turn's truth adds ``act`` (what the turn does) and, on its last turn,
``end`` (``satisfied`` or ``frustrated``); a session that reaches its length without either ends
``open``. Its wording comes from a phrasebook (:mod:`crseval.simulation.phrasebook`): a fifth of its
openings ask for a movie without saying which (the wish comes in its next turn), a fifth of
its one-genre wishes name a catalogue film of that genre it liked ("I like comedies like Airplane!",
logged as ``named``: a CRS that offers it back earns no following credit, and the user has seen it), and
it often says what it wants next in the same turn as liking or having seen a film.

How it reads a reply: the titles named (:class:`~crseval.text.titles.TitleMatcher` over the catalogue,
title-like spans outside it too), each checked against its current wish from the catalogue's facts.
A reply naming a film that fits, new to the dialogue, is good; one naming only films that miss, a
repeat, an unknown film or no film at all costs patience. Patience starts at 3–6 bad replies; the user
leaves satisfied after accepting 1–3 films (at turn 2 or later), and stops after 3–10 turns whatever
happens (frustrated if it accepted nothing); 85 % leave without a word, as real users mostly do. After a
film it liked, or a reply that missed, it often moves to a new wish at once (a logged shift).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from crseval.core.types import TurnTruth
from crseval.simulation.wording import articles, first_word, join, lower_first
from crseval.data.kb import MovieKB
from crseval.simulation.acts import cues
from crseval.simulation.phrasebook import BOOK, expand
from crseval.simulation.user import UserSimulator
from crseval.text.titles import TitleMatcher, title_key

_SLOT = re.compile(r"\{(\w+)\}")
# how often people asking for films name each genre (ReDial seekers; tools/requested_genres.py)
REQUESTED: dict[str, int] = tomllib.loads(
    (Path(__file__).parent / "data" / "requested_genres.toml").read_text("utf-8")
)
# words about several films: said only after a reply that named several ("which of those is the best?")
_SEVERAL = re.compile(
    r"\b(those|these|them|their|they|all of|most of|any of|which one|the (?:first|second|last) one)\b",
    re.I,
)
CHATTER = 0.15  # share of turns that are neither a wish nor a reaction
SPOKEN = {"sport": "sports", "biography": "biopic", "history": "historical", "music": "music"}
PLURAL = {  # a genre as a plural noun ("comedies"); any other is "<genre> movies"
    "comedy": "comedies", "thriller": "thrillers", "drama": "dramas", "western": "westerns",
    "musical": "musicals", "mystery": "mysteries", "documentary": "documentaries",
    "biography": "biopics", "romance": "romantic movies", "animation": "animated films",
}  # fmt: skip
SILENT_EXIT = 0.85  # real CRSArena-Dial users close with thanks or a goodbye in 7 % of dialogues
TITLE_RATE = 0.3  # share of reactions that name the film (real users name a title in 6 % of turns)
# real users open 3 % of turns with one of these
PREFIXES = ("ok", "okay", "so", "oh", "well")
SUFFIXES = ("please", "then", "thanks")
VAGUE = 0.2  # share of openings that ask for a movie without saying which (real: about a quarter)
LIKED = 0.2  # share of one-genre wishes said with a film the user liked (real users name a title in 6 % of turns)
# what a user often says in the same turn after saying it has seen a film or likes it, and how often
FOLLOW = {"seen": ("more", 0.8), "accept": ("ask", 0.6)}
# share of openings after a sentence about the user's situation ("I'm bored tonight.")
CONTEXT = 0.3
SEEN = 0.1  # share of fitting films the user has seen (CRSArena-Dial: "seen" in 2 % of user turns)
# share of a careful writer's statements that end with a full stop (real: 16 % of non-questions)
FULL_STOP = 0.3
_KEEP = set(  # words the wish readers cue on (crseval.simulation.nlu, crseval.text.movie_text)
    "nothing without instead enough tired anything rather forget about involving featuring story stories "
    "combine combination blend along start scratch everything".split()
)


_MATCHERS: dict[int, tuple[MovieKB, TitleMatcher, dict[str, int]]] = {}


def _matcher(kb: MovieKB) -> tuple[TitleMatcher, dict[str, int]]:
    """The catalogue's title matcher and row of each id, built once per catalogue (``load_kb`` caches it)."""
    if id(kb) not in _MATCHERS or _MATCHERS[id(kb)][0] is not kb:
        _MATCHERS[id(kb)] = (
            kb,
            TitleMatcher(kb.movies),
            {m.id: i for i, m in enumerate(kb.movies)},
        )
    return _MATCHERS[id(kb)][1:]


@dataclass
class Reading:
    """What a reply offered: (key, catalogue row or None) per title named, and whether it asked."""

    titles: list[tuple[str, str, int | None]] = field(default_factory=list)  # (surface, key, row)
    question: bool = False


@dataclass
class RealisticUser(UserSimulator):
    """:class:`UserSimulator`'s wishes, a real user's way of talking (see the module docstring); ``book``:
    its phrasebook (:func:`crseval.simulation.phrasebook.book_from_dialogues` grounds one in real users)."""

    book: dict[str, tuple[str, ...]] = field(default_factory=lambda: BOOK)
    # no plot-keyword wishes: a catalogue's plot words ("a story involving prevent") are no one's request
    shift_weights = (0.5, 0.15, 0.15, 0.1, 0.05, 0.05, 0.0)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.patience = float(self.rng.integers(3, 7))  # bad replies it takes
        self.goal = int(self.rng.integers(1, 4))  # films accepted before it is done
        self.stamina = int(self.rng.integers(3, 11))  # turns after which it stops anyway
        self.accepted = 0
        self.offered: set[str] = set()
        self.named: set[str] = set()  # catalogue ids of the films it named as ones it liked
        self.wished = False  # the wish said at least once
        self.several = False  # the last reply named more than one film
        self.end: str | None = None
        # a user's own way of writing, kept all dialogue (CRSArena-Dial: 30 % of turns start lower-case,
        # 51 % end without punctuation, "i" in 4 % of turns and "I" in 20 %; some users misspell often)
        self.lower, self.bare, self.sloppy, small = self.rng.random(4) < (0.3, 0.5, 0.25, 0.5)
        self.small_i = self.lower and small

    # ---- public ------------------------------------------------------------------------------
    def opening(self) -> tuple[str, TurnTruth]:
        r = self.rng.random()
        if r < 0.12:  # a greeting alone: the wish comes next turn
            return self._say(self._phrase("greet"), "greet", topics=[])
        # a movie asked for, but no wish yet: it comes in the next turn
        if r < 0.12 + VAGUE and "vague" in self.book:
            text = self._phrase("vague")
            if r < 0.12 + VAGUE / 2 and not cues(text)["greeting"]:
                text = join(self._phrase("greet"), text, ", ")
            return self._say(text, "open", topics=[])
        self.wished = True
        text = self._wish("open")
        if r < 0.45 and not cues(text)["greeting"]:
            text = join(self._phrase("greet"), text, ", ")
        return self._say(text, "open")

    def reply(self, turn: int, system_text: str) -> tuple[str, TurnTruth] | None:
        """The user's next turn after the CRS said ``system_text``, or None when it leaves without a word
        (as most real users do); :attr:`end` then says how it left."""
        seen = self._read(system_text)
        self.several = len(seen.titles) > 1
        verdict, title = self._judge(seen)
        if verdict == "fits":
            self.patience = min(self.patience + 0.5, 5.0)
        elif verdict in ("misfit", "repeat", "unknown", "no_title", "named"):
            self.patience -= 0.5 if verdict in ("unknown", "named") else 1.0
        if self.patience <= 0:
            return self._leave("frustrated")
        if (self.accepted >= self.goal and turn >= 2) or turn >= self.stamina:
            return self._leave("satisfied" if self.accepted else "frustrated")
        if not self.wished:
            self.wished = True
            return self._say(self._wish("open"), "open")
        react, act = self._react(verdict, title)
        if self.rng.random() < CHATTER:  # small talk, meta questions: what real users also say
            react, act = self._phrase("other"), "other"
        # a new wish: on schedule, or early after a film it liked (what next?) or a reply that missed
        # (try asking for something else), as real users do
        early = {"accept": 0.5, "reject": 0.35, "complain": 0.35, "request": 0.35}.get(act, 0.0)
        if turn >= self.next_shift or self.rng.random() < early:
            self._schedule(turn)
            text, truth = self._shift()
            joined = 0.7 if act == "accept" else 0.3  # "ok thanks. What about …"
            if react and self.rng.random() < joined:
                text = join(react, text)
            return self._out(text, {**truth, "act": "shift"})
        if act in FOLLOW:  # "seen it. any others?", "Thanks. What is it about?"
            then, chance = FOLLOW[act]
            if self.rng.random() < chance:
                react = join(react, self._phrase(then, title=title))
        return self._say(react, act)

    def _genre(self, options: list[str]) -> str:
        """Genres are wanted as people ask for them: a genre's chance is its share of ReDial seekers' requests
        (:data:`REQUESTED`; one more for each, so a genre nobody asked for can still come up)."""
        size = np.array([REQUESTED.get(g, 0) + 1 for g in options], float)
        return str(self.rng.choice(options, p=size / size.sum()))

    def _attribute(self, kind: str) -> Any:
        """As :class:`UserSimulator`, but a person is wanted as people want them: one with many films in the
        catalogue more often (chance ∝ films²), not an extra from one film."""
        if kind not in ("actor", "director", "writer"):
            return super()._attribute(kind)
        pool = set.intersection(*(self.kb.genres[g] for g in self.prefs["genre"]))
        films = self.kb.movies
        names = sorted({v for i in pool for v in films[i].get(kind) or [] if " " in v})
        if not names:
            return None
        size = np.array([len(self.kb.index[kind][v.lower()]) for v in names], float) ** 2
        return str(self.rng.choice(names, p=size / size.sum()))

    def _truth(self, shift: bool, *args: Any, **kwargs: Any) -> TurnTruth:
        """:class:`UserSimulator`'s truth, plus ``named``: the catalogue films the user named as liked."""
        truth = super()._truth(shift, *args, **kwargs)
        return {**truth, "named": sorted(self.named)} if self.named else truth

    def _examples(self, act: str) -> list[str]:
        shown = [t for t in self.book.get(act, ()) if "{" not in t] or list(self.book["genre"])
        return [expand(shown[int(i)], self.rng) for i in self.rng.permutation(len(shown))[:4]]

    # ---- reading a reply ----------------------------------------------------------------------
    def _read(self, text: str) -> Reading:
        matcher, row = _matcher(self.kb)
        out = Reading(question=text.rstrip().endswith("?"))
        for m in matcher.find(text):
            key = m.item or title_key(m.surface)[0]
            out.titles.append((m.surface, key, row.get(m.item) if m.item else None))
        return out

    def _fits(self, row: int) -> bool:
        """Whether a catalogue film satisfies every wish the user has now (its logged topics)."""
        return all(self.kb.holds(row, c) for c in self._truth(False)["topics"])

    def _judge(self, seen: Reading) -> tuple[str, str]:
        """The verdict on a reply (fits, seen, misfit, repeat, unknown, no_title, question) and the title
        it is about; every title named joins what was offered."""
        if not seen.titles:
            return ("question" if seen.question else "no_title"), ""
        new = [t for t in seen.titles if t[1] not in self.offered]
        self.offered |= {t[1] for t in seen.titles}
        if not new:
            return "repeat", seen.titles[0][0]
        if all(t[1] in self.named for t in new):
            return "named", new[0][0]
        new = [t for t in new if t[1] not in self.named]  # its own favourite is no find
        fitting = [t for t in new if t[2] is not None and self._fits(t[2])]
        if fitting:
            return "fits", fitting[0][0]
        known = [t for t in new if t[2] is not None]
        return ("misfit", known[0][0]) if known else ("unknown", new[0][0])

    def _react(self, verdict: str, title: str) -> tuple[str, str]:
        """(what the user says, its act) about a reply judged ``verdict``."""
        if verdict == "fits":
            r = self.rng.random()
            if r < SEEN:
                return self._phrase("seen", title=title), "seen"
            if r < SEEN + 0.35:
                return self._phrase("ask", title=title), "ask"
            self.accepted += 1
            return self._phrase("accept", title=title), "accept"
        if verdict == "named":  # the CRS offers the film the user named: seen, of course
            return self._phrase("seen", title=title), "seen"
        if verdict == "question":
            if set(self.prefs) <= {"genre", "like"} and len(self.prefs["genre"]) == 1:
                return self._wish("answer"), "answer"
            return self._phrase("answer", want=self._want()), "answer"
        if verdict == "unknown" and self.rng.random() < 0.5:
            return self._phrase("ask", title=title), "ask"
        if verdict in ("misfit", "repeat") and self.rng.random() < 0.5:  # a plain no
            return self._phrase("reject", title=title), "reject"
        if verdict == "misfit":  # or the wish said again
            return self._phrase("misfit", title=title, want=self._want()), "reject"
        act = {"repeat": "complain", "unknown": "complain", "no_title": "request"}[verdict]
        return self._phrase(verdict, title=title), act

    # ---- speaking -----------------------------------------------------------------------------
    def _wish(self, act: str) -> str:
        """The user's one genre asked for in ``act``'s words, or now and then beside a catalogue film of that
        genre it liked ("I like comedies like Airplane!")."""
        genre = self.prefs["genre"][0]
        if "liked" in self.book and self.rng.random() < LIKED:
            films = sorted(self.kb.genres.get(genre, ()))
            if films:
                film = self.kb.movies[int(films[int(self.rng.integers(len(films)))])]
                self.named.add(film.id)
                self.prefs["like"] = (
                    film.title
                )  # said, so logged: a film like it (until the genre changes)
                return self._phrase("liked", genre=genre, title=film.title)
        return self._phrase(act, genre=genre, want=self._want())

    def _want(self) -> str:
        """The user's newest wish in words ("comedy movies", "something from the 1990s", …)."""
        extra = [k for k in self.prefs if k not in ("genre", "like")]
        if extra:
            kind, value = extra[-1], self.prefs[extra[-1]]
            return {
                "year": f"something from the {value}",
                "language": f"a {value} movie",
                "plot": f"a movie about {value}",
                "director": f"a movie by {value}",
                "writer": f"something written by {value}",
            }.get(kind, f"a movie with {value}")
        genres = self.prefs["genre"]
        if len(genres) > 1 or self.rng.random() < 0.4:
            return " and ".join(SPOKEN.get(g, g) for g in genres) + " movies"
        return _spoken({"genre": genres[0]})["genres"]

    def _phrase(self, act: str, **slots: str) -> str:
        slots = _spoken(slots)
        options = [t for t in self.book[act] if set(_SLOT.findall(t)) <= set(slots)]
        if "title" in slots and self.rng.random() > TITLE_RATE:  # real users seldom repeat a title
            options = [t for t in options if "{title}" not in t] or options
        if "title" in slots and not self.several:  # about one film: no "those", "them", "all of"
            options = [t for t in options if not _SEVERAL.search(t)] or options
        template = expand(str(self._pick(options or self.book[act])), self.rng)
        if (
            act == "open"
            and "context" in self.book
            and not cues(template)["greeting"]
            and self.rng.random() < CONTEXT
        ):
            template = expand(self._pick(self.book["context"]), self.rng) + " " + template
        if self.sloppy and self.rng.random() < 0.25:
            template = _typo(template, self.rng)
        text = articles(template.format(**slots))
        if (
            act not in ("greet", "open")
            and first_word(text) not in PREFIXES
            and self.rng.random() < 0.05
        ):
            text = self._pick(PREFIXES) + " " + lower_first(text)
        if (
            act != "greet"
            and not text.endswith("?")
            and self.rng.random() < 0.04
            and not text.rstrip(".!").endswith(SUFFIXES)  # no "… please please"
        ):
            text = text.rstrip(".!") + " " + self._pick(SUFFIXES)
        if self.lower or self.rng.random() < 0.1:
            text = lower_first(text)
        else:  # the book is written mostly lower-case; the user's own hand capitalises
            text = text[:1].upper() + text[1:]
        if self.small_i:
            text = re.sub(r"\bI(?=\b|')", "i", text)
        if text[-1:] in ".!" and self.rng.random() < (0.85 if self.bare else 0.2):
            text = text[:-1]
        elif text[-1:].isalnum() and not self.bare and self.rng.random() < FULL_STOP:
            text += "."
        return text

    def _say(self, text: str, act: str, topics: list[str] | None = None) -> tuple[str, TurnTruth]:
        truth = {**self._truth(False), "act": act}
        if topics is not None:
            truth["topics"] = topics
        return self._out(text, truth)

    def _leave(self, end: str) -> tuple[str, TurnTruth] | None:
        self.end = end
        if self.rng.random() < SILENT_EXIT:
            return None
        act = "thanks" if end == "satisfied" else "quit"
        text, truth = self._say(self._phrase(act), act)
        return text, {**truth, "end": end}

    # the wording of a logged shift, from the book: the truth says what changed
    def _shift(self) -> tuple[str, TurnTruth]:
        _, truth = super()._shift()
        kind, new, old = truth["kind"], truth["to"], truth["from"]
        if kind == "genre":
            text = (
                self._phrase("blend", genre=new[0], genre2=new[1])
                if truth["blend"]
                else self._phrase("genre", genre=new[0])
            )
            old = " and ".join(old or [])
        else:
            slot = {"year": "year", "language": "language", "plot": "topic"}.get(kind, "person")
            text = self._phrase(kind, **{slot: str(new)})
        if truth["contradiction"] and old:  # two sentences, whatever the user's hand
            text = join(self._phrase("take_back", old=str(old)), text)
        self.wished = True
        return text, truth


def _spoken(slots: dict[str, str]) -> dict[str, str]:
    """Genres as people write them ("sports", "biopic"; ``genres``: "comedies"); the CRS's rules read every
    one of them."""
    out = {k: SPOKEN.get(v, v) if k.startswith("genre") else v for k, v in slots.items()}
    if "genre" in slots:
        out["genres"] = PLURAL.get(slots["genre"], out["genre"] + " movies")
    return out


def _typo(template: str, rng: np.random.Generator) -> str:
    """One slip in a word of five letters or more outside the slots: two letters swapped, one dropped or
    doubled ("recomend", "reccomend", "baout") — never in a slot or a word a CRS's rules read a wish by
    (negation, blend, "about"), so the wish still reads."""
    spots = [
        m
        for m in re.finditer(r"(?<![{'])\b[a-z]{5,}\b(?![}'])", template)
        if m.group() not in _KEEP
    ]
    if not spots:
        return template
    m = spots[int(rng.integers(len(spots)))]
    w, i = m.group(), int(rng.integers(1, len(m.group()) - 2))
    slips = {w[:i] + w[i + 1] + w[i] + w[i + 2 :], w[:i] + w[i + 1 :], w[:i] + w[i] + w[i:]} - {w}
    slip = sorted(slips)[int(rng.integers(len(slips)))]
    return template[: m.start()] + slip + template[m.end() :]
