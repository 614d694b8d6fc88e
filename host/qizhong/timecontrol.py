# SPDX-License-Identifier: GPL-3.0-or-later
"""Time controls on the host: the clock's own syntax, plus plain-words descriptions.

Parsing and formatting are the firmware's (``qizhong.core.tcspec``), so the
host and the clock can never disagree about what a spec means.
"""

from __future__ import annotations

from qizhong.core import tcspec
from qizhong.core.tcformats import from_pgn, from_sgf, reading, to_pgn, to_sgf
from qizhong.core.tcspec import SpecError, fmt_ms, parse
from qizhong.core.timecontrol import BRONSTEIN, DELAY, HOURGLASS, UPCOUNT, TimeControl

__all__ = [
    "FORMS",
    "PRESETS",
    "SpecError",
    "TimeControl",
    "describe",
    "duration",
    "fmt_ms",
    "from_pgn",
    "from_sgf",
    "parse",
    "parse_tag",
    "reading",
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


# Every preset: (spec, what it is). The specs are the clock's (tcspec.PRESETS).
PRESETS: dict[str, tuple[str, str]] = {
    "xq-rapid": (tcspec.PRESETS["xq-rapid"], "Xiangqi rapid, 15 min +10 s a move (TC-1)"),
    "xq-rapid-20": (tcspec.PRESETS["xq-rapid-20"], "Xiangqi rapid, 20 min +10 s a move (TC-1)"),
    "xq-rapid-25": (tcspec.PRESETS["xq-rapid-25"], "Xiangqi rapid, 25 min +10 s a move (TC-1)"),
    "xq-rapid-30": (tcspec.PRESETS["xq-rapid-30"], "Xiangqi rapid, 30 min +10 s a move (TC-1)"),
    "xq-blitz": (tcspec.PRESETS["xq-blitz"], "Xiangqi blitz 超快棋, 5 min +5 s a move (TC-2)"),
    "xq-blitz-10": (
        tcspec.PRESETS["xq-blitz-10"],
        "Xiangqi blitz 超快棋, 10 min +5 s a move (TC-2)",
    ),
    "xq-count": (
        tcspec.PRESETS["xq-count"],
        "20 min, then 10 s a move with the voice count (TC-5)",
    ),
    "sudden-death": (
        tcspec.PRESETS["sudden-death"],
        "Sudden death 包干制, 30 min, no increment (TC-3)",
    ),
    "armageddon": (
        tcspec.PRESETS["armageddon"],
        "Knock-out decider, Red's base cut by 40 % (TC-4)",
    ),
    "armageddon-black": (
        tcspec.PRESETS["armageddon-black"],
        "Knock-out decider, Black's base raised by 40 % (TC-4)",
    ),
    "armageddon-chess": (
        tcspec.PRESETS["armageddon-chess"],
        "Chess Armageddon: White 5 min, Black 4 min, +2 s; a draw is Black's win (TC-16, CH-6)",
    ),
    "go-can-reset": (
        tcspec.PRESETS["go-can-reset"],
        "Go, 60 min then 25 moves in every 10 min, each block afresh (TC-12)",
    ),
    "league": (
        tcspec.PRESETS["league"],
        "75 min, then 15 min more for both at the first flag (TC-10)",
    ),
    "fide-delay": (
        tcspec.PRESETS["fide-delay"],
        "90 min for 40 moves, then 30 min with a 30 s delay in the last stage only (TC-11)",
    ),
    "fischer-cap": (
        tcspec.PRESETS["fischer-cap"],
        "10 min +10 s a move, never above 10 min (TC-14)",
    ),
    "upcount": (tcspec.PRESETS["upcount"], "Both clocks count up; no flag (TC-13)"),
    "go-byoyomi": (
        tcspec.PRESETS["go-byoyomi"],
        "Go, 60 min then 3 byo-yomi periods of 60 s (TC-6)",
    ),
    "go-byoyomi-30": (tcspec.PRESETS["go-byoyomi-30"], "Go, 30 min then 5 periods of 30 s (TC-6b)"),
    "go-canadian": (tcspec.PRESETS["go-canadian"], "Go, 60 min then 15 moves per 10 min (TC-7)"),
    "fide": (
        tcspec.PRESETS["fide"],
        "FIDE classical: 90 min for 40 moves, then 30 min, +30 s from move 1",
    ),
    "rapid": (tcspec.PRESETS["rapid"], "Chess rapid, 15 min +10 s"),
    "blitz": (tcspec.PRESETS["blitz"], "Chess blitz, 3 min +2 s"),
    "bronstein": (tcspec.PRESETS["bronstein"], "5 min, Bronstein delay 3 s"),
    "us-delay": (tcspec.PRESETS["us-delay"], "5 min, simple (US) delay 5 s"),
    "hourglass": (tcspec.PRESETS["hourglass"], "Hourglass, 3 min each"),
}

# Every form the reader takes, with what it means (``qizhong tc`` prints them).
FORMS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("15m+10s",), "15 minutes each, 10 seconds added after every move (Fischer)"),
    (("1h30m", "90s", "500ms"), "durations: h, m, s, ms, largest first"),
    (("40/90m+30s:30m+30s",), "stages: 40 moves in 90 minutes, then 30 minutes; +30 s a move"),
    (("40/2h",), "a last stage with a move count repeats: 40 moves every 2 hours"),
    (("5m delay 5s", "5m d5s"), "simple (US) delay: the clock waits 5 s before it runs each move"),
    (("5m bronstein 3s",), "Bronstein delay: the time a move used comes back, up to 3 s"),
    (("3m hourglass", "*180"), "hourglass: what the mover uses, the opponent gains"),
    (("20m count 10s [grace 500ms]",), "Xiangqi count: then each move within 10 s (TC-5)"),
    (("60m byoyomi 3x60s",), "byo-yomi: then 3 periods of 60 s (TC-6)"),
    (("60m canadian 15/10m",), "Canadian: then 15 moves in every 10 minutes (TC-7)"),
    (
        ("10m+5s red -40%", "black +40%"),
        "Red's time cut, or Black's raised, by a percentage (TC-4)",
    ),
    (("record 5m", "record off"), "the recording-optional threshold (TC-9; default 3m)"),
    (("flag freeze", "flag run"), "after a flag, stop both clocks or let play go on"),
    (("G/60;inc30", "G/90+30"), "US notation: game in 60 minutes, +30 s a move"),
    (("40/120, SD/30 d5",), "US notation: 40 moves in 120 min, then 30 min; delay 5 s"),
    (("40/90, 30 d30", "G/5;d0", "Game/60"), "US notation: a comma between stages, d0 no delay"),
    (("40/90:30 delay 5",), "bare base times with a delay: US notation, so minutes"),
    (("90+30",), "refused: 90 minutes (US) or 90 seconds (PGN)? write the units"),
    (("xq-rapid", "fide", "..."), "a preset's name (qizhong presets)"),
)


def parse_tag(text: str) -> TimeControl:
    """A record's ``TimeControl`` value: PGN's own (``900+10``: seconds,
    ``from_pgn``) or a spec (``20m count 10s``)."""
    value = text.strip()
    if value and all(ch in "0123456789/+:*" for ch in value):
        tc = from_pgn(value)
        if tc is not None:
            return tc
    return parse(value)


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
    if tc.timing == UPCOUNT:
        lines.append("Upcount: both clocks count up from 0 and never flag (TC-13)")
    n = 0 if tc.timing == UPCOUNT else len(tc.stages)
    for i, st in enumerate(tc.stages[:n]):
        head = "Stage %d: " % (i + 1) if len(tc.stages) > 1 else "Main time: "
        moves = "%d moves in " % st.moves if st.moves else ""
        line = "%s%s%s" % (head, moves, fmt_ms(st.base))
        if st.inc:
            line += ", +%s after every move" % fmt_ms(st.inc)
        if st.timing == DELAY:
            line += ", simple delay %s in this stage (TC-11)" % fmt_ms(st.delay)
        elif st.timing == BRONSTEIN:
            line += ", Bronstein delay %s in this stage (TC-11)" % fmt_ms(st.delay)
        if st.moves and i == len(tc.stages) - 1:
            line += " (repeats)"
        if not st.moves and i < len(tc.stages) - 1:
            line += ", until the first flag: then both sides get the next stage (TC-10)"
        lines.append(line)
    if tc.first or tc.second:
        lines.append("Own times (TC-16): the first mover starts with %s, the second with %s"
                     % (fmt_ms(tc.base_for(0)), fmt_ms(tc.base_for(1))))  # fmt: skip
    for who, inc in (("first mover", tc.first_inc), ("second", tc.second_inc)):
        if inc >= 0:
            lines.append("The %s's own increment in the first stage: +%s after every move"
                         % (who, fmt_ms(inc)))  # fmt: skip
    if tc.cap:
        lines.append("An increment never takes main time above %s (TC-14)" % fmt_ms(tc.cap))
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
        elif ot.kind == "upcount":
            lines.append("Then the clock counts up the time over; no flag (upcount as a stage)")
        else:
            lines.append(
                "Then Canadian: %d moves in %s, %s%s"
                % (
                    ot.moves,
                    fmt_ms(ot.period),
                    "each block afresh (TC-12)"
                    if ot.reset_blocks
                    else "unused time carries over (TC-7)",
                    "; each block %d moves more (progressive)" % ot.step if ot.step else "",
                )
            )
    if tc.handicap < 0:
        lines.append("Red's base is cut by %d%%: Red starts with %s (TC-4)"
                     % (-tc.handicap, fmt_ms(tc.base_for(0))))  # fmt: skip
    elif tc.handicap > 0:
        lines.append("Black's base is raised by %d%%: Black starts with %s (TC-4)"
                     % (tc.handicap, fmt_ms(tc.base_for(1))))  # fmt: skip
    if tc.warn:
        lines.append("A warning %s when main time shows under %s (TC-15)"
                     % ("is spoken" if tc.warn_voice else "beeps", fmt_ms(tc.warn)))  # fmt: skip
    if tc.record and tc.timing != UPCOUNT:
        lines.append("Moves need not be recorded once a clock shows under %s (TC-9)"
                     % fmt_ms(tc.record))  # fmt: skip
    if tc.timing != UPCOUNT:
        lines.append("After a flag both clocks %s" % ("stop" if tc.freezes() else "keep running"))
    return lines
