"""crseval serendipity — proxy metrics and evaluators against user-study ground truth."""

from __future__ import annotations

import typer

from crseval.cli.options import job_command
from crseval.serendipity.job import JOB as META_EVAL
from crseval.serendipity.reproduce import JOB as REPRODUCE

app = typer.Typer(
    no_args_is_help=True, add_completion=False, help="Serendipity evaluation and meta-evaluation."
)
job_command(app, "meta-eval", META_EVAL)
job_command(app, "reproduce", REPRODUCE)
