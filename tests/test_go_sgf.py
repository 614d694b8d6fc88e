# SPDX-License-Identifier: GPL-3.0-or-later
"""Go records as SGF FF[4] with the clock's times (go_sgf), read back by sgfmill too."""

from __future__ import annotations

import doctest
import os
import random
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sgfmill import boards, sgf, sgf_moves  # type: ignore[import-untyped]

from qizhong.core import tcspec
from qizhong.core.clock import Clock
from qizhong.records import go_sgf
from qizhong.records.go_sgf import GoRecord, MoveTime, SgfError
from qizhong.rules import go
from qizhong.rules.go import BLACK, WHITE, Board, Point

HERE = os.path.dirname(os.path.abspath(__file__))
KGS = os.path.join(HERE, "data", "go", "kgs-style-9x9.sgf")


def test_docstring_examples():
    assert doctest.testmod(go_sgf).failed == 0


# -- seconds <-> ms ---------------------------------------------------------------


@pytest.mark.parametrize(
    "ms,text",
    [(12345, "12.345"), (60000, "60"), (100, "0.1"), (1, "0.001"), (0, "0"), (7250, "7.25")],
)
def test_seconds_are_exact(ms, text):
    assert go_sgf.seconds(ms) == text
    assert go_sgf.parse_seconds(text) == ms


@given(st.integers(0, 10**10))
def test_seconds_round_trip(ms):
    assert go_sgf.parse_seconds(go_sgf.seconds(ms)) == ms


def test_parse_seconds_rounds_and_refuses():
    assert go_sgf.parse_seconds("1781.379") == 1781379
    assert go_sgf.parse_seconds("12.3455") == 12346  # finer than ms: to the nearest ms
    assert go_sgf.parse_seconds(" 30 ") == 30000
    for bad in ("-1", "abc", "inf", "nan", ""):
        with pytest.raises(SgfError):
            go_sgf.parse_seconds(bad)
    for bad_ms in (-1, 1.5):
        with pytest.raises(SgfError):
            go_sgf.seconds(bad_ms)  # type: ignore[arg-type]
    with pytest.raises(SgfError):
        MoveTime(-5)
    with pytest.raises(SgfError):
        MoveTime(5, -1)


# -- a game with the clock's times ------------------------------------------------


def clocked_game(spec: str = "1m byoyomi 3x30s", seed: int = 3) -> GoRecord:
    """A random 9x9 game timed by the clock core: each press read with clock_reading."""
    rng = random.Random(seed)
    tc = tcspec.parse(spec)
    clock = Clock(tc)
    board = Board(9)
    times: list[MoveTime | None] = []
    t = 0
    clock.start(t, 0)  # side 0 is Black: Black moves first (GO-1)
    for k in range(60):
        moves = [m for m in board.legal_moves if not m.is_pass] if k != 9 else [go.PASS]
        side = 0 if board.turn is BLACK else 1
        t += 40000 if k == 20 else rng.randint(500, 20000)  # one move uses a period
        board.push(rng.choice(moves))
        clock.press(side, t)
        times.append(go_sgf.clock_reading(clock, side))
    board.resign(WHITE)
    out = board.outcome()
    assert out is not None
    return GoRecord(
        board,
        black="柯洁",
        white="Shin [Jinseo]",
        date="2024-03-27",
        time_control=tc,
        times=times,
        result=out.sgf(),
        properties={"EV": "qizhong test cup", "HA": "0"},
    )


def test_clock_reading_in_byoyomi_and_canadian():
    clock = Clock(tcspec.parse("1m byoyomi 3x30s"))
    clock.start(0, 0)
    clock.press(0, 10000)
    assert go_sgf.clock_reading(clock, 0) == MoveTime(50000)
    clock.press(1, 20000)
    clock.press(0, 85000)  # 50 s of main time, then 15 s of a period
    assert go_sgf.clock_reading(clock, 0) == MoveTime(30000, 3)
    clock.press(1, 90000)
    clock.press(0, 160000)  # 70 s in byo-yomi: two periods used up (TC-6)
    assert go_sgf.clock_reading(clock, 0) == MoveTime(30000, 1)
    c = Clock(tcspec.parse("0 canadian 5/2m"))
    c.start(0, 0)
    c.press(0, 7000)
    assert go_sgf.clock_reading(c, 0) == MoveTime(113000, 4)  # TC-7: 4 moves left


def test_round_trip():
    rec = clocked_game()
    assert any(t is not None and t.overtime == 2 for t in rec.times)  # a period was used
    data = go_sgf.write(rec)
    back = go_sgf.read(data)
    assert back.board.move_stack == rec.board.move_stack
    assert str(back.board) == str(rec.board)
    assert back.times == rec.times
    assert back.time_control == rec.time_control
    assert (back.black, back.white, back.date, back.result, back.rules) == (
        "柯洁",
        "Shin [Jinseo]",
        "2024-03-27",
        "B+R",
        "Chinese",
    )
    assert back.properties == {"EV": "qizhong test cup", "HA": "0"}
    assert back.board.komi == Fraction(15, 2)
    out = back.board.outcome()
    assert out is not None and out.termination is go.Termination.RESIGNATION
    assert go_sgf.write(back) == data  # a fixed point


def test_sgfmill_reads_our_file():
    rec = clocked_game(seed=4)
    game = sgf.Sgf_game.from_bytes(go_sgf.write(rec))
    root = game.get_root()
    assert game.get_size() == 9 and game.get_komi() == 7.5
    assert root.get("FF") == 4 and root.get("RU") == "Chinese"
    assert game.get_player_name("b") == "柯洁" and game.get_player_name("w") == "Shin [Jinseo]"
    assert (root.get("TM"), root.get("OT")) == (60, "3x30 byo-yomi")
    assert game.get_winner() == "b" and root.get("DT") == "2024-03-27"
    _, plays = sgf_moves.get_setup_and_moves(game)
    assert len(plays) == len(rec.board.move_stack)
    ref = boards.Board(9)
    for (colour, mv), ours, node, t in zip(
        plays, rec.board.move_stack, game.get_main_sequence()[1:], rec.times, strict=True
    ):
        assert mv == (None if ours.point is None else (ours.point.row, ours.point.col))
        if mv is not None:
            ref.play(mv[0], mv[1], colour)
        assert t is not None
        assert node.get(colour.upper() + "L") == pytest.approx(t.left_ms / 1000, abs=1e-9)
        ot = "O" + colour.upper()
        assert (node.get(ot) if node.has_property(ot) else None) == t.overtime
    for r in range(9):
        for c in range(9):
            ours_c = rec.board.color_at(Point(c, r))
            assert ref.get(r, c) == (None if ours_c is None else ours_c.letter.lower())


def test_canadian_and_setup_stones():
    board = Board.from_setup(19, [Point(3, 3), Point(15, 15)], turn=WHITE, komi="0.5")
    board.push_gtp("Q4")
    board.push_gtp("pass")
    rec = GoRecord(
        board,
        time_control=tcspec.parse("60m canadian 15/10m"),
        times=[MoveTime(3590000), MoveTime(3580123)],
    )
    data = go_sgf.write(rec)
    assert b"PL[W]" in data and b"OT[15/600 Canadian]" in data and b"KM[0.5]" in data
    assert b"AB[dp][pd]" in data and b"B[]" in data
    back = go_sgf.read(data)
    assert back.board.setup == board.setup and back.board.first is WHITE
    assert back.board.move_stack == board.move_stack and back.times == rec.times
    assert back.time_control == tcspec.parse("60m canadian 15/10m")
    assert back.board.komi == Fraction(1, 2)


# -- a KGS-style file ---------------------------------------------------------------


def test_reads_a_kgs_style_file():
    # tests/data/go/kgs-style-9x9.sgf: written by hand in KGS's style for this test.
    with open(KGS, "rb") as f:
        rec = go_sgf.read(f.read())
    b = rec.board
    assert b.size == 9 and b.komi == Fraction(13, 2) and rec.rules == "Japanese"
    assert rec.time_control == tcspec.parse("10m byoyomi 5x30s")
    assert (rec.black, rec.white, rec.date) == ("black_kgs", "white_kgs", "2024-03-27")
    assert rec.properties["BR"] == "4k" and rec.properties["WR"] == "3k"
    assert rec.properties["ST"] == "2" and "not a real KGS game" in rec.properties["PC"]
    assert len(b.move_stack) == 12 and b.move_stack[7] == go.PASS  # W[tt] is a pass
    assert b.captures == {BLACK: 1, WHITE: 0}  # D4 took D5
    assert b.color_at(Point.from_gtp("D5", 9)) is None
    assert rec.times[0] == MoveTime(597213)
    assert rec.times[6] == MoveTime(12250)
    assert rec.times[8] == MoveTime(28117, 5)
    assert rec.times[10] == MoveTime(3003, 1) and rec.times[11] == MoveTime(30000, 5)
    out = b.outcome()
    assert out is not None and out.winner is BLACK and out.sgf() == "B+R"
    assert rec.result == "B+Resign"
    again = go_sgf.read(go_sgf.write(rec))  # and it survives our writer
    assert again.board.move_stack == b.move_stack and again.times == rec.times


def test_reads_a_gb2312_file():
    # Older Chinese records are often GB2312: names and other text come out right.
    text = "(;GM[1]FF[4]CA[GB2312]SZ[19]KM[7.5]PB[柯洁]PW[古力]EV[第一届棋钟杯];B[pd];W[dp])"
    rec = go_sgf.read(text.encode("gb2312"))
    assert (rec.black, rec.white, rec.properties["EV"]) == ("柯洁", "古力", "第一届棋钟杯")
    assert "柯洁".encode() in go_sgf.write(rec)  # written back as UTF-8


# -- bad input ----------------------------------------------------------------------


def sgf_of(body: str, root: str = "GM[1]FF[4]SZ[9]") -> bytes:
    return ("(;%s%s)" % (root, body)).encode()


@pytest.mark.parametrize(
    "data,match",
    [
        (b"not sgf at all", "not an SGF game"),
        (sgf_of("", "GM[1]SZ[7]"), "GO-1"),
        (sgf_of("", "GM[2]SZ[9]"), "not a Go game"),
        (sgf_of(";B[ee];W[ee]"), "move 2: illegal move W E5: the point is occupied"),
        (sgf_of(";B[ee];B[dd]"), "move 2 is B but W is to play"),
        (sgf_of(";B[ee];W[ab];B[ff];W[ba];B[aa]"), "move 5: .*GO-3"),
        (sgf_of(";B[zz]"), "move 1"),
        (sgf_of(";B[ee]BL[soon]"), "move 1: bad BL"),
        (sgf_of(";B[ee]BL[10]OB[x]"), "move 1: bad BL/OB"),
        (sgf_of(";B[ee];AB[dd]"), "setup stones after the start"),
        (sgf_of("", "GM[1]SZ[9]KM[lots]"), "komi"),
        (sgf_of("", "GM[1]SZ[9]AB[aa]AW[ab][ba]"), "no liberties"),
        (sgf_of("", "GM[1]SZ[9]PL[X]"), "PL"),
    ],
)
def test_bad_files_are_refused_clearly(data, match):
    with pytest.raises(SgfError, match=match):
        go_sgf.read(data)


def test_unknown_overtime_is_kept_as_text():
    rec = go_sgf.read(sgf_of(";B[ee]", "GM[1]SZ[9]TM[300]OT[3 moves in 1 hour]"))
    assert rec.time_control is None
    assert rec.properties["TM"] == "300" and rec.properties["OT"] == "3 moves in 1 hour"
    data = go_sgf.write(rec)
    assert b"TM[300]" in data and b"OT[3 moves in 1 hour]" in data


def test_bad_records_are_refused_on_write():
    board = Board(9)
    board.push_gtp("E5")
    with pytest.raises(SgfError, match="2 times for 1 moves"):
        go_sgf.write(GoRecord(board, times=[MoveTime(1), MoveTime(2)]))
    with pytest.raises(SgfError, match="cannot be set"):
        go_sgf.write(GoRecord(board, properties={"KM": "6.5"}))
    with pytest.raises(SgfError, match="cannot be set"):
        go_sgf.write(GoRecord(board, properties={"ev": "x"}))
    # Stages have no TM/OT form, but the record is written: the exact spec in QZTC.
    staged = go_sgf.write(GoRecord(board, time_control=tcspec.parse("40/90m+30s:30m+30s")))
    assert b"QZTC[40/90m+30s:30m+30s]" in staged
    with pytest.raises(SgfError, match="raw SGF"):
        go_sgf.write(GoRecord(board, properties={"EV": "a]b"}))
