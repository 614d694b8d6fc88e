# SPDX-License-Identifier: GPL-3.0-or-later
"""Upcount as a stage (#31, docs/timecontrol.md): apart from ``timecontrol``
so that a clock that never uses it keeps the heap it had (``tcspec`` imports
it when a spec says ``upcount`` after its stages)."""

from .timecontrol import MAX_MS, Overtime, _cap


class Upcount(Overtime):
    """#31: upcount as a stage. Once main time is used up the side's clock
    counts up from 0, the time it has gone over, and never flags (below
    MAX_MS): the clock records by how much, as the DGT 3000's UPCNT period
    does after a timed one. The overtime event says who ran out first."""

    kind = "upcount"

    def flag_in(self, s):
        return MAX_MS - s.oc

    def complete(self, s):
        s.cue = 0  # the time over adds up, move after move

    def left_ms(self, s, x):
        return _cap(s.oc + x)

    def __eq__(self, other):
        return isinstance(other, Upcount)
