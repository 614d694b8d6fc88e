# SPDX-License-Identifier: GPL-3.0-or-later
"""The steady-state calls allocate nothing on the MicroPython heap.

    micropython tests/mp/heap_check.py

For each time control, a game is played with the heap locked
(``micropython.heap_lock``): press, release, tick, next_deadline, left and
pop_event, through increments, stage changes, counts, byo-yomi periods and
voice cues; the controls with overtime once more in every language and count
style (docs/voice.md). Any allocation raises MemoryError and is reported. Prints
"N passed, M failed"; exit 1 on failure.
"""

import gc
import sys

import micropython

import _path

_path.setup(__file__)

from qizhong import clock, tcspec, voice  # noqa: E402

SPECS = (
    "15m+10s",
    "2/1m+10s:30s+10s",
    "1m count 10s",
    "10s byoyomi 3x60s",
    "10s byoyomi 5x30s",
    "0s byoyomi 5x20s",  # #31: periods used in a move: the periods left filled in (voice.fill)
    "0s byoyomi 3x50s",  # #31: bare seconds ("四十" "五")
    "10s canadian 3/30s",
    "1m bronstein 3s",
    "1m delay 3s",
    "1m hourglass",
    "30s:20s:10s",  # TC-10: stages at the first flag
    "1/1m+5s:30s+d3s",  # TC-11: a method per stage
    "10s canadian 2/30s reset",  # TC-12
    "10s canadian 2/30s step 1",  # #31: progressive Canadian
    "10s upcount",  # #31: upcount as a stage, after main time
    "upcount",  # TC-13
    "1m+10s cap 65s",  # TC-14
    "2m warn 1m",  # TC-15
    "1m+5s second 40s",  # TC-16
    "1m+5s first 1m+2s second 40s+1s",  # #31: per-side increments
)


THINK = (2500, 9000, 10400, 500, 6000, 59000)  # ms: through counts, cues and periods


def play(c, moves):
    # Side 0 thinks THINK[i] ms per move, side 1 a third of that.
    t = c.now
    n = 0
    shown = 0
    for i in range(moves):
        side = c.run
        dt = THINK[i % len(THINK)]
        if side:
            dt //= 3
        end = t + dt
        while True:  # sleep to each deadline, as the firmware does
            d = c.next_deadline()
            if d < 0 or d >= end:
                break
            c.tick(d)
            shown += c.left(0, d) + c.left(1, d)
            while c.pop_event():
                n += 1
        t = end
        c.press(side, t)
        c.release(side, t + 80)
        while c.pop_event():
            n += 1
        if c.state != clock.RUNNING:
            break
    return n + shown


def check(spec):
    c = clock.Clock(tcspec.parse(spec))
    c.start(0)
    play(c, 20)  # warm up outside the lock
    c = None  # the warm-up clock is garbage before the measured one is built
    gc.collect()
    c = clock.Clock(tcspec.parse(spec))
    c.start(0)
    gc.collect()
    before = gc.mem_alloc()
    micropython.heap_lock()
    try:
        play(c, 200)
        err = None
    except MemoryError as e:
        err = e
    micropython.heap_unlock()
    grew = gc.mem_alloc() - before
    return err, grew, c.sides[0].moves + c.sides[1].moves


def control():
    # The check must be able to fail: an allocation under the lock is caught.
    gc.collect()
    micropython.heap_lock()
    try:
        x = [len(SPECS)]
        caught = x is None
    except MemoryError:
        caught = True
    micropython.heap_unlock()
    return caught


def main():
    passed = failed = 0
    if control():
        passed += 1
    else:
        failed += 1
        print("FAIL  control: an allocation under heap_lock went unnoticed")
    runs = [(spec, 0, 0) for spec in SPECS]
    for lg in range(len(voice.LANGS)):
        for st in range(len(voice.STYLES)):
            runs += [(spec, lg, st) for spec in SPECS if " count " in spec or "yomi" in spec]
            runs += [(spec, lg, st) for spec in SPECS if "canadian" in spec]
    for spec, lg, st in runs:
        voice.use(lg, st)
        err, grew, moves = check(spec)
        name = "%s (%s %s)" % (spec, voice.LANGS[lg], voice.STYLES[st])
        if err is None and grew == 0:
            passed += 1
            print("ok    %-32s %d moves, 0 bytes allocated" % (name, moves))
        else:
            failed += 1
            print("FAIL  %-32s %r, heap grew %d bytes" % (name, err, grew))
    voice.use(0, 0)
    print("heap: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


sys.exit(main())
