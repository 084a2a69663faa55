"""Behavior-alignment metrics and tables, declared once (names are the result-table columns)."""

from crseval.core.capability import declare_capability
from crseval.core.registry import (
    register_metric as metric,
    register_table as table,
    register_columns,
)

C = "behavior"

declare_capability(
    C,
    package="crseval.behavior",
    help="Behavior alignment with human recommenders (INSPIRED strategies).",
    jobs={
        "behavior.train": ("crseval.behavior.train_job:TRAIN", "train"),
        "behavior.run": ("crseval.behavior.job:RUN", "run"),
        "behavior.tag": ("crseval.behavior.job:TAG", "tag"),
        "behavior.meta": ("crseval.behavior.job:META", "meta"),
        "behavior.eval": ("crseval.behavior.reuse:EVAL", None),  # `implicit --model` runs it
    },
    cli="crseval.cli.behavior",
)
metric(
    "explicit_ba",
    "Explicit BA as published: turns (first not counted) where the system's strategy equals the "
    "human's, divided by all recommender turns",
    label="explicit BA (formula)",
    capability=C,
    params={"turn_label": "first", "normalise": "formula"},
    note="a perfect system scores (N − D)/N < 1, as in the published formula",
    scale="0–1",
)
metric(
    "explicit_ba_counted",
    "Explicit BA divided by the counted turns only (a perfect system scores 1)",
    label="explicit BA (counted turns)",
    capability=C,
    params={"turn_label": "first", "normalise": "counted"},
    scale="0–1",
)
metric(
    "explicit_ba_sentences",
    "Sentence-level explicit BA: per counted turn, the Jaccard overlap of the strategies "
    "of the system response's sentences (each classified) and of the human turn's labelled sentences",
    label="explicit BA (all sentences)",
    capability=C,
    params={"no_strategy": "only where no sentence has a strategy"},
    note="ours: every labelled sentence counts, not only the first",
    scale="0–1",
)
metric(
    "sentence_match",
    "Per turn: Jaccard overlap of the system's and the human's sentence strategy sets",
    label="strategy-set overlap",
    capability=C,
    scale="Jaccard 0–1",
)
metric(
    "entropy_ba",
    "Entropy-weighted BA: turns weighted by 1 / entropy of P(strategy | previous human strategies)",
    label="entropy-weighted BA",
    capability=C,
    params={"h_min": 0.1, "alpha": 1.0},
    note="ours, beyond the original metric",
    scale="0–1",
)
metric(
    "implicit_ba",
    "Implicit BA: mean P(same strategy) of (human, system) responses over counted turns "
    "(pair classifier)",
    label="implicit BA (mean P(same))",
    capability=C,
    scale="0–1",
)
metric(
    "implicit_ba_share",
    "Share of counted turns where the pair classifier's P(same strategy) ≥ 0.5",
    label="implicit BA (share P(same) ≥ 0.5)",
    capability=C,
    params={"threshold": 0.5},
    scale="share 0–1",
)
metric(
    "bleu4",
    "Corpus BLEU-4 (0–100) of system responses against the human responses (sacrebleu, 13a)",
    label="BLEU-4 (0–100)",
    capability=C,
    params={"k": 4},
    scale="0–100",
)
metric(
    "bleu2",
    "Corpus BLEU-2 (0–100) of system responses against the human responses (sacrebleu, 13a)",
    label="BLEU-2 (0–100)",
    capability=C,
    params={"k": 2},
    scale="0–100",
)
for _k in (2, 4):
    metric(
        f"crslab_bleu{_k}",
        f"BLEU@{_k} as CRSLab computes it: mean over responses of nltk's sentence BLEU with all "
        f"weight on {_k}-grams (0–1, no smoothing)",
        label=f"BLEU@{_k} (CRSLab)",
        capability=C,
        params={"k": _k},
        scale="0–1",
    )
    metric(
        f"crslab_dist{_k}",
        f"DIST@{_k} as CRSLab computes it: distinct character {_k}-grams over all responses / "
        "number of responses",
        label=f"DIST@{_k} (CRSLab)",
        capability=C,
        params={"k": _k},
        note="CRSLab passes the response string to nltk's ngrams, so its k-grams are of characters",
        scale="distinct n-grams per response",
    )
metric(
    "dist1",
    "DIST-1: distinct unigrams / all unigrams over the system responses",
    label="DIST-1",
    capability=C,
    params={"k": 1},
    scale="share 0–1",
)
metric(
    "dist2",
    "DIST-2: distinct bigrams / all bigrams over the system responses",
    label="DIST-2",
    capability=C,
    params={"k": 2},
    scale="share 0–1",
)
metric(
    "human_dist2",
    "DIST-2 of the human recommender's responses (reference)",
    label="human DIST-2",
    capability=C,
    params={"k": 2},
    higher_is_better=None,
    scale="share 0–1",
)
metric(
    "turns_before_rec",
    "Mean system turns before the first recommendation (censored at the dialogue length)",
    label="system turns before first recommendation",
    capability=C,
    higher_is_better=None,
    scale="system turns",
)
metric(
    "dialogues",
    "Dialogues whose every recommender turn was answered (the BA denominator)",
    capability=C,
    higher_is_better=None,
    role="count",
    scale="count",
)
metric(
    "turns",
    "Answered recommender turns",
    capability=C,
    higher_is_better=None,
    role="count",
    scale="count",
)
metric(
    "missing_responses",
    "Recommender turns without a system response",
    capability=C,
    higher_is_better=False,
    role="count",
    scale="count",
)
metric(
    "match",
    "Per turn: 1 when the system's strategy equals the human's",
    label="strategy match",
    capability=C,
    scale="0 or 1",
)
metric(
    "p_same",
    "Per turn: the pair classifier's P(same strategy) of human and system response",
    label="P(same strategy)",
    capability=C,
    scale="probability 0–1",
)
metric("accuracy", "Accuracy of a classifier on held-out items", capability=C, scale="0–1")
metric(
    "kappa",
    "Cohen's κ of a classifier's predictions against the labels",
    label="Cohen's κ",
    capability=C,
    scale="−1…1",
)

TURN_COLUMNS = [
    "human",
    "human_label",
    "human_labels",
    "system",
    "system_label",
    "system_sentence_labels",
    "system_recommends",
    "match",
    "sentence_match",
    "p_same",
]
table(
    "behavior_turns",
    ["dialogue", "turn"],
    "one row per answered recommender turn: human and system response, "
    "strategies, match and P(same)",
    capability=C,
    columns=TURN_COLUMNS,
)
table(
    "behavior_mismatches",
    ["dialogue", "turn"],
    "the counted turns where the system's strategy differs from the human's",
    capability=C,
    columns=TURN_COLUMNS,
)
table(
    "behavior_metrics",
    [],
    "the aggregate behavior metrics of a run",
    capability=C,
    columns=[
        "dialogues",
        "turns",
        "missing_responses",
        "explicit_ba",
        "explicit_ba_counted",
        "explicit_ba_sentences",
        "entropy_ba",
        "implicit_ba",
        "implicit_ba_share",
        "bleu2",
        "bleu4",
        "dist1",
        "dist2",
        "human_dist2",
        "turns_before_rec",
    ],
)
table(
    "behavior_strategy_distribution",
    ["strategy"],
    "how often the human and the system use each strategy",
    capability=C,
    columns=["human_share", "system_share"],
)
table(
    "pair_cv",
    ["design"],
    "pair classifier accuracy and κ per design",
    capability=C,
    columns=[
        "encoder",
        "accuracy",
        "ci_lo",
        "ci_hi",
        "kappa",
        "kappa_lo",
        "kappa_hi",
        "fold accuracy",
    ],
)
table(
    "pair_eval",
    ["design"],
    "a saved pair classifier on a labelled file it never saw",
    capability=C,
    columns=["pairs", "same_strategy_pairs", "accuracy", "kappa", "kappa_lo", "kappa_hi"],
)
table(
    "strategy_per_class",
    ["label"],
    "the strategy classifier's out-of-fold accuracy per strategy",
    capability=C,
    columns=["n", "accuracy"],
)
table(
    "strategy_top_confusions",
    ["label"],
    "the two strategies each one is most often mistaken for",
    capability=C,
    columns=["confused_1", "share_1", "confused_2", "share_2"],
)
table(
    "strategy_confusion",
    ["true"],
    "the strategy classifier's out-of-fold confusion matrix (rows: label, columns: predicted)",
    capability=C,
    dynamic={"*": "sentences of the row's strategy predicted as this one"},
)
table(
    "label_ceiling",
    ["measure"],
    "how far the labels themselves allow: agreement of identical texts, text-only ceilings",
    capability=C,
    columns=["value", "sentences", "texts"],
)
table(
    "quality_curve",
    ["worst_share", "metric"],
    "each metric of each mixture of the ideal and the worst "
    "system's responses (the paper's Figure 3), with a 95 % band from resampling dialogues",
    capability=C,
    columns=["value", "ci_lo", "ci_hi"],
)
table(
    "preference_agreement",
    ["metric"],
    "how often each metric prefers the same system of a pair as the people do (Cohen's κ)",
    capability=C,
    columns=["kappa", "ci_lo", "ci_hi", "items"],
)
table(
    "tagger_comparison",
    ["tagger"],
    "strategy taggers against the human labels",
    capability=C,
    columns=["sentences", "unparsed", "accuracy", "kappa"],
)

# the room's own context columns (the shared glossary keeps the terms every room uses)
register_columns(
    C,
    {
        "system": ("system", "the system's (CRS) response at the same turn"),
        "label": ("strategy", "the labelled strategy"),
        "value": ("value", "the metric's value"),
        "human_share": (
            "human share",
            "share of the human recommender's responses with this strategy",
        ),
        "system_share": ("system share", "share of the system's responses with this strategy"),
        "strategy": ("strategy", "INSPIRED recommendation strategy"),
        "human_label": (
            "human strategy",
            "strategy of the human recommender's response (label or tagger)",
        ),
        "system_label": (
            "system strategy",
            "strategy of the system's response (strategy classifier)",
        ),
        "human_labels": (
            "human sentence strategies",
            "strategies of the human turn's labelled sentences, in order",
        ),
        "system_sentence_labels": (
            "system sentence strategies",
            "strategy of each sentence of the system's response (strategy classifier)",
        ),
        "system_recommends": ("system recommends", "the system's response names a movie"),
        "design": (
            "design",
            "pair-classifier design (Original, Mixed-hard) or protocol the row measures",
        ),
        "encoder": ("encoder", "sentence encoder of the pair classifier (frozen or fine-tuned)"),
        "fold accuracy": (
            "fold accuracy",
            "accuracy per cross-validation fold, or the pairs a single score used",
        ),
        "measure": ("measure", "what the row measures"),
        "sentences": ("sentences", "labelled sentences the value is computed on"),
        "texts": ("texts", "distinct sentence texts among them"),
        "pairs": ("pairs", "sentence pairs scored"),
        "same_strategy_pairs": (
            "same-strategy pairs",
            "pairs whose two sentences share a strategy",
        ),
        "worst_share": (
            "worst share",
            "share of turns answered with the worst system's response (the rest: the ideal's)",
        ),
        "confused_1": ("most confused with", "the strategy the class is most often predicted as"),
        "share_1": ("share", "share of the class's sentences predicted as it"),
        "confused_2": ("next most confused with", "the second most frequent wrong prediction"),
        "share_2": ("share", "share of the class's sentences predicted as it"),
        "tagger": ("tagger", "strategy tagger (classifier or LLM prompt)"),
        "unparsed": ("unparsed", "LLM answers that named no strategy (counted as wrong)"),
        "human": ("human", "the human recommender's response at the same turn"),
        "true": ("true", "the strategy the sentences are labelled with (a row of the matrix)"),
    },
)
