"""What the card's numbers are known to say about real users: ``crseval criterion`` on CRSArena-Dial's
shared half, shipped with crseval so that every card prints it beside known groups (a user with real
users' dialogues measures it on them with that command). The figures are the validity gate's records
(`crseval/records/criterion.json`, re-measured by ``make validate``; `criterion_judge.json`, the
``--judge`` rows through the embedded LLM), never typed here."""

from __future__ import annotations

from functools import cache
from typing import Any

from crseval import records
from crseval.card.metrics import CRITERION


@cache
def _shipped() -> dict[str, dict[str, Any]]:
    """metric → its criterion row (the command's defaults: --n-boot 2000, seed 0)."""
    return {
        r["metric"]: r
        for check in ("criterion", "criterion_judge")
        for r in records.load(check).rows
    }


@cache
def source() -> str:
    """Where the shipped figures come from, in words, with the record's own counts."""
    rows = records.load("criterion").rows
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
