# SPDX-License-Identifier: GPL-3.0-or-later
"""Alerts that cannot be missed (#20 item 5), in Debian's chromium against a real
``qizhong serve --sim 50``: 50 simulated clocks, each the real firmware.

The arbiter's clicks are the page's own buttons. On a laptop (1366x768) and a
phone's width: the alerts panel in view at the last board, the alert count in
the tab's title, the "needs attention" filter, the sound, a confirmation that
says what an action will do (dismissed: nothing changes), the knocker named
plainly, the board's action log, the players' form, 50 boards in the compact
view, and the banner when the server is lost (killed, or silent)."""

from __future__ import annotations

import os
import signal
import subprocess

import pytest
from browser import chromium
from hallserver import PASSWORD, WAIT_S, Server
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from qizhong.sim import headless

N = 50
LAPTOP = (1366, 768)
PHONE = (390, 844)
HERE = os.path.dirname(os.path.abspath(__file__))
SHOTS = os.environ.get("QIZHONG_SHOTS", "")  # a folder: the tests' screenshots go there too


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # A beat every second, so a silent server is noticed within 2.5 s (every 0.5 s, a
    # loaded machine with two suites on it delayed one past 1.25 s: an OFFLINE title).
    s = Server(str(tmp_path_factory.mktemp("alerts") / "hall.sqlite"), N, ("--heartbeat", "1"))
    try:
        s.boards_up(s.socket())
        s.post("/api/boards/1/players", {"first": "王天一", "second": "郑惟桐"})
        s.post("/api/boards/2/players", {"first": "羽生善治", "second": "이세돌"})
        for no in (2, 3, N):
            s.post("/api/boards/%d/start" % no, {"side": 0})
        yield s
    finally:
        s.stop()


@pytest.fixture(scope="module")
def browser():
    b = chromium(*LAPTOP)
    yield b
    b.quit()


def until(browser, fn):
    return WebDriverWait(browser, WAIT_S, poll_frequency=0.05).until(lambda _: fn())


def text_of(browser, css):
    return browser.find_element(By.CSS_SELECTOR, css).text


def shot(browser, name):
    if SHOTS:
        browser.save_screenshot(os.path.join(SHOTS, name))


def in_view(browser, css):
    """Whether every element ``css`` matches is wholly inside the window now."""
    return browser.execute_script(
        "const els = [...document.querySelectorAll(arguments[0])];"
        "return els.length > 0 && els.every(e => { const r = e.getBoundingClientRect();"
        " return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth"
        " && r.height > 0; });",
        css,
    )


def tilt(server, no):
    headless.request(headless.address(server.sim(no).world, None), "tilt")


def login(browser):
    until(browser, lambda: browser.execute_script("return document.body.dataset.updates"))
    if browser.find_element(By.ID, "logout").is_displayed():
        return  # the cookie of an earlier test
    browser.find_element(By.ID, "password").send_keys(PASSWORD)
    browser.find_element(By.ID, "login").click()
    until(browser, lambda: browser.find_element(By.ID, "logout").is_displayed())


def board_alert(browser, no):
    """The text of board ``no``'s first alert in the panel ("" if none), read at once
    (the panel is redrawn on every message)."""
    return browser.execute_script(
        "const a = document.querySelector(`#alerts .alert[data-board='${arguments[0]}'] .what`);"
        "return a ? a.textContent : '';",
        no,
    )


def test_a_knock_is_seen_from_the_last_board_in_the_title_and_heard(server, browser):
    browser.get(server.url + "/")
    until(browser, lambda: len(browser.find_elements(By.CSS_SELECTOR, ".card")) == N)
    assert browser.title == "棋钟 hall"
    sound = browser.find_element(By.ID, "sound")
    assert sound.text == "sound: off"  # off until the arbiter turns it on
    sound.click()
    until(browser, lambda: browser.execute_script("return document.body.dataset.beeps") == "1")
    assert browser.execute_script("return localStorage.getItem('qizhong.sound')") == "on"
    browser.refresh()  # remembered in this browser
    until(browser, lambda: len(browser.find_elements(By.CSS_SELECTOR, ".card")) == N)
    assert browser.find_element(By.ID, "sound").text == "sound: on"
    browser.find_element(By.CSS_SELECTOR, "header h1").click()  # a click lets the page sound
    until(
        browser, lambda: browser.execute_script("return document.body.dataset.audio") == "running"
    )
    last = browser.find_element(By.ID, "board-%d" % N)
    browser.execute_script("arguments[0].scrollIntoView({block: 'end'})", last)
    assert browser.execute_script("return scrollY") > 500
    tilt(server, 2)  # board 2, far above, is knocked over
    until(browser, lambda: board_alert(browser, 2))
    assert board_alert(browser, 2).startswith(
        "Board 2: clock knocked over while Red's time ran — arbiter to name who knocked it"
    )
    assert in_view(browser, "#alerts .alert[data-board='2']")
    assert in_view(browser, "#board-%d" % N)  # still at the last board
    until(browser, lambda: browser.title == "(1) 棋钟 hall")  # (a late beat: OFFLINE a moment)
    until(browser, lambda: browser.execute_script("return document.body.dataset.beeps") == "1")
    assert browser.execute_script("return document.body.dataset.audio") == "running"
    shot(browser, "hall-alert-scrolled.png")
    # A phone's width: one column of 50 boards, the panel still in view at the last.
    browser.set_window_size(*PHONE)
    try:
        browser.refresh()
        until(browser, lambda: board_alert(browser, 2))
        last = browser.find_element(By.ID, "board-%d" % N)
        browser.execute_script("arguments[0].scrollIntoView({block: 'end'})", last)
        assert browser.execute_script("return scrollY") > 3000
        assert in_view(browser, "#alerts .alert[data-board='2']")
        until(browser, lambda: browser.title == "(1) 棋钟 hall")  # (a late beat: OFFLINE a moment)
        shot(browser, "hall-phone.png")
    finally:
        browser.set_window_size(*LAPTOP)
        browser.execute_script("localStorage.removeItem('qizhong.sound')")


def test_needs_attention_shows_only_the_boards_to_look_at(server, browser):
    browser.get(server.url + "/")
    until(browser, lambda: browser.title == "(1) 棋钟 hall")
    tilt(server, 3)
    until(browser, lambda: board_alert(browser, 3))
    assert browser.title == "(2) 棋钟 hall"  # board 2's and board 3's knocks
    assert browser.execute_script("return document.body.dataset.beeps") is None  # sound off
    browser.find_element(By.ID, "attention").click()
    shown = [e.get_attribute("id") for e in browser.find_elements(By.CSS_SELECTOR, ".card")]
    shown = [i for i in shown if browser.find_element(By.ID, i).is_displayed()]
    assert shown == ["board-2", "board-3"]
    assert text_of(browser, "#attention-n") == "(2)"
    browser.find_element(By.ID, "attention").click()
    until(browser, lambda: browser.find_element(By.ID, "board-%d" % N).is_displayed())
    # A board page has the panel too: its own board's alerts, the others' as a count
    # with the hall's link (#30: five boards' alerts hid the board), and the title counts all.
    browser.get(server.url + "/board/%d" % N)
    until(browser, lambda: "2 alerts on other boards" in text_of(browser, "#alerts"))
    assert not board_alert(browser, 2) and not board_alert(browser, 3)
    assert browser.title == "(2) 棋钟 board %d" % N


def test_actions_ask_first_and_name_the_knocker(server, browser):
    browser.get(server.url + "/board/2")
    login(browser)
    until(browser, lambda: browser.find_element(By.ID, "controls").is_displayed())
    until(browser, lambda: text_of(browser, "[data-knock='0']") == "Red")
    black = server.get("/api/boards/2")["left"][1]
    knocks = len([a for a in server.get("/api/actions") if a["verb"] == "knock"])
    # Dismissed (Cancel, then Esc): nothing is sent, nothing changes.
    for dismiss in ("cancel", "esc"):
        browser.find_element(By.CSS_SELECTOR, "[data-knock='0']").click()
        question = text_of(browser, "#ask .question")
        assert question == (
            "Rule on board 2: Red knocked the clock over? Black gets +60 s (EQ-5); "
            "the clock then waits for you to resume play."
        )
        if dismiss == "cancel":
            browser.find_element(By.ID, "ask-no").click()
        else:
            browser.find_element(By.ID, "ask").send_keys(Keys.ESCAPE)
        until(browser, lambda: not browser.find_element(By.ID, "ask").is_displayed())
    assert len([a for a in server.get("/api/actions") if a["verb"] == "knock"]) == knocks
    assert server.get("/api/boards/2")["left"][1] == black
    assert server.get("/api/boards/2")["knocker"] == -1
    # Accepted: the clock gives Black 60 s, and the alert says who did what.
    browser.find_element(By.CSS_SELECTOR, "[data-knock='0']").click()
    browser.find_element(By.ID, "ask-yes").click()
    until(
        browser,
        lambda: board_alert(browser, 2) == "Board 2: Red knocked the clock; Black +60 s",
    )
    assert server.get("/api/boards/2")["left"][1] == black + 60000
    until(browser, lambda: "Red knocked the clock" in text_of(browser, "#log"))
    # A penalty asks with its figures; a result asks too.
    box = browser.find_element(By.ID, "pen-s")
    box.clear()
    box.send_keys("-30")
    browser.find_element(By.CSS_SELECTOR, "#pen-side option[value='1']").click()
    browser.find_element(By.ID, "penalty").click()
    assert text_of(browser, "#ask .question").startswith("Give Black −30 s on board 2? ")
    shot(browser, "board-confirm.png")
    browser.find_element(By.ID, "ask-yes").click()
    until(browser, lambda: "Black −30 s" in text_of(browser, "#log"))
    until(browser, lambda: server.get("/api/boards/2")["left"][1] == black + 30000)
    browser.find_element(By.CSS_SELECTOR, "[data-result='2']").click()
    assert text_of(browser, "#ask .question").startswith("End the game on board 2: a draw?")
    browser.find_element(By.ID, "ask-no").click()
    until(browser, lambda: not browser.find_element(By.ID, "ask").is_displayed())
    assert server.get("/api/boards/2")["state"] == "knocked"  # no result was given
    browser.find_element(By.CSS_SELECTOR, "[data-act='new']").click()
    assert text_of(browser, "#ask .question") == (
        "Start a new game on board 2? The game in play ends with no result,"
        " and both times go back to the start."
    )
    browser.find_element(By.ID, "ask-no").click()
    until(browser, lambda: not browser.find_element(By.ID, "ask").is_displayed())
    assert [a["verb"] for a in server.get("/api/boards/2/actions")][-1] == "penalty"
    log = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#log li .what")]
    assert log[:3] == [
        "Black −30 s",
        "Red knocked the clock",
        "start, Red to move",
    ]
    shot(browser, "board.png")


def test_saving_the_players_form_keeps_the_names(server, browser):
    browser.get(server.url + "/board/1")
    login(browser)
    until(browser, lambda: browser.find_element(By.ID, "p0").get_attribute("value") == "王天一")
    assert browser.find_element(By.ID, "p1").get_attribute("value") == "郑惟桐"
    browser.find_element(By.ID, "players").click()
    until(browser, lambda: "players:" in text_of(browser, "#log"))
    assert server.get("/api/boards/1")["players"] == ["王天一", "郑惟桐"]


def test_fifty_boards_fit_a_laptop_in_the_compact_view(server, browser):
    browser.get(server.url + "/")
    until(browser, lambda: len(browser.find_elements(By.CSS_SELECTOR, ".card")) == N)
    browser.find_element(By.ID, "compact").click()
    # The window is the laptop's screen; its page area what the browser leaves (1366x625).
    assert browser.execute_script("return [outerWidth, outerHeight]") == list(LAPTOP)
    assert browser.execute_script("return innerHeight") <= 700
    until(browser, lambda: in_view(browser, ".card"))  # all 50, and the two alerts above
    # (a banner of a beat a loaded machine delayed pushes them down for a moment)
    until(browser, lambda: in_view(browser, "#alerts .alert") and in_view(browser, ".card"))
    shot(browser, "hall-compact.png")
    browser.refresh()  # remembered
    until(browser, lambda: len(browser.find_elements(By.CSS_SELECTOR, ".card")) == N)
    assert browser.find_element(By.ID, "compact").is_selected()
    assert in_view(browser, ".card")


def test_a_lost_server_is_said_loudly_and_its_times_stop(server, browser):
    browser.get(server.url + "/")
    until(browser, lambda: len(browser.find_elements(By.CSS_SELECTOR, ".card")) == N)
    running = "#board-%d .s0 .time" % N
    first = text_of(browser, running)
    until(browser, lambda: text_of(browser, running) != first)  # ticking
    # No banner while the server lives (a loaded machine may delay a beat past 2.5 s
    # for a moment: the next message takes the banner down again).
    until(browser, lambda: not browser.find_element(By.ID, "offline").is_displayed())

    def frozen():
        was = text_of(browser, running)
        ticks = browser.execute_script("return Number(document.body.dataset.ticks)")
        until(  # 0.5 s of the page's own ticks
            browser,
            lambda: (
                browser.execute_script("return Number(document.body.dataset.ticks)") >= ticks + 5
            ),
        )
        return text_of(browser, running) == was

    # Silent (stopped, its socket still open): no beat for 2.5 beats.
    os.kill(server.proc.pid, signal.SIGSTOP)
    try:
        until(browser, lambda: browser.find_element(By.ID, "offline").is_displayed())
        assert "no heartbeat" in text_of(browser, "#offline")
        assert frozen()
    finally:
        os.kill(server.proc.pid, signal.SIGCONT)
    until(browser, lambda: not browser.find_element(By.ID, "offline").is_displayed())
    again = text_of(browser, running)
    until(browser, lambda: text_of(browser, running) != again)  # ticking again
    # Killed: the socket closes.
    alerts = sum(len(b["alerts"]) for b in server.get("/api/boards"))
    count = "(%d) " % alerts if alerts else ""
    server.kill()
    until(browser, lambda: browser.find_element(By.ID, "offline").is_displayed())
    banner = text_of(browser, "#offline")
    assert banner.startswith("⚠ No connection to the hall server since ")
    assert "the connection closed" in banner and "frozen" in banner
    assert browser.title == "⚠ OFFLINE " + count + "棋钟 hall"
    # The cards are marked at the page's next drawing (within a tick), after the banner.
    until(
        browser,
        lambda: "stale" in browser.find_element(By.ID, "board-%d" % N).get_attribute("class"),
    )
    assert frozen()
    shot(browser, "hall-offline.png")
    # (The page finds a restarted server again as it did above: a new hello. The
    # fixture's end stops the clocks: a restart of 50 would double this test's time.)


def test_debian_deps_takes_a_file_for_a_font(tmp_path):
    """A font package has no program: ``PACKAGE:@FILE`` is checked with test -e."""
    here = tmp_path / "font.ttc"
    here.write_bytes(b"")
    script = os.path.join(os.path.dirname(HERE), "tools", "debian_deps.sh")
    ok = subprocess.run(["sh", script, "x-font:@%s" % here], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout == ""
    env = dict(os.environ, PATH="/nonexistent")  # no apt-get: it says what to install
    missing = subprocess.run(
        ["/bin/sh", script, "x-font:@%s" % (tmp_path / "none.ttc")],
        capture_output=True,
        text=True,
        env=env,
    )
    assert missing.returncode == 1 and "x-font" in missing.stderr
