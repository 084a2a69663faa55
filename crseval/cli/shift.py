"""crseval shift — preference-shift adaptation: simulate users who change their minds, score CRS models."""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Optional

import typer

from crseval.cli.output import Format, console, emit

app = typer.Typer(no_args_is_help=True, help="Preference-shift evaluation: user simulator × CRS models × topic "
                                             "adaptation score (TAS) × LLM judge, with ANOVA + Tukey HSD.")


def _summary(run_dir: Path, fmt: Format) -> None:
    from crseval.runs import RunStore
    store = RunStore(run_dir)
    mm = store.read_table("model_metrics")
    if fmt == Format.table:  # metrics as rows, one column per model: "mean [CI]"
        mm["value"] = [f"{m:.3f}" + (f" [{lo:.3f}, {hi:.3f}]" if hi == hi else "")
                       for m, lo, hi in zip(mm["mean"], mm["ci_low"], mm["ci_high"])]
        wide = mm.pivot(index="metric", columns="model", values="value").reindex(
            list(dict.fromkeys(mm["metric"]))).reset_index()
    else:
        wide = mm
    anova = store.read_table("anova")
    sig = store.read_json("signature.json")["line"]
    emit(wide, fmt, title="Per-model means with 95 % bootstrap CIs", signature=sig)
    if fmt == Format.table:
        emit(anova[["metric", "F", "p", "note"]].fillna(""), fmt, title="One-way ANOVA across models")


@app.command("run")
def run(
    config: Path = typer.Argument(..., help="TOML config: models, sessions, turns, seed, simulator, scoring, judge."),
    out: Path = typer.Option(Path("runs/shift"), help="Run directory (an interrupted run resumes here)."),
    executor: Optional[str] = typer.Option(None, help="Override the config's executor: local or ray."),
    fresh: bool = typer.Option(False, help="Delete the run directory first."),
    fmt: Format = typer.Option(Format.table, "--format", help="Output format."),
) -> None:
    """Simulate sessions for every model, score them (TAS + judge), write results.jsonl, model_metrics,
    anova, tukey, figures and the report."""
    from crseval.adaptation.config import ShiftConfig
    from crseval.adaptation.run import run_shift
    from crseval.cli.progress import progress_bars
    from crseval.core.config import load_config, validate
    cfg = load_config(config, ShiftConfig).resolved(config.parent)
    if executor:
        cfg = validate(ShiftConfig, {**cfg.model_dump(mode="json"), "executor": executor})
    if fresh and out.exists():
        shutil.rmtree(out)
    with progress_bars() as bars:
        report = run_shift(cfg, out, progress=bars)
    _summary(out, fmt)
    console.print(f"report: [bold]{report}[/bold]")


@app.command("score")
def score(
    logs: Path = typer.Argument(..., help="Session logs: a JSON file or folder of them ({model_name, true_genre, "
                                          "conversation: [{speaker, text, constraints}]}), a JSONL of crseval "
                                          "session records, or a run directory."),
    out: Path = typer.Option(Path("runs/shift-score"), help="Run directory."),
    kb: Optional[Path] = typer.Option(None, help="OpenDialKG movie KB (default: the bundled sample catalogue)."),
    similarity: str = typer.Option("tfidf", help="tfidf or minilm."),
    topics: str = typer.Option("keyword", help="keyword, lda or llm (llm uses --backend/--model)."),
    judge: bool = typer.Option(False, "--judge/--no-judge", help="Also rate proactiveness, coherence and "
                                                                  "personalization with the LLM judge."),
    backend: str = typer.Option("llamacpp", help="LLM backend for --judge and --topics llm."),
    model: Optional[str] = typer.Option(None, help="Model name or .gguf path."),
    base_url: Optional[str] = typer.Option(None, help="Server URL for --backend openai."),
    seed: int = typer.Option(0, help="Seed (LDA, bootstrap)."),
    fmt: Format = typer.Option(Format.table, "--format", help="Output format."),
) -> None:
    """Score existing sessions without generating anything: TAS components, detection quality where the
    logs carry simulator truth, optional judge, statistics and report."""
    from crseval.adaptation.config import JudgeSection, ScoringSection
    from crseval.adaptation.importer import import_logs
    from crseval.adaptation.run import score_logs
    from crseval.cli.main import _llm_config
    from crseval.cli.progress import progress_bars
    from crseval.core.config import validate
    from crseval.judge.panel import JudgeSpec
    llm = _llm_config(backend, model, base_url)
    scoring = validate(ScoringSection, {"similarity": similarity, "topics": topics,
                                        **({"topics_llm": llm.model_dump()} if topics == "llm" else {})})
    judge_cfg = JudgeSection(judges=[JudgeSpec(name="judge", llm=llm)]) if judge else None
    sessions, notes = import_logs(logs)
    with progress_bars() as bars:
        report = score_logs(sessions, out, scoring=scoring, judge=judge_cfg, kb_path=str(kb.resolve()) if kb else None,
                            seed=seed, progress=bars, notes=notes)
    if notes:
        console.print(f"{len(notes)} import repairs (joined/dropped utterances), listed in {out / 'run.log'}")
    _summary(out, fmt)
    console.print(f"report: [bold]{report}[/bold]")
