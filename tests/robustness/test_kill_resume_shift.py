"""A real `crseval shift run` process is killed with SIGKILL at random points (several seeds); resuming
must end with every session present exactly once, identical to an uninterrupted run, and a torn
last line reported."""

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import crseval

ROOT = Path(__file__).resolve().parents[2]
SESSIONS = 12
CONFIG = f"""
seed = 5
sessions = {SESSIONS}
turns = 6
workers = 2
[[models]]
name = "slow"
kind = "callable"
target = "crseval.testing.crs:slow"
[[models]]
name = "template"
kind = "template"
[judge]
judges = [{{ name = "j", llm = {{ backend = "scripted" }} }}]
"""


def results(run_dir: Path) -> Path:
    return run_dir / "records" / "results.jsonl"


def lines(run_dir: Path) -> int:
    p = results(run_dir)
    return p.read_bytes().count(b"\n") if p.exists() else 0


def start(cfg: Path, run_dir: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "crseval.cli.main", "shift", "run", str(cfg), "--out", str(run_dir)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
    )


def run_to_end(cfg: Path, run_dir: Path) -> None:
    proc = start(cfg, run_dir)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err.decode()[-2000:]


def kill_at(cfg: Path, run_dir: Path, k: int) -> bool:
    """SIGKILL as soon as k sessions are recorded (on progress, not a clock); False if it finished first."""
    proc = start(cfg, run_dir)
    deadline = time.time() + 300
    while proc.poll() is None and time.time() < deadline:  # bounded wait
        if lines(run_dir) >= k:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            return True
        time.sleep(0.002)
    proc.communicate(timeout=30)
    return False


def by_key(run_dir: Path) -> dict:
    recs = [json.loads(x) for x in results(run_dir).read_text().splitlines()]
    keys = [r["key"] for r in recs]
    assert len(keys) == len(set(keys)), "a session was recorded twice"
    return {r["key"]: (r["turns"], r["tas"]["tas"], r.get("judge")) for r in recs}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    d = tmp_path_factory.mktemp("ref")
    cfg = d / "shift.toml"
    cfg.write_text(CONFIG)
    crseval.evaluate(
        "shift.run", cfg, out=d / "run"
    )  # the uninterrupted run needs no process of its own
    ref = by_key(d / "run")
    assert len(ref) == 2 * SESSIONS
    return cfg, ref


@pytest.mark.slow  # a process per kill (23 s); tests/runs/test_kill_resume.py kills a run in the fast set
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sigkill_then_resume_equals_uninterrupted_run(tmp_path, reference, seed):
    cfg, ref = reference
    rng = random.Random(seed)
    victim = tmp_path / "run"
    kills = 0
    for _ in range(3):
        done = lines(victim)
        if done >= 2 * SESSIONS - 4:
            break
        if not kill_at(cfg, victim, rng.randint(done + 1, 2 * SESSIONS - 4)):
            break
        kills += 1
    assert kills >= 1
    # simulate the worst moment of a kill: a half-written last record
    with open(results(victim), "ab") as fh:
        fh.write(b'{"key": "slow|999", "turns": [{"us')
    run_to_end(cfg, victim)
    assert by_key(victim) == ref
    log = (victim / "run.log").read_text()
    assert "torn" in log
    assert "WARNING" in log
    assert "torn" in (victim / "report.html").read_text()  # warnings are shown in the report
