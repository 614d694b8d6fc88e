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
    "duration",
    "fmt_ms",
    "from_pgn",
    "from_sgf",
    "parse",
    "spec_of",
    "suggest",
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


MAX_MS = tcspec._MAX_MS  # the syntax's cap: nothing on a game clock lasts 100 hours


def duration(text: str, what: str = "a time", signed: bool = False) -> int:
    """ms for ``text``: the spec syntax's durations (``30s``, ``2m``,
    ``1h30m``, ``500ms``; the clock's own reader, so units mean the same as
    in ``tc``), or a bare integer of milliseconds (the protocol's unit). With
    ``signed``, a leading ``-`` or ``+``. Over 100 hours is refused
    (SpecError, with the column)."""
    r = tcspec._Reader(text)
    r.skip()
    sign = 1
    if signed and r.peek() in ("-", "+"):
        sign = -1 if r.peek() == "-" else 1
        r.i += 1
        r.skip()
    body = text[r.i :].strip()
    if body.isascii() and body.isdigit():
        ms = int(body)
        if ms > MAX_MS:
            raise SpecError("%s is too long (at most 100h)" % what, text, r.i)
        return sign * ms
    ms = r.duration(what)
    if not r.done():
        r.fail("unexpected %r after %s" % (r.peek(), what))
    return sign * ms


def suggest(text: str) -> str:
    """For a spec that does not parse and looks like a preset's name: the
    nearest preset names, as "did you mean ..." (difflib), else ""."""
    import difflib
    import re

    word = text.strip().lower()
    if not re.fullmatch(r"[a-z][a-z0-9-]*", word) or re.fullmatch(r"[0-9hms]+", word):
        return ""
    near = difflib.get_close_matches(word, list(PRESETS), n=1, cutoff=0.6)
    if near:
        return "unknown preset %r, did you mean %s?" % (word, near[0])
    return "unknown preset %r (`qizhong presets` lists them)" % word


def game_of(tc: TimeControl) -> str:
    """The game a time control belongs to, as far as it tells: go for
    byo-yomi and Canadian overtime (TC-6, TC-7), chess for the delays,
    xiangqi otherwise (the clock's first game)."""
    ot = tc.overtime
    if ot is not None and ot.kind in ("byoyomi", "canadian"):
        return "go"
    if tc.timing in (BRONSTEIN, DELAY):
        return "chess"
    return "xiangqi"


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
