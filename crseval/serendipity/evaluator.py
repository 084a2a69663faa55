"""The LLM serendipity evaluator: the model plays the platform's user.

It sees its behaviour history (the k most recent items, oldest first, with its ratings), the
recommended item, the definition "serendipity = a pleasant surprise: relevant *and* unexpected", and
answers one rating on 1–5 through the LLM layer (constrained; probability-weighted where the
backend allows). R runs with different seeds are averaged (with probability-weighted ratings at
temperature 0 the runs coincide — R matters for sampled backends). Few-shot examples come from
*other* users only. Auxiliary switches add what the data supports: item popularity, similarity of
the item to the history (minimum Jaccard distance of genre sets), curiosity and personality answers,
long-/short-term profiles summarised by the LLM, the interaction type (explicit ratings; Taobao's
click/purchase), and the history length k. Neither study publishes demographics.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from crseval.core.signature import prompt_hash
from crseval.data.base import SerendipityStudy
from crseval.llm import ChatRequest, LLMClient, Message
from crseval.runs.store import RunStore

SYSTEM = "You are a user of a movie recommendation platform. Answer as that user would feel."
QUESTION = ("Serendipity means a pleasant surprise: a recommendation that is relevant to you and that you did not "
            "expect. How serendipitous is this recommendation for you? Answer with a single digit from 1 (not at "
            "all) to 5 (very).")


AUX_SWITCHES = ("popularity", "similarity", "curiosity", "personality", "interaction", "profiles")


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


def _item_text(study: SerendipityStudy, item: str) -> str:
    it = study.items.get(item)
    if it is None:
        return f"an item (id {item}, no description available)"
    genres = ", ".join(it.get("genres", [])) or "unknown genres"
    return f"{it.title} ({genres})"


def _jaccard_min(study: SerendipityStudy, item: str, history: Sequence[str]) -> float | None:
    g = set(study.items[item].get("genres", [])) if item in study.items else None
    if not g:
        return None
    ds = [1 - len(g & h) / len(g | h) for h in (set(study.items[i].get("genres", [])) for i in history
                                               if i in study.items) if g | h]
    return min(ds) if ds else None


def history(study: SerendipityStudy, user: str, item: str, k: int) -> pd.DataFrame:
    """The user's other answered items, the k most recent, oldest first."""
    a = study.answers
    h = a[(a["user"] == user) & (a["item"] != item)]
    if "timestamp" in h and h["timestamp"].notna().any():
        h = h.sort_values("timestamp")
    return h.tail(k)


def user_block(study: SerendipityStudy, row: pd.Series, aux: Aux, profile: str | None = None) -> str:
    h = history(study, row["user"], row["item"], aux.history_k)
    lines = []
    if aux.profiles and profile:
        lines.append(f"Your profile (summarised from your history): {profile}")
    if len(h):
        lines.append("Movies you watched and rated recently (oldest first):")
        lines += [f"- {_item_text(study, r.item)} — you rated it {r.rating:g}/5" for r in h.itertuples()]
    else:
        lines.append("You have no recorded history on the platform.")
    if aux.curiosity and any(f"C{i}" in row for i in range(1, 11)):
        vals = [row[f"C{i}"] for i in range(1, 11) if f"C{i}" in row and pd.notna(row[f"C{i}"])]
        lines.append(f"Your curiosity self-assessment (C1–C10, 1–5 scales): {', '.join(f'{v:g}' for v in vals)}.")
    if aux.personality and any(f"P{i}" in row for i in range(1, 11)):
        vals = [row[f"P{i}"] for i in range(1, 11) if f"P{i}" in row and pd.notna(row[f"P{i}"])]
        lines.append(f"Your personality self-assessment (P1–P10, 1–7 scales): {', '.join(f'{v:g}' for v in vals)}.")
    lines.append(f"The platform now recommends: {_item_text(study, row['item'])}.")
    if aux.interaction:
        kinds = [f"{k.lower()}: {'yes' if row[k] else 'no'}" for k in ("Clicked", "Purchased")
                 if k in row and pd.notna(row[k])]
        lines.append("(Your interaction with it — " + ", ".join(kinds) + ".)" if kinds else
                     "(Your history consists of explicit ratings on a 0.5–5 scale.)")
    if aux.popularity:
        n = int((study.answers["item"] == row["item"]).sum())
        lines.append(f"(This item was recommended to {n} user(s) in this study.)")
    if aux.similarity:
        j = _jaccard_min(study, row["item"], list(h["item"]))
        if j is not None:
            lines.append(f"(Minimum genre Jaccard distance to your history: {j:.2f}; 0 = same genres, 1 = none shared.)")
    return "\n".join(lines)


def request(study: SerendipityStudy, row: pd.Series, aux: Aux, examples: Sequence[pd.Series] = (),
            seed: int = 0, profile: str | None = None) -> ChatRequest:
    msgs = [Message("system", SYSTEM)]
    for ex in examples:  # other users' answers, as completed turns (no profile: it would need their summaries)
        msgs += [Message("user", user_block(study, ex, Aux(**{**asdict(aux), "profiles": False})) + "\n\n" + QUESTION),
                 Message("assistant", str(int(np.clip(np.rint(ex["ground_truth"]), 1, 5))))]
    msgs.append(Message("user", user_block(study, row, aux, profile) + "\n\n" + QUESTION))
    return ChatRequest(tuple(msgs), temperature=0.0, max_tokens=4, seed=seed)


def profile_request(study: SerendipityStudy, user: str) -> ChatRequest:
    """Ask the LLM for the user's long-term and short-term tastes (all history vs the 3 most recent)."""
    h = history(study, user, item="", k=10_000)
    items = [f"{_item_text(study, r.item)} — rated {r.rating:g}/5" for r in h.itertuples()]
    user_msg = ("A user's movie history, oldest first:\n" + "\n".join(f"- {t}" for t in items) +
                "\n\nIn one sentence each, describe (1) their long-term tastes from the whole history and (2) their "
                "short-term tastes from the three most recent movies.")
    return ChatRequest.chat(user_msg, max_tokens=90, temperature=0.0)


def profiles(study: SerendipityStudy, client: LLMClient, users: Sequence[str]) -> dict[str, str | None]:
    """One cached summary per user (None where the call failed)."""
    results = client.map([profile_request(study, u) for u in users])
    return {u: (r.response.text.strip() if r.ok else None) for u, r in zip(users, results)}


def few_shot(study: SerendipityStudy, user: str, n: int, seed: int) -> list[pd.Series]:
    """n answers from users other than ``user`` (never the target user), seeded."""
    others = study.answers[(study.answers["user"] != user) & study.answers["ground_truth"].notna()]
    return [r for _, r in others.sample(min(n, len(others)), random_state=seed).iterrows()]


def llm_scores(study: SerendipityStudy, client: LLMClient, store: RunStore, *, aux: Aux = Aux(), runs: int = 5,
               shots: int = 0, seed: int = 0, name: str = "llm", rows: Sequence[int] | None = None,
               progress: Callable[[int], None] | None = None) -> np.ndarray:
    """Mean rating per answer over ``runs`` (NaN where every run failed — failures are recorded — and
    for answers outside ``rows`` when only some are rated; histories always come from the whole study)."""
    stream = f"serendipity_{name}"
    tag = prompt_hash(SYSTEM, QUESTION, aux.tag(), shots)
    done = store.done_keys(stream)
    targets = list(rows) if rows is not None else list(range(len(study.answers)))
    work = [(i, r) for i in range(runs) for r in targets]
    todo = [w for w in work if f"{tag}|{w[0]}|{w[1]}" not in done]
    if progress and len(todo) < len(work):
        progress(len(work) - len(todo))
    summaries = profiles(study, client, sorted({study.answers.iloc[r]["user"] for _, r in todo})) \
        if aux.profiles and todo else {}

    def one(w) -> None:
        run, idx = w
        row = study.answers.iloc[idx]
        ex = few_shot(study, row["user"], shots, seed + idx) if shots else []
        res = client.rate(request(study, row, aux, ex, seed=seed + run, profile=summaries.get(row["user"])))
        store.append(stream, {"key": f"{tag}|{run}|{idx}", "run": run, "row": idx, "user": row["user"],
                              "item": row["item"], "score": res.value, "method": res.method, "error": res.error})

    client.map(todo, one, progress)
    recs = pd.DataFrame([r for r in store.records(stream) if str(r["key"]).startswith(tag + "|")])
    means = recs.groupby("row")["score"].mean() if len(recs) else pd.Series(dtype=float)
    return means.reindex(range(len(study.answers))).to_numpy(float)
