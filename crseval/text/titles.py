"""Ground movie titles written in dialogue text in a catalogue: exact and fuzzy title + year matching.

A title's *key* is its lower-case words without the year, a leading article or a MovieLens-style moved
article (``Matrix, The (1999)`` → ``matrix``). :meth:`TitleMatcher.match_title` grounds one title
string: its key (or, for a span such as "Try Police Academy", the longest key among its word suffixes),
else the closest key by ``rapidfuzz`` ratio ≥ ``min_score``; a written year must agree within a year.
Several items under one key (remakes) are told apart by the year, else the earliest is taken and the
mention is marked ambiguous.

:meth:`TitleMatcher.find` reads free text. It finds (1) catalogue titles written as whole words (one-word
titles and lower-case two-word ones only when a year follows, they are quoted or, for one word, not at
the start of a sentence) and (2) *title-like spans* whatever the catalogue holds: quoted or bold text,
the head of a list item, capitalised words before ``(YYYY)``. A span is grounded as a whole or not at
all, so "The Dark Knight Returns 2 (2019)" is out of catalogue rather than "The Dark Knight". Spans that
no catalogue item matches are the *out-of-catalogue* (possibly hallucinated) mentions.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from crseval.core.types import Item
from crseval.data.phrases import PhraseIndex

WORD = re.compile(r"\w+(?:['’]\w+)*")
ARTICLES = ("the", "a", "an")
_YEAR_TAIL = re.compile(r"\s*\((\d{4})\)\s*$")
_MOVED_ARTICLE = re.compile(r"^(.*), (The|A|An)(\s*\(.*)?$")
_AKA = re.compile(r"\s*\((?:a\.k\.a\.|aka)[^)]*\)", re.I)
_YEAR_AFTER = re.compile(r"^\s*[(\[]\s*((?:19|20)\d{2})\s*[)\]]|^,?\s*((?:19|20)\d{2})\b")
_FUNCTION = {
    "of",
    "the",
    "a",
    "an",
    "and",
    "in",
    "on",
    "to",
    "for",
    "with",
    "at",
    "from",
    "vs",
    "or",
    "is",
    "&",
}
# also written in lower case inside catalogue titles ("Stand by Me", "Stranger than Fiction", "As Good as It
# Gets"): read as part of a catalogue title, never as a reason to extend a guess at an unknown one
_INSIDE = {"by", "as", "than", "if", "but", "like", "till", "up", "into"}
_SPANS = [
    re.compile(p)
    for p in (
        r'"([^"\n]{2,80})"',
        r"“([^”\n]{2,80})”",
        r"\*\*([^*\n]{2,80})\*\*",
        r"(?<!\*)\*([^*\n]{2,80})\*(?!\*)",
        r"(?m)^\s*(?:\d{1,2}[.)]|[-*•])\s+(?:\*\*)?([^\n:–—(*\"]{2,80}?)(?:\*\*)?\s*(?=[:–—(]| - |$)",
    )
]
YEAR_TOLERANCE = 1  # a written year grounds a title whose year is at most this far from it
_YEAR_IN_PARENS = re.compile(r"\(((?:19|20)\d{2})\)")
_YEAR_WINDOW = 400
_TOKEN = re.compile(r"\S+")
# a title's words: letters and digits with the punctuation catalogues write inside titles ("Face/Off", "61*",
# "Romeo + Juliet", "\"Crocodile\" Dundee", "¡Three Amigos!", "Legend № 17")
_TITLE_WORD = r"[\w'’:&.,!?–—\-/*+\"“”№¡¿]+"
_BEFORE_YEAR = re.compile(rf"((?:{_TITLE_WORD}\s+){{0,15}}{_TITLE_WORD})\s*\(((?:19|20)\d{{2}})\)")


def _before_year(text: str):
    """``_BEFORE_YEAR.finditer(text)``, searched only in the sixteen tokens (at most ``_YEAR_WINDOW`` characters)
    before each "(YYYY)": every match ends in one and none can span another (its words exclude parentheses).
    Scanning every position of a long reply was most of the grounding time."""
    pos = 0
    for year in _YEAR_IN_PARENS.finditer(text):
        if year.start() < pos:
            continue
        # a match's words sit in the last sixteen whitespace-separated tokens before the year: start at the 17th
        starts = [
            t.start()
            for t in _TOKEN.finditer(text, max(pos, year.start() - _YEAR_WINDOW), year.start())
        ]
        start = starts[-17] if len(starts) > 17 else max(pos, year.start() - _YEAR_WINDOW)
        if m := _BEFORE_YEAR.search(text, start, year.end()):
            pos = m.end()
            yield m


def _unwrapped(written: str) -> tuple[int, str]:
    """(characters cut at the start, the title) of a title written in markdown emphasis or quotes:
    "**Her**" and '"Her"' → "Her"; '"Crocodile" Dundee' and "Sex*" stay as they are."""
    stars = len(written) - len(written.lstrip("*_"))
    t = written[stars:]
    if stars and t.endswith(written[:stars]):
        t = t[:-stars]
    inner = sum(c in '"“”' for c in t[1:-1])
    if len(t) > 2 and t[0] in '"“' and t[-1] in '"”' and not inner:
        return stars + 1, t[1:-1]
    if t[:1] in '"“' and (inner + (t[-1] in '"”')) % 2 == 0:  # an opening quote left alone
        return stars + 1, t[1:]
    return stars, t


def _connector(word: str) -> bool:
    """A word that may sit inside a title between capitalised words ("of", "vs.", "&", "–")."""
    return word.lower().strip(".,:;") in _FUNCTION or not any(ch.isalnum() for ch in word)


def _capital(word: str) -> bool:
    """A word written as in a title: a capital letter in it ("Frozen", "eXistenZ", "xXx") or a digit first."""
    return bool(word) and (word[0].isdigit() or any(ch.isupper() for ch in word))


def _tail(title: str, n: int) -> str:
    """The last ``n`` words of a written title (its year dropped), with the punctuation between them."""
    t = _YEAR_TAIL.sub("", title)
    toks = list(WORD.finditer(t))
    return t[toks[-n].start() :].strip() if 0 < n <= len(toks) else title


def title_key(title: str) -> tuple[str, int | None]:
    """(key, year) of a catalogue or written title."""
    t = _AKA.sub("", title.strip())
    m = _YEAR_TAIL.search(t)
    year = int(m.group(1)) if m else None
    t = t[: m.start()] if m else t
    moved = _MOVED_ARTICLE.match(t)
    if moved:
        t = f"{moved.group(2)} {moved.group(1)}"
    words = [w.lower().replace("’", "'") for w in WORD.findall(t)]
    if len(words) > 1 and words[0] in ARTICLES:
        words = words[1:]
    return " ".join(words), year


@dataclass(frozen=True)
class Mention:
    surface: str  # as written (a catalogue title when read from labelled mentions)
    item: str | None  # catalogue id; None = out of catalogue
    how: str  # exact | fuzzy | none
    ambiguous: bool = False
    start: int = 0  # character offset in the text


_INITIAL = re.compile(r"(?:^|[\s.])[A-Z]\.$")  # "A." of "A.I.": an initial, not a sentence's end
_NAME_AFTER = re.compile(r"[ \t]+[A-Z][a-z]+\b")  # a capitalised word right after: a name's surname


class TitleMatcher:
    def __init__(self, items: list[Item], min_score: float = 90.0) -> None:
        self.items = {it.id: it for it in items}
        self.min_score = min_score
        self.by_key: dict[str, list[Item]] = {}
        for it in items:
            key, year = title_key(it.title)
            if key:
                self.by_key.setdefault(key, []).append(it)
        for group in self.by_key.values():
            group.sort(key=lambda it: (it.get("year") or 9999, it.id))
        self._keys = list(self.by_key)
        # words written in lower case in at least two plots are everyday words, not evidence of a title
        plots = Counter(
            w for it in items for w in set(re.findall(r"\b[a-z][a-z']+\b", it.get("plot") or ""))
        )
        # scikit-learn's list, imported here: importing scikit-learn costs ~1.5 s, the module nothing
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

        self._stop = ENGLISH_STOP_WORDS
        self._common = set(ENGLISH_STOP_WORDS) | {w for w, c in plots.items() if c >= 2}
        self._phrases = PhraseIndex((tuple(k.split(" ")), k) for k in self._keys)
        self._grounded: dict[
            tuple[str, int | None], Mention
        ] = {}  # match_title is pure: the same title recurs

    def _pick(self, key: str, year: int | None) -> tuple[Item, bool] | None:
        group = self.by_key[key]
        if year is None:
            return group[0], len(group) > 1
        near = sorted((abs((it.get("year") or -99) - year), i) for i, it in enumerate(group))
        return (group[near[0][1]], False) if near[0][0] <= YEAR_TOLERANCE else None

    def match_title(self, title: str, year: int | None = None) -> Mention:
        """Ground one written title (``Title (Year)``, or a span ending in a title); ``year`` overrides."""
        if (title, year) not in self._grounded:
            self._grounded[title, year] = self._match_title(title, year)
        return self._grounded[title, year]

    def _match_title(self, title: str, year: int | None) -> Mention:
        key, written = title_key(title)
        year = year if year is not None else written
        words = key.split(" ")
        for i in range(
            len(words)
        ):  # the whole span, then shorter word suffixes ("try police academy")
            sub = " ".join(words[i:] if i == 0 or words[i] not in ARTICLES else words[i + 1 :])
            if sub in self.by_key and (i == 0 or len(words) - i >= 2 or sub not in self._stop):
                hit = self._pick(sub, year)
                if hit:
                    return Mention(
                        title if i == 0 else _tail(title, len(words) - i),
                        hit[0].id,
                        "exact",
                        hit[1],
                    )
        if key and len(key) >= 4:
            best = process.extractOne(
                key, self._keys, scorer=fuzz.ratio, score_cutoff=self.min_score
            )
            if best and (hit := self._pick(best[0], year)):
                return Mention(title, hit[0].id, "fuzzy", hit[1])
        return Mention(title, None, "none")

    def find(self, text: str) -> list[Mention]:
        """Every title in ``text`` (catalogue titles and title-like spans), in order, once per item/span."""
        toks = list(WORD.finditer(text))
        spans = self._spans(text)
        taken = [(s, e) for s, e, _ in spans]
        out = [(s, self.match_title(surface, year)) for s, e, (surface, year) in spans]
        low = [t.group().lower().replace("’", "'") for t in toks]
        for s, n, key in sorted(self._phrases.find(low), key=lambda h: (-h[1], h[0])):
            a, b = toks[s].start(), toks[s + n - 1].end()
            over = [i for i, (s_, e) in enumerate(taken) if a < e and s_ < b]
            # a catalogue title may cover shorter guesses that ground to nothing ("- The Meyerowitz
            # Stories (New and Selected) (2017)": a list item's span ends at its first bracket)
            guesses = [i for i in over if i < len(spans) and out[i][1].item is None]
            if len(guesses) < len(over) or any(taken[i][1] > b for i in over):
                continue
            before = text[min([a, *(taken[i][0] for i in over)]) : a]
            if WORD.findall(before.lower()) not in ([], *([w] for w in ARTICLES)):
                continue
            a -= len(before.lstrip(" -*•\t\n"))  # from "The" before the catalogue's key on
            if (
                s
                and low[s - 1] in ARTICLES
                and not any(e > toks[s - 1].start() >= x for x, e in taken)
            ):
                a = toks[
                    s - 1
                ].start()  # the catalogue's key leaves its article out; the title has it
            b += text[a:b].count("(") > text[a:b].count(")") and text[b : b + 1] == ")"
            year = _YEAR_AFTER.match(text[b:])
            if not self._plausible(text, toks, s, n, bool(year), key):
                continue
            for i in guesses:
                taken[i], out[i] = (-1, -1), (-1, None)
            taken.append((a, b))
            y = int(year.group(1) or year.group(2)) if year else None
            hit = self._pick(key, y) or self._pick(key, None)
            out.append((a, Mention(text[a:b], hit[0].id, "exact", hit[1], a)))
        seen, result = set(), []
        for start, m in sorted((x for x in out if x[1] is not None), key=lambda x: x[0]):
            ident = m.item or title_key(m.surface)[0]
            if ident not in seen:
                seen.add(ident)
                result.append(Mention(m.surface, m.item, m.how, m.ambiguous, start))
        return result

    def _plausible(self, text: str, toks: list, s: int, n: int, year: bool, key: str) -> bool:
        """A catalogue title written without a year or quotes counts only when it does not read as everyday
        words: not all words common; one word capitalised, 3+ letters, not opening a sentence."""
        first = toks[s].group()
        quoted = toks[s].start() > 0 and text[toks[s].start() - 1] in "\"“*'"
        if year or quoted:
            return True
        before = text[: toks[s].start()].rstrip()
        # not opening a sentence (an initial's period, as in "A.I.", ends none)
        inside = bool(before) and (before[-1] not in ".!?:\n" or bool(_INITIAL.search(before)))
        if all(w in self._common for w in key.split(" ")):
            # everyday words count only as several words written in a title's capitals inside a sentence
            # ("you might like Back to the Future"), not as prose ("back to the future"), not as the tail
            # of a longer name ("Harry Potter and the Sorcerer's Stone", "World War II") and never as
            # one word ("Thriller, Romance", "Night Watch"): such a title is read quoted or with its year
            words = [t.group() for t in toks[s : s + n]]
            titled = all(_capital(w) or _connector(w) or w.lower() in _INSIDE for w in words)
            titled = titled and _capital(first)
            prev = toks[s - 1].group() if s else ""
            longer = inside and _capital(prev) and prev.lower() not in ARTICLES
            return n > 1 and titled and inside and not longer
        if (
            n == 1
        ):  # a bare number is a count or a year in prose ("since 2012"): a title only quoted
            return _capital(first) and not first.isdigit() and inside and self._lone(text, toks[s])
        return first[0].isupper() or first[0].isdigit() or n >= 3

    @staticmethod
    def _lone(text: str, tok: re.Match) -> bool:
        """A one-word title: 3+ characters, no capitalised word right after ("Rebecca Budig": a person)."""
        return len(tok.group()) >= 3 and not _NAME_AFTER.match(text, tok.end())

    def _listed(self, words: list[str], year: int) -> str | None:
        """The longest run of ``words`` ending before a "(YYYY)" that is a catalogue title of about that year
        — a title is read as the catalogue writes it ("To Catch a Thief", "...And Justice for All",
        "\"Crocodile\" Dundee", "Face/Off") before any guess at where a title starts."""
        for k in range(len(words)):
            if not any(ch.isalnum() for ch in words[k]):
                continue  # a title starts with a word, not with ", " or "–"
            surface = " ".join(words[k:])
            key, _ = title_key(surface)
            if key in self.by_key and self._pick(key, year):
                return surface
        return None

    def _spans(self, text: str) -> list[tuple[int, int, tuple[str, int | None]]]:
        """(start, end, (surface, year)) of title-like spans, non-overlapping, first found wins."""
        found: list[tuple[int, int, tuple[str, int | None]]] = []
        read: list[
            tuple[int, int]
        ] = []  # text before a "(YYYY)" read as a catalogue title: no other span
        for m in _before_year(text):
            words = m.group(1).split()
            # "Stand by Me (1986)", as catalogued; 'recommend "Her" (2013)' and "**Her** (2013)": the title
            # without its quotes or markdown emphasis (no catalogue title starts with "*" or "_")
            if listed := self._listed(words, int(m.group(2))):
                cut, bare = _unwrapped(listed)
                found.append((m.end(1) - len(listed) + cut, m.end(), (bare, int(m.group(2)))))
                read.append((m.start(1), m.end()))  # "- Title: Heat (1995)": "Title" is no title
                continue
            words = words[-10:]  # a guess at an unknown title's start looks no further back
            quoted = [i for i, w in enumerate(words) if any(q in w for q in '"“”')]
            words = words[quoted[-1] + 1 :] if quoted else words  # a quoted title: its quote's span
            k = len(words)
            while k > 0 and (
                words[k - 1][0].isupper() or words[k - 1][0].isdigit() or _connector(words[k - 1])
            ):
                k -= 1
            head = words[k:]
            while head and (_connector(head[0]) and head[0].lower() not in ARTICLES):
                head = head[1:]
            if head and (head[0][0].isupper() or head[0][0].isdigit()):
                surface = " ".join(head)
                found.append(
                    (
                        m.end(1) - len(surface) if m.group(1).endswith(surface) else m.start(1),
                        m.end(),
                        (surface, int(m.group(2))),
                    )
                )
        for pattern in _SPANS:
            for m in pattern.finditer(text):
                surface = m.group(1).strip().strip(",.;")
                n_words = len(surface.split())
                if (
                    surface
                    and _capital(next((ch for ch in surface if ch.isalnum()), "x"))
                    and n_words <= 10
                    and not surface.endswith("?")
                    and not any(a < m.end() and m.start() < b for a, b, _ in found)
                    and not any(a < m.end() and m.start() < b for a, b in read)
                ):
                    year = _YEAR_AFTER.match(text[m.end() :])
                    found.append(
                        (
                            m.start(),
                            m.end() + (year.end() if year else 0),
                            (surface, int(year.group(1) or year.group(2)) if year else None),
                        )
                    )
        return sorted(found)
