"""Reliability metrics and tables, declared once (names are the result-table columns)."""

from crseval.core.registry import register_metric as metric, register_table as table

C = "reliability"
metric(
    "icc1",
    "ICC(1): share of rating variance due to the rated item (one-way random effects, REML)",
    label="ICC(1)",
    capability=C,
)
metric(
    "icc1_k",
    "ICC(1,k): reliability of the mean of k ratings (k = harmonic mean per item, REML)",
    label="ICC(1,k)",
    capability=C,
)
metric(
    "icc1_anova",
    "ICC(1) by the ANOVA (method-of-moments) estimator, a cross-check of REML",
    label="ICC(1) ANOVA",
    capability=C,
)
metric("icc1_k_anova", "ICC(1,k) by the ANOVA estimator", label="ICC(1,k) ANOVA", capability=C)
metric(
    "rel_single",
    "Crossed item × rater reliability of a single rating (REML)",
    label="Rel_single",
    capability=C,
)
metric(
    "rel_k",
    "Crossed item × rater reliability of the mean of k ratings (REML)",
    label="Rel_k",
    capability=C,
)
metric("alpha_ordinal", "Krippendorff's alpha, ordinal level", label="α ordinal", capability=C)
metric("alpha_interval", "Krippendorff's alpha, interval level", label="α interval", capability=C)
metric(
    "var_item",
    "Item (dialogue) variance component of the crossed model",
    label="σ² item",
    capability=C,
    higher_is_better=None,
)
metric(
    "var_rater",
    "Rater variance component of the crossed model",
    label="σ² rater",
    capability=C,
    higher_is_better=None,
)
metric(
    "var_resid",
    "Residual variance of the crossed model",
    label="σ² residual",
    capability=C,
    higher_is_better=None,
)

table(
    "reliability",
    ["dimension"],
    "Reliability per rating dimension, sorted by Rel_k",
    capability=C,
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
