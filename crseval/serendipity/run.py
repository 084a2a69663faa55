"""The serendipity meta-evaluation job: evaluators → predictions → table, ensembles, figures, report."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
import pandas as pd

from crseval.core.errors import CrsevalError
from crseval.data.base import SerendipityStudy
from crseval.llm import LLMClient
from crseval.runs.store import RunStore
from crseval.serendipity.evaluator import Aux, llm_scores
from crseval.serendipity.meta import ensemble_grid, meta_evaluate
from crseval.serendipity.proxies import PROXIES, features, to_likert

EVALUATORS = "random, sog, snpr, purs, desr, llm, llm-fewshot, import:COLUMN or import-run:RUN_DIR/EVALUATOR"


def from_run(study: SerendipityStudy, spec: str) -> np.ndarray:
    """Predictions of an evaluator from another run's ``serendipity_answers`` table, aligned by
    (user, item): how configurations of different runs (models × auxiliary data) are ensembled."""
    run_dir, _, name = spec.rpartition("/")
    store = RunStore(run_dir)
    path = store.path("tables", "serendipity_answers.csv")
    if not path.exists():
        raise CrsevalError("run has no serendipity_answers table", file=path, field="--evaluators",
                           fix="point import-run: at a serendipity run directory")
    other = pd.read_csv(path, dtype={"user": str, "item": str})
    if name not in other:
        raise CrsevalError(f"run has no evaluator {name!r}", file=path, field="--evaluators",
                           expected="one of " + ", ".join(c for c in other.columns if c not in ("user", "item",
                                                                                                 "ground_truth")))
    values = dict(zip(zip(other["user"], other["item"]), other[name]))
    return np.array([values.get((u, i), np.nan) for u, i in zip(study.answers["user"], study.answers["item"])], float)


def predictions(study: SerendipityStudy, names: Sequence[str], *, client: LLMClient | None = None,
                store: RunStore | None = None, aux: Aux = Aux(), runs: int = 5, shots: int = 5,
                relevance: str = "predicted", seed: int = 0,
                progress: Callable[[str, int], Callable[[int], None]] | None = None) -> dict[str, np.ndarray]:
    need_features = any(n in PROXIES and n != "random" for n in names)
    if need_features and study.unavailable:
        raise CrsevalError(f"{study.info.name} cannot support history-based proxies: " +
                           "; ".join(study.unavailable.values()), field="--evaluators",
                           expected="random or import:COLUMN for this dataset")
    f = features(study, relevance, seed=seed).table if need_features else study.answers[["user", "item"]]
    out = {}
    for n in names:
        if n.startswith("import-run:"):
            out[n] = from_run(study, n.split(":", 1)[1])
        elif n.startswith("import:"):
            col = n.split(":", 1)[1]
            if col not in study.answers:
                raise CrsevalError(f"no column {col!r} to import", field="--evaluators",
                                   expected="one of " + ", ".join(study.answers.columns))
            out[n] = study.answers[col].to_numpy(float)
        elif n in PROXIES:
            out[n] = to_likert(PROXIES[n](f, seed=seed) if n == "random" else PROXIES[n](f))
        elif n in ("llm", "llm-fewshot"):
            if client is None or store is None:
                raise CrsevalError("the llm evaluators need an LLM client and a run directory", field="--evaluators")
            total = runs * len(study.answers)
            out[n] = llm_scores(study, client, store, aux=aux, runs=runs, shots=shots if n == "llm-fewshot" else 0,
                                seed=seed, name=n, progress=progress(f"LLM evaluator {n}", total) if progress else None)
        else:
            raise CrsevalError(f"unknown evaluator {n!r}", field="--evaluators", expected=EVALUATORS)
    return out


def plot_errors(preds: dict[str, np.ndarray], truth: np.ndarray, path) -> None:
    from crseval.report.plots import plt, style
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
    fig.savefig(path)
    plt.close(fig)


def write_results(store: RunStore, study: SerendipityStudy, preds: dict[str, np.ndarray], *, n_boot: int = 1000,
                  seed: int = 0, ensemble: Sequence[str] = ()) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    from crseval.report.plots import bar_with_ci
    truth = study.answers["ground_truth"].to_numpy(float)
    table = meta_evaluate(preds, truth, n_boot=n_boot, seed=seed)
    store.write_table("serendipity_meta_eval", table)
    tables, grid = ["serendipity_meta_eval"], None
    if ensemble:
        missing = [m for m in ensemble if m not in preds]
        if missing:
            raise CrsevalError(f"ensemble member {missing[0]!r} is not among the evaluators", field="--ensemble",
                               expected="a subset of " + ", ".join(preds))
        grid = ensemble_grid(preds, truth, list(ensemble))
        store.write_table("serendipity_ensembles", grid)
        tables.append("serendipity_ensembles")
    per_answer = study.answers[["user", "item", "ground_truth"]].assign(**{n: p for n, p in preds.items()})
    store.write_table("serendipity_answers", per_answer)
    tables.append("serendipity_answers")
    bar_with_ci(table["evaluator"].tolist(), table["pearson_%"].fillna(0).tolist(),
                table["pearson_%_lo"].fillna(0).tolist(), table["pearson_%_hi"].fillna(0).tolist(),
                ylabel="Pearson r with ground truth (%)", title=f"Serendipity evaluators on {study.info.name}",
                path=store.figure_path("serendipity_pearson"))
    plot_errors(preds, truth, store.figure_path("serendipity_errors"))
    store.add_section("Serendipity meta-evaluation", f"Ground truth: {study.ground_truth} on 1–5; proxy scores are "
                      "min-max mapped to 1–5. Pearson (%), MAE and RMSE with 95% bootstrap CIs; p: two-sided Wilcoxon "
                      "test of absolute errors against the best baseline. " + " ".join(study.info.notes),
                      tables=tables, figures=["serendipity_pearson", "serendipity_errors"])
    return table, grid
