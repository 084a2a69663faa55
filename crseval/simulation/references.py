"""Reference CRSs of known behaviour — known groups for checking that a metric separates a CRS that follows
the user from CRSs that do not. In a session config they are ``kind = "reference"`` with ``reference =
NAME`` (they use the session's catalogue); anywhere a plug-in goes they run as
``crseval.simulation.references:NAME`` (on the bundled catalogue).

- ``template``: crseval's template CRS — rules read the user's current wishes, retrieval from the
  catalogue; follows the user (the follower).
- ``lister``: the template answering with a numbered list of three films, as most of CRSArena-Dial's
  CRSs do — the fair partner for comparing simulated users' words with the arena's users', who talk about
  the list they were just shown ("which of those …"). A follower too, so no known group.
- ``stubborn``: one fixed catalogue film whatever the user says (ignores the user).
- ``echo``: repeats the user's words back, then recommends the same fixed film (sounds attentive, is not).
- ``laggard``: the template one turn late: answers the wishes the user had before their latest message.
- ``forgetter``: the template reading only the user's latest message (drops every earlier constraint).
- ``anchored``: the template reading only the user's first message that says a wish (keeps the first
  wish, misses every shift), never naming a film twice.
- ``hallucinator``: a made-up film every turn (recommends nothing that exists).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from crseval.simulation.crs import KBCRS, CRSReply, understood
from crseval.simulation.nlu import extract

FIXED = "Heat"  # the stubborn and echo CRSs' film (in the bundled catalogue and OpenDialKG's)
INVENTED = (
    "The Glass Orchard", "Midnight at Vantor Bay", "The Last Cartographer", "Seven Paper Moons",
    "A Winter in Kessling", "The Brass Choir", "Echoes of Marrow Hill", "The Quiet Lantern",
)  # fmt: skip
NAMES = (
    "template",
    "stubborn",
    "echo",
    "laggard",
    "forgetter",
    "anchored",
    "hallucinator",
    "lister",
)
BEHAVIOUR = {
    "template": "follows the user",
    "stubborn": "ignores the user",
    "echo": "repeats the user's words, ignores their wishes",
    "laggard": "answers the previous turn's wishes",
    "forgetter": "keeps only the newest constraint",
    "anchored": "keeps the first wish, misses every shift",
    "hallucinator": "names made-up films",
    "lister": "follows the user, answers with a list of three films",
}
FOLLOWERS = ("template", "lister")  # follow the user: no known group between them


class ReferenceCRS:
    """One of :data:`NAMES` over a catalogue (``kb``)."""

    def __init__(self, name: str, reference: str, kb, seed: int = 0) -> None:
        self.name, self.reference = name, reference
        self.template = KBCRS(name, kb, seed=seed)
        fixed = [m.title for m in kb.movies if m.title == FIXED]
        self.fixed = fixed[0] if fixed else kb.movies[0].title

    def respond(self, history: list[dict[str, str]]) -> CRSReply:
        r = self.reference
        if r == "template":
            return self.template.respond(history)
        if r == "laggard":
            return self.template.respond(history[:-1])
        if r == "forgetter":
            return self.template.respond(history[-1:])
        if r == "anchored":  # the first user turn that says a wish, and what it has said itself
            first = next(
                (i for i, h in enumerate(history)
                 if h["speaker"] == "user" and extract(self.template.kb, [h["text"]]).as_dict()),
                None,
            )  # fmt: skip
            return self.template.respond(
                [h for i, h in enumerate(history) if i == first or h["speaker"] == "system"]
                or history
            )
        if r == "lister":
            return self._list(history)
        if r == "hallucinator":
            title = INVENTED[sum(h["speaker"] == "system" for h in history) % len(INVENTED)]
            return CRSReply(f"You will love {title} (2031). It is exactly what you asked for.", {})
        if r == "echo":
            said = history[-1]["text"].rstrip(".!?") if history else "something good"
            return CRSReply(f'You said: "{said}". Then how about {self.fixed}?', {})
        return CRSReply(f"How about {self.fixed}? It is a classic everyone should see.", {})

    def _list(self, history: list[dict[str, str]]) -> CRSReply:
        c, picked, relaxed = self.template.shortlist_for(history)
        constraints = understood(c, relaxed)
        kb = self.template.kb
        titles = [kb.movies[i].title for i in picked[:3]]
        if not titles:
            return CRSReply(
                "I could not find a movie for that. What genre do you like?", constraints
            )
        lines = [
            f"{k}. {kb.movies[i].title}"
            + (f" ({kb.movies[i].get('year')})" if kb.movies[i].get("year") else "")
            for k, i in enumerate(picked[:3], 1)
        ]
        return CRSReply(
            "Here are a few you might like:\n" + "\n".join(lines) + "\nDo any of these sound good?",
            constraints,
            titles,
        )


@lru_cache(maxsize=len(NAMES))
def _bundled(reference: str) -> ReferenceCRS:
    from crseval.data.kb import load_kb

    return ReferenceCRS(reference, reference, load_kb(None))


def _plugin(reference: str):
    def respond(history: list[dict[str, str]]) -> dict[str, Any]:
        reply = _bundled(reference).respond(history)
        return {"text": reply.text, "constraints": reply.constraints}

    respond.__name__ = respond.__qualname__ = reference
    return respond


template, stubborn, echo, laggard, forgetter, anchored, hallucinator, lister = (
    _plugin(n) for n in NAMES
)
