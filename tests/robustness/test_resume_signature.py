"""A report card interrupted (SIGINT) at several points and resumed signs exactly as one run straight
through, in another folder: records appended in another order and another --out are not content."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SMALL = ["--no-llm", "--sessions", "10", "--turns", "4", "--n-boot", "100"]


def _card(out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "crseval.cli.main",
        "evaluate-crs",
        "examples/my_crs.py",
        *SMALL,
        "--out",
        str(out),
    ]


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT), "CRSEVAL_FIGURES": "none"}


@pytest.mark.slow  # four cards in subprocesses: ~80 s
def test_an_interrupted_and_resumed_card_signs_like_an_uninterrupted_one(tmp_path):
    straight, resumed = tmp_path / "straight", tmp_path / "resumed"
    subprocess.run(_card(straight), cwd=ROOT, env=_env(), check=True, capture_output=True)
    # stop it while the sessions are being written, after the dialogue measures, inside behavior alignment
    for mark in ("shift/records/results.jsonl", "dialogues/signature.json", "behavior/template"):
        if (resumed / mark).exists():
            continue  # the run got past this point before the last interrupt took effect
        proc = subprocess.Popen(
            _card(resumed), cwd=ROOT, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 120
        while not (resumed / mark).exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
        # 130: stopped by crseval's handler; -SIGINT: stopped before Python set its handlers up
        assert proc.returncode in (0, 130, -signal.SIGINT)
    subprocess.run(_card(resumed), cwd=ROOT, env=_env(), check=True, capture_output=True)
    line = lambda run: json.loads((run / "signature.json").read_text())["line"]  # noqa: E731
    assert line(resumed) == line(straight)
