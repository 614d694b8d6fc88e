# SPDX-License-Identifier: GPL-3.0-or-later
"""Test helper: Debian's chromium, headless, driven by selenium (no browser download).

The tests need the Debian packages chromium and chromium-driver; `make test`
and CI install them when they are missing (the Makefile's ``debs``)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
MISSING = (
    "Debian's chromium and chromium-driver are needed: "
    "apt-get install chromium chromium-driver (make test does it)"
)


def chromium(width: int = 1280, height: int = 900) -> webdriver.Chrome:
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        raise RuntimeError(MISSING)
    opts = Options()
    opts.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=%d,%d" % (width, height),
    ):
        opts.add_argument(arg)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)


def until(browser: webdriver.Chrome, fn: Callable[[], Any], timeout: float = 60.0) -> Any:
    """``fn()``'s first true value, asked again as the page changes (bounded)."""
    return WebDriverWait(browser, timeout, poll_frequency=0.05).until(lambda _: fn())


def click(browser: webdriver.Chrome, css: str) -> None:
    """Click the element, found again if the page redrew it meanwhile."""

    def once() -> bool:
        try:
            browser.find_element(By.CSS_SELECTOR, css).click()
            return True
        except StaleElementReferenceException:
            return False

    until(browser, once)
