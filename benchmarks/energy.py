# SPDX-License-Identifier: GPL-3.0-or-later
"""Hours on two AA alkaline cells for a game day on the battery board (#22).

    .venv/bin/python benchmarks/energy.py

The real firmware on the simulated battery board (segment displays, no
tenths, a loop that sleeps until its next deadline) plays four 4-hour days
in virtual time, stepping deadline by deadline as the firmware sleeps; its
energy record (every wake and sleep, the bus bytes, the flash written, each
cue and beep) goes through the model of docs/power.md
(host/qizhong/sim/energy.py). Printed per day: wakes per second, cues, the
rail's average current, hours on 2xAA. Then idle storage in days.

The days (each player's think time per move is fixed, so the day is the same
on every run):
  xq-rapid   eight games of 15m+10s, 30 moves each at 25 s, 5 min apart
  xq-count   seven of those, then a 10m count 10s game with 10 min of counting
  go         60m byoyomi 3x30s: 60 min each, then 2 h of byo-yomi at 20 s a move
  chess      40/90m+30s:30m+30s, a move every 90 s for 4 h
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

from qizhong.sim import energy as E

MIN = 60_000
RAPID = ("15m+10s", [25_000] * 60)
DAYS = {
    "xq-rapid": ([RAPID] * 8, 5 * MIN),
    "xq-count": ([RAPID] * 7 + [("10m count 10s", [20_000] * 60 + [7_000] * 86)], 5 * MIN),
    "go": ([("60m byoyomi 3x30s", [60_000] * 120 + [20_000] * 360)], 0),
    "chess": ([("40/90m+30s:30m+30s", [90_000] * 160)], 0),
}


def day(name: str, folder: str) -> E.Usage:
    games, rest = DAYS[name]
    with E.battery_sim(os.path.join(folder, name + ".img")) as sim:
        return E.measure(sim, games, rest)


def main() -> int:
    m = E.MODEL
    print("battery board, 2xAA alkaline (docs/power.md): floor %.0f uA" % m.floor_ua)
    print(
        "%-9s %6s %8s %6s %9s %8s %6s"
        % ("day", "hours", "wakes/s", "cues", "avg uA", "life h", "s")
    )
    with tempfile.TemporaryDirectory() as folder:
        for name in DAYS:
            t = time.monotonic()
            u = day(name, folder)
            print(
                "%-9s %6.2f %8.2f %6d %9.0f %8.0f %6.1f"
                % (name, u.ms / 3_600_000, u.wakes * 1000 / u.ms, u.cues, m.average_ua(u),
                   m.hours(u), time.monotonic() - t)
            )  # fmt: skip
    print("idle storage: paused %.0f days; switched off: the converter alone %.0f days"
          " (the cells' shelf life ends it first)" % (m.days_asleep(), m.days_off()))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
