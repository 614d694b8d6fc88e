# SPDX-License-Identifier: GPL-3.0-or-later
"""The rounds page in a real browser (Debian's chromium via selenium): an
arbiter imports a round's pairings from a CSV file and starts the round;
the results table follows the boards (#20 item 2, docs/server.md)."""

import os

from browser import chromium
from hallserver import PASSWORD, WAIT_S, Server
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

CSV = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "round1.csv")


def table(browser, what):
    """Each row's ``what`` in the results table, read at one instant (it is redrawn live)."""
    return browser.execute_script(
        "return [...document.querySelectorAll('#results tbody tr')].map(r => r.%s)" % what
    )


def test_import_a_csv_and_start_the_round_on_the_page(tmp_path):
    server = Server(str(tmp_path / "hall.sqlite"), 2)
    browser = None
    try:
        server.boards_up(server.socket())
        browser = chromium()
        until = WebDriverWait(browser, WAIT_S, poll_frequency=0.05).until
        browser.get(server.url + "/")
        browser.find_element(By.CSS_SELECTOR, "a[href='/rounds']").click()  # linked from the hall
        until(lambda b: b.current_url.endswith("/rounds"))
        # The public sees no import form.
        assert not browser.find_element(By.ID, "import").is_displayed()
        browser.find_element(By.ID, "password").send_keys(PASSWORD)
        browser.find_element(By.ID, "login").click()
        until(lambda b: b.find_element(By.ID, "import").is_displayed())
        browser.find_element(By.ID, "t-name").send_keys("Hall Open")
        browser.find_element(By.ID, "t-save").click()
        until(lambda b: b.find_element(By.ID, "t-msg").text == "saved")
        browser.find_element(By.ID, "i-file").send_keys(CSV)  # the file's text into the box
        until(lambda b: "吕钦" in b.find_element(By.ID, "i-text").get_attribute("value"))
        browser.find_element(By.ID, "i-import").click()
        until(lambda b: b.find_element(By.ID, "i-msg").text == "round 1: 2 boards")
        browser.find_element(By.ID, "r-start").click()
        until(lambda b: b.find_element(By.ID, "r-msg").text == "started: 2 boards")
        # The table, from the server: both boards running their round's game.
        until(lambda b: table(b, "className") == ["running", "running"])
        assert table(browser, "innerText")[0].split("\t")[:4] == ["1", "吕钦", "许银川", "xiangqi"]
        b1, b2 = server.get("/api/boards/1"), server.get("/api/boards/2")
        assert b1["players"] == ["吕钦", "许银川"] and b1["state"] == "running"
        assert b2["game"] == "go" and b2["spec"] == "15m byoyomi 3x30s"
        assert server.get("/api/tournament")["name"] == "Hall Open"
        # A result the clock reports reaches the table by itself.
        server.post("/api/boards/1/finish", {"result": "red"})
        until(lambda b: table(b, "cells[7].innerText")[0] == "1-0")
    finally:
        if browser is not None:
            browser.quit()
        server.stop()
