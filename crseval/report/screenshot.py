"""Full-page PNG of a report in headless Chromium (Debian's chromium + chromium-driver, through
selenium with explicit paths: nothing is downloaded)."""

from __future__ import annotations

import shutil
from pathlib import Path

from crseval.core.errors import CrsevalError

FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
)


def screenshot(
    html: str | Path, png: str | Path, width: int = 1200, max_height: int = 6000
) -> Path:
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not (chromium and driver_path):
        raise CrsevalError(
            "headless Chromium is not installed", fix="apt-get install chromium chromium-driver"
        )
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        raise CrsevalError("screenshots need selenium", fix="install crseval[dev]") from None
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for flag in FLAGS:
        opts.add_argument(flag)
    opts.add_argument(f"--window-size={width},1000")
    d = webdriver.Chrome(service=Service(executable_path=driver_path), options=opts)
    try:
        d.get(Path(html).resolve().as_uri())
        height = min(
            max_height, int(d.execute_script("return document.documentElement.scrollHeight"))
        )
        d.set_window_size(width, height)
        Path(png).parent.mkdir(parents=True, exist_ok=True)
        d.save_screenshot(str(png))
    finally:
        d.quit()
    return Path(png)
