# SPDX-License-Identifier: GPL-3.0-or-later
"""One monotonic millisecond count from a wrapping tick counter.

MicroPython's ``time.ticks_ms`` wraps (at 2**30 ms on the Pico, about 12.4
days) and only ``ticks_diff`` may compare two readings, for gaps under half the
period. ``Monotonic`` keeps the last raw reading and adds each ``ticks_diff``
to a running count, so wraparound never reaches the clock. Call ``now`` at
least once per half period (the firmware's loop does, many times a second).

The board layer owns one instance; the core only ever sees its ms values.
"""


class Monotonic:
    """``ticks`` returns the raw counter; ``diff(a, b)`` is ``ticks_diff``."""

    def __init__(self, ticks, diff):
        self._ticks = ticks
        self._diff = diff
        self._raw = ticks()
        self._ms = 0
        self.skew_ppm = 0  # trim for a crystal that runs fast (+) or slow (-)
        self._frac = 0  # ppm remainder carried between calls, in ms * 1e6

    def now(self):
        """Milliseconds since this object was made; never decreases."""
        raw = self._ticks()
        d = self._diff(raw, self._raw)
        if d <= 0:  # same tick, or a reading that ran backwards: hold still
            return self._ms
        self._raw = raw
        if self.skew_ppm:
            self._frac -= d * self.skew_ppm
            q = self._frac // 1000000
            d += q
            self._frac -= q * 1000000
        self._ms += d
        return self._ms

    def rebase(self, d):
        """Count from ``d`` ms later on (App.rebase): ``now`` drops by ``d``."""
        self._ms -= d
