"""A real OpenAI-compatible server: llama.cpp's own (``llama-server``, run by the ``xllamacpp`` wheel the
embedded backend uses) serves the embedded model on 127.0.0.1, and crseval's ``--backend openai`` gets the
same answers from it as the embedded backend gives in process — a judge's probability-weighted ratings and
the serendipity evaluator's."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

import httpx
import pandas as pd
import pytest

from tests.support.cli import crseval

pytestmark = pytest.mark.slow  # loads the embedded model twice (~1.5 min on 2 cores)


@pytest.fixture(scope="module")
def server():
    pytest.importorskip("xllamacpp")
    from crseval.llm.models import resolve_model

    path, _ = resolve_model()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "crseval.llm.llama_server", str(path), str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        for _ in range(240):
            try:
                if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None:
                pytest.fail("llama-server exited while starting")
            time.sleep(0.5)
        else:
            pytest.fail("llama-server did not answer within 2 minutes")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _scores(run) -> pd.Series:
    df = pd.read_csv(run / "tables" / "judge_item_scores.csv")
    return df[df["judge"] != "length baseline"].set_index("item")["score"]


def test_the_server_answers_as_the_embedded_model_does(server, tmp_path):
    judge = ("judge", "meta-eval", "sample", "--aspects", "satisfaction", "--judge", "none")
    judge += ("--limit", "2", "--n-boot", "100")  # two whole dialogues: ~15 s a rating, per backend
    crseval(*judge, "--out", tmp_path / "embedded")
    crseval(*judge, "--backend", "openai", "--model", "qwen", "--base-url", server, "--out", tmp_path / "served")  # fmt: skip
    here, there = _scores(tmp_path / "embedded"), _scores(tmp_path / "served")
    assert len(here) == 2 and there.index.equals(here.index)
    assert (there - here).abs().max() < 0.05, pd.concat([here, there], axis=1)
    seren = ("serendipity", "meta-eval", "sample", "--evaluators", "llm", "--runs", "1")
    seren += ("--sample", "3", "--n-boot", "100", "--format", "json")
    a = crseval(*seren, "--out", tmp_path / "s-embedded")
    b = crseval(*seren, "--backend", "openai", "--model", "qwen", "--base-url", server, "--out", tmp_path / "s-served")  # fmt: skip
    pa = pd.read_csv(tmp_path / "s-embedded" / "tables" / "serendipity_answers.csv")
    pb = pd.read_csv(tmp_path / "s-served" / "tables" / "serendipity_answers.csv")
    assert (pa["llm"] - pb["llm"]).abs().max() < 0.05
    assert json.loads(a.stdout.split("\nreport:")[0])["result"][0]["n"] == 3
    assert json.loads(b.stdout.split("\nreport:")[0])["result"][0]["n"] == 3
