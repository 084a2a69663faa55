"""Rules that read movie talk: genre cues (with negation), years and decades, and KB titles named in a
text. Public and shared: the rule-based CRS understands users with them (:mod:`crseval.simulation.nlu`)
and the keyword topic extractor (:mod:`crseval.text.topics`) reads utterances with them, so both
parse movie text the same way without one importing the other's internals."""

from __future__ import annotations

import re

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from crseval.data.kb import TITLE_TOKEN, MovieKB
from crseval.data.opendialkg import GENRE_MAP, GENRES
from crseval.data.phrases import PhraseIndex

_EXTRA_CUES = {
    "sci fi": "sci-fi",
    "scifi": "sci-fi",
    "science-fiction": "sci-fi",
    "comedies": "comedy",
    "funny": "comedy",
    "dramas": "drama",
    "thrillers": "thriller",
    "scary": "horror",
    "romantic": "romance",
    "rom-com": "romance",
    "animated": "animation",
    "cartoon": "animation",
    "cartoons": "animation",
    "westerns": "western",
    "musicals": "musical",
    "mysteries": "mystery",
    "documentaries": "documentary",
    "war movie": "war",
    "war movies": "war",
    "superhero": "superhero",
    "superheroes": "superhero",
    "biopic": "biography",
    "biopics": "biography",
    "historical": "history",
    "sports": "sport",
    "crime movies": "crime",
    "action movies": "action",
    "adventures": "adventure",
    "fantasy movies": "fantasy",
    "indie": "indie",
    "disaster movie": "disaster",
    "teen movie": "teen",
    "family movie": "family",
    "horror movies": "horror",
}
GENRE_CUES: dict[str, tuple[str, ...]] = {
    **{g: (g,) for g in GENRES},
    **GENRE_MAP,
    **{k: (v,) for k, v in _EXTRA_CUES.items()},
}
# every cue, and the plural of every one-word cue that is not a cue itself ("comedies" is; "thrillers" →
# thriller) — but "wars": real users who say it ask for Star Wars, not war films
_CUES = PhraseIndex(
    [(tuple(c.split()), g) for c, g in GENRE_CUES.items()]
    + [
        ((c + "s",), g)
        for c, g in GENRE_CUES.items()
        if " " not in c and c + "s" not in GENRE_CUES and c != "war"
    ]
)
NEGATION = re.compile(
    r"\b(no|not|no more|nothing|without|instead of|enough|tired of|anything but|don't|do not|"
    r"rather than|forget|skip|drop|stop)\b[\w\s'-]{0,24}$"
)
DECADE = re.compile(r"\b(?:(19|20)(\d)0s|'?([2-9])0s)\b")
YEAR = re.compile(
    r"\b(before|after|since|from|older than|newer than|in|around)?\s*((?:19|20)\d{2})\b(?!s)"
)


def genre_spans(text: str) -> list[tuple[int, int, str, bool]]:
    """(start, end, canonical genre, negated) of every genre cue in ``text`` (character offsets), longest
    cue first; a cue naming several genres yields a span for each."""
    low = text.lower()
    toks = list(re.finditer(r"[a-z][a-z'-]*", low))
    out, used = [], bytearray(len(toks))
    for s, n, canon in sorted(_CUES.find([t.group() for t in toks]), key=lambda h: (-h[1], h[0])):
        if any(used[s : s + n]):
            continue
        used[s : s + n] = b"\x01" * n
        neg = bool(NEGATION.search(low[max(0, toks[s].start() - 30) : toks[s].start()]))
        out += [(toks[s].start(), toks[s + n - 1].end(), c, neg) for c in canon]
    return out


def genre_mentions(text: str) -> list[tuple[str, bool]]:
    """(canonical genre, negated) for every genre cue, longest cue first."""
    return [(g, neg) for _, _, g, neg in genre_spans(text)]


def years(text: str) -> tuple[int | None, int | None] | None:
    """The year range a text asks for: a decade ('90s', '1990s'), or a year with 'before/after/since'."""
    m = DECADE.search(text)
    if m:
        start = int(m.group(1) + m.group(2) + "0") if m.group(1) else 1900 + int(m.group(3)) * 10
        return (start, start + 9)
    m = YEAR.search(text.lower())
    if m:
        y, how = int(m.group(2)), (m.group(1) or "").strip()
        if how in ("before", "older than"):
            return (None, y - 1)
        if how in ("after", "newer than"):
            return (y + 1, None)
        if how == "since":
            return (y, None)
        return (y, y)
    return None


def mentioned_titles(kb: MovieKB, text: str) -> list[str]:
    """KB titles mentioned in ``text``, in order of appearance (whole words, case-insensitive,
    punctuation ignored). One-word titles ("Heat", "Up") count only as written and never when they are
    stop words; a title inside a longer mentioned title ("Batman" in "Batman Returns") is not reported."""
    toks = TITLE_TOKEN.findall(text)
    low = [t.lower() for t in toks]
    hits = [
        (s, n, display)
        for s, n, display in kb.title_phrases.find(low)
        if n > 1
        or not (
            low[s] in ENGLISH_STOP_WORDS
            or len(low[s]) < 3
            or toks[s] != TITLE_TOKEN.findall(display)[0]
        )
    ]
    taken = bytearray(len(low))
    kept = []
    for s, n, display in sorted(hits, key=lambda h: -h[1]):
        if not any(taken[s : s + n]):
            taken[s : s + n] = b"\x01" * n
            kept.append((s, display))
    return list(dict.fromkeys(d for _, d in sorted(kept)))
