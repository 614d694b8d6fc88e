# SPDX-License-Identifier: GPL-3.0-or-later
"""Lever debouncing: the press is the first edge; bounce within BOUNCE_MS is ignored.

Pure logic, called from the pin interrupt on the Pico (so it allocates
nothing) and from the simulated board with the harness's edges. An edge
inside the bounce window is not lost: ``edge`` remembers the raw level, and
once the window has passed the board calls ``settle``, which reports the
change the window hid (a release 10 ms after a press), stamped at its edge.
Until then the board's time waits at that edge and the other lever's later
edges wait behind it, so a hidden press is charged at its own instant (#26).
"""

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):  # type: ignore
        return x


NONE = const(0)
DOWN = const(1)  # a press, at its first edge
UP = const(2)


class Lever:
    BOUNCE_MS = 20  # a microswitch's contacts settle well within this

    def __init__(self):
        self.down = False  # the accepted level
        self.last = -1000000  # time of the last accepted edge
        self.raw = False  # the last raw level seen
        self.raw_t = 0  # and when
        self.t = 0  # the stamp of the edge last reported

    def edge(self, pressed, t):
        """A raw edge (``pressed`` is the new level) at ``t``: DOWN, UP or NONE."""
        self.raw = pressed
        self.raw_t = t
        if pressed == self.down or t - self.last < self.BOUNCE_MS:
            return NONE
        return self._accept(t)

    def settle_at(self):
        """When ``settle`` has something to report, or -1."""
        return self.last + self.BOUNCE_MS if self.raw != self.down else -1

    def settle(self, t):
        """After the bounce window: the level it hid, as DOWN or UP at ``self.t``."""
        if self.raw == self.down or t - self.last < self.BOUNCE_MS:
            return NONE
        return self._accept(self.raw_t)

    def rebase(self, d):
        """The time origin moved ``d`` ms later (App.rebase)."""
        self.last -= d
        self.raw_t -= d
        self.t -= d

    def _accept(self, t):
        self.down = self.raw
        self.last = t
        self.t = t
        return DOWN if self.down else UP
