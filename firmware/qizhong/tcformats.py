# SPDX-License-Identifier: GPL-3.0-or-later
"""Time controls in other shapes: the notation a spec was read in, PGN
``TimeControl`` and SGF ``TM``/``OT`` (docs/timecontrol.md); the display rows
are the menu's (``menuview.format_lines``).

Pure like the rest of the core, but not loaded by the clock: records are the
host's business, and the Pico's heap is small.
"""

from . import tcspec
from .tcspec import PRESETS, SpecError, _parse, _Reader, parse
from .timecontrol import BRONSTEIN, DELAY, FISCHER, HOURGLASS, UPCOUNT


def reading(text):
    """How ``parse`` reads ``text``: "us" (bare base times are minutes),
    "pgn" (``*180``: seconds) or "" (every time has its unit)."""
    if not isinstance(text, str) or text.strip().lower() in PRESETS:
        return ""
    r = _Reader(text, 0)
    tc = _parse(r)
    if r.bare_at < 0:
        return "pgn" if text.strip().startswith("*") else ""
    return "us" if r.us or tc.timing in (BRONSTEIN, DELAY) else ""


def to_pgn(tc):
    """PGN TimeControl (``1200+10``, ``40/5400+30:1800+30``, ``*180``).

    Raises ValueError for what PGN cannot say (delays, overtime, sub-seconds).
    """
    if (
        tc.overtime is not None
        or tc.timing in (BRONSTEIN, DELAY, UPCOUNT)
        or tc.handicap
        or tc.cap
        or tc.first
        or tc.second
        or any(st.timing >= 0 for st in tc.stages)
        or any(not st.moves for st in tc.stages[:-1])  # TC-10: no flag stages in PGN
    ):
        raise ValueError("PGN TimeControl cannot express %r" % tcspec.format(tc))
    for st in tc.stages:
        if st.base % 1000 or st.inc % 1000:
            raise ValueError("PGN TimeControl counts whole seconds")
    if tc.timing == HOURGLASS:
        return "*%d" % (tc.stages[0].base // 1000)
    out = []
    for st in tc.stages:
        s = "%d" % (st.base // 1000)
        if st.moves:
            s = "%d/%s" % (st.moves, s)
        if st.inc:
            s += "+%d" % (st.inc // 1000)
        out.append(s)
    return ":".join(out)


def from_pgn(text):
    """A PGN TimeControl tag value; None for ``?`` (unknown) and ``-`` (none)."""
    text = text.strip()
    if text in ("?", "-", ""):
        return None
    for ch in text:
        if ch not in "0123456789/+:*":
            raise SpecError("not a PGN TimeControl", text, text.index(ch))
    return _parse(_Reader(text, 1000))  # PGN: every bare number is seconds


def to_sgf(tc):
    """SGF ``(TM, OT)`` values: main time in seconds and the overtime text."""
    if (
        len(tc.stages) > 1
        or tc.timing != FISCHER
        or tc.handicap
        or tc.cap
        or tc.first
        or tc.second
        or tc.stages[0].timing >= 0
        or (tc.overtime is not None and tc.overtime.kind == "canadian" and tc.overtime.reset_blocks)
        or (tc.overtime is not None and tc.overtime.kind == "upcount")
        or (tc.overtime is not None and tc.overtime.kind == "canadian" and tc.overtime.step)
    ):
        raise ValueError("SGF TM/OT cannot express %r" % tcspec.format(tc))
    st = tc.stages[0]
    tm = "%d" % (st.base // 1000) if st.base % 1000 == 0 else "%.3f" % (st.base / 1000)
    ot = tc.overtime
    if ot is None:
        return tm, ("%d fischer" % (st.inc // 1000)) if st.inc else ""
    if st.inc:
        raise ValueError("SGF OT cannot combine an increment with overtime")
    if ot.kind == "byoyomi":
        return tm, "%dx%d byo-yomi" % (ot.count, ot.period // 1000)
    if ot.kind == "canadian":
        return tm, "%d/%d Canadian" % (ot.moves, ot.period // 1000)
    return tm, "%d count" % (ot.period // 1000)


def from_sgf(tm, ot=""):
    """Read SGF ``TM`` and ``OT`` (``3x60 byo-yomi``, ``15/600 Canadian``, ``10 fischer``)."""
    try:
        secs = float(tm) if tm else 0.0
    except ValueError:
        raise SpecError("TM is not a number", tm, 0)
    spec = "%dms" % int(secs * 1000 + 0.5)
    words = ot.strip().lower().replace("-", "").split()
    if not words:
        return parse(spec)
    head = words[0]
    kind = words[1] if len(words) > 1 else ""
    if kind == "byoyomi" and "x" in head:
        return parse(spec + " byoyomi " + head + "s")
    if kind == "canadian" and "/" in head:
        return parse(spec + " canadian " + head + "s")
    if kind == "fischer":
        return parse(spec + "+" + head + "s")
    if kind == "count":
        return parse(spec + " count " + head + "s")
    raise SpecError("unknown SGF overtime", ot, 0)
