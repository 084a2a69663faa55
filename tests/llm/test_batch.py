"""Batch files: export the requests a run still needs, answer them elsewhere (a stand-in engine), import the
answers — then the same command completes with zero new calls (its server is not even reachable)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from tests.support.batch import answer_file
from tests.support.cli import crseval

UNREACHABLE = ("--backend", "openai", "--model", "m", "--base-url", "http://127.0.0.1:9/v1")


def _rounds(args, tmp_path, run, most=12):
    """Export, answer, import until nothing is left; returns the number of rounds that asked something."""
    for k in range(1, most + 1):
        file = tmp_path / f"round-{k}.jsonl"
        res = crseval(*args, "--batch-export", file, "--out", run)
        if "nothing left to ask" in res.stderr:
            return k - 1
        assert f"batch round {k}:" in res.stderr
        out = tmp_path / f"answers-{k}.jsonl"
        n = answer_file(file, out)
        done = crseval("llm", "batch-import", out, "--run", run)
        assert f"imported {n} answer(s)" in done.stdout
    raise AssertionError("the rounds did not end")


def test_a_judged_run_exports_once_and_then_runs_from_the_answers(tmp_path):
    run = tmp_path / "run"
    args = ("judge", "meta-eval", "sample", "--aspects", "satisfaction", *UNREACHABLE)
    file = tmp_path / "requests.jsonl"
    crseval(*args, "--batch-export", file, "--out", run)
    rows = [json.loads(x) for x in file.read_text().splitlines()]
    assert len(rows) == 8 and {r["url"] for r in rows} == {"/v1/chat/completions"}
    body = rows[0]["body"]
    assert (
        body["model"] == "m" and body["logprobs"] and body["top_logprobs"] == 20
    )  # digit probabilities
    assert len({r["custom_id"] for r in rows}) == 8
    assert (
        _rounds(args, tmp_path, run) == 1
    )  # the first export is repeated as round 1, then nothing
    res = crseval(*args, "--out", run, "--format", "json")
    rows = json.loads(res.stdout.split("\nreport:")[0])["result"]
    llm = next(r for r in rows if r["judge"] != "length baseline")
    assert llm["n"] == 8 and llm["failed"] == 0  # every rating came from the imported answers


def test_a_shift_run_with_an_llm_user_and_crs_exports_in_rounds(tmp_path):
    """The LLM CRS answers what the LLM-written user said, so each turn is a round of its own."""
    llm = 'backend = "openai"\nmodel = "m"\nbase_url = "http://127.0.0.1:9/v1"\n'
    cfg = tmp_path / "shift.toml"
    cfg.write_text(
        "sessions = 2\nturns = 2\nworkers = 1\nn_boot = 100\n"
        f'[[models]]\nname = "llm-crs"\nkind = "llm"\n[models.llm]\n{llm}'
        f"[simulator.drift]\n{llm}[judge]\nenabled = false\n"
    )
    run = tmp_path / "run"
    rounds = _rounds(("shift", "run", cfg), tmp_path, run)
    assert rounds >= 2
    crseval("shift", "run", cfg, "--out", run)
    sessions = pd.read_csv(run / "tables" / "shift_sessions.csv")
    assert len(sessions) == 2 and not sessions["failed"].any()


def test_import_reports_failed_lines_and_refuses_a_broken_file(tmp_path):
    run = tmp_path / "run"
    args = ("judge", "meta-eval", "sample", "--aspects", "satisfaction", *UNREACHABLE)
    file = tmp_path / "requests.jsonl"
    crseval(*args, "--batch-export", file, "--out", run)
    out = tmp_path / "answers.jsonl"
    answer_file(file, out, fail={2})
    res = crseval("llm", "batch-import", out, "--run", run, check=False)
    assert res.returncode == 1 and "imported 7 answer(s)" in res.stdout
    assert "line 2: HTTP 500" in res.stderr
    again = crseval(*args, "--batch-export", tmp_path / "next.jsonl", "--out", run)
    assert "1 request(s) written" in again.stderr  # only the failed one is asked again
    broken = tmp_path / "broken.jsonl"
    broken.write_text(out.read_text() + "{not json\n")
    res = crseval("llm", "batch-import", broken, "--run", run, check=False)
    assert (
        res.returncode == 2
        and "line 9 is not JSON" in res.stderr
        and "nothing was imported" in res.stderr
    )
    res = crseval("llm", "batch-import", out, "--run", tmp_path, check=False)
    assert res.returncode == 2 and "exported no batch" in res.stderr


@pytest.mark.parametrize(
    "command",
    [("serendipity", "meta-eval", "sample", "--evaluators", "llm", "--runs", "1", "--sample", "6")],
)
def test_other_llm_commands_take_the_same_round_trip(tmp_path, command):
    run = tmp_path / "run"
    assert _rounds((*command, *UNREACHABLE), tmp_path, run) == 1
    res = crseval(*command, *UNREACHABLE, "--out", run, "--format", "json")
    rows = json.loads(res.stdout.split("\nreport:")[0])["result"]
    assert next(r for r in rows if r["evaluator"] == "llm")["n"] == 6


@pytest.mark.slow  # the real Serendipity-2018 study: 20 s
def test_the_serendipity_reproduction_takes_the_round_trip(shared, tmp_path):
    """`serendipity reproduce` on a seeded sample of the real Serendipity-2018 study (the paper's Table 2), in
    the paper's setting (examples/llm/sereneva_paper.toml): every prompt at temperature 1e-5, asked five
    times with five seeds, the few-shot prompt after five other users' answers."""
    study = shared("serendipity/serendipity2018")
    paper = (Path(__file__).parents[2] / "examples" / "llm" / "sereneva_paper.toml").read_text()
    config = tmp_path / "paper.toml"
    config.write_text(paper.replace("127.0.0.1:8000", "127.0.0.1:9"))  # nothing answers there
    command = ("serendipity", "reproduce", "--serendipity2018", study, "--sample", "5")
    command += ("--parts", "table2", "--n-boot", "100", "--llm-config", config)
    run = tmp_path / "run"
    crseval(*command, "--batch-export", tmp_path / "first.jsonl", "--out", run)
    bodies = [json.loads(line)["body"] for line in open(tmp_path / "first.jsonl", encoding="utf-8")]
    # the paper's prompts (crseval's own evaluator, asked beside them, keeps its temperature 0)
    bodies = [b for b in bodies if b["messages"][0]["content"].endswith("one recommendation.")]
    assert {b["temperature"] for b in bodies} == {1e-5}
    asked: dict[str, list[int]] = {}
    for b in bodies:
        asked.setdefault(json.dumps(b["messages"]), []).append(b["seed"])
    assert all(sorted(seeds) == [0, 1, 2, 3, 4] for seeds in asked.values())
    few = [json.loads(m) for m in asked if len(json.loads(m)) > 2]
    assert len(few) == 5 and all(
        len(m) == 12 for m in few
    )  # system, 5 × (example, its answer), the target
    assert all(m[2]["role"] == "assistant" and m[2]["content"] in "12345" for m in few)
    assert _rounds((*command,), tmp_path, run) >= 1
    res = crseval(*command, "--out", run)  # exit 0: nothing failed
    usage = pd.read_csv(run / "tables" / "llm_usage.csv")
    assert usage["requests"].sum() == 0 and usage["cache_hits"].sum() > 0  # every answer imported
    table2 = pd.read_csv(run / "tables" / "serendipity_table2.csv").set_index("evaluator")
    assert (
        table2.loc["sereneva-fewshot", "n"] == 5 and "150 already cached, 0 to make" in res.stderr
    )
