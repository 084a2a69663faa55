"""A preference-shift run whose CRS and judge talk to a fault-injecting OpenAI-compatible server
(30 % timeouts, 429/500/503, dropped connections, empty content, truncated JSON, out-of-scale ratings);
a grep of everything the run wrote for the API key; run directories that never write outside."""

import json
from pathlib import Path

import pandas as pd
import pytest

from crseval import evaluate
from crseval.adaptation.config import ShiftConfig
from crseval.core.config import load_config, validate
from crseval.core.errors import ConfigError, CrsevalError
from crseval.testing.fake_server import FakeOpenAIServer
from crseval.runs import RunStore

SECRET = "sk-robustness-test-0123456789abcdef"


def config(url: str, **kw) -> ShiftConfig:
    llm = {
        "backend": "openai",
        "model": "fake",
        "base_url": url,
        "api_key_env": "CRSEVAL_TEST_KEY",
        "timeout_s": 1.0,
        "max_retries": 6,
        "concurrency": 4,
    }
    return validate(
        ShiftConfig,
        {
            "seed": 2,
            "sessions": 6,
            "turns": 4,
            "workers": 3,
            "n_boot": 100,
            "models": [{"name": "llm", "llm": llm}, {"name": "template", "kind": "template"}],
            "judge": {"judges": [{"name": "j", "llm": llm}]},
            **kw,
        },
    )


@pytest.fixture(scope="module")
def faulty_run(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("CRSEVAL_TEST_KEY", SECRET)
    out = tmp_path_factory.mktemp("faults") / "run"
    with FakeOpenAIServer(fault_rate=0.3, seed=11, hang_s=1.5) as srv:
        evaluate("shift.run", config(srv.base_url), out=out)
        injected = dict(srv.injected)
        headers = list(srv.headers)
    mp.undo()
    return out, injected, headers


def test_run_completes_and_judge_outputs_are_parsed(faulty_run):
    out, injected, _ = faulty_run
    assert sum(injected.values()) >= 20 and len(injected) >= 5, (
        injected
    )  # many kinds of faults really happened
    store = RunStore(out)
    assert len(store.records("results")) == 12  # every session present, whatever happened
    judgments = store.records("shift_judgments")
    parsed = sum(r["score"] is not None for r in judgments)
    assert parsed / len(judgments) >= 0.99, [r["error"] for r in judgments if r["score"] is None]
    assert all(1 <= r["score"] <= 5 for r in judgments if r["score"] is not None)
    assert any(r["attempts"] > 1 for r in judgments)  # transient faults were retried
    usage = pd.read_csv(store.path("tables", "llm_usage.csv"))
    assert usage["retries"].sum() > 0
    sessions = pd.read_csv(store.path("tables", "shift_sessions.csv"))
    failed = sessions[sessions["failed"]]
    for (
        _,
        row,
    ) in failed.iterrows():  # a session whose CRS call failed for good is recorded and excluded
        assert row["error"]
    html = store.path("report.html").read_text()
    assert "LLM judge:" in html
    assert "none failed" in html or "excluded from the statistics" in html


def test_the_api_key_is_sent_but_never_written(faulty_run):
    out, _, headers = faulty_run
    assert any(h.get("Authorization") == f"Bearer {SECRET}" for h in headers)
    files = [p for p in Path(out).rglob("*") if p.is_file()]
    assert any(p.suffix == ".sqlite" for p in files)
    assert any(p.name == "report.html" for p in files)
    for p in files:
        assert SECRET.encode() not in p.read_bytes(), p


def test_an_api_key_in_a_config_is_refused(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('[[models]]\nname = "m"\nllm = { backend = "openai", api_key = "sk-123" }\n')
    with pytest.raises(ConfigError) as e:
        load_config(cfg, ShiftConfig)
    assert "api_key" in str(e.value)
    assert "environment" in str(e.value)


def test_run_directory_stays_inside_itself(tmp_path):
    before = {p for p in tmp_path.rglob("*")}
    out = tmp_path / "run"
    evaluate(
        "shift.run",
        {
            "sessions": 2,
            "turns": 3,
            "n_boot": 50,
            "models": [{"name": "t", "kind": "template"}],
            "judge": {"enabled": False},
        },
        out=out,
    )
    new = {p for p in tmp_path.rglob("*")} - before
    assert new
    assert all(p == out or out in p.parents for p in new)
    store = RunStore(out)
    for bad in ("../escape.csv", "/etc/passwd", "tables/../../x"):
        with pytest.raises(CrsevalError):
            store.path(bad)


@pytest.mark.parametrize("name", ["../evil", "a/b", "", ".hidden", "x" * 65])
def test_model_names_cannot_become_paths(name):
    with pytest.raises(ConfigError):
        validate(ShiftConfig, {"models": [{"name": name, "kind": "template"}]})


def test_relative_kb_paths_resolve_against_the_config_file(tmp_path):
    (tmp_path / "cfg").mkdir()
    cfg = tmp_path / "cfg" / "s.toml"
    cfg.write_text('kb = "../kb.json"\n[[models]]\nname = "t"\nkind = "template"\n')
    resolved = load_config(cfg, ShiftConfig).resolved(cfg.parent)
    assert resolved.kb == str((tmp_path / "kb.json").resolve())
    json.dumps(resolved.model_dump())  # a plain, serialisable config
