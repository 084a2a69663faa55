"""crseval dialogues — what CRSs recommend inside their dialogues."""

from __future__ import annotations

import typer

from crseval.cli.options import default_command_group, job_command
from crseval.dialogues.job import JOB as METRICS

app = typer.Typer(
    cls=default_command_group("metrics"),
    no_args_is_help=True,
    add_completion=False,
    help="Beyond accuracy inside dialogues: grounding in a catalogue, out-of-catalogue rate, repetition, "
    "novelty, diversity, coverage. `crseval dialogues metrics DATA --catalog CATALOGUE`.",
)
job_command(app, "metrics", METRICS)
