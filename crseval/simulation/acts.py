"""What a user turn does, read by rules the same way for real and simulated users: greeting, thanks,
closing, question, acceptance and rejection or complaint cues, words, titles. The simulator validity
measures (:mod:`crseval.adaptation.realism`) compare real and simulated users through these cues, so
neither side is read by rules the other was written for. Acceptance and rejection are the reaction
reader's (:mod:`crseval.text.reactions`: accepted; rejected — complaints about repeats included), the
reading checked against ReDial seekers' own forms and that rejected repeats use."""

from __future__ import annotations

import re

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
