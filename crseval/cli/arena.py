"""crseval arena — rank systems from pairwise votes, with uncertainty."""

from __future__ import annotations

import typer

from crseval.arena.job import JOB as RANK
from crseval.cli.options import default_command_group, job_command

app = typer.Typer(
    cls=default_command_group("rank"),
    no_args_is_help=True,
    add_completion=False,
    help="Rank systems from pairwise votes: the arena's Elo, Bradley–Terry with bootstrap CIs, rank "
    "stability, agreement between vote sets. `crseval arena VOTES.csv [MORE.csv …]`.",
)
job_command(app, "rank", RANK)
