# SPDX-License-Identifier: GPL-3.0-or-later
"""A five-round event run from the pages in real chromium (#30, "Done when").

Twelve simulated clocks (the real firmware, real time): boards 1-8 Xiangqi,
9-10 Go, 11-12 chess. The arbiter works from the rounds page:

- the player list imported (CSV); round 1, chess, from the pairing program's
  TRF-16 file (its players join the list), with a half-point bye given on the page;
- round 2 from a CSV: Xiangqi on boards 5-8, Go on 9-10 with size, komi and
  handicap columns, chess on 11-12; a withdrawal (player 4, from round 2 on) and a
  forfeit (board 12: Black absent) from the page;
- rounds 3-5 a round robin among six Xiangqi players the hall pairs itself
  (FIDE's Berger tables), with a late arrival within the default time in round 3;
- the server killed (SIGKILL) between rounds 2 and 3, and again during round 4.

Every game's result comes from a ruling at the board (resign, draw), typed as a
scorekeeper does. At the end the standings of each game and their tie-breaks are
those worked by hand below, the TRF written back fits FIDE's TRF-16 layout column
by column (checked here against the layout, not with our reader), every game played
has one record read back by python-chess, sgfmill and our Xiangqi reader with its
board, its names as paired and its ruling, and no action is pending."""

from __future__ import annotations

import io
import os
import time
import urllib.request
from fractions import Fraction
from typing import Any

import chess.pgn
import pytest
from hallserver import PASSWORD, Server
from selenium.webdriver.common.by import By
from sgfmill import sgf
from test_tournament_hall import Desk, opened

from qizhong.records import xiangqi_pgn

N = 12
SHOTS = os.environ.get("QIZHONG_SHOTS", "")
EVENT, SITE = "Hall Festival", "Suzhou"
DATES = {1: "2026-11-25", 2: "2026-11-25", 3: "2026-11-26", 4: "2026-11-26", 5: "2026-11-27"}
CONTROL = {"xiangqi": "xq-rapid", "go": "15m byoyomi 3x30s", "chess": "15m+10s"}

# -- the players --------------------------------------------------------------------------
CHESS = {  # start number: name, rating, federation, FIDE ID (the pairing program's TRF)
    1: ("Carlsen,Magnus", 2830, "NOR", 1503014),
    2: ("Hou,Yifan", 2633, "CHN", 8602980),
    3: ("Ding,Liren", 2780, "CHN", 8603677),
    4: ("O'Neill,Conor", 2105, "IRL", 2500035),
    5: ("Ju,Wenjun", 2560, "CHN", 8603006),
}
XQ = {11: "王天一", 12: "郑惟桐", 13: "许银川", 14: "赵鑫鑫", 15: "Conor O'Neill-Fitzgerald",
      16: "洪智", 17: "谢靖", 18: "孙勇征"}  # fmt: skip
GO = {31: "Cho Hunhyun", 32: "井山裕太", 33: "Shin Jinseo", 34: "柯洁"}
NAME = {**{no: p[0] for no, p in CHESS.items()}, **XQ, **GO}


def trf_player(no: int, rounds: str) -> str:
    """A TRF-16 player line (FIDE's layout, as the published files have it)."""
    name, rating, fed, fid = CHESS[no]
    return (
        "001 %4d %s%3s %-33s %4d %-3s %11d %-10s %4s %4s"
        % (no, "m", "", name, rating, fed, fid, "", "0.0", "")
        + rounds
    ).rstrip()


def round1_trf() -> str:
    """Round 1 as the pairing program exports it: 1-2 and 3-4 paired, no result yet."""
    lines = ["012 " + EVENT, "022 " + SITE, "042 2026/11/25", "052 2026/11/27",
             "062 5", "072 5", "092 Individual: Swiss-System", "122 15m+10s"]  # fmt: skip
    pair = {1: (2, "w"), 2: (1, "b"), 3: (4, "w"), 4: (3, "b")}
    for no in CHESS:
        r = "  %4d %s  " % pair[no] if no in pair else ""
        lines.append(trf_player(no, r))
    return "\n".join(lines) + "\n"


def players_csv() -> str:
    rows = ["no,name,rating,fed,id,game"]
    rows += ['%d,"%s",%d,%s,,xiangqi' % (no, n, 2500 - no, "CXA") for no, n in XQ.items()]
    rows += ['%d,"%s",%d,%s,,go' % (no, n, 2700 - no, "KBA") for no, n in GO.items()]
    return "\n".join(rows) + "\n"


def round2_csv() -> str:
    rows = ["board,first,second,game,control,size,komi,handicap"]
    for board, a, b in ((5, 11, 14), (6, 12, 13), (7, 15, 16), (8, 17, 18)):
        rows.append('%d,"%s","%s",xiangqi,%s,,,' % (board, NAME[a], NAME[b], CONTROL["xiangqi"]))
    rows.append('9,"%s","%s",go,%s,19,6.5,0' % (GO[31], GO[32], CONTROL["go"]))
    rows.append('10,"%s","%s",go,%s,19,0.5,2' % (GO[33], GO[34], CONTROL["go"]))
    rows.append('11,"%s","%s",chess,%s,,,' % (NAME[3], NAME[1], CONTROL["chess"]))
    rows.append('12,"%s","%s",chess,%s,,,' % (NAME[5], NAME[2], CONTROL["chess"]))
    return "\n".join(rows) + "\n"


# -- the games: each board's first moves, then the ruling that ends it ---------------------
# FIDE's Berger table for six (C.05 Annex 1), players 11..16 as pairing numbers 1..6:
# round 1: 1-6 2-5 3-4; round 2: 6-4 5-3 1-2; round 3: 2-6 3-1 4-5.
ROBIN = {3: [(11, 16), (12, 15), (13, 14)], 4: [(16, 14), (15, 13), (11, 12)],
         5: [(12, 16), (13, 11), (14, 15)]}  # fmt: skip
XQ_MOVES = ["炮二平五", "马８进７"]
# board: (moves, the line that ends it, PGN result); forfeits have no line
GAMES: dict[int, dict[int, tuple[list[str], str, str]]] = {
    1: {11: (["e4", "e5"], "resign black", "1-0"), 12: (["d4", "d5"], "draw", "1/2-1/2")},
    2: {
        5: (XQ_MOVES, "resign black", "1-0"),  # 11 beats 14
        6: (XQ_MOVES, "draw", "1/2-1/2"),  # 12 - 13
        7: (XQ_MOVES, "resign red", "0-1"),  # 16 beats 15 with Black
        8: (XQ_MOVES, "resign black", "1-0"),  # 17 beats 18
        9: (["D4", "Q16"], "resign white", "1-0"),  # 31 beats 32
        10: ([], "resign black", "0-1"),  # 34 beats 33 (two handicap stones)
        11: (["c4", "e5"], "resign white", "0-1"),  # 1 beats 3 with Black
    },
    3: {
        1: (XQ_MOVES, "draw", "1/2-1/2"),
        2: (XQ_MOVES, "resign black", "1-0"),
        3: (XQ_MOVES, "resign red", "0-1"),
    },
    4: {
        1: (XQ_MOVES, "resign black", "1-0"),
        2: (XQ_MOVES, "draw", "1/2-1/2"),
        3: (XQ_MOVES, "resign red", "0-1"),
    },
    5: {
        1: (XQ_MOVES, "draw", "1/2-1/2"),
        2: (XQ_MOVES, "resign red", "0-1"),
        3: (XQ_MOVES, "resign black", "1-0"),
    },
}

# -- the standings, worked by hand -------------------------------------------------------
# Chess (1, ½, 0; FIDE C.07 2023: an unplayed round counts as a game against a dummy
# opponent with the player's own points). Results: r1 1-2 1-0, 3-4 ½, 5 half-point bye;
# r2 3-1 0-1, 5-2 won by forfeit (+/-), 4 withdrawn (no round 2).
#   points: 1: 2; 5: ½+1 = 1½; 3: ½; 4: ½; 2: 0.
#   BH (opponents' points; dummies): 1: 2(0)+3(½) = ½; 5: 1½+1½ = 3; 3: 4(½)+1(2) = 2½;
#       4: 3(½)+dummy(½, round 2 after the withdrawal) = 1; 2: 1(2)+dummy(0) = 2.
#   BH-C1 (less the lowest contribution): 1: ½; 5: 1½; 3: 2; 4: ½; 2: 2.
#   SB (opponent's points times the points scored against them): 1: 0·1 + ½·1 = ½;
#       5: 1½·½ + 1½·1 = 2¼; 3: ½·½ + 2·0 = ¼; 4: ½·½ + ½·0 = ¼; 2: 0.
#   WIN (rounds won, a forfeit win counted): 1: 2; 5: 1; others 0. BPG: 1: 1 (r2);
#       2: 1 (r1; its forfeit was no game); 4: 1; 3, 5: 0.
#   Ranks: 1 (2), 5 (1½), then 3 and 4 at ½: BH-C1 2 against ½: 3 then 4; 2 last.
F = Fraction
CHESS_WANT = {  # no: (rank, points, {tie-break: value})
    1: (1, F(2), {"BH-C1": F(1, 2), "BH": F(1, 2), "SB": F(1, 2), "WIN": 2, "BPG": 1}),
    5: (2, F(3, 2), {"BH-C1": F(3, 2), "BH": F(3), "SB": F(9, 4), "WIN": 1, "BPG": 0}),
    3: (3, F(1, 2), {"BH-C1": F(2), "BH": F(5, 2), "SB": F(1, 4), "WIN": 0, "BPG": 0}),
    4: (4, F(1, 2), {"BH-C1": F(1, 2), "BH": F(1), "SB": F(1, 4), "WIN": 0, "BPG": 1}),
    2: (5, F(0), {"BH-C1": F(2), "BH": F(2), "SB": F(0), "WIN": 0, "BPG": 1}),
}
# Xiangqi (the CXA's 2, 1, 0). Results by round (first named is Red):
#   r2: 11-14 1-0, 12-13 ½, 15-16 0-1, 17-18 1-0; r3: 11-16 ½, 12-15 1-0, 13-14 0-1;
#   r4: 16-14 1-0, 15-13 ½, 11-12 0-1; r5: 12-16 ½, 13-11 0-1, 14-15 1-0.
#   points: 11: 2+1+0+2 = 5; 12: 1+2+2+1 = 6; 13: 1+0+1+0 = 2; 14: 0+2+0+2 = 4;
#           15: 0+0+1+0 = 1; 16: 2+1+2+1 = 6; 17: 2; 18: 0.
#   OPP 对手分 (the opponents' points): 11: 14+16+12+13 = 4+6+6+2 = 18;
#       12: 13+15+11+16 = 2+1+5+6 = 14; 13: 12+14+15+11 = 6+4+1+5 = 16;
#       14: 11+13+16+15 = 5+2+6+1 = 14; 15: 16+12+13+14 = 6+6+2+4 = 18;
#       16: 15+11+14+12 = 1+5+4+6 = 16; 17: 18 = 0; 18: 17 = 2.
#   PROG 累进分 (the running total after each of one's rounds, summed):
#       11: 2+3+3+5 = 13; 12: 1+3+5+6 = 15; 13: 1+1+2+2 = 6; 14: 0+2+2+4 = 8;
#       15: 0+0+1+1 = 2; 16: 2+3+5+6 = 16; 17: 2; 18: 0.
#   WIN 胜局数: 11, 12, 14, 16: 2; 17: 1. BWG 后胜局数 (wins as Black): 16 (r2), 14 (r3),
#       12 (r4), 11 (r5): 1 each.
#   Ranks: 16 and 12 at 6: OPP 16 against 14: 16, 12; 11 (5); 14 (4); 13 and 17 at 2:
#       OPP 16 against 0: 13, 17; 15 (1); 18 (0).
XQ_WANT = {
    16: (1, 6, {"OPP": 16, "PROG": 16, "WIN": 2, "BWG": 1}),
    12: (2, 6, {"OPP": 14, "PROG": 15, "WIN": 2, "BWG": 1}),
    11: (3, 5, {"OPP": 18, "PROG": 13, "WIN": 2, "BWG": 1}),
    14: (4, 4, {"OPP": 14, "PROG": 8, "WIN": 2, "BWG": 1}),
    13: (5, 2, {"OPP": 16, "PROG": 6, "WIN": 0, "BWG": 0}),
    17: (6, 2, {"OPP": 0, "PROG": 2, "WIN": 1, "BWG": 0}),
    15: (7, 1, {"OPP": 18, "PROG": 2, "WIN": 0, "BWG": 0}),
    18: (8, 0, {"OPP": 2, "PROG": 0, "WIN": 0, "BWG": 0}),
}
# Go (1, 0), round 2 only: 31 beat 32, 34 beat 33. SOS: 31: 0; 32: 1; 33: 1; 34: 0.
#   SOSOS (the opponents' SOS): 31: 1; 32: 0; 33: 0; 34: 1. SODOS (beaten opponents'
#   scores): all 0. 31 and 34 stay tied after all three (a shared rank 1), so do 32 and 33.
GO_WANT = {
    31: (1, 1, {"SOS": 0, "SOSOS": 1, "SODOS": 0}),
    34: (1, 1, {"SOS": 0, "SOSOS": 1, "SODOS": 0}),
    32: (3, 0, {"SOS": 1, "SOSOS": 0, "SODOS": 0}),
    33: (3, 0, {"SOS": 1, "SOSOS": 0, "SODOS": 0}),
}


def value(text: str) -> Fraction:
    return Fraction(text)


def fetch(server: Server, path: str) -> bytes:
    with urllib.request.urlopen(server.url + path, timeout=30) as r:
        return r.read()


@pytest.fixture
def hall(tmp_path):
    with opened(tmp_path, N) as desk:
        yield desk


def paste(desk: Desk, box: str, text: str) -> None:
    desk.b.execute_script("document.getElementById(arguments[0]).value = arguments[1]", box, text)


def typed(desk: Desk, box: str, text: str) -> None:
    el = desk.b.find_element(By.ID, box)
    el.clear()
    el.send_keys(text)


def msg(desk: Desk, box: str, want: str) -> None:
    desk.until(lambda: want in desk.text("#" + box))
    assert "error" not in (desk.b.find_element(By.ID, box).get_attribute("class") or ""), (
        box,
        desk.text("#" + box),
    )


def rounds_page(desk: Desk, rnd: int | None = None) -> None:
    desk.b.get(desk.s.url + "/rounds")
    desk.until(lambda: desk.b.find_element(By.ID, "import").is_displayed())
    if rnd is not None:
        desk.click("#round-list button[data-round='%d']" % rnd)
        desk.until(lambda: desk.text("#round-title").startswith("Round %d" % rnd))


def start(desk: Desk, rnd: int, boards: list[int]) -> None:
    """The round's Start on the rounds page: its boards' clocks set up and running."""
    rounds_page(desk, rnd)
    desk.click("#r-start")
    desk.until(lambda: desk.text("#r-msg") not in ("", "starting…"), 90)
    assert desk.text("#r-msg").startswith("started: %d boards" % len(boards)), desk.text("#r-msg")
    desk.board(
        None,
        lambda: all(desk.s.get("/api/boards/%d" % no)["state"] == "running" for no in boards),
        "round %d's clocks running" % rnd,
    )


def finish(desk: Desk, rnd: int) -> None:
    """Each game's moves (entered, each with its press), then the ruling that ends it."""
    games = GAMES[rnd]
    desk.play({no: moves for no, (moves, _, _) in games.items() if moves})
    for no, (_, line, _) in games.items():
        desk.line(no, line)
    desk.board(
        None,
        lambda: all(desk.view(no)["over"] for no in games),
        "round %d's games over" % rnd,
    )


def board_form(desk: Desk, board: int, verb: str, side: str = "", minutes: int = 0) -> None:
    """A board's ruling from the rounds page's form (asked first: yes)."""
    typed(desk, "b-board", str(board))
    desk.b.find_element(By.CSS_SELECTOR, "#b-verb option[value='%s']" % verb).click()
    if side:
        desk.b.find_element(By.CSS_SELECTOR, "#b-side option[value='%s']" % side).click()
    if minutes:
        typed(desk, "b-minutes", str(minutes))
    desk.click("#b-apply")
    msg(desk, "b-msg", "board %d: %s" % (board, verb))


def check_standings(server: Server, game: str, want: dict[int, tuple[int, Any, dict]]) -> None:
    got = server.get("/api/standings?game=" + game)
    rows = {r["no"]: r for r in got["rows"]}
    assert set(rows) == set(want), (game, sorted(rows))
    wrong = []  # every difference, not only the first
    for no, (rank, points, tbs) in want.items():
        r = rows[no]
        if r["rank"] != rank or value(r["points"]) != points:
            wrong.append((no, "rank, points", (rank, points), (r["rank"], r["points"])))
        for key, v in tbs.items():
            if value(r["tb"][key]) != v:
                wrong.append((no, key, v, r["tb"][key]))
    assert wrong == [], (game, wrong)
    assert [r["no"] for r in got["rows"]] == sorted(want, key=lambda n: (want[n][0], n))


def check_trf(text: str) -> None:
    """The TRF written back, against FIDE's TRF-16 layout column by column (1-based
    columns as the format's description gives them), and the results it must carry."""
    players = {}
    for line in text.splitlines():
        assert line.isascii() or line[:3] in ("012", "022", "102", "112"), line
        code = line[:3]
        assert code.isdigit() and (len(line) == 3 or line[3] == " "), line
        if code != "001":
            continue
        no = int(line[4:8])
        assert line[8] == " " and line[13] == " " and line[47] == " ", line
        assert line[52] == " " and line[56] == " " and line[68] == " ", line
        assert line[79] == " " and line[84] == " ", line
        name, rating = line[14:47].rstrip(), line[48:52].strip()
        fed, fid = line[53:56].strip(), line[57:68].strip()
        points, rank = line[80:84].strip(), line[85:89].strip()
        rounds = []
        for at in range(91, len(line), 10):  # each round: cols 92-95, 97, 99 (+2 blank)
            cell = line[at : at + 8]
            assert line[at - 2 : at] == "  ", (line, at)
            assert cell[4] == " " and cell[6] == " ", (line, at)
            rounds.append((cell[:4].strip(), cell[5], cell[7]))
        players[no] = (name, rating, fed, fid, points, rank, rounds)
    assert set(players) == set(CHESS), sorted(players)
    for no, (name, rating, fed, fid) in CHESS.items():
        got = players[no]
        assert got[:4] == (name, str(rating), fed, str(fid)), got
        assert value(got[4]) == CHESS_WANT[no][1], got
        assert int(got[5]) == CHESS_WANT[no][0], got
    want_rounds = {
        1: [("2", "w", "1"), ("3", "b", "1")],
        2: [("1", "b", "0"), ("5", "b", "-")],
        3: [("4", "w", "="), ("1", "w", "0")],
        4: [("3", "b", "=")],
        5: [("0000", "-", "H"), ("2", "w", "+")],
    }
    for no, rounds in want_rounds.items():
        assert players[no][6][: len(rounds)] == rounds, (no, players[no][6])


def check_record(server: Server, rnd: int, board: int, first: str, second: str,
                 result: str, line: str, moves: list[str]) -> None:  # fmt: skip
    """The game's one record (the round's address, the zip's), read back independently."""
    game = server.get("/api/rounds/%d" % rnd)
    row = next(r for r in game["boards"] if r["board"] == board)
    assert row["record"], (rnd, board, row)
    data = fetch(server, row["record"])
    ruling = line.split()[0]  # resign, draw: the record says why the game ended
    if row["game"] == "go":
        root = sgf.Sgf_game.from_bytes(data).get_root()
        assert (root.get("PB"), root.get("PW")) == (first, second)
        assert root.get("RO") == str(rnd) and root.get("EV") == EVENT
        assert root.get("RE")[:2] == {"1-0": "B+", "0-1": "W+"}[result]
        assert ruling in data.decode().lower() or "R" in root.get("RE"), data
        return
    text = data.decode("utf-8")
    if row["game"] == "chess":
        g = chess.pgn.read_game(io.StringIO(text))
        assert g is not None and not g.errors, (rnd, board, g and g.errors)
        h, got = g.headers, [n.san() for n in g.mainline()]
        names = (h["White"], h["Black"])
    else:
        g = xiangqi_pgn.read_game(data)
        h, b, got = g.headers, g.board(), []
        for mv in g.moves:
            got.append(b.notation(mv))
            b.push(mv)
        names = (h["Red"], h["Black"])
        moves = [m.translate({0xFF10 + i: 0x30 + i for i in range(10)}) for m in moves]
    assert names == (first, second), (rnd, board, names)
    assert (h["Event"], h["Round"], h["Board"], h["Result"]) == (EVENT, str(rnd), str(board),
                                                                 result)  # fmt: skip
    assert got == moves, (rnd, board, got)
    assert ruling in text.lower(), (rnd, board, text)


def test_a_five_round_event_from_the_pages(hall, tmp_path):
    desk, s, b = hall, hall.s, hall.b
    t0 = time.monotonic()
    tmp = str(tmp_path)
    s.post("/api/tournament/settings", {"default_minutes": 30, "arbiter": "Li Ming"})

    # -- the event, its players (CSV), round 1 from the pairing program's TRF ----------------
    b.get(s.url + "/rounds")
    b.find_element(By.ID, "password").send_keys(PASSWORD)
    b.find_element(By.ID, "login").click()
    desk.until(lambda: b.find_element(By.ID, "import").is_displayed())
    typed(desk, "t-name", EVENT)
    typed(desk, "t-site", SITE)
    paste(desk, "t-start", DATES[1])
    paste(desk, "t-end", DATES[5])
    desk.click("#t-save")
    msg(desk, "t-msg", "saved")
    paste(desk, "p-text", players_csv())
    desk.click("#p-import")
    msg(desk, "p-msg", "%d players" % (len(XQ) + len(GO)))
    paste(desk, "i-text", round1_trf())
    paste(desk, "i-date", DATES[1])
    typed(desk, "i-boards", "11,12")
    typed(desk, "i-control", CONTROL["chess"])
    desk.click("#i-import")
    msg(desk, "i-msg", "round 1: 2 boards")
    assert {p["no"] for p in s.get("/api/players")["players"]} == set(NAME)
    # The bye: player 5, half a point (the pairing program left them out).
    typed(desk, "y-player", "5")
    b.find_element(By.CSS_SELECTOR, "#y-kind option[value='half']").click()
    desk.click("#y-apply")
    msg(desk, "y-msg", "bye kept")
    desk.until(lambda: "Byes: Ju,Wenjun (half)" in desk.text("#byes"))
    start(desk, 1, [11, 12])
    got = s.get("/api/rounds/1")["boards"]
    assert [(r["board"], r["first"], r["second"]) for r in got] == [
        (11, NAME[1], NAME[2]),
        (12, NAME[3], NAME[4]),
    ]
    finish(desk, 1)

    # -- round 2 from a CSV; a withdrawal and a forfeit from the page -------------------------
    rounds_page(desk)
    desk.click("#player-list tr[data-no='4'] button.withdraw")
    desk.until(lambda: "withdrawn from round 2" in desk.text("#player-list tr[data-no='4']"))
    paste(desk, "i-text", round2_csv())
    paste(desk, "i-date", DATES[2])
    desk.click("#i-import")
    msg(desk, "i-msg", "round 2: 8 boards")
    board_form(desk, 12, "forfeit", "second")  # Hou Yifan absent: Ju Wenjun wins (+/-)
    start(desk, 2, [5, 6, 7, 8, 9, 10, 11])
    finish(desk, 2)
    assert desk.view(10)["moves"] == [] and "handicap" in str(s.get("/api/rounds/2")).lower()

    # -- between rounds: the server killed, and back ------------------------------------------
    s.kill()
    s.start()
    s.boards_up(s.socket())

    # -- rounds 3-5: a round robin the hall pairs (Berger), a late arrival in round 3 ---------
    rounds_page(desk)
    typed(desk, "o-players", "11,12,13,14,15,16")
    typed(desk, "o-boards", "1,2,3")
    typed(desk, "o-control", CONTROL["xiangqi"])
    typed(desk, "o-rounds", "3")
    desk.click("#o-make")
    msg(desk, "o-msg", "rounds 3, 4, 5 paired")
    for rnd, pairs in ROBIN.items():
        got = s.get("/api/rounds/%d" % rnd)["boards"]
        assert [(r["board"], r["first"], r["second"]) for r in got] == [
            (i + 1, NAME[a], NAME[c]) for i, (a, c) in enumerate(pairs)
        ], (rnd, got)
    start(desk, 3, [1, 2, 3])
    rounds_page(desk, 3)
    board_form(desk, 1, "late", "first", 5)  # 王天一 five minutes late: within 30
    assert "within the default time" in desk.text("#b-msg")
    desk.until(lambda: "late: 王天一 5 min" in desk.text("#results tr[data-board='1'] td.state"))
    row = next(r for r in s.get("/api/rounds/3")["boards"] if r["board"] == 1)
    assert row["late"] and not row["forfeit"], row
    finish(desk, 3)

    # -- round 4, the server killed in the middle of it ---------------------------------------
    start(desk, 4, [1, 2, 3])
    desk.play({no: XQ_MOVES[:1] for no in (1, 2, 3)})
    s.kill()
    s.start()
    s.boards_up(s.socket())
    desk.play({no: XQ_MOVES[1:] for no in (1, 2, 3)})
    for no, (_, line, _) in GAMES[4].items():
        desk.line(no, line)
    desk.board(None, lambda: all(desk.view(no)["over"] for no in (1, 2, 3)), "round 4 over")
    start(desk, 5, [1, 2, 3])
    finish(desk, 5)

    # -- the standings, on the page and from the API: as worked by hand ----------------------
    for game, want in (("xiangqi", XQ_WANT), ("go", GO_WANT), ("chess", CHESS_WANT)):
        check_standings(s, game, want)
    rounds_page(desk, 5)
    desk.until(lambda: len(b.find_elements(By.CSS_SELECTOR, "#s-table tbody tr")) == len(XQ))
    shown = b.execute_script(
        "return [...document.querySelectorAll('#s-table tbody tr')].map(r => r.cells[1].innerText)"
    )
    assert shown == [NAME[no] for no in XQ_WANT], shown
    for width, height in ((1366, 768), (390, 844)):  # a wide table scrolls in its box
        b.set_window_size(width, height)
        b.execute_script("document.getElementById('standings').scrollIntoView()")
        assert b.execute_script("return document.documentElement.scrollWidth <= innerWidth")
        if SHOTS:
            desk.shot("standings%s.png" % ("-phone" if width < 500 else ""), tmp, width, height)
    b.set_window_size(1366, 768)

    # -- the spectators' page: standings, pairings and boards, nothing to act on ------------
    b.get(s.url + "/watch")
    desk.until(lambda: len(b.find_elements(By.CSS_SELECTOR, "#w-standings table")) == 3)
    assert NAME[16] in desk.text("#w-standings") and EVENT in desk.text("#event")
    desk.until(lambda: len(b.find_elements(By.CSS_SELECTOR, "#w-pairings tbody tr")) == 3)
    assert not b.find_elements(By.CSS_SELECTOR, "input, #login-form, #alerts, #controls")
    for width, height in ((1366, 768), (390, 844)):  # a wide table scrolls in its box
        b.set_window_size(width, height)
        assert b.execute_script("return document.documentElement.scrollWidth <= innerWidth")
        if SHOTS:
            desk.shot("spectators-event%s.png" % ("-phone" if width < 500 else ""), tmp, width,
                      height)  # fmt: skip
    b.set_window_size(1366, 768)

    # -- TRF-16 for the rating officer: column by column -------------------------------------
    check_trf(fetch(s, "/tournament.trf").decode("utf-8"))

    # -- one record per game played, read back with its board, names and ruling ------------
    for rnd, games in GAMES.items():
        paired = {r["board"]: r for r in s.get("/api/rounds/%d" % rnd)["boards"]}
        for board, (moves, line, result) in games.items():
            p = paired[board]
            check_record(s, rnd, board, p["first"], p["second"], result, line, moves)

    # -- every action ended: done or failed, none pending ------------------------------------
    pending = [a for a in s.events("/api/actions") if a.get("state") == "pending"]
    assert pending == [], pending
    print("five-round event on %d clocks: %.1f s" % (N, time.monotonic() - t0))
