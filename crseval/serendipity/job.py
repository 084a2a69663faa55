"""The serendipity meta-evaluation job: evaluators → predictions → table, ensembles, figures, report."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Callable, Literal, Sequence

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, field_validator

from crseval.core.config import CommaList
from crseval.core.errors import CrsevalError
from crseval.core.job import JobSpec
from crseval.core.output import Output
from crseval.core.registry import metrics_with
from crseval.data import load_dataset, names_of
from crseval.data.base import SerendipityStudy
from crseval.llm import LLMConfig
from crseval.runs.context import RunContext
from crseval.runs.view import Run
from crseval.serendipity.evaluator import AUX_SWITCHES, Aux, LLMEvaluator, llm_scores
from crseval.serendipity.meta import ensemble_grid, meta_evaluate
from crseval.serendipity.proxies import (
    PROXIES,
    earlier_items,
    features,
    random_expectation,
    random_likert,
    signatures,
    to_likert,
)
from crseval.serendipity.proxies import score as proxy_score

EVALUATORS = (
    ", ".join(metrics_with("serendipity", "baseline") + metrics_with("serendipity", "evaluator"))
    + ", import:COLUMN or import-run:RUN_DIR/EVALUATOR"
)


def from_run(study: SerendipityStudy, spec: str) -> np.ndarray:
    """Predictions of an evaluator from another run's ``serendipity_answers`` table, aligned by
    (user, item): how configurations of different runs (models × auxiliary data) are ensembled."""
    run_dir, _, name = spec.rpartition("/")
    path = Path(run_dir) / "tables" / "serendipity_answers.csv"
    if "serendipity_answers" not in Run(run_dir).tables:
        raise CrsevalError(
            "run has no serendipity_answers table",
            file=path,
            field="--evaluators",
            fix="point import-run: at a serendipity run directory",
        )
    other = pd.read_csv(path, dtype={"user": str, "item": str})
    if name not in other:
        raise CrsevalError(
            f"run has no evaluator {name!r}",
            file=path,
            field="--evaluators",
            expected="one of "
            + ", ".join(c for c in other.columns if c not in ("user", "item", "ground_truth")),
        )
    values = dict(zip(zip(other["user"], other["item"]), other[name]))
    return np.array(
        [values.get((u, i), np.nan) for u, i in zip(study.answers["user"], study.answers["item"])],
        float,
    )


def _imported(study: SerendipityStudy, col: str) -> np.ndarray:
    """An evaluator's predictions from a column of the study (never one of the user's own answers)."""
    if col not in study.answers:
        raise CrsevalError(
            f"no column {col!r} to import",
            field="--evaluators",
            expected="one of " + ", ".join(study.answers.columns),
        )
    if col in study.outcomes:
        raise CrsevalError(
            f"{col!r} is the user's own answer about the item (what evaluators predict); "
            "an evaluator built from it would see the outcome",
            field="--evaluators",
            expected="a prediction column such as gpt-rating",
        )
    return study.answers[col].to_numpy(float)


def predictions(
    study: SerendipityStudy,
    names: Sequence[str],
    *,
    llm: LLMEvaluator | None = None,
    relevance: str = "predicted",
    protocol: str = "crseval",
    seed: int = 0,
    rows: Sequence[int] | None = None,
    progress: Callable[[str, int], Callable[[int], None]] | None = None,
) -> dict[str, np.ndarray]:
    """Every evaluator's prediction for every answer of the whole study; with ``rows``, the LLM evaluators rate
    only those answers (NaN elsewhere) — histories, popularity and proxies always come from the whole study."""
    need_features = any(n in PROXIES and n != "random" for n in names)
    if need_features and study.unavailable:
        raise CrsevalError(
            f"{study.info.name} cannot support history-based proxies: "
            + "; ".join(study.unavailable.values()),
            field="--evaluators",
            expected="random or import:COLUMN for this dataset",
        )
    f = (
        features(study, relevance, seed=seed, protocol=protocol).table
        if need_features
        else study.answers[["user", "item"]]
    )
    out = {}
    for n in names:
        if n.startswith("import-run:"):
            out[n] = from_run(study, n.split(":", 1)[1])
        elif n.startswith("import:"):
            out[n] = _imported(study, n.split(":", 1)[1])
        elif n == "random" and protocol == "sereneva":
            out[n] = random_likert(len(f), seed)
        elif n in PROXIES:
            out[n] = to_likert(proxy_score(n, f, seed=seed))
        elif n in ("llm", "llm-fewshot"):
            if llm is None:
                raise CrsevalError(
                    "the llm evaluators need an LLM client and a run directory",
                    field="--evaluators",
                )
            total = llm.runs * (len(rows) if rows is not None else len(study.answers))
            out[n] = llm_scores(
                study,
                llm if n == "llm-fewshot" else replace(llm, shots=0),
                seed=seed,
                name=n,
                rows=rows,
                progress=progress(f"LLM evaluator {n}", total) if progress else None,
            )
        elif n != "calibrated":
            raise CrsevalError(
                f"unknown evaluator {n!r}", field="--evaluators", expected=EVALUATORS
            )
    if "calibrated" in names:
        out = {n: out[n] if n != "calibrated" else calibrated_scores(study, out) for n in names}
    return out


def calibrated_scores(study: SerendipityStudy, preds: dict[str, np.ndarray]) -> np.ndarray:
    """The judges' calibration applied to serendipity: a ridge model from the other evaluators' predictions
    (the LLM's readings, proxies, imported scores; random left out) to the ground truth, its penalty chosen by
    user-grouped CV inside user-grouped outer folds (``nested_cv``) — every answer is predicted by a model that
    never saw its user. Answers missing an input are NaN."""
    from crseval.judge.calibrated import nested_cv_predictions

    inputs = [n for n in preds if n not in ("random", "calibrated")]
    if not inputs:
        raise CrsevalError(
            "the calibrated evaluator learns from the other evaluators",
            field="--evaluators",
            fix="list it with others, e.g. llm,sog,snpr,calibrated",
        )
    X = np.column_stack([preds[n] for n in inputs])
    y = study.answers["ground_truth"].to_numpy(float)
    ok = np.isfinite(X).all(axis=1) & np.isfinite(y)
    groups = study.answers["user"].astype(str).to_numpy()
    if len(np.unique(groups[ok])) < 2:
        raise CrsevalError(
            "the calibrated evaluator needs answers of at least two users", field="--evaluators"
        )
    out = np.full(len(y), np.nan)
    out[ok] = np.clip(nested_cv_predictions(X[ok], y[ok], groups[ok]), 1, 5)
    return out


def plot_errors(preds: dict[str, np.ndarray], truth: np.ndarray, path) -> None:
    from crseval.plotting import plt, save, style

    style()
    names = list(preds)
    errors = [np.asarray(preds[n], float) - truth for n in names]
    errors = [e[np.isfinite(e)] for e in errors]
    fig, ax = plt.subplots(figsize=(max(5.0, 0.9 * len(names) + 2), 3.6))
    ax.boxplot(errors, showmeans=True)
    ax.set_xticks(range(1, len(names) + 1), names, rotation=25, ha="right")
    ax.axhline(0, color="#333333", lw=0.8)
    ax.set_ylabel("prediction − ground truth (Likert points)")
    ax.set_title("Error distribution per evaluator")
    save(fig, path)


def _ensembles(preds: dict[str, np.ndarray], truth: np.ndarray, ensemble) -> pd.DataFrame:
    missing = [m for m in ensemble if m not in preds]
    if missing:
        raise CrsevalError(
            f"ensemble member {missing[0]!r} is not among the evaluators",
            field="--ensemble",
            expected="a subset of " + ", ".join(preds),
        )
    return ensemble_grid(preds, truth, list(ensemble))


def _caveat(table: pd.DataFrame) -> str:
    """Where evaluators scored different answers: which, and what the ranking compares."""
    partial = table[table["n"] < table["n"].max()]
    if not len(partial):
        return ""
    return (
        " Evaluators scored different answers ("
        + ", ".join(f"{r.evaluator}: n = {r.n}" for r in partial.itertuples())
        + f" of {int(table['n'].max())}: a proxy "
        "needs an earlier rating of the user, an LLM rates only its sample); the ranking uses the Pearson on the "
        f"{int(table['n_same'].iloc[0])} answers all of them scored."
    )


def results(
    study: SerendipityStudy,
    preds: dict[str, np.ndarray],
    *,
    n_boot: int = 1000,
    seed: int = 0,
    ensemble: Sequence[str] = (),
) -> Output:
    """Every evaluator against the ground truth (``serendipity_meta_eval``; ``serendipity_ensembles`` with
    ``ensemble``), per answer, the figures and the report section."""
    from crseval.plotting import bar_with_ci

    out = Output()
    truth = study.answers["ground_truth"].to_numpy(float)
    table = meta_evaluate(preds, truth, n_boot=n_boot, seed=seed)
    out.table("serendipity_meta_eval", table)
    grid = _ensembles(preds, truth, ensemble) if ensemble else None
    if grid is not None:
        out.table("serendipity_ensembles", grid)
    per_answer = study.answers[["user", "item", "ground_truth"]].assign(
        **{n: p for n, p in preds.items()}
    )
    out.table("serendipity_answers", per_answer)
    out.figure(
        "serendipity_pearson",
        lambda path: bar_with_ci(
            table["evaluator"].tolist(),
            table["pearson_%"].fillna(0).tolist(),
            table["pearson_%_lo"].fillna(0).tolist(),
            table["pearson_%_hi"].fillna(0).tolist(),
            ylabel="Pearson r with ground truth (%)",
            title=f"Serendipity evaluators on {study.info.name}",
            path=path,
        ),
        "Pearson correlation (%) of each evaluator's 1–5 prediction with the user-study ground truth, "
        "with 95 % bootstrap CIs (n per evaluator in the table)",
    )
    out.figure(
        "serendipity_errors",
        lambda path: plot_errors(preds, truth, path),
        "Distribution of prediction errors per evaluator (box: quartiles, triangle: mean); 0 = exact",
    )
    out.section(
        "Serendipity meta-evaluation",
        f"Ground truth: {study.ground_truth} on 1–5; proxy scores are "
        "min-max mapped to 1–5. Pearson (%), MAE and RMSE with 95% bootstrap CIs; p: two-sided Wilcoxon "
        "test of absolute errors against the best baseline."
        + _caveat(table)
        + " "
        + " ".join(study.info.notes),
        tables=["serendipity_meta_eval", "serendipity_ensembles", "serendipity_answers"],
        figures=["serendipity_pearson", "serendipity_errors"],
    )
    return out


class SerendipityConfig(BaseModel):
    """Serendipity evaluators against user-study ground truth."""

    model_config = ConfigDict(extra="forbid")
    path: Path = Field(
        ...,
        description="The dataset folder or file, or 'sample' (the bundled simulated study).",
        json_schema_extra={"argument": True},
    )
    dataset: str = Field(
        "serendipity2018", description="One of " + ", ".join(names_of("serendipity")) + "."
    )
    evaluators: CommaList | None = Field(
        None,
        description="Comma-separated: " + EVALUATORS + " (another run's predictions, e.g. "
        "another model or auxiliary data, for ensembles). Default: what the data support — the "
        "proxies random, sog, snpr, purs, desr (random alone without histories) and "
        "import:gpt-rating where the file holds the published GPT ratings.",
    )
    llm: LLMConfig = LLMConfig()
    runs: int = Field(
        5,
        ge=1,
        le=100,
        description="LLM runs averaged per answer.",
        json_schema_extra={"signed": True},
    )
    shots: int = Field(
        5,
        ge=0,
        le=50,
        description="Examples from other users for llm-fewshot.",
        json_schema_extra={"signed": True},
    )
    history_k: int = Field(
        10,
        ge=0,
        le=1000,
        description="History items shown to the LLM (most recent, oldest first).",
        json_schema_extra={"signed": True},
    )
    aux: CommaList = Field(
        [],
        description="Comma-separated auxiliary data for the LLM: "
        + ", ".join(AUX_SWITCHES)
        + " (demographics: not in these studies).",
        json_schema_extra={"signed": True},
    )
    relevance: Literal["predicted", "rating"] = Field(
        "predicted",
        description="Relevance from the recommender's 'predicted' rating or the user's own 'rating'.",
        json_schema_extra={"signed": True},
    )
    protocol: Literal["crseval", "sereneva"] = Field(
        "crseval",
        description="How the proxies and the random baseline are defined: 'crseval' (liked history, mean "
        "distance, answers without an earlier rating left out) or 'sereneva' (the SerenEva paper's Table 2: "
        "the last 10 items, the nearest one's distance, every answer scored, random integers 1–5).",
        json_schema_extra={"signed": True},
    )
    sample: int | None = Field(
        None,
        ge=1,
        description="Evaluate a seeded random subset of N answers.",
        json_schema_extra={"signed": True},
    )
    n_boot: int = Field(
        1000,
        ge=0,
        description="Bootstrap resamples for the CIs.",
        json_schema_extra={"signed": True},
    )
    seed: int = Field(
        0,
        description="Seed for the subset, the random baseline and the bootstrap.",
        json_schema_extra={"signed": True},
    )
    ensemble: CommaList | None = Field(
        None,
        description="Comma-separated evaluators to combine: every subset of 2–4 "
        "is averaged and the grid is reported best first.",
    )

    @field_validator("dataset")
    @classmethod
    def _dataset(cls, v: str) -> str:
        if v not in names_of("serendipity"):
            raise ValueError(f"unknown dataset {v!r}; one of {', '.join(names_of('serendipity'))}")
        return v

    @field_validator("aux")
    @classmethod
    def _aux(cls, v: list[str]) -> list[str]:
        if "demographics" in v:
            raise ValueError("neither Serendipity-2018 nor Taobao publishes demographics; drop it")
        bad = sorted(set(v) - set(AUX_SWITCHES))
        if bad:
            raise ValueError(f"unknown auxiliary data {bad}; one of {', '.join(AUX_SWITCHES)}")
        return v


def sample_rows(study: SerendipityStudy, sample: int | None, seed: int) -> list[int] | None:
    """Which answers to evaluate (seeded; None = all). Sampling never shrinks the study itself: what the
    evaluators know about an answer is the same as in the full run."""
    if sample is None or sample >= len(study.answers):
        return None
    return sorted(study.answers.sample(sample, random_state=seed).index.tolist())


def subset(study: SerendipityStudy, preds: dict[str, np.ndarray], rows: Sequence[int] | None):
    """The study and predictions restricted to the evaluated answers."""
    if rows is None:
        return study, preds
    part = replace(study, answers=study.answers.iloc[list(rows)].reset_index(drop=True))
    return part, {n: np.asarray(p, float)[list(rows)] for n, p in preds.items()}


def run(config: SerendipityConfig, ctx: RunContext) -> Output:
    from crseval.judge.calibrated import nested_cv  # scikit-learn: loaded only when a run starts

    study = (
        load_dataset("sample").serendipity
        if str(config.path) == "sample"
        else load_dataset(config.dataset, config.path)
    )
    names = config.evaluators or supported_evaluators(study)
    aux = Aux(config.history_k, **{k: k in config.aux for k in AUX_SWITCHES})
    refused = aux.refused_by(study) if any(n.startswith("llm") for n in names) else None
    if refused:
        raise CrsevalError(refused, field="--aux", fix="leave these switches out for this dataset")
    rows = sample_rows(study, config.sample, config.seed)
    client, llm_sig = None, {}
    if any(n.startswith("llm") for n in names):
        client = ctx.llm(config.llm, "serendipity evaluator")
        llm_sig = client.identity()
    try:
        preds = predictions(
            study,
            names,
            llm=LLMEvaluator(client, ctx, aux, config.runs, config.shots) if client else None,
            relevance=config.relevance,
            protocol=config.protocol,
            seed=config.seed,
            rows=rows,
            progress=ctx.progress,
        )
    finally:
        if client is not None:
            client.close()
    study, preds = subset(study, preds, rows)
    out = Output(
        f"serendipity meta-evaluation ({study.info.name})",
        signature={
            "data": study.info.signature(),
            "llm": llm_sig,
            "metric": {
                "ground_truth": study.ground_truth,
                **signatures(names),
                **({"calibrated": nested_cv()} if "calibrated" in names else {}),
            },
        },
    )
    out.add(
        results(
            study, preds, n_boot=config.n_boot, seed=config.seed, ensemble=config.ensemble or ()
        )
    )
    table, grid = out.tables["serendipity_meta_eval"], out.tables.get("serendipity_ensembles")
    cols = SUMMARY + (["abs_error_p"] if "abs_error_p" in table else [])
    out.summary, out.notes = table[cols].round(3), _notes(config, names, study, preds, grid)
    return out


def supported_evaluators(study: SerendipityStudy) -> list[str]:
    """The evaluators a study supports without an LLM: the proxies where it publishes histories (random
    alone where not), and the published GPT ratings where its file holds them."""
    proxies = ["random"] if study.unavailable else ["random", "sog", "snpr", "purs", "desr"]
    return proxies + (["import:gpt-rating"] if "gpt-rating" in study.answers else [])


# the headline table's columns (and abs_error_p where the run has it)
SUMMARY = [
    "evaluator",
    "n",
    "pearson_%",
    "pearson_%_lo",
    "pearson_%_hi",
    "mae",
    "rmse",
    "pearson_%_same",
    "rank",
]


def _notes(
    config: SerendipityConfig, names: Sequence[str], study: SerendipityStudy, preds, grid
) -> list[str]:
    """The run's notes: the best ensemble, what the SerenEva protocol reads, a warning when the proxies
    read an outcome, then the dataset's own notes."""
    notes = list(study.info.notes)
    if config.relevance == "rating" and any(n in PROXIES for n in names):
        notes.insert(
            0,
            "--relevance rating: the proxies read the user's own rating of the recommended item, an "
            "outcome; their scores are an upper bound, not a fair evaluator",
        )
    if config.protocol == "sereneva":
        notes[:0] = sereneva_notes(study, preds)
    if grid is not None and len(grid):
        notes.insert(
            0,
            f"best ensemble: {grid.iloc[0]['ensemble']} (Pearson {grid.iloc[0]['pearson_%']:.1f} %, "
            f"MAE {grid.iloc[0]['mae']:.3f})",
        )
    return notes


def sereneva_notes(study: SerendipityStudy, preds: dict[str, np.ndarray]) -> list[str]:
    """What the SerenEva protocol reads that the paper did not: the history, and one random draw."""
    truth = study.answers["ground_truth"].to_numpy(float)
    notes = []
    if "random" in preds:
        mae, rmse = random_expectation(truth)
        notes.append(
            f"random is one seeded draw of integers 1–5; over all draws it averages Pearson 0, MAE "
            f"{mae:.3f}, RMSE {rmse:.3f} on these {int(np.isfinite(truth).sum()):,} answers"
        )
    if "timestamp" in study.answers and any(n in PROXIES and n != "random" for n in preds):
        k = earlier_items(study.answers)
        notes.append(
            f"--protocol sereneva: the history is the study's own earlier answers (median {np.median(k):g} "
            f"items, {(k == 0).mean():.0%} of answers have none; the paper read the last 10 of the users' "
            "MovieLens ratings, which the published file lacks), so the history terms are not the paper's"
        )
    return notes


JOB = JobSpec(
    "serendipity.meta-eval",
    SerendipityConfig,
    run,
    "runs/serendipity",
    "Pearson (%), MAE and RMSE of every evaluator against the ground truth, with bootstrap CIs, best/second "
    "marked and a paired test on absolute errors against the best baseline.",
    "crseval serendipity",
    uses_llm=lambda c: any(e.startswith("llm") for e in c.evaluators or ()),
)
