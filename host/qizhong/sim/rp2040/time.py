# SPDX-License-Identifier: GPL-3.0-or-later
"""``time`` of the simulated RP2040: its ticks are the chip's virtual µs;
``sleep_ms`` waits awake, as rp2's does. The ticks keep the unix port's
period and start 10 s ahead of its clock: asyncio's C task queue dates a new
task by the port's own ms (mp_hal_ticks_ms), and such a task must be due at
once in virtual time, not wait for the real clock."""

import rp2040sim as C
import utime

_PERIOD = utime.ticks_add(0, -1) + 1
_MASK = _PERIOD - 1
_HALF = _PERIOD // 2
_BASE_MS = utime.ticks_add(utime.ticks_ms(), 10_000)

gmtime = utime.gmtime
localtime = utime.localtime
mktime = utime.mktime


def ticks_ms():
    return (_BASE_MS + C.now // 1000) & _MASK


def ticks_us():
    return (_BASE_MS * 1000 + C.now) & _MASK


def ticks_cpu():
    return ticks_us()


def ticks_add(t, d):
    return (t + d) & _MASK


def ticks_diff(a, b):
    d = (a - b) & _MASK
    return d - _PERIOD if d >= _HALF else d


def sleep_ms(ms):
    C.busy(ms * 1000)


def sleep_us(us):
    C.busy(us)


def sleep(s):
    C.busy(int(s * 1_000_000))


def time():
    return C.now // 1_000_000


def time_ns():
    return C.now * 1000
