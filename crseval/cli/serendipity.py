"""crseval serendipity — proxy metrics and evaluators against user-study ground truth."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import numpy as np
import typer

from crseval.cli.output import Format, console, emit, err_console
from crseval.core.errors import CrsevalError

app = typer.Typer(no_args_is_help=True, help="Serendipity evaluation and meta-evaluation.")


@app.command("meta-eval")
def meta_eval(
    path: Path = typer.Argument(..., help="The dataset folder or file."),
    dataset: str = typer.Option("serendipity2018", help="serendipity2018 or taobao-serendipity."),
    evaluators: str = typer.Option("random,sog,snpr,purs,desr,import:gpt-rating",
                                   help="Comma-separated: random, sog, snpr, purs, desr, llm, llm-fewshot, "
                                        "import:COLUMN."),
    backend: str = typer.Option("llamacpp", help="LLM backend for the llm evaluators."),
    model: Optional[str] = typer.Option(None, help="Model name or .gguf path."),
    base_url: Optional[str] = typer.Option(None, help="Server URL for --backend openai."),
    runs: int = typer.Option(5, help="LLM runs averaged per answer."),
    shots: int = typer.Option(5, help="Examples from other users for llm-fewshot."),
    history_k: int = typer.Option(10, help="History items shown to the LLM (most recent, oldest first)."),
    aux: str = typer.Option("", help="Comma-separated auxiliary data for the LLM: popularity, similarity, "
                                     "curiosity, personality."),
    relevance: str = typer.Option("predicted", help="Relevance from the recommender's 'predicted' rating or the "
                                                    "user's own 'rating'."),
    sample: Optional[int] = typer.Option(None, help="Evaluate a seeded random subset of N answers."),
    n_boot: int = typer.Option(1000, help="Bootstrap resamples for the CIs."),
    seed: int = typer.Option(0, help="Seed for the subset, the random baseline and the bootstrap."),
    ensemble: Optional[str] = typer.Option(None, help="Comma-separated evaluators to combine: every subset of 2–4 is "
                                                      "averaged and the grid is reported best first."),
    out: Path = typer.Option(Path("runs/serendipity"), help="Run directory."),
    fmt: Format = typer.Option(Format.table, "--format", help="Output format."),
) -> None:
    """Pearson (%), MAE and RMSE of every evaluator against the ground truth, with bootstrap CIs,
    best/second marked and a paired test on absolute errors against the best baseline."""
    from crseval.core.signature import format_signature, make_signature
    from crseval.data import load_dataset
    from crseval.report import write_report
    from crseval.runs import RunStore
    from crseval.serendipity.meta import meta_evaluate
    from crseval.serendipity.proxies import PROXIES, features, to_likert
    if dataset not in ("serendipity2018", "taobao-serendipity"):
        raise CrsevalError(f"unknown dataset {dataset!r}", field="--dataset",
                           expected="serendipity2018 or taobao-serendipity")
    study = load_dataset(dataset, path)
    if sample is not None and sample < len(study.answers):
        study.answers = study.answers.sample(sample, random_state=seed).reset_index(drop=True)
    names = [e.strip() for e in evaluators.split(",") if e.strip()]
    need_features = any(n in PROXIES and n != "random" for n in names)
    if need_features and study.unavailable:
        raise CrsevalError(f"{dataset} cannot support history-based proxies: " + "; ".join(study.unavailable.values()),
                           field="--evaluators", expected="random or import:COLUMN for this dataset")
    f = features(study, relevance, seed=seed).table if need_features else study.answers[["user", "item"]]
    store = RunStore(out)
    client = None
    aux_flags = {a.strip() for a in aux.split(",") if a.strip()}
    bad_aux = aux_flags - {"popularity", "similarity", "curiosity", "personality"}
    if bad_aux:
        raise CrsevalError(f"unknown auxiliary data {sorted(bad_aux)}", field="--aux",
                           expected="popularity, similarity, curiosity, personality")
    preds = {}
    for n in names:
        if n.startswith("import:"):
            col = n.split(":", 1)[1]
            if col not in study.answers:
                raise CrsevalError(f"no column {col!r} to import", field="--evaluators",
                                   expected="one of " + ", ".join(study.answers.columns))
            preds[n] = study.answers[col].to_numpy(float)
        elif n in PROXIES:
            preds[n] = to_likert(PROXIES[n](f, seed=seed) if n == "random" else PROXIES[n](f))
        elif n in ("llm", "llm-fewshot"):
            from crseval.cli.main import _llm_config
            from crseval.cli.progress import progress_bars
            from crseval.llm import make_client
            from crseval.serendipity.evaluator import Aux, llm_scores
            client = client or make_client(_llm_config(backend, model, base_url), store.cache_path)
            a = Aux(history_k, **{k: k in aux_flags for k in ("popularity", "similarity", "curiosity", "personality")})
            k = shots if n == "llm-fewshot" else 0
            with progress_bars() as bars:
                preds[n] = llm_scores(study, client, store, aux=a, runs=runs, shots=k, seed=seed, name=n,
                                      progress=bars(f"LLM evaluator {n}", runs * len(study.answers)))
        else:
            raise CrsevalError(f"unknown evaluator {n!r}", field="--evaluators",
                               expected="random, sog, snpr, purs, desr, llm, llm-fewshot or import:COLUMN")
    llm_sig = {}
    if client is not None:
        llm_sig = {**client.identity(), "runs": runs, "shots": shots, "history_k": history_k,
                   "aux": ",".join(sorted(aux_flags)) or "none"}
        client.close()
    table = meta_evaluate(preds, study.answers["ground_truth"].to_numpy(float), n_boot=n_boot, seed=seed)
    sig = make_signature(data=study.info.signature(), llm=llm_sig,
                         metric={"ground_truth": study.ground_truth, "relevance": relevance,
                                 "sample": sample or "all", "boot": n_boot, "seed": seed})
    store.save_signature(sig)
    store.write_table("serendipity_meta_eval", table)
    tables = ["serendipity_meta_eval"]
    if ensemble:
        from crseval.serendipity.meta import ensemble_grid
        members = [e.strip() for e in ensemble.split(",") if e.strip()]
        missing = [m for m in members if m not in preds]
        if missing:
            raise CrsevalError(f"ensemble member {missing[0]!r} is not among --evaluators", field="--ensemble",
                               expected="a subset of " + ", ".join(preds))
        grid = ensemble_grid(preds, study.answers["ground_truth"].to_numpy(float), members)
        store.write_table("serendipity_ensembles", grid)
        tables.append("serendipity_ensembles")
        if fmt is Format.table and len(grid):
            console.print(f"best ensemble: [bold]{grid.iloc[0]['ensemble']}[/bold] "
                          f"(Pearson {grid.iloc[0]['pearson_%']:.1f} %, MAE {grid.iloc[0]['mae']:.3f})")
    from crseval.report.plots import bar_with_ci
    bar_with_ci(table["evaluator"].tolist(), table["pearson_%"].fillna(0).tolist(),
                table["pearson_%_lo"].fillna(0).tolist(), table["pearson_%_hi"].fillna(0).tolist(),
                ylabel="Pearson r with ground truth (%)", title=f"Serendipity evaluators on {dataset}",
                path=store.figure_path("serendipity_pearson"))
    store.add_section("Serendipity meta-evaluation", f"Ground truth: {study.ground_truth} on 1–5. Proxy scores are "
                      "min-max mapped to 1–5. " + " ".join(study.info.notes),
                      tables=tables, figures=["serendipity_pearson"])
    cols = ["evaluator", "n", "pearson_%", "pearson_%_lo", "pearson_%_hi", "mae", "rmse", "rank"] + \
        (["p_abs_error"] if "p_abs_error" in table else [])
    emit(table[cols].round(3), fmt, title=f"serendipity meta-evaluation ({dataset})",
         signature=format_signature(sig))
    if fmt is Format.table:
        for note in study.info.notes:
            err_console.print(f"[yellow]note:[/yellow] {note}")
        console.print(f"report: [bold]{write_report(out, 'crseval serendipity')}[/bold]")
