"""The study server as a participant meets it: consent, two chats, the questionnaires, the vote, the
completion code; resume; balanced assignment that survives a restart; every turn written as it happens."""

import pytest
from sqlalchemy import func, select

from crseval.study.db import participants, turns, votes
from tests.study.conftest import CSRF, answer, enrol, make_client, one_system, say


def test_a_participant_goes_from_consent_to_the_completion_code(tmp_path, db_url):
    client, config, engine = make_client(tmp_path, db_url)
    page, token = enrol(client)
    assert "System A" in page.text and 'id="finish"' not in page.text  # min_turns first
    for text in ("I want a thriller", "something from the 90s"):
        page = say(client, token, text)
        assert page.status_code == 200
    assert "You said: something from the 90s" in page.text
    finish = client.post(f"/p/{token}/finish", data={"csrf": CSRF.search(page.text).group(1)})
    assert (
        "About System A" in finish.text
        and "The recommended items matched my interests" in finish.text
    )
    page = answer(client, token)
    assert "System B" in page.text  # the second chat
    for text in ("a comedy please", "thanks", "more?", "ok"):  # max_turns ends the chat by itself
        page = say(client, token, text)
    assert "About System B" in page.text
    page = answer(client, token)
    assert "Which one did you like better?" in page.text
    done = client.post(
        f"/p/{token}/vote", data={"csrf": CSRF.search(page.text).group(1), "vote": "B"}
    )
    assert config.completion["completed"].code in done.text
    with engine.connect() as c:
        (p,) = c.execute(select(participants)).mappings()
        assert p["outcome"] == "completed" and p["pid"] == "P1"
        said = c.execute(select(turns.c.speaker, turns.c.latency_ms)).all()
        assert len(said) == 12 and all(ms is not None for s, ms in said if s == "system")
        (vote,) = c.execute(select(votes)).mappings()
        first, second = p["arm"].split("|")
        assert (vote["system_a"], vote["system_b"], vote["vote"]) == (first, second, second)


def test_a_reload_or_a_new_visit_of_the_study_link_resumes_where_the_participant_was(
    tmp_path, db_url
):
    client, _, engine = make_client(tmp_path, db_url)
    page, token = enrol(client, "P7")
    say(client, token, "I want a thriller")
    assert "I want a thriller" in client.get(f"/p/{token}").text  # a reload
    client.cookies.clear()  # another browser, or cookies lost: the study link again
    again, token2 = enrol(client, "P7")
    assert token2 == token and "I want a thriller" in again.text
    with engine.connect() as c:
        assert c.execute(select(func.count()).select_from(participants)).scalar() == 1


def test_assignment_is_balanced_counterbalanced_and_survives_a_restart(tmp_path, db_url):
    client, config, engine = make_client(tmp_path, db_url)
    for i in range(3):
        enrol(client, f"A{i}")
        client.cookies.clear()
    restarted, _, _ = make_client(tmp_path, db_url)  # a new server process on the same database
    for i in range(5):
        enrol(restarted, f"B{i}")
        restarted.cookies.clear()
    with engine.connect() as c:
        arms = [a for (a,) in c.execute(select(participants.c.arm))]
    assert sorted(arms.count("|".join(a)) for a in config.arms) == [4, 4]  # both orders of the pair


def test_a_failing_crs_is_told_the_study_goes_on_and_too_many_end_it(tmp_path, db_url):
    client, config, engine = one_system(
        tmp_path, db_url, "tests.study.test_server:broken_crs", crs_failures=2
    )
    _, token = enrol(client)
    page = say(client, token, "hello")
    assert "could not answer this time" in page.text and "my model is not loaded" not in page.text
    page = say(client, token, "hello again")
    assert config.completion["crs_failed"].code in page.text
    with engine.connect() as c:
        errors = [e for (e,) in c.execute(select(turns.c.error).where(turns.c.speaker == "system"))]
    assert errors and all("my model is not loaded" in e for e in errors)  # kept for the researcher


def broken_crs(history):
    raise RuntimeError("my model is not loaded")


def test_a_failed_attention_check_ends_with_its_own_code(tmp_path, db_url):
    client, config, _ = make_client(tmp_path, db_url)
    _, token = enrol(client)
    for text in ("hi", "a thriller"):
        page = say(client, token, text)
    client.post(f"/p/{token}/finish", data={"csrf": CSRF.search(page.text).group(1)})
    done = answer(client, token, attention="2")
    assert config.completion["failed_check"].code in done.text


@pytest.mark.parametrize("path", ["/", "/healthz"])
def test_the_server_answers_without_enrolling(tmp_path, path):
    client, _, engine = make_client(tmp_path, f"sqlite:///{tmp_path / 'db.sqlite'}")
    assert client.get(path).status_code == 200
    with engine.connect() as c:
        assert c.execute(select(func.count()).select_from(participants)).scalar() == 0
