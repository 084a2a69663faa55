"""Reliability metrics and tables, declared once (names are the result-table columns)."""

from crseval.core.capability import declare_capability
from crseval.core.registry import (
    register_metric as metric,
    register_table as table,
    with_ci,
    register_columns,
)

C = "reliability"

declare_capability(
    C,
    package="crseval.reliability",
    help="Reliability of human or LLM ratings: ICC, crossed REML, Krippendorff's alpha, power, "
    "structure. `crseval reliability RATINGS --item-col … --rater-col …` analyses a file.",
    layer="measurement",
    jobs={"reliability": ("crseval.reliability.job:JOB", "analyze")},
    default="analyze",
    cli="crseval.cli.reliability",
)
metric(
    "icc1",
    "ICC(1): share of rating variance due to the rated item (one-way random effects, REML)",
    label="ICC(1)",
    capability=C,
    scale="0–1",
)
metric(
    "icc1_k",
    "ICC(1,k): reliability of the mean of k ratings (k = harmonic mean per item, REML)",
    label="ICC(1,k)",
    capability=C,
    scale="0–1",
)
metric(
    "icc1_anova",
    "ICC(1) by the ANOVA (method-of-moments) estimator, a cross-check of REML",
    label="ICC(1) ANOVA",
    capability=C,
    scale="≤ 1",
)
metric(
    "icc1_k_anova",
    "ICC(1,k) by the ANOVA estimator",
    label="ICC(1,k) ANOVA",
    capability=C,
    scale="≤ 1",
)
metric(
    "rel_single",
    "Crossed item × rater reliability of a single rating (REML)",
    label="Rel_single",
    capability=C,
    scale="0–1",
)
metric(
    "rel_k",
    "Crossed item × rater reliability of the mean of k ratings (REML)",
    label="Rel_k",
    capability=C,
    scale="0–1",
)
metric(
    "alpha_ordinal",
    "Krippendorff's alpha, ordinal level",
    label="α ordinal",
    capability=C,
    scale="≤ 1 (1 = perfect agreement)",
)
metric(
    "alpha_interval",
    "Krippendorff's alpha, interval level",
    label="α interval",
    capability=C,
    scale="≤ 1 (1 = perfect agreement)",
)
metric(
    "var_item",
    "Item (dialogue) variance component of the crossed model",
    label="σ² item",
    capability=C,
    higher_is_better=None,
    scale="squared rating points",
)
metric(
    "var_rater",
    "Rater variance component of the crossed model",
    label="σ² rater",
    capability=C,
    higher_is_better=None,
    scale="squared rating points",
)
metric(
    "var_resid",
    "Residual variance of the crossed model",
    label="σ² residual",
    capability=C,
    higher_is_better=None,
    scale="squared rating points",
)

# what a reliability table holds per dimension (reliability/analysis.py: reliability_table)
ESTIMATES = [
    "n_items",
    "n_raters",
    "n_ratings",
    "k",
    "icc1",
    "icc1_anova",
    "icc1_k",
    "icc1_k_anova",
    "var_item",
    "var_rater",
    "var_resid",
    "rel_single",
    "rel_k",
    "alpha_ordinal",
    "alpha_interval",
    "interpretation",
    "icc1_band",
    "icc1_k_band",
    "rel_single_band",
    "alpha_ordinal_band",
]

table(
    "reliability",
    ["dimension"],
    "Reliability per rating dimension, sorted by Rel_k",
    capability=C,
    columns=[
        *ESTIMATES,
        *(c for c in with_ci("rel_single", "rel_k", "alpha_ordinal") if c not in ESTIMATES),
    ],
    headline=[
        "n_items",
        "n_raters",
        "k",
        "icc1",
        "icc1_k",
        "rel_single",
        "rel_k",
        "rel_k_lo",
        "rel_k_hi",
        "alpha_ordinal",
        "interpretation",
    ],
)
table(
    "reliability_qc",
    [],
    "what quality control kept: items, raters and ratings retained, raters per item",
    capability=C,
    columns=[
        "gold items excluded",
        "raters flagged",
        "raters retained",
        "items retained",
        "ratings retained",
        "raters per item (min)",
        "raters per item (max)",
        "harmonic mean k",
    ],
)
table(
    "reliability_flagged_raters",
    ["rater"],
    "raters quality control flagged, and why",
    capability=C,
    columns=["reason"],
)
table(
    "reliability_raters_per_item",
    ["raters per item"],
    "how many items have each number of raters",
    capability=C,
    columns=["items"],
)
table(
    "reliability_correlations",
    ["dimension"],
    "correlations between the rating dimensions (one column per dimension)",
    capability=C,
    dynamic={"*": "Spearman correlation of the row's dimension with this one (per-item means)"},
)
table(
    "reliability_clusters",
    ["dimension"],
    "Ward clusters of the dimensions on the correlation distance",
    capability=C,
    columns=["cluster"],
)
table(
    "judge_panel_reliability",
    ["dimension"],
    "the judge panel's members as raters of the same items: their agreement",
    capability=C,
    columns=[*ESTIMATES, "degenerate"],
)
table(
    "humans_and_judges_reliability",
    ["dimension"],
    "people and judge panel members together as raters of the same items",
    capability=C,
    columns=[*ESTIMATES, "raters"],
)

# the room's own context columns (the shared glossary keeps the terms every room uses)
register_columns(
    C,
    {
        "n_items": ("items", "rated items (dialogues)"),
        "n_raters": ("raters", "distinct raters"),
        "n_ratings": ("ratings", "ratings"),
        "k": ("k", "harmonic mean number of raters per item"),
        "interpretation": (
            "band",
            "Koo & Li (2016) band of Rel_k: poor < .5 ≤ moderate < .75 ≤ good < .9 ≤ excellent",
        ),
        "cluster": ("cluster", "Ward cluster of the dimension on the correlation distance"),
        "rater": ("rater", "rater id"),
        "reason": ("reason", "why quality control flagged the rater"),
        "raters per item": ("raters per item", "raters who rated an item"),
        "gold items excluded": (
            "gold items excluded",
            "attention-check items left out of the reliability",
        ),
        "raters flagged": ("raters flagged", "raters quality control flagged"),
        "raters retained": ("raters retained", "raters whose ratings enter the reliability"),
        "items retained": ("items retained", "items that enter the reliability"),
        "ratings retained": ("ratings retained", "ratings that enter the reliability"),
        "raters per item (min)": ("raters per item (min)", "fewest raters of an item"),
        "raters per item (max)": ("raters per item (max)", "most raters of an item"),
        "harmonic mean k": (
            "harmonic mean k",
            "harmonic mean of raters per item (the k of ICC(1,k) and Rel_k)",
        ),
        "degenerate": (
            "degenerate",
            "the panel's members give identical readings (one judge counted several times)",
        ),
        "raters": ("raters", "who the raters are: people, judge panel members, or both"),
    },
)
