# SPDX-License-Identifier: GPL-3.0-or-later
"""What the hall page's alerts need from the server (#20 item 5, docs/server.md):
the knocker named in the knock's alert (EQ-5), a board's action log
(``GET /api/boards/N/actions``), and a heartbeat on the WebSocket."""

from __future__ import annotations

import argparse
import json
import urllib.error
import urllib.request

import pytest

from qizhong.clocks.link import Event
from qizhong.server import main as server_main
from qizhong.server.board import BoardState
from qizhong.server.store import Board, Stored
from qizhong.sim import headless


def stored(i, name, side, arg=0, left=(900000, 900000)):
    return Stored(i, 1, "b", Event(i, 1000 * i, name, side, arg, left), 0)


def test_the_knock_alert_names_the_knocker_from_the_clocks_own_events():
    """EQ-5 named on the clock's own keys (no arbiter action): the +60 s the clock
    gives the knocker's opponent while knocked over names the knocker."""
    st = BoardState(Board(1, "c", "p", "xiangqi", "", "", ""))
    st.apply(stored(1, "start", 0))
    st.apply(stored(2, "penalty", 1, -30000))  # a penalty in play names nobody
    st.apply(stored(3, "knock", 0))  # Red's time ran
    assert st.alerts[-1] == {
        "id": 3, "kind": "knock", "side": 0, "t": 3000, "host_ms": 0, "knocker": -1, "bonus": 0,
        "game": 1,
    }  # fmt: skip
    assert st.view()["knocker"] == -1
    st.apply(stored(4, "penalty", 0, 60000))  # Red gets the minute: Black knocked it
    assert (st.alerts[-1]["knocker"], st.alerts[-1]["bonus"]) == (1, 60000)
    assert st.view()["knocker"] == 1
    st.apply(stored(5, "penalty", 0, 5000))  # a later penalty changes nothing of it
    assert (st.alerts[-1]["knocker"], st.alerts[-1]["bonus"]) == (1, 60000)
    st.apply(stored(6, "resume", 0))
    st.apply(stored(7, "knock", 0))
    st.apply(stored(8, "penalty", 1, -10000))  # time taken while knocked over: no ruling
    assert st.alerts[-1]["knocker"] == -1 and st.view()["knocker"] == -1
    st.apply(stored(9, "resume", 0))
    st.apply(stored(10, "knock", 0))  # a third knock waits for its own ruling
    assert st.alerts[-1]["knocker"] == -1 and st.view()["knocker"] == -1


HALL_SERVER = {"extra": ("--heartbeat", "0.2")}


def status(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


def test_knock_ruling_action_log_and_heartbeat(server):
    ws = server.socket()
    hello = ws.hello
    assert hello["beat_ms"] == 200
    server.wait(ws, lambda m: m["type"] == "beat", timeout=5)  # proof of life, twice
    server.wait(ws, lambda m: m["type"] == "beat", timeout=5)
    server.boards_up(server.socket())
    server.post("/api/boards/1/players", {"first": "吕钦"})
    server.post("/api/boards/1/start", {"side": 0})
    server.post("/api/boards/2/start", {"side": 0})
    headless.request(headless.address(server.sim(1).world, None), "tilt")
    server.wait(ws, lambda m: m["type"] == "board" and m["board"]["state"] == "knocked")
    black = server.get("/api/boards/1")["left"][1]
    server.post("/api/boards/1/knock", {"side": "red"})
    m = server.wait(ws, lambda m: m["type"] == "board" and m["board"]["knocker"] == 0)
    knock = next(a for a in m["board"]["alerts"] if a["kind"] == "knock")
    assert (knock["side"], knock["knocker"], knock["bonus"]) == (0, 0, 60000)
    assert m["board"]["left"][1] == black + 60000
    # The board's log: its own actions only, oldest first, and after an id.
    log = server.get("/api/boards/1/actions")
    assert [(a["verb"], a["args"], a["outcome"]) for a in log] == [
        ("players", {"first": "吕钦"}, "ok"),  # done, not "pending" for ever
        ("start", {"side": 0}, "ok"),
        ("knock", {"side": "red"}, "ok"),
    ]
    assert server.get("/api/boards/1/actions?after=%d" % log[1]["id"]) == log[2:]
    assert [a["verb"] for a in server.get("/api/boards/2/actions")] == ["start"]
    assert status(server.url + "/api/boards/1/actions?after=x")[0] == 400
    assert status(server.url + "/api/boards/9/actions") == (404, {"error": "no board 9"})
    # A restart rebuilds the named knock from the kept events.
    server.kill()
    server.start()
    alerts = server.get("/api/boards/1")["alerts"]
    assert [(a["kind"], a["knocker"], a["bonus"]) for a in alerts] == [("knock", 0, 60000)]


def test_a_heartbeat_out_of_range_is_refused(tmp_path, capsys):
    parser = argparse.ArgumentParser()
    server_main.add_arguments(parser)
    for bad in ("0", "nan", "61"):
        args = parser.parse_args(["--heartbeat", bad, "--db", str(tmp_path / "h.sqlite")])
        assert server_main.main(args) == 2
        assert "--heartbeat: 0.1 to 60 seconds" in capsys.readouterr().err
    assert not (tmp_path / "h.sqlite").exists()  # refused before anything was made


def test_another_servers_knock_alert_keeps_the_named_knocker():
    """A board state from another server (over the broker) is rebuilt from the
    schema: the knock's named knocker and bonus survive it, out-of-range ones
    are refused (#20 item 5 with #21 item 4)."""
    from qizhong.server import validate

    view = {
        "server": "hall-b",
        "clock_id": "c1",
        "no": 2,
        "game": "xiangqi",
        "players": ["A", "B"],
        "link": "up",
        "state": "knocked",
        "run": 0,
        "left": [60000, 60000],
        "t": 0,
        "now": 0,
        "moves": [1, 1],
        "result": -1,
        "flag": [False, False],
        "knocker": 0,
        "alerts": [{"id": 1, "kind": "knock", "side": 0, "knocker": 0, "bonus": 60000}],
    }
    out = validate.remote_view(view, "c1", "http://10.0.0.2:8080/")
    assert out["knocker"] == 0
    assert out["alerts"][0]["knocker"] == 0 and out["alerts"][0]["bonus"] == 60000
    view["alerts"][0]["knocker"] = 5
    with pytest.raises(validate.Invalid):
        validate.remote_view(view, "c1", "http://10.0.0.2:8080/")
