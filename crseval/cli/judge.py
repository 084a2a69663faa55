"""crseval judge — LLM judges and how far to trust them."""

from __future__ import annotations

import typer

from crseval.cli.options import job_command
from crseval.judge.fit import JOB as FIT
from crseval.judge.job import JOB as META_EVAL

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="LLM judges: meta-evaluation against human labels, calibrated judges, judge panels.",
)
job_command(app, "meta-eval", META_EVAL)
job_command(app, "fit", FIT)
