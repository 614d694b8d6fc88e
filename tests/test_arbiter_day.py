# SPDX-License-Identifier: GPL-3.0-or-later
"""An arbiter's day on one clock (#13): second games, records kept on disk, a
console that stops and comes back. The real firmware on the simulated board,
in virtual time."""

import pytest

from qizhong.arbiter import XiangqiSession
from qizhong.arbiter.go import GoSession
from qizhong.clocks.driver import DRAW, Clock
from qizhong.sim import Sim

RED, BLACK = 0, 1


@pytest.fixture
def sim():
    with Sim() as s:
        yield s


def long_first_game(sim, presses=80):
    """A first game of ``presses`` presses (more than the clock replays per
    ``since``: SINCE_MAX = 64), ended with a draw, as another program left it."""
    clock = Clock(sim.link)
    clock.configure("xq-rapid")
    clock.start(RED)
    t = 1000
    for i in range(presses):
        t += 1500
        sim.press(i % 2, t)  # Red's lever is the left one (EQ-1)
    sim.run_to(t + 500)
    clock.finish(DRAW)
    seq = clock.status().seq
    assert seq > 64 + 10
    sim.link.close()  # that program has gone; the next console opens the port afresh
    return seq, t + 1000


@pytest.mark.parametrize("kind", ["xiangqi", "go"])
def test_a_second_game_on_a_clock_starts_clean_whatever_came_before(sim, kind):
    """#13 item 1: a new session starts at the clock's current event, not with
    the replay of the last game (XQ-R19 fouls, a result, set and finish sent)."""
    seq, t = long_first_game(sim)
    clock = Clock(sim.serial_path, timeout=5.0)
    if kind == "go":
        game = GoSession(clock, "go-byoyomi", size=9)
    else:
        game = XiangqiSession(clock, "xq-rapid")
    notes = game.poll(0.2) + game.poll(0.2)
    assert [n for n in notes if n.kind in ("foul", "end", "rule", "warn")] == []
    assert game.result is None and game.fouls == [0, 0] and game.presses == []
    st = clock.status()
    assert st.state == "idle" and st.result == -1
    # Only the new game's own settings went to the clock: no set, no finish.
    evs = clock.since(seq)
    assert {e.name for e in evs} <= {"config", "levers", "new"}, [e.name for e in evs]
    # And the new game plays from its first press.
    game.start()
    game.move("E5" if kind == "go" else "炮二平五")
    sim.press(1 if kind == "go" else 0, t + 3000)  # Go: Black's lever is the right one
    notes = game.poll(0.5)
    assert game.played[0].press is not None, notes
    assert game.played[0].used_ms == 3000 - 0 or game.played[0].used_ms > 0
