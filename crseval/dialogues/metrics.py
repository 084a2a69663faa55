"""Beyond-accuracy-in-dialogue metrics and tables, declared once (names are the result-table columns)."""

from crseval.core.capability import declare_capability
from crseval.core.registry import register_metric as metric, register_table as table, with_ci

C = "dialogues"

declare_capability(
    C,
    package="crseval.dialogues",
    help="Beyond accuracy inside dialogues: grounding in a catalogue, out-of-catalogue rate, "
    "repetition, novelty, diversity, coverage. `crseval dialogues metrics DATA --catalog CATALOGUE`.",
    jobs={"dialogues.metrics": ("crseval.dialogues.job:JOB", "metrics")},
    default="metrics",
)
metric(
    "recommendations",
    "Titles the system names (every named title counts as a recommendation)",
    label="recommendations",
    capability=C,
    higher_is_better=None,
    scale="count",
)
metric(
    "out_of_catalogue_rate",
    "Share of named titles no catalogue item matches (possibly hallucinated)",
    label="out-of-catalogue",
    capability=C,
    higher_is_better=False,
    scale="share 0–1",
)
metric(
    "repetition_rate",
    "Share of recommendations of an item already named in the dialogue (by the user, or by "
    "the system in an earlier turn)",
    label="repetition",
    capability=C,
    higher_is_better=False,
    scale="share 0–1",
)
metric(
    "rejected_repeat_rate",
    "Share of recommendations re-offering an item the user rejected or had seen (a "
    "rejection or 'seen it' in the reply to its earlier recommendation)",
    label="rejected repeats",
    capability=C,
    higher_is_better=False,
    scale="share 0–1",
)
metric(
    "novelty",
    "Mean self-information −log2 p of the grounded recommendations, p = (dialogues naming the item + 1)"
    " / (dialogues + 1) in the popularity reference",
    label="novelty (bits)",
    capability=C,
    scale="bits",
)
metric(
    "genre_diversity",
    "Mean pairwise Jaccard distance of the genre sets of a dialogue's distinct recommended items",
    label="genre diversity",
    capability=C,
    scale="Jaccard distance 0–1",
)
metric(
    "embedding_diversity",
    "Mean pairwise cosine distance of the item-text embeddings (title, genres, plot) of a "
    "dialogue's distinct recommended items",
    label="embedding diversity",
    capability=C,
    scale="cosine distance",
)
metric(
    "distinct_items",
    "Distinct catalogue items recommended",
    label="distinct items",
    capability=C,
    higher_is_better=None,
    scale="count",
)
metric(
    "first_rec_turn",
    "System turn (1 = first) of the first recommendation",
    label="first recommendation turn",
    capability=C,
    higher_is_better=None,
    scale="system turn (1 = first)",
)
metric(
    "coverage",
    "Share of the catalogue the system recommends across all its dialogues",
    label="coverage",
    capability=C,
    scale="share 0–1",
)
metric(
    "matcher_precision",
    "Items the title matcher found that are the labelled ones",
    label="matcher precision",
    capability=C,
    scale="0–1",
)
metric(
    "matcher_recall",
    "Labelled (in-catalogue) mentions the title matcher found",
    label="matcher recall",
    capability=C,
    scale="0–1",
)

HEAD = [
    "recommendations",
    "out_of_catalogue_rate",
    "repetition_rate",
    "novelty",
    "genre_diversity",
    "embedding_diversity",
    "first_rec_turn",
]
table(
    "dialogue_systems",
    ["system"],
    "per system: dialogue means with 95 % t-intervals, coverage",
    capability=C,
    headline=["system", "dialogues", *HEAD, "coverage"],
    columns=[
        "dialogues",
        "recommending_dialogues",
        "recommendations",
        *with_ci(
            "out_of_catalogue_rate",
            "repetition_rate",
            "novelty",
            "genre_diversity",
            "embedding_diversity",
        ),
        "rejected_repeat_rate",
        "distinct_items",
        "first_rec_turn",
        "coverage",
    ],
)
table(
    "dialogue_metrics",
    ["dialogue"],
    "per dialogue: recommendations, grounding, repetition, novelty, diversity",
    capability=C,
    headline=["system", "dialogue", *HEAD],
    columns=[
        "system",
        "system_turns",
        "recommendations",
        "grounded",
        "out_of_catalogue",
        "repeated",
        "rejected_repeats",
        "novelty",
        "genre_diversity",
        "embedding_diversity",
        "distinct_items",
        "first_rec_turn",
        "out_of_catalogue_rate",
        "repetition_rate",
        "rejected_repeat_rate",
    ],
    dynamic={"*": "a human label of the dialogue, as the data set names it"},
)
table(
    "dialogue_turns",
    ["dialogue", "turn"],
    "per system turn: the titles named and how they were grounded",
    capability=C,
    headline=[
        "system",
        "dialogue",
        "turn",
        "recommendations",
        "out_of_catalogue",
        "repeated",
        "titles",
    ],
    columns=[
        "system",
        "position",
        "recommendations",
        "grounded",
        "out_of_catalogue",
        "repeated",
        "rejected_repeats",
        "item_ids",
        "titles",
    ],
)
table(
    "dialogue_matcher",
    ["reading"],
    "the title matcher's precision and recall on labelled mentions",
    capability=C,
    columns=[
        "data",
        "mentions",
        "in_catalogue",
        "found",
        "correct",
        "fuzzy",
        "ambiguous",
        "matcher_precision",
        "matcher_recall",
        "false_out_of_catalogue",
        "utterances",
    ],
)
table(
    "dialogue_label_correlation",
    ["level", "aspect", "metric"],
    "each metric against each human label (Spearman)",
    capability=C,
    columns=["n", "spearman_rho", "spearman_rho_lo", "spearman_rho_hi", "p", "p_holm"],
)
