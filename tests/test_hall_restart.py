# SPDX-License-Identifier: GPL-3.0-or-later
"""Restarts of the hall server are safe (#20 item 4, docs/server.md): the
password is kept (hashed), a normal stop ends no game (the simulated clocks
run on), every board comes back with its own control, and an action retried
with its idempotency key is applied once."""

import sqlite3
import urllib.error

import pytest
from hallserver import PASSWORD, Server

from qizhong.server import sims


@pytest.fixture
def made(tmp_path):
    s = Server(str(tmp_path / "hall.sqlite"), 1, password=None)
    yield s
    s.stop()


def test_a_sigterm_keeps_the_password_the_clocks_and_the_game(made):
    said = [x for x in made.said if x.startswith("arbiter's password: ")]
    assert len(said) == 1
    pw = said[0].split(": ", 1)[1]
    made.boards_up(made.socket())
    made.post("/api/boards/1/start", {"side": "red"}, password=pw)
    ws = made.socket()  # before the press: its news is sent once (#32: no status every 2 s)
    sims.press(made.sim(1), "left")
    made.wait(ws, lambda m: m["type"] == "board" and m["board"]["moves"] == [1, 0])
    pid = made.sim(1).pid
    made.term()  # a normal stop
    made.start()
    assert not any(pw in x for x in made.said)  # not printed again: the kept one
    assert "kept" in " ".join(made.said)
    assert made.sim(1).pid == pid  # the same clock, never stopped
    made.boards_up(made.socket())
    b = made.get("/api/boards/1")
    assert b["state"] == "running" and b["moves"] == [1, 0] and b["run"] == 1
    made.post("/api/boards/1/pause", {}, password=pw)  # the same password acts
    with pytest.raises(urllib.error.HTTPError):
        made.post("/api/boards/1/resume", {}, password=PASSWORD)
    with open(made.db, "rb") as f:
        assert pw.encode() not in f.read()  # only its hash is kept


def test_a_board_comes_back_with_the_control_its_clock_runs(tmp_path):
    s = Server(str(tmp_path / "hall.sqlite"), 1)
    try:
        s.boards_up(s.socket())
        s.kill()
        # the board's kept control says one thing, the clock runs another (the API's
        # players refuses a spec that is not the clock's, #21: the file is changed here)
        with sqlite3.connect(s.db) as db:
            db.execute("UPDATE boards SET spec=? WHERE no=1", ("15m byoyomi 3x30s",))
        s.start()
        ws = s.socket()
        s.boards_up(ws)  # then the board takes the control its clock runs
        s.until(
            lambda: s.get("/api/boards/1")["spec"] == "15m+10s", "its clock's control", 1, ws=ws
        )
        assert s.get("/api/boards/1")["spec"] == "15m+10s"
    finally:
        s.stop()


def test_a_retried_penalty_is_applied_once(tmp_path):
    s = Server(str(tmp_path / "hall.sqlite"), 1)
    try:
        s.boards_up(s.socket())
        s.post("/api/boards/1/start", {"side": 0})
        body = {"side": "black", "ms": -30000, "key": "console-7f3a"}
        first = s.post("/api/boards/1/penalty", body)
        s.kill()  # the answer lost with the server: the console sends it again
        s.start()
        s.boards_up(s.socket())
        again = s.post("/api/boards/1/penalty", body)
        assert again["action"] == first["action"] and again["repeated"]
        evs = [e for e in s.get("/api/boards/1/events") if e["name"] == "penalty"]
        assert [(e["side"], e["arg"]) for e in evs] == [(1, -30000)]
    finally:
        s.stop()
