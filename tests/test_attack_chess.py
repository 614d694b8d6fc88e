# SPDX-License-Identifier: GPL-3.0-or-later
"""Attacks on docs/chess.md's promises, against the simulated clock in virtual
time. Each test failed before its fix."""

import pytest

from qizhong.arbiter import ArbiterError
from qizhong.arbiter.chess import ChessSession
from qizhong.arbiter.console import Console
from qizhong.clocks.driver import Clock
from qizhong.rules import chess
from qizhong.sim import Sim


@pytest.fixture
def sim():
    with Sim() as s:
        yield s


@pytest.mark.parametrize("amount", ["nan", "inf", "-inf", "1e400", "360001", "-1e9"])
def test_adjust_with_no_real_time_is_refused_and_the_console_lives(sim, tmp_path, amount):
    """docs/arbiter.md: `handle(line)` never raises for bad input; 12.9 `adjust
    SIDE SECONDS`. `adjust white nan` raised ValueError out of the console (a
    pipe run then ended at once, no record written); `1e9` reached the clock
    and its events' 32-bit times wrapped."""
    clock = Clock(sim.link)
    con = Console(ChessSession(clock, "blitz"), str(tmp_path / "g.pgn"))
    con.handle("start")
    lines = con.handle("adjust white %s" % amount)
    assert lines[-1].startswith("?  adjust SIDE SECONDS"), lines
    assert clock.status().left == (180000, 180000)
    assert con.handle("e4") == ["1. White e4"]  # the console goes on


def test_adjust_cannot_take_a_clock_over_100_hours(sim):
    """12.9 through the clock's penalty: a side holds at most 100 h (the
    syntax's cap; the faces show 99:59:59 at most). Before, the session sent
    it and the clock's events reported a wrapped, negative time."""
    clock = Clock(sim.link)
    game = ChessSession(clock, "blitz")
    game.start()
    with pytest.raises(ArbiterError, match="over 100h"):
        game.adjust("white", 100 * 3600000)
    assert clock.status().left == (180000, 180000)
    game.adjust("white", 100 * 3600000 - 180000)
    assert clock.status().left[0] == 100 * 3600000


def test_lower_case_castling_long_as_well_as_short():
    """`o-o` was read, `o-o-o` was refused: the short replacement broke the long."""
    board = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert board.parse_move("o-o").uci() == "e1g1"
    assert board.parse_move("o-o-o").uci() == "e1c1"
    assert board.parse_move("0-0-0", "de").uci() == "e1c1"


@pytest.mark.parametrize("text", ["--", "Z0", "0000", "@@@@"])
def test_a_null_move_is_not_a_move(sim, text):
    """docs/chess.md: a move that cannot be read raises ChessError and changes
    nothing; the console never raises for bad input. python-chess reads these
    as its null move, and the session then raised out of the console."""
    board = chess.Board()
    with pytest.raises(chess.ChessError, match="not a move"):
        board.parse_move(text)
    con = Console(ChessSession(Clock(sim.link), "blitz"))
    con.handle("start")
    assert con.handle(text)[-1].startswith("?  %r is not a move" % text)
    assert con.handle("claim white threefold %s" % text)[-1].startswith("?  ")
    assert con.cs.board.fen() == chess.STARTING_FEN
