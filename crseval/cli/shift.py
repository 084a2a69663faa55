"""crseval shift — preference-shift adaptation: simulate users who change their minds, score CRS models."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Optional

import typer

from crseval.adaptation.job import RUN
from crseval.cli.options import BATCH_EXPORT, DRY_RUN, FORMAT, KEEP_GOING, declared, run_job
from crseval.cli.output import Format


RUN_OPTIONS = {
    "config": (
        Path,
        typer.Argument(
            ..., help="TOML config: models, sessions, turns, seed, simulator, scoring, judge."
        ),
    ),
    "out": (
        Optional[Path],
        typer.Option(
            None,
            help="Run directory (an interrupted run resumes here; default: runs/shift, or runs/shift-2, … "
            "where that holds a run of another configuration).",
        ),
    ),
    "executor": (
        Optional[str],
        typer.Option(None, help="Override the config's executor: local or ray."),
    ),
    "fresh": (bool, typer.Option(False, help="Delete the run directory first.")),
    "known_groups": (
        bool,
        typer.Option(
            False,
            "--known-groups",
            help="Add the reference CRSs of known behaviour and report, beside every metric, whether "
            "it ranks the one that follows the user above the others (the config's known_groups = "
            "true).",
        ),
    ),
    "retry_failed": (
        bool,
        typer.Option(
            False,
            "--retry-failed",
            help="Run again the sessions this run directory recorded as failed (after fixing the CRS).",
        ),
    ),
    "fmt": (Format, FORMAT),
    "dry_run": (bool, DRY_RUN),
    "batch_export": (Optional[Path], BATCH_EXPORT),
    "keep_going": (bool, KEEP_GOING),
}


@declared(RUN_OPTIONS)
def run(**o: Any) -> None:
    """Simulate sessions for every model, score them (TAS + judge), write results.jsonl, model_metrics,
    anova, tukey, figures and the report."""
    from crseval.adaptation.config import ShiftConfig
    from crseval.api import run_directory
    from crseval.core.config import load_config, validate

    config, out, dry_run, batch_export = o["config"], o["out"], o["dry_run"], o["batch_export"]
    cfg = load_config(config, ShiftConfig).resolved(config.parent)
    overrides = (
        ({"executor": o["executor"]} if o["executor"] else {})
        | ({"known_groups": True} if o["known_groups"] else {})
        | ({"retry_failed": True} if o["retry_failed"] else {})
    )
    if overrides:
        cfg = validate(ShiftConfig, cfg.model_dump(mode="json") | overrides)
    if o["fresh"] and not dry_run and not batch_export:  # this configuration's folder only
        shutil.rmtree(out or run_directory(RUN, cfg), ignore_errors=True)
    run_job(
        RUN,
        cfg,
        out,
        o["fmt"],
        dry_run=dry_run,
        keep_going=o["keep_going"],
        batch_export=batch_export,
    )


def extend(app: typer.Typer) -> None:
    """The group's hand-written commands (its job commands come from the declaration)."""
    app.command("run")(run)
    from crseval.card.known_groups import JOB as KNOWN_GROUPS
    from crseval.cli.options import job_command

    job_command(app, "known-groups", KNOWN_GROUPS)
