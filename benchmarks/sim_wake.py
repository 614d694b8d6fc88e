# SPDX-License-Identifier: GPL-3.0-or-later
"""#20 item 6: a real-time simulated clock flags on time after a command
that changes its deadline (host bytes wake its loop, as USB bytes wake the
Pico's).

    .venv/bin/python benchmarks/sim_wake.py [ROUNDS]

For each command (config + start, set, penalty, state, resume), ROUNDS times
(default 3): a real-time simulated clock without live displays (as the hall
runs them, so no redraw wakes it) runs a 15-minute game for 1.5 s, then gets
the commands that leave it 2 s; printed: how late the flag event is against the
instant the clock's own status gave (ms: median, worst). Before the fix it
came when the old deadline (the 15-minute flag) passed.
"""

from __future__ import annotations

import statistics
import sys
import time

from qizhong.sim import Sim

BOUND_S = 20.0  # give up: the flag is this late

PLAYING = ("config 15m", "start")
CASES = {  # commands while the game runs, then the ones that leave 2 s
    "config+start": ((*PLAYING, "finish"), ("config 2s", "start")),
    "set": (PLAYING, ("set red 2000",)),
    "penalty": (PLAYING, ("penalty red -898000",)),
    "state": (PLAYING, ("state red 2000 0 0 9000 0 0 running",)),
    "resume": ((*PLAYING, "pause"), ("set red 2000", "resume")),
}
SETTLE_S = 1.5  # the loop is asleep on the old deadline by then


def late_ms(before: tuple[str, ...], cmds: tuple[str, ...]) -> int:
    with Sim(virtual=False, display=False) as sim:
        for i, c in enumerate(before + cmds):
            if i == len(before):
                time.sleep(SETTLE_S)
            got = sim.command(c)
            assert got.startswith("ok"), (c, got)
        st = sim.status()
        due = st["t"] + st["left%d" % st["run"]]  # the board's ms of the flag
        t0 = time.monotonic()
        while time.monotonic() - t0 < BOUND_S:
            for name, *_ in sim.read_events():
                if name == "flag":
                    now = sim.status()["t"]  # the board's ms now: how long after due it said so
                    return now - due
            time.sleep(0.005)  # polling a real-time process, bounded above
        return int(BOUND_S * 1000)


def main(rounds: int = 3) -> int:
    print("flag lateness after a command, real time (ms: median, worst of %d)" % rounds)
    for name, cmds in CASES.items():
        got = [late_ms(*cmds) for _ in range(rounds)]
        print("  %-13s %6d %6d" % (name, statistics.median(got), max(got)))
    return 0


if __name__ == "__main__":
    sys.exit(main(*(int(a) for a in sys.argv[1:2])))
