# SPDX-License-Identifier: GPL-3.0-or-later
"""The terminal clock's keys: one set for ``make sim`` (the firmware,
``sim/term``) and ``qizhong demo`` (the core alone, ``sim/demo``).

Each key is a lever, one of the clock's keys (docs/display.md), or a thing
the player does to the clock; ``KEYS`` maps it to what the simulated board
gets. ``HELP`` is their on-screen summary (at most 76 columns a line).
"""

from __future__ import annotations

# key -> (kind, argument): a lever (0 left, 1 right), a clock key by its name,
# a tilt (knocked over), or a new game.
KEYS: dict[str, tuple[str, str]] = {
    "a": ("lever", "0"),
    "l": ("lever", "1"),
    " ": ("key", "start"),
    "k": ("tilt", ""),
    "+": ("key", "plus"),
    "=": ("key", "plus"),  # + without shift
    "-": ("key", "minus"),
    "m": ("key", "menu"),
    "o": ("key", "ok"),
    "n": ("new", ""),
}
QUIT = ("q", "Q", "\x04")
HELP = (
    "a / l  left / right lever   space  start · pause · resume   k  knock over",
    "+ / -  knocked over: the left / right player did it; setup: next / previous",
    "m  setup menu (again: cancel)   o  ok: next, apply   n  new game   q  quit",
)
