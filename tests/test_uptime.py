# SPDX-License-Identifier: GPL-3.0-or-later
"""Times stay small ints for any uptime (#12), in virtual time.

MicroPython's small ints end at 2**30 on the Pico: 12.4 days of ms. Past
that every sum allocates (the steady path must not), and event times wrapped
at 2**31 (24.9 days). The firmware moves its time origin when ``now``
reaches 2**29 (App.rebase), in any state. Here a clock is left on for 60
days, then plays; and a game runs across the move. Each is played by a twin
clock at uptime zero too: every side's time must come out the same, and
every time the clock reports must be below 2**30.
"""

import pytest

from qizhong.sim import Sim

DAY = 86_400_000
SMALL = 1 << 30


def play(sim, t0, moves=30, think=(2500, 9000, 700, 4100)):
    sim.command("config 15m+10s")
    sim.key("start", t0)
    t = t0
    for i in range(moves):
        t += think[i % len(think)]
        sim.press(i % 2, t)
    sim.run_to(t + 5000)
    return sim.status()


def same_game(a, b):
    keys = ("state", "left0", "left1", "moves0", "moves1")
    return {k: a[k] for k in keys} == {k: b[k] for k in keys}


@pytest.fixture
def twin():
    with Sim() as sim:
        yield play(sim, 1000)


def test_a_game_after_60_days_on(twin, tmp_path):
    with Sim(flash=str(tmp_path / "flash.img")) as sim:
        start = 60 * DAY
        sim.run_to(start)  # sixty days idle, the journal on
        st = play(sim, start + 1000)
        assert same_game(st, twin), (st, twin)
        assert 0 <= st["t"] < SMALL, st["t"]
        times = [t for _, _, t, _ in sim.events]
        assert times and max(times) < SMALL and min(times) >= 0, (min(times), max(times))
        assert "commits=" in sim.command("journal")


def test_a_game_across_the_origin_move(twin):
    with Sim() as sim:
        move = 1 << 29  # App.REBASE_MS: the origin moves while the game runs
        st = play(sim, move - 40000)
        assert same_game(st, twin), (st, twin)
        assert st["t"] < (1 << 27) + 200_000, "the origin did not move"
        assert sim.deadline < 0 or sim.deadline > sim.now, "deadlines come in the host's time"
