"""crseval judge — LLM judges and how far to trust them."""
from __future__ import annotations

import typer

from crseval.cli.options import job_command
from crseval.judge.job import JOB as META_EVAL

app = typer.Typer(no_args_is_help=True, add_completion=False,
                  help="LLM judges: meta-evaluation against human labels, judge panels.")
job_command(app, "meta-eval", META_EVAL)
