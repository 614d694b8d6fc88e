# SPDX-License-Identifier: GPL-3.0-or-later
"""Ticks to one monotonic ms count: wraparound never reaches the clock."""

from hypothesis import given, settings
from hypothesis import strategies as st

from qizhong.core.monotonic import Monotonic

PERIOD = 1 << 30  # the Pico's ticks_ms period


class Ticks:
    """A wrapping tick counter with MicroPython's ticks_diff."""

    def __init__(self, start):
        self.raw = start % PERIOD

    def __call__(self):
        return self.raw

    def advance(self, ms):
        self.raw = (self.raw + ms) % PERIOD

    @staticmethod
    def diff(a, b):
        return ((a - b + PERIOD // 2) & (PERIOD - 1)) - PERIOD // 2


@settings(max_examples=200, deadline=None)
@given(st.integers(0, PERIOD - 1), st.lists(st.integers(0, PERIOD // 2 - 1), max_size=40))
def test_count_is_the_sum_of_steps_across_wraps(start, steps):
    ticks = Ticks(start)
    m = Monotonic(ticks, Ticks.diff)
    total = 0
    for step in steps:
        ticks.advance(step)
        total += step
        assert m.now() == total


def test_wrap_right_at_the_edge():
    ticks = Ticks(PERIOD - 2)
    m = Monotonic(ticks, Ticks.diff)
    ticks.advance(5)
    assert ticks() == 3 and m.now() == 5


def test_a_reading_that_runs_backwards_holds_still():
    ticks = Ticks(1000)
    m = Monotonic(ticks, Ticks.diff)
    ticks.advance(50)
    assert m.now() == 50
    ticks.raw -= 10
    assert m.now() == 50
    ticks.advance(20)
    assert m.now() == 60  # from the last reading it accepted


def test_skew_trim_removes_a_fast_crystal():
    # A crystal 50 ppm fast: 1,000,050 ticks per real 1,000,000 ms.
    ticks = Ticks(0)
    m = Monotonic(ticks, Ticks.diff)
    m.skew_ppm = 50
    for _ in range(1000):
        ticks.advance(1000)  # one tick reading per second of the fast clock
        m.now()
    # 1,000,000 ticks, trimmed by 50 ppm: 999,950 ms, all integers
    assert m.now() == 999950
    assert isinstance(m.now(), int)
