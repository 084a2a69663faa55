"""The report card's tables and its two numbers of its own (the paired difference and the known-groups
AUC), declared once. Every score on the card is a metric some capability declares; the card names them in
:data:`crseval.card.scores.ROWS`."""

from crseval.core.registry import register_metric as metric, register_table as table

C = "card"

metric(
    "diff",
    "The CRS's score minus the reference's, on the units both have (the same simulated users, the same "
    "dialogue contexts); its CI from resampling units, p from a paired permutation test (each unit's two systems swapped or not)",
    label="difference",
    higher_is_better=None,
    scale="the metric's own",
    capability=C,
)
metric(
    "auc",
    "Known groups: the probability that a session of the CRS that follows the user (template) scores "
    "better than one of the CRS that ignores the user (stubborn), in the metric's own direction; ties "
    "count half; .5 = no separation",
    label="known-groups AUC",
    capability=C,
    scale="0–1",
)
SYSTEMS = {
    "*": "the system's score with its 95 % CI; a reference's column adds the paired difference "
    "(the CRS minus it) with its 95 % CI and p"
}
table(
    "card",
    ["dimension", "metric"],
    "the report card: per metric, the CRS's score and each reference's, the paired differences, and how "
    "far the metric can be trusted",
    capability=C,
    headline=[
        "dimension",
        "label",
        "*",
        "known groups",
        "n",
    ],  # *: the CRS's column and each "vs" one
    columns=["label"],
    dynamic={
        "trust": "the metric's evidence: known groups in this run, or what is known",
        "known groups": "the known-groups verdict with the AUC and its 95 % CI",
        "n": "the CRS's sessions that ran without failing (dialogue contexts it answered, for behavior "
        "alignment) / those planned; † on the score where fewer than 80 %",
    }
    | SYSTEMS,
)
table(
    "card_scores",
    ["metric", "system"],
    "every system's score per metric, pooled over its units, with 95 % bootstrap CIs",
    capability=C,
    headline=["dimension", "metric", "system", "mean", "ci_lo", "ci_hi", "n"],
    columns=["dimension", "label", "mean", "ci_lo", "ci_hi", "n", "part"],
)
table(
    "card_comparisons",
    ["metric", "system", "reference"],
    "the CRS minus each system it is compared with, paired on shared units (95 % CI, paired permutation "
    "p, and p Holm-adjusted over the metric's comparisons: the stars on the card)",
    capability=C,
    headline=["metric", "reference", "diff", "diff_lo", "diff_hi", "p", "p_holm", "n"],
    columns=["dimension", "label", "diff", "diff_lo", "diff_hi", "p", "p_holm", "n", "part"],
)
table(
    "card_evidence",
    ["metric"],
    "how far each card metric can be trusted: known groups (template follows the user, stubborn ignores "
    "the user) measured in this run",
    capability=C,
    headline=["metric", "auc", "auc_lo", "auc_hi", "verdict", "evidence"],
    columns=["dimension", "label", "auc", "auc_lo", "auc_hi", "n", "verdict", "evidence"],
)
table(
    "known_groups",
    ["metric", "turns", "worse"],
    "every known-groups check: a metric, a dialogue length, the follower against one other CRS",
    capability=C,
    headline=["metric", "turns", "worse", "auc", "auc_lo", "auc_hi", "verdict"],
    columns=["label", "turns", "better", "auc", "auc_lo", "auc_hi", "n", "verdict"],
)
table(
    "known_groups_summary",
    ["metric"],
    "per metric: its known-groups checks held, reversed, the smallest AUC and where",
    capability=C,
    headline=["metric", "checks", "held", "reversed", "auc_min", "worst", "verdict"],
    columns=["label", "checks", "held", "reversed", "auc_min", "worst", "verdict"],
)
