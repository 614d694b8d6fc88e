# SPDX-License-Identifier: GPL-3.0-or-later
"""The hall page in a real browser (Debian's chromium via selenium) against a
real ``qizhong serve`` with simulated clocks (#15, docs/server.md)."""

import pytest
from browser import chromium
from hallserver import PASSWORD, WAIT_S
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from qizhong.server import sims

HALL_SERVER = {"up": True}


@pytest.fixture(scope="module")
def chromium_once():
    b = chromium()  # one browser for the module: its start is the slow part
    yield b
    b.quit()


@pytest.fixture
def browser(chromium_once):
    chromium_once.delete_all_cookies()  # every test starts as the public
    return chromium_once


def text_of(browser, css):
    return browser.find_element(By.CSS_SELECTOR, css).text


def until(browser, fn):
    return WebDriverWait(browser, WAIT_S, poll_frequency=0.05).until(lambda _: fn())


def test_a_press_on_a_lever_appears_on_the_hall_page(server, browser):
    browser.get(server.url + "/")
    until(browser, lambda: "moves 0·0" in text_of(browser, "#board-1"))
    server.post("/api/boards/1/start", {"side": 0})
    until(browser, lambda: "running" in text_of(browser, "#board-1 .state"))
    sims.press(server.sim(1), "left")
    until(browser, lambda: "moves 1·0" in text_of(browser, "#board-1"))
    # Black's time ticks on the page from the clock's own figures.
    first = text_of(browser, "#board-1 .s1 .time")
    until(browser, lambda: text_of(browser, "#board-1 .s1 .time") != first)
    assert "run" in browser.find_element(By.CSS_SELECTOR, "#board-1 .s1").get_attribute("class")


def test_a_penalty_made_on_the_page_reaches_the_clock_and_comes_back(server, browser):
    server.post("/api/boards/1/start", {"side": 0})
    server.post("/api/boards/1/pause", {})
    browser.get(server.url + "/board/1")
    until(browser, lambda: text_of(browser, "#board-1 .s1 .time") == "15:00")
    assert not browser.find_element(By.ID, "controls").is_displayed()  # public: no actions
    browser.find_element(By.ID, "password").send_keys(PASSWORD)
    browser.find_element(By.ID, "login").click()
    until(browser, lambda: browser.find_element(By.ID, "controls").is_displayed())
    Select(browser.find_element(By.ID, "pen-side")).select_by_value("1")
    box = browser.find_element(By.ID, "pen-s")
    box.clear()
    box.send_keys("-90")
    browser.find_element(By.ID, "penalty").click()
    assert "Give Black −90 s on board 1?" in text_of(browser, "#ask .question")  # asked first
    browser.find_element(By.ID, "ask-yes").click()
    until(browser, lambda: text_of(browser, "#board-1 .s1 .time") == "13:30")
    ev = [e for e in server.get("/api/boards/1/events") if e["name"] == "penalty"]
    assert [(e["side"], e["arg"]) for e in ev] == [(1, -90000)]  # the clock's own event
    assert server.get("/api/actions")[-1]["verb"] == "penalty"


def test_the_public_page_cannot_act(server, browser):
    server.post("/api/boards/1/start", {"side": 0})
    browser.get(server.url + "/board/1")
    until(browser, lambda: "running" in text_of(browser, "#board-1 .state"))
    assert not browser.find_element(By.ID, "controls").is_displayed()
    # Even the page's own code, asked to act without the login, is refused.
    status = browser.execute_async_script(
        "const done = arguments[0];"
        "fetch('/api/boards/1/pause', {method: 'POST', headers: {'Content-Type': "
        "'application/json'}, body: '{}'}).then(r => done(r.status));"
    )
    assert status == 401
    assert server.get("/api/boards/1")["state"] == "running"
    assert server.get("/api/actions")[-1]["verb"] == "start"


def test_a_server_killed_mid_game_comes_back_with_the_same_games(server, browser):
    server.post("/api/boards/2/start", {"side": 0})
    for lever in ("left", "right"):
        sims.press(server.sim(2), lever, 40, wait_up=True)
    browser.get(server.url + "/board/2")
    until(browser, lambda: len(browser.find_elements(By.CSS_SELECTOR, "#moves li")) == 2)
    clock = server.sim(2)
    server.kill()
    sims.press(clock, "left")  # played while the server is down
    server.start()
    browser.refresh()
    until(browser, lambda: len(browser.find_elements(By.CSS_SELECTOR, "#moves li")) == 3)
    until(browser, lambda: "moves 2·1" in text_of(browser, "#board-2"))


def test_the_board_page_draws_a_chess_position(server, browser):
    """#16: moves entered on the board page (SAN or UCI), drawn by python-chess's
    SVG, listed in SAN with each move's clock time."""
    server.post("/api/boards/1/players", {"game": "chess"})
    server.post("/api/boards/1/start", {"side": "white"})
    browser.get(server.url + "/board/1")
    browser.find_element(By.ID, "password").send_keys(PASSWORD)
    browser.find_element(By.ID, "login").click()
    until(browser, lambda: browser.find_element(By.ID, "controls").is_displayed())
    box = browser.find_element(By.ID, "move-text")
    for text, lever in (("e2e4", "left"), ("c5", "right")):
        box.send_keys(text)
        browser.find_element(By.ID, "move").click()
        until(browser, lambda: box.get_attribute("value") == "")
        sims.press(server.sim(1), lever, 40, wait_up=True)
    # Read in one script: the page redraws the list and the picture on every event.
    shown = (
        "const c = document.querySelector('#position .chess');"
        "return [[...document.querySelectorAll('#moves li')].map(li => li.textContent),"
        " c ? c.dataset.fen : '', c ? c.querySelectorAll('svg').length : 0];"
    )
    until(
        browser,
        lambda: (lambda s: len(s[0]) == 2 and all(":" in t for t in s[0]))(
            browser.execute_script(shown)
        ),
    )
    items, fen, svgs = browser.execute_script(shown)
    assert items[0].startswith("e4 ") and items[1].startswith("c5 ")  # SAN, with a time
    assert fen.startswith("rnbqkbnr/pp1ppppp/8/2p5/4P3/") and svgs  # python-chess's picture
    browser.find_element(By.ID, "move-text").send_keys("Ke2e4")
    browser.find_element(By.ID, "move").click()
    until(browser, lambda: "move: " in text_of(browser, "#act-error"))  # refused, and why
    # The players' form shows the board's game: saving names keeps it chess.
    assert Select(browser.find_element(By.ID, "game")).first_selected_option.text == "chess"
    browser.find_element(By.ID, "p0").send_keys("Polgar")
    browser.find_element(By.ID, "players").click()
    until(browser, lambda: server.get("/api/boards/1")["players"][0] == "Polgar")
    assert server.get("/api/boards/1")["game"] == "chess"
    assert server.get("/api/boards/1")["played_moves"] == ["e4", "c5"]
