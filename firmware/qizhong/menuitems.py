# SPDX-License-Identifier: GPL-3.0-or-later
"""The setup menu's settings (#24, docs/menu.md): each one's label, value and step.

Apart from ``menu.py`` so that each compiles on its own: from source, the
compiler's peak is that of one module, and the clock opens its menu after a
game in the README's heap (``benchmarks/firmware.py`` scans it).
"""

from . import tcspec
from .timecontrol import FISCHER, HOURGLASS, UPCOUNT

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
OVERTIMES = ("none", "count", "byoyomi", "canadian", "can reset")
MOVES = (0, 1, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 60)
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


def _stage_items(k):
    """The items of stage ``k`` (0-based)."""

    def on(m):
        return k < len(m.d.stages) and (k == 0 or m.d.stages[0][2] < HOURGLASS)

    def timed(m):
        return on(m) and m.d.stages[0][2] != UPCOUNT

    def name(what):
        return lambda m: what if len(m.d.stages) == 1 else "S%d %s" % (k + 1, what)

    def st(m):
        return m.d.stages[k]

    def moves_step(m, d):
        st(m)[0] = _cycle(MOVES, st(m)[0], d)

    def base_set(m, d):
        st(m)[1] = max(1000, base_step(st(m)[1], d))

    def how_set(m, d):
        n = len(HOWS) if len(m.d.stages) == 1 else 3  # hourglass, upcount: one stage
        s = st(m)
        s[2] = (s[2] + d) % n

    def amount_set(m, d):
        s = st(m)
        old = s[3]
        s[3] = _clamp(old + d * 1000, 0, 300000)
        if k == 0:  # stage 1's increment (or delay) carries to the later stages that had it
            for later in m.d.stages[1:]:
                if later[2] == s[2] and later[3] == old:
                    later[3] = s[3]

    def plain(m):
        return timed(m) and m.d.stages[0][2] < HOURGLASS

    return (
        Item(name("moves"), lambda m: "%d" % st(m)[0] if st(m)[0] else "-", moves_step, plain),
        Item(name("base"), lambda m: tcspec.fmt_ms(st(m)[1], False), base_set, timed),
        Item(name("how"), lambda m: HOWS[st(m)[2]], how_set, on),
        Item(
            lambda m: name("inc" if st(m)[2] == FISCHER else "delay")(m),
            lambda m: tcspec.fmt_ms(st(m)[3]),
            amount_set,
            plain,
        ),
    )


def _set(attr, lo, hi, step):
    def f(m, d):
        setattr(m.d, attr, _clamp(getattr(m.d, attr) + d * step, lo, hi))

    return f


def _plain(m):
    return m.d.stages[0][2] < HOURGLASS
