# SPDX-License-Identifier: GPL-3.0-or-later
"""The tournament on a real hall server (docs/tournament.md, #30): a chess
round from the pairing program's TRF file with a pairing-allocated bye and a
forfeit, a round robin round the hall pairs from the Berger tables after a
withdrawal, a late arrival within the default time and one after it, a half-point
bye; the standings and FIDE tie-breaks worked by hand; TRF-16 out; the printable
pages; no action pending; everything the same after a SIGKILL."""

import csv
import io
import json
import sqlite3
import urllib.request
import zipfile

import pyffish
import sgfmill.sgf
from hallserver import PASSWORD

from qizhong.records import chess_pgn, xiangqi_pgn
from qizhong.server import sims
from qizhong.tournament import trf

HALL_SERVER = {"n": 2, "up": True}


def fetch(server, path):
    with urllib.request.urlopen(server.url + path, timeout=30) as r:
        return r.read().decode()


def fetch_bytes(server, path):
    with urllib.request.urlopen(server.url + path, timeout=30) as r:
        return r.read()


def is_event(m, name, board):
    return bool(m.get("event")) and m["event"]["name"] == name and m["event"]["board"] == board


def pairing_trf():
    """Round 1 as a pairing program writes it: 1 (White) - 3, 2 (White) - 4, 5 a
    pairing-allocated bye; no results yet."""
    players = [
        trf.Player(1, "Anand,Viswanathan", "m", "GM", 2200, "IND", "5000017"),
        trf.Player(2, "Bu,Xiangzhi", "m", "GM", 2100, "CHN", "8603006"),
        trf.Player(3, "Carlsen,Magnus", "m", "GM", 2000, "NOR", "1503014"),
        trf.Player(4, "Ding,Liren", "m", "GM", 1900, "CHN", "8603677"),
        trf.Player(5, "Erigaisi,Arjun", "m", "GM", 1800, "IND", "35009192"),
    ]
    rounds = {1: (3, "w"), 3: (1, "b"), 2: (4, "w"), 4: (2, "b")}
    for p in players:
        opp, colour = rounds.get(p.no, (0, "-"))
        p.rounds = [trf.Round(opp, colour, " " if opp else "U")]
        p.points = "0.0"
    return "012 Hall Open\n022 Shanghai\n" + "\n".join(p.line() for p in players) + "\n"


def test_a_chess_event_from_trf_to_trf(server, monkeypatch, capsys, tmp_path):
    ws = server.socket()
    server.post("/api/tournament", {"name": "Hall Open", "site": "Shanghai",
                                    "start": "2026-11-25", "end": "2026-11-26"})  # fmt: skip
    got = server.post("/api/rounds/trf", {"trf": pairing_trf(), "boards": [1, 2],
                                          "date": "2026-11-25", "control": "15m+10s"})  # fmt: skip
    assert got == {"round": 1, "pairings": 2, "byes": 1}
    players = server.get("/api/players")["players"]
    assert [(p["no"], p["name"], p["rating"], p["fed"], p["id"]) for p in players][:2] == [
        (1, "Anand,Viswanathan", 2200, "IND", "5000017"),
        (2, "Bu,Xiangzhi", 2100, "CHN", "8603006"),
    ]
    r1 = server.get("/api/rounds/1")
    assert [(b["board"], b["first_no"], b["second_no"], b["game"]) for b in r1["boards"]] == [
        (1, 1, 3, "chess"), (2, 2, 4, "chess")]  # fmt: skip
    # Ding does not come: a forfeit; the round starts on board 1 only.
    server.post("/api/rounds/1/forfeit", {"board": 2, "side": "second"})
    out = server.post("/api/rounds/1/start", {})["boards"]
    assert out[0]["outcome"] == "ok" and out[1]["outcome"].startswith("forfeit")
    for i, text in enumerate(["e4", "e5"]):
        sims.press(server.sim(1), "left" if i % 2 == 0 else "right", 40, wait_up=True)
        server.wait(ws, lambda m: is_event(m, "press", 1))
        server.post("/api/boards/1/move", {"text": text})
    server.post("/api/boards/1/finish", {"result": "white"})
    server.wait(ws, lambda m: is_event(m, "finish", 1))
    rows = server.get("/api/rounds/1")["boards"]
    assert [(r["board"], r["result"]) for r in rows] == [(1, "1-0"), (2, "+-")]
    # One record per game: the session's (the ruling, the result and why) with the round's
    # tags, at the round's address, the board's session address and in the zip alike.
    pgn = fetch(server, "/rounds/1/1.pgn")
    assert pgn == fetch(server, "/api/boards/1/session/record")
    game = chess_pgn.read(pgn)
    assert [m.uci() for m in game.mainline_moves()] == ["e2e4", "e7e5"]
    h = game.headers
    assert (h["Event"], h["Site"], h["Date"], h["Round"], h["Board"]) == (
        "Hall Open", "Shanghai", "2026.11.25", "1", "1")  # fmt: skip
    assert (h["White"], h["Black"], h["Result"]) == ("Anand,Viswanathan", "Carlsen,Magnus", "1-0")
    z = zipfile.ZipFile(io.BytesIO(fetch_bytes(server, "/rounds/1.zip")))
    assert z.read("round1-board1.pgn").decode() == pgn
    # Carlsen withdraws from round 2; round 2 is the Berger table's first round among 1-4.
    server.post("/api/players/3/withdraw", {"round": 2})
    assert server.post("/api/rounds/robin", {"players": [1, 2, 3, 4], "rounds": 1,
                                             "boards": [1, 2], "game": "chess"}) == {
        "rounds": [2]}  # fmt: skip
    r2 = server.get("/api/rounds/2")["boards"]
    assert [(b["first_no"], b["second_no"], b["forfeit"]) for b in r2] == [
        (1, 4, ""), (2, 3, "second")]  # fmt: skip
    # A late arrival: 10 min is within the default time (15), 20 would not be.
    server.post("/api/tournament/settings", {"default_minutes": 15})
    assert server.post("/api/rounds/2/late", {"board": 1, "side": "first", "minutes": 10})[
        "outcome"].startswith("ok")  # fmt: skip
    assert server.get("/api/rounds/2")["boards"][0]["forfeit"] == ""
    server.post("/api/rounds/2/result", {"board": 1, "result": "1/2-1/2"})
    server.post("/api/rounds/2/bye", {"player": 5, "kind": "half"})
    assert server.status_of("/api/rounds/2/bye", {"player": 1, "kind": "half"}, PASSWORD) == 400
    assert server.status_of("/api/rounds/2/bye", {"player": 5, "kind": "all"}, PASSWORD) == 400
    # The standings, worked by hand (dummy opponents at the player's own points):
    #   points: 1: 1 + ½; 2: + and +: 2; 3: 0 + forfeit; 4: forfeit + ½; 5: U 1 + H ½.
    #   BH: 1: 3 (0) + 4 (½) = ½.  2: dummies 2 + 2 = 4.  3: 1 (1.5) + dummy 0 = 1.5.
    #       4: dummy ½ + 1 (1.5) = 2.  5: dummies 1.5 + 1.5 = 3.   Cut-1 drops the lowest.
    #   1 and 5 tie on 1.5: BH-C1 ½ against 1.5: 5 before 1.
    #   SB: 1: 3 beaten (0) + 4 drawn (1.5 x ½... 4 has ½: ¼) = ¼; 5: 1.5 x 1 + 1.5 x ½ = 2.25.
    st = server.get("/api/standings?game=chess")
    assert [k["key"] for k in st["tiebreaks"]] == ["BH-C1", "BH", "SB", "DE", "WIN", "BPG"]
    assert [(r["rank"], r["no"], r["points"], r["tb"]["BH-C1"], r["tb"]["BH"], r["tb"]["SB"],
             r["tb"]["WIN"], r["tb"]["BPG"]) for r in st["rows"]] == [
        (1, 2, "2", "2", "4", "4", "2", "0"),
        (2, 5, "1.5", "1.5", "3", "2.25", "1", "0"),
        (3, 1, "1.5", "0.5", "0.5", "0.25", "1", "0"),
        (4, 4, "0.5", "1.5", "2", "0.75", "0", "1"),
        (5, 3, "0", "1.5", "1.5", "0", "0", "1"),
    ]  # fmt: skip
    assert st["rows"][4]["withdrawn"] == 2
    # After round 1 only: 2 (forfeit win), 5 (bye) and 1 share 1 point.
    early = server.get("/api/standings?game=chess&round=1")
    assert [(r["no"], r["points"]) for r in early["rows"]][:3] == [(2, "1"), (5, "1"), (1, "1")]
    # `qizhong round` says the same, and takes the incidents too.
    from qizhong.cli.main import main

    monkeypatch.setenv("QIZHONG_ARBITER_PASSWORD", PASSWORD)
    capsys.readouterr()
    assert main(["round", "--server", server.url, "standings", "--game", "chess"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["#", "no", "name", "points", "BH-C1", "BH", "SB", "DE", "WIN",
                                "BPG"]  # fmt: skip
    assert lines[1].split() == ["1", "2", "Bu,Xiangzhi", "2", "2", "4", "4", "0", "2", "0"]
    assert main(["round", "--server", server.url, "bye", "2", "1", "half"]) == 1  # 1 plays
    assert "paired in round 2" in capsys.readouterr().err
    out = tmp_path / "t.trf"
    assert main(["round", "--server", server.url, "trf-out", str(out)]) == 0
    assert trf.parse(out.read_text()).header("012") == "Hall Open"
    table = list(csv.DictReader(io.StringIO(fetch(server, "/standings.csv?game=chess"))))
    assert [(r["rank"], r["name"], r["points"], r["BH-C1"]) for r in table][:2] == [
        ("1", "Bu,Xiangzhi", "2", "2"), ("2", "Erigaisi,Arjun", "1.5", "1.5")]  # fmt: skip
    page = fetch(server, "/standings?game=chess")
    assert "Bu,Xiangzhi" in page and "Buchholz Cut-1" in page and "(withdrew)" in page
    sheet, slips = fetch(server, "/rounds/2/pairings"), fetch(server, "/rounds/2/slips")
    assert "Anand,Viswanathan" in sheet and "Erigaisi,Arjun (5, half)" in sheet
    assert "(first came 10 min late)" in sheet
    assert slips.count("class=slip") == 2
    # TRF-16 out, every result in, read back column by column.
    out = trf.parse(fetch(server, "/tournament.trf"))
    assert out.header("012") == "Hall Open" and out.header("042") == "2026/11/25"
    got = {p.no: p for p in out.players}
    assert [(r.opponent, r.colour, r.result) for r in got[1].rounds] == [(3, "w", "1"),
                                                                         (4, "w", "=")]  # fmt: skip
    assert [(r.opponent, r.colour, r.result) for r in got[4].rounds] == [(2, "b", "-"),
                                                                         (1, "b", "=")]  # fmt: skip
    assert [(r.opponent, r.colour, r.result) for r in got[5].rounds] == [(0, "-", "U"),
                                                                         (0, "-", "H")]  # fmt: skip
    assert (got[2].points, got[2].rank, got[1].rating, got[1].fide_id) == ("2.0", 1, 2200,
                                                                           "5000017")  # fmt: skip
    line = next(x for x in fetch(server, "/tournament.trf").splitlines() if x[4:8] == "   1")
    assert line[91:95] == "   3" and line[96] == "w" and line[98] == "1"  # columns 92-95, 97, 99
    # Every action ended, and all of it survives a SIGKILL.
    assert [a for a in server.get("/api/actions") if a["state"] == "pending"] == []
    assert {a["verb"] for a in server.get("/api/actions")} >= {"round", "players", "withdraw",
                                                               "late", "result", "bye"}  # fmt: skip
    server.kill()
    # As if killed in the middle of an action: kept before it was sent, no outcome yet.
    with sqlite3.connect(server.db) as db:
        db.execute("INSERT INTO actions (board, verb, args, who, host_ms) VALUES"
                   " (1, 'start', '{}', 'arbiter', 0)")  # fmt: skip
    server.start()
    assert server.get("/api/standings?game=chess") == st
    assert [a for a in server.get("/api/actions") if a["state"] == "pending"] == []
    cut = server.get("/api/actions")[-1]
    assert (cut["verb"], cut["state"]) == ("start", "failed")
    assert cut["outcome"].startswith("failed: the server stopped before its outcome was kept")
    assert server.socket().hello["interrupted"] == 1


def test_bad_tournament_input_is_refused_with_its_reason(server):
    assert server.status_of("/api/players", {"csv": "name\nA\n"}) == 401
    assert server.status_of("/api/players", {"csv": "nom\nA\n"}, PASSWORD) == 400
    assert server.status_of("/api/players", {"csv": "name,rating\nA,lots\n"}, PASSWORD) == 400
    assert server.status_of("/api/rounds/trf", {"trf": "001 abcd\n"}, PASSWORD) == 400
    assert server.status_of("/api/rounds/robin", {"players": [1, 2]}, PASSWORD) == 400
    server.post("/api/players", {"csv": "name,rating,fed,game\n吕钦,2600,广东,xiangqi\n"
                                        "许银川,2650,广东,xiangqi\nA,0,,xiangqi\n"})  # fmt: skip
    assert [p["name"] for p in server.get("/api/players")["players"]] == ["吕钦", "许银川", "A"]
    server.post("/api/players", {"csv": "name,birth\n吕钦,1960/11/28\n许银川,1975/08/04\nA,\n"})
    assert {p["birth"] for p in server.get("/api/players")["players"]} == {""}  # public: none
    req = urllib.request.Request(server.url + "/api/players",
                                 headers={"Authorization": "Bearer " + PASSWORD})  # fmt: skip
    with urllib.request.urlopen(req, timeout=30) as r:
        assert json.load(r)["players"][0]["birth"] == "1960/11/28"
    # Go's size, komi and handicap columns are checked; a Xiangqi row cannot have them.
    bad = "board,first,second,game,control,size,komi,handicap\n1,X,Y,go,,19,6.5,12\n"
    assert server.status_of("/api/rounds", {"pairings": bad}, PASSWORD) == 400
    bad = "board,first,second,game,control,size,komi,handicap\n1,X,Y,xiangqi,,19,,\n"
    assert server.status_of("/api/rounds", {"pairings": bad}, PASSWORD) == 400
    good = ("board,first,second,game,control,size,komi,handicap\n1,吕钦,许银川,xiangqi,,,,\n"
            "2,X,Y,go,go-byoyomi,13,0.5,2\nbye,A,half\n")  # fmt: skip
    assert server.post("/api/rounds", {"pairings": good})["round"] == 1
    r = server.get("/api/rounds/1")
    assert [(b["size"], b["komi"], b["handicap"]) for b in r["boards"]] == [
        (0, "", 0),
        (13, "0.5", 2),
    ]
    assert r["byes"] == [{"player": 3, "name": "A", "kind": "half"}]
    # Round 1 played: each game's one record carries its moves, its rulings and its board.
    ws = server.socket()
    server.boards_up(ws)
    out = server.post("/api/rounds/1/start", {})["boards"]
    assert [b["outcome"] for b in out] == ["ok", "ok"]
    session = server.get("/api/boards/2/session")
    assert session["kind"] == "go" and session["sides"] == ["Black", "White"]
    for board, moves in ((1, ["炮二平五", "马8进7"]), (2, ["C3", "K4"])):
        for i, text in enumerate(moves):
            # Xiangqi: Red's (left) lever first; Go with handicap stones: White's (right).
            lever = ("left", "right")[(i + (board == 2)) % 2]
            sims.press(server.sim(board), lever, 40, wait_up=True)
            server.wait(ws, lambda m, b=board: is_event(m, "press", b))
            server.post("/api/boards/%d/move" % board, {"text": text})
    # The board page's picture: 13x13, the handicap stones and both moves.
    pos = server.get("/api/boards/2")["position"]
    assert pos["size"] == 13 and sorted(pos["stones"]) == [
        [[2, 10], "white"], [[3, 9], "black"], [[9, 3], "black"], [[9, 9], "black"]]  # fmt: skip
    got = server.post("/api/boards/1/session", {"line": "foul black touched two pieces"})
    assert got["ok"], got
    server.post("/api/boards/1/finish", {"result": "red"})
    assert server.post("/api/boards/2/session", {"line": "resign white"})["ok"]
    xq = xiangqi_pgn.read_game(fetch_bytes(server, "/rounds/1/1.pgn"))
    assert (xq.headers["Board"], xq.headers["Round"], xq.headers["Red"], xq.headers["Result"]) == (
        "1", "1", "吕钦", "1-0")  # fmt: skip
    assert any("touched two pieces" in c for c in xq.comments), xq.comments
    # pyffish, another engine, takes every move in turn from the start.
    played: list[str] = []
    for mv in xq.moves:
        assert mv.uci() in pyffish.legal_moves("xiangqi", xq.starting_fen, played)
        played.append(mv.uci())
    sgf = sgfmill.sgf.Sgf_game.from_bytes(fetch_bytes(server, "/rounds/1/2.sgf"))
    root = sgf.get_root()
    assert (root.get("GN"), root.get("RO"), root.get("HA"), root.get("SZ")) == (
        "board 2", "1", 2, 13)  # fmt: skip
    assert sorted(root.get("AB")) == [(3, 3), (9, 9)]  # D4 and K10, Black's handicap stones
    assert (root.get("PB"), root.get("PW"), root.get("RE")) == ("X", "Y", "B+R")
    assert [n.get_move() for n in sgf.get_main_sequence()[1:]] == [("w", (2, 2)), ("b", (3, 9))]
    # A player paired twice, or a bye for one who plays, is refused.
    twice = "1,吕钦,许银川\n2,吕钦,A\n"
    assert server.status_of("/api/rounds", {"pairings": twice}, PASSWORD) == 400
    assert server.status_of("/api/rounds/1/bye", {"player": 1}, PASSWORD) == 400
    assert [a for a in server.get("/api/actions") if a["state"] == "pending"] == []
