# SPDX-License-Identifier: GPL-3.0-or-later
"""The setup menu's settings (#24, docs/menu.md): label, value, step.
Small modules, each compiled alone (docs/menu.md, "For other faces")."""

from . import tcspec
from .timecontrol import HOURGLASS

GAMES = ("xiangqi", "go", "chess")
SIDES = (("red", "black"), ("black", "white"), ("white", "black"))  # the first mover first
PRESETS = (
    ("xq-rapid", "xq-rapid-20", "xq-rapid-25", "xq-rapid-30", "xq-blitz", "xq-blitz-10",
     "xq-count", "sudden-death", "armageddon", "armageddon-black", "league", "hourglass",
     "upcount"),
    ("go-byoyomi", "go-byoyomi-30", "go-canadian", "go-can-reset", "fischer-cap",
     "sudden-death", "upcount"),
    ("fide", "fide-delay", "rapid", "blitz", "armageddon-chess", "bronstein", "us-delay",
     "league", "fischer-cap", "hourglass", "sudden-death", "upcount"),
)  # fmt: skip
SLOTS = 5  # user slots kept in flash, as the DGT 3000 keeps five
HOWS = ("fischer", "bronstein", "delay", "hourglass", "upcount")  # a stage's method
OVERTIMES = ("none", "count", "byoyomi", "canadian", "can reset", "upcount")  # upcount: #31
MAX_MOVES = 99  # a stage's move count on the menu: 1 to 99, 0 (-) to the flag or the end
WARNS = (0, 10000, 20000, 30000, 60000, 120000, 300000)
HANDICAPS = (0, -40, 40, -20, 20, -10, 10)
RECORDS = (180000, 300000, 60000, 0)  # TC-9 thresholds (0: off)
MAX_STAGES = 3


def _step_of(v):
    return 10000 if v < 60000 else 60000 if v < 1200000 else 300000 if v < 7200000 else 900000


def base_step(ms, d):
    """The next base time up (d 1) or down (d -1): 10 s steps under a minute,
    1 min under 20 min, 5 min under 2 h, then 15 min."""
    if d > 0:
        step = _step_of(ms)
        return min(tcspec.MAX_MS, (ms // step + 1) * step)
    step = _step_of(ms - 1)
    return max(0, (ms - 1) // step * step)


def _cycle(values, v, d):
    i = values.index(v) if v in values else 0
    return values[(i + d) % len(values)]


def _clamp(v, lo, hi):
    return lo if v < lo else hi if v > hi else v


class Item:
    """One line of the menu: ``label(menu)``, ``value(menu)`` (text),
    ``step(menu, d)`` (d is +1 or -1), ``shown(menu)``."""

    def __init__(self, label, value, step, shown=None):
        self._label = label
        self.value = value
        self.step = step
        self.shown = shown or (lambda m: True)

    def label(self, m):
        return self._label(m) if callable(self._label) else self._label


def _set(attr, lo, hi, step):
    def f(m, d):
        setattr(m.d, attr, _clamp(getattr(m.d, attr) + d * step, lo, hi))

    return f


def _plain(m):
    return m.d.stages[0][2] < HOURGLASS
