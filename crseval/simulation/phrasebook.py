"""How the realistic simulated user words each act: a phrasebook of slot templates.

Real CRS users (CRSArena-Dial, ReDial seekers) write short, often lower-case turns, greet, thank, complain
("None of those are Star Wars movies"), ask about the film just offered and leave. The bundled book
(:data:`BOOK`, ``data/phrasebook.toml``) is written for crseval in that register — no real user's turn
that names a film is copied — and
:func:`book_from_dialogues` builds one from real user turns of your own (each turn's act read by rules
over :func:`crseval.simulation.acts.cues`, titles, genres, years and people replaced by slots), so the
wording can be grounded in the users a study is about.

Its sentences are composed of parts (:func:`expand`): ``[a|b]`` says a or b, ``<name>`` one wording of a
shared part (:data:`PARTS`: how people ask, please and refer to a film), so a few hundred templates say
tens of thousands of sentences.

Slots: ``{genre}``, ``{genre2}``, ``{title}``, ``{year}``, ``{person}``, ``{language}``, ``{topic}``,
``{want}`` (the user's current wish in words), ``{old}`` (a wish taken back). A template states every
value it names positively: a complaint restates the wish ("I asked for {want}"), never negates it,
so a CRS that reads negation is not misled about what the user still wants.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from pathlib import Path

from crseval.simulation.acts import cues
from crseval.text.movie_text import genre_spans

_BUNDLED = tomllib.loads((Path(__file__).parent / "data" / "phrasebook.toml").read_text("utf-8"))
# shared parts of sentences, written ``<name>`` in a template: the words real users ask, please and refer by
PARTS: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in _BUNDLED.pop("parts", {}).items()}
BOOK: dict[str, tuple[str, ...]] = {act: tuple(templates) for act, templates in _BUNDLED.items()}
_CHOICE = re.compile(r"\[([^\[\]]*\|[^\[\]]*)\]")
_PART = re.compile(r"<(\w+)>")


def expand(template: str, rng) -> str:
    """One wording of a template composed from parts: each ``<part>`` (:data:`PARTS`) becomes one of its
    wordings and each ``[a|b|…]`` one of its alternatives (an empty one leaves the words out), at random
    — so a book of a few hundred templates says tens of thousands of sentences, and the users of a
    large run do not repeat each other word for word. Text without them is returned as it is."""

    def part(m: re.Match) -> str:
        options = PARTS.get(m.group(1))
        return options[int(rng.integers(len(options)))] if options else m.group()

    text = _PART.sub(part, template)
    while m := _CHOICE.search(text):
        options = m.group(1).split("|")
        text = text[: m.start()] + options[int(rng.integers(len(options)))] + text[m.end() :]
    return re.sub(r"\s+([,.?!])", r"\1", re.sub(r"\s{2,}", " ", text)).strip()


def wordings(template: str) -> int:
    """How many sentences :func:`expand` can make of a template (its choices multiplied out)."""
    text = _PART.sub(
        lambda m: "[" + "|".join(PARTS[m.group(1)]) + "]" if m.group(1) in PARTS else "", template
    )

    def sequence(i: int) -> tuple[int, int]:  # choices up to the next "|" or "]"
        n = 1
        while i < len(text) and text[i] not in "|]":
            if text[i] == "[":
                k, i = alternatives(i + 1)
                n *= k
            else:
                i += 1
        return n, i

    def alternatives(i: int) -> tuple[int, int]:  # after "[": the sum over its alternatives
        total = 0
        while True:
            n, i = sequence(i)
            total += n
            if i >= len(text) or text[i] == "]":
                return total, i + 1
            i += 1

    return sequence(0)[0]


_CAPITAL_OK = {
    "i",
    "i'm",
    "i'd",
    "i've",
    "i'll",
    "ok",
    "okay",
    "hi",
    "hello",
    "hey",
    "thanks",
    "no",
    "yes",
}
_DECADE_OR_YEAR = re.compile(r"\b(?:(?:19|20)\d0s|'?[2-9]0s|(?:19|20)\d{2})\b")
MAX_WORDS = 25


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z']+", text.lower().replace("’", "'")))


def _unslotted(template: str) -> str:
    return re.sub(r"\{\w+\}", " ", template)


def _template(text: str, kb, matcher) -> tuple[str, list[str]] | None:
    """``text`` with titles, genres, people and years replaced by slots, and the slots in order; None where
    a name or title is left that no slot covers (a capitalised word inside a sentence, a digit, a quote)."""
    genres = genre_spans(text)
    if any(neg for *_, neg in genres):
        return None
    spans = [(m.start, m.start + len(m.surface), "title") for m in matcher.find(text)]
    spans += [(a, b, "genre") for a, b, _, _ in genres]
    low = text.lower()
    for attribute, value in kb.find_names(text):
        at = low.find(value.lower())
        if at >= 0:
            slot = "language" if attribute == "language" else "person"
            spans.append((at, at + len(value), slot))
    spans += [(m.start(), m.end(), "year") for m in _DECADE_OR_YEAR.finditer(text)]
    out, slots, end = [], [], 0
    for a, b, slot in sorted(spans):
        if a < end:
            continue
        name = "genre2" if slot == "genre" and "genre" in slots else slot
        if name in slots:
            return None
        out += [text[end:a], "{" + name + "}"]
        slots.append(name)
        end = b
    rest = "".join(out[::2]) + text[end:]
    words = re.findall(r"[A-Za-z'’]+", rest)
    if (
        re.search(r"[\d\"“”{}@#]", rest)
        or any(w[0].isupper() and w.lower() not in _CAPITAL_OK for w in words[1:])
        or not 1 <= len(rest.split()) + len(slots) <= MAX_WORDS
    ):
        return None
    return ("".join(out) + text[end:]).strip(), slots


_REQUEST = re.compile(
    r"\b(recommend\w*|suggest\w*|looking for|want|like|give me|any|how about|what about|movies?|films?|watch)\b"
)
_NEGATION = re.compile(r"\b(no|not|none|never|without|except|but)\b|n't\b")
_ABOUT = re.compile(
    r"\b(about|who|when|plot|story|directed|director|stars?|starring|released?|good|long|cast)\b"
)
_OTHER = re.compile(r"\b(other|others|else|more|another|different)\b")


def _act(template: str, slots: list[str], first: bool) -> str | None:
    """Which act of the book a real turn's template surely stands for (None: none, or not surely)."""
    plain = template.replace("{", "").replace("}", "")
    c, low, n = cues(plain), plain.lower(), len(plain.split())
    if slots and (_NEGATION.search(low) or not _REQUEST.search(low)):
        return None  # a slot filled with a wish must be asked for, never negated
    if slots == ["genre"]:
        return "open" if first else "genre"
    if slots == ["genre", "genre2"]:
        return "blend"
    if slots == ["year"]:
        return "year"
    if slots == ["person"]:
        return "actor"
    if slots == ["language"]:
        return "language"
    if slots == ["title"] and c["question"] and _ABOUT.search(low):
        return "ask"
    if slots:
        return None
    if c["greeting"] and n <= 3:
        return "greet"
    if c["thanks"] and not c["reject"] and n <= 10:
        return "thanks"
    if c["question"]:
        if _OTHER.search(low) and not c["reject"]:
            return "more"
        return (
            "ask"
            if _ABOUT.search(low) and re.search(r"\b(it|that|this|the movie)\b", low)
            else None
        )
    if c["reject"] and not c["accept"]:
        if re.search(r"\b(seen|watched|saw)\b", low):
            return "seen"
        return "reject" if n <= 8 else "misfit"
    if c["accept"] and not c["reject"] and n <= 10:
        return "accept"
    return None


def book_from_dialogues(
    source, kb, minimum: int = 5, shared: int = 3
) -> dict[str, tuple[str, ...]]:
    """A phrasebook grounded in the user turns of ``source`` (a :class:`~crseval.data.any_dialogues.
    DialogueSource`): each turn whose names all fall into slots becomes a template of the act it performs;
    an act with fewer than ``minimum`` templates keeps the bundled book's. Titles, genres, people and years
    are always refilled from the simulated user's own wishes, never copied, and a turn with a word fewer
    than ``shared`` dialogues use (a title or name no slot caught) is left out."""
    from crseval.text.titles import TitleMatcher

    matcher = TitleMatcher(kb.movies)
    users = [
        [" ".join(u.text.split()) for u in sd.dialogue.utterances if not u.role.is_recommender]
        for sd in source.dialogues
    ]
    # a word at least `shared` dialogues use is everyday language, not a title or a name nobody else wrote
    spread = Counter(w for turns in users for w in {w for t in turns for w in _words(t)})
    found: dict[str, list[str]] = {}
    for turns in users:
        for i, text in enumerate(turns):
            made = _template(text, kb, matcher)
            if (
                made is None
                or any(spread[w] < shared for w in _words(_unslotted(made[0])))
                or "star {genre" in made[0].lower()  # "Star Wars" reads as the war genre
            ):
                continue
            act = _act(*made, first=i == 0)
            if act or not made[1]:
                found.setdefault(act or "other", []).append(made[0])
    book = dict(BOOK)
    for act, templates in found.items():
        unique = tuple(dict.fromkeys(templates))
        if len(unique) >= minimum:
            book[act] = unique
    if book["actor"] is not BOOK["actor"]:  # a person asked for: actor, director and writer alike
        book["director"] = book["writer"] = book["actor"]
    return book
