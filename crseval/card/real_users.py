"""What the card's numbers are known to say about real users: ``crseval criterion`` on CRSArena-Dial's
shared half, shipped with crseval so that every card prints it beside known groups (a user with real
users' dialogues measures it on them with that command). ``tests/card/test_criterion_cli.py`` checks the
figures against a fresh run of the default command on the shared data."""

from __future__ import annotations

SOURCE = (
    "CRSArena-Dial's shared half: 366 dialogues of real users with 9 real CRSs, their own satisfied/"
    "frustrated labels, 81 decided battles (`crseval criterion`)"
)
# metric → (AUC for the users' label, its 95 % CI, share of decided battles won by the voted CRS, its 95 %
# CI, battles the metric decides, verdict) — the command's defaults: --n-boot 2000, seed 0
SHIPPED: dict[str, tuple[float, float, float, float, float, float, int, str]] = {
    "shift.follow.follow_rate": (0.636, 0.547, 0.727, 0.647, 0.412, 0.882, 17, "not shown"),
    "shift.follow.success": (0.657, 0.576, 0.741, 0.800, 0.500, 1.000, 10, "not shown"),
    "shift.tas": (0.458, 0.385, 0.534, 0.423, 0.321, 0.538, 78, "not shown"),
    "dialogues.out_of_catalogue_rate": (0.473, 0.411, 0.533, 0.200, 0.040, 0.360, 25, "reversed"),
    "dialogues.repetition_rate": (0.538, 0.472, 0.602, 0.433, 0.267, 0.600, 30, "not shown"),
    "dialogues.rejected_repeat_rate": (0.529, 0.502, 0.554, 0.300, 0.000, 0.600, 10, "not shown"),
    "shift.follow.wish_rate": (0.623, 0.553, 0.704, 0.720, 0.560, 0.880, 25, "predicts"),
    "dialogues.novelty": (0.535, 0.454, 0.615, 0.492, 0.365, 0.619, 63, "not shown"),
    "dialogues.recommending_turns": (0.681, 0.617, 0.742, 0.781, 0.685, 0.877, 73, "predicts"),
    # with --judge: the embedded model's expected ratings (1,098 calls; not re-measured by the tests)
    "shift.personalization": (
        0.798,
        0.742,
        0.850,
        0.802,
        0.716,
        0.889,
        81,
        "predicts (meets the bar)",
    ),
    "shift.proactiveness": (
        0.813,
        0.756,
        0.865,
        0.852,
        0.778,
        0.926,
        81,
        "predicts (meets the bar)",
    ),
    "shift.coherence": (0.829, 0.774, 0.880, 0.840, 0.765, 0.914, 81, "predicts (meets the bar)"),
}


def real_users(metric: str) -> str:
    """The card's "real users" cell of a metric: its verdict (YES: predicts and meets the bar; yes: predicts;
    no: not shown; REVERSED), its AUC for the users' labels and the share of battles it agrees with their
    votes (the CIs: :func:`evidence`, in the card's evidence table)."""
    if metric not in SHIPPED:
        return "—"
    auc, _, _, votes, _, _, _, verdict = SHIPPED[metric]
    word = {"reversed": "REVERSED", "not shown": "no", "predicts": "yes"}.get(verdict, "YES")
    return f"{word} {auc:.2f}".replace(" 0.", " .") + f" · {votes:.0%}"


def evidence(metric: str) -> dict[str, float | int | str]:
    """The shipped criterion figures of a metric as the card's evidence columns (empty: not measured)."""
    if metric not in SHIPPED:
        return {}
    from crseval.card.metrics import CRITERION

    return dict(zip(CRITERION, SHIPPED[metric]))
