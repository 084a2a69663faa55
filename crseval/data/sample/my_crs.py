"""A CRS of your own, in the plug-in protocol crseval speaks (runnable: see examples/shift_plugin.toml).

crseval calls ``respond(history)`` once per system turn. ``history`` is the conversation so far, oldest
first, ending with the user's latest message:

    [{"speaker": "user", "text": "I'd like a comedy"}, {"speaker": "system", "text": "..."}, ...]

Return the reply text, or a dict:

    {"text": "How about Groundhog Day?",        # required: what the system says
     "constraints": {"genres": ["comedy"]}}     # optional: what the system understood (shown per turn)

``constraints`` is free-form JSON; crseval's own CRS uses the keys genres (list), year ([from, to], either
may be null), actor, director, writer, language (strings) and keywords (list). Raising an exception fails
the session: it is recorded, left out of the statistics, and `crseval shift run` exits 1 unless
--keep-going. The same function answers `crseval behavior run … --system my_crs:respond`, and an HTTP
endpoint that takes {"history": [...]} by POST and returns the same JSON plugs in as `kind = "http"` /
`--system http://…`.
"""

from __future__ import annotations

GENRES = {
    "comedy": "Groundhog Day",
    "horror": "The Shining",
    "drama": "The Godfather",
    "romance": "Casablanca",
    "thriller": "Heat",
    "action": "Die Hard",
    "animation": "Spirited Away",
    "crime": "Pulp Fiction",
}


def respond(history: list[dict[str, str]]) -> dict:
    wanted = None
    for turn in history:  # the latest genre the user named wins
        if turn["speaker"] == "user":
            wanted = next((g for g in GENRES if g in turn["text"].lower()), wanted)
    if wanted is None:
        return {"text": "What kind of movie are you in the mood for?", "constraints": {}}
    return {
        "text": f"How about {GENRES[wanted]}? It is a classic {wanted} movie.",
        "constraints": {"genres": [wanted]},
    }
