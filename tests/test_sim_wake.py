# SPDX-License-Identifier: GPL-3.0-or-later
"""#20 item 6: host bytes wake the simulated firmware's loop, as USB bytes
wake the Pico's, so a flag comes on time after any command that changes a
deadline. In virtual time: right after the command, the board's own ``wake``
line carries the new deadline, and stepping deadline by deadline (as the
firmware sleeps) reaches the flag at its instant (TC-3, TC-8)."""

import pytest

from qizhong.sim import Sim


def flag_on_time(sim, expect):
    """Sleep as the firmware does, deadline by deadline: the flag's beep
    (TC-8) comes at ``expect``, at a wake, never later."""
    assert 0 <= sim.deadline <= expect, "the command left the deadline %d" % sim.deadline
    n = len(sim.beeps)  # a knock beeps too (EQ-5)
    while (expect, 1) not in sim.beeps[n:]:
        assert 0 <= sim.deadline <= expect
        sim.at(sim.deadline)
    assert sim.now == expect


def running(sim):
    st = sim.status()
    return st["t"] + st["left%d" % st["run"]]


CASES = {
    "config+start": ("config 20s", "start"),
    "config-running": ("start", "config 20s"),
    "set": ("start", "set red 10000"),
    "penalty": ("start", "penalty red -890000"),
    "state": ("start", "state black 500000 3 0 12000 3 0 running"),
    "resume": ("config 10s", "start", "pause", "resume"),
    "knock": ("config 10s", "start", "knock black", "resume"),
    "override": ("start", "override 30s"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_command_that_changes_the_deadline_wakes_the_loop(name):
    with Sim() as sim:
        t = 1000
        for cmd in CASES[name]:
            sim.at(t)
            if cmd.startswith("knock"):
                sim.tilt(t)  # EQ-5: knocked over, then the arbiter names who did it
                t += 500
                sim.at(t)
            got = sim.command(cmd)
            assert got.startswith("ok"), (cmd, got)
            t += 1000
        flag_on_time(sim, running(sim))


def test_simulated_clocks_are_numbered_like_their_boards(tmp_path):
    """``qizhong serve --sim N``: board k is ``NAME-sim-k``, whichever says hello first."""
    from qizhong.server import sims
    from qizhong.server.store import Store

    store = Store(str(tmp_path / "hall.sqlite"))
    clocks = [
        sims.SimClock("hall-sim-%d" % k, "/dev/pts/%d" % k, "127.0.0.1:1", 1, "") for k in (1, 2, 3)
    ]
    sims.number(store, clocks, "xiangqi", "xq-rapid")
    for k in (3, 1, 2):  # hellos in any order
        assert store.board_for("hall-sim-%d" % k, "/dev/pts/%d" % k, "xiangqi", "xq-rapid").no == k
    store.close()
