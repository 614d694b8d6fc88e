# SPDX-License-Identifier: GPL-3.0-or-later
"""A flag ruled by search (CH-2, FIDE 6.9) and dead positions (CH-3, 5.2.2).

Each position is worked by hand below: a mate that exists (the final
position is on the board here and checked to be a mate) or the reason none
can. ``unwinnable.analyse`` must decide each, and a series it finds must be
legal moves that end in the mate (or leave a lone king against mating
material, the classic result).
"""

import random

import chess
import pytest

from qizhong.rules import blockade, unwinnable
from qizhong.rules.chess import Board, Termination

W, B = chess.WHITE, chess.BLACK


def _replay(fen: str, color: bool, v: unwinnable.Verdict) -> None:
    """The series is legal, and ends in ``color``'s mate or a lone king
    against material that can mate."""
    b = chess.Board(fen)
    assert v.series
    for mv in v.series:
        assert mv in b.legal_moves, (b.fen(), mv)
        b.push(mv)
    if b.is_checkmate():
        assert b.turn != color
    else:
        other = b.occupied_co[not color]
        assert other == b.kings & other and not b.has_insufficient_material(color)


def _mate(fen: str, mated: bool) -> None:
    b = chess.Board(fen)
    assert b.is_valid() and b.is_checkmate() and b.turn == mated


# -- KN v KB -------------------------------------------------------------------------

KN_KB = "8/8/8/4k3/8/8/8/1b2K1N1 w - - 0 1"


def test_a_knight_mates_against_a_bishop_that_blocks():
    """CH-2 (6.9): with a lone knight a mate needs a blocker. Black's king on
    h8, its light bishop on g8 shutting g8, White's king on h6 covering g7
    and h7, the knight on g6 checks: the bishop cannot take g6 (it guards f7
    and h7), so it is mate. Black's bishop is light, so the mate is in a
    dark corner."""
    _mate("6bk/8/6NK/8/8/8/8/8 b - - 0 1", B)
    v = unwinnable.analyse(chess.Board(KN_KB), W)
    assert v.result == "winnable" and "mate" in v.reason
    _replay(KN_KB, W, v)


def test_a_knight_cannot_mate_a_queen_and_king():
    """CH-2 (6.9): python-chess's material rule, and CHA's: a lone knight
    against a king and queen (no pawn to promote to a blocker) is counted as
    no mating material, before any search."""
    v = unwinnable.analyse(chess.Board("8/8/8/4k3/8/8/8/1q2K1N1 w - - 0 1"), W)
    assert v.result == "unwinnable" and "material" in v.reason


# -- KB v KB, opposite colours, both ways -----------------------------------------

KB_KB = "8/8/8/4k3/8/8/8/1b2K1B1 w - - 0 1"  # White's bishop dark (g1), Black's light (b1)


def test_opposite_bishops_white_mates():
    """CH-2 (6.9): White's dark bishop mates in a dark corner. Black's king
    on h8, its light bishop on g8 (the square beside the king on its rank,
    light, which White's dark bishop can never cover), White's king on g6
    covering h7 and g7, the bishop checking from f6 through g7."""
    _mate("6bk/8/5BK1/8/8/8/8/8 b - - 0 1", B)
    v = unwinnable.analyse(chess.Board(KB_KB), W)
    assert v.result == "winnable"
    _replay(KB_KB, W, v)


def test_opposite_bishops_black_mates():
    """CH-2 (6.9), the other way: Black's light bishop mates in a light
    corner. White's king on h1, its dark bishop on g1 beside it, Black's king
    on g3 covering h2 and g2, the bishop checking from f3 through g2."""
    _mate("8/8/8/8/8/5bk1/8/6BK w - - 0 1", W)
    v = unwinnable.analyse(chess.Board(KB_KB), B)
    assert v.result == "winnable"
    _replay(KB_KB, B, v)


def test_bishops_of_one_colour_cannot_mate():
    """CH-2 (6.9): both bishops dark. A bishop's check leaves the king the
    squares beside it on its rank and file, all light: no piece on the board
    can ever shut them."""
    v = unwinnable.analyse(chess.Board("8/8/8/4k3/8/8/8/2b1K1B1 w - - 0 1"), W)
    assert v.result == "unwinnable"


# -- KN v K + pawns ------------------------------------------------------------------


@pytest.mark.parametrize(
    "fen",
    [
        "8/p7/8/4k3/8/8/8/4K1N1 w - - 0 1",  # the pawn at home
        "8/8/8/4k3/8/3p4/8/4K1N1 w - - 0 1",  # the pawn far on
    ],
)
def test_a_knight_mates_against_king_and_pawn(fen):
    """CH-2 (6.9): the pawn blocks (or promotes to a blocker). Black's king
    on a8, its pawn on a7, White's king on c8 covering b8 and b7, the knight
    checks from c7: mate. python-chess's material test says as much, but
    the flag is ruled by the series found, not by the material."""
    _mate("k1K5/p1N5/8/8/8/8/8/8 b - - 0 1", B)
    v = unwinnable.analyse(chess.Board(fen), W)
    assert v.result == "winnable"
    _replay(fen, W, v)


def test_the_lone_king_cannot_mate_the_knight_side():
    """CH-2 (6.9): Black has only king and pawn against king and knight;
    Black mates only after promoting, and then it can (a queen against a king
    and knight): so winnable, by the search, not refused for material."""
    fen = "8/8/8/4k3/8/3p4/8/4K1N1 w - - 0 1"
    v = unwinnable.analyse(chess.Board(fen), B)
    assert v.result == "winnable"
    _replay(fen, B, v)


# -- pawn walls with bishops (5.2.2) ------------------------------------------------

# The wall: a4 c4 e4 g4 against a5 c5 e5 g5. b4 d4 f4 h4 are attacked by
# Black's pawns, b5 d5 f5 h5 by White's, so neither king can ever cross it.
WALL = "4k3/8/8/p1p1p1p1/P1P1P1P1/8/8/4K3 w - - 0 1"
# White's light bishop h1: the light squares of rank 4 (a4 c4 e4 g4) hold
# White's own pawns, so it can never reach rank 5, and Black's pawns stand on
# dark squares it can never take. White can never check; Black has a king and
# locked pawns. Dead. (The position #31 found: dead() said it was not.)
WALL_LIGHT = "4k3/8/8/p1p1p1p1/P1P1P1P1/8/8/4K2B w - - 0 1"
# White's dark bishop g1: g1-f2-e3-d4, and d4 attacks c5 and e5: it takes a
# pawn, the wall opens, the kings cross. A helpmate exists.
WALL_DARK = "4k3/8/8/p1p1p1p1/P1P1P1P1/8/8/4K1B1 w - - 0 1"
# White's light bishop already beyond the wall (c6): it checks, but the
# squares beside Black's king on its rank and file are dark; Black has no
# piece to shut one and White's king can never come near. No mate.
WALL_BEYOND = "4k3/8/2B5/p1p1p1p1/P1P1P1P1/8/8/4K3 w - - 0 1"


def test_a_light_bishop_behind_the_wall_is_a_dead_position():
    """CH-3 (5.2.2) and CH-2 (6.9): decided without search (blockade),
    both ways; and ``dead`` says so (it did not before #31)."""
    b = chess.Board(WALL_LIGHT)
    for color in (W, B):
        v = unwinnable.analyse(b, color)
        assert v.result == "unwinnable" and v.nodes == 0, v
    assert unwinnable.dead(b)
    out = Board(WALL_LIGHT).ending()
    assert out is not None and out.termination is Termination.DEAD_POSITION


def test_a_dark_bishop_breaks_the_wall():
    """CH-2 (6.9): the bishop takes c5 or e5; a helpmate exists, so a flag
    loses, and the position is not dead."""
    v = unwinnable.analyse(chess.Board(WALL_DARK), W)
    assert v.result == "winnable"
    _replay(WALL_DARK, W, v)
    assert not unwinnable.dead(chess.Board(WALL_DARK))


def test_a_bishop_of_one_colour_beyond_the_wall_cannot_mate():
    """CH-2 (6.9), CH-3 (5.2.2): step 5 of the blockade proof (the escape
    squares beside the king), not the first (the bishop can check)."""
    b = chess.Board(WALL_BEYOND)
    assert blockade.regions(b) is not None
    assert "beside it" in (blockade.unwinnable(b, W) or "")
    assert unwinnable.analyse(b, W).result == "unwinnable"
    assert unwinnable.dead(b)


def test_the_wall_with_kings_alone_is_dead():
    b = chess.Board(WALL)
    assert unwinnable.can_mate(b, W) is False and unwinnable.can_mate(b, B) is False
    assert unwinnable.dead(b)


def test_a_pawn_a_king_can_take_opens_the_wall():
    """CH-2 (6.9): Black's king below the wall reaches c3 (unguarded: White's
    pawns guard rank 4 and 5 only), takes, and its pawns run: no blockade
    proof, and the search finds Black's mate."""
    fen = "8/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/4K3/k7 w - - 0 1"
    assert blockade.regions(chess.Board(fen)) is None
    v = unwinnable.analyse(chess.Board(fen), B)
    assert v.result == "winnable"
    _replay(fen, B, v)


# -- undecided, and the flag's ruling ------------------------------------------------


def test_undecided_says_why():
    """Where the search cannot settle it within its bound, the verdict is
    undecided, with the bound in its reason, and can_mate is None."""
    b = chess.Board(KN_KB)
    v = unwinnable.analyse(b, W, nodes=8)
    assert v.result == "undecided" and "8 positions" in v.reason
    assert unwinnable.can_mate(b, W, nodes=8) is None


def test_the_flag_is_ruled_not_left_to_the_arbiter():
    """CH-2 (6.9) through the rules module: White's flag with opposite
    bishops is a decided loss (it was left to the arbiter before #31), and
    with the light bishop behind the wall a draw."""
    out = Board(KB_KB).flag_outcome(W)
    assert out.winner == B and out.decided
    out = Board(WALL_LIGHT).flag_outcome(B)
    assert out.winner is None and out.termination is Termination.NO_MATING_MATERIAL


def _bench():
    import importlib.util
    import os

    path = os.path.join(os.path.dirname(__file__), "..", "benchmarks", "unwinnable.py")
    spec = importlib.util.spec_from_file_location("bench_unwinnable", path)
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_a_blockade_proof_is_never_contradicted_by_a_mate_found():
    """The static proof (5.2.2) against the search: on generated locked
    structures it proves, the helpmate search alone, given a bound, finds no
    mate (a mate found would be a legal series: the proof would be wrong)."""
    bench = _bench()
    rng = random.Random(5)
    proved = 0
    for _ in range(60):
        b = bench.blocked(rng)
        for color in (W, B):
            if blockade.unwinnable(b, color) is None:
                continue
            proved += 1
            search = unwinnable._Search(color, 150, lone_ok=False)
            assert search.run(b) is not True, (b.fen(), color, search.line)
    assert proved >= 10


def test_series_found_on_generated_positions_are_mates():
    """Every winnable verdict's series replays to a mate (or the lone king),
    on random endings (the benchmark's generator, another seed)."""
    bench = _bench()
    rng = random.Random(7)
    seen = 0
    for _ in range(25):
        b = bench.ending(rng)
        v = unwinnable.analyse(b, not b.turn, nodes=300)
        if v.result == "winnable" and v.series:
            _replay(b.fen(), not b.turn, v)
            seen += 1
    assert seen >= 5
