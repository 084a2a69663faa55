import json

import pandas as pd

from tests.cli.test_cli import crseval

CONFIG = """
seed = 1
sessions = 2
turns = 4
[[models]]
name = "template"
kind = "template"
[[models]]
name = "mine"
kind = "callable"
target = "tests.cli.test_shift_cli:echo_crs"
[judge]
enabled = false
"""


def echo_crs(history):
    return {"text": "How about Heat? It is a crime thriller.", "constraints": {"genres": ["crime"]}}


def test_shift_run_then_score_the_logs(tmp_path):
    cfg = tmp_path / "shift.toml"
    cfg.write_text(CONFIG)
    res = crseval("shift", "run", str(cfg), "--out", str(tmp_path / "run"), "--format", "json")
    payload = json.loads(res.stdout.split("\nreport:")[0])
    assert "tas(" in payload["signature"]
    models = {r["model"] for r in payload["result"]}
    assert models == {"template", "mine"}
    assert (tmp_path / "run" / "records" / "results.jsonl").read_text().count("\n") == 4
    scored = crseval("shift", "score", str(tmp_path / "run"), "--out", str(tmp_path / "scored"))
    assert "tas" in scored.stdout
    assert (tmp_path / "scored" / "report.html").exists()


def test_bad_config_is_one_line_naming_the_key(tmp_path):
    cfg = tmp_path / "bad.toml"
    cfg.write_text(CONFIG.replace('kind = "template"', 'kind = "robot"'))
    res = crseval("shift", "run", str(cfg), "--out", str(tmp_path / "r"), check=False)
    assert res.returncode == 2
    assert "models.0.kind" in res.stderr
    assert "Traceback" not in res.stderr


def test_run_and_score_options(tmp_path):
    cfg = tmp_path / "shift.toml"
    cfg.write_text(CONFIG.replace('sessions = 2', 'sessions = 1'))
    crseval("shift", "run", str(cfg), "--out", str(tmp_path / "run"))
    bad = crseval("shift", "run", str(cfg), "--out", str(tmp_path / "run"), "--executor", "spark", check=False)
    assert bad.returncode == 2
    assert "executor" in bad.stderr
    again = crseval("shift", "run", str(cfg), "--out", str(tmp_path / "run"), "--fresh", "--format", "json")
    assert len(json.loads(again.stdout.split("\nreport:")[0])["result"]) > 0
    crseval("shift", "score", str(tmp_path / "run"), "--out", str(tmp_path / "s"), "--topics", "lda",
            "--judge", "--backend", "scripted")
    sig = json.loads((tmp_path / "s" / "signature.json").read_text())["line"]
    assert "topics=lda(" in sig
    assert "llm.judge.backend:scripted" in sig


def test_validate_a_run_and_refuse_what_is_not_one(tmp_path):
    cfg = tmp_path / "shift.toml"
    cfg.write_text(CONFIG.replace("turns = 4", "turns = 8"))
    crseval("shift", "run", str(cfg), "--out", str(tmp_path / "run"))
    res = crseval("shift", "validate", str(tmp_path / "run"), "--max-turns", "10", "--format", "json")
    rows = {r["model"]: r for r in json.loads(res.stdout.split("\nreport:")[0], parse_constant=lambda c: 1 / 0)["result"]}
    assert set(rows) == {"human (split half)", "template", "mine"}
    assert rows["template"]["shifts_stated"] == 1.0  # the rule-based user states every shift
    out = tmp_path / "run" / "validity"
    assert (out / "tables" / "shift_detector_sweep.csv").exists() and (out / "report.html").exists()
    like = pd.read_csv(out / "tables" / "shift_human_likeness.csv").set_index("source")
    assert like.loc["template", "turns"] == 10  # 16 user turns, sampled down to --max-turns
    bad = crseval("shift", "validate", str(tmp_path), check=False)
    assert bad.returncode == 2 and "no scored sessions" in bad.stderr
    bad = crseval("shift", "validate", str(tmp_path / "run"), "--human", str(cfg), check=False)
    assert bad.returncode == 2 and "not a ReDial or INSPIRED" in bad.stderr
