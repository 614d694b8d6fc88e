# SPDX-License-Identifier: GPL-3.0-or-later
"""A two-round tournament run from the hall's pages in real chromium (#20, "Done when").

Twenty simulated clocks (the real firmware, real time) of Xiangqi, Go and chess;
each round's pairings imported from a CSV file on the rounds page and started
there; the same clocks for round 2. Every incident is handled on the board page,
as an arbiter does: a press without a move (XQ-R19), a second foul (XQ-R17), an
illegal chess move (CH-1), a false claim (XQ-R20), the engine's repetition
proposal confirmed on one board and overruled on another, a knock (EQ-5), a
penalty and a Go count (GO-6). In the middle the server is killed (SIGKILL) and
stopped (SIGTERM), each time started again on the same file, and ``qizhong
arbiter`` attaches to a hall game as a console. At the end every record of both
rounds is downloaded and read back (python-chess, sgfmill, our Xiangqi reader)
with its moves, times, result and tags, and each round's results CSV agrees."""

from __future__ import annotations

import contextlib
import csv
import io
import os
import subprocess
import sys
import time
import urllib.request
import uuid
import zipfile
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import chess.pgn
import pytest
from browser import chromium
from hallserver import PASSWORD, WAIT_S, Server
from selenium.common.exceptions import (
    ElementNotInteractableException,
    StaleElementReferenceException,
)
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from sgfmill import sgf

from qizhong.records import xiangqi_pgn
from qizhong.server import sims
from qizhong.sim import headless

N = 20  # boards: 14 Xiangqi (7 of them for the incidents), 3 Go, 3 chess
GO = (N - 5, N - 4, N - 3)  # three Go boards, then three chess boards; the rest Xiangqi
CHESS = (N - 2, N - 1, N)
SHOTS = os.environ.get("QIZHONG_SHOTS", "")  # a folder: the screenshots are kept there
EVENT, SITE = "Hall Open", "Shanghai"
DATES = {1: "2026-11-25", 2: "2026-11-26"}
CONTROL = {"xiangqi": "xq-rapid", "go": "15m byoyomi 3x30s", "chess": "15m+10s"}
LEVER = ("left", "right")  # the side that moves first presses the left lever


def norm(move: str) -> str:
    """A move's text with Black's full-width digits (马８进７) as ASCII ones (马8进7)."""
    return move.translate({0xFF10 + i: 0x30 + i for i in range(10)})


def game_of(no: int) -> str:
    return "go" if no in GO else "chess" if no in CHESS else "xiangqi"


def names(rnd: int, no: int) -> tuple[str, str]:
    a, b = ("王%d" % no if no % 4 == 0 else "P%da" % no), "P%db" % no
    return (a, b) if rnd == 1 else (b, a)  # round 2: colours swapped


class Desk:
    """The arbiter's desk: the server, its API, and one logged-in browser."""

    def __init__(self, server: Server, browser: Any, pool: ThreadPoolExecutor) -> None:
        self.s, self.b = server, browser
        self.clocks: dict[int, sims.SimClock] = {}
        self.pool = pool  # each press is held there until its lever is up again
        self.down: dict[tuple[int, int], Future[None]] = {}  # (board, side): a press not yet up

    # -- the API (what the players' presses and the scorekeepers' entries do) -------------

    def view(self, no: int) -> dict[str, Any]:
        return self.s.get("/api/boards/%d/session" % no)

    def line(self, no: int, text: str) -> dict[str, Any]:
        got = self.s.post(
            "/api/boards/%d/session" % no, {"line": text, "key": "t-" + uuid.uuid4().hex}
        )
        assert got["ok"], (no, text, got["lines"])
        return got

    def sim(self, no: int) -> sims.SimClock:
        if no not in self.clocks:
            self.clocks[no] = self.s.sim(no)
        return self.clocks[no]

    def press(self, no: int, side: int) -> None:
        """The lever pressed, once its last press is up again: a press of a lever
        still down is no press (the simulator's ``up``), and two plies of a board
        can come faster than a press's 80 ms hold."""
        held = self.down.pop((no, side), None)
        if held is not None:
            held.result(WAIT_S)
        self.down[no, side] = self.pool.submit(sims.press, self.sim(no), LEVER[side], wait_up=True)

    def board(self, no: int | None, fn: Any, what: str) -> Any:
        """``fn()`` once it holds, looked at again at each news of board ``no``
        (any board: None) on the server's WebSocket (hallserver.Server.until)."""
        return self.s.until(fn, what, no)

    def play(self, games: dict[int, list[str]]) -> None:
        """Each board's moves, ply by ply over every board at once: the move entered
        (late entry, as a scorekeeper does), then the mover's press; each press
        waited for until the session has paired it with its move."""
        for ply in range(max(len(m) for m in games.values())):
            now = {no: moves[ply] for no, moves in games.items() if ply < len(moves)}
            for no, mv in now.items():
                moves = self.view(no)["moves"]
                side = len(moves) % 2
                if mv == "pass" and moves and moves[-1]["text"] == "pass":
                    # The second pass ends play and pauses the clock (GO-5): its press
                    # comes first, and the pass entered after it gets its time.
                    self.press(no, side)
                    self.board(no, lambda no=no: self.view(no)["waiting"], "board %d: a press" % no)
                    self.line(no, mv)
                    continue
                self.line(no, mv)
                self.press(no, side)
            with self.s.listening() as ws:  # one socket for this ply's boards
                for no in now:
                    self.s.until(
                        lambda no=no: (
                            (v := self.view(no))["moves"]
                            and v["moves"][-1]["left"] is not None
                            and not v["waiting"]
                        ),
                        "board %d: ply %d paired" % (no, ply),
                        no,
                        ws=ws,
                    )

    # -- the pages --------------------------------------------------------------------------

    def until(self, fn: Any, timeout: float = WAIT_S) -> Any:
        return WebDriverWait(self.b, timeout, poll_frequency=0.05).until(lambda _: fn())

    def text(self, css: str) -> str:
        return self.b.execute_script(
            "const e = document.querySelector(arguments[0]); return e ? e.innerText : ''", css
        )

    def click(self, css: str, answer: bool = True) -> None:
        """Click (found again if the page redrew it, once it can be clicked: a
        button the page shows after an answer), and answer the question it asks
        (the page's own dialog, web/common.js askFirst)."""

        def once() -> bool:
            try:
                self.b.find_element(By.CSS_SELECTOR, css).click()
                return True
            except (StaleElementReferenceException, ElementNotInteractableException):
                return False

        self.until(once)
        if self.b.execute_script("return !!document.querySelector('#ask[open]')"):
            self.b.find_element(By.ID, "ask-yes" if answer else "ask-no").click()

    def board_page(self, no: int) -> None:
        self.b.get(self.s.url + "/board/%d" % no)
        self.until(lambda: self.b.find_element(By.ID, "session-line").is_displayed())
        self.until(lambda: self.b.find_elements(By.CSS_SELECTOR, "#session-body .session-head"))

    def shot(self, name: str, tmp: str, width: int, height: int) -> None:
        self.b.set_window_size(width, height)
        path = os.path.join(SHOTS or tmp, name)
        self.b.save_screenshot(path)
        assert os.path.getsize(path) > 1000


def write_csv(path: str, rnd: int) -> None:
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["board", "first", "second", "game", "control"])
        for no in range(1, N + 1):
            w.writerow([no, *names(rnd, no), game_of(no), CONTROL[game_of(no)]])


def import_and_start(desk: Desk, path: str, rnd: int) -> None:
    """The round's pairings from the CSV file, its date, Import and Start: on the rounds page."""
    b = desk.b
    b.get(desk.s.url + "/rounds")
    desk.until(lambda: b.find_element(By.ID, "import").is_displayed())
    if rnd == 1:
        b.find_element(By.ID, "t-name").send_keys(EVENT)
        b.find_element(By.ID, "t-site").send_keys(SITE)
        b.execute_script("document.getElementById('t-start').value = arguments[0]", DATES[1])
        b.execute_script("document.getElementById('t-end').value = arguments[0]", DATES[2])
        b.find_element(By.ID, "t-save").click()
        desk.until(lambda: b.find_element(By.ID, "t-msg").text == "saved")
    b.find_element(By.ID, "i-file").send_keys(path)
    desk.until(lambda: "P1b" in b.find_element(By.ID, "i-text").get_attribute("value"))
    b.execute_script("document.getElementById('i-date').value = arguments[0]", DATES[rnd])
    b.find_element(By.ID, "i-import").click()
    desk.until(lambda: b.find_element(By.ID, "i-msg").text == "round %d: %d boards" % (rnd, N))
    desk.click("#r-start")
    desk.until(lambda: b.find_element(By.ID, "r-msg").text == "started: %d boards" % N, 90)
    desk.board(
        None,
        lambda: all(x["state"] == "running" for x in desk.s.get("/api/boards")),
        "every clock running",
    )


def results_table(desk: Desk) -> list[list[str]]:
    return desk.b.execute_script(
        "return [...document.querySelectorAll('#results tbody tr')]"
        ".map(r => [...r.cells].map(c => c.innerText))"
    )


def kept(desk: Desk, no: int) -> list[tuple[str, int]]:
    """The board's game as its session paired it: each move and the mover's time after it,
    checked against the clock's own presses (each time is one the clock reported)."""
    moves = [(m["text"], m["left"]) for m in desk.view(no)["moves"]]
    clock = [p["left"] for p in desk.s.get("/api/boards/%d" % no)["presses"]]
    for _, left in moves:
        assert left in clock, (no, left, clock)
    return moves


def counted(desk: Desk, no: int) -> str:
    """The score of a Go game the session counted, as SGF writes it (W+7.5)."""
    view = desk.view(no)
    assert view["over"] and view["score"]
    return str(view["score"]).rsplit("(", 1)[1].rstrip(")")


def fetch(server: Server, path: str) -> bytes:
    with urllib.request.urlopen(server.url + path, timeout=30) as r:
        return r.read()


XQ_OPENING = ["炮二平五", "马８进７", "马二进三"]
REPETITION = ["马二进三", "马８进７", "马三退二", "马７退８"] * 2
GO_PLAY = ["D4", "Q16", "pass", "pass"]


@contextlib.contextmanager
def opened(tmp_path: Any, n: int) -> Iterator[Desk]:
    """An arbiter's desk: a hall server with ``n`` simulated clocks, all up, and
    a laptop-wide chromium; both stopped after."""
    server = Server(str(tmp_path / "hall.sqlite"), n)
    browser = None
    try:
        server.boards_up(server.socket())
        browser = chromium(1366, 768)
        with ThreadPoolExecutor(n) as pool:  # a press of each board at once
            yield Desk(server, browser, pool)
    finally:
        if browser is not None:
            browser.quit()
        server.stop()


@pytest.fixture
def hall(tmp_path):
    with opened(tmp_path, N) as desk:
        yield desk


def test_a_two_round_tournament_from_the_pages(hall, tmp_path):
    desk, server, b = hall, hall.s, hall.b
    t0 = time.monotonic()
    played: dict[tuple[int, int], list[tuple[str, int]]] = {}
    want: dict[tuple[int, int], str] = {}  # PGN's result of each game
    scores: dict[tuple[int, int], str] = {}  # a Go game's SGF result
    xq = [no for no in range(1, N + 1) if game_of(no) == "xiangqi"]

    # -- round 1: pairings from a CSV file on the rounds page, started there ---------------
    b.get(server.url + "/rounds")
    b.find_element(By.ID, "password").send_keys(PASSWORD)
    b.find_element(By.ID, "login").click()
    # Logged in before the page is loaded again (a login under way would be cut off).
    desk.until(lambda: b.find_element(By.ID, "import").is_displayed())
    r1 = str(tmp_path / "round1.csv")
    write_csv(r1, 1)
    import_and_start(desk, r1, 1)
    for no in range(1, N + 1):
        got = server.get("/api/boards/%d" % no)
        assert got["players"] == list(names(1, no)) and got["game"] == game_of(no)
    # A first move on every board but the incidents' own, then the server is killed.
    x1, x2, x3, x4, x5, x6, x7 = xq[:7]
    g1, g2, g3 = GO
    c1, c2, c3 = CHESS
    plain = [no for no in xq if no not in (x1, x3, x4)]
    desk.play({**{no: XQ_OPENING[:1] for no in plain}, g1: ["D4"], g2: ["D4"], c2: ["f3"]})
    server.kill()  # SIGKILL: nothing acknowledged is lost
    server.start()
    server.boards_up(server.socket())
    desk.play(
        {
            **{no: XQ_OPENING[1:] for no in plain},
            x3: REPETITION,
            x4: REPETITION,
            g1: GO_PLAY[1:],
            g2: ["Q16"],
            g3: GO_PLAY,
            c1: ["e4"],
            c2: ["e5", "g4", "Qh4#"],  # the fool's mate: the result from the position
            c3: ["e4", "e5"],
        }
    )

    # A press without a move (XQ-R19), from the page; then a second foul loses (XQ-R17).
    desk.board_page(x1)
    desk.press(x1, 0)
    desk.until(lambda: "waiting for its move: Red" in desk.text(".session-head"))
    desk.click("[data-line='nomove red']")
    desk.board(x1, lambda: desk.view(x1)["fouls"] == [1, 0], "Red's first foul")
    desk.until(lambda: "clock goes back to Red" in desk.text("#session-log"))
    desk.board(x1, lambda: server.get("/api/boards/%d" % x1)["run"] == 0, "the clock to Red")
    desk.play({x1: ["炮二平五"]})
    desk.click("[data-line='foul red']")
    desk.board(x1, lambda: desk.view(x1)["over"], "the game over (a second foul)")
    assert "black wins" in desk.view(x1)["result"].lower()
    assert {"nomove", "foul"} <= {a["kind"] for a in server.get("/api/boards/%d" % x1)["alerts"]}
    want[1, x1] = "0-1"

    # A false claim (XQ-R20): the engine proposes it false; confirmed, a foul and 2 min off.
    desk.board_page(x2)
    red = server.get("/api/boards/%d" % x2)["left"][0]
    desk.click("[data-line='claim red limit']")
    desk.until(lambda: "false" in desk.text("#proposal").lower())
    desk.click("#confirm")
    desk.board(x2, lambda: desk.view(x2)["fouls"] == [1, 0], "Red's foul (a false claim)")
    desk.board(
        x2, lambda: server.get("/api/boards/%d" % x2)["left"][0] <= red - 120000, "2 min off Red"
    )
    desk.line(x2, "resign black")
    want[1, x2] = "1-0"

    # The engine's repetition proposal: confirmed on one board, overruled on another.
    desk.board_page(x3)
    desk.until(lambda: "draw" in desk.text("#proposal"))
    b.execute_script("document.getElementById('confirm').scrollIntoView({block: 'center'})")
    desk.shot("board-ruling.png", str(tmp_path), 1366, 768)
    desk.shot("board-ruling-phone.png", str(tmp_path), 390, 844)
    b.set_window_size(1366, 768)
    desk.click("#confirm", answer=False)  # asked first: dismissed, nothing happens
    assert not desk.view(x3)["over"]
    desk.click("#confirm")
    desk.board(x3, lambda: desk.view(x3)["over"], "the draw confirmed")
    want[1, x3] = "1/2-1/2"
    desk.board_page(x4)
    desk.until(lambda: "draw" in desk.text("#proposal"))
    desk.click("[data-overrule='play']")
    desk.board(x4, lambda: desk.view(x4)["proposal"] is None, "the proposal overruled")
    assert not desk.view(x4)["over"]
    desk.line(x4, "resign red")
    want[1, x4] = "0-1"

    # A knock (EQ-5: the opponent gets 60 s) and a penalty, from the board page's buttons.
    desk.board_page(x5)
    headless.request(headless.address(desk.sim(x5).world, None), "tilt")  # over it goes
    desk.board(x5, lambda: server.get("/api/boards/%d" % x5)["state"] == "knocked", "the knock")
    desk.until(lambda: "knock" in desk.text("#alerts").lower())
    black = server.get("/api/boards/%d" % x5)["left"][1]
    desk.click("[data-knock='0']")  # the ruling: Red knocked the clock over (asked: yes)
    desk.board(
        x5, lambda: server.get("/api/boards/%d" % x5)["left"][1] >= black + 55000, "60 s to Black"
    )
    assert "knock" in {a["kind"] for a in server.get("/api/boards/%d" % x5)["alerts"]}
    desk.line(x5, "resign red")
    want[1, x5] = "0-1"
    desk.board_page(x6)
    black = server.get("/api/boards/%d" % x6)["left"][1]
    b.find_element(By.CSS_SELECTOR, "#pen-side option[value='1']").click()
    box = b.find_element(By.ID, "pen-s")
    box.clear()
    box.send_keys("-30")
    desk.click("#penalty")  # asked first: yes
    desk.board(
        x6, lambda: server.get("/api/boards/%d" % x6)["left"][1] <= black - 30000, "30 s off Black"
    )
    desk.line(x6, "draw")
    want[1, x6] = "1/2-1/2"

    # An illegal chess move (CH-1): taken back on the page, then played again properly.
    desk.board_page(c1)
    desk.click("[data-line='illegal white']")
    desk.board(c1, lambda: desk.view(c1)["moves"] == [], "the illegal move taken back")
    desk.play({c1: ["d4", "d5"]})
    desk.line(c1, "resign black")
    want[1, c1] = "1-0"
    assert desk.view(c2)["over"] and "black wins" in desk.view(c2)["result"].lower()
    want[1, c2] = "0-1"
    desk.line(c3, "draw")
    want[1, c3] = "1/2-1/2"

    # A Go count: dead stones marked by a click on the page, then counted (GO-6).
    desk.board_page(g1)
    desk.until(lambda: "click a chain" in desk.text("#go-score"))
    desk.click("circle.stone[cx='72'][cy='360']")  # D4, Black's stone
    desk.board(g1, lambda: desk.view(g1)["dead"] == ["D4"], "D4 marked dead")
    desk.click("[data-line='count']")
    desk.board(g1, lambda: desk.view(g1)["over"], "the count")
    assert "white wins" in desk.view(g1)["result"].lower()
    want[1, g1], scores[1, g1] = "0-1", counted(desk, g1)
    desk.line(g2, "resign white")
    want[1, g2], scores[1, g2] = "1-0", "B+R"
    desk.line(g3, "count")  # D4 and Q16 alive: White by the komi
    assert "white wins" in desk.view(g3)["result"].lower()
    want[1, g3], scores[1, g3] = "0-1", counted(desk, g3)
    assert scores[1, g3] == "W+7.5"

    # A console (`qizhong arbiter`, a client of the board's session) on a hall game.
    port = server.get("/api/boards/%d" % x7)["port"]
    env = dict(os.environ, QIZHONG_ARBITER_PASSWORD=PASSWORD, QIZHONG_STATE=str(tmp_path))
    desk.press(x7, 1)  # Black's press; its move is the console's to enter
    desk.board(x7, lambda: desk.view(x7)["waiting"] == [1], "Black's press waiting")
    done = subprocess.run(
        [sys.executable, "-m", "qizhong.cli", "arbiter", "--port", port],
        input="马２进３\nfoul black talking\nquit\n",
        capture_output=True, text=True, env=env, timeout=90,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "foul 1 for Black" in done.stdout
    assert norm(desk.view(x7)["moves"][-1]["text"]) == "马2进3" and not desk.view(x7)["waiting"]
    desk.play({x7: ["兵七进一"]})
    for i, no in enumerate(x for x in plain if x not in (x2, x5, x6)):
        res = ("resign black", "1-0") if i % 2 else ("resign red", "0-1")
        desk.line(no, res[0])
        want[1, no] = res[1]
    desk.board(
        None,
        lambda: all(x["state"] == "finished" for x in server.get("/api/boards")),
        "every board of round 1 finished",
    )
    for no in range(1, N + 1):
        played[1, no] = kept(desk, no)
    # The rulings were alerts; each ended with its game (#30): kept, marked over, and the
    # hall page pins none of them, nor counts them in the tab's title.
    for no, kind in ((x1, "foul"), (x5, "knock"), (c1, "foul"), (x3, "proposal")):
        got = server.get("/api/boards/%d" % no)["alerts"]
        assert any(a["kind"] == kind and a["over"] for a in got), (no, kind, got)
        assert all(a["over"] for a in got if "game" in a), (no, got)
    b.get(server.url + "/")
    desk.until(lambda: len(b.find_elements(By.CSS_SELECTOR, ".card")) == N)
    desk.until(lambda: not desk.text("#alerts").strip() and not b.title.startswith("("))

    # -- round 2 on the same clocks; a normal stop of the server in the middle ------------
    r2 = str(tmp_path / "round2.csv")
    write_csv(r2, 2)
    import_and_start(desk, r2, 2)
    desk.clocks.clear()
    games2: dict[int, list[str]] = {no: XQ_OPENING[:2] for no in xq}
    games2.update({no: GO_PLAY for no in GO})
    games2.update({no: ["e4", "c5"] for no in CHESS})
    desk.play({no: moves[:1] for no, moves in games2.items()})
    server.term()  # SIGTERM: the clocks run on, and every game with them
    server.start()
    server.boards_up(server.socket())
    for no in range(1, N + 1):  # each board back with its own control, its session's too
        got, view = server.get("/api/boards/%d" % no), desk.view(no)
        assert got["state"] == "running" and got["spec"] == CONTROL[game_of(no)], (no, got)
        assert view["active"] and view["game"] == game_of(no) and len(view["moves"]) == 1
        if game_of(no) == "go":  # the clock itself runs byo-yomi (3 periods), not 15m+10s
            assert got["periods"] == [3, 3], (no, got)
    desk.play({no: moves[1:] for no, moves in games2.items()})
    for no in range(1, N + 1):
        if game_of(no) == "go":
            desk.line(no, "count")
            want[2, no], scores[2, no] = "0-1", counted(desk, no)
        else:
            res = [("resign black", "1-0"), ("resign red", "0-1"), ("draw", "1/2-1/2")][no % 3]
            desk.line(no, res[0].replace("red", "white") if game_of(no) == "chess" else res[0])
            want[2, no] = res[1]
    desk.board(
        None,
        lambda: all(x["state"] == "finished" for x in server.get("/api/boards")),
        "every board of round 2 finished",
    )
    for no in range(1, N + 1):
        played[2, no] = kept(desk, no)
    # The broadcast: every chess game of round 2 in /live.pgn, with the round's tags.
    live = io.StringIO(fetch(server, "/live.pgn?game=chess").decode("utf-8"))
    heads = [g.headers for g in iter(lambda: chess.pgn.read_game(live), None)]
    assert sorted(int(h["Board"]) for h in heads) == list(CHESS)
    assert {(h["Round"], h["Event"], h["Date"]) for h in heads} == {("2", EVENT, "2026.11.26")}

    # The results table on the page agrees, at a laptop's and a phone's width.
    b.get(server.url + "/rounds")
    desk.until(lambda: len(results_table(desk)) == N)
    desk.until(
        lambda: [r[7] for r in results_table(desk)] == [want[2, no] for no in range(1, N + 1)]
    )
    # Round 1's table (its rulings' results, the Go scores) for the pictures.
    b.find_element(By.CSS_SELECTOR, "#round-list button[data-round='1']").click()
    desk.until(
        lambda: [r[7] for r in results_table(desk)] == [want[1, no] for no in range(1, N + 1)]
    )
    b.execute_script("document.getElementById('round-title').scrollIntoView()")
    desk.shot("rounds-results.png", str(tmp_path), 1366, 768)
    desk.shot("rounds-results-phone.png", str(tmp_path), 390, 844)
    b.execute_script("document.getElementById('round-title').scrollIntoView()")
    desk.shot("rounds-results-phone.png", str(tmp_path), 390, 844)
    # At a phone's width the wide table scrolls in its box; the page does not.
    assert b.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")

    # -- every record of both rounds, read back -------------------------------------------
    for rnd in (1, 2):
        rows = list(
            csv.DictReader(io.StringIO(fetch(server, "/rounds/%d/results.csv" % rnd).decode()))
        )
        assert [int(r["board"]) for r in rows] == list(range(1, N + 1))
        for r in rows:
            no = int(r["board"])
            assert (r["first"], r["second"], r["game"]) == (*names(rnd, no), game_of(no))
            assert r["result"] == want[rnd, no], (rnd, no, r)
            assert r["score"] == scores.get((rnd, no), ""), (rnd, no, r)
            assert int(r["moves"]) == len(played[rnd, no]), (rnd, no, r)
        with zipfile.ZipFile(io.BytesIO(fetch(server, "/rounds/%d.zip" % rnd))) as z:
            for no in range(1, N + 1):  # the zip's records are the round's records
                ext = "sgf" if game_of(no) == "go" else "pgn"
                got = z.read("round%d-board%d.%s" % (rnd, no, ext))
                assert got == fetch(server, "/rounds/%d/%d.%s" % (rnd, no, ext)), (rnd, no)
        for no in range(1, N + 1):
            check_record(server, rnd, no, played[rnd, no], want[rnd, no], scores.get((rnd, no)))
    print("tournament of %d boards: %.1f s" % (N, time.monotonic() - t0))


def check_record(
    server: Server, rnd: int, no: int, moves: list[tuple[str, int]], result: str, score: str | None
) -> None:
    first, second = names(rnd, no)
    texts, times = [norm(m) for m, _ in moves], [t for _, t in moves]
    if game_of(no) == "go":
        game = sgf.Sgf_game.from_bytes(fetch(server, "/rounds/%d/%d.sgf" % (rnd, no)))
        root = game.get_root()
        assert root.get("EV") == EVENT and root.get("RO") == str(rnd)
        assert root.get("DT") == DATES[rnd]
        assert (root.get("PB"), root.get("PW")) == (first, second)
        assert root.get("TM") == 900 and root.get("OT") == "3x30 byo-yomi"  # 15m byoyomi 3x30s
        assert root.get("RE") == score and score[:2] == {"1-0": "B+", "0-1": "W+"}[result]
        got, clocks = [], []
        for node in game.get_main_sequence()[1:]:
            colour, point = node.get_move()
            if colour is None:
                continue
            got.append(
                "pass" if point is None else "ABCDEFGHJKLMNOPQRST"[point[1]] + str(point[0] + 1)
            )
            clocks.append(round(float(node.get("BL" if colour == "b" else "WL")) * 1000))
        assert got == texts, (rnd, no)
        assert all(abs(c - t) < 1000 for c, t in zip(clocks, times, strict=True)), (
            rnd,
            no,
            clocks,
            times,
        )
        return
    data = fetch(server, "/rounds/%d/%d.pgn" % (rnd, no))
    if game_of(no) == "chess":
        game = chess.pgn.read_game(io.StringIO(data.decode("utf-8")))
        assert game is not None
        h = game.headers
        assert (h["White"], h["Black"]) == (first, second)
        got = [n.san() for n in game.mainline()]
        clocks = [round(n.clock() * 1000) for n in game.mainline()]
    else:
        game = xiangqi_pgn.read_game(data)
        h = game.headers
        assert (h["Red"], h["Black"]) == (first, second)
        board, got = game.board(), []
        for mv in game.moves:
            got.append(norm(board.notation(mv)))
            board.push(mv)
        clocks = list(game.clocks)
    assert (h["Event"], h["Site"], h["Round"], h["Board"]) == (EVENT, SITE, str(rnd), str(no))
    assert h["Date"] == DATES[rnd].replace("-", ".")
    assert h["Result"] == result, (rnd, no)
    assert h["TimeControl"] == "900+10", (rnd, no)  # xq-rapid and 15m+10s alike
    assert got == texts, (rnd, no, got, texts)
    # PGN's [%clk] has whole seconds: each the clock's own time, to the second.
    assert len(clocks) == len(times), (rnd, no)
    assert all(abs(c - t) < 1000 for c, t in zip(clocks, times, strict=True)), (
        rnd,
        no,
        clocks,
        times,
    )
