# SPDX-License-Identifier: GPL-3.0-or-later
"""What an arbiter may type at ``/api/boards/N/session/*``, each answered
without a 500 (DEVELOPERS.md: bad input gets a clear error and loses nothing).

The tables are the inputs tried on a real server (Xiangqi, chess and Go
boards): moves in unusual notations (ICCS, WXF, full-width, traditional
glyphs, annotations, UCI, figurines, two moves in one line, a move written
for the other side), commands with odd arguments, and a new session's
options. A move is kept as the game's notation, or refused with its reason
and nothing kept; a refused command changes nothing; a new session's bad
option is a 400 naming it, and the game in play goes on, after a SIGKILL
too. Three defects they found: a session of another game than the board's
(``"game": "go"`` on a Xiangqi board) made ``/api/boards/N`` and
``/boards/N.pgn`` answer 500 after its first move; a bad start (``fen``,
``left``, ``lang``, a handicap the board cannot hold) was a 409 from the
session, not a 400 naming the option; a FEN whose game is already over
(mate, stalemate, a dead position) made a session that waited for ever. A
fourth is beside them: a board's game changed (``players``) under its open
session, whose moves then made the board's addresses 500."""

import json
import urllib.error
import urllib.request

import pytest
from hallserver import PASSWORD

HALL_SERVER = {"n": 3, "up": True}

# (line, the move kept in the game's notation, or None: refused, nothing kept)
XIANGQI = [
    ("h2e2", "炮二平五"), ("H2-E2", "炮二平五"), ("C2.5", "炮二平五"), ("c2=5", "炮二平五"),
    ("Ｃ２．５", "炮二平五"), ("ｈ２ｅ２", "炮二平五"), ("炮 二 平 五", "炮二平五"),
    ("炮二平五!", "炮二平五"), ("炮二平五\u3000", "炮二平五"), ("車一進一", "车一进一"),
    ("俥一进一", "车一进一"), ("R1+1", "车一进一"), ("b2b9", "炮八进七"), ("e0e1", "帅五进一"),
    ("炮２平５", None), ("兵7进1", None), ("炮二平五 炮8平5", None), ("前炮平五", None),
    ("车一进十", None), ("车一进0", None), ("炮二平", None), ("C2+5", None), ("炮二平五+", None),
    ("炮二平五。", None), ("1. 炮二平五", None), ("a0a9", None), ("\u202e炮二平五", None),
    ("🙂", None),
]  # fmt: skip
CHESS = [
    ("e4", "e4"), ("e2e4", "e4"), ("e2-e4", "e4"), ("♙e4", "e4"), ("e4+", "e4"), ("e 4", "e4"),
    ("Ng1-f3", "Nf3"), ("g1f3", "Nf3"), ("♘f3", "Nf3"), ("N1f3", "Nf3"), ("Nf3+", "Nf3"),
    ("E4", None), ("Pe4", None), ("Sf3", None), ("G1F3", None), ("O-O", None), ("0-0", None),
    ("--", None), ("0000", None), ("@@@@", None), ("Z0", None), ("e4e4", None), ("e8=Q", None),
    ("e2e4q", None), ("P-K4", None), ("1. e4", None), ("e4 e5", None), ("ｅ４", None),
]  # fmt: skip
GO = [
    ("D4", "D4"), ("d4", "D4"), (" D4 ", "D4"), ("D04", "D4"), ("t19", "T19"), ("J1", "J1"),
    ("PASS", "pass"), ("Pass", "pass"), ("I1", None), ("U19", None), ("Z99", None), ("D0", None),
    ("D20", None), ("D-1", None), ("DD", None), ("tt", None), ("D4 Q16", None), ("Ｄ４", None),
    ("D 4", None), ("D4.", None),
]  # fmt: skip
MOVES = {1: XIANGQI, 2: CHESS, 3: GO}

# Commands with odd arguments: each refused with its reason, nothing changed.
ODD = [
    "penalty", "penalty red abc", "penalty %s 99999999999999999999", "penalty %s +99999999999999h",
    "penalty %s 1e9", "penalty %s nan", "penalty purple -30s", "foul", "foul purple", "foul 7",
    "knock purple", "win", "win purple", "win 5", "resign", "resign purple", "undo 5", "start",
]  # fmt: skip
ODD_OWN = {
    1: ["claim red xyz", "claim purple rep", "confirm", "overrule purple", "unrule", "offer purple",
        "accept", "decline", "nomove purple", "phone purple"],
    2: ["claim white xyz", "illegal purple", "illegal white x", "adjust white x",
        "adjust white 1e400", "adjust white 99999999999999999999", "quickplay purple", "accept"],
    3: ["dead Z99", "dead D4", "count", "claim black"],
}  # fmt: skip
SIDE = {1: "red", 2: "white", 3: "black"}

# A new session's options, each refused whole (400 naming the option), the game in play kept.
BAD_OPTIONS = [
    (1, {"fen": "xyz"}, "fen: the board needs 10 ranks"),
    (1, {"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"}, "fen: "),
    (1, {"fen": "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1"}, "fen: the generals face each other"),
    (1, {"fen": "3akab2/9/4b4/9/9/9/9/9/4A4/2BAK4 b KQkq e3 0 1"}, "fen: Xiangqi has no castling"),
    (1, {"fen": "3akab2/9/4b4/9/9/9/9/9/4A4/2BAK4 b - - -1 0"}, "fen: move counters"),
    (1, {"fen": "3k5/4R4/3R5/9/9/9/9/9/9/4K4 b - - 0 1"}, "fen: the game is over in this position"),
    (1, {"left": "white"}, "left: red or black"),
    (1, {"game": "go"}, "game: board 1 plays xiangqi"),
    (1, {"game": "chess"}, "game: board 1 plays xiangqi"),
    (1, {"chess960": 5}, "chess960: chess only"),
    (2, {"fen": "3akab2/9/4b4/9/9/9/9/9/4A4/2BAK4 b - - 0 1"}, "fen: expected 8 rows"),
    (2, {"fen": "4k3/8/8/8/8/8/4Q3/4K3 w - - 0 1"}, "fen: not a position chess can reach"),
    (2, {"fen": "4k3/8/8/8/8/8/8/4K3 w K - 0 1"}, "fen: not a position chess can reach"),
    (2, {"fen": "4k3/8/8/8/8/8/8/4K3 w - - 0 1", "chess960": 5}, "chess960: "),
    (2, {"fen": "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"}, "fen: the game is over in this position"),
    (2, {"fen": "6rk/5Npp/8/8/8/8/8/6K1 b - - 0 1"}, "fen: the game is over in this position"),
    (2, {"fen": "k7/8/8/8/8/8/8/7K w - - 0 1"}, "fen: the game is over in this position"),
    (2, {"lang": "xx"}, "lang: one of en, de"),
    (2, {"left": "red"}, "left: white or black"),
    (2, {"game": "xiangqi"}, "game: board 2 plays chess"),
    (3, {"size": 9, "handicap": 6}, "handicap: 2 to 5 stones on 9x9"),
    (3, {"fen": "3akab2/9/4b4/9/9/9/9/9/4A4/2BAK4 b - - 0 1"}, "fen: Xiangqi and chess only"),
    (3, {"left": "red"}, "left: black or white"),
]


def status_error(server, path, body):
    heads = {"Content-Type": "application/json", "Authorization": "Bearer " + PASSWORD}
    req = urllib.request.Request(
        server.url + path, data=json.dumps(body).encode(), method="POST", headers=heads
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def addresses_answer(server, no):
    """Every address of the board answers (none 500s), its record among them."""
    ext = "sgf" if server.get("/api/boards/%d" % no)["game"] == "go" else "pgn"
    for path in ("/api/boards/%d" % no, "/api/boards/%d/session" % no, "/boards/%d.%s" % (no, ext),
                 "/api/boards/%d/session/record" % no, "/live.pgn"):  # fmt: skip
        with urllib.request.urlopen(server.url + path, timeout=30) as r:
            assert r.status == 200, path


def kept(server, no):
    """What a refused input must leave as it was: the session's game and the clock."""
    v = server.get("/api/boards/%d/session" % no)
    b = server.get("/api/boards/%d" % no)
    return (v["session"], v["moves"], v["fouls"], v["over"], v["result"], b["game"], b["state"],
            b["left"], b["played"])  # fmt: skip


@pytest.fixture
def boards(server):
    """Board 1 Xiangqi, 2 chess, 3 Go, each with a session whose clock was
    started, then paused (its time left stays as it is: a change is one's doing)."""
    server.post("/api/boards/2/players", {"game": "chess"})
    server.post("/api/boards/3/players", {"game": "go"})
    for no in (1, 2, 3):
        server.post("/api/boards/%d/session/new" % no, {"options": {}})
        for line in ("start", "pause"):
            assert server.post("/api/boards/%d/session" % no, {"line": line})["ok"]
        path = "/api/boards/%d" % no
        server.until(lambda p=path: server.get(p)["state"] == "paused", "paused", no)
    return server


def test_moves_in_unusual_notation_are_kept_as_the_game_writes_them_or_refused(boards):
    server = boards
    for no, table in MOVES.items():
        for text, want in table:
            before = kept(server, no)
            got = server.post("/api/boards/%d/session" % no, {"line": text})
            moves = got["session"]["moves"]
            if want is None:
                assert not got["ok"] and got["lines"][-1].startswith("?"), (text, got["lines"])
                assert kept(server, no) == before, text
            else:
                assert got["ok"] and [m["text"] for m in moves] == [want], (text, got["lines"])
                addresses_answer(server, no)
                assert server.post("/api/boards/%d/session" % no, {"line": "undo"})["ok"]
                assert kept(server, no) == before, text


def test_commands_with_odd_arguments_change_nothing(boards):
    server = boards
    for no in (1, 2, 3):
        for line in [x.replace("%s", SIDE[no]) for x in ODD] + ODD_OWN[no]:
            before = kept(server, no)
            got = server.post("/api/boards/%d/session" % no, {"line": line})
            assert not got["ok"] and got["lines"][-1].startswith("?  "), (line, got["lines"])
            assert kept(server, no) == before, line
        addresses_answer(server, no)


def test_a_bad_new_session_is_a_400_naming_it_and_the_game_goes_on(boards):
    server = boards
    moves = {1: "炮二平五", 2: "e4", 3: "D4"}
    for no, text in moves.items():
        assert server.post("/api/boards/%d/session" % no, {"line": text})["ok"]
    before = {no: kept(server, no) for no in moves}
    for no, options, why in BAD_OPTIONS:
        code, text = status_error(server, "/api/boards/%d/session/new" % no, {"options": options})
        assert (code, why in text) == (400, True), (options, code, text)
        assert kept(server, no) == before[no], options
        addresses_answer(server, no)  # a session of another game made its board's 500 before
    code, text = status_error(server, "/api/boards/1/session/new", {"configure": "yes"})
    assert (code, "configure: true or false" in text) == (400, True)
    # Nothing of them in the store: after a SIGKILL each board's game is the one in play.
    server.kill()
    server.start()
    server.boards_up(server.socket())
    for no in moves:
        assert kept(server, no)[:6] == before[no][:6]
        addresses_answer(server, no)


def test_a_board_whose_game_changes_takes_moves_of_its_new_game(boards):
    """``players`` may change a board's game while its game has no move: the
    open session of the old game is closed, the next line makes one of the
    board's game. Before, the Xiangqi session took 炮二平五 on a Go board and
    ``/api/boards/N`` and ``/boards/N.sgf`` answered 500 from then on."""
    server = boards
    assert server.post("/api/boards/1/players", {"game": "go"})["ok"]
    got = server.post("/api/boards/1/session", {"line": "炮二平五"})
    assert not got["ok"] and "not a point on 19x19" in got["lines"][-1]
    got = server.post("/api/boards/1/session", {"line": "D4"})
    assert (
        got["ok"] and got["session"]["kind"] == "go" and got["session"]["moves"][0]["text"] == "D4"
    )
    addresses_answer(server, 1)
    assert server.get("/api/boards/1")["position"]["stones"] == [[[3, 15], "black"]]
    # With a move kept, the game stays (409), and so does its session.
    code, text = status_error(server, "/api/boards/1/players", {"game": "chess"})
    assert code == 409 and "moves of this game are kept" in text
    assert server.get("/api/boards/1/session")["kind"] == "go"
