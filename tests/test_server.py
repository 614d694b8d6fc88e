# SPDX-License-Identifier: GPL-3.0-or-later
"""The hall server (#15, docs/server.md) through its API, with simulated clocks.

A real ``qizhong serve`` process with two real-time simulated clocks (the
real firmware), driven as an arbiter and players would: levers pressed,
actions over HTTP, news over the WebSocket, the server killed with SIGKILL
mid-game and started again on the same clocks and file."""

import os
import sqlite3
import subprocess
import sys
import urllib.request

import pytest
from hallserver import PASSWORD, Server

from qizhong.server import sims


@pytest.fixture
def server(tmp_path):
    s = Server(str(tmp_path / "hall.sqlite"), 2)
    yield s
    s.stop()


def is_event(name, board=None):
    def pred(m):
        ev = m.get("event")
        return bool(ev) and ev["name"] == name and board in (None, ev["board"])

    return pred


def test_press_penalty_and_the_public_cannot_act(server):
    ws = server.socket()
    server.boards_up(ws)
    server.post("/api/boards/1/start", {"side": "red"})
    sims.press(server.sim(1), "left")  # Red's lever on the left (EQ-1)
    m = server.wait(ws, is_event("press", 1))
    assert m["board"]["moves"] == [1, 0] and m["board"]["run"] == 1
    # EQ-5 penalty by the arbiter: the clock takes 60 s off Black and says so.
    before = server.get("/api/boards/1")["left"][1]
    server.post("/api/boards/1/penalty", {"side": "black", "ms": -60000})
    m = server.wait(ws, is_event("penalty", 1))
    assert m["event"]["arg"] == -60000 and m["event"]["side"] == 1
    assert before - 60000 - 2000 < m["board"]["left"][1] <= before - 60000
    # The public (no password, or a wrong one) cannot act; nothing reaches the clock.
    assert server.status_of("/api/boards/1/pause", {}) == 401
    assert server.status_of("/api/boards/1/pause", {}, password=PASSWORD + "x") == 401
    assert server.status_of("/api/login", {"password": "nope"}) == 403
    assert server.get("/api/boards/1")["state"] == "running"
    # A refusal by the clock is an error that says why, and changes nothing.
    assert server.status_of("/api/boards/1/penalty", {"side": 0, "ms": "x"}, PASSWORD) == 400
    acts = server.get("/api/actions")
    assert [a["verb"] for a in acts] == ["start", "penalty"]
    assert all(a["outcome"] == "ok" for a in acts)


def test_a_tilt_is_an_alert_until_acknowledged(server):
    ws = server.socket()
    server.boards_up(ws)
    server.post("/api/boards/2/start", {"side": 0})
    from qizhong.sim import headless

    headless.request(headless.address(server.sim(2).world, None), "tilt")
    m = server.wait(
        ws,
        lambda m: (
            m["type"] == "board"
            and m["board"]["no"] == 2
            and any(a["kind"] == "knock" for a in m["board"]["alerts"])
        ),
    )
    alert = next(a for a in m["board"]["alerts"] if a["kind"] == "knock")
    assert server.status_of("/api/boards/2/ack", {"event": alert["id"]}) == 401
    server.post("/api/boards/2/ack", {"event": alert["id"]})
    assert not any(a["kind"] == "knock" for a in server.get("/api/boards/2")["alerts"])


def test_sigkill_mid_game_loses_nothing(server):
    ws = server.socket()
    server.boards_up(ws)
    server.post("/api/boards/1/start", {"side": 0})
    for lever in ("left", "right", "left"):
        sims.press(server.sim(1), lever, 40, wait_up=True)  # up before the next press
        server.wait(ws, is_event("press", 1))
    server.post("/api/boards/1/penalty", {"side": 1, "ms": 30000})
    server.wait(ws, is_event("penalty", 1))
    events = server.events()
    actions = server.get("/api/actions")
    clock = server.sim(1)
    server.kill()  # SIGKILL: no goodbye
    # The game goes on at the table while the server is down.
    sims.press(clock, "right")
    server.start()
    ws = server.socket()
    server.boards_up(ws)
    after = server.events()
    assert after[: len(events)] == events  # everything acknowledged is still there
    assert server.get("/api/actions") == actions
    board = server.get("/api/boards/1")
    assert board["moves"] == [2, 2]  # and the press made while the server was down
    presses = [e for e in after if e["board"] == 1 and e["name"] == "press"]
    assert [p["side"] for p in presses] == [0, 1, 0, 1]
    assert [e["seq"] for e in after if e["board"] == 1 and e["boot"] != "host"] == sorted(
        {e["seq"] for e in after if e["board"] == 1 and e["boot"] != "host"}
    )
    # The file is plain SQLite in WAL mode: any tool reads it.
    db = sqlite3.connect(server.db)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("SELECT count(*) FROM events").fetchone()[0] == len(after)
    assert os.path.exists(server.db + "-wal")


def test_a_second_program_cannot_take_a_served_clock(server):
    from qizhong.clocks.link import Link, PortBusy

    server.boards_up(server.socket())
    with pytest.raises(PortBusy, match="in use by pid"):
        Link(server.sim(1).serial)


def test_moves_the_live_pgn_and_sgf(server):
    from qizhong.records import go_sgf, xiangqi_pgn

    ws = server.socket()
    server.boards_up(ws)
    server.post("/api/boards/1/start", {"side": 0})
    for text, lever in (("炮二平五", "left"), ("马８进７", "right")):
        server.post("/api/boards/1/move", {"text": text})
        sims.press(server.sim(1), lever, 40, wait_up=True)
        server.wait(ws, is_event("press", 1))
    # An illegal move is refused by the rules engine, and nothing is kept.
    assert server.status_of("/api/boards/1/move", {"text": "车一进九"}, PASSWORD) == 400
    # XQ-R24: the record, each move with the mover's time left after its press.
    with urllib.request.urlopen(server.url + "/live.pgn", timeout=10) as r:
        live = r.read().decode()
    games = xiangqi_pgn.read_games(live)
    assert len(games) == 2  # both boards' current games
    game = next(g for g in games if g.headers.get("Board") == "1")
    presses = server.get("/api/boards/1")["presses"]
    assert game.clocks == [p["left"] for p in presses]
    assert [game.board().notation(game.moves[0])] == ["炮二平五"]
    assert "[%clk 0:15:" in live
    # A Go board: its moves as SGF with the times.
    server.post("/api/boards/2/players", {"game": "go", "first": "Li", "second": "Wang"})
    server.post("/api/boards/2/start", {"side": "black"})
    server.post("/api/boards/2/move", {"text": "D4"})
    sims.press(server.sim(2), "left", 40, wait_up=True)
    server.wait(ws, is_event("press", 2))
    with urllib.request.urlopen(server.url + "/boards/2.sgf", timeout=10) as r:
        rec = go_sgf.read(r.read())
    assert [m.gtp() for m in rec.board.move_stack] == ["D4"] and rec.black == "Li"
    assert rec.times[0].left_ms == server.get("/api/boards/2")["presses"][0]["left"]
    # The moves survive a restart (they are in the file).
    server.kill()
    server.start()
    assert server.get("/api/boards/1")["played_moves"] == ["炮二平五", "马8进7"]


def test_a_lost_clock_is_an_alert(server):
    ws = server.socket()
    server.boards_up(ws)
    clock = server.sim(2)
    sims.stop([clock])  # its power cut: the port goes away
    m = server.wait(
        ws,
        lambda m: m["type"] == "board" and m["board"]["no"] == 2 and m["board"]["link"] == "lost",
    )
    assert [a["kind"] for a in m["board"]["alerts"]] == ["lost"]
    assert server.get("/api/boards/1")["link"] == "up"  # the others go on


def test_a_held_lever_is_an_alert(server):
    ws = server.socket()
    server.boards_up(ws)
    server.post("/api/boards/1/start", {"side": 0})
    # EQ-3: Red presses and keeps a hand on the lever past 2 s.
    sims.press(server.sim(1), "left", 2300)
    m = server.wait(
        ws,
        lambda m: (
            m["type"] == "board"
            and m["board"]["no"] == 1
            and any(a["kind"] == "held" for a in m["board"]["alerts"])
        ),
    )
    assert m["board"]["held"] == 0 and m["board"]["moves"] == [1, 0]


def test_qizhong_commands_on_a_served_clock_go_through_the_server(server):
    ws = server.socket()
    server.boards_up(ws)
    port = server.sim(1).serial

    def qizhong(*args, password=PASSWORD):
        env = dict(os.environ, QIZHONG_ARBITER_PASSWORD=password)
        return subprocess.run(
            [sys.executable, "-m", "qizhong.cli", *args, "--port", port],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )

    done = qizhong("start")
    assert done.returncode == 0, done.stderr
    server.wait(ws, is_event("start", 1))
    shown = qizhong("status", password="")  # a query needs no password
    assert shown.returncode == 0 and "running" in shown.stdout, shown.stderr
    refused = qizhong("pause", password="")
    assert refused.returncode != 0 and "QIZHONG_ARBITER_PASSWORD" in refused.stderr
    assert server.get("/api/boards/1")["state"] == "running"
    assert [a["verb"] for a in server.get("/api/actions")] == ["request"]


def test_a_chess_board_moves_live_pgn_and_restart(server):
    """#16 on the hall server: a chess board's moves checked by qizhong.rules.chess,
    paired with the clock's presses (CH-1: each move's time is its press's), its PGN
    read back by python-chess with the same moves and [%clk] times, kept across a
    SIGKILL of the server."""
    import chess

    from qizhong.records import chess_pgn

    ws = server.socket()
    server.boards_up(ws)
    # A control with a delay tells its game: loading it makes board 2 a chess board.
    server.post("/api/boards/2/config", {"spec": "5m delay 2s"})
    assert server.get("/api/boards/2")["game"] == "chess"
    server.post("/api/boards/2/players", {"first": "Anderssen", "second": "Kieseritzky"})
    server.post("/api/boards/2/start", {"side": "white"})
    for text, lever in (("e4", "left"), ("e7e5", "right"), ("Nf3", "left")):  # SAN or UCI
        server.post("/api/boards/2/move", {"text": text})
        sims.press(server.sim(2), lever, 40, wait_up=True)
        server.wait(ws, is_event("press", 2))
    # An illegal move (and a Xiangqi one) is refused; nothing is kept.
    assert server.status_of("/api/boards/2/move", {"text": "Ke3"}, PASSWORD) == 400
    assert server.status_of("/api/boards/2/move", {"text": "炮二平五"}, PASSWORD) == 400
    detail = server.get("/api/boards/2")
    assert detail["played_moves"] == ["e4", "e5", "Nf3"]  # kept as SAN
    assert detail["position"]["kind"] == "chess" and "<svg" in detail["position"]["svg"]
    assert detail["position"]["fen"].startswith("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/")
    assert detail["record"] == "/boards/2.pgn"
    presses = [p["left"] for p in detail["presses"]]
    with urllib.request.urlopen(server.url + "/live.pgn", timeout=10) as r:
        live = r.read().decode()
    assert live.count("[Event ") == 2  # board 1's Xiangqi game and board 2's chess game
    with urllib.request.urlopen(server.url + "/live.pgn?game=chess", timeout=10) as r:
        only = chess_pgn.read(r.read().decode())
    assert only.headers["Board"] == "2" and only.headers["TimeControl"] == "?"
    assert only.headers["ClockSpec"]  # a delay PGN cannot say: the clock's own spec
    assert [m.uci() for m in only.mainline_moves()] == ["e2e4", "e7e5", "g1f3"]
    assert chess_pgn.clocks_ms(only) == presses
    assert only.headers["White"] == "Anderssen"
    # A Fischer control PGN can say, on the same board's next game.
    server.post("/api/boards/2/new", {})
    server.post("/api/boards/2/config", {"spec": "3m+2s"})
    server.post("/api/boards/2/start", {"side": 0})
    server.post("/api/boards/2/move", {"text": "d2d4"})
    sims.press(server.sim(2), "left", 40, wait_up=True)
    server.wait(ws, is_event("press", 2))
    with urllib.request.urlopen(server.url + "/boards/2.pgn", timeout=10) as r:
        text = r.read().decode()
    game = chess_pgn.read(text)
    assert game.headers["TimeControl"] == "180+2" and "[%clk " in text
    assert chess_pgn.clocks_ms(game) == [server.get("/api/boards/2")["presses"][0]["left"]]
    assert game.end().board().piece_at(chess.D4) == chess.Piece(chess.PAWN, chess.WHITE)
    # SIGKILL and a restart: the chess moves are still the board's.
    server.kill()
    server.start()
    after = server.get("/api/boards/2")
    assert after["game"] == "chess" and after["played_moves"] == ["d4"]
    with urllib.request.urlopen(server.url + "/boards/2.pgn", timeout=10) as r:
        assert r.read().decode() == text
    server.post("/api/boards/2/move", {"text": "Nf6"})  # the game goes on from there
    assert server.get("/api/boards/2")["played_moves"] == ["d4", "Nf6"]
