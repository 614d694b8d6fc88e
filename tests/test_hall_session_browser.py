# SPDX-License-Identifier: GPL-3.0-or-later
"""The board page's game session in real chromium (#20 item 1, docs/server.md):
moves typed on the page, the engine's proposal with its reasons and a
confirm that asks first (the page's dialog), fouls as alerts; at a laptop's and a phone's width."""

import os

import pytest
from browser import chromium, click, until
from hallserver import PASSWORD
from selenium.webdriver.common.by import By

from qizhong.server import sims

SHOTS = os.environ.get("QIZHONG_SHOTS", "")  # a folder: the screenshots are kept there


HALL_SERVER = {"n": 1, "up": True}


def text_of(browser, css):
    """The element's text, read in one script (the page redraws the session as it changes)."""
    return browser.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.innerText : ''", css
    )


def answer(browser, yes):
    """Answer the page's question (its dialog, web/common.js askFirst); its text."""
    until(browser, lambda: browser.execute_script("return !!document.querySelector('#ask[open]')"))
    text = browser.find_element(By.CSS_SELECTOR, "#ask .question").text
    browser.find_element(By.ID, "ask-yes" if yes else "ask-no").click()
    return text


def login(browser, server):
    browser.get(server.url + "/board/1")
    browser.find_element(By.ID, "password").send_keys(PASSWORD)
    browser.find_element(By.ID, "login").click()
    until(browser, lambda: browser.find_element(By.ID, "session-line").is_displayed())


def send(browser, line):
    box = browser.find_element(By.ID, "session-line")
    box.clear()
    box.send_keys(line)
    browser.find_element(By.ID, "session-send").click()


@pytest.mark.parametrize("width,height", [(1366, 768), (390, 844)])
def test_a_repetition_proposal_confirmed_from_the_page(server, tmp_path, width, height):
    browser = chromium(width, height)
    try:
        login(browser, server)
        send(browser, "start")
        until(browser, lambda: server.get("/api/boards/1")["state"] == "running")
        sims.press(server.sim(1), "left")  # Red presses before the move is typed (late entry)
        until(browser, lambda: "waiting for its move: Red" in text_of(browser, ".session-head"))
        moves = ["马二进三", "马８进７", "马三退二", "马７退８"] * 2
        for i, mv in enumerate(moves):
            send(browser, mv)
            until(browser, lambda i=i: len(server.get("/api/boards/1/session")["moves"]) == i + 1)
        # Both sides idle: the engine proposes a draw, and the page shows why.
        until(browser, lambda: "draw" in text_of(browser, "#proposal"))
        assert "闲" in text_of(browser, "#proposal")
        until(browser, lambda: "马二进三" in text_of(browser, "#moves"))  # the board's moves
        browser.execute_script(
            "document.getElementById('confirm').scrollIntoView({block: 'center'})"
        )
        name = "board-session.png" if width > 1000 else "board-session-phone.png"
        shot = os.path.join(SHOTS or str(tmp_path), name)
        browser.save_screenshot(shot)
        # Confirm asks first; dismissed, nothing happens.
        click(browser, "#confirm")
        answer(browser, False)
        assert not server.get("/api/boards/1/session")["over"]
        click(browser, "#confirm")
        assert "confirm" in answer(browser, True).lower()
        until(browser, lambda: server.get("/api/boards/1/session")["over"])
        until(browser, lambda: "draw" in text_of(browser, ".session-head"))
        until(browser, lambda: server.get("/api/boards/1")["state"] == "finished")
        # A foul button on a finished game is gone; the proposal's alert stays until acknowledged.
        assert not browser.find_elements(By.CSS_SELECTOR, "[data-line='foul red']")
        assert "proposal" in [a["kind"] for a in server.get("/api/boards/1")["alerts"]]
    finally:
        browser.quit()


def test_a_foul_from_the_page_is_an_alert(server):
    browser = chromium(1366, 768)
    try:
        login(browser, server)
        send(browser, "start")
        until(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "[data-line='foul black']"))
        click(browser, "[data-line='foul black']")
        assert "Black" in answer(browser, True)
        until(browser, lambda: server.get("/api/boards/1/session")["fouls"] == [0, 1])
        until(browser, lambda: "foul" in text_of(browser, "#alerts").lower())
        # the page is read by the public too: the log, no buttons
        browser.find_element(By.ID, "logout").click()
        until(browser, lambda: not browser.find_element(By.ID, "session-line").is_displayed())
        assert "foul 1 for Black" in text_of(browser, "#session-log")
    finally:
        browser.quit()


def test_go_dead_stones_marked_by_a_click_then_counted(server):
    server.post("/api/boards/1/players", {"game": "go"})
    server.post("/api/boards/1/session/new", {"options": {"spec": "go-byoyomi"}, "configure": True})
    for mv in ("D4", "Q16", "pass", "pass"):
        server.post("/api/boards/1/session", {"line": mv})
    browser = chromium(1366, 768)
    try:
        login(browser, server)
        until(browser, lambda: "click a chain" in text_of(browser, "#go-score"))
        click(browser, "circle.stone[cx='72'][cy='360']")  # D4: column D, row 4 of 19
        until(browser, lambda: server.get("/api/boards/1/session")["dead"] == ["D4"])
        until(browser, lambda: "Dead: D4" in text_of(browser, "#go-score"))
        click(browser, "[data-line='count']")
        assert "count" in answer(browser, True).lower()
        until(browser, lambda: server.get("/api/boards/1/session")["over"])
        assert "white wins" in server.get("/api/boards/1/session")["result"].lower()
    finally:
        browser.quit()


def test_the_page_sends_an_action_again_while_the_server_restarts(server):
    browser = chromium(1366, 768)
    try:
        login(browser, server)
        send(browser, "start")
        until(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "[data-line='foul red']"))
        server.kill()
        click(browser, "[data-line='foul red']")
        answer(browser, True)
        until(browser, lambda: "sending again" in text_of(browser, "#session-error"))
        server.start()  # on the same port: the page's line gets there, once
        until(browser, lambda: server.get("/api/boards/1/session")["fouls"] == [1, 0])
        until(browser, lambda: "foul 1 for Red" in text_of(browser, "#session-out"))
    finally:
        browser.quit()
