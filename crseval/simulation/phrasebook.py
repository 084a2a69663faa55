"""How the realistic simulated user words each act: a phrasebook of slot templates.

Real CRS users (CRSArena-Dial, ReDial seekers) write short, often lower-case turns, greet, thank, complain
("None of those are Star Wars movies"), ask about the film just offered and leave. The bundled book
(:data:`BOOK`) is written for crseval in that register — no real user's turn is copied — and
:func:`book_from_dialogues` builds one from real user turns of your own (each turn's act read by rules
over :func:`crseval.simulation.acts.cues`, titles, genres, years and people replaced by slots), so the
wording can be grounded in the users a study is about.

Slots: ``{genre}``, ``{genre2}``, ``{title}``, ``{year}``, ``{person}``, ``{language}``, ``{topic}``,
``{want}`` (the user's current wish in words), ``{old}`` (a wish taken back). A template states every
value it names positively: a complaint restates the wish ("I asked for {want}"), never negates it,
so a CRS that reads negation is not misled about what the user still wants.
"""

from __future__ import annotations

import re
from collections import Counter

from crseval.simulation.acts import cues
from crseval.text.movie_text import genre_spans

BOOK: dict[str, tuple[str, ...]] = {
    "greet": (
        "hi", "Hi", "Hello", "hello!", "Hey", "hey there", "Hi!", "Good evening!", "hello :)",
        "Hi there", "hiya", "Hello, how are you?",
    ),
    "open": (
        "Hi, can you recommend me some {genre} movies?", "recommend me a {genre} movie",
        "I'd like to watch a {genre} film tonight", "{genre} movies", "looking for a good {genre} movie",
        "any good {genre} films?", "give me some {genre} movies to watch", "What {genre} movies can you recommend?",
        "Hello, I'm looking for a {genre} movie", "i want to watch a {genre} movie", "can you suggest a {genre} film?",
        "Hey, I feel like watching something {genre}. Any ideas?", "Hi! What's a good {genre} movie?",
        "I'm in the mood for {genre}", "please recommend a {genre} movie", "{genre} please",
        "Hello! Could you give me some {genre} recommendations?", "what are some good {genre} movies",
        "I need a {genre} movie for tonight", "suggest me {genre} movies",
        "I like {genre} movies, what should I watch?", "something {genre} please",
    ),
    "genre": (
        "how about something {genre}", "actually I'd prefer {genre}", "can you suggest a {genre} movie instead?",
        "now {genre} please", "I changed my mind, I want {genre}", "What about {genre} movies?",
        "give me a {genre} one", "i'd rather watch {genre}", "ok, and {genre}?", "Do you have any {genre}?",
        "Let's try {genre}", "Can you recommend me some {genre} movies?", "what {genre} movies do you have",
        "something {genre} maybe?", "I want to see a {genre} movie now",
    ),
    "blend": (
        "something both {genre} and {genre2}", "a mix of {genre} and {genre2}?",
        "Could you find a movie that is both {genre} and {genre2}?", "{genre} but also {genre2}",
    ),
    "year": (
        "from the {year}", "something from the {year} please", "I would like a movie from the {year}",
        "any from the {year}?", "{year} movies please", "Can it be from the {year}?",
        "something from the {year} would be great",
    ),
    "actor": (
        "one with {person} in it", "any movies with {person}?", "I like {person}, anything with them?",
        "Is there one starring {person}?", "something with {person} please", "what about {person} movies",
    ),
    "director": (
        "something directed by {person}", "what about films by {person}?", "I love {person}'s movies",
        "any movies directed by {person}?",
    ),
    "writer": ("anything written by {person}?", "a movie written by {person} please"),
    "language": (
        "a {language} movie please", "something in {language}", "Can it be in {language}?",
        "any {language} movies?", "i'd like a movie in {language}",
    ),
    "plot": (
        "something about {topic}", "a movie about {topic}", "Do you know a film about {topic}?",
        "I want a story involving {topic}", "any movie about {topic}?",
    ),
    "take_back": (
        "no wait, not {old} anymore.", "forget {old}.", "scratch that, no more {old}.",
        "Actually not {old} after all.", "hmm, not {old}.",
    ),
    "answer": (
        "I like {want}", "{want}", "{want} please", "I'm looking for {want}",
        "I said {want}", "i want {want}", "Mostly {want}", "just {want}",
    ),
    "accept": (
        "{title} sounds good", "ok I'll try {title}, thanks", "nice, i'll check it out",
        "that one sounds interesting", "Yes!", "cool", "I like that one", "oh nice, I love {title}",
        "Great choice", "ok sounds good", "{title} looks great", "perfect",
    ),
    "ask": (
        "what is {title} about?", "who is in {title}?", "tell me more about {title}", "when was it released?",
        "Is it good?", "What's the plot of {title}?", "is {title} scary?", "who directed {title}?",
        "How long is it?", "Why do you recommend {title}?", "what is it about",
    ),
    "seen": (
        "i've seen {title}, something else?", "already watched that one", "I have, it was great. Anything else?",
        "Seen it. Other ideas?", "I've watched {title} already", "saw that one last year, what else?",
    ),
    "more": (
        "any others?", "Do you have others?", "what else?", "more please", "Can you give me more options?",
        "anything else like that?", "other suggestions?",
    ),
    "misfit": (
        "I asked for {want}", "is {title} even {want}?", "those aren't what I asked for",
        "None of those are {want}", "I want {want} though", "That doesn't sound like {want}",
        "hmm, I was looking for {want}", "Can you give me {want}?", "I said {want}...",
    ),
    "reject": (
        "not for me, anything else?", "nah, something else", "I don't like that one", "nope",
        "not really my thing", "no thanks, what else do you have?", "I don't want that one, give me a different movie",
        "hmm no. anything else?", "didn't like that one", "not interested", "no, something else please",
    ),
    "repeat": (
        "you already recommended {title}", "Why are you repeating yourself?", "that's the same movie again",
        "you said that already", "{title} again?", "You keep saying {title}",
        "Didn't you recommend {title} already?",
    ),
    "unknown": (
        "never heard of {title}, is that a real movie?", "I can't find {title}", "is {title} a real film?",
        "what is {title}? never heard of it",
    ),
    "no_title": (
        "can you just give me a title?", "I need a movie title", "any recommendations?",
        "so what do you recommend?", "Which movie?", "Can you name one?", "What are you talking about?",
    ),
    "thanks": (
        "thanks!", "ok, I'll try it out. Thank you!", "great, thanks a lot", "perfect, thank you, bye",
        "Thank you so much!", "thanks, that's all I needed", "ok thanks bye", "Awesome, thanks!",
    ),
    "other": (
        "are you a bot?", "What's your favourite movie?", "how does this work", "do you like movies?",
        "hmm let me think", "interesting", "I'm not sure", "what do you mean?", "maybe",
    ),
    "quit": (
        "this is not helpful", "forget it, bye", "you're not understanding me. bye", "never mind",
        "no thank you.", "I give up", "ok, this isn't working. bye", "Poor recommendations. bye",
    ),
}  # fmt: skip

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
