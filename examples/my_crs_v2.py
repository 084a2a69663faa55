"""Version 2 of examples/my_crs.py, to compare with it: ``crseval evaluate-crs examples/my_crs_v2.py
--against v1=examples/my_crs.py,template --no-llm`` puts both on the same simulated users.

What changed: v1 knows eight genres and one film each; v2 recommends from a catalogue (crseval's bundled
sample here — your CRS has its own), reads every genre and a decade ("something from the 90s"), and never
offers a film twice. The protocol is v1's: ``respond(history)`` → the reply and what it understood.
"""

from __future__ import annotations

from crseval.data.kb import load_kb
from crseval.text.movie_text import genre_mentions, years

KB = load_kb()  # the sample catalogue; evaluate-crs --kb gives the simulated users another


def respond(history: list[dict[str, str]]) -> dict:
    genre, span, offered = None, None, set()
    for turn in history:
        if turn["speaker"] != "user":
            offered |= {m.title for m in KB.movies if m.title in turn["text"]}
            continue
        named = [g for g, negated in genre_mentions(turn["text"]) if not negated]
        if named:  # a new genre: the decade asked for before no longer holds
            genre, span = named[-1], None
        span = years(turn["text"]) or span
    if genre is None:
        return {"text": "What kind of movie are you in the mood for?", "constraints": {}}
    lo, hi = span or (None, None)
    wish = [f"genre:{genre}"] + ([f"year:{lo or ''}-{hi or ''}"] if span else [])
    fits = [
        m.title
        for i, m in enumerate(KB.movies)
        if m.title not in offered and all(KB.holds(i, w) for w in wish)
    ]
    understood = {"genres": [genre]} | ({"year": [lo, hi]} if span else {})
    if not fits:
        return {
            "text": f"I have no other {genre} movie like that. Another genre?",
            "constraints": understood,
        }
    return {"text": f"How about {fits[0]}? It is a {genre} movie.", "constraints": understood}
