"""The command line as a user meets it, run in this process (typer's ``CliRunner``).

A subprocess re-imports pandas, scikit-learn and torch (2–4 s) before any work, and loses every
model a worker has already loaded; in process the same command answers in milliseconds. Only what a
real process shows (signals, SIGKILL and resume, a worker dying with its parent) starts one, in the
tests that are about it (``tests/robustness/``, ``tests/runs/test_kill_resume.py``).
"""

from __future__ import annotations

from typing import NamedTuple


class Ran(NamedTuple):
    """What a command left: its exit status and its two streams (``subprocess.CompletedProcess``'s names)."""

    returncode: int
    stdout: str
    stderr: str


FIGURES = {"CRSEVAL_FIGURES": "png"}  # write figures (the suite lays them out without writing them)


def crseval(*args, check: bool = True, columns: int = 200, env: dict | None = None) -> Ran:
    """Run ``crseval ARGS…`` in this process, as a terminal ``columns`` wide, with ``env`` set for the
    command (e.g. :data:`FIGURES`); with ``check``, fail the test (showing the end of stderr) unless it
    exits 0."""
    from typer.testing import CliRunner

    from crseval.cli.main import app
    from crseval.core import cancel

    cancel.reset()  # a command starts not cancelled, as a new process would
    result = CliRunner().invoke(
        app, [str(a) for a in args], env={"COLUMNS": str(columns), **(env or {})}
    )
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception  # a bug in the test or the runner, not an exit of the command
    out = Ran(result.exit_code, result.stdout, result.stderr)
    if check:
        assert out.returncode == 0, out.stderr[-2000:]
    return out
