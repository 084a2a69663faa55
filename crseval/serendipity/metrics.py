"""Serendipity evaluators and meta-evaluation metrics, declared once. The proxies (role ``baseline``) are
both metrics and evaluators: their names are the columns of ``serendipity_answers``."""

from crseval.core.capability import declare_capability
from crseval.core.registry import (
    register_metric as metric,
    register_table as table,
    with_ci,
    register_columns,
)

C = "serendipity"
SNPR_LAMBDA = 0.7  # the SerenEva paper's relevance weight: what SNPR runs with and is signed with

declare_capability(
    C,
    package="crseval.serendipity",
    help="Serendipity evaluation and meta-evaluation.",
    jobs={
        "serendipity.meta-eval": ("crseval.serendipity.job:JOB", "meta-eval"),
        "serendipity.reproduce": ("crseval.serendipity.reproduce:JOB", "reproduce"),
    },
)
metric(
    "random",
    "Seeded uniform random scores",
    capability=C,
    role="baseline",
    scale="1–5",
)
metric(
    "sog",
    "SOG: weighted sum of relevance, diversity, dissimilarity to history and unpopularity",
    label="SOG",
    capability=C,
    role="baseline",
    params={"weights": (0.25, 0.25, 0.25, 0.25)},
    scale="1–5 (min-max scaled)",
)
metric(
    "snpr",
    f"SNPR: λ·relevance + (1−λ)·unexpectedness (λ = {SNPR_LAMBDA}, the SerenEva paper's relevance weight)",
    label="SNPR",
    capability=C,
    role="baseline",
    params={"lam": SNPR_LAMBDA},
    scale="1–5 (min-max scaled)",
)
metric(
    "purs",
    "PURS: relevance + f(unexpectedness)·factor, unexpectedness = distance to the nearest interest "
    "cluster, f(x) = x·exp(−x)",
    label="PURS",
    capability=C,
    role="baseline",
    params={"factor": 1.0},
    scale="1–5 (min-max scaled)",
)
metric(
    "desr",
    "DESR: acc·dif / (acc + dif), acc = relevance, dif = dissimilarity to history",
    label="DESR",
    capability=C,
    role="baseline",
    scale="1–5 (min-max scaled)",
)
metric(
    "llm",
    "The LLM plays the user and rates serendipity 1–5 (zero-shot)",
    label="LLM (zero-shot)",
    capability=C,
    role="evaluator",
    scale="1–5",
)
metric(
    "llm-fewshot",
    "The LLM plays the user, with rated examples from other users",
    label="LLM (few-shot)",
    capability=C,
    role="evaluator",
    scale="1–5",
)
metric(
    "calibrated",
    "Ridge over the other evaluators' predictions, fitted to the ground truth in user-grouped "
    "nested cross-validation (out-of-fold: no answer is predicted by a model that saw its user)",
    label="calibrated (grouped CV)",
    capability=C,
    role="evaluator",
    scale="1–5",
)
metric(
    "pearson_%",
    "Pearson correlation (%) of an evaluator's 1–5 predictions with the ground truth",
    label="Pearson (%)",
    capability=C,
    scale="−100…100",
)
metric(
    "pearson_%_same",
    "Pearson (%) on the answers every evaluator scored: what the best/second ranking compares",
    label="Pearson (%), same answers",
    capability=C,
    scale="−100…100",
)
metric(
    "pearson_%_p",
    "p-value of the Pearson correlation with the ground truth (two-sided)",
    label="p (Pearson)",
    capability=C,
    higher_is_better=None,
    scale="0–1",
)
metric(
    "abs_error_t_p",
    "p-value of a two-sided paired t-test of absolute errors against the best baseline (the "
    "SerenEva paper's test; abs_error_p is the Wilcoxon test)",
    label="p (t-test)",
    capability=C,
    higher_is_better=None,
    scale="0–1",
)
metric(
    "mae",
    "Mean absolute error of the 1–5 predictions",
    label="MAE",
    capability=C,
    higher_is_better=False,
    scale="Likert points",
)
metric(
    "rmse",
    "Root mean squared error of the 1–5 predictions",
    label="RMSE",
    capability=C,
    higher_is_better=False,
    scale="Likert points",
)

# what every evaluator-comparison table holds per evaluator (serendipity/meta.py: meta_table)
META_COLUMNS = [
    "n",
    "excluded",
    *with_ci("pearson_%", "mae", "rmse"),
    "pearson_%_p",
    "n_same",
    "pearson_%_same",
    "rank",
    "vs_best_baseline",
    "abs_error_p",
    "abs_error_t_p",
    "significant",
]
table(
    "serendipity_meta_eval",
    ["evaluator"],
    "per evaluator: Pearson, MAE and RMSE with CIs",
    capability=C,
    columns=META_COLUMNS,
)
table(
    "serendipity_answers",
    ["user", "item"],
    "per answer: ground truth and every evaluator's prediction",
    capability=C,
    columns=[
        "ground_truth",
        *("random", "sog", "snpr", "purs", "desr", "llm", "llm-fewshot", "calibrated"),
    ],
    dynamic={
        "import:*": "predictions imported from a file, 1–5",
        "import-run:*": "predictions imported from another run, 1–5",
    },
)
table(
    "serendipity_ensembles",
    ["ensemble"],
    "ensembles of LLM evaluators (their predictions averaged per answer)",
    capability=C,
    columns=["size", "n", "pearson_%", "mae", "rmse"],
)

# the SerenEva reproduction's prompt evaluators (crseval serendipity reproduce; see serendipity/prompts.py)
metric(
    "sereneva",
    "The SerenEva paper's zero-shot evaluator: the LLM as the user, comma-separated history oldest "
    "to newest, 5-point Likert with anchor words, integer answer",
    label="SerenEva (zero-shot)",
    capability=C,
    role="prompt",
    scale="1–5",
)
metric(
    "llm4seren",
    "LLM4Seren: the LLM as an outside evaluator answers whether the item is serendipitous "
    "(binary, mapped onto 1–5)",
    label="LLM4Seren",
    capability=C,
    role="prompt",
    scale="1–5",
)
metric(
    "serenprompt-1",
    "SerenPrompt, discrete style 1: low / medium / high (mapped onto 1–5)",
    label="SerenPrompt-1",
    capability=C,
    role="prompt",
    scale="1–5",
)
metric(
    "serenprompt-2",
    "SerenPrompt, discrete style 2: five named levels",
    label="SerenPrompt-2",
    capability=C,
    role="prompt",
    scale="1–5",
)
table(
    "serendipity_table2",
    ["dataset", "evaluator"],
    "the SerenEva paper's Table 2: every evaluator on the same "
    "answers, Pearson with p-value, MAE, RMSE with CIs, tests against the best baseline",
    capability=C,
    columns=META_COLUMNS,
    headline=[
        "n",
        "pearson_%",
        "pearson_%_lo",
        "pearson_%_hi",
        "pearson_%_p",
        "mae",
        "rmse",
        "abs_error_t_p",
        "abs_error_p",
        "rank",
    ],
)
table(
    "serendipity_history_k",
    ["dataset", "history_k"],
    "the zero-shot evaluator's Pearson per history length",
    capability=C,
    columns=["n", *with_ci("pearson_%")],
)
table(
    "serendipity_aux",
    ["dataset", "setting"],
    "the zero-shot evaluator with one auxiliary line at a time",
    capability=C,
    columns=["n", *with_ci("pearson_%"), "mae"],
)
table(
    "serendipity_by_item",
    ["dataset", "factor", "tercile"],
    "the zero-shot evaluator's Pearson per tercile of "
    "item popularity and genre distance to the history",
    capability=C,
    columns=["n", *with_ci("pearson_%")],
)
table(
    "serendipity_ensemble_size",
    ["dataset", "ensemble_size"],
    "mean / min / max Pearson over every subset of m LLM evaluators",
    capability=C,
    columns=["subsets", "pearson_%", "pearson_%_min", "pearson_%_max"],
)

# the room's own context columns (the shared glossary keeps the terms every room uses)
register_columns(
    C,
    {
        "evaluator": ("evaluator", "serendipity evaluator"),
        "excluded": ("excluded", "answers without a prediction or ground truth"),
        "dataset": ("dataset", "the user study the row is measured on"),
        "setting": (
            "setting",
            "the auxiliary line added to the zero-shot serendipity prompt (none: the plain prompt)",
        ),
        "history_k": (
            "history k",
            "history items shown to the serendipity evaluator (the last k before the target)",
        ),
        "ensemble_size": (
            "ensemble size",
            "number of evaluators whose predictions are averaged per answer",
        ),
        "subsets": ("subsets", "evaluator subsets of this size (all of them are scored)"),
        "factor": ("factor", "the item property the answers are split by"),
        "tercile": ("tercile", "low / middle / high third of the answers by the factor"),
        "pearson_%_min": ("Pearson (%) min", "the worst subset's Pearson (%)"),
        "pearson_%_max": ("Pearson (%) max", "the best subset's Pearson (%)"),
        "n_same": (
            "n (same answers)",
            "answers every evaluator scored: the ones the ranking compares on",
        ),
        "abs_error_p": (
            "p vs best baseline",
            "Wilcoxon signed-rank test of absolute errors against the best baseline",
        ),
        "vs_best_baseline": ("best baseline", "the baseline with the lowest MAE"),
        "significant": ("significant", "abs_error_p < .05"),
        "ground_truth": ("ground truth", "user-study answer, 1–5"),
        "ensemble": ("ensemble", "the LLM evaluators whose predictions are averaged"),
        "size": ("size", "evaluators in the ensemble"),
        "rank": ("rank", "best / second by Pearson on the answers every evaluator scored"),
    },
)
