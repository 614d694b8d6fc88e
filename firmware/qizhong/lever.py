# SPDX-License-Identifier: GPL-3.0-or-later
"""Lever debouncing: the press is the first edge; bounce within BOUNCE_MS is ignored.

Pure logic, called from the pin interrupt on the Pico (so it allocates
nothing) and from the simulated board with the harness's edges.
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
        self.down = False
        self.last = -1000000  # time of the last accepted edge

    def edge(self, pressed, t):
        """A raw edge (``pressed`` is the new level) at ``t``: DOWN, UP or NONE."""
        if pressed == self.down or t - self.last < self.BOUNCE_MS:
            return NONE
        self.down = pressed
        self.last = t
        return DOWN if pressed else UP
