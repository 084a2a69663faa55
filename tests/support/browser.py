"""Headless Chromium for the tests that look at a page as a person would (Debian's chromium and
chromium-driver; `.ci/run` installs them): started with the flags this machine's closed network needs."""

from __future__ import annotations

import shutil
from typing import Iterator

import pytest

from crseval.report.screenshot import FLAGS  # the flags this machine's closed network needs

CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")


def chromium(window: str = "1200,1600") -> Iterator:
    """A Selenium driver of headless Chromium (skips the test where there is none), quit afterwards."""
    if not (CHROMIUM and DRIVER):
        pytest.skip(
            "headless Chromium not available (Debian packages chromium + chromium-driver; .ci/run installs them)"
        )
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in (*FLAGS, f"--window-size={window}"):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=opts)
    try:
        yield driver
    finally:
        driver.quit()
