"""Reference CRSs that run as plug-ins anywhere a ``module:function`` target goes
(``crseval.simulation.references:stubborn``): known groups for checking that a metric separates a CRS that
follows the user from one that does not.

- ``stubborn``: one fixed catalogue film whatever the user asks (ignores the user; never hallucinates).
- ``hallucinator``: a new film every turn, none of them in any catalogue (made-up titles).
- ``template``: crseval's no-LLM template CRS (rule-based reading of the user's wishes, retrieval over the
  bundled catalogue) — a follower, for capabilities that take a plug-in rather than a ``kind``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

STUBBORN_REPLY = "How about Heat? It is a crime thriller with Al Pacino and Robert De Niro."


def stubborn(history: list[dict[str, str]]) -> dict[str, Any]:
    return {"text": STUBBORN_REPLY, "constraints": {}}


INVENTED = (
    "The Glass Orchard",
    "Midnight at Vantor Bay",
    "The Last Cartographer",
    "Seven Paper Moons",
    "A Winter in Kessling",
    "The Brass Choir",
    "Echoes of Marrow Hill",
    "The Quiet Lantern",
)


def hallucinator(history: list[dict[str, str]]) -> dict[str, Any]:
    title = INVENTED[sum(h["speaker"] == "system" for h in history) % len(INVENTED)]
    return {
        "text": f"You will love {title} (2031). It is exactly what you asked for.",
        "constraints": {},
    }


@lru_cache(maxsize=1)
def _template():
    from crseval.data.kb import load_kb
    from crseval.simulation.crs import KBCRS

    return KBCRS("template", load_kb(None))


def template(history: list[dict[str, str]]) -> dict[str, Any]:
    reply = _template().respond(history)
    return {"text": reply.text, "constraints": reply.constraints}
