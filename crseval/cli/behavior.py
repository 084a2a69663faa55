"""crseval behavior — does a CRS use the strategies a human recommender would?"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from crseval.behavior.job import DATA_HELP, RUN, RunConfig
from crseval.behavior.reuse import EVAL, EvalConfig
from crseval.cli.options import FORMAT, run_job
from crseval.cli.output import Format, emit


def explicit(
    data: str = typer.Argument(..., help=DATA_HELP),
    labels: Optional[Path] = typer.Option(
        None, help="System strategies CSV: dialogue,turn,strategy."
    ),
    order: int = typer.Option(
        1, min=0, help="History length t of the entropy model (0: no history)."
    ),
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
        emit(
            strategy_distribution(ds).round(3).reset_index().rename(columns={"index": "strategy"}),
            fmt,
            title="human strategy distribution",
        )


def implicit(
    responses: Optional[Path] = typer.Argument(
        None, help="System responses: JSONL/CSV with dialogue, turn, response."
    ),
    data: Optional[str] = typer.Option(None, help=DATA_HELP),
    model: Optional[Path] = typer.Option(
        None,
        help="A pair model saved by `behavior train` (its run directory): nothing is retrained.",
    ),
    eval_file: Optional[Path] = typer.Option(
        None,
        help="Instead of responses: a labelled text,strategy CSV; every "
        "same-strategy pair and as many different ones are scored.",
    ),
    test_split: str = typer.Option(
        "test", help="INSPIRED split the responses answer (the rest trains)."
    ),
    out: Optional[Path] = typer.Option(
        None,
        help="Run directory (default: runs/behavior-implicit, or runs/behavior-eval with --eval-file; "
        "-2, -3, … beside it where it holds a run of another configuration).",
    ),
    fmt: Format = FORMAT,
) -> None:
    """Implicit (label-free) and explicit BA, BLEU and DIST of a responses file (`behavior run --responses`);
    or, with --eval-file and --model, a saved pair model's accuracy and κ on any labelled file."""
    from crseval.core.errors import CrsevalError

    if eval_file is not None:
        if model is None or responses is not None:
            raise CrsevalError(
                "--eval-file scores a saved model",
                field="--eval-file",
                fix="pass --model RUN (from `behavior train --out RUN`) and no responses file",
            )
        run_job(
            EVAL,
            EvalConfig(eval_file=eval_file, model=model),
            out,
            fmt,
        )
        return
    if responses is None or data is None:
        raise CrsevalError(
            "a responses file and --data are needed",
            field="responses",
            fix="crseval behavior implicit RESPONSES --data inspired|sample|PATH [--model RUN]",
        )
    config = RunConfig(data=data, responses=responses, test_split=test_split, pair_model=model)
    run_job(RUN, config, out, fmt, default=Path("runs/behavior-implicit"))


def extend(app: typer.Typer) -> None:
    """The group's hand-written commands (its job commands come from the declaration)."""
    app.command("explicit")(explicit)
    app.command("implicit")(implicit)
