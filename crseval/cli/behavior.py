"""crseval behavior — does a CRS use the strategies a human recommender would?"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from crseval.behavior.job import DATA_HELP, META, RUN, TAG, TRAIN, RunConfig
from crseval.cli.options import FORMAT, job_command, run_job
from crseval.cli.output import Format, emit

app = typer.Typer(no_args_is_help=True, add_completion=False,
                  help="Behavior alignment with human recommenders (INSPIRED strategies).")
job_command(app, "train", TRAIN)
job_command(app, "tag", TAG)
job_command(app, "run", RUN)
job_command(app, "meta", META)


@app.command()
def explicit(
    data: str = typer.Argument(..., help=DATA_HELP),
    labels: Optional[Path] = typer.Option(None, help="System strategies CSV: dialogue,turn,strategy."),
    order: int = typer.Option(1, help="History length t of the entropy model."),
    fmt: Format = FORMAT,
) -> None:
    """Human reference statistics (turns before the first recommendation, success rate, strategy
    distribution); with --labels, the system's explicit and entropy-weighted BA."""
    from crseval.behavior.explicit import labels_ba, strategy_distribution, summary_stats
    from crseval.behavior.job import dialogues
    ds = list(dialogues(data))
    stats = {**summary_stats(ds), **(labels_ba(ds, labels, order) if labels is not None else {})}
    emit(stats, fmt, title="behavior statistics")
    if fmt is Format.table:
        emit(strategy_distribution(ds).round(3).reset_index().rename(columns={"index": "strategy"}), fmt,
             title="human strategy distribution")


@app.command()
def implicit(
    responses: Path = typer.Argument(..., help="System responses: JSONL/CSV with dialogue, turn, response."),
    data: str = typer.Option(..., help=DATA_HELP),
    test_split: str = typer.Option("test", help="INSPIRED split the responses answer (the rest trains)."),
    out: Optional[Path] = typer.Option(None, help="Run directory (default: runs/behavior-implicit)."),
    fmt: Format = FORMAT,
) -> None:
    """Implicit (label-free) and explicit BA, BLEU and DIST of a responses file (`behavior run --responses`)."""
    run_job(RUN, RunConfig(data=data, responses=responses, test_split=test_split),
            out or Path("runs/behavior-implicit"), fmt)
