"""`kill -9` of the study server while 20 participants chat (issue #93), then a restart on the same
database: every message the server acknowledged before the kill is in the export, and every participant
resumes where they were and goes on. A real server process on 127.0.0.1 (only a process can be killed),
bounded: 20 participants, at most 40 messages each, a few seconds of chat."""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import httpx
import pytest

from crseval.cli.study import _wait_for
from crseval.study.config import load_study
from crseval.study.db import connect
from crseval.study.export import export
from tests.study import conftest as study_fixtures
from tests.study.conftest import CSRF, FORM

db_url = study_fixtures.db_url  # the fixture: SQLite, and PostgreSQL where one runs

STUDY = """name = "kill"
min_turns = 1
max_turns = 40
[[systems]]
name = "slow"
target = "crseval.testing.slow_crs:respond"
[limits]
min_seconds_between = 0
"""
PEOPLE = 20
pytestmark = pytest.mark.slow  # a real server process, killed and restarted: ~20 s a database


def serve(study, port, db):
    command = [sys.executable, "-m", "crseval.cli.main", "study", "serve", str(study)]
    env = {**os.environ, "CRSEVAL_SLOW_CRS_S": "0.2"}
    proc = subprocess.Popen(
        [*command, "--port", str(port), "--db", db], env=env, stderr=subprocess.PIPE, text=True
    )
    _wait_for(f"http://127.0.0.1:{port}", proc)
    return proc


def chat(client, k, acknowledged, stop):
    """Enrol, then send numbered messages until stopped or the server is gone; note each one acknowledged."""
    page = client.get("/start", params={"PROLIFIC_PID": f"K{k}"})
    page = client.post("/start", data={"csrf": CSRF.search(page.text).group(1), "agree": "yes", "PROLIFIC_PID": f"K{k}"}, follow_redirects=True)  # fmt: skip
    token = str(page.url).rsplit("/", 1)[-1]
    for i in range(40):
        if stop.is_set():
            break
        text = f"message {k}-{i}"
        data = {"csrf": CSRF.search(page.text).group(1), "form": FORM.search(page.text).group(1)}
        try:
            r = client.post(f"/p/{token}/message", data={**data, "text": text})
            if r.status_code == 303:
                acknowledged[k].append(text)
            page = client.get(f"/p/{token}")
        except httpx.HTTPError:
            break
    return token


def test_kill_9_loses_no_acknowledged_message_and_every_participant_resumes(tmp_path, db_url):
    study = tmp_path / "study.toml"
    study.write_text(STUDY)
    db = db_url
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    proc = serve(study, port, db)
    acknowledged = {k: [] for k in range(PEOPLE)}
    stop = threading.Event()
    clients = [httpx.Client(base_url=base, timeout=10) for _ in range(PEOPLE)]
    tokens = {}

    def one(k):
        tokens[k] = chat(clients[k], k, acknowledged, stop)

    threads = [threading.Thread(target=one, args=(k,)) for k in range(PEOPLE)]
    for t in threads:
        t.start()
    time.sleep(4)
    os.kill(proc.pid, signal.SIGKILL)  # mid-chat: some requests are in flight
    proc.wait(10)
    stop.set()
    for t in threads:
        t.join(30)
    assert sum(map(len, acknowledged.values())) >= PEOPLE  # they were chatting when it died
    proc = serve(study, port, db)
    try:
        for k, client in enumerate(clients):
            page = client.get(f"/p/{tokens[k]}")
            assert page.status_code == 200 and 'id="send"' in page.text
            assert all(text in page.text for text in acknowledged[k])  # where they were
            data = {
                "csrf": CSRF.search(page.text).group(1),
                "form": FORM.search(page.text).group(1),
            }
            after = client.post(f"/p/{tokens[k]}/message", data={**data, "text": f"after {k}"})
            assert after.status_code == 303
            acknowledged[k].append(f"after {k}")
    finally:
        proc.terminate()
        proc.wait(10)
        for c in clients:
            c.close()
    out = tmp_path / "export"
    export(connect(db), load_study(study), out)
    exported = {
        u["utterance"]
        for d in json.loads((out / "crs_arena_dial_study.json").read_text())
        for u in d["conversation"]
        if u["participant"] == "USER"
    }
    lost = [t for texts in acknowledged.values() for t in texts if t not in exported]
    assert lost == []
