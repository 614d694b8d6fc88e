# SPDX-License-Identifier: GPL-3.0-or-later
"""The one text syntax for time controls (docs/timecontrol.md).

    15m+10s                      TC-1 Xiangqi rapid
    40/90m+30s:30m+30s           FIDE classical, two stages
    20m count 10s                TC-5 Xiangqi voice count (grace 500ms)
    60m byoyomi 3x60s            TC-6 Go byo-yomi
    60m canadian 15/10m          TC-7 Canadian overtime
    5m upcount                   upcount as a stage: then the time over counts up
    5m delay 5s / 5m bronstein 3s / 3m hourglass
    10m+5s red -40%              TC-4 Red time handicap
    record 3m / record off       TC-9 threshold

The stage part is a superset of PGN's TimeControl (bare numbers are seconds),
so ``40/5400+30:1800+30`` parses too. ``parse`` raises ``SpecError`` with the
column of the mistake; ``format(parse(x))`` is canonical and parses back.
"""

from . import voice
from .timecontrol import (
    BRONSTEIN,
    DELAY,
    FISCHER,
    HOURGLASS,
    MAX_MS,
    RECORD_MS,
    UPCOUNT,
    ByoYomi,
    Canadian,
    Count,
    Overtime,  # noqa: F401 - named in a type comment
    Stage,
    TimeControl,
)

_UNITS = (("h", 3600000), ("ms", 1), ("m", 60000), ("s", 1000))
_MAX_MS = 100 * 3600000  # nothing on a game clock lasts 100 hours


class SpecError(ValueError):
    """A bad time-control spec. ``pos`` is the 0-based column of the problem."""

    def __init__(self, msg, text="", pos=0):
        super().__init__("%s (column %d)" % (msg, pos + 1))
        self.msg = msg
        self.text = text
        self.pos = pos

    def pointer(self):
        """The spec with a caret under the problem, for terminals."""
        return "%s\n%s^" % (self.text, " " * self.pos)


def _digit(ch):
    return "0" <= ch <= "9"  # ASCII only: str.isdigit also takes "¹" and "٣"


class _Reader:
    def __init__(self, text, bare=1000):
        self.orig = text
        low = text.lower()
        self.text = low if len(low) == len(text) else text  # units and words are case-blind
        self.i = 0
        # A bare base time's unit: 60000 (US notation: minutes), 1000 (PGN:
        # seconds), 0 (ours: ambiguous; read as seconds and noted in bare_at).
        self.bare = bare
        self.bare_at = -1
        self.us = False  # a US form was seen (G/, SD/, d5, inc30)

    def fail(self, msg, pos=-1):
        raise SpecError(msg, self.orig, self.i if pos < 0 else pos)

    def skip(self):
        t = self.text
        while self.i < len(t) and t[self.i] in " \t,;":
            self.i += 1

    def done(self):
        self.skip()
        return self.i >= len(self.text)

    def peek(self):
        return self.text[self.i] if self.i < len(self.text) else ""

    def take(self, ch):
        if self.peek() == ch:
            self.i += 1
            return True
        return False

    def word(self):
        self.skip()
        t = self.text
        j = self.i
        while j < len(t) and t[j].isalpha():
            j += 1
        w = t[self.i : j]
        self.i = j
        return w

    def int(self, what):
        t = self.text
        j = self.i
        while j < len(t) and _digit(t[j]):
            j += 1
        if j == self.i:
            self.fail("expected %s" % what)
        v = int(t[self.i : j])
        self.i = j
        return v

    def duration(self, what, base=False):
        """``1h30m``, ``90s``, ``500ms``; a bare number is seconds, or for a
        ``base`` time the reader's ``bare`` unit (#24)."""
        start = self.i
        if not _digit(self.peek()):
            self.fail("expected %s, such as 10m or 30s" % what)
        total = 0
        last = _MAX_MS
        while _digit(self.peek()):
            at = self.i
            n = self.int(what)
            unit = 0
            for name, ms in _UNITS:
                if self.text.startswith(name, self.i):
                    unit = ms
                    self.i += len(name)
                    break
            if self.peek().isalpha():
                self.fail("unknown time unit; use h, m, s or ms", at)
            if not unit:
                if at != start:
                    self.fail("a unit is missing", at)
                unit = 1000  # an increment, delay or period: seconds in every reading
                if base and n:
                    if self.bare:
                        unit = self.bare
                    elif self.bare_at < 0:
                        self.bare_at = at
            if unit >= last:
                self.fail("units go from large to small, as in 1h30m", at)
            last = unit
            total += n * unit
            if total > _MAX_MS:
                self.fail("%s is too long" % what, start)
            if at == start and not self.text[at : self.i].endswith(("s", "m", "h")):
                break  # a bare number stands alone
        return total


def parse(text):
    """Parse a spec (or a preset name) into a ``TimeControl``.

    A bare base time (``40/90:30``) is ambiguous in our notation: minutes
    as US arbiters write it, seconds as PGN does. It is read as minutes when
    the spec is in US notation (``G/``, ``SD/``, ``d5``, ``inc30``, or a delay,
    which PGN cannot say); otherwise refused with both readings (#24)."""
    if not isinstance(text, str):
        raise SpecError("a time control is text", "", 0)
    key = text.strip().lower()
    if key in PRESETS:
        text = PRESETS[key]
    r = _Reader(text, 0)
    tc = _parse(r)
    if r.bare_at < 0:
        return tc
    if r.us or tc.timing in (BRONSTEIN, DELAY):
        return _parse(_Reader(text, 60000))
    us = format(_parse(_Reader(text, 60000)))
    pgn = format(_parse(_Reader(text, 1000)))
    raise SpecError(
        "a time without its unit is ambiguous: %s (minutes, as US arbiters write it)"
        " or %s (seconds, as PGN writes it); write the units" % (us, pgn),
        text,
        r.bare_at,
    )


_US_STAGES = ("sd/", "game/", "g/")  # US: sudden death, game in


def _stage_next(r):
    # After a stage: ":" (ours), or US style a comma and a stage ("40/90, 30"),
    # or "SD/", "G/", "Game/". A comma before a number: clauses start with words.
    if r.take(":"):
        return True
    pos = r.i
    r.skip()
    t = r.text
    for us in _US_STAGES:
        if t.startswith(us, r.i):
            return True
    if r.i > pos and "," in t[pos : r.i] and _digit(r.peek()):
        r.us = True
        return True
    r.i = pos
    return False


def _parse(r):
    r.skip()
    if r.done():
        r.fail("empty time control")
    stages = []
    timing = FISCHER
    delay = 0
    if r.take("*"):  # PGN sandclock: "*180"
        r.bare = r.bare or 1000
        stages.append(Stage(r.duration("the hourglass time", True)))
        timing = HOURGLASS
    elif r.text.startswith("upcount", r.i):  # TC-13: no stages, the clocks count up
        r.word()
        stages.append(Stage(0))
        timing = UPCOUNT
    else:
        while True:
            pos = r.i
            moves = 0
            for us in _US_STAGES:
                if r.text.startswith(us, r.i):
                    r.i += len(us)
                    r.us = True
                    break
            if r.i > pos:
                pass
            elif _digit(r.peek()):
                moves = r.int("a move count")
                if r.take("/"):
                    if not 1 <= moves <= 999:
                        r.fail("a stage has 1 to 999 moves", pos)
                else:
                    moves = 0
                    r.i = pos
            base = r.duration("the base time", True)
            inc = 0
            st_timing = -1  # TC-11: +d5s, +b3s give this stage its own method
            st_delay = 0
            if r.take("+"):
                how = r.peek()
                if how in ("d", "b") and _digit(r.text[r.i + 1 : r.i + 2]):
                    r.i += 1
                    st_timing = DELAY if how == "d" else BRONSTEIN
                    st_delay = r.duration("the delay")
                    if st_delay <= 0:
                        r.fail("the delay must be positive", pos)
                else:
                    inc = r.duration("the increment")
            if stages and stages[-1].moves == 0 and any(st.moves for st in stages):
                r.fail("flag stages come first", pos)
            stages.append(Stage(base, inc, moves, st_timing, st_delay))
            if not _stage_next(r):
                break
    overtime = None  # type: Overtime | None
    handicap = 0
    record = RECORD_MS
    freeze = None
    cap = 0
    warn = 0
    warn_voice = False
    own = [0, 0]  # TC-16: first, second
    own_inc = [-1, -1]  # #31: their own increments (-1: the stage's)
    seen = []
    method = False  # bronstein, delay or hourglass given (d0 included)
    while not r.done():
        pos = r.i
        w = r.word()
        if not w:
            r.fail("unexpected %r: after the stages come words such as count or byoyomi" % r.peek())
        if w == "d":  # US: d5 is delay 5s, d0 no delay
            w = "delay"
            r.us = True
        if w in seen:
            r.fail("%r given twice" % w, pos)
        seen.append(w)
        r.skip()
        if w == "inc":  # US: G/60;inc30 - the increment of every stage
            r.us = True
            inc = r.duration("the increment")
            for st in stages:
                if st.inc:
                    r.fail("the increment is given twice", pos)
                st.inc = inc
        elif w in ("bronstein", "delay", "hourglass"):
            if timing != FISCHER or method:
                r.fail("only one of bronstein, delay or hourglass", pos)
            method = True
            if w == "hourglass":
                timing = HOURGLASS
            else:
                delay = r.duration("the delay")
                if delay > 0:
                    timing = BRONSTEIN if w == "bronstein" else DELAY
                elif w == "bronstein" or not r.us:  # US "d0": no delay (G/5;d0)
                    r.fail("the delay must be positive", pos)
        elif w in ("count", "byoyomi", "canadian", "upcount"):
            if overtime is not None:
                r.fail("only one overtime: count, byoyomi, canadian or upcount", pos)
            if w == "upcount":  # #31: upcount as a stage, after main time
                from .upcount import Upcount  # loaded only by those who use it

                overtime = Upcount()
            elif w == "count":
                period = r.duration("the count period")
                if not 1000 <= period <= 60000 or period % 1000:
                    r.fail("the count period is 1s to 60s in whole seconds", pos)
                grace = 500
                r.skip()
                if r.text.startswith("grace", r.i):
                    r.word()
                    r.skip()
                    grace = r.duration("the grace")
                    if grace > 5000:
                        r.fail("the grace is at most 5s", pos)
                overtime = Count(period, grace)
            elif w == "byoyomi":
                n = r.int("the number of periods")
                if not r.take("x"):
                    r.fail("expected 'x', as in byoyomi 3x60s")
                period = r.duration("the period")
                if not 1 <= n <= 99 or period < 1000 or period % 1000:
                    r.fail("byo-yomi is 1 to 99 periods of whole seconds", pos)
                overtime = ByoYomi(n, period)
            else:
                n = r.int("the number of moves")
                if not r.take("/"):
                    r.fail("expected '/', as in canadian 15/10m")
                period = r.duration("the block time")
                if not 1 <= n <= 999 or period < 1000:
                    r.fail("Canadian is 1 to 999 moves in at least 1s", pos)
                r.skip()
                step = 0
                if r.text.startswith("step", r.i):  # #31: progressive, step more a block
                    r.word()
                    r.skip()
                    step = r.int("the moves more a block")
                    if not 1 <= step <= 99:
                        r.fail("a Canadian step is 1 to 99 moves", pos)
                    r.skip()
                reset = r.text.startswith("reset", r.i)  # TC-12: each block afresh
                if reset:
                    r.word()
                overtime = Canadian(n, period, reset, step)
        elif w in ("red", "black"):
            sign = r.peek()
            if sign not in "+-" or not sign:
                r.fail("expected red -N% or black +N%")
            r.i += 1
            pct = r.int("a percentage")
            if not r.take("%"):
                r.fail("expected '%'")
            if (w == "red") != (sign == "-"):
                r.fail("TC-4 takes time from red (red -40%) or gives it to black (black +40%)", pos)
            if not 1 <= pct <= 90:
                r.fail("the handicap is 1% to 90%", pos)
            if handicap:
                r.fail("only one handicap", pos)
            handicap = -pct if w == "red" else pct
        elif w == "record":
            if r.text.startswith("off", r.i):
                r.word()
                record = 0
            else:
                record = r.duration("the recording threshold")
                if record < 1000:
                    r.fail("the recording threshold is 1s or more, or off", pos)
        elif w == "flag":
            how = r.word()
            if how not in ("freeze", "run"):
                r.fail("expected flag freeze or flag run", pos)
            freeze = how == "freeze"
        elif w == "cap":  # TC-14
            cap = r.duration("the cap")
        elif w == "warn":  # TC-15
            warn = r.duration("the warning threshold")
            if warn < 1000:
                r.fail("the warning threshold is 1s or more", pos)
            r.skip()
            if r.text.startswith("voice", r.i):
                r.word()
                warn_voice = True
                if warn_cue(warn) < 0:
                    r.fail("no voice for that warning", pos)
        elif w in ("first", "second"):  # TC-16
            t = r.duration("the base time")
            if not 1000 <= t <= MAX_MS:
                r.fail("a side's base is 1s to 100h", pos)
            own[w == "second"] = t
            if r.take("+"):  # #31: first 6m+3s, its own increment too
                own_inc[w == "second"] = r.duration("the increment")
        else:
            r.fail("unknown word %r" % w, pos)
    for st in stages:
        how = timing if st.timing < 0 else st.timing
        if how != FISCHER and st.inc:
            r.fail(
                "an increment cannot be combined with %s"
                % ("bronstein", "delay", "hourglass", "upcount")[how - 1],
                0,
            )
    if timing in (HOURGLASS, UPCOUNT) and any(st.timing >= 0 for st in stages):
        r.fail("a stage delay needs main time", 0)
    if max(own_inc) >= 0 and (timing != FISCHER or stages[0].timing >= 0):
        r.fail("a side's own increment needs Fischer", 0)
    if cap and (timing != FISCHER or (not any(st.inc for st in stages) and max(own_inc) <= 0)):
        r.fail("a cap needs an increment", 0)
    if cap and cap < max(stages[0].base, own[0], own[1]):
        r.fail("the cap is at least the base", 0)
    if (own[0] or own[1]) and handicap:
        r.fail("own time or handicap", 0)
    if timing == UPCOUNT and (overtime is not None or own[0] or own[1] or handicap or warn):
        r.fail("an upcount has no more", 0)
    if timing == HOURGLASS and (len(stages) > 1 or stages[0].moves):
        r.fail("an hourglass has one stage and no move count", 0)
    if timing == HOURGLASS and overtime is not None:
        r.fail("an hourglass has no overtime", 0)
    for st in stages:
        if st.base <= 0 and (overtime is None or len(stages) > 1) and timing != UPCOUNT:
            r.fail("a stage needs time", 0)
    return TimeControl(
        stages, timing, delay, overtime, handicap, record, freeze, cap, warn, warn_voice,
        own[0], own[1], own_inc[0], own_inc[1],
    )  # fmt: skip


def warn_cue(ms):
    """The voice cue that says a TC-15 threshold (1m: "1分", 30s: "30秒"), or -1."""
    if ms == 60000:
        return voice.MIN1
    if ms % 1000 == 0 and ms // 1000 in (10, 20, 30, 40, 50, 55, 58):
        return voice.SEC + ms // 1000
    return -1


def fmt_ms(ms, seconds=True):
    """A duration as players write it: 30s, 60s, 90s, 15m, 90m, 2h, 2m30s, 500ms.

    Below 2 minutes whole seconds read best for periods and increments
    (``seconds``); a base time of whole minutes reads best in minutes (1m).
    """
    if ms % 1000 == 0:
        sec = ms // 1000
        if sec < 120 and (seconds or sec % 60):
            return "%ds" % sec
        if sec % 60 == 0:
            mins = sec // 60
            if mins % 60 == 0 and mins >= 120:
                return "%dh" % (mins // 60)
            return "%dm" % mins
    out = ""
    for name, unit in (("h", 3600000), ("m", 60000), ("s", 1000), ("ms", 1)):
        if ms >= unit:
            out += "%d%s" % (ms // unit, name)
            ms %= unit
    return out


def format(tc):  # noqa: A001 - the module's verb, as in tcspec.format
    """The canonical spec of a ``TimeControl``."""
    return " ".join(_parts(tc))


def _parts(tc, split_stages=False):
    parts = []
    if tc.timing == HOURGLASS:
        parts.append(fmt_ms(tc.stages[0].base, False) + " hourglass")
    elif tc.timing == UPCOUNT:
        parts.append("upcount")
    else:
        stages = []
        for st in tc.stages:
            s = fmt_ms(st.base, False)
            if st.moves:
                s = "%d/%s" % (st.moves, s)
            if st.inc:
                s += "+" + fmt_ms(st.inc)
            if st.timing == DELAY or st.timing == BRONSTEIN:  # TC-11
                s += "+" + ("d" if st.timing == DELAY else "b") + fmt_ms(st.delay)
            stages.append(s)
        if split_stages:
            parts.append(stages[0])
            parts.extend(":" + s for s in stages[1:])
        else:
            parts.append(":".join(stages))
    if tc.timing == BRONSTEIN:
        parts.append("bronstein " + fmt_ms(tc.delay))
    elif tc.timing == DELAY:
        parts.append("delay " + fmt_ms(tc.delay))
    ot = tc.overtime
    if ot is not None:
        if ot.kind == "count":
            s = "count " + fmt_ms(ot.period)
            if ot.grace != 500:
                s += " grace " + fmt_ms(ot.grace)
            parts.append(s)
        elif ot.kind == "byoyomi":
            parts.append("byoyomi %dx%s" % (ot.count, fmt_ms(ot.period)))
        elif ot.kind == "upcount":
            parts.append("upcount")
        else:
            s = "canadian %d/%s" % (ot.moves, fmt_ms(ot.period, False))
            if ot.step:
                s += " step %d" % ot.step
            parts.append(s + " reset" if ot.reset_blocks else s)
    if tc.handicap < 0:
        parts.append("red -%d%%" % -tc.handicap)
    elif tc.handicap > 0:
        parts.append("black +%d%%" % tc.handicap)
    if tc.record != RECORD_MS:
        parts.append("record " + (fmt_ms(tc.record, False) if tc.record else "off"))
    if tc.freeze is not None:
        parts.append("flag freeze" if tc.freeze else "flag run")
    if tc.cap:
        parts.append("cap " + fmt_ms(tc.cap, False))
    if tc.warn:
        parts.append("warn " + fmt_ms(tc.warn, False) + (" voice" if tc.warn_voice else ""))
    for word, v, inc in (("first", tc.first, tc.first_inc), ("second", tc.second, tc.second_inc)):
        if v:
            parts.append(word + " " + fmt_ms(v, False) + ("+" + fmt_ms(inc) if inc >= 0 else ""))
    return parts


# -- presets -------------------------------------------------------------------

# name: spec (what each is: qizhong.timecontrol.PRESETS, on the host)
PRESETS = {
    "xq-rapid": "15m+10s",
    "xq-rapid-20": "20m+10s",
    "xq-rapid-25": "25m+10s",
    "xq-rapid-30": "30m+10s",
    "xq-blitz": "5m+5s",
    "xq-blitz-10": "10m+5s",
    "xq-count": "20m count 10s",
    "sudden-death": "30m",
    "armageddon": "10m+5s red -40%",
    "armageddon-black": "10m+5s black +40%",
    "armageddon-chess": "5m+2s second 4m",
    "go-can-reset": "60m canadian 25/10m reset",
    "league": "75m:15m",
    "fide-delay": "40/90m:30m+d30s",
    "fischer-cap": "10m+10s cap 10m",
    "upcount": "upcount",
    "go-byoyomi": "60m byoyomi 3x60s",
    "go-byoyomi-30": "30m byoyomi 5x30s",
    "go-canadian": "60m canadian 15/10m",
    "fide": "40/90m+30s:30m+30s",
    "rapid": "15m+10s",
    "blitz": "3m+2s",
    "bronstein": "5m bronstein 3s",
    "us-delay": "5m delay 5s",
    "hourglass": "3m hourglass",
}
