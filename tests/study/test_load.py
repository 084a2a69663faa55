"""The load test (issue #93): `crseval study pilot` sends 50 simulated participants at once at one server
process on 127.0.0.1 (the pilot starts it), with a CRS that answers in 0.5 s, on SQLite and on PostgreSQL:
every one completes and no acknowledged message is missing from the database. Bounded: 50 participants,
each at most the study's 6 messages a chat, and a deadline. Timings are the benchmark's
(bench/study_load.py), not asserted here."""

import json

import pytest

from crseval.testing.slow_crs import LOAD_STUDY

from tests.support.cli import crseval

pytestmark = pytest.mark.slow


def test_fifty_participants_at_once_all_complete_and_no_message_is_lost(tmp_path, db_url):
    study = tmp_path / "study.toml"
    study.write_text(LOAD_STUDY)
    args = ["study", "pilot", study, "--users", "50", "--deadline", "300", "--format", "json"]
    if db_url.startswith("postgresql"):
        args += ["--db", db_url]
    res = crseval(*args, env={"CRSEVAL_SLOW_CRS_S": "0.5"})
    summary = json.loads(res.stdout)
    assert summary["completed"] == 50 and summary["did not finish"] == 0, summary
    assert summary["messages lost"] == 0 and summary["messages acknowledged"] >= 50 * 2 * 2
