"""LLM pairwise votes: a judge compares two dialogues of different systems that start from the same user
request, in both orders (position swap), and votes like an arena user.

Dialogues are paired when their first user utterances agree (lower case, punctuation and spacing
ignored) and their systems differ. Each order is one probability-weighted answer "1" or "2" (the
expected value over the two digits where the backend gives probabilities), so P(first is better) is
read, not sampled. The vote goes to a system when both orders prefer it and is a tie when the orders
disagree — a judge that prefers whichever dialogue it reads first casts ties, not votes. Every answer
is a record of its own (stream ``llm_votes``): an interrupted run resumes, cached answers cost nothing.
"""

from __future__ import annotations

import re
from itertools import combinations
from typing import Callable

import numpy as np
import pandas as pd

from crseval.core.keys import key
from crseval.core.types import Dialogue
from crseval.data.votes import TIE
from crseval.judge.rubric import SYSTEM, transcript
from crseval.llm.base import ChatRequest
from crseval.runs.context import RunContext

STREAM = "llm_votes"
PROMPT = (
    "Two movie recommender assistants each talked with a user who opened with the same request.\n\n"
    "<conversation 1>\n{a}\n</conversation 1>\n\n<conversation 2>\n{b}\n</conversation 2>\n\n"
    "Which assistant served its user better: understood what the user wanted, recommended fitting movies "
    "and answered the user's questions? Answer 1 for the assistant of conversation 1 or 2 for the assistant "
    "of conversation 2. Answer with a single digit."
)


def request_key(dialogue: Dialogue) -> str:
    first = next((u.text for u in dialogue.utterances if not u.role.is_recommender), "")
    return " ".join(re.findall(r"\w+", first.lower()))


def dialogue_pairs(
    dialogues: list[tuple[str, str, Dialogue]], max_pairs: int, seed: int
) -> list[tuple]:
    """((id, system, dialogue), (id, system, dialogue)) pairs: same request, different systems; a seeded
    sample of ``max_pairs`` where there are more."""
    groups: dict[str, list] = {}
    for item in sorted(dialogues, key=lambda x: (x[1], x[0])):
        if key := request_key(item[2]):
            groups.setdefault(key, []).append(item)
    pairs = [(a, b) for g in groups.values() for a, b in combinations(g, 2) if a[1] != b[1]]
    if len(pairs) > max_pairs:
        keep = np.random.default_rng(seed).choice(len(pairs), max_pairs, replace=False)
        pairs = [pairs[i] for i in sorted(keep)]
    return pairs


def _request(first: Dialogue, second: Dialogue, seed: int) -> ChatRequest:
    a, _ = transcript(first, max_chars=3000)
    b, _ = transcript(second, max_chars=3000)
    return ChatRequest.chat(
        PROMPT.format(a=a, b=b), system=SYSTEM, temperature=0.0, seed=seed, max_tokens=4
    )


# a vote file's columns, then the two orders' P(crs1 better) and whether they agree
COLUMNS = [
    "crs1",
    "crs2",
    "vote",
    "user",
    "session",
    "feedback",
    "line",
    "p_crs1_first",
    "p_crs1_second",
    "position_consistent",
]


def llm_votes(
    pairs: list[tuple],
    client,
    ctx: RunContext,
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
) -> pd.DataFrame:
    """One vote per pair (columns as a vote file's, plus the two orders' P(crs1 better) and their agreement)."""
    work = [(a, b, order) for a, b in pairs for order in ("ab", "ba")]

    def ask(w) -> dict:
        a, b, order = w
        first, second = (a, b) if order == "ab" else (b, a)
        res = client.rate(_request(first[2], second[2], seed), (1, 2))
        p_second = None if res.value is None else res.value - 1
        return {
            "crs1": a[1],
            "crs2": b[1],
            "order": order,
            "method": res.method,
            "p_crs1": None if p_second is None else (1 - p_second if order == "ab" else p_second),
            "error": res.error,
        }

    records = ctx.stream(STREAM)
    done = {
        r["key"]: r
        for r in records.run(
            [(_key(*w), w) for w in work], ask, mapper=client.map, progress=progress
        )
    }
    rows = []
    for k, (a, b) in enumerate(pairs):
        p = [done.get(_key(a, b, o), {}).get("p_crs1") for o in ("ab", "ba")]
        if None in p:
            continue  # a failed answer is recorded with its error, never turned into a vote
        vote = a[1] if min(p) > 0.5 else b[1] if max(p) < 0.5 else TIE
        rows.append(
            {
                "crs1": a[1],
                "crs2": b[1],
                "vote": vote,
                "user": "llm",
                "session": f"{a[0]}~{b[0]}",
                "feedback": "",
                "line": k + 1,
                "p_crs1_first": p[0],
                "p_crs1_second": p[1],
                "position_consistent": (p[0] > 0.5) == (p[1] > 0.5),
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)


def _key(a: tuple, b: tuple, order: str) -> str:
    return key(f"{a[0]}~{b[0]}", order)
