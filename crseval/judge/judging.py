"""Rate items with a panel of LLM judges, one resumable record per (judge, sample, item, aspect)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Callable, Sequence

from crseval.core.types import Dialogue
from crseval.judge.rubric import judge_request, rubric_for
from crseval.llm.client import LLMClient
from crseval.runs.stream import Stream
from crseval.core.keys import key

Item = tuple[
    str, Dialogue, "int | None"
]  # (item id, dialogue, index of the judged utterance or None)


@dataclass
class Judge:
    """One panel member: a client plus how many samples it draws per item (temperature > 0 for R > 1)."""

    name: str
    client: LLMClient
    samples: int = 1
    temperature: float = 0.0
    question: str | None = (
        None  # replaces the rubric's question for this member (panels that mix prompts)
    )


JUDGMENTS = "judgments"  # the stream a judge's ratings are recorded in, unless a job keeps its own


def _rating(w, *, seed: int, questions: dict[str, str], hidden: str | None) -> dict:
    """One rating record: a judge's sample of an item on an aspect (see :func:`judge_items`)."""
    judge, sample, (item_id, dialogue, target), aspect = w
    rubric = rubric_for(
        aspect,
        turn_level=target is not None,
        question=judge.question or questions.get(aspect),
    )
    req, neutralised = judge_request(
        dialogue,
        rubric,
        target=target,
        temperature=judge.temperature,
        seed=seed + sample,
        summary=dialogue.metadata.get("preference_summary"),
        hidden=aspect == hidden,
    )
    res = judge.client.rate(req, rubric.scale)
    rec = {
        "judge": judge.name,
        "sample": sample,
        "item": item_id,
        "aspect": aspect,
        "score": res.value,
        "method": res.method,
        "probs": res.probs,
        "raw": res.raw,
        "error": res.error,
        "attempts": res.attempts,
        "prompt": rubric.prompt_hash(),
        "neutralised": neutralised,
    }
    if aspect == hidden:
        rec["hidden"] = res.hidden
    return rec


def judge_items(
    items: Sequence[Item],
    aspects: Sequence[str],
    judges: Sequence[Judge],
    records: Stream,
    *,
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
    questions: dict[str, str] | None = None,
    hidden: str | None = None,
) -> list[dict]:
    """One record per rating, in the order judges × samples × items × aspects, from ``records`` (a run's
    stream, e.g. ``store.stream(JUDGMENTS)``): what an interrupted run already recorded is read back (``questions`` replace the rubrics' questions of the aspects they name). A
    rating that could not be obtained is recorded with its error (score None), never replaced by a
    default. The ratings of aspect ``hidden`` also carry the model's hidden states over each assistant
    reply (:func:`crseval.judge.rubric.judge_request`), under their own record keys."""
    work = [
        (j, s, it, a) for j in judges for s in range(j.samples) for it in items for a in aspects
    ]
    keyed = [(_key(*w) + ("|hidden" if w[3] == hidden else ""), w) for w in work]

    rate = partial(_rating, seed=seed, questions=questions or {}, hidden=hidden)

    out = []
    for judge in judges:  # each judge's own concurrency limit applies to its own calls
        mine = [(k, w) for k, w in keyed if w[0] is judge]
        out += records.run(mine, rate, mapper=judge.client.map, progress=progress)
    return out


def _key(judge: Judge, sample: int, item: Item, aspect: str) -> str:
    return key(judge.name, f"s{sample}", item[0], aspect)
