"""Judge meta-evaluation metrics and tables, declared once (names are the result-table columns)."""

from crseval.core.registry import register_metric as metric, register_table as table

C = "judge"
metric(
    "pearson",
    "Pearson correlation of judge scores with the mean human label",
    label="Pearson r",
    capability=C,
)
metric(
    "spearman",
    "Spearman correlation of judge scores with the mean human label",
    label="Spearman ρ",
    capability=C,
)
metric(
    "kendall",
    "Kendall τ-b of judge scores with the mean human label",
    label="Kendall τ",
    capability=C,
)
metric(
    "partial_length",
    "Partial Pearson correlation with the human label, the judged text's length held constant",
    label="partial r (length)",
    capability=C,
)
metric(
    "pearson_difference",
    "Pearson r of the judge minus Pearson r of the one it is compared with (paired "
    "bootstrap over the same items)",
    label="Δ Pearson r",
    capability=C,
)
metric(
    "p_value",
    "Two-sided paired-bootstrap p-value of the difference",
    label="p",
    capability=C,
    higher_is_better=False,
)
metric(
    "panel_gain",
    "Pearson r of the panel mean minus that of its best member",
    label="panel gain",
    capability=C,
)
metric(
    "coefficient",
    "Standardised ridge coefficient of a feature (per SD of the feature)",
    label="coefficient",
    capability=C,
    higher_is_better=None,
)
metric(
    "score",
    "A judge's mean score of an item (its samples averaged)",
    label="judge score",
    capability=C,
)
metric(
    "llm_overall",
    "The LLM judge's overall score of a dialogue (1–5)",
    label="judge overall",
    capability=C,
)
metric(
    "human_satisfaction",
    "Mean human satisfaction rating of a dialogue",
    label="human satisfaction",
    capability=C,
)

table(
    "meta_eval",
    ["aspect", "judge"],
    "per aspect and judge: correlation with the human labels, with CIs",
    capability=C,
)
table(
    "judge_item_scores",
    ["item", "aspect", "judge"],
    "per item, aspect and judge: score next to the human label",
    capability=C,
)
table("judge_scores", ["dialogue"], "the demo's judge score per sample dialogue", capability=C)
table(
    "judge_paired_tests",
    ["aspect", "judge", "versus"],
    "paired bootstrap tests of the difference in Pearson r",
    capability=C,
)
table(
    "judge_within_system",
    ["aspect", "judge", "system"],
    "agreement within each CRS system",
    capability=C,
)
table("judge_system_level", ["aspect", "judge"], "agreement of per-system means", capability=C)
table("judge_panel_gain", ["aspect"], "the panel mean against its best member", capability=C)
table(
    "judge_fit_cv",
    ["data", "aspect", "judge"],
    "out-of-fold agreement of every judge design (nested grouped CV)",
    capability=C,
)
table(
    "judge_fit_paired_tests",
    ["data", "aspect", "judge", "versus"],
    "paired tests between judge designs",
    capability=C,
)
table(
    "judge_fit_errors",
    ["aspect", "judge"],
    "out-of-fold calibration errors on the human scale",
    capability=C,
)
table(
    "judge_coefficients",
    ["aspect", "feature"],
    "the calibrated judge's standardised coefficients",
    capability=C,
)
table(
    "judge_transfer",
    ["test_data", "aspect", "judge"],
    "the fitted judge on sets it never saw",
    capability=C,
)
