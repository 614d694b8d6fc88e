# SPDX-License-Identifier: GPL-3.0-or-later
"""The control as the setup menu edits it, and the spec it stands for (docs/menu.md)."""

from . import tcspec
from .timecontrol import DELAY, FISCHER, HOURGLASS, UPCOUNT


class Draft:
    """A control as the menu edits it: plain numbers (ms, counts, indexes)."""

    def __init__(self, tc=None):
        self.stages = [[0, 900000, FISCHER, 10000]]  # moves, base, how, inc or delay
        self.ot = 0  # OVERTIMES index
        self.count = 10000
        self.grace = 500
        self.periods = 3
        self.period = 60000
        self.block_moves = 15
        self.block = 600000
        self.handicap = 0
        self.first = 0
        self.second = 0
        self.first_inc = -1  # #31: a side's own increment (-1: the stage's)
        self.second_inc = -1
        self.cap = 0
        self.warn = 0
        self.voice = False
        self.record = tcspec.RECORD_MS
        self.freeze = None
        if tc is not None:
            self.load(tc)

    def load(self, tc):
        self.stages = []
        for i, st in enumerate(tc.stages):
            how = tc.timing_of(i)
            amount = st.inc if how == FISCHER else tc.delay_of(i)
            self.stages.append([st.moves, st.base, how, amount])
        ot = tc.overtime
        self.ot = 0
        if ot is not None:
            if ot.kind == "count":
                self.ot, self.count, self.grace = 1, ot.period, ot.grace
            elif ot.kind == "byoyomi":
                self.ot, self.periods, self.period = 2, ot.count, ot.period
            elif ot.kind == "upcount":  # #31: the time over counts up
                self.ot = 5
            else:
                self.ot = 4 if ot.reset_blocks else 3
                self.block_moves, self.block = ot.moves, ot.period
        self.handicap = tc.handicap
        self.first, self.second = tc.first, tc.second
        self.first_inc, self.second_inc = tc.first_inc, tc.second_inc
        self.cap, self.warn, self.voice = tc.cap, tc.warn, tc.warn_voice
        self.record, self.freeze = tc.record, tc.freeze

    def spec(self):
        """The spec this draft stands for (``tcspec.parse`` checks it)."""
        fmt = tcspec.fmt_ms
        how0 = self.stages[0][2]
        if how0 == UPCOUNT:
            parts = ["upcount"]
        elif how0 == HOURGLASS:
            parts = [fmt(self.stages[0][1], False) + " hourglass"]
        else:
            hows = [FISCHER if not s[3] else s[2] for s in self.stages]  # a 0 s delay: none
            how0 = hows[0]
            same = all(h == how0 and s[3] == self.stages[0][3] for h, s in zip(hows, self.stages))
            text = []
            for (moves, base, _, amount), how in zip(self.stages, hows):
                s = ("%d/" % moves if moves else "") + fmt(base, False)
                if how == FISCHER and amount:
                    s += "+" + fmt(amount)
                elif how != FISCHER and not same:
                    s += "+" + ("d" if how == DELAY else "b") + fmt(amount)
                text.append(s)
            parts = [":".join(text)]
            if same and how0 != FISCHER:
                parts.append(("delay " if how0 == DELAY else "bronstein ") + fmt(self.stages[0][3]))
        if self.ot == 1:
            parts.append("count " + fmt(self.count) + " grace " + fmt(self.grace))
        elif self.ot == 2:
            parts.append("byoyomi %dx%s" % (self.periods, fmt(self.period)))
        elif self.ot == 5:
            parts.append("upcount")
        elif self.ot >= 3:
            parts.append("canadian %d/%s" % (self.block_moves, fmt(self.block, False)))
            if self.ot == 4:
                parts.append("reset")
        if self.handicap:
            parts.append(
                "red -%d%%" % -self.handicap if self.handicap < 0 else "black +%d%%" % self.handicap
            )
        for word, v, inc in (
            ("first", self.first, self.first_inc),
            ("second", self.second, self.second_inc),
            ("cap", self.cap, -1),
        ):
            if inc >= 0:  # #31: its own increment; its base the stage's unless its own
                v = v or self.stages[0][1]
            if v:
                parts.append(word + " " + fmt(v, False) + ("+" + fmt(inc) if inc >= 0 else ""))
        if self.warn:
            parts.append("warn " + fmt(self.warn, False) + (" voice" if self.voice else ""))
        if self.record != tcspec.RECORD_MS:
            parts.append("record " + (fmt(self.record, False) if self.record else "off"))
        if self.freeze is not None:
            parts.append("flag freeze" if self.freeze else "flag run")
        return " ".join(parts)
