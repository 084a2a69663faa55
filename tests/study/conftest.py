"""A study server in process (Starlette's test client) over a fresh database: SQLite in the test's folder,
and PostgreSQL too where ``CRSEVAL_TEST_POSTGRES`` names a server (``postgresql://USER@HOST/postgres``;
`.ci/run` starts one): each test gets a database of its own there."""

from __future__ import annotations

import os
import re
import uuid

import pytest

POSTGRES = os.environ.get("CRSEVAL_TEST_POSTGRES")
CSRF = re.compile(r'name="csrf" value="([^"]+)"')
FORM = re.compile(r'name="form" value="([^"]+)"')


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'study.sqlite'}"
        return
    if not POSTGRES:
        if os.environ.get("CI") == "true":  # CI starts one: its absence is a failure there
            pytest.fail("CRSEVAL_TEST_POSTGRES is not set: .ci/run did not start PostgreSQL")
        pytest.skip("no PostgreSQL server (CRSEVAL_TEST_POSTGRES; .ci/run starts one)")
    import psycopg

    name = f"crseval_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(POSTGRES, autocommit=True) as c:
        c.execute(f'CREATE DATABASE "{name}"')
    yield POSTGRES.rsplit("/", 1)[0] + f"/{name}"
    with psycopg.connect(POSTGRES, autocommit=True) as c:
        c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def echo_crs(history):
    return f"How about Heat? You said: {history[-1]['text']}"


def template_like(history):
    return "How about The Matrix (1999)? A sci-fi classic."


STUDY = {
    "name": "toy",
    "pairs": True,
    "target": 4,
    "min_turns": 2,
    "max_turns": 4,
    "systems": [
        {"name": "echo", "target": "tests.study.conftest:echo_crs"},
        {"name": "matrix", "target": "tests.study.conftest:template_like"},
    ],
    "limits": {"min_seconds_between": 0, "crs_timeout_s": 2},
    "questionnaire": {"crs_que": ["accuracy", "satisfaction"]},
}


def make_client(tmp_path, db_url, secret=None, **overrides):
    """(a test client of the study's server, its config, its engine)."""
    from starlette.testclient import TestClient

    from crseval.study.config import study_from
    from crseval.study.db import check_study, connect
    from crseval.study.server import make_app

    config = study_from({**STUDY, **overrides}, tmp_path)
    engine = connect(db_url)
    check_study(engine, config.digest, config.version)
    return TestClient(make_app(config, engine, secret)), config, engine


def one_system(tmp_path, db_url, target: str, **limits):
    """A study of one CRS (``module:function``), no pairs, no wait between messages unless ``limits``."""
    system = {"name": target.rsplit(":", 1)[-1].replace("_", "-"), "target": target}
    limits = {"min_seconds_between": 0, **limits}
    return make_client(tmp_path, db_url, pairs=False, systems=[system], limits=limits)


def enrol(client, pid="P1"):
    """Through the welcome page and consent: (the participant's page, their token)."""
    start = client.get("/start", params={"PROLIFIC_PID": pid, "STUDY_ID": "S", "SESSION_ID": "X"})
    csrf = CSRF.search(start.text).group(1)
    data = {"csrf": csrf, "agree": "yes", "PROLIFIC_PID": pid, "STUDY_ID": "S", "SESSION_ID": "X"}
    page = client.post("/start", data=data)
    assert page.status_code == 200, page.text
    return page, str(page.url).rsplit("/", 1)[-1]


def say(client, token, text, page=None):
    """Send one message from the chat page (its CSRF and form nonce); the response after the redirect."""
    page = page or client.get(f"/p/{token}")
    data = {"csrf": CSRF.search(page.text).group(1), "form": FORM.search(page.text).group(1)}
    return client.post(f"/p/{token}/message", data={**data, "text": text})


def answer(client, token, attention="4"):
    page = client.get(f"/p/{token}")
    data = {"csrf": CSRF.search(page.text).group(1), "q_accuracy": "4", "q_satisfaction": "5"}
    data |= {"q_attention": attention, "q_sentiment": "satisfied", "q_feedback": "fine"}
    return client.post(f"/p/{token}/answers", data=data)
