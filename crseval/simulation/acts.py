"""What a user turn does, read by rules the same way for real and simulated users: greeting, thanks,
closing, question, acceptance and rejection or complaint cues, words, titles; and what it talks about
(:func:`topics`: a genre, an era, people, the one film shown, several films, a request for one). The
simulator validity measures (:mod:`crseval.adaptation.realism`) compare real and simulated users
through these cues, so neither side is read by rules the other was written for. Acceptance and
rejection are the reaction reader's (:mod:`crseval.text.reactions`: accepted; rejected — complaints about
repeats included), the reading checked against ReDial seekers' own forms and that rejected repeats use."""

from __future__ import annotations

import re

from crseval.text.movie_text import genre_mentions, years
from crseval.text.reactions import reaction

GREETING = re.compile(r"^\W*(hi|hello|hey|hiya|good (morning|afternoon|evening)|greetings)\b")
THANKS = re.compile(r"\b(thanks|thank you|thx|ty|appreciate it)\b")
CLOSING = re.compile(
    r"\b(bye|goodbye|see you|that's all|that is all|i give up|never mind|forget it)\b"
)
QUESTION = re.compile(
    r"\?|^\W*(what|who|which|when|where|why|how|is|are|do|does|did|can|could|would|will|have|any)\b"
)
_WORD = re.compile(r"[A-Za-z0-9']+")
CUES = ("greeting", "thanks", "closing", "question", "accept", "reject")
_ERA = re.compile(r"\b(old|older|oldies|recent|newer|new|latest|classic|classics|modern)\b")
_PERSON = re.compile(
    r"\b(directed|director|directors|written|writer|starring|stars|actor|actress|actors|cast|plays in)\b"
)
_ONE_FILM = re.compile(r"\b(it|that one|this one|that movie|this movie|that film|this film)\b")
_SEVERAL = re.compile(
    r"\b(those|these|them|they|(the )?(first|second|third|last) one|any of|list)\b"
)
_RECOMMEND = re.compile(r"\b(recommend\w*|suggest\w*)\b")
TOPICS = ("genre", "era", "person", "one_film", "several_films", "recommend")


def words(text: str) -> int:
    return len(_WORD.findall(text))


def cues(text: str) -> dict[str, bool]:
    """The cues of one user turn (several may hold at once)."""
    low = text.strip().lower().replace("’", "'")
    reading = reaction(low)
    return {
        "greeting": bool(GREETING.search(low)),
        "thanks": bool(THANKS.search(low)),
        "closing": bool(CLOSING.search(low)),
        "question": bool(QUESTION.search(low)),
        "accept": reading == "accepted",
        "reject": reading == "rejected",
    }


def topics(text: str) -> dict[str, bool]:
    """What one user turn talks about (several may hold at once): a genre, an era (a decade, a year, old
    or new), people (directors, writers, actors), the one film shown ("it", "that one"), several films
    ("those", "the first one", a list) and whether it asks for a recommendation. Simulated users' wishes
    are facts the catalogue checks, real users' are moods and audiences as often: these shares say how
    far apart the two are (:mod:`crseval.adaptation.realism`)."""
    low = text.strip().lower().replace("’", "'")
    return {
        "genre": bool(genre_mentions(low)),
        "era": bool(_ERA.search(low)) or years(text) is not None,
        "person": bool(_PERSON.search(low)),
        "one_film": bool(_ONE_FILM.search(low)),
        "several_films": bool(_SEVERAL.search(low)),
        "recommend": bool(_RECOMMEND.search(low)),
    }
