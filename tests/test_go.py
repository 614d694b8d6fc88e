# SPDX-License-Identifier: GPL-3.0-or-later
"""The Go rules engine (docs/rules.md): moves, captures, ko and superko, scoring."""

from __future__ import annotations

import doctest
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sgfmill import boards  # type: ignore[import-untyped]

from qizhong.rules import go
from qizhong.rules.go import BLACK, PASS, WHITE, Board, Move, Point, Reason


def P(text: str, size: int = 9) -> Point:
    return Point.from_gtp(text, size)


def M(text: str, size: int = 9) -> Move:
    return Move.from_gtp(text, size)


def play(board: Board, *moves: str) -> None:
    for m in moves:
        board.push_gtp(m)


def snapshot(board: Board) -> tuple:
    return (str(board), board.turn, list(board.move_stack), dict(board.captures), board._hash)


def test_docstring_examples():
    assert doctest.testmod(go).failed == 0


# -- coordinates -----------------------------------------------------------------


def test_gtp_columns_skip_i():
    assert P("A1") == Point(0, 0)
    assert P("H1") == Point(7, 0)
    assert P("J9") == Point(8, 8)  # J is the 9th column: there is no I
    assert P("t19", 19) == Point(18, 18)
    assert Point(8, 0).gtp() == "J1"
    for size in go.SIZES:
        for c in range(size):
            for r in range(size):
                p = Point(c, r)
                assert Point.from_gtp(p.gtp(), size) == p
                assert Point.from_sgf(p.sgf(size), size) == p


def test_sgf_points():
    assert Point.from_sgf("dd", 19).gtp() == "D16"
    assert Point.from_sgf("aa", 19).gtp() == "A19"
    assert Point.from_sgf("ss", 19).gtp() == "T1"
    assert Point.from_sgf("ii", 9).gtp() == "J1"
    assert P("C7").sgf(9) == "cc"
    b = Board(19)
    assert b.parse_sgf("tt") == PASS  # the FF[3] pass
    assert b.parse_sgf("") == PASS
    assert Board(9).parse_sgf("ee") == Move(P("E5"))


@pytest.mark.parametrize(
    "text,size",
    [("I5", 9), ("K1", 9), ("A10", 9), ("A0", 9), ("T20", 19), ("", 9), ("5E", 9), ("E", 9)],
)
def test_bad_gtp_vertex(text, size):
    with pytest.raises(go.CoordinateError, match=r"board|point"):
        Point.from_gtp(text, size)


@pytest.mark.parametrize("text", ["jj", "zz", "a", "AB", "ab c"])
def test_bad_sgf_point(text):
    with pytest.raises(go.CoordinateError):
        Point.from_sgf(text, 9)


def test_sizes_go1():
    for size in (9, 13, 19):
        assert Board(size).size == size
    for size in (7, 18, 21):
        with pytest.raises(go.GoError, match="GO-1"):
            Board(size)


# -- play (GO-1, GO-5) ------------------------------------------------------------


def test_black_first_and_turns_alternate_go1():
    b = Board(9)
    assert b.turn is BLACK
    b.push_gtp("E5")
    assert b.turn is WHITE and b.color_at(P("E5")) is BLACK
    b.push(PASS)
    assert b.turn is BLACK
    b.push_gtp("D4")
    assert b.color_at(P("D4")) is BLACK
    assert b.pop() == M("D4") and b.color_at(P("D4")) is None and b.turn is BLACK


def test_two_passes_end_the_game_go5():
    b = Board(9)
    play(b, "E5", "pass")
    assert not b.is_game_over() and b.outcome() is None
    play(b, "D4", "pass", "pass")
    assert b.is_game_over()
    out = b.outcome()
    assert out is not None and out.termination is go.Termination.TWO_PASSES
    assert list(b.legal_moves) == []
    before = snapshot(b)
    with pytest.raises(go.IllegalMoveError, match="GO-5") as e:
        b.push_gtp("C3")
    assert e.value.reason is Reason.GAME_OVER
    assert snapshot(b) == before
    b.pop()  # a disputed end: take the pass back and play on
    assert not b.is_game_over()
    b.push_gtp("C3")


def test_pass_then_move_does_not_end():
    b = Board(9)
    play(b, "pass", "E5", "pass", "D4")
    assert b.passes == 0 and not b.is_game_over()


def test_resignation_and_time():
    b = Board(19)
    play(b, "Q16", "D4")
    b.resign(BLACK)
    out = b.outcome()
    assert out is not None and out.winner is WHITE
    assert (out.sgf(), out.chinese()) == ("W+R", "白中盘胜")
    with pytest.raises(go.IllegalMoveError):
        b.push_gtp("C3")
    with pytest.raises(go.GoError, match="resume"):
        b.pop()
    with pytest.raises(go.GoError, match="already over"):
        b.lose_on_time(WHITE)
    b.resume()
    b.lose_on_time(WHITE)
    out = b.outcome()
    assert out is not None and (out.sgf(), out.chinese()) == ("B+T", "黑胜（白超时）")
    b.resume()
    with pytest.raises(go.GoError):
        b.resume()
    b.agree()
    out = b.outcome()
    assert out is not None and out.termination is go.Termination.AGREEMENT
    assert out.score is not None and out.sgf() == out.score.sgf()


# -- captures (GO-2) --------------------------------------------------------------


def test_capture_in_the_centre_corner_and_edge_go2():
    b = Board(9)
    play(b, "D5", "E5", "F5", "pass", "E6", "pass", "E4")
    assert b.color_at(P("E5")) is None
    assert b.last_captured() == {P("E5")} and b.captures[BLACK] == 1
    play(b, "pass", "A1", "B1", "pass", "A2")  # white takes the corner stone
    assert b.color_at(P("A1")) is None and b.captures[WHITE] == 1
    play(b, "J5", "H5", "pass", "J4", "pass", "J6")  # white takes an edge stone
    assert b.color_at(P("J5")) is None and b.captures[WHITE] == 2


def test_capture_of_a_chain():
    b = Board.from_diagram(
        """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . X X X . . . . .
        X O O O X . . . .
        X O X X X . . . .
        . O X . . . . . .
        """
    )
    chain = {P(v) for v in ("B3", "C3", "D3", "B2", "B1")}
    assert b.group(P("B1")) == chain and b.liberties(P("D3")) == 1
    b.push_gtp("A1")
    assert b.last_captured() == chain and b.captures[BLACK] == 5
    assert b.liberties(P("A1")) == 4  # A1-A3: B1, B2, B3 freed, and A4


def test_capture_two_chains_with_one_stone():
    b = Board.from_diagram(
        """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . X . . . . . .
        . X O X . . . . .
        X O . O X . . . .
        . X O X . . . . .
        """
    )
    # C3, B2, D2, C1: four white stones each with C2 as their last liberty
    assert all(b.liberties(P(v)) == 1 for v in ("C3", "B2", "D2", "C1"))
    b.push_gtp("C2")
    assert b.last_captured() == {P("C3"), P("B2"), P("D2"), P("C1")}
    assert b.captures[BLACK] == 4 and b.liberties(P("C2")) == 4


def test_capture_comes_before_suicide_go2():
    # A1 has no liberty of its own, but playing it takes A2 and B1: legal.
    b = Board.from_diagram(
        """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        X . . . . . . . .
        O X . . . . . . .
        . O X . . . . . .
        """
    )
    assert b.illegal_reason(M("A1")) is None
    b.push_gtp("A1")
    assert b.last_captured() == {P("A2"), P("B1")}


def test_snapback():
    b = Board.from_diagram(
        """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        X X X X . . . . .
        O O O X . . . . .
        . . O X . . . . .
        """
    )
    b.push_gtp("A1")  # the throw-in: white is in atari
    assert b.liberties(P("A2")) == 1
    b.push_gtp("B1")  # white takes one stone...
    assert b.last_captured() == {P("A1")} and b.liberties(P("B1")) == 1
    b.push_gtp("A1")  # ...and black takes back five, at once (no ko)
    assert b.last_captured() == {P("A2"), P("B2"), P("C2"), P("C1"), P("B1")}
    assert b.points(WHITE) == frozenset()
    assert b.captures == {BLACK: 5, WHITE: 1}


# -- suicide (GO-3) ---------------------------------------------------------------


def test_suicide_refused_go3():
    b = Board.from_diagram(
        """
        . O . . . . . . .
        O . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        X X . . . . . . .
        . . X . . . . . .
        """
    )
    before = snapshot(b)
    with pytest.raises(go.IllegalMoveError, match="GO-3") as e:
        b.push_gtp("A9")  # a single stone without liberties
    assert e.value.reason is Reason.SUICIDE and e.value.move == M("A9")
    assert snapshot(b) == before
    assert M("A9") not in b.legal_moves
    b.push(PASS)
    b.push_gtp("B1")  # white: B1 then A1 is a two-stone suicide
    b.push(PASS)
    assert b.illegal_reason(M("A1")) is Reason.SUICIDE
    before = snapshot(b)
    with pytest.raises(go.IllegalMoveError):
        b.push_gtp("A1")
    assert snapshot(b) == before
    assert isinstance(e.value, ValueError)


def test_occupied_and_bad_input_leave_the_board():
    b = Board(9)
    b.push_gtp("E5")
    before = snapshot(b)
    with pytest.raises(go.IllegalMoveError, match="occupied"):
        b.push_gtp("E5")
    with pytest.raises(go.CoordinateError):
        b.push_gtp("Z9")
    with pytest.raises(go.CoordinateError):
        b.push(Move(Point(9, 0)))
    with pytest.raises(go.GoError):
        Board(19).pop()
    assert snapshot(b) == before


# -- ko and superko (GO-4) --------------------------------------------------------

KO = """
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . X O . . . . .
. X O . O . . . .
. . X O . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
"""


def test_simple_ko_go4():
    b = Board.from_diagram(KO)
    b.push_gtp("D5")  # black takes C5
    assert b.last_captured() == {P("C5")}
    before = snapshot(b)
    with pytest.raises(go.IllegalMoveError, match="GO-4") as e:
        b.push_gtp("C5")  # immediate retake repeats the position
    assert e.value.reason is Reason.SUPERKO and e.value.repeats == 0
    assert b.repeats(M("C5")) == len(b.move_stack) - 1  # a simple ko
    assert snapshot(b) == before
    play(b, "H2", "H8")  # a ko threat and its answer
    b.push_gtp("C5")  # now white may retake
    assert b.last_captured() == {P("D5")}
    assert b.illegal_reason(M("D5")) is Reason.SUPERKO  # and black may not at once


def test_pop_forgets_positions():
    b = Board.from_diagram(KO)
    play(b, "D5", "H2", "H8", "C5")  # ends on KO + H2 + H8, black to move
    for _ in range(4):
        b.pop()
    assert str(b) == str(Board.from_diagram(KO)) and b.turn is BLACK
    play(b, "H8")
    assert b.illegal_reason(M("H2")) is None  # the same situation again: forgotten
    b.push_gtp("H2")
    b.push_gtp("D5")
    assert b.illegal_reason(M("C5")) is Reason.SUPERKO


# Three kos: A (top left) and C (bottom) black can take, B (top right) white can.
TRIPLE_KO = """
. . . . . . . . .
. X O . . . O X .
X O . O . O X . X
. X O . . . O X .
. . . . . . . . .
. . . . . . . . .
. X O . . . . . .
X O . O . . . . .
. X O . . . . . .
"""


def test_triple_ko_cycle_superko_go4():
    b = Board.from_diagram(TRIPLE_KO)
    start = str(b)
    # Each capture below is legal by the simple ko rule (no immediate retake).
    play(b, "C7", "H7", "C2", "B7", "G7")  # B takes A, W takes B, B takes C, W retakes A, B B
    assert b.captures == {BLACK: 3, WHITE: 2}
    # White retaking C (B2) would bring back the start with Black to move.
    after = b.copy()
    after._seen.clear()
    after._seen_exact.clear()  # the same move with no memory of earlier positions
    after.push_gtp("B2")
    assert str(after) == start and after.turn is BLACK
    before = snapshot(b)
    with pytest.raises(go.IllegalMoveError, match="starting one") as e:
        b.push_gtp("B2")
    assert e.value.reason is Reason.SUPERKO and e.value.repeats == 0
    assert b.repeats(M("B2")) == 0 != len(b.move_stack) - 1  # not a simple ko
    assert snapshot(b) == before


# -- legal moves, undo ------------------------------------------------------------


def test_legal_moves():
    b = Board(9)
    moves = list(b.legal_moves)
    assert len(moves) == 82 and moves[-1] == PASS and len(b.legal_moves) == 82
    assert M("E5") in b.legal_moves and "E5" not in b.legal_moves
    assert Move(Point(9, 9)) not in b.legal_moves  # off the board
    b.push_gtp("E5")
    assert M("E5") not in b.legal_moves and len(b.legal_moves) == 81


def test_against_sgfmill_board_on_random_games():
    """Captures agree with sgfmill's own board, move by move (an independent engine)."""
    rng = random.Random(6)
    for size in (9, 13):
        b = Board(size)
        ref = boards.Board(size)
        for _ in range(300):
            moves = [m for m in b.legal_moves if not m.is_pass]
            if not moves:
                break
            m = rng.choice(moves)
            assert m.point is not None
            ref.play(m.point.row, m.point.col, "b" if b.turn is BLACK else "w")
            b.push(m)
            for r in range(size):
                for c in range(size):
                    ours = b.color_at(Point(c, r))
                    assert ref.get(r, c) == (None if ours is None else ours.letter.lower())


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 120))
def test_push_pop_restores_everything(seed, n):
    rng = random.Random(seed)
    b = Board(9)
    start = snapshot(b)
    seen = []
    for _ in range(n):
        if b.is_game_over():
            break
        seen.append((snapshot(b), sorted(m.gtp() for m in b.legal_moves)))
        b.push(rng.choice(list(b.legal_moves)))
    while b.move_stack:
        b.pop()
        state, legal = seen.pop()
        assert snapshot(b) == state
        assert sorted(m.gtp() for m in b.legal_moves) == legal
    assert snapshot(b) == start


def test_copy_is_independent():
    b = Board(9)
    play(b, "E5")
    c = b.copy()
    c.push_gtp("D5")
    assert b.color_at(P("D5")) is None and len(b.move_stack) == 1


def test_diagram_round_trip_and_errors():
    b = Board.from_diagram(KO, turn=WHITE)
    assert Board.from_diagram(str(b)).points(BLACK) == b.points(BLACK)
    assert b.turn is WHITE and b.first is WHITE
    with pytest.raises(go.GoError, match="row 2"):
        Board.from_diagram("\n".join(["." * 9, "." * 8] + ["." * 9] * 7))
    with pytest.raises(go.GoError, match="'Y'"):
        Board.from_diagram("\n".join(["Y" + "." * 8] + ["." * 9] * 8))
    with pytest.raises(go.GoError, match="no liberties"):
        Board.from_diagram("\n".join(["XO" + "." * 7, "O" + "." * 8] + ["." * 9] * 7))
    with pytest.raises(go.GoError, match="both"):
        Board.from_setup(9, [P("A1")], [P("A1")])


# -- scoring (GO-6, GO-7) ---------------------------------------------------------


def test_empty_board_is_all_neutral():
    s = Board(9).score()
    assert (s.black, s.white, s.dame) == (Fraction(81, 2), Fraction(81, 2), 81)
    assert s.par == Fraction(81, 2)


# Hand count, dead stones G7 (black) and B4 (white) marked by the arbiter:
#   Black: 9 stones on C + 18 points on A and B (B4 included once it is off) = 27
#   White: 9 stones (D9-D6, E5, D4-D1) + 44 points on E-J (all but E5) = 53
#   D5 touches both colours: a dame, half each -> 27.5 : 53.5 (sum 81).
HAND = """
. . X O . . . . .
. . X O . . . . .
. . X O . . X . .
. . X O . . . . .
. . X . O . . . .
. O X O . . . . .
. . X O . . . . .
. . X O . . . . .
. . X O . . . . .
"""


def test_hand_counted_position_with_dead_stones_and_dame_go6():
    b = Board.from_diagram(HAND)
    s = b.score(dead=[P("G7"), P("B4")])
    assert (s.black, s.white, s.dame) == (Fraction(55, 2), Fraction(107, 2), 1)
    assert s.margin == Fraction(55, 2) - Fraction(107, 2) - Fraction(15, 2)
    assert s.sgf() == "W+33.5"
    assert s.chinese() == "白胜16又3/4子"
    assert s.chinese(BLACK) == "黑负16又3/4子"


def test_same_position_without_marking_dead():
    # G7 alive spoils white's area and B4 black's: 17 + 43 + 1 dame, 10 stones each.
    s = Board.from_diagram(HAND).score()
    assert (s.black, s.white, s.dame) == (Fraction(81, 2), Fraction(81, 2), 61)
    assert s.sgf() == "W+7.5"


def test_dead_must_be_stones():
    b = Board.from_diagram(HAND)
    with pytest.raises(go.GoError, match="A1 is marked dead"):
        b.score(dead=[P("A1")])


def column_split(black_stones: int, dame: int) -> Board:
    """19x19: Black owns columns A-H (152 points) behind a wall on J (19 stones);
    column K holds ``black_stones`` black, then ``dame`` empty points, then white
    stones; White's wall is on L and M-T is White's. Black's area is
    152 + 19 + black_stones + dame/2 (= 171 + ...)."""
    rows = []
    for r in range(19):
        k = "X" if r < black_stones else "." if r < black_stones + dame else "O"
        rows.append("." * 8 + "X" + k + "O" + "." * 8)
    return Board.from_diagram("\n".join(rows))


@pytest.mark.parametrize(
    "black_stones,dame,area,sgf,chinese,black_view",
    [
        (14, 0, Fraction(185), "B+1.5", "黑胜3/4子", "黑胜3/4子"),
        (13, 1, Fraction(369, 2), "B+0.5", "黑胜1/4子", "黑胜1/4子"),
        (13, 0, Fraction(184), "W+0.5", "白胜1/4子", "黑负1/4子"),
    ],
)
def test_komi_three_and_three_quarters_go7(black_stones, dame, area, sgf, chinese, black_view):
    # The seed's examples: 185 wins by 3/4, 184.5 wins by 1/4, 184 loses by 1/4.
    s = column_split(black_stones, dame).score()
    assert s.black == area and s.white == 361 - area and s.dame == dame
    assert s.komi == Fraction(15, 2) == go.KOMI  # 3¾ stones = 7.5 points
    assert s.par == Fraction(361, 2)
    assert (s.sgf(), s.chinese(), s.chinese(BLACK)) == (sgf, chinese, black_view)


def test_other_komi():
    b = column_split(14, 0)  # black 185, white 176
    assert b.score(komi="6.5").sgf() == "B+2.5"
    assert Board(19, komi=6.5).komi == Fraction(13, 2) == go.KOMI_JAPANESE
    assert b.score(komi=7.5).chinese() == "黑胜3/4子"
    assert b.score(komi=9).sgf() == "0" and b.score(komi=9).chinese() == "和棋"
    assert b.score(komi=9).winner is None
    assert b.score(komi=Fraction(1, 4)).sgf() == "B+8.75"
    for bad in ("abc", Fraction(1, 3), "1e9", None):
        with pytest.raises(go.GoError, match="komi"):
            go.parse_komi(bad)  # type: ignore[arg-type]


def test_outcome_after_two_passes_is_counted():
    b = Board.from_diagram(HAND)
    play(b, "pass", "pass")
    out = b.outcome(dead=[P("G7"), P("B4")])
    assert out is not None and out.winner is WHITE and out.sgf() == "W+33.5"
    assert out.chinese() == "白胜16又3/4子"


# -- nigiri (GO-8) ----------------------------------------------------------------


def test_nigiri_parity_go8():
    assert go.Nigiri(7, guess_odd=True).guesser_black
    assert not go.Nigiri(8, guess_odd=True).guesser_black
    assert go.Nigiri(8, guess_odd=False).guesser_black
    assert not go.Nigiri(1, guess_odd=False).guesser_black


def test_nigiri_uses_the_injected_source():
    a = [go.nigiri(random.Random(5)) for _ in range(3)]
    assert a[0] == a[1] == a[2]  # same source, same draw
    rng = random.Random(42)
    draws = [go.nigiri(rng) for _ in range(4000)]
    assert all(1 <= d.stones <= 30 for d in draws)
    black = sum(d.guesser_black for d in draws)
    assert 1800 < black < 2200  # fair: about half
    assert go.nigiri(random.Random(1), guess_odd=True).guess_odd is True
    with pytest.raises(go.GoError):
        go.nigiri(random.Random(1), most=1)
