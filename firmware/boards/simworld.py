# SPDX-License-Identifier: GPL-3.0-or-later
"""The simulated board's world lines, checked (#12): ``parse`` turns a line's
words into what boards/sim.py acts on, or refuses it with ValueError. Its
own module so the board compiles in the heap the README states."""

import os
import time

T_MAX = (1 << 62) - 1  # a world line's T


def power_init(board, boards, settle_ms):
    # #22, docs/power.md: the board, and what the energy model charges: every
    # wake and the sleep before it, the frames that changed, their bus bytes.
    board.variant = os.getenv("QIZHONG_BOARD") or "oled"
    if board.variant not in boards:
        raise ValueError("QIZHONG_BOARD is oled or battery, not %s" % board.variant[:16])
    board.wakes = 0
    board.slept_ms = 0
    board.frames_sent = 0
    board.bus_bytes = 0
    board._battery_at = settle_ms  # battery board: its next cell wake (read at boot)
    board._measuring = True  # the divider is on (the next cell wake reads it)
    board._log_sleeps = os.getenv("QIZHONG_SLEEPS") == "1"  # "slept T MS" at each wake
    board.tenths = board.variant != "battery"  # the battery board's budget has no tenths


def power_line(board):
    """The ``power`` answer: wakes, ms slept, frames, bus bytes, flash."""
    rec = (board.wakes, board.slept_ms, board.frames_sent, board.bus_bytes, board.flash_stats())
    return "power %d %d %d %d %s" % rec


def stamp(board, sent, max_age, mask):
    # Real time: the board's ms for an edge the harness sent at its
    # CLOCK_MONOTONIC ms sent (mod 2**30; 0: now), as the Pico's IRQ stamps an
    # edge when it happens, not when the loop reads it (#12). The unix port's
    # ticks_ms is CLOCK_MONOTONIC ms too. Never after now, never before the
    # last stamp nor before the instant the clock was last brought up to (as
    # on the Pico, where the loop takes an edge in the pass after the one it
    # happened in).
    now = board._mono.now()
    if sent:
        age = (time.ticks_ms() - sent) & mask
        if age < max_age:
            now -= age
    floor = board._last_stamp
    app = board._app
    if app is not None and app.clock.now > floor:
        floor = app.clock.now
    if now < floor:
        now = floor
    board._last_stamp = now
    return now


def parse(words, key_names):
    """``(op, arg, t)``: quit, frame, cut (arg: bytes ahead), lever (arg:
    2 * lever + down), key (arg: its index in ``key_names``, +8 down only,
    +16 up only), at, tilt; t the line's T (-1: none). ValueError says what a line should be."""
    op = words[0]
    n = len(words)
    if op == "quit" or op == "frame":
        _arity(n, 1, op)
        return op, 0, -1
    if op == "cut":  # a power cut inside a flash write, N bytes ahead (#8)
        _arity(n, 2, "cut N")
        return op, _int(words[1], 0, 1 << 30, "cut N"), -1
    arg = 0
    if op == "lever":
        _arity(n, 4, "lever L down|up T")
        if words[2] not in ("down", "up"):
            raise ValueError("lever L down|up T")
        arg = 2 * _int(words[1], 0, 1, "lever L") + (words[2] == "down")
    elif op == "key":  # key NAME T: a tap; key NAME down|up T: held from down to up
        if n == 4 and words[2] in ("down", "up"):
            arg = 8 if words[2] == "down" else 16
        else:
            _arity(n, 3, "key NAME [down|up] T")
        if words[1] not in key_names[1:]:
            raise ValueError("no key %s" % words[1][:16])
        arg += key_names.index(words[1])
    elif op == "at" or op == "tilt":
        _arity(n, 2, op + " T")
    else:
        raise ValueError("unknown")
    # T: virtual time, 0 .. 2**62 - 1 ms (a small int on the 64-bit unix port);
    # real time: 0 (when read) or the sender's CLOCK_MONOTONIC ms mod 2**30 at the edge.
    return op, arg, _int(words[-1], 0, T_MAX, "T")


def _arity(n, want, usage):
    if n != want:
        raise ValueError(usage)


def _int(word, lo, hi, what):
    """A world line's number: ASCII digits (and ``-``) in lo..hi, else ValueError."""
    d = word[1:] if word[:1] == "-" else word
    if not d or len(d) > 19 or not d.isdigit() or not lo <= int(word) <= hi:
        raise ValueError("%s is %d..%d" % (what, lo, hi))
    return int(word)
