"""A real subprocess is killed with SIGKILL at random points; resuming must end with every record
present exactly once and equal to an uninterrupted run."""
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

TARGET = Path(__file__).with_name("kill_target.py")
N = 60


def run(run_dir, latency=0.03, kill_after=None):
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.Popen([sys.executable, str(TARGET), str(run_dir), str(N), str(latency)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    if kill_after is None:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()[-2000:]
        return True
    time.sleep(kill_after)
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        return False
    return proc.returncode == 0


def records(run_dir):
    lines = (Path(run_dir) / "records" / "judgments.jsonl").read_text().splitlines()
    return [json.loads(x) for x in lines]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sigkill_then_resume_equals_uninterrupted_run(tmp_path, seed):
    reference = tmp_path / "reference"
    t0 = time.perf_counter()
    run(reference)
    duration = time.perf_counter() - t0  # kill points are drawn inside a typical run's lifetime
    expected = {r["key"]: r["score"] for r in records(reference)}
    assert len(expected) == N

    rng = random.Random(seed)
    victim = tmp_path / "killed"
    kills = 0
    for _ in range(30):  # bounded: each round either finishes or is killed after a random delay
        if run(victim, kill_after=rng.uniform(0.3, 0.9) * duration):
            break
        kills += 1
    else:
        run(victim)
    assert kills >= 1, "the run finished before any kill: raise the latency"
    got = records(victim)
    keys = [r["key"] for r in got]
    assert len(keys) == len(set(keys)) == N  # every record exactly once
    assert {r["key"]: r["score"] for r in got} == expected  # identical to the uninterrupted run
