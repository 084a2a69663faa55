"""A capability is one declaration: its jobs, CLI group and help follow from it."""

import pytest
from typer.testing import CliRunner

from crseval.api import JOBS
from crseval.cli.main import app
from crseval.core.capability import CAPABILITIES, all_capabilities, declare_capability
from crseval.core.errors import CrsevalError


@pytest.fixture
def toy():
    all_capabilities()
    cap = declare_capability(
        "toy",
        package="crseval.reliability",
        help="A toy capability declared by a test.",
        layer="measurement",
        jobs={"toy.analyze": ("crseval.reliability.job:JOB", "go")},
        default="go",
    )
    yield cap
    CAPABILITIES.pop("toy")


def test_a_declaration_is_enough_for_a_job_and_a_cli_group(toy):
    assert JOBS["toy.analyze"] == "crseval.reliability.job:JOB"
    runner = CliRunner()
    top = runner.invoke(app, ["--help"])
    assert "toy" in top.output and "A toy capability" in top.output
    group = runner.invoke(app, ["toy", "--help"])
    assert group.exit_code == 0 and "go" in group.output
    # the job's options come from its config model
    assert "--item-col" in runner.invoke(app, ["toy", "go", "--help"]).output


def test_the_shipped_capabilities_and_their_jobs():
    caps = all_capabilities()
    assert set(caps) == {
        "shift",
        "behavior",
        "judge",
        "reliability",
        "serendipity",
        "arena",
        "dialogues",
        "study",
    }
    assert {j for c in caps.values() for j in c.jobs} | {
        "demo",
        "evaluate-crs",
        "shift.known-groups",
        "criterion",
    } == set(JOBS)


def test_a_layer_outside_the_contract_is_refused():
    with pytest.raises(CrsevalError, match="unknown layer"):
        declare_capability("odd", package="crseval.odd", help="", layer="middle")
