"""Transcript evidence a calibrated judge learns from, read by rules (no LLM, deterministic, ~0.1 ms per
dialogue): size, the recommendations the assistant makes, how the user reacts to them in the next turn
(accepts, rejects, has already seen it, asks again, is frustrated), questions, and the assistant
repeating itself. Every feature is named and described; :func:`turn_evidence` is the per-assistant-turn
view that the dialogue features aggregate."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from crseval.core.types import Dialogue

# a recommended item: a quoted or "Title (YYYY)" mention, ReDial's @id placeholders
TITLE = re.compile(
    r'"[^"]{2,80}"|@\d+|\b[A-Z][\w\'&:,.-]*(?:\s+[\w\'&:,.-]+){0,8}\s*\((?:19|20)\d{2}\)'
)
ACCEPT = re.compile(
    r"\b(thanks?|thank you|great|awesome|sounds (good|great|interesting|fun)|i'?ll (check|watch|look|give|"
    r"add|try|queue)|i will (check|watch|look|try)|love (it|that)|perfect|will do|definitely|cool|"
    r"nice|good (one|idea|choice|suggestion)|interesting|excellent|that works)\b",
    re.I,
)
REJECT = re.compile(
    r"\b(no|nope|not really|don'?t (like|want|care)|didn'?t (like|enjoy)|not (a fan|into|interested|"
    r"my (thing|type))|hate|boring|meh|something else|anything else)\b",
    re.I,
)
SEEN = re.compile(
    r"\b(seen (it|that|this|both)|already (seen|watched)|i'?ve (seen|watched)|saw (it|that))\b",
    re.I,
)
FRUSTRATED = re.compile(
    r"\b(i (already )?(said|told you)|you (already|just) (said|recommended|suggested)|not what i "
    r"(asked|wanted|meant)|that'?s not|you'?re not (listening|helping)|stop|what\?|huh|doesn'?t "
    r"make sense|makes no sense|wrong)\b|\?\?",
    re.I,
)
QUESTION = re.compile(r"\?")


@dataclass(frozen=True)
class Feature:
    name: str
    description: str


FEATURES = [
    Feature("log_chars", "log(1 + characters in the transcript)"),
    Feature("turns", "utterances in the transcript"),
    Feature("log_assistant_chars", "log(1 + characters the assistant wrote)"),
    Feature("log_user_chars", "log(1 + characters the user wrote)"),
    Feature(
        "recommendations",
        "item mentions in assistant turns (quoted or 'Title (YYYY)' titles, @ids)",
    ),
    Feature("rec_per_turn", "item mentions per assistant turn"),
    Feature(
        "distinct_rec_share",
        "distinct items ÷ item mentions (1 = never recommends the same item twice)",
    ),
    Feature(
        "first_rec_position",
        "position of the first recommending assistant turn ÷ assistant turns (1 = none)",
    ),
    Feature(
        "accept_rate",
        "share of user turns after a recommendation that accept it (thanks, I'll watch it …)",
    ),
    Feature("reject_rate", "share of user turns after a recommendation that reject it"),
    Feature(
        "seen_rate", "share of user turns after a recommendation saying the item was already seen"
    ),
    Feature(
        "frustrated_rate",
        "share of user turns that sound frustrated (I already said, not what I asked …)",
    ),
    Feature(
        "user_question_rate",
        "share of user turns that ask a question (asking again, or unanswered needs)",
    ),
    Feature(
        "assistant_question_rate",
        "share of assistant turns that ask a question (preference elicitation)",
    ),
    Feature(
        "repeated_reply_share",
        "share of assistant turns that repeat an earlier assistant turn word for word",
    ),
    Feature("short_reply_share", "share of assistant turns under four words"),
    Feature("ends_positive", "1 if one of the user's last two turns accepts or thanks"),
]
NAMES = [f.name for f in FEATURES]


def _norm(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()


def turn_evidence(dialogue: Dialogue) -> list[dict]:
    """One record per assistant turn: does it recommend (and what), ask a question, repeat itself; how
    does the user react in the next user turn."""
    utts = list(dialogue.utterances)
    out, seen_replies = [], set()
    for i, u in enumerate(utts):
        if not u.role.is_recommender:
            continue
        nxt = next((v.text for v in utts[i + 1 :] if not v.role.is_recommender), None)
        items = [m.group().strip('"').lower() for m in TITLE.finditer(u.text)]
        norm = _norm(u.text)
        out.append(
            {
                "turn": i,
                "items": items,
                "recommends": bool(items),
                "asks": bool(QUESTION.search(u.text)),
                "repeats": bool(norm) and norm in seen_replies,
                "short": len(norm.split()) < 4,
                "accepted": bool(nxt and ACCEPT.search(nxt)),
                "rejected": bool(nxt and REJECT.search(nxt)),
                "seen": bool(nxt and SEEN.search(nxt)),
                "frustrated": bool(nxt and FRUSTRATED.search(nxt)),
                "user_asks": bool(nxt and QUESTION.search(nxt)),
            }
        )
        seen_replies.add(norm)
    return out


def transcript_features(dialogue: Dialogue) -> np.ndarray:
    """The :data:`FEATURES` of one transcript, in order."""
    utts = list(dialogue.utterances)
    asst = [u.text for u in utts if u.role.is_recommender]
    user = [u.text for u in utts if not u.role.is_recommender]
    ev = turn_evidence(dialogue)
    items = [x for e in ev for x in e["items"]]
    after_rec = [e for e in ev if e["recommends"]]
    first = next((k for k, e in enumerate(ev) if e["recommends"]), None)

    def share(rows, key):
        return float(np.mean([r[key] for r in rows])) if rows else 0.0

    return np.array(
        [
            np.log1p(sum(len(u.text) for u in utts)),
            len(utts),
            np.log1p(sum(map(len, asst))),
            np.log1p(sum(map(len, user))),
            len(items),
            len(items) / max(1, len(asst)),
            len(set(items)) / len(items) if items else 1.0,
            first / len(ev) if first is not None else 1.0,
            share(after_rec, "accepted"),
            share(after_rec, "rejected"),
            share(after_rec, "seen"),
            float(np.mean([bool(FRUSTRATED.search(t)) for t in user])) if user else 0.0,
            float(np.mean([bool(QUESTION.search(t)) for t in user])) if user else 0.0,
            share(ev, "asks"),
            share(ev, "repeats"),
            share(ev, "short"),
            float(any(ACCEPT.search(t) for t in user[-2:])),
        ],
        dtype=float,
    )
