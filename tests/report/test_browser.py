"""A report built from a run full of hostile text, opened in a real headless Chromium: no script may
run and the console must stay clean. The screenshot is kept in test-artifacts/."""

from pathlib import Path

import pandas as pd
import pytest

from crseval.report.html import write_report
from crseval.runs import RunStore
from tests.support.browser import chromium

# made-up tables: no declaration check
pytestmark = [pytest.mark.browser, pytest.mark.any_table]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
HOSTILE = [
    '<script>window.__pwned = "script"</script>',
    "<img src=x onerror=\"window.__pwned = 'onerror'\">",
    '"><svg onload="window.__pwned=\'svg\'">',
    "</td></tr></table><iframe src=javascript:window.__pwned='iframe'></iframe>",
    "<a href=\"javascript:window.__pwned='link'\">click</a> &amp; <b>bold?</b>",
]


@pytest.fixture(scope="module")
def driver():
    yield from chromium()


def test_hostile_text_renders_as_text(tmp_path, driver):
    store = RunStore(tmp_path / "run")
    store.write_table(
        "dialogue_turns",
        pd.DataFrame(
            {
                "speaker": ["system"] * len(HOSTILE),
                "text": HOSTILE,
                "score": [1.0, 2.0, 3.0, 4.0, 5.0],
            }
        ),
    )
    store.add_section("Dialogue " + HOSTILE[0], "Reply: " + HOSTILE[1], tables=["dialogue_turns"])
    store.save_signature({"crseval": "test", "data": HOSTILE[2]})
    store.write_json("config.json", {"note": HOSTILE[3]})
    report = write_report(store.root, "hostile " + HOSTILE[4])
    driver.get(report.as_uri())
    assert driver.execute_script("return window.__pwned === undefined")
    body = driver.find_element("tag name", "body").text
    assert '<script>window.__pwned = "script"</script>' in body  # shown as text
    assert driver.find_elements("tag name", "script") == []
    assert driver.find_elements("tag name", "iframe") == []
    errors = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert errors == [], errors
    ARTIFACTS.mkdir(exist_ok=True)
    assert driver.save_screenshot(str(ARTIFACTS / "report-hostile-text.png"))
