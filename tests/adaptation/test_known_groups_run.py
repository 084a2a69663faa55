"""`shift run --known-groups`: the reference CRSs join a run, and every metric's known-groups verdict is
reported beside it, measured in that run."""

import json
from pathlib import Path

import pandas as pd

from crseval.adaptation.config import ShiftConfig
from crseval.adaptation.known_groups import GROUPS
from crseval.stats.paired import MIN_GROUP
from tests.support.cli import crseval

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _config(tmp_path: Path) -> Path:
    path = tmp_path / "run.toml"
    path.write_text(
        f"""seed = 2
sessions = 8
turns = 6
workers = 2
n_boot = 100

[[models]]
name = "mine"
kind = "callable"
target = "my_crs:respond"
folder = "{EXAMPLES}"

[judge]
enabled = false
"""
    )
    return path


def test_the_references_join_the_models_the_run_lacks():
    base = {"sessions": 2, "turns": 3, "judge": {"enabled": False}}
    mine = {"name": "template", "kind": "template"}  # the user's own model of that name stays
    cfg = ShiftConfig.model_validate({**base, "models": [mine], "known_groups": True})
    assert "anchored" in GROUPS and "lister" not in GROUPS  # a follower is no known group
    assert [m.name for m in cfg.models] == list(GROUPS)
    assert cfg.models[0].kind == "template" and cfg.models[1].kind == "reference"
    again = ShiftConfig.model_validate(
        cfg.model_dump(mode="json")
    )  # config.json read back: unchanged
    assert again.models == cfg.models
    assert len(ShiftConfig.model_validate({**base, "models": [mine]}).models) == 1


def test_a_run_with_known_groups_reports_each_metrics_verdict(tmp_path):
    out = tmp_path / "run"
    res = crseval("shift", "run", _config(tmp_path), "--known-groups", "--out", out)
    assert "known groups (this run):" in res.stdout + res.stderr
    said = " ".join((res.stdout + res.stderr).split())  # the terminal wraps notes
    assert "Simulated users (crseval's realistic users): told from real CRS users at AUC" in said
    summary = pd.read_csv(out / "tables" / "known_groups_summary.csv").set_index("metric")
    assert summary.loc["shift.follow.hallucination_rate", "verdict"] == "passes"
    assert summary.loc["shift.tas", "reversed"] >= 1  # TAS's failure, seen in this very run
    models = json.loads((out / "config.json").read_text())["config"]["models"]
    assert [m["name"] for m in models] == ["mine", *GROUPS]
    sessions = pd.read_csv(out / "tables" / "shift_sessions.csv")
    assert set(sessions["system"]) == {"mine", *GROUPS}
    assert "Known groups in this run" in (out / "report.html").read_text()


def test_a_run_whose_users_an_llm_rewrites_does_not_quote_the_shipped_panel(tmp_path):
    """The shipped figures are the book's own words; rewritten users are measured or not quoted (#73)."""
    config = tmp_path / "run.toml"
    config.write_text(
        """seed = 2
sessions = 2
turns = 3
n_boot = 50
[simulator.drift]
backend = "scripted"
[[models]]
name = "template"
kind = "template"
[judge]
enabled = false
"""
    )
    res = crseval("shift", "run", config, "--known-groups", "--out", tmp_path / "run")
    said = " ".join((res.stdout + res.stderr).split())
    assert "Simulated users (crseval's realistic users, rewritten by an LLM): not compared" in said
    assert "shift validate RUN --human" in said and "told from real CRS users at AUC" not in said


def test_fewer_sessions_than_a_verdict_needs_give_none(tmp_path):
    """Issue #92: 2 sessions a system printed 'held 1.00 [1.00, 1.00]'."""
    path = _config(tmp_path)
    path.write_text(path.read_text().replace("sessions = 8", f"sessions = {MIN_GROUP - 2}"))
    out = tmp_path / "run"
    crseval("shift", "run", path, "--known-groups", "--out", out)
    pairs = pd.read_csv(out / "tables" / "known_groups.csv")
    assert set(pairs["verdict"]) == {"too few"}
    summary = pd.read_csv(out / "tables" / "known_groups_summary.csv")
    assert set(summary["verdict"]) == {"too few sessions"} and not summary["held"].any()
