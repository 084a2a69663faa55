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


# glossary entries whose meaning was corrected since (#63: no name means two things), per run: what the old
# report said → what a re-rendered one says
SYSTEM = "<dt>system <code>system</code></dt><dd>"
USER = "<dt>user <code>user</code></dt><dd>"
OLD_SYSTEM = f"{SYSTEM}the system&#x27;s (CRS) response at the same turn</dd>"
OLD_USER = f"{USER}user id, or the simulated user&#x27;s utterance (shift turns)</dd>"
CORRECTED = {
    "arena": {OLD_SYSTEM: f"{SYSTEM}the CRS the row is about (its name)</dd>"},
    "dialogues": {OLD_SYSTEM: f"{SYSTEM}the CRS the row is about (its name)</dd>"},
    "reliability": {},
    "serendipity": {OLD_USER: f"{USER}user id</dd>"},
    # shift_turns declares its own user: their words (shift_sessions' user is an id); #75: the CRS is
    # `system` in every table, so the shift tables' `model` reads as `system` and the turns' replies as `reply`
    "shift": {
        "<th title='system'>system</th>": "<th title='reply'>reply</th>",
        "<th title='model'>model</th>": "<th title='system'>system</th>",
        "<summary>model ": "<summary>system ",
        "<dt>model <code>model</code></dt><dd>CRS under evaluation</dd>": "",
        "<dt>reversed ": "<dt>reply <code>reply</code></dt><dd>the CRS&#x27;s words at this turn</dd>"
        "<dt>reversed ",
        OLD_SYSTEM: f"{SYSTEM}the CRS the row is about (its name)</dd>",
        OLD_USER: f"{USER}user id</dd>{USER}the simulated user&#x27;s words at this turn</dd>",
    },
}


def _page(path: Path) -> str:
    """The report less the time it was written."""
    return re.sub(r"report written [0-9: -]+", "", path.read_text(encoding="utf-8"))


def _as_corrected(page: str, name: str) -> str:
    for old, new in CORRECTED[name].items():
        assert old in page
        page = page.replace(old, new)
    return page


def test_the_fixtures_are_old_runs():
    assert OLD == ["arena", "dialogues", "reliability", "serendipity", "shift"]
    assert {load_run(FIXTURES / n).signature["git"] for n in OLD} == {"09e3a61"}


@pytest.mark.parametrize("name", OLD)
def test_an_old_run_loads_and_re_renders_identically(name, tmp_path):
    run = tmp_path / name
    shutil.copytree(FIXTURES / name, run)
    crseval("report", str(run))
    before = _as_corrected(_page(FIXTURES / name / "report.html"), name)
    assert _page(run / "report.html") == before
    old = load_run(run)
    assert old.tables and all(len(old.tables[t].columns) for t in old.tables)


def test_an_old_shift_run_reads_under_todays_names():
    """The shift tables of 0.2 named the CRS `model` and its words `system`: they read as `system` and
    `reply`, as a run of today writes them, and today's tables are left as they are."""
    from crseval.runs.view import renames

    old = load_run(FIXTURES / "shift")
    turns, sessions = old.tables["shift_turns"], old.tables["shift_sessions"]
    assert {"system", "reply"} <= set(turns.columns) and "model" not in turns
    assert set(turns["system"]) == set(sessions["system"]) == {
        "echo", "forgetter", "hallucinator", "laggard", "stubborn", "template"
    }  # fmt: skip
    assert turns["reply"].str.len().mean() > 20  # words, not names
    today = ["system", "session", "turn", "user", "reply", "event"]
    assert renames("shift_turns", today) == {} == renames("shift_sessions", ["system", "session"])
