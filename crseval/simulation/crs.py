"""Conversational recommenders to evaluate. :class:`KBCRS` is rule-based understanding
(:mod:`~crseval.simulation.nlu`) and retrieval (:mod:`~crseval.simulation.retrieval`) over the KB, with an
LLM (or a fixed template, a no-LLM baseline) writing the reply; your own systems plug in through
:mod:`~crseval.simulation.plugins`.

A CRS sees the conversation so far — ``[{"speaker": "user"|"system", "text": …}, …]`` ending with a
user turn — and returns a :class:`CRSReply`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from crseval.data.kb import MovieKB
from crseval.llm.base import ChatRequest
from crseval.llm.client import LLMClient
from crseval.simulation.nlu import Constraints, extract
from crseval.simulation.retrieval import candidate_set
from crseval.text.movie_text import mentioned_titles

History = list[dict[str, str]]


@dataclass
class CRSReply:
    text: str
    constraints: dict[str, Any] | None = None
    candidates: list[str] = field(default_factory=list)
    error: str | None = None
    retries: int = 0  # calls repeated before this reply (an HTTP CRS's connection errors and 5xx)


class CRS(Protocol):
    name: str

    def respond(self, history: History) -> CRSReply: ...


PROMPTS = {
    "default": "You are a movie recommender chatting with a user. Reply in 1-3 sentences. Recommend one or two of "
    "the candidate movies, using their exact titles, and say briefly why they fit what the user asked "
    "for. Never recommend a movie that is not in the candidate list.",
    "proactive": "You are a proactive movie recommender chatting with a user. Reply in 1-3 sentences. Recommend one "
    "of the candidate movies by its exact title, say why it fits the user's latest wishes, then ask one "
    "short question that helps narrow down their taste. Never recommend a movie that is not in the "
    "candidate list.",
}


def describe(kb: MovieKB, i: int) -> str:
    m = kb.movies[i]
    bits = [", ".join(m.get("genres", [])[:3])]
    if m.get("director"):
        bits.append("directed by " + ", ".join(m.get("director")[:1]))
    if m.get("actor"):
        bits.append("starring " + ", ".join(m.get("actor")[:2]))
    year = f" ({m.get('year')})" if m.get("year") else ""
    return f"{m.title}{year}: " + "; ".join(b for b in bits if b)


def understood(c: Constraints, relaxed: list[str]) -> dict[str, Any]:
    """What a reply logs as understood: the user's constraints, and those retrieval had to relax."""
    return {**c.as_dict(), **({"relaxed": relaxed} if relaxed else {})}


class KBCRS:
    """Rule-based understanding + retrieval over the KB; the reply is written by an LLM from a short
    list of candidates, or by a fixed template when ``client`` is None (a no-LLM baseline)."""

    def __init__(
        self,
        name: str,
        kb: MovieKB,
        client: LLMClient | None = None,
        *,
        prompt: str = "default",
        shortlist: int = 5,
        temperature: float = 0.0,
        seed: int = 0,
        max_tokens: int = 64,
    ) -> None:
        self.name, self.kb, self.client = name, kb, client
        self.system = PROMPTS.get(prompt, prompt)
        self.shortlist, self.temperature, self.seed, self.max_tokens = (
            shortlist,
            temperature,
            seed,
            max_tokens,
        )

    def shortlist_for(self, history: History) -> tuple[Constraints, list[int], list[str]]:
        c = extract(self.kb, [h["text"] for h in history if h["speaker"] == "user"])
        cands, relaxed = candidate_set(self.kb, c)
        seen = {
            t.lower()
            for h in history
            if h["speaker"] == "system"
            for t in mentioned_titles(self.kb, h["text"])
        }
        pool = sorted(i for i in cands if self.kb.movies[i].title.lower() not in seen) or sorted(
            cands
        )
        rng = np.random.default_rng([self.seed, len(history)])
        picked = [pool[k] for k in rng.permutation(len(pool))[: self.shortlist]]
        return c, picked, relaxed

    def respond(self, history: History) -> CRSReply:
        c, picked, relaxed = self.shortlist_for(history)
        constraints = understood(c, relaxed)
        titles = [self.kb.movies[i].title for i in picked]
        if self.client is None:
            return CRSReply(self._template(picked, c), constraints, titles)
        res = self.client.try_complete(
            self.request(history, c, picked), accept=lambda r: bool(r.text.strip())
        )
        if res.response is None or not res.response.text.strip():
            return CRSReply("", constraints, titles, error=res.error or "empty reply")
        return CRSReply(res.response.text.strip(), constraints, titles)

    def request(self, history: History, c: Constraints, picked: list[int]) -> ChatRequest:
        convo = "\n".join(
            f"{h['speaker'].capitalize()}: {json.dumps(h['text'], ensure_ascii=False)}"
            for h in history[-6:]
        )
        cands = (
            "\n".join(f"{k + 1}. {describe(self.kb, i)}" for k, i in enumerate(picked)) or "(none)"
        )
        user = (
            f"Conversation so far (quoted):\n{convo}\n\nWhat the user wants now: "
            f"{json.dumps(c.as_dict(), ensure_ascii=False)}\n\nCandidates:\n{cands}\n\n"
            "Write the recommender's next reply."
        )
        return ChatRequest.chat(
            user,
            system=self.system,
            temperature=self.temperature,
            seed=self.seed,
            max_tokens=self.max_tokens,
        )

    def _template(self, picked: list[int], c: Constraints) -> str:
        if not picked:
            return "I could not find a movie for that. Could you tell me a genre you like?"
        m = self.kb.movies[picked[0]]
        what = " and ".join(m.get("genres", [])[:2]) or "movie"
        who = f", directed by {m.get('director')[0]}" if m.get("director") else ""
        return (
            f"How about {m.title}? It is {'an' if what[0] in 'aeiou' else 'a'} {what} pick{who}. "
            "Would you like something similar?"
        )
