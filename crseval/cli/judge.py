"""crseval judge — LLM judges and how far to trust them."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from crseval.cli.output import Format, console, emit

app = typer.Typer(no_args_is_help=True, help="LLM judges: meta-evaluation against human labels, judge panels.")


@app.command("meta-eval")
def meta_eval(
    data: Path = typer.Argument(..., help="JSON file of labelled conversations, or an AB-ReDial folder."),
    level: str = typer.Option("dialogue", help="dialogue or turn."),
    aspects: Optional[str] = typer.Option(None, help="Comma-separated aspects (default: every labelled aspect)."),
    limit: Optional[int] = typer.Option(None, help="Evaluate a seeded random subset of this many items."),
    backend: str = typer.Option("llamacpp", help="llamacpp, openai or scripted (ignored with --panel)."),
    model: Optional[str] = typer.Option(None, help="Model name or .gguf path."),
    base_url: Optional[str] = typer.Option(None, help="Server URL for --backend openai."),
    samples: int = typer.Option(1, help="Ratings per item from the judge (a panel of repeated samples)."),
    temperature: float = typer.Option(0.0, help="Judge temperature (use > 0 with --samples > 1)."),
    panel: Optional[Path] = typer.Option(None, help="TOML with [[judges]] (name, samples, [judges.llm] …)."),
    n_boot: int = typer.Option(1000, help="Bootstrap resamples for the correlation CIs."),
    seed: int = typer.Option(0, help="Seed for the subset and the bootstrap."),
    out: Optional[Path] = typer.Option(None, help="Run directory (resumable; default runs/meta-eval-LEVEL)."),
    fmt: Format = typer.Option(Format.table, "--format", help="Output format."),
) -> None:
    """Rate labelled dialogues with the judge(s) and report per aspect Pearson/Spearman with the human
    labels (bootstrap CIs) next to a length baseline; panels add reliability and agreement tables."""
    from crseval.cli.main import _llm_config
    from crseval.cli.progress import progress_bars
    from crseval.core.config import load_config
    from crseval.data.judged import load_judged
    from crseval.judge.job import Judge
    from crseval.judge.meta import run_meta_eval
    from crseval.judge.panel import PanelConfig
    from crseval.llm import make_client
    from crseval.report import write_report

    judged = load_judged(data, level)  # type: ignore[arg-type]
    human = None
    if judged.info.name.startswith("ab-redial"):  # per-annotator ratings exist: analyse humans + judges together
        from crseval.data.ratings import load_ab_redial
        human = load_ab_redial(data if data.is_dir() else data.parent, level)
    out = out or Path("runs") / f"meta-eval-{level}"
    out.mkdir(parents=True, exist_ok=True)
    cache = out / "llm_cache.sqlite"
    if panel is not None:
        specs = load_config(panel, PanelConfig).judges
        judges = [Judge(s.name, make_client(s.llm, cache), s.samples, s.llm.temperature) for s in specs]
    else:
        cfg = _llm_config(backend, model, base_url, temperature)
        judges = [Judge(cfg.model or cfg.backend, make_client(cfg, cache), samples, temperature)]
    try:
        with progress_bars() as bars:
            table = run_meta_eval(judged, judges, out, aspects=[a.strip() for a in aspects.split(",")] if aspects
                                  else None, limit=limit, seed=seed, n_boot=n_boot, human_ratings=human,
                                  progress=bars)
    finally:
        for j in judges:
            j.client.close()
    cols = ["aspect", "judge", "n", "failed", "pearson", "pearson_lo", "pearson_hi", "spearman", "spearman_lo",
            "spearman_hi"]
    emit(table[cols].round(3), fmt, title=f"judge meta-evaluation ({level} level)")
    if fmt is Format.table:
        console.print(f"report: [bold]{write_report(out, 'crseval judge meta-evaluation')}[/bold]")
