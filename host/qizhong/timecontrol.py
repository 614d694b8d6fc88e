# SPDX-License-Identifier: GPL-3.0-or-later
"""Time controls on the host: the clock's own syntax, plus plain-words descriptions.

Parsing and formatting are the firmware's (``qizhong.core.tcspec``), so the
host and the clock can never disagree about what a spec means.
"""

from __future__ import annotations

from qizhong.core import tcspec
from qizhong.core.tcspec import (
    PRESETS,
    SpecError,
    fmt_ms,
    from_pgn,
    from_sgf,
    parse,
    to_pgn,
    to_sgf,
)
from qizhong.core.timecontrol import BRONSTEIN, DELAY, HOURGLASS, TimeControl

__all__ = [
    "PRESETS",
    "SpecError",
    "TimeControl",
    "describe",
    "fmt_ms",
    "from_pgn",
    "from_sgf",
    "parse",
    "spec_of",
    "tcspec",
    "to_pgn",
    "to_sgf",
]


def fmt_clock(ms: int) -> str:
    """``ms`` as a clock face shows it: h:mm:ss, m:ss, or s.t under 20 s."""
    if ms < 20000:
        return "%d.%d" % (ms // 1000, ms // 100 % 10)
    s = ms // 1000
    if s >= 3600:
        return "%d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60)
    return "%d:%02d" % (s // 60, s % 60)


def spec_of(tc: TimeControl) -> str:
    """The canonical spec text of ``tc``."""
    return str(tcspec.format(tc))


def describe(tc: TimeControl) -> list[str]:
    """What an arbiter reads before the game (EQ-6), one line per rule."""
    lines = []
    for i, st in enumerate(tc.stages):
        head = "Stage %d: " % (i + 1) if len(tc.stages) > 1 else "Main time: "
        moves = "%d moves in " % st.moves if st.moves else ""
        line = "%s%s%s" % (head, moves, fmt_ms(st.base))
        if st.inc:
            line += ", +%s after every move" % fmt_ms(st.inc)
        if st.moves and i == len(tc.stages) - 1:
            line += " (repeats)"
        lines.append(line)
    if tc.timing == BRONSTEIN:
        lines.append("Bronstein delay: time used is given back after each move, up to %s"
                     % fmt_ms(tc.delay))  # fmt: skip
    elif tc.timing == DELAY:
        lines.append("Simple delay: each move's first %s is free" % fmt_ms(tc.delay))
    elif tc.timing == HOURGLASS:
        lines.append("Hourglass: what one side uses, the other gains")
    ot = tc.overtime
    if ot is not None:
        if ot.kind == "count":
            lines.append(
                "Then every move within %s, counted aloud 1..10; the flag falls at %s (TC-5)"
                % (fmt_ms(ot.period), fmt_ms(ot.period + ot.grace))
            )
        elif ot.kind == "byoyomi":
            lines.append(
                "Then byo-yomi: %d periods of %s; a move inside a period uses none (TC-6)"
                % (ot.count, fmt_ms(ot.period))
            )
        else:
            lines.append(
                "Then Canadian: %d moves in %s, unused time carries over (TC-7)"
                % (ot.moves, fmt_ms(ot.period))
            )
    if tc.handicap < 0:
        lines.append("Red's base is cut by %d%%: Red starts with %s (TC-4)"
                     % (-tc.handicap, fmt_ms(tc.base_for(0))))  # fmt: skip
    elif tc.handicap > 0:
        lines.append("Black's base is raised by %d%%: Black starts with %s (TC-4)"
                     % (tc.handicap, fmt_ms(tc.base_for(1))))  # fmt: skip
    if tc.record:
        lines.append("Moves need not be recorded once a clock shows under %s (TC-9)"
                     % fmt_ms(tc.record))  # fmt: skip
    lines.append("After a flag both clocks %s" % ("stop" if tc.freezes() else "keep running"))
    return lines
