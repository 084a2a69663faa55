"""The LLM serendipity evaluator: the model plays the platform's user.

It sees what ``context`` allows and nothing else: its behaviour history (the last k items it rated
*strictly before* the recommendation, oldest first, with its ratings), the recommended item, the
definition "serendipity = a pleasant surprise: relevant *and* unexpected", and answers one rating on
1–5 through the LLM layer (constrained; probability-weighted where the backend allows). R runs with
different seeds are averaged (with probability-weighted ratings at temperature 0 the runs coincide —
R matters for sampled backends). Few-shot examples come from *other* users only. Auxiliary switches
add what the data supports: item popularity (share of the study's users who rated it), similarity of
the item to the history (minimum Jaccard distance of genre sets), curiosity and personality answers,
long-/short-term profiles summarised by the LLM from the same prior history, the interaction type
(what kind of history it is: explicit ratings), and the history length k. Never the user's reaction to
the item (its rating, survey answers, a click or purchase). Taobao publishes no history, so its
prompts show none and the history-dependent switches are refused there. Neither study publishes
demographics.
"""

from __future__ import annotations

from dataclasses import dataclass

from dataclasses import asdict
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from crseval.core.signature import prompt_hash
from crseval.data.base import SerendipityStudy
from crseval.llm import ChatRequest, LLMClient, Message
from crseval.runs.context import RunContext
from crseval.core.keys import key
from crseval.serendipity.context import (
    genre_distance,
    has_history,
    history,
    item_popularity,
    item_text,
    popularity,
)

SYSTEM = "You are a user of a movie recommendation platform. Answer as that user would feel."
QUESTION = (
    "Serendipity means a pleasant surprise: a recommendation that is relevant to you and that you did not "
    "expect. How serendipitous is this recommendation for you? Answer with a single digit from 1 (not at "
    "all) to 5 (very)."
)


AUX_SWITCHES = ("popularity", "similarity", "curiosity", "personality", "interaction", "profiles")
HISTORY_SWITCHES = (
    "similarity",
    "interaction",
    "profiles",
)  # they describe a history: only where one exists


@dataclass(frozen=True)
class Aux:
    history_k: int = 10
    popularity: bool = False
    similarity: bool = False
    curiosity: bool = False
    personality: bool = False
    interaction: bool = False
    profiles: bool = False

    def tag(self) -> str:
        return ",".join(f"{k}={v}" for k, v in asdict(self).items())

    def refused_by(self, study: SerendipityStudy) -> str | None:
        """Why the study cannot support these switches (None when it can)."""
        on = [k for k in HISTORY_SWITCHES if getattr(self, k)]
        if on and not has_history(study):
            verb = "describes" if len(on) == 1 else "describe"
            return (
                f"{', '.join(on)} {verb} the user's history, and {study.info.name} publishes none"
            )
        if self.popularity and popularity(study) is None:
            return f"popularity: {study.unavailable['popularity']}"
        return None


def user_block(
    study: SerendipityStudy, row: pd.Series, aux: Aux, profile: str | None = None
) -> str:
    lines = []
    if aux.profiles and profile:
        lines.append(f"Your profile (summarised from your history): {profile}")
    h = None
    if has_history(study) and aux.history_k > 0:
        h = history(study, row["user"], row["item"], aux.history_k)
        if len(h):
            lines.append("Movies you watched and rated before this recommendation (oldest first):")
            lines += [
                f"- {item_text(study, item)} — you rated it {rating:g}/5"
                for item, rating in zip(h["item"], h["rating"])
            ]
        else:
            lines.append("You had rated nothing on the platform before this recommendation.")
    if aux.curiosity and any(f"C{i}" in row for i in range(1, 11)):
        vals = [row[f"C{i}"] for i in range(1, 11) if f"C{i}" in row and pd.notna(row[f"C{i}"])]
        lines.append(
            f"Your curiosity self-assessment (C1–C10, 1–5 scales): {', '.join(f'{v:g}' for v in vals)}."
        )
    if aux.personality and any(f"P{i}" in row for i in range(1, 11)):
        vals = [row[f"P{i}"] for i in range(1, 11) if f"P{i}" in row and pd.notna(row[f"P{i}"])]
        lines.append(
            f"Your personality self-assessment (P1–P10, 1–7 scales): {', '.join(f'{v:g}' for v in vals)}."
        )
    lines.append(
        f"The platform now recommends: {item_text(study, row['item'], row.get('category'))}."
    )
    if aux.interaction:
        lines.append("(Your history consists of explicit ratings on a 0.5–5 scale.)")
    if aux.popularity:
        share = item_popularity(study, row["item"])
        lines.append(
            f"(Popularity: {100 * share:.1f} % of the users in this study rated this movie.)"
        )
    if aux.similarity:
        past = None if h is None else h["item"]
        j = genre_distance(study, row["user"], row["item"], aux.history_k, past)
        if j is not None:
            lines.append(
                f"(Minimum genre Jaccard distance to your history: {j:.2f}; 0 = same genres, 1 = none shared.)"
            )
    return "\n".join(lines)


def request(
    study: SerendipityStudy,
    row: pd.Series,
    aux: Aux,
    examples: Sequence[pd.Series] = (),
    seed: int = 0,
    profile: str | None = None,
) -> ChatRequest:
    msgs = [Message("system", SYSTEM)]
    for ex in (
        examples
    ):  # other users' answers, as completed turns (no profile: it would need their summaries)
        msgs += [
            Message(
                "user",
                user_block(study, ex, Aux(**{**asdict(aux), "profiles": False}))
                + "\n\n"
                + QUESTION,
            ),
            Message("assistant", str(int(np.clip(np.rint(ex["ground_truth"]), 1, 5)))),
        ]
    msgs.append(Message("user", user_block(study, row, aux, profile) + "\n\n" + QUESTION))
    return ChatRequest(tuple(msgs), temperature=0.0, max_tokens=4, seed=seed)


def profile_request(study: SerendipityStudy, user: str, item: str) -> ChatRequest | None:
    """Ask the LLM for the user's long-term and short-term tastes (the whole history before ``item`` vs its 3
    most recent items); None when there is no earlier history to summarise."""
    h = history(study, user, item, k=10_000)
    if not len(h):
        return None
    items = [
        f"{item_text(study, item)} — rated {rating:g}/5"
        for item, rating in zip(h["item"], h["rating"])
    ]
    user_msg = (
        "A user's movie history, oldest first:\n"
        + "\n".join(f"- {t}" for t in items)
        + "\n\nIn one sentence each, describe (1) their long-term tastes from the whole history and (2) their "
        "short-term tastes from the three most recent movies."
    )
    return ChatRequest.chat(user_msg, max_tokens=90, temperature=0.0)


def profiles(
    study: SerendipityStudy, client: LLMClient, targets: Sequence[tuple[str, str]]
) -> dict:
    """One cached summary per (user, item) of what the user had rated before it (None where there is no
    such history or the call failed)."""
    reqs = {t: profile_request(study, *t) for t in targets}
    asked = [t for t, r in reqs.items() if r is not None]
    results = dict(zip(asked, client.map([reqs[t] for t in asked])))
    return {
        t: (results[t].response.text.strip() if t in results and results[t].ok else None)
        for t in targets
    }


def few_shot(study: SerendipityStudy, user: str, n: int, seed: int) -> list[pd.Series]:
    """n answers from users other than ``user`` (never the target user), seeded."""
    others = study.answers[(study.answers["user"] != user) & study.answers["ground_truth"].notna()]
    return [r for _, r in others.sample(min(n, len(others)), random_state=seed).iterrows()]


@dataclass(frozen=True)
class LLMEvaluator:
    """The LLM evaluator as a run configures it: the client it asks, the run directory its ratings are
    recorded in, what it is told beside the answer (``aux``), the runs averaged and the few-shot examples."""

    client: LLMClient
    ctx: RunContext
    aux: Aux = Aux()
    runs: int = 5
    shots: int = 0


def llm_scores(
    study: SerendipityStudy,
    evaluator: LLMEvaluator,
    *,
    seed: int = 0,
    name: str = "llm",
    rows: Sequence[int] | None = None,
    progress: Callable[[int], None] | None = None,
) -> np.ndarray:
    """Mean rating per answer over the evaluator's runs (NaN where every run failed — failures are recorded —
    and for answers outside ``rows`` when only some are rated; histories always come from the whole
    study)."""
    client, aux, runs, shots = evaluator.client, evaluator.aux, evaluator.runs, evaluator.shots
    stream = f"serendipity_{name}"
    # the protocol is part of the key: records of a run made before histories stopped at the target are not reused
    tag = prompt_hash(SYSTEM, QUESTION, aux.tag(), shots, "history:strictly-before-target")
    records = evaluator.ctx.stream(stream)
    targets = list(rows) if rows is not None else list(range(len(study.answers)))
    work = [(key(tag, run, r), (run, r)) for run in range(runs) for r in targets]
    # the profiles of every rated answer's user (on a resumed run the LLM cache answers them)
    summaries = (
        profiles(
            study, client, sorted({tuple(study.answers.iloc[r][["user", "item"]]) for r in targets})
        )
        if aux.profiles
        else {}
    )

    def one(w) -> dict:
        run, idx = w
        row = study.answers.iloc[idx]
        ex = few_shot(study, row["user"], shots, seed + idx) if shots else []
        profile = summaries.get((row["user"], row["item"]))
        res = client.rate(request(study, row, aux, ex, seed=seed + run, profile=profile))
        return {
            "run": run,
            "row": idx,
            "user": row["user"],
            "item": row["item"],
            "score": res.value,
            "method": res.method,
            "error": res.error,
        }

    recs = pd.DataFrame(records.run(work, one, mapper=client.map, progress=progress))
    means = recs.groupby("row")["score"].mean() if len(recs) else pd.Series(dtype=float)
    return means.reindex(range(len(study.answers))).to_numpy(float)
