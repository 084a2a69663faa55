"""The CLI's command groups, built from the capabilities' declarations: one group per capability, a
command per job (options from its config model), the capability's hand-written commands added by its
``cli`` module's ``extend(app)``. A group is built when it is used, so a quick command stays quick."""

from __future__ import annotations

import importlib

import typer

from crseval.cli.options import default_command_group, job_command
from crseval.core.capability import Capability, all_capabilities


def groups() -> dict[str, str]:
    """CLI group → its one-line help."""
    return {name: cap.help for name, cap in all_capabilities().items()}


def group_app(cap: Capability) -> typer.Typer:
    from crseval.api import get_job

    app = typer.Typer(
        cls=default_command_group(cap.default) if cap.default else None,
        no_args_is_help=True,
        add_completion=False,
        help=cap.help,
    )
    for name, job in cap.jobs.items():
        if job.command:
            job_command(app, job.command, get_job(name))
    if cap.cli:
        importlib.import_module(cap.cli).extend(app)
    return app
