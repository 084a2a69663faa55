"""Hostile input, each case its own test: a clear refusal or an escaped display, and a refused request
writes nothing (the database's rows are counted before and after)."""

import base64

import pytest
from sqlalchemy import func, select

from crseval.study.db import answers, participants, turns, votes
from tests.study.conftest import CSRF, FORM, answer, enrol, make_client, one_system, say

MARKUP = '<script>window.__pwned=1</script><img src=x onerror="alert(1)">'


def rows(engine):
    with engine.connect() as c:
        return {t.name: c.execute(select(func.count()).select_from(t)).scalar() for t in (participants, turns, answers, votes)}  # fmt: skip


def markup_crs(history):
    return MARKUP + " & How about Heat?"


def hanging_crs(history):
    import time

    time.sleep(30)
    return "too late"


@pytest.fixture
def study(tmp_path, db_url):
    return make_client(tmp_path, db_url, secret="s3cr3t-monitor-password")


def test_markup_in_a_message_is_shown_as_text(study):
    client, _, _ = study
    _, token = enrol(client)
    page = say(client, token, MARKUP)
    assert (
        "<script>window.__pwned" not in page.text
        and "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in page.text
    )
    assert "<img src=x" not in page.text


def test_markup_in_a_crs_reply_is_shown_as_text(tmp_path, db_url):
    client, _, _ = one_system(tmp_path, db_url, "tests.study.test_hostile:markup_crs")
    _, token = enrol(client)
    page = say(client, token, "hi")
    assert (
        "<script>" not in page.text
        and "&lt;script&gt;" in page.text
        and "&amp; How about Heat?" in page.text
    )
    assert (
        "default-src 'none'" in page.headers["content-security-policy"]
    )  # and no script could run


def test_an_oversized_message_is_refused_and_writes_nothing(study):
    client, config, engine = study
    _, token = enrol(client)
    before = rows(engine)
    page = say(client, token, "x" * (config.limits.message_chars + 1))
    assert page.status_code == 413 and "too long" in page.text and rows(engine) == before
    huge = client.post(f"/p/{token}/message", content=b"text=" + b"x" * 100_000, headers={"content-type": "application/x-www-form-urlencoded"})  # fmt: skip
    assert huge.status_code == 413 and rows(engine) == before


def test_a_forged_token_is_refused(study):
    client, _, engine = study
    enrol(client)
    before = rows(engine)
    assert client.get("/p/not-a-real-token").status_code == 404
    assert (
        client.post("/p/not-a-real-token/message", data={"text": "hi", "csrf": "x"}).status_code
        == 404
    )
    assert rows(engine) == before


def test_another_participants_token_shows_nothing_of_theirs(study):
    client, _, engine = study
    _, mine = enrol(client, "ALICE")
    say(client, mine, "my secret wish is a horror film")
    client.cookies.clear()
    _, theirs = enrol(client, "MALLORY")  # Mallory's browser, with Alice's link
    page = client.get(f"/p/{mine}")
    assert page.status_code == 403 and "secret wish" not in page.text
    before = rows(engine)
    sent = client.post(f"/p/{mine}/message", data={"text": "hijack", "csrf": "x", "form": "f"})
    assert sent.status_code == 403 and rows(engine) == before


def test_a_replayed_vote_is_refused_and_counted_once(study):
    client, _, engine = study
    _, token = enrol(client)
    for chat in range(2):
        page = client.get(f"/p/{token}")
        for text in ("one", "two"):
            page = say(client, token, text)
        client.post(f"/p/{token}/finish", data={"csrf": CSRF.search(page.text).group(1)})
        answer(client, token)
    csrf = CSRF.search(client.get(f"/p/{token}").text).group(1)
    assert client.post(f"/p/{token}/vote", data={"csrf": csrf, "vote": "A"}).status_code == 200
    replay = client.post(f"/p/{token}/vote", data={"csrf": csrf, "vote": "B"})
    assert replay.status_code == 409 and "already recorded" in replay.text
    assert rows(engine)["votes"] == 1


def test_a_form_without_its_csrf_token_is_refused(study):
    client, _, engine = study
    _, token = enrol(client)
    before = rows(engine)
    page = client.get(f"/p/{token}")
    sent = client.post(
        f"/p/{token}/message", data={"text": "hi", "form": FORM.search(page.text).group(1)}
    )
    assert sent.status_code == 403 and "expired" in sent.text
    consent = client.post("/start", data={"agree": "yes", "PROLIFIC_PID": "EVE"})
    assert consent.status_code == 403 and rows(engine) == before


def test_the_monitor_is_closed_without_the_secret(tmp_path, db_url):
    open_, _, _ = make_client(tmp_path, db_url)  # no secret: the monitor is off
    assert open_.get("/monitor").status_code == 404
    client, _, _ = make_client(tmp_path, db_url, secret="s3cr3t")
    assert client.get("/monitor").status_code == 401
    wrong = base64.b64encode(b"admin:guess").decode()
    assert client.get("/monitor", headers={"authorization": f"Basic {wrong}"}).status_code == 401
    right = base64.b64encode(b"admin:s3cr3t").decode()
    shown = client.get("/monitor", headers={"authorization": f"Basic {right}"})
    assert shown.status_code == 200 and "Funnel" in shown.text and "s3cr3t" not in shown.text


def test_sql_metacharacters_are_stored_as_text(study):
    client, _, engine = study
    nasty = "Robert'); DROP TABLE turns;-- \" OR 1=1 --"
    _, token = enrol(client, "X-1")
    page = say(client, token, nasty)
    assert "DROP TABLE turns" in page.text
    with engine.connect() as c:
        assert nasty in [t for (t,) in c.execute(select(turns.c.text))]
    assert rows(engine)["participants"] == 1


def test_a_link_scanner_fetching_the_start_link_enrols_no_one(study):
    client, _, engine = study
    for _ in range(3):
        assert client.get("/start", params={"PROLIFIC_PID": "SCANNED"}).status_code == 200
    assert client.head("/start").status_code in (200, 405)
    assert rows(engine)["participants"] == 0


def test_a_double_submitted_message_is_written_once(study):
    client, _, engine = study
    _, token = enrol(client)
    page = client.get(f"/p/{token}")
    data = {
        "csrf": CSRF.search(page.text).group(1),
        "form": FORM.search(page.text).group(1),
        "text": "twice",
    }
    client.post(f"/p/{token}/message", data=data)
    client.post(f"/p/{token}/message", data=data)  # the same form, sent again
    with engine.connect() as c:
        said = [t for (t,) in c.execute(select(turns.c.text).where(turns.c.speaker == "user"))]
    assert said == ["twice"]


def test_a_crs_that_hangs_is_given_up_on_and_the_participant_told(tmp_path, db_url):
    client, _, engine = one_system(
        tmp_path, db_url, "tests.study.test_hostile:hanging_crs", crs_timeout_s=0.5
    )
    _, token = enrol(client)
    page = say(client, token, "hello?")
    assert page.status_code == 200 and "did not answer in time" in page.text
    with engine.connect() as c:
        (error,) = c.execute(select(turns.c.error).where(turns.c.speaker == "system")).scalars()
    assert "no answer within 0.5 s" in error


def test_messages_faster_than_the_study_allows_are_refused(tmp_path, db_url):
    client, _, engine = make_client(tmp_path, db_url, limits={"min_seconds_between": 30})
    _, token = enrol(client)
    say(client, token, "first")
    before = rows(engine)
    second = say(client, token, "second")
    assert second.status_code == 429 and "wait a moment" in second.text and rows(engine) == before


def test_the_secret_never_reaches_the_database_or_the_export(tmp_path):
    db = tmp_path / "study.sqlite"
    client, config, engine = make_client(tmp_path, f"sqlite:///{db}", secret="s3cr3t-never-written")
    _, token = enrol(client)
    say(client, token, "hi")
    from crseval.study.export import export

    export(engine, config, tmp_path / "out")
    files = [db, *db.parent.glob("study.sqlite*"), *(tmp_path / "out").rglob("*.*")]
    assert not [f for f in files if f.is_file() and b"s3cr3t" in f.read_bytes()]
