# SPDX-License-Identifier: GPL-3.0-or-later
"""A game that starts from a position, on the hall server: every record says so.

A session made with a FEN (Xiangqi, chess) or on a Go board with handicap
stones (a round's 9x9 board) keeps its start beside its moves: the board's
state (``/api/boards/N``), its record (``/boards/N.pgn``, ``.sgf``),
``/live.pgn``, the round's zip and a past game's record replay the moves
from it and carry it (PGN ``SetUp``/``FEN``, SGF ``SZ``/``KM``/``AB``/``PL``/
``HA``), also after a SIGKILL. Before, the feed replayed every game from the
usual start: a Xiangqi or chess game from a FEN answered 500 at
``/api/boards/N`` and ``/boards/N.pgn`` and was missing from ``/live.pgn``.

Each record is read back by a reader that is not ours: pyffish (Xiangqi,
the moves read from their 记谱 through WXF), python-chess, sgfmill."""

import io
import re
import urllib.request
import zipfile

import chess
import chess.pgn
import pyffish
import sgfmill.sgf
import sgfmill.sgf_moves

HALL_SERVER = {"n": 3}

# Black to move, a sparse position: Black's elephant, Red's, Black's advisor.
XQ_FEN = "3akab2/9/4b4/9/9/9/9/9/4A4/2BAK4 b - - 0 1"
XQ_MOVES = ["象5退3", "相七进五", "士4进5"]
# Black to move, both may castle: Black castles short, White long.
CHESS_FEN = "r3k2r/pppq1ppp/8/8/8/8/PPPQ1PPP/R3K2R b KQkq - 4 12"
CHESS_MOVES = ["O-O", "O-O-O", "Rfe8"]
GO_MOVES = ["E5", "C7", "G3"]  # White first: Black has two handicap stones (9x9)

ROUND = (
    "board,first,second,game,control,size,komi,handicap\n"
    "1,Hu,Xu,xiangqi,xq-rapid,,,\n"
    "2,Carlsen,Ding,chess,15m+10s,,,\n"
    "3,Li,Wang,go,15m byoyomi 3x30s,9,0.5,2\n"
)

# -- independent readers --------------------------------------------------------------------

_PIECES = {c: wxf for cs, wxf in (("车車", "R"), ("马馬", "H"), ("相象", "E"), ("仕士", "A"),
           ("帅将帥將", "K"), ("炮砲", "C"), ("兵卒", "P")) for c in cs}  # fmt: skip
_NUMBERS = {c: str(i + 1) for i, c in enumerate("一二三四五六七八九")}
_NUMBERS.update({c: str(i + 1) for i, c in enumerate("１２３４５６７８９")})
_NUMBERS.update({str(i): str(i) for i in range(1, 10)})
_ACTIONS = {"进": "+", "進": "+", "退": "-", "平": "="}


def wxf(text):
    """A 记谱 move (piece, file, action, number) in WXF, as pyffish writes it."""
    assert len(text) == 4, text  # no tandem pieces (前/后) in these games
    p, f, a, n = text
    return _PIECES[p] + _NUMBERS[f] + _ACTIONS[a] + _NUMBERS[n]


def read_xiangqi(text):
    """A Xiangqi PGN read with regular expressions and pyffish: its tags, the
    start, each move as UCI (the one legal move whose WXF is the 记谱's), the end."""
    tags = dict(re.findall(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]$', text, re.M))
    body = re.sub(r"\{[^}]*\}", " ", text.split("\n\n", 1)[1])
    words = [w for w in body.split() if not re.fullmatch(r"\d+\.+|\*|1-0|0-1|1/2-1/2", w)]
    fen = tags.get("FEN", pyffish.start_fen("xiangqi"))
    played = []
    for w in words:
        now = pyffish.get_fen("xiangqi", fen, played)
        fits = [
            m
            for m in pyffish.legal_moves("xiangqi", now, [])
            if pyffish.get_san("xiangqi", now, m, False, pyffish.NOTATION_XIANGQI_WXF) == wxf(w)
        ]
        assert len(fits) == 1, (w, fits)
        played += fits
    return tags, played, pyffish.get_fen("xiangqi", fen, played)


def fetch(server, path):
    with urllib.request.urlopen(server.url + path, timeout=30) as r:
        return r.read()


def line(server, no, text):
    got = server.post("/api/boards/%d/session" % no, {"line": text})
    assert got["ok"], got["lines"]
    return got


def records(server):
    """Every record of the three games, at every address, each read back."""
    out = {}
    for no in (1, 2, 3):  # the board's state (its position) answers
        out["board%d" % no] = server.get("/api/boards/%d" % no)
    out["xq"] = fetch(server, "/boards/1.pgn").decode()
    out["chess"] = fetch(server, "/boards/2.pgn").decode()
    out["go"] = fetch(server, "/boards/3.sgf")
    out["live_xq"] = fetch(server, "/live.pgn?game=xiangqi").decode()
    out["live_chess"] = fetch(server, "/live.pgn?game=chess").decode()
    out["live"] = fetch(server, "/live.pgn").decode()
    z = zipfile.ZipFile(io.BytesIO(fetch(server, "/rounds/1.zip")))
    out["zip"] = {n: z.read(n) for n in z.namelist()}
    return out


def check_xiangqi(text, moves):
    tags, played, end = read_xiangqi(text)
    assert (tags["SetUp"], tags["FEN"]) == ("1", XQ_FEN)
    assert len(played) == len(moves)
    return end


def check_chess(text, moves):
    game = chess.pgn.read_game(io.StringIO(text))
    assert not game.errors, game.errors
    assert (game.headers["SetUp"], game.headers["FEN"]) == ("1", CHESS_FEN)
    board = game.board()
    sans = []
    for mv in game.mainline_moves():
        sans.append(board.san(mv))
        board.push(mv)
    assert sans == moves
    return board.fen()


def check_go(data, moves):
    game = sgfmill.sgf.Sgf_game.from_bytes(data)
    root = game.get_root()
    assert (game.get_size(), game.get_komi(), root.get("HA"), root.get("PL")) == (9, 0.5, 2, "w")
    assert sorted(root.get("AB")) == [(2, 2), (6, 6)]  # C3 and G7: Black's handicap stones
    board, plays = sgfmill.sgf_moves.get_setup_and_moves(game)
    for colour, (row, col) in plays:  # sgfmill's own rules: a stone on a stone is refused
        board.play(row, col, colour)
    cols = "ABCDEFGHJ"
    assert [(c, "%s%d" % (cols[col], row + 1)) for c, (row, col) in plays] == [
        ("w" if i % 2 == 0 else "b", m) for i, m in enumerate(moves)
    ]
    return board


def check_all(got, n_xq):
    """Every address's record of the three games carries their starts and moves."""
    xq = XQ_MOVES[:n_xq]
    end = check_xiangqi(got["xq"], xq)
    assert got["board1"]["position"]["fen"].split()[:2] == end.split()[:2]
    assert got["live_xq"] == got["xq"]
    assert check_chess(got["chess"], CHESS_MOVES) == got["board2"]["position"]["fen"]
    assert got["live_chess"] == got["chess"]
    assert got["live"] == got["xq"] + "\n" + got["chess"]
    check_go(got["go"], GO_MOVES)
    stones = {tuple(s[0]) for s in got["board3"]["position"]["stones"]}
    assert got["board3"]["position"]["size"] == 9 and len(stones) == 5
    # The round's zip: the sessions' records (rulings and all), with the same starts.
    check_xiangqi(got["zip"]["round1-board1.pgn"].decode(), xq)
    check_chess(got["zip"]["round1-board2.pgn"].decode(), CHESS_MOVES)
    check_go(got["zip"]["round1-board3.sgf"], GO_MOVES)


def test_games_from_a_position_in_every_record_and_after_a_kill(server):
    ws = server.socket()
    server.boards_up(ws)
    assert server.post("/api/rounds", {"pairings": ROUND})["round"] == 1
    setup = server.post("/api/rounds/1/setup", {})["boards"]
    assert [b["outcome"] for b in setup] == ["ok", "ok", "ok"], setup
    # The round's Xiangqi and chess games start from a FEN (a session on the game in play).
    assert server.post("/api/boards/1/session/new", {"options": {"fen": XQ_FEN}})["ok"]
    assert server.post("/api/boards/2/session/new", {"options": {"fen": CHESS_FEN}})["ok"]
    for no, moves in ((1, XQ_MOVES), (2, CHESS_MOVES), (3, GO_MOVES)):
        line(server, no, "start")
        for text in moves[:2] if no == 1 else moves:
            line(server, no, text)
    check_all(records(server), 2)
    # SIGKILL mid-game: the sessions come back from the store, the records with them.
    server.kill()
    server.start()
    ws = server.socket()
    server.boards_up(ws)
    check_all(records(server), 2)
    line(server, 1, XQ_MOVES[2])  # play goes on from where it was
    got = records(server)
    check_all(got, 3)
    # The next game on board 1 starts as usual; the game from the FEN keeps its record.
    game_no = got["board1"]["game_no"]
    server.post("/api/boards/1/new", {})
    server.until(lambda: server.get("/api/boards/1")["game_no"] == game_no + 1, "a new game", 1)
    check_xiangqi(fetch(server, "/boards/1/games/%d.pgn" % game_no).decode(), XQ_MOVES)
    now = fetch(server, "/boards/1.pgn").decode()
    assert "[FEN " not in now and "SetUp" not in now
