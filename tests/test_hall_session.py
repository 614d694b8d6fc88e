# SPDX-License-Identifier: GPL-3.0-or-later
"""Every board's game in the server (#20 item 1, docs/server.md): the
console's session, taken over HTTP, kept in the store, rebuilt on a restart.

A real ``qizhong serve`` with simulated clocks (real firmware); levers are
pressed as players do, the arbiter acts over the API."""

import urllib.request

from hallserver import PASSWORD, Server

from qizhong.records import xiangqi_pgn
from qizhong.server import sims

HALL_SERVER = {"n": 1}


def line(server, text, key=None):
    body = {"line": text}
    if key:
        body["key"] = key
    return server.post("/api/boards/1/session", body)


def alert_kinds(server):
    return [a["kind"] for a in server.get("/api/boards/1")["alerts"]]


def wait_for(server, ws, pred):
    """Until the session view satisfies ``pred``: looked at now, then at each
    board message (news is sent once since #32, not again by a status every 2 s)."""
    server.until(lambda: pred(server.get("/api/boards/1/session")), "the session's view", ws=ws)


def test_xq_r19_a_foul_idempotency_and_a_restart(server):
    ws = server.socket()
    server.boards_up(ws)
    # A session that rules a press without a move at once (XQ-R19), as the console does.
    got = server.post(
        "/api/boards/1/session/new", {"options": {"late_entry": False, "red": "Hu", "black": "Xu"}}
    )
    assert got["session"]["strict"] and got["session"]["kind"] == "xiangqi"
    line(server, "start")
    assert line(server, "炮二平五")["ok"]
    sims.press(server.sim(1), "left", wait_up=True)  # Red's move, pressed
    wait_for(server, ws, lambda v: v["moves"] and v["moves"][0]["left"] is not None)
    sims.press(server.sim(1), "right", wait_up=True)  # Black presses without a move: XQ-R19
    wait_for(server, ws, lambda v: v["fouls"][1] == 1)
    assert "nomove" in alert_kinds(server)
    # Black's move, then its press: the record's times are the session's pairing (the
    # press ruled on, XQ-R19, is no move's), in the board's PGN as in the session.
    assert line(server, "马８进７")["ok"]
    sims.press(server.sim(1), "right")
    wait_for(server, ws, lambda v: len(v["moves"]) == 2 and v["moves"][1]["left"] is not None)
    want = [m["left"] for m in server.get("/api/boards/1/session")["moves"]]
    with urllib.request.urlopen(server.url + "/boards/1.pgn", timeout=10) as r:
        assert xiangqi_pgn.read_game(r.read()).clocks == want
    # A foul by the arbiter, sent twice with one key (a retry): applied once.
    first = line(server, "foul red talking", key="k-foul-1")
    again = line(server, "foul red talking", key="k-foul-1")
    assert first["ok"] and again.get("repeated")
    view = server.get("/api/boards/1/session")
    assert view["fouls"] == [1, 1] and not view["over"]
    assert alert_kinds(server) == ["nomove", "foul"]  # XQ-R19 and the arbiter's foul
    # An illegal move is refused with the rules engine's reason; nothing changes.
    assert server.status_of("/api/boards/1/move", {"text": "车一进九"}, PASSWORD) == 400
    # SIGKILL: the session comes back from the store, the same key still applied once.
    server.kill()
    server.start()
    ws = server.socket()
    server.boards_up(ws)
    view = server.get("/api/boards/1/session")
    assert view["fouls"] == [1, 1] and len(view["moves"]) == 2
    assert line(server, "foul red talking", key="k-foul-1").get("repeated")
    assert server.get("/api/boards/1/session")["fouls"] == [1, 1]
    # A second foul loses (XQ-R17): the game ends from the session, and the clock shows it.
    line(server, "foul black again")
    view = server.get("/api/boards/1/session")
    assert view["over"] and "red wins" in view["result"].lower()
    server.wait(ws, lambda m: m["type"] == "board" and m["board"]["state"] == "finished")
    # The session's own record: the move, the rulings as comments, the result.
    with urllib.request.urlopen(server.url + "/api/boards/1/session/record", timeout=10) as r:
        rec = r.read().decode("utf-8")
    assert "炮二平五" in rec and "XQ-R19" in rec and '[Result "1-0"]' in rec
    # After the next game is begun, the game's record keeps the session's times too.
    server.post("/api/boards/1/new", {})
    with urllib.request.urlopen(server.url + "/boards/1/games/1.pgn", timeout=10) as r:
        assert xiangqi_pgn.read_game(r.read()).clocks == want


def test_the_page_cannot_make_the_server_write_files(server):
    server.boards_up(server.socket())
    for text in ("save /tmp/x.pgn", "quit", "board /tmp/x.svg", "a\nb", "x" * 600):
        assert server.status_of("/api/boards/1/session", {"line": text}, PASSWORD) == 400
    assert server.status_of("/api/boards/1/session", {"line": "foul red"}) == 401


def test_an_illegal_chess_move_ruled_from_the_api(server):
    ws = server.socket()
    server.boards_up(ws)
    server.post("/api/boards/1/players", {"game": "chess"})
    got = server.post(
        "/api/boards/1/session/new",
        {"options": {"spec": "rapid", "late_entry": False}, "configure": True},
    )
    assert got["session"]["kind"] == "chess" and got["session"]["spec"] == "15m+10s"
    line(server, "start")
    assert line(server, "e4")["ok"]
    sims.press(server.sim(1), "left")  # White's lever (left, CH-1 default)
    wait_for(server, ws, lambda v: v["moves"] and v["moves"][0]["left"] is not None)
    black = server.get("/api/boards/1")["left"][1]
    assert line(server, "illegal white")[
        "ok"
    ]  # CH-1 7.5: the position before it; Black +1 min (A.3)
    view = server.get("/api/boards/1/session")
    assert view["moves"] == [] and any("illegal move 1 for White" in n["text"] for n in view["log"])
    assert "foul" in alert_kinds(server)
    server.wait(ws, lambda m: m["type"] == "board" and m["board"]["left"][1] > black + 50000)


def test_go_dead_stones_and_the_count(server):
    server.boards_up(server.socket())
    server.post("/api/boards/1/players", {"game": "go"})
    server.post("/api/boards/1/session/new", {"options": {"spec": "go-byoyomi"}, "configure": True})
    # The control the session loaded on the clock is the board's (its page, its record).
    assert server.get("/api/boards/1")["spec"] == "60m byoyomi 3x60s"
    for mv in ("D4", "Q16", "pass", "pass"):
        assert line(server, mv)["ok"], mv
    view = server.get("/api/boards/1/session")
    assert view["kind"] == "go" and view["play_over"] and not view["over"]
    line(server, "dead D4")
    view = server.get("/api/boards/1/session")
    assert view["dead"] == ["D4"] and "W+" in view["score"]
    line(server, "count")
    view = server.get("/api/boards/1/session")
    assert view["over"] and "white wins" in view["result"].lower()
    # The count's score is the record's RE (not B+/W+ with no score given).
    score = view["score"].rsplit("(", 1)[1].rstrip(")")
    assert score.startswith("W+") and score != "W+"
    with urllib.request.urlopen(server.url + "/boards/1.sgf", timeout=10) as r:
        sgf = r.read()
    assert ("RE[%s]" % score).encode() in sgf and b"OT[3x60 byo-yomi]" in sgf


def test_entry_live_a_press_without_a_move_is_an_alert_at_once(tmp_path):
    s = Server(str(tmp_path / "hall.sqlite"), 1, extra=("--entry", "live"))
    try:
        ws = s.socket()
        s.boards_up(ws)
        s.post("/api/boards/1/config", {"spec": "xq-rapid"})  # the hall's control: a session
        assert s.get("/api/boards/1/session")["strict"]
        s.post("/api/boards/1/start", {"side": "red"})
        sims.press(s.sim(1), "left")  # nobody entered Red's move
        s.wait(
            ws,
            lambda m: (
                m["type"] == "board" and "nomove" in [a["kind"] for a in m["board"]["alerts"]]
            ),
        )
        assert s.get("/api/boards/1/session")["fouls"] == [1, 0]
    finally:
        s.stop()


def test_a_proposal_overruled_and_a_ruling_undone(server):
    server.boards_up(server.socket())
    for mv in ["马二进三", "马８进７", "马三退二", "马７退８"] * 2:
        line(server, mv)
    view = server.get("/api/boards/1/session")
    assert view["proposal"] and "draw" in view["proposal"]["verdict"]
    assert "proposal" in alert_kinds(server)
    assert line(server, "overrule play told to vary")["ok"]  # the arbiter: play goes on
    view = server.get("/api/boards/1/session")
    assert view["proposal"] is None and not view["over"]
    line(server, "foul red")
    assert server.get("/api/boards/1/session")["fouls"] == [1, 0]
    assert line(server, "unrule")["ok"]  # the last ruling (the foul) undone
    assert server.get("/api/boards/1/session")["fouls"] == [0, 0]


def test_the_halls_result_button_ends_the_session_too(server):
    server.boards_up(server.socket())
    line(server, "start")
    server.post("/api/boards/1/finish", {"result": "black"})
    view = server.get("/api/boards/1/session")
    assert view["over"] and "black wins" in view["result"].lower()
    assert server.get("/api/boards/1")["result"] == 1  # and the clock shows it


def test_a_press_made_while_the_server_was_down_waits_for_its_move(tmp_path):
    s = Server(str(tmp_path / "hall.sqlite"), 1, extra=("--entry", "live"))
    try:
        s.boards_up(s.socket())
        s.post("/api/boards/1/config", {"spec": "xq-rapid"})
        s.post("/api/boards/1/start", {"side": "red"})
        assert line(s, "炮二平五")["ok"]
        clock = s.sim(1)
        s.kill()
        sims.press(clock, "left", wait_up=True)  # Red's move, pressed while nobody listened
        sims.press(clock, "right")  # Black's press: its move was never entered
        s.start()
        ws = s.socket()
        s.boards_up(ws)
        wait_for(s, ws, lambda v: v["waiting"] == [1])  # it waits for its move: no XQ-R19
        view = s.get("/api/boards/1/session")
        assert view["fouls"] == [0, 0] and view["moves"][0]["left"] is not None
        assert line(s, "马８进７")["ok"]
        assert s.get("/api/boards/1/session")["waiting"] == []
    finally:
        s.stop()


def record(server, path):
    with urllib.request.urlopen(server.url + path, timeout=10) as r:
        return r.read().decode("utf-8")


def test_new_players_name_the_sessions_record_the_rounds_and_after_a_restart(server):
    """``players`` after the game began (a substitute, a misspelt name): the board's
    session record, its PGN, the round's results and record all name the new players,
    and so does the session the server rebuilds after a SIGKILL."""
    ws = server.socket()
    server.boards_up(ws)
    server.post("/api/rounds", {"pairings": "board,first,second\n1,Lu,Xu\n"})
    assert server.post("/api/rounds/1/start", {})["boards"][0]["outcome"] == "ok"
    assert line(server, "炮二平五")["ok"]
    rec = record(server, "/api/boards/1/session/record")
    assert '[Red "Lu"]' in rec and '[Round "1"]' in rec and '[Event "qizhong hall"]' in rec
    assert '[Date "????' not in rec
    server.post("/api/boards/1/players", {"first": "吕钦", "second": "许银川"})
    for path in ("/api/boards/1/session/record", "/boards/1.pgn", "/rounds/1/1.pgn"):
        rec = record(server, path)
        assert '[Red "吕钦"]' in rec and '[Black "许银川"]' in rec, path
    rows = server.get("/api/rounds/1")["boards"]
    assert (rows[0]["first"], rows[0]["second"]) == ("吕钦", "许银川")
    server.post("/api/boards/1/players", {"second": "Hu"})  # one name: the other stays
    server.kill()
    server.start()
    server.boards_up(server.socket())
    rec = record(server, "/api/boards/1/session/record")
    assert '[Red "吕钦"]' in rec and '[Black "Hu"]' in rec and "炮二平五" in rec
    assert '[Round "1"]' in rec  # the round's tags are kept in the session's journal
    body = {"result": "red", "key": "page-finish-1"}
    first = server.post("/api/boards/1/finish", body)
    assert server.post("/api/boards/1/finish", body)["repeated"] and first["ok"]
    assert [a["verb"] for a in server.get("/api/boards/1/actions")].count("finish") == 1
    assert '[Black "Hu"]' in record(server, "/rounds/1/1.pgn")
    assert "吕钦,Hu" in record(server, "/rounds/1/results.csv")


def test_go_a_second_pass_entered_before_its_press_gets_its_time(server):
    """The hall's Go session: the second pass typed before its player presses is
    timed by that press (in the session and the SGF's BL/WL), as any move is."""
    ws = server.socket()
    server.boards_up(ws)
    server.post("/api/boards/1/players", {"game": "go", "first": "Ke Jie", "second": "Shin"})
    server.post("/api/boards/1/session/new", {"options": {"spec": "go-byoyomi"}, "configure": True})
    line(server, "start")
    server.post("/api/boards/1/players", {"second": "Shin Jinseo"})  # a name put right
    levers = {0: "right", 1: "left"}  # White's lever is the left one (EQ-1)
    for i, mv in enumerate(("D4", "pass")):
        assert line(server, mv)["ok"]
        sims.press(server.sim(1), levers[i % 2], wait_up=True)
        wait_for(server, ws, lambda v, i=i: len(v["moves"]) == i + 1 and v["moves"][i]["left"])
    assert line(server, "pass")["ok"]  # Black's second pass, entered before Black presses
    assert server.get("/api/boards/1")["state"] == "running"
    sims.press(server.sim(1), levers[0])
    wait_for(server, ws, lambda v: v["moves"][2]["left"] is not None)
    last = server.get("/api/boards/1/session")["moves"][2]
    # The clock paused at the second pass's press (GO-5): its news may have come already.
    server.until(lambda: server.get("/api/boards/1")["state"] == "paused", "the pause", ws=ws)
    assert line(server, "count")["ok"]
    sgf = record(server, "/api/boards/1/session/record")
    assert "BL[%d" % (last["left"] // 1000) in sgf.rsplit(";", 1)[1]  # the last node: the pass
    assert "PB[Ke Jie]" in sgf and "PW[Shin Jinseo]" in sgf


def test_a_bad_option_for_a_new_session_changes_nothing(server):
    """#34 item 1: ``session/new`` with one bad option (``"size": "19x19"``)
    answered 500 after closing the running session: its moves vanished from
    the session, ``/boards/N.pgn`` and ``/live.pgn``. Now every option is
    checked first: 400 naming it, the game in play untouched, after a restart too."""
    ws = server.socket()
    server.boards_up(ws)
    server.post("/api/boards/1/session/new", {"options": {"red": "Hu", "black": "Xu"}})
    line(server, "start")
    assert line(server, "炮二平五")["ok"]
    sims.press(server.sim(1), "left", wait_up=True)
    wait_for(server, ws, lambda v: v["moves"] and v["moves"][0]["left"] is not None)
    bad_options = (
        {"size": "19x19"}, {"spec": "15x"}, {"handicap": 1}, {"komi": "lots"},
        {"date": "tomorrow"}, {"left": "up"}, {"nonsense": 1}, {"red": "a\nb"},
    )  # fmt: skip
    for bad in bad_options:
        assert server.status_of("/api/boards/1/session/new", {"options": bad}, PASSWORD) == 400
    view = server.get("/api/boards/1/session")
    assert view["active"] and len(view["moves"]) == 1
    with urllib.request.urlopen(server.url + "/boards/1.pgn", timeout=10) as r:
        assert len(xiangqi_pgn.read_game(r.read()).moves) == 1
    server.kill()
    server.start()
    assert len(server.get("/api/boards/1/session")["moves"]) == 1
