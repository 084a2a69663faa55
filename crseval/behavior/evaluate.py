"""Evaluate a system's responses against the human recommender's, turn by turn.

Every recommender turn of a labelled dialogue is a *context* (the dialogue up to that turn); the
system's response to it is compared with what the human said there: explicit BA (the system
response's strategy from the trained classifier — or an LLM tagger — against the human label),
entropy-weighted BA, implicit BA (pair classifier, no labels), BLEU/DIST and strategy
distributions, plus turns before the first recommendation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from crseval.core.registry import declared_params
from crseval.behavior.explicit import (
    TransitionModel,
    entropy_weighted_ba,
    explicit_ba,
    sentence_match,
    split_sentences,
    turn_labels,
)
from crseval.behavior.generation import bleu, dist
from crseval.behavior.implicit import PairClassifier
from crseval.core.errors import CrsevalError
from crseval.core.types import Dialogue, Utterance
from crseval.data.io import read_jsonl, read_rows
from crseval.llm import ChatRequest, LLMClient, Message
from crseval.runs.context import RunContext
from crseval.core.keys import key

SYSTEM_PROMPT = (
    "You are a friendly movie recommender chatting with a seeker who wants a movie to watch. "
    "Reply with one short message (one or two sentences), as a human recommender would."
)


JOINED = "(The seeker has joined the chat.)"  # the user's turn where the recommender speaks first


@dataclass
class Context:
    dialogue: str
    turn: int  # index among the dialogue's recommender turns
    history: list[Utterance]  # everything before this turn
    human: str  # what the human recommender said
    labels: list[str]  # the human's strategy labels in this turn


def contexts(dialogues: Sequence[Dialogue]) -> list[Context]:
    out = []
    for d in dialogues:
        history: list[Utterance] = []
        k = 0
        for t in d.turns:
            if t.role.is_recommender:
                out.append(
                    Context(
                        d.id,
                        k,
                        list(history),
                        t.text,
                        [u.strategy for u in t.utterances if u.strategy],
                    )
                )
                k += 1
            history += t.utterances
    return out


def response_request(context: Context, seed: int = 0) -> ChatRequest:
    msgs = [Message("system", SYSTEM_PROMPT)]
    for u in context.history:
        role = "assistant" if u.role.is_recommender else "user"
        if len(msgs) > 1 and msgs[-1].role == role:
            msgs[-1] = Message(role, msgs[-1].content + " " + u.text)
        else:
            msgs.append(Message(role, u.text))
    if msgs[-1].role != "user":  # the recommender opens the dialogue: prompt it to start
        msgs.append(Message("user", JOINED))
    return ChatRequest(tuple(msgs), temperature=0.0, max_tokens=60, seed=seed)


def generate_responses(
    ctxs: Sequence[Context],
    client: LLMClient,
    ctx: RunContext,
    *,
    stream: str = "responses",
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
) -> pd.DataFrame:
    """One resumable record per context; failures are recorded with their error."""

    def one(c: Context) -> dict:
        res = client.try_complete(response_request(c, seed))
        return _response(c, res.response.text.strip() if res.ok else None, res.error)

    return pd.DataFrame(
        ctx.stream(stream).run(_keyed(ctxs), one, mapper=client.map, progress=progress)
    )


def _keyed(ctxs: Sequence[Context]) -> list[tuple[str, Context]]:
    return [(key(c.dialogue, c.turn), c) for c in ctxs]


def _response(c: Context, text: str | None, error: str | None) -> dict:
    return {"dialogue": c.dialogue, "turn": c.turn, "response": text, "error": error}


def history(context: Context) -> list[dict[str, str]]:
    """A context as the plug-in protocol's history: ``[{"speaker": "user"|"system", "text": …}]``, ending
    with the user's turn as the protocol promises — where the recommender opens the dialogue, the user's
    turn is :data:`JOINED` (what the LLM is told too)."""
    out = [
        {"speaker": "system" if u.role.is_recommender else "user", "text": u.text}
        for u in context.history
    ]
    if not out or out[-1]["speaker"] != "user":
        out.append({"speaker": "user", "text": JOINED})
    return out


CRS_AT_ONCE = 4  # contexts your system answers at once (the shift part calls it from 2 threads too)


def generate_with(
    ctxs: Sequence[Context],
    crs,
    ctx: RunContext,
    *,
    stream: str = "responses",
    progress: Callable[[int], None] | None = None,
    retry: bool = False,
) -> pd.DataFrame:
    """Your own system (a :mod:`crseval.simulation.plugins` CRS) answers every context, :data:`CRS_AT_ONCE`
    at a time (a CRS that takes seconds a reply is waited on in parallel); resumable, failures recorded
    with their error (``retry``: the failed ones are asked again)."""
    from crseval.runs.stream import threads

    def one(c: Context) -> dict:
        reply = crs.respond(history(c))
        return _response(c, None if reply.error else reply.text.strip(), reply.error)

    failed = (lambda r: r.get("response") is None) if retry else None
    return pd.DataFrame(
        ctx.stream(stream).run(
            _keyed(ctxs), one, mapper=threads(CRS_AT_ONCE), progress=progress, retry=failed
        )
    )


def load_responses(path: str | Path) -> pd.DataFrame:
    """A responses file: JSONL or CSV with ``dialogue``, ``turn`` (recommender-turn index) and ``response``."""
    p = Path(path)
    if p.suffix == ".jsonl":
        rows = []
        for line, obj in read_jsonl(p):
            for f in ("dialogue", "turn", "response"):
                if not isinstance(obj, dict) or f not in obj:
                    raise CrsevalError("missing field", file=p, line=line, field=f)
            turn = obj["turn"]
            if (
                isinstance(turn, bool)
                or not isinstance(turn, (int, str))
                or not str(turn).strip().isdigit()
            ):
                raise CrsevalError(
                    f"turn {turn!r} is not a whole number",
                    file=p,
                    line=line,
                    field="turn",
                    expected="the recommender-turn index: 0, 1, 2 …",
                )
            if not isinstance(obj["response"], str):
                raise CrsevalError("response is not text", file=p, line=line, field="response")
            rows.append(
                {"dialogue": str(obj["dialogue"]), "turn": int(turn), "response": obj["response"]}
            )
        return pd.DataFrame(rows)
    _, it = read_rows(p, required=("dialogue", "turn", "response"))
    rows = []
    for line, r in it:
        try:
            rows.append(
                {"dialogue": r["dialogue"], "turn": int(r["turn"]), "response": r["response"]}
            )
        except ValueError:
            raise CrsevalError("turn is not an integer", file=p, line=line, field="turn") from None
    return pd.DataFrame(rows)


_TITLE = re.compile(r"\b[A-Z][\w'’:&-]*(?:\s+[A-Z0-9][\w'’:&-]*)*\s*\((?:19|20)\d\d\)")


def mentions_movie(text: str, titles: Sequence[str]) -> bool:
    low = text.lower()
    return bool(_TITLE.search(text)) or any(t and t.lower() in low for t in titles)


def _titles(d: Dialogue) -> list[str]:
    raw = list((d.metadata.get("movies") or {}).keys()) + [i for u in d.utterances for i in u.items]
    return sorted({re.sub(r"\s*\(\d{4}\)\s*$", "", t).strip() for t in raw if len(t) > 3})


def _turn_table(
    ctxs, sys_text: list[str], pair: PairClassifier, system_labels, dialogues
) -> pd.DataFrame:
    """One row per answered recommender turn: the human's and the system's response, their strategies
    (the system's by ``system_labels`` where given, else the classifier), P(same strategy), whether the
    system recommends, and the turn's and its sentences' matches."""
    predicted = pair.predict_strategy(sys_text)
    sentences = [split_sentences(t) for t in sys_text]
    flat = iter(pair.predict_strategy([s for ss in sentences for s in ss]))
    sentence_labels = [[next(flat) for _ in ss] for ss in sentences]
    labels = [(system_labels or {}).get((c.dialogue, c.turn)) or p for c, p in zip(ctxs, predicted)]
    titles = {d.id: _titles(d) for d in dialogues}
    table = pd.DataFrame(
        {
            "dialogue": [c.dialogue for c in ctxs],
            "turn": [c.turn for c in ctxs],
            "human": [c.human for c in ctxs],
            "human_label": [c.labels[0] if c.labels else None for c in ctxs],
            "system": sys_text,
            "system_label": labels,
            "p_same": pair.proba([c.human for c in ctxs], sys_text),
            "system_recommends": [
                mentions_movie(t, titles[c.dialogue]) for c, t in zip(ctxs, sys_text)
            ],
        }
    )
    table["match"] = (table["system_label"] == table["human_label"]).astype(int)
    table["human_labels"] = [" ".join(c.labels) for c in ctxs]
    table["system_sentence_labels"] = [" ".join(labs) for labs in sentence_labels]
    table["sentence_match"] = [
        sentence_match(labs, c.labels) for labs, c in zip(sentence_labels, ctxs)
    ]
    return table


def _explicit(table: pd.DataFrame, dialogues, reference, order: int) -> dict[str, float]:
    """Explicit BA (formula, counted, entropy-weighted) over the complete dialogues — every recommender
    turn answered."""
    by_d = {d.id: d for d in dialogues}
    complete = [
        did
        for did, g in table.groupby("dialogue", sort=False)
        if len(g) == len(turn_labels(by_d[did]))
    ]
    hum = [turn_labels(by_d[did]) for did in complete]
    sysl = [
        [[lab] for lab in table[table["dialogue"] == did].sort_values("turn")["system_label"]]
        for did in complete
    ]
    model = TransitionModel.fit(
        [[t[0] for t in turn_labels(d) if t] for d in (reference or dialogues)], order
    )
    return {
        "dialogues": len(complete),
        "explicit_ba": explicit_ba(sysl, hum, normalise="formula") if complete else np.nan,
        "explicit_ba_counted": explicit_ba(sysl, hum, normalise="counted") if complete else np.nan,
        "entropy_ba": entropy_weighted_ba(sysl, hum, model) if complete else np.nan,
    }


def evaluate_responses(
    dialogues: Sequence[Dialogue],
    responses: pd.DataFrame,
    pair: PairClassifier,
    *,
    reference: Sequence[Dialogue] | None = None,
    system_labels: dict[tuple[str, int], str] | None = None,
    order: int = 1,
) -> tuple[dict[str, float], pd.DataFrame]:
    """(metrics, per-turn table). ``system_labels`` (dialogue, turn) → strategy overrides the classifier
    (e.g. an LLM tagger's labels); ``reference`` dialogues fit the entropy model (default: ``dialogues``).
    BLEU's k, DIST's n and the implicit share's threshold are their declared parameters."""
    ctxs = contexts(dialogues)
    resp = {(str(r.dialogue), int(r.turn)): r.response for r in responses.itertuples()}
    missing = [c for c in ctxs if not isinstance(resp.get((c.dialogue, c.turn)), str)]
    ctxs = [c for c in ctxs if c not in missing]
    if not ctxs:
        raise CrsevalError(
            "no system response matches a recommender turn",
            field="responses",
            expected="dialogue ids and recommender-turn indices of the evaluated dialogues",
        )
    sys_text = [resp[(c.dialogue, c.turn)] for c in ctxs]
    table = _turn_table(ctxs, sys_text, pair, system_labels, dialogues)
    counted = table["turn"] > 0
    first_rec = table[table["system_recommends"]].groupby("dialogue")["turn"].min()
    declared = lambda name: declared_params(name, "behavior")
    explicit = _explicit(table, dialogues, reference, order)
    metrics = {
        "dialogues": explicit.pop("dialogues"),
        "turns": len(table),
        "missing_responses": len(missing),
        **explicit,
        "explicit_ba_sentences": float(table.loc[counted, "sentence_match"].mean()),
        "implicit_ba": float(table.loc[counted, "p_same"].mean()),
        "implicit_ba_share": float(
            (table.loc[counted, "p_same"] >= declared("implicit_ba_share")["threshold"]).mean()
        ),
        **{b: bleu(table["system"], table["human"], declared(b)["k"]) for b in ("bleu4", "bleu2")},
        **{d: dist(table["system"], declared(d)["k"]) for d in ("dist1", "dist2")},
        "human_dist2": dist(table["human"], declared("human_dist2")["k"]),
        "turns_before_rec": float(
            first_rec.reindex(table["dialogue"].unique())
            .fillna(table.groupby("dialogue")["turn"].max() + 1)
            .mean()
        ),
    }
    return metrics, table


def strategy_distributions(table: pd.DataFrame) -> pd.DataFrame:
    h = table["human_label"].value_counts(normalize=True).rename("human_share")
    s = table["system_label"].value_counts(normalize=True).rename("system_share")
    return pd.concat([h, s], axis=1).fillna(0.0).rename_axis("strategy").reset_index()


def behavior_tables(metrics: dict[str, float], table: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The behavior tables of a run in report order: metrics, strategy distributions, mismatched turns (the
    drill-down of explicit BA) and per-turn values."""
    return {
        "behavior_metrics": pd.DataFrame([metrics]),
        "behavior_strategy_distribution": strategy_distributions(table),
        "behavior_mismatches": table[(table["match"] == 0) & (table["turn"] > 0)],
        "behavior_turns": table,
    }
