"""The movie knowledge base behind preference-shift runs: one index per attribute.

The same KB feeds the CRS's retrieval, the user simulator's attribute pools and the text models
(TF-IDF, LDA). Indexes map a lower-cased value to the set of movie positions: genre (canonical
genres from :mod:`crseval.data.opendialkg`), actor, director, writer, language, name, plot keyword
and year. Plot keywords are content words that occur in at least 2 and at most ``max_df`` of the
plots, so "man" or "story" never become a constraint.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from crseval.core.types import Item
from crseval.data.io import DatasetInfo
from crseval.data.phrases import PhraseIndex

ATTRIBUTES = ("actor", "director", "writer", "language")
WORD = re.compile(r"[a-z][a-z'-]+")
TITLE_TOKEN = re.compile(r"\w+(?:'\w+)?")
_GENERIC = {
    "movie",
    "film",
    "story",
    "life",
    "young",
    "new",
    "world",
    "man",
    "woman",
    "help",
    "finds",
    "tries",
    "years",
    "year",
    "time",
    "family",
    "friends",
    "becomes",
    "must",
    "after",
    "when",
    "lives",
    "find",
    "old",
    "two",
    "one",
    "three",
    "get",
    "gets",
    "takes",
    "set",
    "make",
    "begins",
    "goes",
    "comes",
    "day",
    "way",
}


def words(text: str) -> list[str]:
    return WORD.findall(text.lower())


@dataclass
class MovieKB:
    info: DatasetInfo
    movies: list[Item]
    max_df: float = 0.02
    genres: dict[str, set[int]] = field(init=False, repr=False)
    index: dict[str, dict[str, set[int]]] = field(init=False, repr=False)
    keywords: dict[str, set[int]] = field(init=False, repr=False)
    years: dict[int, set[int]] = field(init=False, repr=False)
    names: dict[str, tuple[str, str]] = field(
        init=False, repr=False
    )  # lower value → (attribute, display)
    title_phrases: PhraseIndex = field(
        init=False, repr=False
    )  # title words (lower case) → display titles
    name_phrases: PhraseIndex = field(init=False, repr=False)  # name words → (attribute, display)

    def __post_init__(self) -> None:
        self.genres = defaultdict(set)
        self.index = {a: defaultdict(set) for a in (*ATTRIBUTES, "name")}
        self.years = defaultdict(set)
        self.names = {}
        df: dict[str, set[int]] = defaultdict(set)
        for i, m in enumerate(self.movies):
            for g in m.get("genres", []):
                self.genres[g].add(i)
            for a in ATTRIBUTES:
                for v in m.get(a, []) or []:
                    self.index[a][v.lower()].add(i)
                    self.names.setdefault(v.lower(), (a, v))
            self.index["name"][m.title.lower()].add(i)
            if m.get("year"):
                self.years[int(m.get("year"))].add(i)
            for w in set(words(m.get("plot", ""))):
                if len(w) >= 4 and w not in ENGLISH_STOP_WORDS and w not in _GENERIC:
                    df[w].add(i)
        cap = max(2, int(self.max_df * len(self.movies)))
        self.keywords = {w: s for w, s in df.items() if 2 <= len(s) <= cap}
        self.genres, self.years = dict(self.genres), dict(self.years)
        self.index = {a: dict(v) for a, v in self.index.items()}
        self.title_phrases = PhraseIndex(
            (seq, m.title)
            for m in self.movies
            if (seq := tuple(t.lower() for t in TITLE_TOKEN.findall(m.title)))
        )
        self.name_phrases = PhraseIndex((tuple(v.split(" ")), hit) for v, hit in self.names.items())

    def __len__(self) -> int:
        return len(self.movies)

    @property
    def newest(self) -> int | None:
        """The latest year of a catalogue film (None: no film has a year)."""
        return max(self.years, default=None)

    def texts(self, corpus: str = "joined") -> list[str]:
        """What the text models are fitted on: ``joined`` — one document "title. plot" per movie;
        ``separate`` — every title, then every non-empty plot, as documents of their own (the original
        preference-shift study's TF-IDF corpus)."""
        if corpus == "separate":
            return [m.title for m in self.movies] + [
                m.get("plot") for m in self.movies if m.get("plot")
            ]
        return [f"{m.title}. {m.get('plot', '')}" for m in self.movies]

    def plot_keywords(self, i: int) -> list[str]:
        return sorted({w for w in words(self.movies[i].get("plot", "")) if w in self.keywords})

    def holds(self, row: int, constraint: str) -> bool:
        """Whether catalogue entry ``row`` satisfies ``constraint`` (``genre:g``, ``year:1990s`` — a decade —
        or ``year:LO-HI`` with either end open, ``actor:Name`` and the other attributes, ``plot:keyword``,
        ``like:Title`` — a film sharing a genre with that catalogue film, other than itself):
        what a user who wants it would accept, read from the catalogue's facts."""
        kind, _, value = constraint.partition(":")
        if kind == "genre":
            return row in self.genres.get(value, ())
        if kind == "year":
            year = self.movies[row].get("year")
            if not year:
                return False
            if value.endswith("s") and value[:-1].isdigit():  # a decade: 1990s
                return int(year) // 10 * 10 == int(value[:-1])
            lo, _, hi = value.partition("-")  # a range read from words: 1995-, -1980, 1999-1999
            return (not lo or int(year) >= int(lo)) and (not hi or int(year) <= int(hi))
        if kind in ATTRIBUTES:
            return row in self.index[kind].get(value.lower(), ())
        if kind == "plot":
            return value in self.plot_keywords(row)
        if kind == "like":  # a film like the one named: shares a genre with it, and is not it
            refs = self.index["name"].get(value.lower(), ())
            mine = set(self.movies[row].get("genres") or [])
            return row not in refs and any(
                mine & set(self.movies[r].get("genres") or []) for r in refs
            )
        return False

    def find_names(self, text: str) -> list[tuple[str, str]]:
        """(attribute, value) for every actor/director/writer/language named in ``text`` (longest match
        first, by word n-grams; a name inside a longer matched name is not reported twice)."""
        toks = [t.strip(".") for t in re.findall(r"[\w'.-]+", text.lower())]
        hits = sorted(
            (n, s, hit)
            for s, n, hit in self.name_phrases.find(toks)
            if n > 1 or hit[0] == "language"
        )  # one-word people names are too ambiguous
        out, used = [], bytearray(len(toks))
        for n, s, hit in sorted(hits, key=lambda h: (-h[0], h[1])):
            if not any(used[s : s + n]):
                used[s : s + n] = b"\x01" * n
                out.append(hit)
        return out


def load_kb(path: str | Path | None = None) -> MovieKB:
    """The movie catalogue at ``path`` (the OpenDialKG KB, ReDial's movies_id2info.json, MovieLens
    movies.csv), or the bundled sample catalogue when ``path`` is None or 'sample'."""
    return _load_kb(str(Path(path).resolve()) if path and str(path) != "sample" else None)


@lru_cache(maxsize=4)
def _load_kb(path: str | None) -> MovieKB:
    from crseval.data.catalogs import load_catalog

    catalog = load_catalog(path)  # read by its layout: named the same by every command
    return MovieKB(catalog.info, catalog.items)
