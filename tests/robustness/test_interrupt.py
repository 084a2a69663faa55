"""Ctrl-C (SIGINT) and SIGTERM stop a real `crseval shift run` within seconds while LLM requests are in
flight — exit 130, one line saying how to resume — and the resumed run ends with every session exactly
once. The embedded model's worker dies with its parent however the parent ends."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from crseval.testing.fake_server import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[2]
SESSIONS = 6


def _config(path: Path, url: str) -> Path:
    llm = f'{{ backend = "openai", model = "fake", base_url = "{url}", api_key_env = "NO_KEY_NEEDED" }}'
    path.write_text(f"""seed = 3
sessions = {SESSIONS}
turns = 4
workers = 2
n_boot = 50
[[models]]
name = "llm"
llm = {llm}
[judge]
aspects = ["coherence"]
judges = [{{ name = "j", llm = {llm} }}]
""")
    return path


def _run(cfg: Path, out: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "crseval.cli.main", "shift", "run", str(cfg), "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def _sessions(out: Path) -> list[str]:
    p = out / "records" / "results.jsonl"
    return [json.loads(line)["key"] for line in p.read_text().splitlines()] if p.exists() else []


@pytest.mark.parametrize(  # the same handler: SIGINT in the fast set, SIGTERM with the slow tests
    "sig", [signal.SIGINT, pytest.param(signal.SIGTERM, marks=pytest.mark.slow)]
)
def test_a_signal_stops_the_run_within_seconds_and_the_rerun_completes_it(tmp_path, sig):
    with FakeOpenAIServer(latency_s=0.15) as srv:  # requests in flight when the signal comes
        cfg, out = _config(tmp_path / "shift.toml", srv.base_url), tmp_path / "run"
        proc = _run(cfg, out)
        deadline = time.monotonic() + 120
        while not _sessions(out) and time.monotonic() < deadline:  # let at least one session finish
            time.sleep(0.2)
        assert _sessions(out), "no session finished"
        sent = time.monotonic()
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 130
        assert time.monotonic() - sent < 10
        assert "run the same command to resume" in err
        assert "Traceback" not in err
        done_before = _sessions(out)
        assert len(done_before) < SESSIONS  # it stopped early
        rerun = _run(cfg, out)
        _, err = rerun.communicate(timeout=300)
        assert rerun.returncode == 0, err
    keys = _sessions(out)
    assert sorted(keys) == sorted(f"llm|{s}" for s in range(SESSIONS))  # every session exactly once
    assert keys[: len(done_before)] == done_before


def test_a_worker_dies_with_its_parent_even_after_sigkill(tmp_path):
    child_pid, ready = tmp_path / "child.pid", tmp_path / "watchdog.ready"
    parent = f"""
import subprocess, sys, time
code = ("import os, sys, time; from crseval.llm.llamacpp_worker import exit_with_parent; "
        "exit_with_parent(os.getppid(), 0.2); open(sys.argv[1], 'w').close(); time.sleep(60)")
p = subprocess.Popen([sys.executable, "-c", code, {str(ready)!r}])
open({str(child_pid)!r}, "w").write(str(p.pid))
time.sleep(60)
"""
    proc = subprocess.Popen(
        [sys.executable, "-c", parent], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}
    )
    deadline = time.monotonic() + 30
    while not child_pid.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    while (
        not ready.exists() and time.monotonic() < deadline + 30
    ):  # the child has started its watchdog
        time.sleep(0.1)  # (a loaded machine imports slowly)
    assert ready.exists(), "the child never started its watchdog"
    pid = int(child_pid.read_text())
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        os.kill(pid, signal.SIGKILL)
        pytest.fail("the worker outlived its parent")
