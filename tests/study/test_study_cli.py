"""`crseval study …` as a user meets it: bad input is one line and exit 2 through every command; status
and export in every format."""

import json

import pytest

from tests.support.cli import crseval

GOOD = """name = "cli"
[[systems]]
name = "echo"
target = "tests.study.conftest:echo_crs"
"""


@pytest.mark.parametrize(
    "text, says",
    [
        ("votes = 3\n" + GOOD, "unknown key 'votes'"),
        (GOOD.replace('name = "cli"', 'name = "a b"'), "field 'name'"),
        ('name = "x"\n', "a chat study needs [[systems]]"),
        ("pairs = true\n" + GOOD, "pairs = true needs two systems"),
        (GOOD + "[questionnaire]\ncrs_que = ['accurcy']\n", "unknown CRS-Que dimension 'accurcy'"),
        (GOOD + "[completion.completed]\ncode = 'x y'\n", "completion"),
        ("name = [", "invalid TOML"),
    ],
)
def test_a_bad_study_file_is_one_line_in_every_command(tmp_path, text, says):
    study = tmp_path / "study.toml"
    study.write_text(text)
    for command in (["status"], ["export", "--out", tmp_path / "out"], ["serve"], ["pilot"]):
        res = crseval("study", command[0], study, *command[1:], check=False)
        lines = [x for x in res.stderr.splitlines() if x.strip()]
        assert res.returncode == 2 and len(lines) == 1 and says in lines[0], (command, res.stderr)


def test_a_bad_database_or_target_is_one_line(tmp_path):
    study = tmp_path / "study.toml"
    study.write_text(GOOD)
    for db, says in (
        ("nonsense", "not a database URL"),
        ("postgresql://nobody@127.0.0.1:9/none", "cannot open database"),
    ):
        res = crseval("study", "status", study, "--db", db, check=False)
        assert res.returncode == 2 and says in res.stderr and "Traceback" not in res.stderr
    study.write_text(GOOD.replace("conftest:echo_crs", "conftest:no_such_crs"))
    res = crseval(
        "study", "serve", study, "--db", f"sqlite:///{tmp_path / 'db.sqlite'}", check=False
    )
    assert res.returncode == 2 and "no_such_crs" in res.stderr
    study.write_text(GOOD)
    res = crseval("study", "serve", study, "--workers", "2", check=False)  # SQLite: one process
    assert res.returncode == 2 and "--db postgresql://" in res.stderr
    res = crseval("study", "nothing-here.toml", check=False)
    assert res.returncode == 2


def test_status_and_export_in_json_and_a_changed_questionnaire_needs_a_new_version(tmp_path):
    study = tmp_path / "study.toml"
    study.write_text(GOOD)
    status = json.loads(crseval("study", "status", study, "--format", "json").stdout)
    assert status["funnel"]["consented"] == 0 and status["arms"][0]["target"] == 30
    summary = json.loads(
        crseval("study", "export", study, "--out", tmp_path / "out", "--format", "json").stdout
    )
    assert summary["participants"] == 0 and (tmp_path / "out" / "about" / "codebook.md").is_file()
    study.write_text(GOOD + "[questionnaire]\ncrs_que = ['novelty']\n")
    res = crseval("study", "status", study, check=False)
    assert res.returncode == 2 and "raise the study's version" in res.stderr
    study.write_text('version = "2"\n' + GOOD + "[questionnaire]\ncrs_que = ['novelty']\n")
    assert crseval("study", "status", study).returncode == 0
