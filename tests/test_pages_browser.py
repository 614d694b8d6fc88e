# SPDX-License-Identifier: GPL-3.0-or-later
"""The pages as an arbiter found them (#30, "The pages" 1-9, 12), in real chromium.

Four simulated clocks (the real firmware, real time): two Xiangqi, one Go, one
chess, one round imported and started on the rounds page. Each defect the issue
lists is looked for where the arbiter met it:

1. a board page pins its own board's alerts, the others' as a count; an alert
   ends with its game;
2. the engine's repetition proposal says what confirming does: "Black wins";
3. after a knock ruling the page prompts to resume, and its button resumes;
4. the first player's lever is the left one on every hall board (Go: Black's),
   and the cards say so;
5. the rounds page has its results above the forms and shows the alerts; on a
   phone its table fits the width;
6. after a SIGKILL and a restart the page says what came back;
7. long names are not cut on the hall's cards at 1366 px;
8. Go's dead stones are marked on the board picture;
9. the session log numbers each move once; a refused move reads ``move: …`` once;
10. a Xiangqi move written for the side not to move is refused, not read as the other's;
12. the new round's date is today's unless the arbiter types one;
and the spectators' page shows the event, pairings and boards with nothing to
act on. With ``QIZHONG_SHOTS=docs/img`` it keeps the pages' screenshots there."""

from __future__ import annotations

import datetime
import os

import pytest
from browser import click
from hallserver import PASSWORD, WAIT_S
from selenium.webdriver.common.by import By
from test_tournament_hall import Desk, opened

N = 4  # boards 1, 2 Xiangqi; 3 Go; 4 chess
SHOTS = os.environ.get("QIZHONG_SHOTS", "")
LONG = "Conor O'Neill-Fitzgerald"
PAIRS = {
    1: (LONG, "Aleksandra Kosteniuk-Smirnova", "xiangqi", "xq-rapid"),
    2: ("吕钦", "许银川", "xiangqi", "xq-rapid"),
    3: ("Cho Hunhyun", "井山裕太", "go", "15m byoyomi 3x30s"),
    4: ("Magnus Carlsen", "Hou Yifan", "chess", "15m+10s"),
}
# A perpetual chase by Red (Fairy-Stockfish's AXF verdict, as tests/test_cli_arbiter.py):
# the engine proposes that Red must vary or loses, so confirming means Black wins.
CHASE_FEN = "3akab2/9/4b4/8p/6p2/5r3/P3P1c1P/c3B1N2/2C1A4/1R1AK1B2 w - - 0 1"
CHASE = ["车八进二", "炮1进2", "车八退二", "炮1退2"] * 2


@pytest.fixture
def desk(tmp_path):
    with opened(tmp_path, N) as desk:
        yield desk


def js(desk: Desk, script: str, *args: object) -> object:
    return desk.b.execute_script(script, *args)


def shot(desk: Desk, name: str, tmp: str) -> None:
    """The page at a laptop's and a phone's size (kept in $QIZHONG_SHOTS)."""
    desk.shot(name + ".png", tmp, 1366, 768)
    desk.shot(name + "-phone.png", tmp, 390, 844)
    desk.b.set_window_size(1366, 768)


def test_the_pages_defects_are_gone(desk, tmp_path):
    s, b = desk.s, desk.b
    tmp = str(tmp_path)

    # -- 12, 5: the rounds page; the date defaults to today's --------------------------------
    b.get(s.url + "/rounds")
    b.find_element(By.ID, "password").send_keys(PASSWORD)
    b.find_element(By.ID, "login").click()
    desk.until(lambda: b.find_element(By.ID, "import").is_displayed())
    assert b.find_element(By.ID, "i-date").get_attribute("value") == (
        datetime.date.today().isoformat()
    )
    csv = "board,first,second,game,control\n" + "".join(
        "%d,%s,%s,%s,%s\n" % (no, *p) for no, p in PAIRS.items()
    )
    js(desk, "document.getElementById('i-text').value = arguments[0]", csv)
    b.find_element(By.ID, "i-import").click()
    desk.until(lambda: b.find_element(By.ID, "i-msg").text == "round 1: %d boards" % N)
    desk.click("#r-start")
    desk.until(lambda: b.find_element(By.ID, "r-msg").text == "started: %d boards" % N, 90)
    assert s.get("/api/rounds/1")["date"] == datetime.date.today().isoformat()

    # -- 4: the first player's lever is the left one; Go's first is Black -------------------
    desk.play({3: ["D4", "Q16"], 4: ["e4"]})  # LEVER: the first side's lever is the left one
    assert s.get("/api/boards/3")["moves"] == [1, 1]
    desk.line(3, "agree")  # play is over (GO-5): dead stones next

    # -- 7: the hall's cards at 1366 px: every name whole -----------------------------------
    b.get(s.url + "/")
    desk.until(lambda: len(b.find_elements(By.CSS_SELECTOR, ".card .player")) == 2 * N)
    desk.until(lambda: LONG in desk.text("#board-1"))
    cut = js(
        desk,
        "return [...document.querySelectorAll('.card .name')]"
        ".filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.innerText)",
    )
    assert cut == [], cut
    go_card = js(
        desk,
        "const c = document.getElementById('board-3'); return [0, 1].map(s => "
        "c.querySelector('.s' + s + ' .colour').innerText + ' ' + "
        "c.querySelector('.s' + s + ' .lever').innerText)",
    )
    assert go_card == ["Black left lever", "White right lever"]

    # -- 1, 3: a knock on board 1; board 2's page shows it as a count ------------------------
    from qizhong.sim import headless

    headless.request(headless.address(desk.sim(1).world, None), "tilt")
    desk.board(1, lambda: s.get("/api/boards/1")["state"] == "knocked", "the knock")
    desk.until(lambda: "board 1:" in desk.text("#alerts").lower())
    headless.request(headless.address(desk.sim(4).world, None), "tilt")  # a second board's
    desk.board(4, lambda: s.get("/api/boards/4")["state"] == "knocked", "board 4's knock")
    b.get(s.url + "/board/2")
    desk.until(lambda: "2 alerts on other boards" in desk.text("#alerts"))
    assert "Board 1" not in desk.text("#alerts") and "Board 4" not in desk.text("#alerts")
    desk.board_page(1)
    desk.until(lambda: "knocked over" in desk.text("#alerts"))
    assert "1 alert on other boards" in desk.text("#alerts")
    assert js(desk, "return document.getElementById('alerts').offsetHeight") < 120
    assert not b.find_element(By.ID, "resume-prompt").is_displayed() or (
        "name who knocked" in desk.text("#resume-prompt")
    )
    desk.click("[data-knock='0']")  # the ruling: Red knocked it (asked first: yes)
    desk.until(lambda: "Knock ruled" in desk.text("#resume-prompt"))
    assert b.find_element(By.ID, "resume-prompt").is_displayed()
    if SHOTS:
        js(desk, "window.scrollTo(0, 0)")
        shot(desk, "board-alerts", tmp)
    assert s.get("/api/boards/1")["state"] == "knocked"  # it waits for the arbiter
    desk.click("#resume-now")
    desk.board(1, lambda: s.get("/api/boards/1")["state"] == "running", "resumed")
    desk.until(lambda: not b.find_element(By.ID, "resume-prompt").is_displayed())
    # The game ends: its knock alert, never acknowledged, is pinned no longer.
    desk.line(1, "resign red")
    desk.board(1, lambda: s.get("/api/boards/1")["state"] == "finished", "board 1 over")
    assert any(a["kind"] == "knock" and a["over"] for a in s.get("/api/boards/1")["alerts"])
    desk.until(lambda: "knock" not in desk.text("#alerts").lower())
    desk.until(lambda: b.title.startswith("(1) "))  # board 4's knock only

    # -- 10: a move written for the side not to move is refused, not read as the other's ----
    desk.board_page(2)
    typed = b.find_element(By.ID, "session-line")
    typed.send_keys("马８进７")  # Black's, but Red is to move (read as Red's 马八进七 before)
    b.find_element(By.ID, "session-send").click()
    desk.until(lambda: "written for Black" in desk.text("#session-error"))
    assert "Red is to move" in desk.text("#session-error") and desk.view(2)["moves"] == []

    # -- 2: the engine's proposal says what confirming does ----------------------------------
    s.post("/api/boards/2/session/new",
           {"options": {"fen": CHASE_FEN, "repetition": "axf", "late_entry": True}})  # fmt: skip
    for mv in CHASE:
        desk.line(2, mv)
    desk.board_page(2)
    desk.until(lambda: "Black wins" in desk.text("#confirm"))
    click(b, "#confirm")  # (found again if redrawn) the question, read before it is answered
    desk.until(lambda: js(desk, "return !!document.querySelector('#ask[open]')"))
    ask = desk.text("#ask .question")
    assert "Black wins" in ask and "the game ends" in ask, ask
    assert "Black wins" in desk.text("#ask-yes")
    if SHOTS:
        desk.shot("board-confirm-result.png", tmp, 1366, 768)
    b.find_element(By.ID, "ask-yes").click()
    desk.board(2, lambda: desk.view(2)["over"], "the chase confirmed")
    assert "black wins" in desk.view(2)["result"].lower()

    # -- 8, 9: Go's dead stones on the picture; the log's numbers; one "move:" -------------
    desk.board_page(3)
    desk.until(lambda: "click a chain" in desk.text("#go-score"))
    desk.line(3, "dead D4")
    desk.until(lambda: b.find_elements(By.CSS_SELECTOR, "svg.go .dead-mark[data-vertex='D4']"))
    if SHOTS:
        desk.shot("board-go-dead.png", tmp, 1366, 768)
    log = js(
        desk,
        "const li = document.querySelector('#session-log li');"
        "return [document.getElementById('session-log').tagName,"
        " getComputedStyle(li).listStyleType]",
    )
    assert log == ["UL", "none"], log  # each line's own "4. White Q16" is its only number
    desk.board_page(4)
    box = b.find_element(By.ID, "move-text")
    box.send_keys("Ke5")
    b.find_element(By.ID, "move").click()
    desk.until(lambda: desk.text("#act-error").startswith("move: "))
    assert "move: move:" not in desk.text("#act-error"), desk.text("#act-error")

    # -- 6: a SIGKILL, the server back: the page says what came back -------------------------
    s.kill()
    desk.until(lambda: b.find_element(By.ID, "offline").is_displayed())
    s.start()
    s.boards_up(s.socket())
    desk.until(lambda: b.find_elements(By.ID, "comeback"), WAIT_S)
    desk.until(lambda: "%d boards, %d of them" % (N, N) in desk.text("#comeback"))
    text = desk.text("#comeback")
    assert "restarted" in text and "still logged in" in text, text
    assert not b.find_element(By.ID, "offline").is_displayed()

    # -- 5: the rounds page: results and alerts first; a phone's width ---------------------
    b.get(s.url + "/rounds")
    desk.until(lambda: len(b.find_elements(By.CSS_SELECTOR, "#results tbody tr")) == N)
    desk.until(lambda: "board 4:" in desk.text("#alerts").lower())
    tops = js(
        desk,
        "return ['results', 'import', 'tournament'].map(id => "
        "document.getElementById(id).getBoundingClientRect().top)",
    )
    assert tops[0] < tops[1] < tops[2] and tops[0] < 300, tops
    if SHOTS:
        shot(desk, "rounds-alerts", tmp)
    b.set_window_size(390, 844)
    assert js(desk, "return document.documentElement.scrollWidth <= window.innerWidth")
    last = js(
        desk,
        "const r = document.querySelector('#results tbody tr:last-child td.result')"
        ".getBoundingClientRect(); return [r.right, r.bottom]",
    )
    assert last[0] <= 390, last  # nothing cut at the side
    b.set_window_size(1366, 768)

    # -- the hall, and the spectators' page: nothing to act on ------------------------------
    if SHOTS:
        b.get(s.url + "/")
        desk.until(lambda: len(b.find_elements(By.CSS_SELECTOR, ".card")) == N)
        shot(desk, "hall-round", tmp)
    b.get(s.url + "/watch")
    desk.until(lambda: len(b.find_elements(By.CSS_SELECTOR, "#w-pairings tbody tr")) == N)
    desk.until(lambda: len(b.find_elements(By.CSS_SELECTOR, "#boards .card")) == N)
    assert LONG in desk.text("#w-pairings") and "井山裕太" in desk.text("#boards")
    assert not b.find_elements(By.CSS_SELECTOR, "input, #login-form, #alerts, #controls")
    assert [e.text for e in b.find_elements(By.TAG_NAME, "button")] == ["Round 1"]
    if SHOTS:
        shot(desk, "spectators", tmp)
