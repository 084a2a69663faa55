"""Decomposed judging: instead of one question about a whole transcript, the judge answers small yes/no
questions about each assistant turn (:data:`crseval.judge.rubric.TURN_QUESTIONS`: does the reply address
the request, does it recommend a movie, does the user's next message show satisfaction), reading the
transcript up to the user's next message with the judged reply marked. The turn evidence (P(yes) per
turn) is aggregated into dialogue features (mean, minimum, last turn) that a calibrated judge learns
from.

Cost: the questions of one dialogue are asked in transcript order, so each prompt shares the preceding
prompt's prefix up to the judged turn and llama.cpp re-reads only the new lines and the question (the
embedded backend keeps one model process: requests run in order).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Sequence

import numpy as np

from crseval.core.errors import CrsevalError
from crseval.core.types import Dialogue
from crseval.judge.judging import Judge, judge_items
from crseval.judge.rubric import TURN_QUESTIONS
from crseval.llm.base import decode_states
from crseval.runs.stream import Stream

SEP = "#q"  # sub-item ids: "<item>#q<utterance index>"
AGGREGATES = ("mean", "min", "last")
HIDDEN = "hidden states"  # an item's readings: its utterances' hidden states (rows in order)
STATES_FIX = (
    "use the embedded model (--backend llamacpp; crseval[local], which make install installs)"
)


def stateless(client: Any) -> str | None:
    """The LLM ``client`` talks to, named, where it gives no hidden states (None where it gives them)."""
    if client.backend.supports_hidden_states:
        return None
    ident = client.identity()
    return f"{client.backend.name} ({ident.get('engine', ident.get('model'))})"


def turn_items(item_id: str, dialogue: Dialogue) -> list[tuple[str, Dialogue, int]]:
    """(sub-item id, transcript up to the next user message, index of the judged assistant utterance)."""
    utts = list(dialogue.utterances)
    out = []
    for i, u in enumerate(utts):
        if u.role.is_recommender:
            nxt = next(
                (j for j in range(i + 1, len(utts)) if not utts[j].role.is_recommender),
                len(utts) - 1,
            )
            sub = f"{item_id}{SEP}{i}"
            out.append((sub, Dialogue.from_utterances(sub, utts[: nxt + 1]), i))
    return out


def _readings(asked: list[dict], hidden: str | None) -> tuple[dict, dict]:
    """(item → question → its probabilities, (item, turn question) → [(turn, P(yes))]) from the rating
    records; the ``hidden`` question's reading counts only with the states it carries."""
    probs: dict[str, dict] = {}
    turns: dict[tuple[str, str], list[tuple[int, float]]] = {}
    for r in asked:
        if not r.get("probs"):
            continue
        if r["aspect"] in TURN_QUESTIONS:
            parent, _, idx = r["item"].rpartition(SEP)
            turns.setdefault((parent, r["aspect"]), []).append(
                (int(idx), float(r["probs"].get("1", 0.0)))
            )
        elif r["aspect"] != hidden:
            probs.setdefault(r["item"], {})[r["aspect"]] = r["probs"]
        elif r.get("hidden"):
            probs.setdefault(r["item"], {}).update(
                {r["aspect"]: r["probs"], HIDDEN: decode_states(r["hidden"])}
            )
    return probs, turns


def ask(
    items: Sequence[tuple[str, Dialogue, int | None]],
    questions: Sequence[str],
    judge: Judge,
    records: Stream,
    *,
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
    hidden: bool = False,
) -> tuple[list[dict], dict]:
    """Ask whole-item questions once per item and turn questions once per assistant turn (dialogue-level
    items only); (records, probabilities: item → question → digit probabilities, or → list of P(yes) per
    turn in order). Failed ratings leave their question out of the item's probabilities. ``hidden``: the
    first whole-item question also reads the model's hidden states over the utterances (item →
    :data:`HIDDEN` → one row per utterance); without them its rating counts as failed."""
    whole = [q for q in questions if q not in TURN_QUESTIONS]
    per_turn = [q for q in questions if q in TURN_QUESTIONS]
    if hidden and not whole:
        raise CrsevalError(
            "hidden states are read while the LLM reads a whole-dialogue question's prompt",
            fix="ask a dialogue-level question (e.g. --questions dialogue-overall)",
        )
    if hidden and not judge.client.backend.supports_hidden_states:
        raise CrsevalError(
            f"the {judge.client.backend.name} backend gives no hidden states (a judge whose turn model "
            "reads them needs the embedded model)",
            field="llm.backend",
            fix=STATES_FIX + ", or a judge without --llm-states",
        )
    asked = (
        judge_items(
            list(items),
            whole,
            [judge],
            records,
            seed=seed,
            progress=progress,
            hidden=whole[0] if hidden else None,
        )
        if whole
        else []
    )
    turns_of = {i: turn_items(i, d) for i, d, _ in items} if per_turn else {}
    if per_turn:
        subs = [s for subs_ in turns_of.values() for s in subs_]
        asked += judge_items(subs, per_turn, [judge], records, seed=seed, progress=progress)
    probs, turns = _readings(asked, whole[0] if hidden else None)
    for (parent, q), vals in turns.items():
        probs.setdefault(parent, {})[q] = [p for _, p in sorted(vals)]
    for (
        i,
        subs_,
    ) in turns_of.items():  # a dialogue is complete only if every one of its turns was answered
        expected = len(subs_)
        for q in per_turn:
            if len(probs.get(i, {}).get(q, [])) != expected or not expected:
                probs.get(i, {}).pop(q, None)
    return asked, probs


def require_readings(
    ids: Sequence[str], questions: Sequence[str], probs: dict, records: Sequence[dict]
) -> None:
    """One line naming why, instead of a traceback later, when not one of the items got every reading a
    judge needs (every rating failed: a backend error, or no hidden states returned)."""
    if not ids or any(all(q in probs.get(i, {}) for q in questions) for i in ids):
        return
    causes = Counter(
        r.get("error") or ("no hidden states came back" if "hidden" in r else "no probabilities")
        for r in records
        if r.get("error") or not r.get("probs") or ("hidden" in r and not r["hidden"])
    )
    cause, n = causes.most_common(1)[0] if causes else ("the ratings were not made", len(ids))
    raise CrsevalError(
        f"no item got every reading the calibrated judge needs ({', '.join(questions)}): {cause} "
        f"({n} of {len(records)} ratings)",
        fix="see the LLM's log (crseval llm chat tests it) and rerun: failed ratings are retried",
    )


def calls(items: Sequence[tuple[str, Dialogue, int | None]], questions: Sequence[str]) -> int:
    """LLM calls :func:`ask` makes for these items (before the cache)."""
    per_turn = sum(q in TURN_QUESTIONS for q in questions)
    return sum((len(questions) - per_turn) + per_turn * len(turn_items(i, d)) for i, d, _ in items)


def aggregate(values: Sequence[float]) -> list[float]:
    """Turn evidence → dialogue features, in :data:`AGGREGATES` order."""
    v = np.asarray(values, float)
    return [float(v.mean()), float(v.min()), float(v[-1])]
