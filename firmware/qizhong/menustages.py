# SPDX-License-Identifier: GPL-3.0-or-later
"""The setup menu's stage settings (docs/menu.md): each stage's moves, base,
method and increment or delay; each side's own base (TC-16) and increment
(#31). Classes, not closures: an instance is all an item costs."""

from . import tcspec
from .menuitems import HOWS, MAX_MOVES, SIDES, Item, _clamp, _plain, base_step
from .timecontrol import FISCHER, HOURGLASS, UPCOUNT


class StageItem(Item):
    """Setting ``what`` (0 moves, 1 base, 2 how, 3 increment or delay) of
    stage ``k`` (0-based). Methods, not closures: an instance is all it costs."""

    _label = None

    def __init__(self, k, what):
        self.k = k
        self.what = what

    def label(self, m):
        st = m.d.stages[self.k]
        w = ("moves", "base", "how", "inc" if st[2] == FISCHER else "delay")[self.what]
        return w if len(m.d.stages) == 1 else "S%d %s" % (self.k + 1, w)

    def value(self, m):
        v = m.d.stages[self.k][self.what]
        if self.what == 0:
            return "%d" % v if v else "-"
        if self.what == 2:
            return HOWS[v]
        return tcspec.fmt_ms(v, self.what == 3)

    def shown(self, m):
        k = self.k
        how0 = m.d.stages[0][2]
        if k >= len(m.d.stages) or (k and how0 >= HOURGLASS):
            return False
        if self.what == 2:
            return True
        return how0 != UPCOUNT and (self.what == 1 or how0 < HOURGLASS)

    def step(self, m, d):
        s = m.d.stages[self.k]
        w = self.what
        if w == 0:  # any count: 0 (-), 1 ... 99, round again (hold plus or minus to run)
            s[0] = (s[0] + d) % (MAX_MOVES + 1)
        elif w == 1:
            s[1] = max(1000, base_step(s[1], d))
        elif w == 2:
            s[2] = (s[2] + d) % (
                len(HOWS) if len(m.d.stages) == 1 else 3
            )  # hourglass, upcount: one stage
        else:
            old = s[3]
            s[3] = _clamp(old + d * 1000, 0, 300000)
            if (
                self.k == 0
            ):  # stage 1's increment (or delay) carries to the later stages that had it
                for later in m.d.stages[1:]:
                    if later[2] == s[2] and later[3] == old:
                        later[3] = s[3]


def _stage_items(k):
    """The items of stage ``k`` (0-based)."""
    return (StageItem(k, 0), StageItem(k, 1), StageItem(k, 2), StageItem(k, 3))


class SideItem(Item):
    """Side ``i``'s own first-stage base (``what`` 0; 0: the stage's) or
    increment (``what`` 1; -1: the stage's)."""

    _label = None

    def __init__(self, i, what):
        self.i = i
        self.what = what
        self.attr = (("first", "second"), ("first_inc", "second_inc"))[what][i]

    def label(self, m):
        return SIDES[m.game][self.i] + (" +" if self.what else "")  # 8 at most: the glass

    def value(self, m):
        v = getattr(m.d, self.attr)
        if self.what:
            return tcspec.fmt_ms(v) if v >= 0 else "same"
        return tcspec.fmt_ms(v, False) if v else "same"

    def shown(self, m):
        how = m.d.stages[0][2]
        return _plain(m) and (how == FISCHER if self.what else how != UPCOUNT)

    def step(self, m, d):
        v = getattr(m.d, self.attr)
        if not self.what:  # a base: 0 again when it is the stage's
            v = max(1000, base_step(v or m.d.stages[0][1], d))
            v = 0 if v == m.d.stages[0][1] else v
        elif v < 0:  # an increment: same, then 0s, 1s ... 300s
            v = 0 if d > 0 else -1
        else:
            v += d * 1000
            v = -1 if v < 0 else min(300000, v)
        setattr(m.d, self.attr, v)
