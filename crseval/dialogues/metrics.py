"""The dialogues capability and its tables, declared once. Its metrics are declared where they are
computed (``crseval/dialogues/measures.py``, ``matcher_check.py``) and name the tables they are
columns of, so adding one is one source file."""

from crseval.core.capability import declare_capability
from crseval.core.registry import register_table as table

C = "dialogues"

declare_capability(
    C,
    package="crseval.dialogues",
    help="Beyond accuracy inside dialogues: grounding in a catalogue, out-of-catalogue rate, "
    "repetition, novelty, diversity, coverage. `crseval dialogues metrics DATA --catalog CATALOGUE`.",
    jobs={
        "dialogues.metrics": ("crseval.dialogues.job:JOB", "metrics"),
        "dialogues.reactions": ("crseval.dialogues.reaction_check:JOB", "reactions"),
    },
    default="metrics",
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
    columns=["dialogues", "recommending_dialogues"],
)
table(
    "dialogue_metrics",
    ["dialogue"],
    "per dialogue: recommendations, grounding, repetition, novelty, diversity",
    capability=C,
    headline=["system", "dialogue", *HEAD],
    columns=[
        "system",
        "session",
        "system_turns",
        "grounded",
        "out_of_catalogue",
        "repeated",
        "rejected_repeats",
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
table(
    "reaction_agreement",
    ["reading", "scheme"],
    "a reading of seekers' reactions to suggested films against the seekers' own forms (ReDial)",
    capability=C,
    columns=["agreement", "films"],
)
table(
    "reaction_confusion",
    ["reader"],
    "films by the reader's reading (rows) and the seeker's own form (columns)",
    capability=C,
    dynamic={"*": "the seeker's form said: seen, rejected, accepted or not said"},
)
