"""What the card's numbers are known to say about real users: ``crseval criterion`` on CRSArena-Dial's
shared half, shipped with crseval so that every card prints it beside known groups (a user with real
users' dialogues measures it on them with that command). The figures are the validity gate's records
(`crseval/validated/criterion.json`, re-measured by ``make validate``; `criterion_judge.json`, the
``--judge`` rows through the embedded LLM; `judge_transfer.json`, the judge on CRSs it never met), never
typed here."""

from __future__ import annotations

from functools import cache
from typing import Any

from crseval import validated
from crseval.core.numbers import ci_text, number
from crseval.card.metrics import CRITERION


@cache
def _shipped() -> dict[str, dict[str, Any]]:
    """metric → its criterion row (the command's defaults: --n-boot 2000, seed 0)."""
    return {
        r["metric"]: r
        for check in ("criterion", "criterion_judge")
        for r in validated.load(check).rows
    }


@cache
def source() -> str:
    """Where the shipped figures come from, in words, with the record's own counts."""
    rows = validated.load("criterion").rows
    return (
        f"CRSArena-Dial's shared half: {max(r['dialogues'] for r in rows)} dialogues of real users with "
        f"{max(r['systems'] for r in rows)} real CRSs, their own satisfied/frustrated labels, "
        f"{max(r['battles'] + r['battles_tied'] for r in rows)} decided battles (`crseval criterion`)"
    )


def real_users(metric: str) -> str:
    """The card's "real users" cell of a metric: its verdict (YES: predicts and meets the bar; yes: predicts;
    no: not shown; REVERSED), its AUC for the users' labels and the share of battles it agrees with their
    votes (the CIs: :func:`evidence`, in the card's evidence table)."""
    row = _shipped().get(metric)
    if row is None:
        return "—"
    verdict = row["criterion_verdict"]
    word = {"reversed": "REVERSED", "not shown": "no", "predicts": "yes"}.get(verdict, "YES")
    return f"{word} {row['label_auc']:.2f}".replace(" 0.", " .") + f" · {row['vote_agreement']:.0%}"


def evidence(metric: str) -> dict[str, Any]:
    """The shipped criterion figures of a metric as the card's evidence columns (empty: not measured)."""
    row = _shipped().get(metric)
    return {} if row is None else {c: row[c] for c in CRITERION}


POOLED = "all (pooled)"
OWN_READING = (
    "LLM: dialogue-overall question"  # what the card's judge rows read: the LLM's rubric answer
)
CALIBRATED = "calibrated (LLM + turn model with LLM states)"  # the shipped judge's design
PEER = "published: face_run_train"  # FACE's published predictions on the same dialogues


def _transfer(design: str) -> dict[str, Any]:
    """One design's dialogue-overall agreement with people on held-out CRSs: pooled r and its CI, the
    lowest and highest held-out CRS, how many were held out."""
    rows = [
        r
        for r in validated.load("judge_transfer").rows
        if r["aspect"] == "dialogue-overall" and r["judge"] == design
    ]
    pooled = next(r for r in rows if r["system"] == POOLED)
    each = [r["pearson"] for r in rows if r["system"] != POOLED]
    return {**pooled, "min": min(each), "max": max(each), "systems": len(each)}


@cache
def judge_transfer() -> str:
    """How far to trust the card's judge rows on a CRS the judge never met, from the validity record:
    leave-one-system-out on CRSArena-Eval's shared dialogues (people's dialogue-overall ratings)."""
    own, fitted, face = (_transfer(d) for d in (OWN_READING, CALIBRATED, PEER))

    def said(t: dict[str, Any]) -> str:
        return (
            f"r {ci_text(t['pearson'], t['pearson_lo'], t['pearson_hi'])}, "
            f"{number(t['min'])} to {number(t['max'])} over the {t['systems']} held-out CRSs"
        )

    return (
        "§ the judge on CRSs it never met (CRSArena-Eval, people's dialogue-overall ratings, each CRS "
        f"held out in turn): the embedded LLM's own reading, which these rows use, agrees at {said(own)}; "
        f"the calibrated judge (crseval judge) at {said(fitted)}; FACE's published predictions at "
        f"{said(face)} (crseval/validated/judge_transfer.json)"
    )
