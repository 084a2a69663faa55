"""``crseval dialogues reactions``: the reaction reader (:mod:`crseval.text.reactions`) against what
ReDial's seekers said themselves.

Per film the recommender suggested (the seeker's form says so), the reader reads the seeker's messages
after the recommender's first message naming it, up to the recommender's next message. The seeker's own
form is the truth: seen → *seen*; else liked → *accepted*, disliked → *rejected*, not said → *not said*.
The recommender's form about the same seeker and film, mapped the same way, is another person reading the
same words: the human ceiling. Agreement is Cohen's κ over the four readings and over the one rejected
repeats use (seen or rejected, against the rest), each with a 95 % CI from resampling dialogues.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

from crseval.core.errors import CrsevalError
from crseval.core.job import JobSpec
from crseval.core.output import Output
from crseval.runs.context import RunContext
from crseval.core.registry import register_metric
from crseval.dialogues.metrics import C
from crseval.text.reactions import READINGS, reaction
from crseval.stats.bootstrap import cluster_weights, percentile_interval

register_metric(
    "reaction_kappa",
    "Cohen's κ of a reading of seekers' reactions to suggested films with the seekers' own forms "
    "(ReDial), 95 % CI from resampling dialogues",
    label="κ with the seeker's form",
    capability=C,
    scale="−1–1, 0 = chance",
    tables=["reaction_agreement"],
    tables_with_ci=["reaction_agreement"],
)
REFUSED = {"seen": "refused", "rejected": "refused", "accepted": "other", "not said": "other"}


class ReactionCheckConfig(BaseModel):
    """ReDial dialogues → the reaction reader against the seekers' own forms."""

    model_config = ConfigDict(extra="forbid")
    data: str = Field(
        ...,
        description="ReDial *.jsonl (or a folder of them): dialogues with the seekers' and "
        "recommenders' forms.",
        json_schema_extra={"argument": True},
    )
    n_boot: int = Field(
        2000,
        ge=100,
        description="Bootstrap resamples of each κ's CI.",
        json_schema_extra={"signed": True},
    )
    seed: int = Field(0, description="Seed of the resamples.", json_schema_extra={"signed": True})


def form_reading(answers: dict) -> str | None:
    """A form's answers about one film as a reading (None: not a suggested film or no form)."""
    if not isinstance(answers, dict) or answers.get("suggested") != 1:
        return None
    if answers.get("seen") == 1:
        return "seen"
    return {1: "accepted", 0: "rejected"}.get(answers.get("liked"), "not said")


def suggestions(dialogue) -> list[dict]:
    """Per film the seeker's form marks suggested: the reader's reading of the seeker's reply and both
    forms' readings."""
    seeker = dialogue.metadata.get("seeker_questions") or {}
    recommender = dialogue.metadata.get("recommender_questions") or {}
    turns, rows, done = dialogue.turns, [], set()
    for k, turn in enumerate(turns):
        if not turn.role.is_recommender:
            continue
        reply = turns[k + 1].text if k + 1 < len(turns) else ""
        for mid in (m for u in turn.utterances for m in u.metadata.get("mention_ids", [])):
            truth = form_reading(seeker.get(mid))
            if truth is None or mid in done:
                continue
            done.add(mid)
            theirs = recommender.get(mid)
            rows.append(
                {
                    "dialogue": dialogue.id,
                    "film": mid,
                    "reader": reaction(reply, turn.text) if reply else "not said",
                    "seeker": truth,
                    "recommender": form_reading({**theirs, "suggested": 1})
                    if isinstance(theirs, dict)
                    else None,
                }
            )
    return rows


def kappa(a: pd.Series, b: pd.Series, groups: pd.Series, n_boot: int, seed: int) -> tuple:
    """(Cohen's κ, lo, hi, agreement, n) over the rows where both readings exist; dialogues resampled
    whole, every resample's κ from its weighted confusion matrix at once."""
    ok = a.notna() & b.notna()
    a, b, g = a[ok].to_numpy(), b[ok].to_numpy(), groups[ok].to_numpy()
    levels = sorted(set(a) | set(b))
    ia, ib = (np.searchsorted(levels, x) for x in (a, b))
    pair = np.eye(len(levels) ** 2)[ia * len(levels) + ib]  # one-hot (a, b) per row
    weights = np.vstack([np.ones(len(a)), cluster_weights(g, n_boot, seed)])
    m = (weights @ pair).reshape(len(weights), len(levels), len(levels))
    m /= m.sum(axis=(1, 2), keepdims=True)
    po = np.trace(m, axis1=1, axis2=2)
    pe = (m.sum(axis=2) * m.sum(axis=1)).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        k = (po - pe) / (1 - pe)
    lo, hi = percentile_interval(k[1:])
    return float(k[0]), lo, hi, float(po[0]), int(len(a))


def agreement_table(films: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    rows = []
    for scheme, recode in (
        ("four readings", None),
        ("seen or rejected (rejected repeats)", REFUSED),
    ):
        truth = films["seeker"].map(recode) if recode else films["seeker"]
        for who in ("reader", "recommender"):
            mine = films[who].map(recode) if recode else films[who]
            k, lo, hi, agree, n = kappa(mine, truth, films["dialogue"], n_boot, seed)
            rows.append(
                {
                    "reading": "crseval's reader" if who == "reader" else "the recommender's form",
                    "scheme": scheme,
                    "reaction_kappa": k,
                    "reaction_kappa_lo": lo,
                    "reaction_kappa_hi": hi,
                    "agreement": agree,
                    "films": n,
                }
            )
    return pd.DataFrame(rows)


def run(config: ReactionCheckConfig, ctx: RunContext) -> Output:
    from crseval.data import load_dataset

    data = load_dataset("redial", Path(config.data))
    tick = ctx.progress("reading the seekers' replies", len(data))
    films = []
    for d in data:
        films += suggestions(d)
        tick(1)
    if not films:
        raise CrsevalError(
            "no suggested film with a seeker's form", file=Path(config.data), field="data"
        )
    films = pd.DataFrame(films)
    table = agreement_table(films, config.n_boot, config.seed)
    confusion = pd.crosstab(films["reader"], films["seeker"]).reindex(
        index=READINGS, columns=READINGS, fill_value=0
    )
    confusion = confusion.rename_axis(index="reader", columns=None).reset_index()
    out = Output(
        "The reaction reader against the seekers' own forms",
        table.round(3),
        tables={"reaction_agreement": table, "reaction_confusion": confusion},
        signature={
            "data": data.info.signature(),
            "metric": {
                "reactions": "reader-v2(seen>rejected>accepted),kappa(cohen,cluster=dialogue)"
            },
        },
    )
    out.section(
        "The reaction reader against the seekers' own forms",
        f"{len(films)} films suggested in {films['dialogue'].nunique()} ReDial dialogues ({config.data}). "
        "Per film, the seeker's reply to the recommender's message naming it, read as seen / rejected / "
        "accepted / not said, against the seeker's own form (seen → seen; else liked → accepted, disliked → "
        "rejected, not said → not said); the recommender's form about the same film is the human ceiling. "
        "κ: Cohen's, 95 % CI from resampling dialogues.",
        tables=["reaction_agreement", "reaction_confusion"],
    )
    return out


JOB = JobSpec(
    "dialogues.reactions",
    ReactionCheckConfig,
    run,
    "runs/dialogue-reactions",
    "Check the reader of users' reactions to recommended films (seen, rejected, accepted, not said) "
    "against ReDial seekers' own forms, with the recommenders' forms as the human ceiling.",
    "crseval dialogues reactions",
)
