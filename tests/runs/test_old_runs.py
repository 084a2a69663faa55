"""Run directories written before jobs returned their tables to the runner (tests/fixtures/runs, crseval at
09e3a61 on the bundled sample) still load, and `crseval report` re-renders each to the same report."""

import re
import shutil
from pathlib import Path

import pytest

from crseval.runs.view import load_run
from tests.support.cli import crseval

FIXTURES = Path(__file__).parents[1] / "fixtures" / "runs"
OLD = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())


def _page(path: Path) -> str:
    """The report less the time it was written."""
    return re.sub(r"report written [0-9: -]+", "", path.read_text(encoding="utf-8"))


def test_the_fixtures_are_old_runs():
    assert OLD == ["arena", "dialogues", "reliability", "serendipity", "shift"]
    assert {load_run(FIXTURES / n).signature["git"] for n in OLD} == {"09e3a61"}


@pytest.mark.parametrize("name", OLD)
def test_an_old_run_loads_and_re_renders_identically(name, tmp_path):
    run = tmp_path / name
    shutil.copytree(FIXTURES / name, run)
    crseval("report", str(run))
    assert _page(run / "report.html") == _page(FIXTURES / name / "report.html")
    old = load_run(run)
    assert old.tables and all(len(old.tables[t].columns) for t in old.tables)
