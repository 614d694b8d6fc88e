# SPDX-License-Identifier: GPL-3.0-or-later
"""Hours on two AA alkaline cells for five game days, from the firmware's trace (#22, #33).

    .venv/bin/python benchmarks/energy.py [--days NAME,...]

The real firmware (firmware/boot.py, then main.py, unchanged) boots on the
simulated RP2040 of the battery board (host/qizhong/sim/chip.py) and plays
each day in virtual time, given as the players' key and lever presses. The
chip's wake trace (each wake: when, why, the sleep before it and the loop's
cycles awake at the clock the firmware set; the I2S, the amplifier's and the
cells' divider's supply pins; watchdog resets) goes through the models of
docs/power.md (host/qizhong/sim/energy.py). Printed per day: hours played,
wakes a second, percent awake, the clock, the rail's average current and
the hours on 2xAA of the board as built (a Pico module), and how the run
ended ("end": played out; "reset": the watchdog; "off": the board switched
itself off, and "off+end" the power key booted it again for the rest of
the day); then the same traces costed on each route of docs/power.md; then
the cells' warning at the dearest day's rate.

The days (host/qizhong/sim/energy.py's DAYS; the same on every run):
  xq-rapid   six games of 15m+10s to the flag, 5 min apart (no counting)
  xq-count   four of those, then 20m count 10s with 10 min of counting
  go         60m byoyomi 3x60s: an hour each, then 2 h of byo-yomi at 20 s a move
  chess      40/90m+30s:30m+30s, a move every 90 s for 4 h
  lunch      the same, paused an hour for lunch after move 60: after 30 min
             paused the board switches itself off; the power key, then start,
             and 60 more
"""

from __future__ import annotations

import argparse
import sys
import time

from qizhong.sim import cell
from qizhong.sim import energy as E


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--days", default=",".join(E.DAYS))
    args = ap.parse_args(argv)
    names = args.days.split(",")
    for n in names:
        if n not in E.DAYS:
            ap.error("no day %r (%s)" % (n, ", ".join(E.DAYS)))
    m = E.PICO
    print("%s, 2xAA alkaline (docs/power.md): floor %.0f uA at 3.3 V" % (m.name, m.floor_ua))
    head = "%-9s %6s %8s %7s %5s %8s %7s %-7s %6s"
    print(head % ("day", "hours", "wakes/s", "awake%", "MHz", "avg uA", "life h", "end", "s"))
    used: dict[str, E.Usage] = {}
    for name in names:
        t = time.monotonic()
        u, runs = E.run_day(name)
        used[name] = u
        mhz = runs[-1].summary().hz / 1e6
        end = "+".join(tr.end for tr in runs)
        print(
            "%-9s %6.2f %8.2f %7.2f %5.0f %8.0f %7.0f %-7s %6.1f"
            % (name, u.ms / 3_600_000, u.wakes_per_s, u.awake_pct, mhz, m.average_ua(u),
               m.hours(u), end, time.monotonic() - t)
        )  # fmt: skip
    print("\nthe same traces on each route (hours on 2xAA; docs/power.md):")
    print("%-30s" % "route" + "".join("%9s" % n for n in names))
    for r in (m, *E.ROUTES):
        print("%-30s" % r.name + "".join("%9.0f" % r.hours(used[n]) for n in names))
    dear = max(names, key=lambda n: m.cells_mw(used[n]))
    mw = m.cells_mw(used[dear])
    warn, clear = cell.firmware_thresholds()
    print(
        "\ncells: the dearest day (%s) takes %.2f mW from the cells; %g h remain at %d mV"
        " (firmware/boards/cell.py: WARN_MV %d, CLEAR_MV %d)"
        % (dear, mw, cell.PROMISED_H, cell.warn_mv(mw), warn, clear)
    )
    print("switched off: %.0f days (the cells' shelf life ends it first)" % m.days_off())
    return 0


if __name__ == "__main__":
    sys.exit(main())
