"""The dialogues capability and its tables, declared once. Its metrics are declared where they are
computed (``crseval/dialogues/measures.py``, ``matcher_check.py``) and name the tables they are
columns of, so adding one is one source file."""

from crseval.core.capability import declare_capability
from crseval.core.registry import register_table as table, register_columns

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
    declared_in=(
        "crseval.dialogues.measures",
        "crseval.dialogues.matcher_check",
        "crseval.dialogues.reaction_check",
    ),
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

# the room's own context columns (the shared glossary keeps the terms every room uses)
register_columns(
    C,
    {
        "reader": ("reader", "how crseval's reader read the seeker's reply"),
        "scheme": ("scheme", "the readings compared: all four, or the one a metric uses"),
        "films": ("films", "films the value is computed on"),
        "agreement": ("agreement", "share of the items on which the two readings agree"),
        "system_turns": ("system turns", "turns of the system (CRS) in the dialogue"),
        "position": (
            "position",
            "index of the turn in the dialogue (both speakers counted, 0 = first)",
        ),
        "grounded": ("grounded", "named titles matched to a catalogue item"),
        "out_of_catalogue": ("out of catalogue", "named titles no catalogue item matches"),
        "repeated": ("repeated", "recommendations of an item already named in the dialogue"),
        "rejected_repeats": (
            "rejected repeats",
            "recommendations re-offering an item the user rejected or had seen",
        ),
        "item_ids": ("item ids", "catalogue ids of the grounded titles"),
        "titles": (
            "titles",
            "titles as named (labelled mentions or what the matcher found in the text)",
        ),
        "recommending_dialogues": (
            "recommending dialogues",
            "dialogues in which the system names at least one title",
        ),
        "reading": (
            "reading",
            "'title': each labelled mention's title string grounded alone; 'text': the utterance "
            "text read by the matcher",
        ),
        "mentions": ("mentions", "labelled mentions (ReDial @id, INSPIRED movie lists)"),
        "in_catalogue": ("in catalogue", "labelled mentions whose item is in the catalogue"),
        "found": ("found", "items the matcher found"),
        "correct": ("correct", "items found that are the labelled ones"),
        "fuzzy": (
            "fuzzy",
            "titles grounded by a fuzzy (rapidfuzz) match rather than an exact title key",
        ),
        "ambiguous": (
            "ambiguous",
            "titles under which the catalogue holds several items, told apart by no year",
        ),
        "false_out_of_catalogue": (
            "false out-of-catalogue",
            "title-like spans left out of catalogue in utterances whose "
            "labelled items are all in the catalogue",
        ),
        "utterances": ("utterances", "utterances read"),
    },
)
