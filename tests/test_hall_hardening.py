# SPDX-License-Identifier: GPL-3.0-or-later
"""#21 items 10-17: the hall server against faults and careless input.

A full disk (a file-size limit set on the running server: every write then
fails at the OS, as with no space left), a second server on the same file,
bad values on every API path, password guessing, and a few hundred clocks'
descriptors (no ``select()`` limit). Real server, real simulated clocks.
The ``server`` fixture (tests/conftest.py): a server with two clocks, a fresh file."""

import http.client
import json
import os
import resource
import subprocess
import sys

from hallserver import PASSWORD, Server, is_event

from qizhong.server import sims


def call(server, method, path, body=None, source="127.0.0.1", password=PASSWORD):
    """(status, JSON answer): any status, from a chosen source address."""
    host, port = server.url.split("//", 1)[1].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10, source_address=(source, 0))
    headers = {"Content-Type": "application/json"}
    if password:
        headers["Authorization"] = "Bearer " + password
    conn.request(method, path, None if body is None else json.dumps(body), headers)
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, json.loads(data), r.headers


def test_a_full_disk_is_an_alert_the_board_stays_live_and_nothing_is_lost(server):
    """Item 10: with every write refused (RLIMIT_FSIZE 0 on the server: EFBIG,
    as ENOSPC on a full disk), a press is not kept: an alert says so, the
    board stays up, an action answers 503 (not sent). With space back the
    press is fetched again from the clock, and actions work."""
    ws = server.socket()
    server.boards_up(ws)
    server.post("/api/boards/1/start", {"side": 0})
    pid = server.proc.pid
    limit = resource.prlimit(pid, resource.RLIMIT_FSIZE)
    resource.prlimit(pid, resource.RLIMIT_FSIZE, (0, limit[1]))
    try:
        sims.press(server.sim(1), "left")
        m = server.wait(
            ws,
            lambda m: (
                m["type"] == "board"  # not a beat (one every 5 s)
                and m["board"]["no"] == 1
                and any(a["kind"] == "store" for a in m["board"]["alerts"])
            ),
        )
        assert m["board"]["link"] == "up", m["board"]
        # the board live from the clock's status, asked with the alert (#32: not every 2 s)
        assert m["board"]["moves"] == [1, 0], m["board"]
        status, body, _ = call(server, "POST", "/api/boards/1/pause", {})
        assert status == 503 and "cannot be written" in body["error"]
        board = server.get("/api/boards/1")
        assert board["state"] == "running", json.dumps(board)  # the pause was not sent
        assert board["moves"] == [1, 0], json.dumps(board)
    finally:
        resource.prlimit(pid, resource.RLIMIT_FSIZE, limit)
    server.wait(ws, is_event("press", 1))  # fetched again from the clock, now kept
    server.post("/api/boards/1/pause", {})
    server.wait(ws, is_event("pause", 1))
    presses = [e for e in server.events() if e["name"] == "press"]
    assert [(e["board"], e["side"]) for e in presses] == [(1, 0)]
    assert all(a["outcome"] == "ok" for a in server.get("/api/actions"))


def test_a_second_server_on_the_same_file_is_refused(server):
    """Item 11: it says who has the file, and starts and stops nothing."""
    ws = server.socket()
    server.boards_up(ws)
    env = dict(os.environ, QIZHONG_ARBITER_PASSWORD=PASSWORD)
    try:
        second = subprocess.run(
            [sys.executable, "-m", "qizhong.cli", "serve", "--sim", "2", "--db", server.db,
             "--listen", "127.0.0.1:0", "--name", "second"],
            capture_output=True, text=True, env=env, timeout=30,
        )  # fmt: skip
    finally:  # on main it started clocks of its own: stop them
        folder = server.db + ".sims"
        for name in os.listdir(folder):
            got = sims._alive(os.path.join(folder, name)) if name.startswith("second-") else None
            if got is not None:
                sims.stop([got])
    assert second.returncode == 1
    assert "in use by another qizhong serve (pid %d)" % server.proc.pid in second.stderr
    assert [b["link"] for b in server.get("/api/boards")] == ["up", "up"]
    server.post("/api/boards/1/start", {"side": 0})  # its clocks still run, and report here
    server.wait(ws, is_event("start", 1))


def test_bad_values_answer_json_400_and_nothing_stays_pending(server):
    """Items 13, 14, 15."""
    ws = server.socket()
    server.boards_up(ws)
    server.post("/api/boards/2/start", {"side": 0})
    from qizhong.sim import headless

    headless.request(headless.address(server.sim(2).world, None), "tilt")
    m = server.wait(  # a board's news, not a beat
        ws,
        lambda m: m["type"] == "board" and any(a["kind"] == "knock" for a in m["board"]["alerts"]),
    )
    alert = next(a for a in m["board"]["alerts"] if a["kind"] == "knock")["id"]
    # 13: an ack through another board's URL
    assert call(server, "POST", "/api/boards/1/ack", {"event": alert})[0] == 404
    assert any(a["id"] == alert for a in server.get("/api/boards/2")["alerts"])
    # 15: bad controls, queries and numbers: a JSON 400 each
    for path, body in (
        ("/api/boards/1/config", {"spec": "15m+10s ☃"}),
        ("/api/boards/1/config", {"spec": "15m+10s" + " " * 300}),
        ("/api/boards/2/ack", {"event": 10**30}),
        ("/api/boards/1/penalty", {"side": 0, "ms": 10**30}),
        ("/api/boards/1/players", {"first": "Li\n1-0"}),
        ("/api/boards/1/players", {"spec": "banana"}),  # 14: unreadable
        ("/api/boards/1/request", {"text": "7 penalty 0 1000 ☃"}),  # not a frame's bytes
    ):
        status, answer, _ = call(server, "POST", path, body)
        assert status == 400 and answer["error"], (path, body, status)
    status, answer, _ = call(server, "GET", "/api/events?after=abc")
    assert status == 400 and "after" in answer["error"]
    for path in ("/api/boards/" + "9" * 5000, "/api/boards/" + "9" * 5000 + "/events"):
        assert call(server, "GET", path)[0] == 400
    # 14: a spec that is not the clock's control (xq-rapid: 15m+10s)
    status, answer, _ = call(server, "POST", "/api/boards/1/players", {"spec": "5m+5s"})
    assert status == 409 and "config" in answer["error"]
    server.post("/api/boards/1/players", {"spec": "15m+10s"})  # the same control is taken
    server.post("/api/boards/2/ack", {"event": alert})
    assert not server.get("/api/boards/2")["alerts"]
    assert [a for a in server.get("/api/actions") if a["outcome"] == "pending"] == []


def test_logins_are_rate_limited_per_address(server):
    """Item 16: after 5 wrong passwords an address waits (429, Retry-After),
    even with the right one; another address is not held up."""
    codes = [call(server, "POST", "/api/login", {"password": "guess%d" % i}, password="")[0]
             for i in range(12)]  # fmt: skip
    assert codes[:5] == [403] * 5 and set(codes[5:]) == {429}, codes
    status, _, headers = call(server, "POST", "/api/login", {"password": PASSWORD}, password="")
    assert status == 429 and int(headers["Retry-After"]) >= 1
    status, body, _ = call(
        server, "POST", "/api/login", {"password": PASSWORD}, source="127.0.0.2", password=""
    )
    assert status == 200 and body == {"arbiter": True}
    # A script's password (Authorization: Bearer) is counted the same way.
    codes = [call(server, "POST", "/api/boards/1/pause", {}, source="127.0.0.3",
                  password="guess%d" % i)[0] for i in range(8)]  # fmt: skip
    assert codes[:5] == [401] * 5 and set(codes[5:]) == {429}, codes


def test_events_come_in_bounded_pages_none_lost_or_doubled(tmp_path):
    """``/api/events`` answered a long day's events in one answer: now a page
    of at most 1,000 (``?limit=`` up to 5,000), the next one named by a
    ``Link: <...>; rel="next"`` header; every event once across the pages.
    Bad paging values are a JSON 400 naming the parameter."""
    from qizhong.clocks.link import Event
    from qizhong.server.client import ServerLink, next_page
    from qizhong.server.store import Store

    db = str(tmp_path / "hall.sqlite")
    store = Store(db)
    boards = [
        store.board_for("day-%d" % k, "/dev/day%d" % k, "xiangqi", "xq-rapid") for k in (1, 2)
    ]
    for seq in range(1, 1301):  # a long day: 2,600 events on two boards, interleaved
        for b in boards:
            store.add_event(b.no, "boot1", Event(seq, seq * 1000, "press", seq % 2, 0, (9, 9)))
    kept = [st.id for st in store.events()]
    store.close()
    assert len(kept) == 2600
    s = Server(db, 0)
    try:
        status, first, headers = call(s, "GET", "/api/events")
        assert status == 200 and len(first) == 1000
        assert next_page(headers["Link"]) == "/api/events?after=%d&limit=1000" % first[-1]["id"]
        assert [e["id"] for e in s.events()] == kept  # all, in order, each once
        seen, at, pages = [], "/api/events?limit=7", 0
        while at is not None:
            status, rows, headers = call(s, "GET", at)
            assert status == 200 and len(rows) <= 7
            seen += [e["id"] for e in rows]
            at, pages = next_page(headers.get("Link", "")), pages + 1
        assert seen == kept and pages == -(-2600 // 7)
        mine = [e["id"] for e in s.events("/api/boards/2/events?limit=500")]
        assert len(mine) == 1300 and set(mine) == {e for e in kept if e % 2 == 0}
        assert len(s.get("/api/events?limit=5000")) == 2600
        # The command line's link to a served clock reads past the first page too.
        assert ServerLink(s.url, 2, "/dev/day2")._row == kept[-1]
        for query, name in (
            ("limit=0", "limit"),
            ("limit=5001", "limit"),
            ("limit=abc", "limit"),
            ("limit=" + "9" * 40, "limit"),
            ("limit=-1", "limit"),
            ("after=-1", "after"),
            ("after=1.5", "after"),
            ("afterr=3", "afterr"),
        ):
            for path in ("/api/events?", "/api/boards/1/events?"):
                status, answer, _ = call(s, "GET", path + query)
                assert status == 400 and answer["error"].startswith(name), (query, answer)
    finally:
        s.stop()
