"""The report card's tables and its number of its own (the paired difference), declared once (the
known-groups AUC is the shift room's: ``crseval/adaptation/metrics.py``). Every score on the card is a metric some capability declares; the card names them in
:data:`crseval.card.scores.ROWS`."""

from crseval.stats.paired import MIN_GROUP
from crseval.core.registry import (
    register_metric as metric,
    register_table as table,
    register_columns,
)

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
# what the criterion says of a metric: the columns of its table and of its record (crseval/validated/criterion.json)
CRITERION = (
    "label_auc",
    "label_auc_lo",
    "label_auc_hi",
    "vote_agreement",
    "vote_agreement_lo",
    "vote_agreement_hi",
    "battles",
    "criterion_verdict",
)
SYSTEMS = {
    "*": "the system's score with its 95 % CI; a reference's column adds the paired difference "
    "(the CRS minus it) with its 95 % CI and p"
}
table(
    "card",
    ["dimension", "metric"],
    "the report card. Each score: pooled over its units with a 95 % bootstrap CI. 'vs': the CRS minus "
    "that system on the same units, 95 % CI; * p < .05, ** p < .01, *** p < .001 (paired permutation "
    "test, Holm-adjusted over the row's comparisons). Known groups: whether the metric ranks the "
    "reference CRS expected to score better above the one expected to score worse (the cell names the "
    "pair: template, which follows the user, above stubborn, which ignores the user; for out-of-catalogue, "
    "template above hallucinator, which names films not in the catalogue), AUC with its 95 % CI; 'too few "
    f"sessions' where either has fewer than {MIN_GROUP}. ‡: illustrative data (the bundled sample). Real users: whether the "
    "metric predicts real users (yes: both CIs above .5; YES: and AUC ≥ .70 with ≥ 65 % of votes; no: not "
    "shown; REVERSED), its AUC for their own labels · the share of their votes it agrees with, on "
    "CRSArena-Dial (CIs in card_evidence). n: units run / planned († under 80 %)",
    capability=C,
    headline=[
        "dimension",
        "label",
        "*",
        "known groups",
        "real users",
        "n",
    ],  # *: the CRS's column and each "vs" one
    columns=["label"],
    dynamic={
        "trust": "the metric's evidence: known groups in this run, or what is known",
        "known groups": "the reference pair (better>worse), the known-groups verdict with the AUC and its "
        "95 % CI, or too few sessions for one",
        "real users": "whether the metric predicts real users (YES: and meets the bar; yes: predicts; no: "
        "not shown; REVERSED), its "
        "AUC for their own labels · the share of their votes it agrees with — crseval criterion on "
        "CRSArena-Dial's shared half (CIs in card_evidence)",
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
    "p, and p Holm-adjusted over the metric's comparisons: the stars on the card; mdd: the smallest "
    "difference this many units detect with 80 % power, inf where they cannot reach p < .05)",
    capability=C,
    headline=["metric", "reference", "diff", "diff_lo", "diff_hi", "p", "p_holm", "n", "mdd"],
    columns=["dimension", "label", "diff", "diff_lo", "diff_hi", "p", "p_holm", "n", "mdd", "part"],
)
table(
    "card_evidence",
    ["metric"],
    "how far each card metric can be trusted: known groups (template follows the user, stubborn ignores "
    "the user) measured in this run, and whether it predicts real users' own labels and votes (crseval "
    "criterion on CRSArena-Dial's shared half, shipped)",
    capability=C,
    headline=[
        "metric",
        "auc",
        "auc_lo",
        "auc_hi",
        "verdict",
        "evidence",
        "label_auc",
        "vote_agreement",
    ],
    columns=[
        "dimension",
        "label",
        "shift.auc",
        "auc_lo",
        "auc_hi",
        "n",
        "verdict",
        "evidence",
        *CRITERION,
    ],
)
metric(
    "label_auc",
    "Criterion validity: over pairs of real dialogues whose users' own labels differ (satisfied vs "
    "frustrated, or ratings), the share in which the better-labelled one has the better value of the "
    "metric, ties half (the AUC; Harrell's C for a rating); its CI from resampling users",
    label="AUC for the users' label",
    capability=C,
    scale="0–1, .5 = chance",
)
metric(
    "vote_agreement",
    "Criterion validity: over decided battles (one real user, two CRSs, a vote), the share in which the "
    "metric prefers the CRS the user voted for (battles where it ties left out); CI from resampling "
    "users, exact binomial p against .5",
    label="agrees with votes",
    capability=C,
    scale="share 0–1, .5 = chance",
)
metric(
    "ranking_tau",
    "Criterion validity: Kendall's τ-b of the systems' mean values with a published ranking of the "
    "same systems (the arena's Elo); CI from resampling dialogues within systems",
    label="τ with the ranking",
    capability=C,
    scale="−1–1",
)
table(
    "criterion",
    ["metric"],
    "criterion validity: per card metric readable from a dialogue's words, how far it predicts what real "
    "users felt — their label per dialogue, their vote per battle, the systems' published ranking — each "
    "with its 95 % CI, in the metric's own direction",
    capability=C,
    headline=["label", *CRITERION[:-1], "ranking_tau", "criterion_verdict"],
    columns=[
        "label",
        "on_card",
        *CRITERION,
        "dialogues",
        "vote_agreement_p",
        "battles_tied",
        "ranking_tau",
        "ranking_tau_lo",
        "ranking_tau_hi",
        "systems",
        "ranked_by",
    ],
)
table(
    "criterion_dialogues",
    ["dialogue"],
    "every real dialogue the criterion rests on: its CRS, its user, the user's own label and each metric",
    capability=C,
    headline=["dialogue", "system", "user"],
    columns=["system", "user"],
    dynamic={
        "*": "the user's own label, or a metric measured on the dialogue (named as in its part)"
    },
)
table(
    "wish_gaps",
    ["wish_category"],
    "what real users asked for that following from the words can read, and what it cannot: every user "
    "turn that asks for films, put in the first kind it holds",
    capability=C,
    columns=["user_requests", "request_share", "now_read"],
)

# the room's own context columns (the shared glossary keeps the terms every room uses)
register_columns(
    C,
    {
        "reference": ("reference", "the reference system a paired difference is taken against"),
        "part": (
            "part",
            "the part (its own run directory) of a run built from other jobs the row comes from",
        ),
        "evidence": ("evidence", "what a metric's verdict rests on, in words"),
        "wish_category": (
            "what the user asked for",
            "a kind of request in real users' turns that the rule-based wish reading reads, or cannot read",
        ),
        "user_requests": (
            "requests",
            "user turns that ask for films (a request cue), of that kind",
        ),
        "request_share": ("share", "their share of all the users' requests"),
        "now_read": (
            "now read",
            "of them, those from which the full reading (a reference film, something new) gains a wish",
        ),
        "on_card": ("on the card", "whether the report card shows the metric"),
        "battles": (
            "battles",
            "decided battles (a vote, not a tie) in which the metric prefers one CRS",
        ),
        "battles_tied": ("battles tied", "decided battles in which the metric ties the two CRSs"),
        "ranked_by": ("ranked by", "the ranking of the systems the τ is taken with"),
        "criterion_verdict": (
            "real users",
            "predicts (the AUC's and the vote agreement's CIs above .5; 'meets the bar' where they reach .70 "
            "and 65 %), reversed (either below .5) or not shown (also below "
            f"{MIN_GROUP} dialogues or decided battles)",
        ),
        "mdd": (
            "detectable difference",
            "the smallest true difference these paired units detect with 80 % power at p < .05 (2.8 standard "
            "errors); inf: too few units for the permutation test to reach p < .05",
        ),
    },
)
