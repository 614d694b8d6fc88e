# SPDX-License-Identifier: GPL-3.0-or-later
"""Wall time of whole games through the clock core, in virtual time.

Runs on CPython and on MicroPython (``micropython benchmarks/core_game.py``).
Each game: 2 hours of play, 60 moves a side, deadlines jumped to exactly as
the firmware sleeps to them, every event drained. Prints one line per control.
"""

import sys

try:
    from time import ticks_diff, ticks_us  # MicroPython

    def elapsed_us(start):
        return ticks_diff(ticks_us(), start)

    def now_us():
        return ticks_us()

except ImportError:
    from time import perf_counter_ns

    def now_us():
        return perf_counter_ns() // 1000

    def elapsed_us(start):
        return now_us() - start


here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
sys.path.insert(0, here + "/../firmware")

from qizhong import clock, tcspec  # noqa: E402

GAMES = (
    ("60m+0s", "Fischer, no increment"),
    ("40/50m+30s:30m+30s", "multi-stage FIDE-like"),
    ("50m count 10s", "Xiangqi count (TC-5)"),
    ("50m byoyomi 5x60s", "Go byo-yomi (TC-6)"),
    ("50m canadian 15/10m", "Canadian (TC-7)"),
)
GAME_MS = 2 * 3600 * 1000
MOVES = 120


def play(spec):
    c = clock.Clock(tcspec.parse(spec))
    c.start(0)
    t = 0
    events = 0
    think = GAME_MS // MOVES
    for i in range(MOVES):
        end = t + think + (i * 7919) % 2000 - 1000
        while True:
            d = c.next_deadline()
            if d < 0 or d >= end:
                break
            c.tick(d)
            while c.pop_event():
                events += 1
        t = end
        if c.state != clock.RUNNING:
            break
        c.press(c.run, t)
        c.release(1 - c.run, t + 50)
        while c.pop_event():
            events += 1
    return events, c.sides[0].moves + c.sides[1].moves


def main():
    impl = sys.implementation.name
    for spec, about in GAMES:
        best = None
        for _ in range(3):
            start = now_us()
            events, moves = play(spec)
            us = elapsed_us(start)
            best = us if best is None or us < best else best
        print(
            "%-11s %-22s 2 h game, %3d moves, %4d events: %7.2f ms (best of 3)  # %s"
            % (impl, spec, moves, events, best / 1000, about)
        )


main()
