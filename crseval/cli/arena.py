"""crseval arena — rank systems from pairwise votes, with uncertainty."""
from __future__ import annotations

import typer
from typer.core import TyperGroup

from crseval.arena.job import JOB as RANK
from crseval.cli.options import job_command


class DefaultRank(TyperGroup):
    """`crseval arena VOTES…` runs `rank`."""

    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["rank", *args]
        return super().parse_args(ctx, args)


app = typer.Typer(cls=DefaultRank, no_args_is_help=True, add_completion=False,
                  help="Rank systems from pairwise votes: the arena's Elo, Bradley–Terry with bootstrap CIs, rank "
                       "stability, agreement between vote sets. `crseval arena VOTES.csv [MORE.csv …]`.")
job_command(app, "rank", RANK)
