"""`crseval evaluate-crs TARGET`: every dimension crseval has, run on one CRS beside reference systems, and
a report whose first page is a card. The card's manifest (:func:`crseval.card.config.parts`) runs part by
part, each a run directory of its own under the card's, through :func:`crseval.api.execute` (each part
resumes by itself); :mod:`crseval.card.scores` computes the card from the parts' results in memory."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from crseval.card.config import CardConfig, parts
from crseval.card.manifest import Parts
from crseval.core.job import JobSpec, Result
from crseval.core.output import Output

if TYPE_CHECKING:
    from crseval.runs.context import RunContext


def run_parts(config: CardConfig, ctx: RunContext) -> Parts:
    """Run the job's manifest (the card's parts; the demo's adds its other capabilities), in turn."""
    done = Parts(list(ctx.manifest))
    for part, result in done.run(ctx):
        if part.name == "shift":
            _refuse_if_the_crs_never_answered(result, config.system)
    return done


def run(config: CardConfig, ctx: RunContext) -> Output:
    from crseval.card.scores import card_output

    return card_output(config, run_parts(config, ctx))


def _refuse_if_the_crs_never_answered(shift: Result, system: str) -> None:
    """Every session of the CRS under test failed: say why in one line (there is nothing to put on a card)."""
    from crseval.adaptation.scoring import STREAM
    from crseval.core.errors import WorkFailed

    mine = [r for r in shift.records(STREAM) if r["model"] == system]
    if mine and all(r.get("errors") for r in mine):
        raise WorkFailed(
            f"{system} failed in every session ({len(mine)} of {len(mine)}); the first: "
            f"{mine[0]['errors'][0]}",
            fix="fix the CRS, then run the same command with --retry-failed (it runs the failed sessions "
            "again with the fixed CRS and keeps the others)",
        )


def check(config: CardConfig) -> None:
    """Import the CRS before anything runs (a misspelt target fails in one line, --dry-run too)."""
    from crseval.simulation.plugins import load_callable

    targets = {"target": config.target} | {f"against.{n}": t for n, t in config.baselines.items()}
    for where, target in targets.items():
        if not str(target).startswith(("http://", "https://")):
            load_callable(target, Path.cwd(), where=where)


JOB = JobSpec(
    "evaluate-crs",
    CardConfig,
    run,
    lambda c: Path("runs") / f"card-{c.system}",
    "Evaluate your own CRS on every dimension beside reference systems: a report card with CIs, "
    "paired tests and the evidence behind each score.",
    "crseval evaluate-crs",
    uses_llm=lambda c: c.with_llm,
    can_fail=True,
    check=check,
    parts=parts,
)
