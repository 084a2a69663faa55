"""Conversational recommenders to evaluate: rule-based understanding over the KB + an LLM (or a
template) that writes the reply, or any system of your own (a Python callable or an HTTP endpoint).

A CRS sees the conversation so far — ``[{"speaker": "user"|"system", "text": …}, …]`` ending with a
user turn — and returns a :class:`CRSReply`. Constraints are re-derived from every user utterance in
order (stateless, so a resumed session is identical): genre cues, years and decades by regex, people
and languages from the KB indexes, plot keywords after "something/a story/a movie about, involving, featuring"
(genre words excluded). A later value
replaces an earlier one (contradictions win), a negated value ("no more horror") is removed, blend
cues ("a mix of", "both", "also") add a genre instead of replacing. Retrieval intersects the
constraint sets; when nothing is left, the least recently stated constraint is relaxed first.
"""
from __future__ import annotations

import importlib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, Sequence

import numpy as np
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from crseval.core.errors import CrsevalError
from crseval.data.opendialkg import GENRE_MAP, GENRES
from crseval.llm.base import ChatRequest
from crseval.llm.client import LLMClient
from crseval.simulation.kb import MovieKB

History = list[dict[str, str]]

_EXTRA_CUES = {
    "sci fi": "sci-fi", "scifi": "sci-fi", "science-fiction": "sci-fi", "comedies": "comedy", "funny": "comedy",
    "dramas": "drama", "thrillers": "thriller", "scary": "horror", "romantic": "romance", "rom-com": "romance",
    "animated": "animation", "cartoon": "animation", "cartoons": "animation", "westerns": "western",
    "musicals": "musical", "mysteries": "mystery", "documentaries": "documentary", "war movie": "war",
    "war movies": "war", "superhero": "superhero", "superheroes": "superhero", "biopic": "biography",
    "biopics": "biography", "historical": "history", "sports": "sport", "crime movies": "crime",
    "action movies": "action", "adventures": "adventure", "fantasy movies": "fantasy", "indie": "indie",
    "disaster movie": "disaster", "teen movie": "teen", "family movie": "family", "horror movies": "horror",
}
GENRE_CUES: dict[str, tuple[str, ...]] = {**{g: (g,) for g in GENRES}, **GENRE_MAP,
                                          **{k: (v,) for k, v in _EXTRA_CUES.items()}}
_CUE_WORDS = max(len(k.split()) for k in GENRE_CUES)
NEGATION = re.compile(r"\b(no|not|no more|nothing|without|instead of|enough|tired of|anything but|don't|do not|"
                      r"rather than|forget|skip|drop|stop)\b[\w\s'-]{0,24}$")
BLEND = re.compile(r"\b(mix|blend|both|combine|combination|also|as well|plus|along with)\b")
DECADE = re.compile(r"\b(?:(19|20)(\d)0s|'?([2-9])0s)\b")
YEAR = re.compile(r"\b(before|after|since|from|older than|newer than|in|around)?\s*((?:19|20)\d{2})\b(?!s)")
KEYWORD_CUE = re.compile(r"\b(?:(?:something|story|stories|movie|film|one|plot|tale)\s+(?:about|involving|featuring)|"
                         r"(?:story|tale) of)\b(.{0,80})")
RESET = re.compile(r"\b(start over|forget everything|from scratch)\b")


@dataclass
class Constraints:
    """The CRS's current understanding; ``stated`` holds the user turn at which each slot was last set."""

    values: dict[str, Any] = field(default_factory=dict)
    stated: dict[str, int] = field(default_factory=dict)

    def set(self, slot: str, value: Any, turn: int) -> None:
        self.values[slot], self.stated[slot] = value, turn

    def drop(self, slot: str) -> None:
        self.values.pop(slot, None)
        self.stated.pop(slot, None)

    def as_dict(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, (tuple, set)) else v) for k, v in self.values.items()}


def _genre_mentions(text: str) -> list[tuple[str, bool]]:
    """(canonical genre, negated) for every genre cue, longest cue first."""
    low = text.lower()
    toks = list(re.finditer(r"[a-z][a-z'-]*", low))
    out, used = [], set()
    for n in range(_CUE_WORDS, 0, -1):
        for s in range(len(toks) - n + 1):
            if any(k in used for k in range(s, s + n)):
                continue
            cue = " ".join(t.group() for t in toks[s:s + n])
            canon = GENRE_CUES.get(cue) or (GENRE_CUES.get(cue[:-1]) if n == 1 and cue.endswith("s") else None)
            if canon:
                used.update(range(s, s + n))
                neg = bool(NEGATION.search(low[max(0, toks[s].start() - 30):toks[s].start()]))
                out += [(c, neg) for c in canon]
    return out


def _years(text: str) -> tuple[int | None, int | None] | None:
    m = DECADE.search(text)
    if m:
        start = int(m.group(1) + m.group(2) + "0") if m.group(1) else 1900 + int(m.group(3)) * 10
        return (start, start + 9)
    m = YEAR.search(text.lower())
    if m:
        y, how = int(m.group(2)), (m.group(1) or "").strip()
        if how in ("before", "older than"):
            return (None, y - 1)
        if how in ("after", "newer than"):
            return (y + 1, None)
        if how == "since":
            return (y, None)
        return (y, y)
    return None


def extract(kb: MovieKB, utterances: Sequence[str]) -> Constraints:
    """Constraints after the user's utterances, in order (see the module docstring for the rules)."""
    c = Constraints()
    for turn, text in enumerate(utterances):
        low = text.lower()
        if RESET.search(low):
            c = Constraints()
        mentions = _genre_mentions(text)
        if mentions:
            pos = [g for g, neg in mentions if not neg]
            neg = {g for g, n in mentions if n}
            current = [g for g in c.values.get("genres", []) if g not in neg]
            if pos:
                blend = len(set(pos)) == 1 and BLEND.search(low)  # "also horror" adds; "a mix of A and B" sets both
                new = list(dict.fromkeys((current if blend else []) + pos))
                c.set("genres", new, turn)
            elif current != c.values.get("genres", []):
                c.set("genres", current, turn) if current else c.drop("genres")
        yrs = _years(text)
        if yrs:
            c.set("year", yrs, turn)
        for attr, value in kb.find_names(text):
            start = low.find(value.lower())
            if start >= 0 and NEGATION.search(low[max(0, start - 30):start]):
                if c.values.get(attr) == value:
                    c.drop(attr)
            else:
                c.set(attr, value, turn)
        m = KEYWORD_CUE.search(low)
        if m:
            kws = [w for w in dict.fromkeys(re.findall(r"[a-z][a-z'-]+", m.group(1)))
                   if w in kb.keywords and w not in GENRE_CUES and not (w.endswith("s") and w[:-1] in GENRE_CUES)]
            if kws:
                c.set("keywords", kws, turn)
    return c


def candidate_set(kb: MovieKB, c: Constraints) -> tuple[set[int], list[str]]:
    """Movies satisfying every constraint; relaxes the least recently stated one while none are left.
    Returns (candidates, relaxed slots)."""
    def matching(slot: str, value: Any) -> set[int]:
        if slot == "genres":
            sets = [kb.genres.get(g, set()) for g in value]
            return set.intersection(*sets) if sets else set(range(len(kb)))
        if slot == "year":
            lo, hi = value
            return set().union(*(s for y, s in kb.years.items() if (lo is None or y >= lo) and (hi is None or y <= hi)))
        if slot == "keywords":
            return set().union(*(kb.keywords.get(w, set()) for w in value))
        return set(kb.index[slot].get(str(value).lower(), set()))

    active = sorted(c.values, key=lambda s: c.stated[s])
    relaxed: list[str] = []
    while True:
        out = set(range(len(kb)))
        for slot in active:
            out &= matching(slot, c.values[slot])
        if out or not active:
            return out, relaxed
        relaxed.append(active.pop(0))


TOKEN = re.compile(r"\w+(?:'\w+)?")


def mentioned_titles(kb: MovieKB, text: str) -> list[str]:
    """KB titles mentioned in ``text``, in order of appearance (whole words, case-insensitive,
    punctuation ignored). One-word titles ("Heat", "Up") count only as written and never when they are
    stop words; a title inside a longer mentioned title ("Batman" in "Batman Returns") is not reported."""
    toks = TOKEN.findall(text)
    low = [t.lower() for t in toks]
    index = _title_index(kb)
    hits = []
    for s, w in enumerate(low):
        for seq, display in index.get(w, ()):
            if tuple(low[s:s + len(seq)]) != seq:
                continue
            if len(seq) == 1 and (w in ENGLISH_STOP_WORDS or len(w) < 3 or toks[s] != TOKEN.findall(display)[0]):
                continue
            hits.append((s, len(seq), display))
    taken: set[int] = set()
    kept = []
    for s, n, display in sorted(hits, key=lambda h: -h[1]):
        if not taken & set(range(s, s + n)):
            taken |= set(range(s, s + n))
            kept.append((s, display))
    return list(dict.fromkeys(d for _, d in sorted(kept)))


_TITLE_INDEXES: dict[int, dict[str, list[tuple[tuple[str, ...], str]]]] = {}


def _title_index(kb: MovieKB) -> dict[str, list[tuple[tuple[str, ...], str]]]:
    """First word → [(title words, display title)] (built once per KB)."""
    if id(kb) not in _TITLE_INDEXES:
        index: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        for m in kb.movies:
            seq = tuple(t.lower() for t in TOKEN.findall(m.title))
            if seq:
                index.setdefault(seq[0], []).append((seq, m.title))
        _TITLE_INDEXES[id(kb)] = index
    return _TITLE_INDEXES[id(kb)]


@dataclass
class CRSReply:
    text: str
    constraints: dict[str, Any] | None = None
    candidates: list[str] = field(default_factory=list)
    error: str | None = None


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


class KBCRS:
    """Rule-based understanding + retrieval over the KB; the reply is written by an LLM from a short
    list of candidates, or by a fixed template when ``client`` is None (a no-LLM baseline)."""

    def __init__(self, name: str, kb: MovieKB, client: LLMClient | None = None, *, prompt: str = "default",
                 shortlist: int = 5, temperature: float = 0.0, seed: int = 0, max_tokens: int = 64) -> None:
        self.name, self.kb, self.client = name, kb, client
        self.system = PROMPTS.get(prompt, prompt)
        self.shortlist, self.temperature, self.seed, self.max_tokens = shortlist, temperature, seed, max_tokens

    def shortlist_for(self, history: History) -> tuple[Constraints, list[int], list[str]]:
        c = extract(self.kb, [h["text"] for h in history if h["speaker"] == "user"])
        cands, relaxed = candidate_set(self.kb, c)
        seen = {t.lower() for h in history if h["speaker"] == "system" for t in mentioned_titles(self.kb, h["text"])}
        pool = sorted(i for i in cands if self.kb.movies[i].title.lower() not in seen) or sorted(cands)
        rng = np.random.default_rng([self.seed, len(history)])
        picked = [pool[k] for k in rng.permutation(len(pool))[:self.shortlist]]
        return c, picked, relaxed

    def respond(self, history: History) -> CRSReply:
        c, picked, relaxed = self.shortlist_for(history)
        constraints = {**c.as_dict(), **({"relaxed": relaxed} if relaxed else {})}
        titles = [self.kb.movies[i].title for i in picked]
        if self.client is None:
            return CRSReply(self._template(picked, c), constraints, titles)
        res = self.client.try_complete(self.request(history, c, picked), accept=lambda r: bool(r.text.strip()))
        if res.response is None or not res.response.text.strip():
            return CRSReply("", constraints, titles, error=res.error or "empty reply")
        return CRSReply(res.response.text.strip(), constraints, titles)

    def request(self, history: History, c: Constraints, picked: list[int]) -> ChatRequest:
        convo = "\n".join(f"{h['speaker'].capitalize()}: {json.dumps(h['text'], ensure_ascii=False)}"
                          for h in history[-6:])
        cands = "\n".join(f"{k + 1}. {describe(self.kb, i)}" for k, i in enumerate(picked)) or "(none)"
        user = (f"Conversation so far (quoted):\n{convo}\n\nWhat the user wants now: "
                f"{json.dumps(c.as_dict(), ensure_ascii=False)}\n\nCandidates:\n{cands}\n\n"
                "Write the recommender's next reply.")
        return ChatRequest.chat(user, system=self.system, temperature=self.temperature, seed=self.seed,
                                max_tokens=self.max_tokens)

    def _template(self, picked: list[int], c: Constraints) -> str:
        if not picked:
            return "I could not find a movie for that. Could you tell me a genre you like?"
        m = self.kb.movies[picked[0]]
        what = " and ".join(m.get("genres", [])[:2]) or "movie"
        who = f", directed by {m.get('director')[0]}" if m.get("director") else ""
        return f"How about {m.title}? It is {'an' if what[0] in 'aeiou' else 'a'} {what} pick{who}. " \
               "Would you like something similar?"


class CallableCRS:
    """Wraps ``fn(history) -> str | {"text": …, "constraints": {…}}`` (your own system)."""

    def __init__(self, name: str, fn: Callable[[History], Any]) -> None:
        self.name, self.fn = name, fn

    def respond(self, history: History) -> CRSReply:
        try:
            out = self.fn([dict(h) for h in history])
        except Exception as e:  # a user's system failing is a recorded result, not a crash of the run
            return CRSReply("", error=f"{type(e).__name__}: {e}")
        return _reply_from(out, self.name)


class HttpCRS:
    """A CRS behind an HTTP endpoint: POST ``{"history": [...]}`` → ``{"text": …, "constraints": …}``
    (``reply`` is accepted for ``text``). Bounded retries on connection errors and 5xx."""

    def __init__(self, name: str, url: str, timeout_s: float = 60.0, retries: int = 2) -> None:
        self.name, self.url, self.timeout_s, self.retries = name, url, timeout_s, retries

    def respond(self, history: History) -> CRSReply:
        import httpx
        error = "no attempt"
        for _ in range(self.retries + 1):
            try:
                r = httpx.post(self.url, json={"history": history}, timeout=self.timeout_s)
                if r.status_code >= 500:
                    error = f"HTTP {r.status_code}"
                    continue
                r.raise_for_status()
                return _reply_from(r.json(), self.name)
            except (httpx.HTTPError, ValueError) as e:
                error = f"{type(e).__name__}: {e}"
        return CRSReply("", error=error)


def _reply_from(out: Any, name: str) -> CRSReply:
    if isinstance(out, str):
        return CRSReply(out)
    if isinstance(out, dict) and isinstance(out.get("text", out.get("reply")), str):
        cons = out.get("constraints")
        return CRSReply(out.get("text", out.get("reply")), cons if isinstance(cons, dict) else None)
    return CRSReply("", error=f"CRS {name!r} returned {type(out).__name__}, expected a string or "
                              "{'text': ..., 'constraints': {...}}")


def load_callable(target: str) -> Callable[[History], Any]:
    """``package.module:function`` → the function."""
    mod, _, attr = target.partition(":")
    if not mod or not attr:
        raise CrsevalError(f"bad callable {target!r}", field="models.target", expected="'package.module:function'")
    try:
        fn = getattr(importlib.import_module(mod), attr)
    except (ImportError, AttributeError) as e:
        raise CrsevalError(f"cannot import {target!r}: {e}", field="models.target",
                           fix="make the module importable (installed or on PYTHONPATH)") from None
    if not callable(fn):
        raise CrsevalError(f"{target!r} is not callable", field="models.target")
    return fn


__all__ = ["CRS", "CRSReply", "KBCRS", "CallableCRS", "HttpCRS", "Constraints", "extract", "candidate_set",
           "mentioned_titles", "load_callable", "PROMPTS"]
