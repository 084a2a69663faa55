"""What real users ask for that the wish reading cannot read.

Verified following from the words (:meth:`crseval.adaptation.following.Following.read_wishes`) reads genres,
years and decades, people, languages and plot keywords. Real users also ask for films *like* one they
name, for a series or a studio, for something new, for a mood or an audience, or just for "the best". Every
user turn that asks for films (a request cue) and from which the reading gains nothing is put in the first
category whose cue it holds, so a researcher sees which requests a following score is blind to.

Two of them are read (:mod:`crseval.adaptation.extra_wishes`), as the catalogue's facts allow: a film named after "like",
"similar to", "such as" … becomes ``like:<title>`` (a film sharing a genre with it, other than itself), and
"new", "recent", "latest" becomes ``year:<newest − 4>-`` (the catalogue's last five years).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Sequence
from typing import TYPE_CHECKING

from crseval.adaptation.extra_wishes import RECENT, REQUEST, reference_films
from crseval.adaptation.following import wish_topics
from crseval.simulation.nlu import extract_steps

if TYPE_CHECKING:
    import pandas as pd

    from crseval.adaptation.following import Following

PLAIN = set(
    "hi hello hey ok okay um so please thanks thank you can could would will you me i we us a an some any "
    "another more other different few one two three 3 five movie movies film films recommend "
    "recommends recommended recommendation recommendations suggest suggestion suggestions give get "
    "want like to watch what which should do does have need something anything good great for tonight "
    "the of let's let be is are there would help hoping find watching tell just list my with".split()
)
# (category, cue) in the order a turn is put in the first one it holds; None: decided in category()
CATEGORIES = (
    ("a film as reference", None),  # read as like:<title>
    ("a wish already read, said again", None),  # the turn alone reads as a wish the user holds
    ("no wish stated (a plain request)", None),  # every word a request's or a filler's
    (
        "about films already named (not a wish)",
        re.compile(
            r"\b(about|synopsis|plot|summar\w*|director|who|cast|why|order|seen|watched|name of|"
            r"those|these|them|it|that one)\b"
        ),
    ),
    ("something new", RECENT),  # read as the catalogue's last five years
    (
        "a series, franchise or studio",
        re.compile(
            r"\b(star wars|marvel|disney|pixar|dc|harry potter|james bond|ghibli|dreamworks|"
            r"franchise|series|saga|trilogy|sequels?|prequels?)\b"
        ),
    ),
    ("old or classic", re.compile(r"\b(old|older|classic|retro|vintage)\b")),
    (
        "a mood, an occasion or an audience",
        re.compile(
            r"\b(feel|mood|light|lighthearted|happy|sad|cry|relax\w*|cozy|uplifting|dark|kids?|family|"
            r"children|teen\w*|date|friends|tonight|weekend|rainy|wholesome|chill)\b"
        ),
    ),
    (
        "quality or popularity only",
        re.compile(r"\b(best|top|greatest|popular|famous|awards?|oscars?|rated|acclaimed|good)\b"),
    ),
    ("a topic the reading does not know", None),  # anything else left
)


def category(following: Following, text: str) -> str:
    low = text.lower()
    if reference_films(following, text):
        return CATEGORIES[0][0]
    if wish_topics(extract_steps(following.kb, [text])[0].values):
        return CATEGORIES[1][0]
    if set(re.findall(r"[a-z0-9']+", low)) <= PLAIN:
        return CATEGORIES[2][0]
    return next((name for name, cue in CATEGORIES[3:-1] if cue.search(low)), CATEGORIES[-1][0])


def gaps(following: Following, sessions: Sequence[Sequence[str]]) -> Counter:
    """Requests per (category, read): the category of each request in the user turns of ``sessions``
    from which the rules alone (no reference film, nothing new) gain nothing — ``"read"`` where they do —
    and whether the full reading gains something from it."""
    out: Counter = Counter()
    for said in sessions:
        values = [c.values for c in extract_steps(following.kb, said)]
        base = [set(wish_topics(v)) for v in values]
        full = following.read_by_rules(said)
        for k, text in enumerate(said):
            if REQUEST.search(text.lower()):
                gained = bool(full[k] - (full[k - 1] if k else set()))
                if base[k] - (base[k - 1] if k else set()):
                    out["read", gained] += 1
                else:
                    out[category(following, text), gained] += 1
    return out


def gap_table(counts: Counter) -> pd.DataFrame:
    """One row per category (read first, then the categories in order): requests, their share of all
    requests, and how many of them the full reading reads."""
    import pandas as pd

    total = sum(counts.values())
    rows = []
    for name in ("read", *(c for c, _ in CATEGORIES)):
        n, now = counts[name, False] + counts[name, True], counts[name, True]
        if n:
            rows.append(
                {
                    "wish_category": "read by the rules" if name == "read" else name,
                    "user_requests": n,
                    "request_share": n / total,
                    "now_read": now,
                }
            )
    return pd.DataFrame(rows)
