"""Commands built from job configs: one option per field with the field's help, choices from Literal types,
positional arguments where marked, the LLM options, validation errors naming the option."""

import typer
from typer.testing import CliRunner

from crseval.cli.options import job_command
from crseval.reliability.job import JOB


def _app():
    app = typer.Typer()
    job_command(app, "analyze", JOB)
    job_command(app, "other", JOB)  # typer needs two commands to keep the name
    return app


def test_options_and_help_come_from_the_config():
    out = CliRunner().invoke(_app(), ["analyze", "--help"], env={"COLUMNS": "200"}).output
    assert "--n-boot" in out
    assert "Bootstrap resamples" in out
    assert "--drop-flagged" in out
    assert "RATINGS" in out.upper()


def test_bad_values_are_refused_before_running(tmp_path):
    res = CliRunner().invoke(
        _app(),
        ["analyze", str(tmp_path / "x.csv"), "--n-boot", "-3", "--out", str(tmp_path / "run")],
    )
    assert res.exit_code != 0
    assert "n_boot" in str(res.exception)
    assert not (tmp_path / "run").exists()
