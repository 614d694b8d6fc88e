# SPDX-License-Identifier: GPL-3.0-or-later
"""The firmware's wakes on the simulated RP2040 (#33, qizhong.sim.chip).

    python benchmarks/wakes.py

Boots firmware/boot.py and main.py, unchanged, on each simulated board and
plays a few days' pieces in virtual time. For each it prints the wakes a
second, what woke the chip, and the percent of the time awake at the clock
speed the firmware set, all from the chip's trace. The awake cycles are the
chip's cost model (host/qizhong/sim/rp2040/rp2040sim.py: calibrated on an
instruction-level RP2040 emulator's run of the old firmware): figures to
compare firmware changes by, and for the energy model; the clock's own awake
time is a bring-up measurement (docs/hardware-build.md).
"""

import sys
import time
from collections import Counter

from qizhong.sim import chip

PIECES = (
    # (name, board, minutes, events, from_ms)
    ("battery: switched on, no game", "battery", 20, [], 10_000),
    ("battery: a game, a press every 20 s", "battery", 60, chip.game(60, 20_000), 10_000),
    (
        "battery: a game paused after 5 min",
        "battery",
        25,
        chip.game(25, 20_000, pause_at_ms=300_000),
        310_000,
    ),
    ("oled: a game, a press every 20 s", "oled", 2, chip.game(2, 20_000), 10_000),
)


def main():
    for name, board, minutes, events, from_ms in PIECES:
        t0 = time.monotonic()
        tr = chip.run(board, minutes * 60_000, events)
        s = tr.summary(from_ms=from_ms)
        causes = Counter(w.cause.split(":")[0] for w in tr.wakes if w.t_us >= from_ms * 1000)
        print(
            "%-40s %5.0f s: %6.3f wakes/s, %5.2f %% awake at %d MHz; %s; end %s; resets %d"
            " (%.1f s to run)"
            % (
                name,
                s.seconds,
                s.wakes_per_s,
                s.awake_pct,
                s.hz // 1_000_000,
                ", ".join("%s %d" % kv for kv in causes.most_common()),
                tr.end,
                len(tr.resets),
                time.monotonic() - t0,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
