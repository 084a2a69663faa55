"""Judge meta-evaluation metrics and tables, declared once (names are the result-table columns)."""

from crseval.core.capability import declare_capability
from crseval.core.registry import (
    register_metric as metric,
    register_table as table,
    with_ci,
    register_columns,
)

C = "judge"

declare_capability(
    C,
    package="crseval.judge",
    help="LLM judges: meta-evaluation against human labels, calibrated judges, judge panels.",
    layer="judges",
    jobs={
        "judge.meta-eval": ("crseval.judge.job:JOB", "meta-eval"),
        "judge.fit": ("crseval.judge.fit:JOB", "fit"),
    },
)
metric(
    "pearson",
    "Pearson correlation of judge scores with the mean human label",
    label="Pearson r",
    capability=C,
    scale="−1…1",
)
metric(
    "spearman",
    "Spearman correlation of judge scores with the mean human label",
    label="Spearman ρ",
    capability=C,
    scale="−1…1",
)
metric(
    "kendall",
    "Kendall τ-b of judge scores with the mean human label",
    label="Kendall τ",
    capability=C,
    scale="−1…1",
)
metric(
    "partial_length",
    "Partial Pearson correlation with the human label, the judged text's length held constant",
    label="partial r (length)",
    capability=C,
    scale="−1…1",
)
metric(
    "pearson_difference",
    "Pearson r of the judge minus Pearson r of the one it is compared with (paired "
    "bootstrap over the same items)",
    label="Δ Pearson r",
    capability=C,
    scale="difference of Pearson r",
)
metric(
    "p",
    "Two-sided paired-bootstrap p-value of the difference",
    label="p",
    capability=C,
    higher_is_better=False,
    scale="0–1",
)
metric(
    "panel_gain",
    "Pearson r of the panel mean minus that of its best member",
    label="panel gain",
    capability=C,
    scale="difference of Pearson r",
)
metric(
    "coefficient",
    "Standardised ridge coefficient of a feature (per SD of the feature)",
    label="coefficient",
    capability=C,
    higher_is_better=None,
    scale="per SD of the feature",
)
metric(
    "score",
    "A judge's mean score of an item (its samples averaged)",
    label="judge score",
    capability=C,
    scale="the judged aspect's scale",
)

metric(
    "mae",
    "Mean absolute error of the calibrated judge's out-of-fold predictions on the human scale",
    label="MAE",
    capability=C,
    higher_is_better=False,
    scale="points of the human scale",
)
metric(
    "rmse",
    "Root mean squared error of the calibrated judge's out-of-fold predictions on the human scale",
    label="RMSE",
    capability=C,
    higher_is_better=False,
    scale="points of the human scale",
)

# the columns of every table that correlates a judge with the people (meta_eval.py: agreement)
AGREEMENT = [
    "level",
    "n",
    "failed",
    *with_ci("pearson", "spearman"),
    "spearman_p",
    *with_ci("kendall", "partial_length"),
]
HEADLINE = [
    "n",
    "failed",
    "pearson",
    "pearson_lo",
    "pearson_hi",
    "spearman",
    "kendall",
    "partial_length",
]
PAIRED = ["n", *with_ci("pearson_difference"), "p"]

table(
    "meta_eval",
    ["aspect", "judge"],
    "per aspect and judge: correlation with the human labels, with CIs",
    capability=C,
    columns=AGREEMENT,
    headline=HEADLINE,
)
table(
    "judge_item_scores",
    ["item", "aspect", "judge"],
    "per item, aspect and judge: score next to the human label",
    capability=C,
    columns=["score", "failed", "human", "length"],
)
table(
    "judge_agreement",
    ["judge", "aspect"],
    "the demo judge against the human labels",
    capability=C,
    columns=["n", "with", *with_ci("pearson", "spearman"), "pearson_p", "spearman_p"],
)
table(
    "judge_paired_tests",
    ["aspect", "judge", "versus"],
    "paired bootstrap tests of the difference in Pearson r",
    capability=C,
    columns=PAIRED,
)
table(
    "judge_within_system",
    ["aspect", "judge", "system"],
    "agreement within each CRS system",
    capability=C,
    columns=["n", "pearson", "spearman", "mean_score", "mean_human"],
)
table(
    "judge_system_level",
    ["aspect", "judge"],
    "agreement of per-system means",
    capability=C,
    columns=["systems", *with_ci("pearson", "spearman", "kendall")],
)
table(
    "judge_panel_gain",
    ["aspect"],
    "the panel mean against its best member",
    capability=C,
    columns=["best_member", "best_member_pearson", "panel_pearson", "panel_gain"],
)
table(
    "judge_mean_of_n",
    ["aspect", "n_judges"],
    "the mean of n panel members: its Spearman–Brown reliability and its Pearson r with people",
    capability=C,
    columns=["spearman_brown_icc", "pearson_with_human"],
)
table(
    "judge_fit_cv",
    ["data", "aspect", "judge"],
    "out-of-fold agreement of every judge design (nested grouped CV)",
    capability=C,
    columns=AGREEMENT,
    headline=HEADLINE,
)
table(
    "judge_fit_system_level",
    ["data", "aspect", "judge"],
    "agreement of per-system means of the out-of-fold predictions (nested grouped CV)",
    capability=C,
    columns=["systems", *with_ci("pearson", "spearman", "kendall")],
)
table(
    "judge_fit_held_out",
    ["aspect", "judge", "system"],
    "leave-one-system-out: each design's agreement on every CRS from a model fitted without it, and pooled",
    capability=C,
    columns=["n", *with_ci("pearson")],
)
table(
    "judge_fit_item_scores",
    ["item", "aspect", "judge"],
    "per item, aspect and design: the out-of-fold prediction next to the human label",
    capability=C,
    columns=["score", "failed", "human", "length"],
)
table(
    "judge_fit_paired_tests",
    ["data", "aspect", "judge", "versus"],
    "paired tests between judge designs",
    capability=C,
    columns=PAIRED,
)
table(
    "judge_fit_errors",
    ["aspect", "judge"],
    "out-of-fold calibration errors on the human scale",
    capability=C,
    columns=["mae", "rmse", "scale"],
)
table(
    "judge_coefficients",
    ["aspect", "feature"],
    "the calibrated judge's standardised coefficients",
    capability=C,
    columns=["coefficient", "alpha"],
)
table(
    "judge_transfer",
    ["test_data", "aspect", "judge"],
    "the fitted judge on sets it never saw",
    capability=C,
    columns=AGREEMENT,
)

# the room's own context columns (the shared glossary keeps the terms every room uses)
register_columns(
    C,
    {
        "with": ("compared with", "the human reference the judge is correlated with"),
        "length": ("length", "characters of the judged text (the length baseline)"),
        "versus": ("versus", "the judge (or baseline) the row's judge is compared with"),
        "test_data": ("test data", "the labelled set the fitted judge never saw"),
        "feature": ("feature", "transcript feature or LLM reading the calibrated judge uses"),
        "alpha": ("ridge α", "ridge penalty chosen by grouped cross-validation"),
        "scale": ("scale", "the human scale of the aspect"),
        "best_member": ("best member", "the panel member with the highest Pearson r"),
        "best_member_pearson": ("best member r", "Pearson r of the best panel member"),
        "panel_pearson": ("panel r", "Pearson r of the panel mean"),
        "mean_score": ("mean score", "mean judge score over the system's dialogues"),
        "mean_human": ("mean human", "mean human label over the system's dialogues"),
        "n_judges": ("judges", "panel members averaged"),
        "spearman_brown_icc": (
            "reliability of the mean",
            "Spearman–Brown reliability of the mean of n members, from their ICC(1)",
        ),
        "pearson_with_human": (
            "r with people",
            "Pearson r of the mean of n members with the people",
        ),
        "human": ("human", "the mean human label of the item"),
    },
)
