"""How a user met a film a CRS recommended, read from the user's next words: *seen* (already seen it),
*rejected*, *accepted* or *not said* — the first that holds, in that order. Rejected repeats
(:mod:`crseval.dialogues.measures`) count a film re-offered after a reply read as seen or rejected; the
simulator validity features read acceptance and rejection with it (:mod:`crseval.simulation.acts`).

Checked against people (``crseval dialogues reactions``, :mod:`crseval.dialogues.reaction_check`): on
ReDial every seeker answered, per film, whether it was suggested, whether they had seen it and whether
they liked it; the recommender answered the same about the seeker — another person reading the same words.
"""

from __future__ import annotations

import re

READINGS = ("seen", "rejected", "accepted", "not said")
SEEN = re.compile(
    r"\b(seen (?:it|that|this|them|those|both|all)|already (?:seen|watched|saw)|(?:i|we) saw|"
    r"saw (?:it|that|them|those)|watched (?:it|that|them|those)|i'?ve seen|i have seen|"
    r"(?:was|were) (?:so |really |pretty |very )?(?:great|good|awesome|amazing|hilarious|funny|fantastic|"
    r"excellent|scary|terrible|awful|bad|ok|okay|decent|fun|a good|a great)|"
    r"(?:i|we) (?:loved|enjoyed|liked|hated|adored) (?:it|that|this|those|them|the|both|all)|"
    r"(?:i|we) (?:love|like) (?:that|those) (?:one|movie|film)s?|favou?rite|a classic|i remember)\b"
)
NOT_SEEN = re.compile(
    r"\b(?:haven't|have not|never|not|hasn't|has not)\s+(?:\w+\s+)?(?:seen|watched|heard|saw)\b"
)
ASKED_SEEN = re.compile(
    r"\b(?:have|did|ever) you (?:ever |already )?(?:seen|watched|saw|see)\b|\bseen (?:it|that|this)\?"
)
YES, NO = (
    re.compile(r"^\W*(?:yes|yeah|yep|yup|i have|i did|sure)\b"),
    re.compile(r"^\W*(?:no|nope|not yet)\b"),
)
REJECTED = re.compile(
    r"\b(not (?:a fan|into|interested|really|for me|my (?:thing|type|style|cup))|"
    r"(?:don't|do not|didn't|did not|won't) (?:like|want|care|enjoy|love|watch)|no thanks|hated?|boring|"
    r"something else|anything else|nah|nope|meh|already (?:recommended|suggested|said|mentioned)|"
    r"not (?:this|that) one|(?:don't|doesn't|do not|does not) sound (?:good|great|interesting)|"
    r"none of (?:those|these|them)|(?:not|isn't|aren't) what i|i asked (?:for|you for)|i said|wrong|"
    r"(?:don't|doesn't) sound like|i was looking for|don't think i'd like|(?:just|already) (?:told|gave)|"
    r"said (?:that|it) (?:already|before)|same one|did(?:n't)? you (?:recommend|suggest|say)|again(?=\s*\?)|"
    r"^\W*no(?=\W*$)|repeating|same (?:movie|film|one) again|keep (?:saying|suggesting|recommending))\b"
)
ACCEPTED = re.compile(
    r"\b(sounds? (?:good|great|interesting|fun|awesome|cool|nice|amazing|like)|"
    r"(?:i'll|i will|will|gonna|going to|i'm going to|i need to|i should|i'd like to|i want to) "
    r"(?:check|watch|try|look|add|give|see)|check (?:it|that|them|those) out|"
    r"(?:i|we) (?:love|like|enjoy|adore) (?:it|that|this|them|those)|i (?:would|'d) (?:love|like) to|"
    r"(?:good|great|nice|excellent) (?:one|choice|idea|suggestion|pick|recommendation)|perfect|awesome|"
    r"thanks? (?:for|you)|thank you|on my list|sounds like a plan|i'm interested|interesting)\b"
)


def _norm(text: str) -> str:
    return text.lower().replace("’", "'")


def seen(text: str, offer: str = "") -> bool:
    """Whether the words say the film was seen already ("seen it", "I loved it", "a classic", "yes" to
    "have you seen it?") and never that it was not ("haven't seen it", "no" to that question)."""
    low, asked = _norm(text), bool(ASKED_SEEN.search(_norm(offer)))
    if NOT_SEEN.search(low) or (asked and NO.search(low)):
        return False
    return bool(SEEN.search(low)) or (asked and bool(YES.search(low)))


def reaction(text: str, offer: str = "") -> str:
    """The first of :data:`READINGS` the words hold, in reply to ``offer`` (the CRS's words)."""
    if seen(text, offer):
        return "seen"
    low = _norm(text)
    if ASKED_SEEN.search(
        _norm(offer)
    ):  # "no" to "have you seen it?" says not seen, not no to the film
        low = NO.sub("", low)
    if REJECTED.search(low):
        return "rejected"
    if ACCEPTED.search(low):
        return "accepted"
    return "not said"


def refused(text: str, offer: str = "") -> bool:
    """A reply read as seen or rejected: what makes re-offering the film a rejected repeat."""
    return reaction(text, offer) in ("seen", "rejected")
