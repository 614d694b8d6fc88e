# SPDX-License-Identifier: GPL-3.0-or-later
"""The setup menu's settings after the stages (docs/menu.md): the overtime,
each side's own time (``menustages``), the handicap, the cap, the warning, the recording
threshold, the flag and the slot. Apart from ``menulist`` so that each
compiles on its own: the menu then opens after a game in a smaller heap."""

from . import tcspec
from .menuitems import (
    HANDICAPS,
    OVERTIMES,
    RECORDS,
    SLOTS,
    WARNS,
    Item,
    _clamp,
    _cycle,
    _plain,
    base_step,
)
from .menustages import SideItem
from .timecontrol import FISCHER, UPCOUNT

# label, the draft's field, lo, hi, step, the overtimes it is for (menuitems.OVERTIMES),
# shown as: True seconds, False minutes, None a number
OT_ROWS = (
    ("count", "count", 1000, 60000, 1000, (1,), True),
    ("grace", "grace", 0, 5000, 100, (1,), True),
    ("periods", "periods", 1, 99, 1, (2,), None),
    ("period", "period", 5000, 600000, 5000, (2,), True),
    ("moves", "block_moves", 1, 99, 1, (3, 4), None),
    ("block", "block", 60000, 3600000, 60000, (3, 4), False),
)


class OtItem(Item):
    """One row of ``OT_ROWS``."""

    def __init__(self, row):
        self.row = row
        self._label = row[0]

    def label(self, m):
        return self._label

    def value(self, m):
        v = getattr(m.d, self.row[1])
        return "%d" % v if self.row[6] is None else tcspec.fmt_ms(v, self.row[6])

    def shown(self, m):
        return _plain(m) and m.d.ot in self.row[5]

    def step(self, m, d):
        r = self.row
        setattr(m.d, r[1], _clamp(getattr(m.d, r[1]) + d * r[4], r[2], r[3]))


FLAGS = (None, True, False)  # after a flag: the mode's default, both clocks stop, play goes on
FLAG_NAMES = ("auto", "freeze", "run")


def items():
    """The settings after the stages, a new list."""
    d_ = tcspec.fmt_ms

    def handicap_step(m, d):
        m.d.handicap = _cycle(HANDICAPS, m.d.handicap, d)

    def cap_step(m, d):
        base = max(m.d.stages[0][1], m.d.first, m.d.second)
        m.d.cap = 0 if d < 0 and m.d.cap <= base else max(base, base_step(m.d.cap or base - 1, d))

    def warn_step(m, d):
        m.d.warn = _cycle(WARNS, m.d.warn, d)
        if tcspec.warn_cue(m.d.warn) < 0:
            m.d.voice = False

    def voice_step(m, d):
        m.d.voice = not m.d.voice

    def ot_step(m, d):
        m.d.ot = (m.d.ot + d) % len(OVERTIMES)

    def fischer_inc(m):
        own = max(m.d.first_inc, m.d.second_inc)  # #31: a side's own increment
        return _plain(m) and (own > 0 or any(s[2] == FISCHER and s[3] for s in m.d.stages))

    def record_step(m, d):  # TC-9
        m.d.record = _cycle(RECORDS, m.d.record, d)

    def flag_step(m, d):  # None (the mode's default), freeze, run
        m.d.freeze = _cycle(FLAGS, m.d.freeze, d)

    def save_step(m, d):
        m.save = (m.save + d) % (SLOTS + 1)

    return [
        Item("overtime", lambda m: OVERTIMES[m.d.ot], ot_step, _plain),
    ] + [OtItem(row) for row in OT_ROWS] + [
        SideItem(0, 0), SideItem(0, 1), SideItem(1, 0), SideItem(1, 1),
        Item("handicap", lambda m: ("%+d%%" % m.d.handicap) if m.d.handicap else "off",
             handicap_step, lambda m: _plain(m) and m.d.stages[0][2] != UPCOUNT),
        Item("cap", lambda m: d_(m.d.cap, False) if m.d.cap else "off", cap_step, fischer_inc),
        Item("warn", lambda m: d_(m.d.warn, False) if m.d.warn else "off", warn_step,
             lambda m: m.d.stages[0][2] != UPCOUNT),
        Item("sound", lambda m: "voice" if m.d.voice else "beep", voice_step,
             lambda m: m.d.warn and tcspec.warn_cue(m.d.warn) >= 0),
        Item("record", lambda m: d_(m.d.record, False) if m.d.record else "off", record_step,
             lambda m: m.d.stages[0][2] != UPCOUNT),
        Item("flag", lambda m: FLAG_NAMES[FLAGS.index(m.d.freeze)], flag_step),
        Item("save", lambda m: "slot %d" % m.save if m.save else "no", save_step),
    ]  # fmt: skip
