# SPDX-License-Identifier: GPL-3.0-or-later
"""The Go arbiter session (host/qizhong/arbiter/go.py) against the simulated clock:
presses paired with stones, byo-yomi and Canadian overtime from the clock, the
SGF's BL/WL/OB/OW, time-outs, two passes, dead stones and the count."""

import pytest
from sgfmill import sgf

from qizhong.arbiter import ArbiterError
from qizhong.arbiter.go import GoSession
from qizhong.clocks.driver import DRAW, Clock
from qizhong.records import go_sgf
from qizhong.rules import go
from qizhong.sim import Sim

BLACK, WHITE = 0, 1


@pytest.fixture
def sim():
    with Sim() as s:
        yield s


def new_game(sim, spec="go-byoyomi", **kw):
    clock = Clock(sim.link)
    return clock, GoSession(clock, spec, size=kw.pop("size", 9), **kw)


def lever(game, side):
    return 0 if side == game.left_side else 1


def play(sim, game, moves, thinks, t=0):
    """Each stone entered, then its player's press after its think; returns the time."""
    for m, think in zip(moves, thinks, strict=True):
        side = game._board_turn()
        game.move(m)
        t += think
        sim.press(lever(game, side), t)
        game.poll()
    return t


def test_eq1_the_clock_stands_at_whites_right_hand(sim):
    """EQ-1: White's lever is the left one; GO-1: Black first."""
    clock, game = new_game(sim)
    st = clock.status()
    assert game.left_side == WHITE and st.levers == "black"  # side 1 (White) on the left
    game.start()
    assert clock.status().run == BLACK  # GO-1: Black first
    game.move("E5")
    sim.press(1, 2000)  # the right lever is Black's
    game.poll()
    assert game.played[0].press.side == BLACK
    assert clock.status().run == WHITE


def test_byoyomi_times_and_periods_go_into_the_sgf(sim):
    """TC-6: the press times and periods left, as BL/WL and OB/OW."""
    clock, game = new_game(sim, "1m byoyomi 3x10s", black="黑方", white="白方")
    game.start()
    moves = ["E5", "C3", "G7", "C7", "G3", "E3", "E7", "D4"]
    thinks = [20000, 1000, 25000, 1000, 20000, 1000, 14000, 1000]
    t = 0
    seen = []
    for m, think in zip(moves, thinks, strict=True):
        t = play(sim, game, [m], [think], t)
        st = clock.status()
        p = game.played[-1]
        seen.append((p.clock_ms, p.overtime_count, st.periods[p.side]))
    # Black: 60-20 = 40 s; 15 s; then 15 s of main and 5 s into the first period:
    # overtime, 3 periods, a fresh 10 s; then 14 s: one period used (TC-6).
    assert [s[:2] for s in seen[::2]] == [(40000, None), (15000, None), (10000, 3), (10000, 2)]
    assert [s[:2] for s in seen[1::2]] == [(59000, None), (58000, None), (57000, None),
                                           (56000, None)]  # fmt: skip
    assert seen[-2][2] == 2  # the clock agrees: 2 periods left
    data = game.sgf()
    root = sgf.Sgf_game.from_bytes(data)  # sgfmill reads our file
    nodes = root.get_main_sequence()[1:]
    assert [n.get_raw("BL") for n in nodes[::2]] == [b"40", b"15", b"10", b"10"]
    assert [n.get_raw("OB") for n in nodes[4::2]] == [b"3", b"2"]
    assert not nodes[2].has_property("OB")
    assert [n.get_raw("WL") for n in nodes[1::2]] == [b"59", b"58", b"57", b"56"]
    assert root.get_root().get_raw("OT") == b"3x10 byo-yomi"
    back = go_sgf.read(data)
    assert [(m.left_ms, m.overtime) for m in back.times] == [s[:2] for s in seen]
    assert back.black == "黑方"


def test_canadian_overtime_counts_the_moves_left_in_the_block(sim):
    """TC-7: OB is the moves left in the block; unused time carries over."""
    _, game = new_game(sim, "30s canadian 3/20s")
    game.start()
    moves = ["E5", "C3", "G7", "C7", "G3", "E3", "E7", "D4"]
    thinks = [31000, 1000, 5000, 1000, 4000, 1000, 2000, 1000]
    play(sim, game, moves, thinks)
    black = [(p.clock_ms, p.overtime_count) for p in game.played[::2]]
    # 30 s of main time and 1 s of the block: 19 s, 2 moves left; 14 s, 1;
    # the block done with 10 s left: a new one of 3 moves, 10 + 20 s (TC-7).
    assert black == [(19000, 2), (14000, 1), (30000, 3), (28000, 2)]
    nodes = sgf.Sgf_game.from_bytes(game.sgf()).get_main_sequence()[1:]
    assert [n.get_raw("OB") for n in nodes[::2]] == [b"2", b"1", b"3", b"2"]


def test_a_time_out_ends_the_game(sim):
    """TC-6: the last period's end is a flag, and a loss."""
    clock, game = new_game(sim, "10s byoyomi 1x5s")
    game.start()
    play(sim, game, ["E5", "C3"], [3000, 2000])
    sim.run_to(5000 + 7000 + 5000)  # Black: 7 s of main, then the only period
    notes = game.poll()
    assert notes[-1].kind == "end" and notes[-1].rule == "TC-6"
    assert game.result.winner == WHITE and game.result.termination == "time forfeit"
    st = clock.status()
    assert st.state == "finished" and st.result == WHITE and st.first_flag == BLACK
    assert go_sgf.read(game.sgf()).result == "W+T"
    with pytest.raises(ArbiterError):
        game.move("G7")


WALL = [p for i in range(1, 10) for p in ("E%d" % i, "F%d" % i)]  # Black E, White F


def test_two_passes_then_dead_stones_and_the_count(sim):
    """GO-5 two passes; GO-6 area with dead stones; GO-7 3¾ komi: 45-36 is 黑胜3/4子."""
    clock, game = new_game(sim, "10m byoyomi 3x30s")
    game.start()
    t = play(sim, game, [*WALL, "pass", "B5", "pass"], [1000] * 21)
    assert clock.status().state == "running"
    game.move("pass")  # White: two passes in a row (GO-5), entered before White's press
    assert clock.status().state == "running"  # the pass's time is the press to come
    sim.press(lever(game, WHITE), t + 1500)
    game.poll()
    assert clock.status().state == "paused"  # the clock waits for the count
    with pytest.raises(ArbiterError):
        game.move("A1")
    # Unmarked, White's stone in Black's area makes it neutral and White wins.
    assert game.score().winner == go.WHITE and game.score().dame == 35
    game.dead("B5")  # White's lone stone is dead (GO-6)
    sc = game.score()
    assert (sc.black, sc.white, sc.sgf(), sc.chinese()) == (45, 36, "B+1.5", "黑胜3/4子")
    game.count()
    assert game.result.winner == BLACK and game.result.rule == "GO-6"
    st = clock.status()
    assert st.state == "finished" and st.result == BLACK
    rec = go_sgf.read(game.sgf())
    assert rec.result == "B+1.5" and len(rec.board.move_stack) == 22
    assert rec.times[-1] is not None  # the last pass has the time the clock stopped at


def test_a_second_pass_entered_before_its_press_gets_that_press(sim):
    """GO-5: the second pass is a move like any other; its time is its press's."""
    clock, game = new_game(sim, "10m byoyomi 3x30s")
    game.start()
    t = play(sim, game, ["E5", "pass"], [1000, 2000])
    game.move("pass")  # entered by mistake, taken back before its press: play goes on
    game.take_back()
    t = play(sim, game, ["D5", "pass"], [1000, 1000], t)
    assert clock.status().state == "running"
    game.move("pass")  # Black's pass entered first, then Black thinks 3 s and presses
    sim.press(lever(game, BLACK), t + 3000)
    game.poll()
    last = game.played[-1]
    assert (last.text, last.clock_ms, last.used_ms) == ("pass", 600000 - 5000, 3000)
    assert clock.status().state == "paused" and clock.status().run == WHITE
    game.count()
    assert go_sgf.read(game.sgf()).times[-1].left_ms == 600000 - 5000


def test_dead_needs_a_stone_and_the_end_of_play(sim):
    _, game = new_game(sim)
    game.start()
    with pytest.raises(ArbiterError):
        game.dead("E5")  # play goes on
    play(sim, game, ["E5", "pass", "pass"], [1000, 1000, 1000])
    with pytest.raises(ArbiterError):
        game.dead("A1")  # empty
    game.dead("E5")
    game.dead("E5")  # unmarked again
    assert game.dead_stones == set()


def test_resignation_and_a_drawn_count(sim):
    """GO-5 resignation; GO-6 shared neutral points split in half."""
    clock, game = new_game(sim, komi=0)
    game.start()
    play(sim, game, ["E5"], [1000])
    game.resign("white")
    assert game.result.winner == BLACK and clock.status().result == BLACK
    assert go_sgf.read(game.sgf()).result == "B+R"
    sim2 = Sim()
    try:
        clock2 = Clock(sim2.link)
        even = GoSession(clock2, "go-byoyomi", size=9, komi=0)
        even.start()
        play(sim2, even, [*WALL[:16], "pass", "pass"], [1000] * 18)
        # E1-E8 and F1-F8: the ninth row is shared, neutral; 40.5 each, komi 0
        even.count()
        assert even.result.winner is None and clock2.status().result == DRAW
        assert go_sgf.read(even.sgf()).result == "0"
    finally:
        sim2.close()


def test_a_press_before_the_stone_is_entered_waits_for_it(sim):
    _, game = new_game(sim)
    game.start()
    sim.press(lever(game, BLACK), 4000)
    notes = game.poll()
    assert "enter the move" in notes[-1].text
    game.move("E5")
    assert game.played[0].clock_ms == 3600000 - 4000 and game.played[0].used_ms == 4000
    with pytest.raises(ArbiterError) as e:
        game.move("E5")  # occupied
    assert "occupied" in str(e.value) and len(game.played) == 1
    assert game.suggest("e") == ["E1", "E2", "E3", "E4", "E6", "E7", "E8", "E9"]
    assert go.Board(9).parse_gtp("pass").is_pass and game.suggest("pa") == ["pass"]
