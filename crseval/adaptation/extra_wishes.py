"""The two wishes beyond constraints that verified following reads from a user's words, as the catalogue's
facts allow: a film named after "like", "similar to", "such as" … becomes ``like:<title>``, and "new",
"recent", "latest" becomes ``year:<newest − 4>-`` (the catalogue's last five years). Used by
:meth:`crseval.adaptation.following.Following.read_by_rules`; :mod:`crseval.adaptation.wish_gaps` counts
what real users ask for beyond them."""

from __future__ import annotations

import re
from typing import Any, Protocol

from crseval.text.movie_text import genre_mentions


class Reader(Protocol):
    """What the reading needs of its caller (:class:`crseval.adaptation.following.Following`): the
    catalogue (``kb.movies``, ``kb.newest``), each matched item's row in it, and the title matcher."""

    kb: Any
    row: dict
    matcher: Any


REQUEST = re.compile(
    r"\b(recommend\w*|suggest\w*|looking for|look for|want|wanna|give me|show me|find me|"
    r"what (?:should|can|could) i watch|movies?|films?|something|anything)\b"
)
# a film named as the kind wanted ("something like Heat", "movies similar to Heat"), not "I like Heat"
LIKE = re.compile(
    r"\b(?:(?:something|anything|movies?|films?|ones?|stuff)\s+(?:\w+\s+)?like|similar to|such as|"
    r"reminds? me of|in the style of|along the lines of)\s"
)
# something new asked for ("new movies", "more recent", "from this year"), not "new ideas"
RECENT = re.compile(
    r"\b(?:(?:new|newer|newest|recent|latest)\s+(?:\w+\s+)?(?:movies?|films?|ones?|releases?|stuff)|"
    r"(?:something|anything) (?:new|newer|recent|more recent)|more recent|most recent|"
    r"(?:from|of) (?:this|last) year|came out (?:this|last) year)\b"
)


# a film the user liked, named beside a request ("I loved Heat, any thrillers like that?")
LIKED = re.compile(r"\b(?:love[ds]?|like[ds]?|enjoyed|favou?rite|similar)\b")


def reference_films(following: Reader, text: str) -> list[str]:
    """Catalogue titles named within 40 characters after a "like"/"similar to" cue in ``text``, or within
    40 characters of a liking cue ("I loved …", "… like that", "my favourite movie is …") in a turn that
    asks for films (a request or a genre wanted)."""
    low = text.lower()
    after = [m.end() for m in LIKE.finditer(low)]
    asks = REQUEST.search(low) or any(not negated for _, negated in genre_mentions(text))
    near = [(m.start(), m.end()) for m in LIKED.finditer(low)] if asks else []
    if not after and not near:
        return []
    return [
        following.kb.movies[following.row[m.item]].title
        for m in following.matcher.find(text)
        if m.item is not None
        and (
            any(0 <= m.start - a <= 40 for a in after)
            or any(
                -40 <= m.start - b <= 40 or 0 <= a - m.start - len(m.surface) <= 40 for a, b in near
            )
        )
    ]


def extra_wishes(following: Reader, text: str) -> list[str]:
    """The wishes of :data:`CATEGORIES` that are read: ``like:<title>`` and a recent ``year`` range."""
    out = [f"like:{t}" for t in reference_films(following, text)]
    low, newest = text.lower(), following.kb.newest
    if newest and RECENT.search(low) and REQUEST.search(low):
        out.append(f"year:{newest - 4}-")
    return out
