# SPDX-License-Identifier: GPL-3.0-or-later
"""Rounds (#20 item 2, docs/server.md): pairings from a CSV or pasted lines,
a round set up and started in one action, the next round on the same
clocks, live results and their CSV, and every game's record kept per round
and board, with the tournament's and the round's tags.

A real ``qizhong serve`` with two real-time simulated clocks (the real
firmware); records read back with our Xiangqi reader, sgfmill and python-chess."""

import csv
import io
import urllib.error
import urllib.request
import zipfile

import pytest
from hallserver import PASSWORD

from qizhong.records import chess_pgn, go_sgf, xiangqi_pgn
from qizhong.server import sims
from qizhong.server.rounds import RoundError, parse_pairings

BOARDS = {1: ("xiangqi", "xq-rapid"), 2: ("xiangqi", "xq-rapid")}


def test_pairings_from_a_csv_or_pasted_lines():
    text = (
        "\ufeffboard,first,second,game,control\r\n"
        "1,吕钦,许银川,,\r\n2,Li,Wang,go,15m byoyomi 3x30s\r\n"
    )
    got = parse_pairings(text, BOARDS)
    assert [(p.board, p.first, p.second, p.game, p.spec) for p in got] == [
        (1, "吕钦", "许银川", "xiangqi", "xq-rapid"),
        (2, "Li", "Wang", "go", "15m byoyomi 3x30s"),
    ]
    pasted = "1\tA\tB\tchess\t15m+10s\n\n2\tC\tD\n"  # from a spreadsheet: no header
    assert [(p.board, p.game, p.spec) for p in parse_pairings(pasted, BOARDS)] == [
        (1, "chess", "15m+10s"),
        (2, "xiangqi", "xq-rapid"),
    ]
    # Every bad line is named; nothing is taken.
    with pytest.raises(RoundError) as e:
        parse_pairings("board,first,second\n3,A,B\n1,A,B,shogi\n1,C,D,,nonsense\nx,A,B\n", BOARDS)
    said = str(e.value)
    assert "line 2: no board 3" in said and "line 3: game" in said
    assert "line 4: control" in said and "line 5: board" in said
    with pytest.raises(RoundError, match="paired twice"):
        parse_pairings("1,A,B\n1,C,D\n", BOARDS)
    with pytest.raises(RoundError, match="names are needed"):
        parse_pairings("1,A\n", BOARDS)
    with pytest.raises(RoundError, match="control characters"):
        parse_pairings("1,A\x07,B\n", BOARDS)
    with pytest.raises(RoundError, match="header"):
        parse_pairings("board,white,black\n1,A,B\n", BOARDS)
    with pytest.raises(RoundError, match="no pairings"):
        parse_pairings(" \n", BOARDS)


def fetch(server, path):
    with urllib.request.urlopen(server.url + path, timeout=20) as r:
        return r.read()


def is_event(m, name, board):
    return bool(m.get("event")) and m["event"]["name"] == name and m["event"]["board"] == board


def play(server, ws, board, moves):
    """Each move as a scorekeeper enters it: the press, then the move."""
    for i, text in enumerate(moves):
        sims.press(server.sim(board), "left" if i % 2 == 0 else "right", 40, wait_up=True)
        server.wait(ws, lambda m: is_event(m, "press", board))
        server.post("/api/boards/%d/move" % board, {"text": text})


def test_two_rounds_results_and_every_record(server):
    ws = server.socket()
    server.boards_up(ws)
    server.post(
        "/api/tournament",
        {"name": "Hall Open", "site": "Shanghai", "start": "2026-11-25", "end": "2026-11-26"},
    )
    csv1 = (
        "board,first,second,game,control\n"
        "1,吕钦,许银川,xiangqi,xq-rapid\n2,Li,Wang,go,15m byoyomi 3x30s\n"
    )
    # The public cannot add a round; bad pairings are refused with their line.
    assert server.status_of("/api/rounds", {"pairings": csv1}) == 401
    assert server.status_of("/api/rounds", {"pairings": "9,A,B\n"}, PASSWORD) == 400
    assert (
        server.status_of("/api/rounds", {"pairings": csv1, "date": "2026-13-45"}, PASSWORD) == 400
    )
    assert server.status_of("/api/tournament", {"start": "yesterday"}, PASSWORD) == 400
    assert server.post("/api/rounds", {"pairings": csv1, "date": "2026-11-25"})["round"] == 1
    # One action: every board set up (names, game, control) and started.
    out = server.post("/api/rounds/1/start", {})
    assert [b["outcome"] for b in out["boards"]] == ["ok", "ok"]
    b1, b2 = server.get("/api/boards/1"), server.get("/api/boards/2")
    assert b1["players"] == ["吕钦", "许银川"] and b1["state"] == "running"
    assert b2["game"] == "go" and b2["spec"] == "15m byoyomi 3x30s" and b2["state"] == "running"
    # Each game has its session from the round's start: the page's fouls, claims, XQ-R19.
    s1, s2 = server.get("/api/boards/1/session"), server.get("/api/boards/2/session")
    assert s1["active"] and s1["kind"] == "xiangqi" and s1["spec"] == "15m+10s"  # xq-rapid
    assert s2["active"] and s2["kind"] == "go" and s2["moves"] == []
    play(server, ws, 1, ["炮二平五", "马8进7"])
    play(server, ws, 2, ["D4", "Q16", "pass", "pass"])
    for board, side in ((1, "red"), (2, "black")):
        server.post("/api/boards/%d/finish" % board, {"result": side})
        server.wait(ws, lambda m, b=board: is_event(m, "finish", b))
    # A Go score: RE[B+3.5], not B+R.
    assert server.status_of("/api/boards/2/score", {"score": "B+lots"}, PASSWORD) == 400
    assert server.status_of("/api/boards/2/score", {"score": "B+1", "game": 7}, PASSWORD) == 400
    assert server.status_of("/api/boards/1/score", {"score": "B+1"}, PASSWORD) == 400  # Xiangqi
    server.post("/api/boards/2/score", {"score": "B+3.5"})
    rows = server.get("/api/rounds/1")["boards"]
    assert [(r["board"], r["result"], r["score"], r["moves"]) for r in rows] == [
        (1, "1-0", "", 2),
        (2, "1-0", "B+3.5", 4),
    ]
    table = list(csv.DictReader(io.StringIO(fetch(server, "/rounds/1/results.csv").decode())))
    assert [
        (r["board"], r["first"], r["result"], r["score"], r["first_points"]) for r in table
    ] == [
        ("1", "吕钦", "1-0", "", "1"),
        ("2", "Li", "1-0", "B+3.5", "1"),
    ]
    # A round is refused while its boards still play another game; round 2 swaps the games.
    csv2 = "2\t许银川\t吕钦\txiangqi\txq-rapid\n1\tAnderssen\tKieseritzky\tchess\t15m+10s\n"
    assert server.post("/api/rounds", {"pairings": csv2, "date": "2026-11-26"})["round"] == 2
    out = server.post("/api/rounds/2/start", {})
    assert [b["outcome"] for b in out["boards"]] == ["ok", "ok"]
    play(server, ws, 1, ["e4", "e5"])
    assert server.get("/api/boards/1")["game"] == "chess"
    assert server.status_of("/api/rounds", {"pairings": csv2, "round": 2}, PASSWORD) == 400
    # Round 1's records, after new games on both clocks: tags from the tournament and round.
    xq = xiangqi_pgn.read_game(fetch(server, "/rounds/1/1.pgn"))
    assert [xq.board().notation(xq.moves[0])] == ["炮二平五"] and len(xq.moves) == 2
    assert (xq.headers["Event"], xq.headers["Site"], xq.headers["Date"]) == (
        "Hall Open",
        "Shanghai",
        "2026.11.25",
    )
    assert xq.headers["Round"] == "1" and xq.headers["Board"] == "1"
    assert xq.headers["Red"] == "吕钦" and xq.headers["Result"] == "1-0"
    # The one record: the session's, run again from its journal after the board's next game
    # began (the arbiter's ruling is in it, as in no record made from the clock alone).
    assert any("awards" in c for c in xq.comments), xq.comments
    assert all(c is not None for c in xq.clocks)
    sgf = fetch(server, "/rounds/1/2.sgf")
    import sgfmill.sgf

    root = sgfmill.sgf.Sgf_game.from_bytes(sgf).get_root()
    assert (
        root.get("EV") == "Hall Open" and root.get("RO") == "1" and root.get("DT") == "2026-11-25"
    )
    assert root.get("PB") == "Li" and root.get("PW") == "Wang" and root.get("RE") == "B+3.5"
    assert root.get("TM") == 900 and root.get("OT") == "3x30 byo-yomi"
    rec = go_sgf.read(sgf)
    assert [m.gtp() for m in rec.board.move_stack] == ["D4", "Q16", "pass", "pass"]
    # Round 2's games, live: chess read by python-chess, with its round's tags.
    game = chess_pgn.read(fetch(server, "/rounds/2/1.pgn").decode())
    assert [m.uci() for m in game.mainline_moves()] == ["e2e4", "e7e5"]
    assert game.headers["Round"] == "2" and game.headers["Date"] == "2026.11.26"
    assert game.headers["White"] == "Anderssen" and game.headers["TimeControl"] == "900+10"
    # Any game of a board, by its number, in a round or not (after new: the one before).
    assert fetch(server, "/boards/2/games/1.sgf") == sgf
    assert server.get("/api/boards/1")["game_no"] == 2
    assert fetch(server, "/boards/1/games/1.pgn") == fetch(server, "/rounds/1/1.pgn")
    # The round's zip: every record and the results.
    z = zipfile.ZipFile(io.BytesIO(fetch(server, "/rounds/1.zip")))
    assert sorted(z.namelist()) == ["round1-board1.pgn", "round1-board2.sgf", "round1-results.csv"]
    assert z.read("round1-board2.sgf") == sgf
    with pytest.raises(urllib.error.HTTPError):
        fetch(server, "/rounds/1/2.pgn")  # a Go game is an SGF
    # A round whose boards still play another game is refused (unless forced).
    assert server.post("/api/rounds", {"pairings": "1,X,Y\n"})["round"] == 3
    assert server.status_of("/api/rounds/3/start", {}, PASSWORD) == 409
    assert server.get("/api/boards/1")["state"] == "running"
    # Everything is in the file: after a SIGKILL and a restart, the same records.
    pgn = fetch(server, "/rounds/1/1.pgn")
    server.kill()
    server.start()
    assert fetch(server, "/rounds/1/1.pgn") == pgn
    assert fetch(server, "/rounds/1/2.sgf") == sgf


def test_a_game_of_no_round_gets_the_tournaments_name(tmp_path):
    import types

    from qizhong.server.board import BoardState
    from qizhong.server.feed import Feed
    from qizhong.server.rounds import Rounds
    from qizhong.server.store import Store

    store = Store(str(tmp_path / "h.sqlite"))
    store.board_for("c1", "/dev/x", "xiangqi", "xq-rapid")
    states = {1: BoardState(store.boards()[0])}
    hall = types.SimpleNamespace(store=store, states=states, feed=Feed(store, states))
    try:
        rounds = Rounds(hall)
        assert rounds.info(1, 1) is None  # no tournament: the record says "qizhong hall"
        rounds.set_tournament({"name": "Hall Open", "site": "Shanghai"})
        info = rounds.info(1, 1)
        assert (info.event, info.site, info.round, info.board) == ("Hall Open", "Shanghai", "", 1)
        with pytest.raises(RoundError, match="YYYY-MM-DD"):
            rounds.set_tournament({"start": "2026-02-30"})
    finally:
        hall.feed.stop()


def test_qizhong_round_says_what_is_wrong(tmp_path, monkeypatch, capsys):
    """The CLI's own errors (its successes: docs/server.md's session, run by
    tests/test_docs_commands.py): no password for a change, no server."""
    from qizhong.cli.main import main

    csv_file = tmp_path / "r.csv"
    csv_file.write_text("board,first,second\n1,A,B\n", encoding="utf-8")
    monkeypatch.delenv("QIZHONG_ARBITER_PASSWORD", raising=False)
    url = "http://127.0.0.1:9"  # nothing listens there
    assert main(["round", "--server", url, "import", str(csv_file)]) == 1
    assert "QIZHONG_ARBITER_PASSWORD" in capsys.readouterr().err
    assert main(["round", "--server", url, "results", "1"]) == 1
    assert "no server at http://127.0.0.1:9" in capsys.readouterr().err
