"""crseval serendipity — proxy metrics and evaluators against user-study ground truth."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

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
                                        "import:COLUMN, import-run:RUN_DIR/EVALUATOR (another run's predictions, "
                                        "e.g. another model or auxiliary data, for ensembles)."),
    backend: str = typer.Option("llamacpp", help="LLM backend for the llm evaluators."),
    model: Optional[str] = typer.Option(None, help="Model name or .gguf path."),
    base_url: Optional[str] = typer.Option(None, help="Server URL for --backend openai."),
    runs: int = typer.Option(5, help="LLM runs averaged per answer."),
    shots: int = typer.Option(5, help="Examples from other users for llm-fewshot."),
    history_k: int = typer.Option(10, help="History items shown to the LLM (most recent, oldest first)."),
    aux: str = typer.Option("", help="Comma-separated auxiliary data for the LLM: popularity, similarity, "
                                     "curiosity, personality, interaction, profiles (demographics: not in these "
                                     "studies)."),
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
    from crseval.cli.progress import progress_bars
    from crseval.serendipity.evaluator import Aux
    from crseval.serendipity.run import predictions, write_results
    if dataset not in ("serendipity2018", "taobao-serendipity"):
        raise CrsevalError(f"unknown dataset {dataset!r}", field="--dataset",
                           expected="serendipity2018 or taobao-serendipity")
    study = load_dataset(dataset, path)
    if sample is not None and sample < len(study.answers):
        study.answers = study.answers.sample(sample, random_state=seed).reset_index(drop=True)
    names = [e.strip() for e in evaluators.split(",") if e.strip()]
    aux_flags = {a.strip() for a in aux.split(",") if a.strip()}
    if "demographics" in aux_flags:
        raise CrsevalError("neither Serendipity-2018 nor Taobao publishes demographics", field="--aux",
                           fix="drop 'demographics' from --aux")
    switches = ("popularity", "similarity", "curiosity", "personality", "interaction", "profiles")
    bad_aux = aux_flags - set(switches)
    if bad_aux:
        raise CrsevalError(f"unknown auxiliary data {sorted(bad_aux)}", field="--aux", expected=", ".join(switches))
    store = RunStore(out)
    client, llm_sig = None, {}
    if any(n.startswith("llm") for n in names):
        from crseval.cli.main import _llm_config
        from crseval.llm import make_client
        client = make_client(_llm_config(backend, model, base_url), store.cache_path)
        llm_sig = {**client.identity(), "runs": runs, "shots": shots, "history_k": history_k,
                   "aux": ",".join(sorted(aux_flags)) or "none"}
    a = Aux(history_k, **{k: k in aux_flags for k in switches})
    try:
        with progress_bars() as bars:
            preds = predictions(study, names, client=client, store=store, aux=a, runs=runs, shots=shots,
                                relevance=relevance, seed=seed, progress=bars)
    finally:
        if client is not None:
            client.close()
    sig = make_signature(data=study.info.signature(), llm=llm_sig,
                         metric={"ground_truth": study.ground_truth, "relevance": relevance,
                                 "sample": sample or "all", "boot": n_boot, "seed": seed})
    store.save_signature(sig)
    table, grid = write_results(store, study, preds, n_boot=n_boot, seed=seed,
                                ensemble=[e.strip() for e in ensemble.split(",") if e.strip()] if ensemble else ())
    if grid is not None and fmt is Format.table and len(grid):
        console.print(f"best ensemble: [bold]{grid.iloc[0]['ensemble']}[/bold] "
                      f"(Pearson {grid.iloc[0]['pearson_%']:.1f} %, MAE {grid.iloc[0]['mae']:.3f})")
    cols = ["evaluator", "n", "pearson_%", "pearson_%_lo", "pearson_%_hi", "mae", "rmse", "rank"] + \
        (["p_abs_error"] if "p_abs_error" in table else [])
    emit(table[cols].round(3), fmt, title=f"serendipity meta-evaluation ({dataset})",
         signature=format_signature(sig))
    if fmt is Format.table:
        for note in study.info.notes:
            err_console.print(f"[yellow]note:[/yellow] {note}")
        console.print(f"report: [bold]{write_report(out, 'crseval serendipity')}[/bold]")
