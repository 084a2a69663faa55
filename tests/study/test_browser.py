"""A participant in a real headless Chromium (issue #93): consent, three turns with examples/my_crs.py, the
questionnaire, the second CRS, the questionnaire again, the vote and the completion code — a screenshot of
each page (test-artifacts/study-*.png: the study guide shows them). The export, read back by `crseval
criterion` and `crseval arena rank`, gives that participant's rows."""

import json
import time
from pathlib import Path

import pandas as pd
import pytest

from crseval.study.config import load_study
from crseval.study.export import export, user_id
from tests.study.live import serving
from tests.support.browser import chromium
from tests.support.cli import crseval

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # ~40 s a database
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"


@pytest.fixture(scope="module")
def driver():
    for d in chromium("1000,1100"):
        d.implicitly_wait(10)  # a click that submits a form returns before the next page is there
        yield d


def shot(driver, name):
    ARTIFACTS.mkdir(exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / f"study-{name}.png"))


def submit(driver, by: str, value: str) -> None:
    """Click a form's button and wait for the page it leads to: the old page gone stale and the new one
    loaded. Chromium may still be swapping documents when a button is found; that click never reached the
    page (CI saw "Node with given id does not belong to the document"), so it is found and clicked again."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support import expected_conditions as gone
    from selenium.webdriver.support.ui import WebDriverWait

    page = driver.find_element("tag name", "html")
    for attempt in range(5):
        try:
            driver.find_element(by, value).click()
            break
        except WebDriverException as e:
            if "does not belong to the document" not in str(e) or attempt == 4:
                raise
            time.sleep(0.2)
    wait = WebDriverWait(driver, 30)
    wait.until(gone.staleness_of(page))
    wait.until(lambda d: d.execute_script("return document.readyState") == "complete")


def chat(driver, messages, pause):
    for text in messages:
        time.sleep(
            pause
        )  # a person types: the study refuses messages faster than min_seconds_between
        driver.find_element("id", "text").send_keys(text)
        submit(driver, "id", "send")
        assert text in driver.find_element("id", "dialogue").text


def questionnaire(driver):
    for box in driver.find_elements("tag name", "fieldset"):
        radios = box.find_elements("css selector", "input[type=radio]")
        if not radios:
            continue
        legend = box.find_element("tag name", "legend").text
        choice = (
            radios[3] if "choose 'Agree'" in legend else radios[0]
        )  # the attention check: Agree
        choice.click()
    submit(driver, "id", "submit-answers")


def test_a_participant_takes_part_in_a_browser_and_the_export_reads_back(tmp_path, driver, db_url):
    config = load_study(ROOT / "examples" / "study.toml")
    db = db_url  # SQLite, and PostgreSQL where one runs
    with serving(config, db) as base:
        driver.get(f"{base}/start?PROLIFIC_PID=BROWSER1&STUDY_ID=S1&SESSION_ID=X1")
        shot(driver, "1-consent")  # (each database's walk overwrites the same five pictures)
        driver.find_element("name", "agree").click()
        submit(driver, "id", "consent")
        pause = config.limits.min_seconds_between
        chat(
            driver,
            ["Hi! I'd like a comedy tonight", "from the 90s?", "<b>great</b>, thanks"],
            pause,
        )
        assert "<b>great</b>" in driver.find_element("id", "dialogue").text  # markup shown as text
        shot(driver, "2-chat")
        submit(driver, "id", "finish")
        shot(driver, "3-questionnaire")
        questionnaire(driver)
        assert "System B" in driver.page_source
        chat(driver, ["I want a horror film", "older please", "ok thanks"], pause)
        submit(driver, "id", "finish")
        questionnaire(driver)
        shot(driver, "4-vote")
        driver.find_element("css selector", "input[value=A]").click()
        submit(driver, "id", "submit-vote")
        assert driver.find_element("id", "code").text == config.completion["completed"].code
        shot(driver, "5-done")
        errors = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
        assert not errors, errors
    from crseval.study.db import connect

    engine = connect(db)
    out = tmp_path / "export"
    export(engine, config, out)
    with engine.connect() as c:
        from sqlalchemy import select

        from crseval.study.db import participants

        (me,) = c.execute(select(participants)).mappings()
    uid = user_id(config, me)
    votes = pd.read_csv(out / "votes_study.csv")
    assert list(votes["user_id"]) == [uid]
    dialogues = json.loads((out / "crs_arena_dial_study.json").read_text())
    assert {d["user"]["id"] for d in dialogues} == {uid} and len(dialogues) == 2
    crseval("arena", "rank", out / "votes_study.csv", "--out", tmp_path / "arena")
    ranks = pd.read_csv(tmp_path / "arena" / "tables" / "arena_ratings.csv")
    assert set(ranks["system"]) == {"my_crs", "template"} and ranks["wins"].sum() == 1
    crseval("criterion", out, "--catalog", "sample", "--out", tmp_path / "criterion")
    per_dialogue = pd.read_csv(tmp_path / "criterion" / "tables" / "criterion_dialogues.csv")
    assert set(per_dialogue["dialogue"].str.rsplit("_", n=1).str[-1]) == {uid}
