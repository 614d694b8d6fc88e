# SPDX-License-Identifier: GPL-3.0-or-later
"""The clock in a terminal: ``qizhong demo SPEC`` (``make sim``).

``Demo`` is the whole demo without a terminal: it takes keys and integer-ms
times from its caller and never reads a clock, so tests drive it exactly.
``main`` is the thin live part: cbreak mode, ``select`` on stdin until the
clock's next deadline (or the next redraw), ``time.monotonic_ns`` as the ms
source, ANSI redraws in place.

Keys: those of ``make sim`` (``sim/keys``): ``a``/``l`` the left/right lever
(a press; the release follows at once), space start/pause/resume, ``k``
knock the clock over (EQ-5), ``+``/``-`` once knocked over: the left/right
player did it (the opponent gets 60 s), ``n`` a new game, ``q`` quit. The
core has no setup menu (``m``, ``o``: the firmware's, in ``make sim``); while
paused, ``+``/``-`` add/take 60 s for the side to move (the arbiter's
correction, EQ-7).
"""

from __future__ import annotations

import os
import select
import signal
import sys
import termios
import time
import tty
import unicodedata
from collections.abc import Callable, Sequence
from types import FrameType

from qizhong.core import clock, cuenames, tcspec
from qizhong.core.timecontrol import BRONSTEIN, DELAY, FISCHER, HOURGLASS, TimeControl
from qizhong.sim import keys

# -- the big digits --------------------------------------------------------------

# A 5-row block font. Every digit is 4 columns wide and has ink in its last
# column, so right-aligned text can be read back from its right edge (the
# tests do). ':' and '.' are 1 column wide; glyphs are 1 column apart.
FONT: dict[str, tuple[str, ...]] = {
    "0": ("████", "█  █", "█  █", "█  █", "████"),
    "1": ("   █", "   █", "   █", "   █", "   █"),
    "2": ("████", "   █", "████", "█   ", "████"),
    "3": ("████", "   █", "████", "   █", "████"),
    "4": ("█  █", "█  █", "████", "   █", "   █"),
    "5": ("████", "█   ", "████", "   █", "████"),
    "6": ("████", "█   ", "████", "█  █", "████"),
    "7": ("████", "   █", "   █", "   █", "   █"),
    "8": ("████", "█  █", "████", "█  █", "████"),
    "9": ("████", "█  █", "████", "   █", "████"),
    ":": (" ", "█", " ", "█", " "),
    ".": (" ", " ", " ", " ", "█"),
}
FONT_ROWS = 5
GLYPH_GAP = " "


def big(text: str) -> list[str]:
    """``text`` (digits, ':' and '.') as FONT_ROWS rows of block glyphs."""
    glyphs = [FONT[ch] for ch in text]
    return [GLYPH_GAP.join(g[row] for g in glyphs) for row in range(FONT_ROWS)]


TENTHS_BELOW_MS = 20000


def fmt_clock(ms: int) -> str:
    """What a clock face shows for ``ms`` left.

    Rounding rule: always down (floor), to the tenth under 20 s and to the
    second otherwise. The face therefore never shows more time than is left:
    19.999 s shows "19.9", 20.999 s shows "0:20", 60 s shows "1:00" and
    59.999 s "0:59". The price is that "0.0" shows for the last 99 ms (and
    through a count's grace) before the flag falls; the FLAG mark, not the
    digits, says the time is out.

    Formats: H:MM:SS from one hour, M:SS from 20 s, S.t below.
    """
    if ms < 0:
        ms = 0
    if ms < TENTHS_BELOW_MS:
        return "%d.%d" % (ms // 1000, ms % 1000 // 100)
    secs = ms // 1000
    if secs >= 3600:
        return "%d:%02d:%02d" % (secs // 3600, secs // 60 % 60, secs % 60)
    return "%d:%02d" % (secs // 60, secs % 60)


def fmt_stamp(ms: int) -> str:
    """A log timestamp, game time since the start: ``01:23.456``."""
    if ms < 0:
        ms = 0
    return "%02d:%02d.%03d" % (ms // 60000, ms // 1000 % 60, ms % 1000)


def _signed(ms: int) -> str:
    return ("+" if ms >= 0 else "-") + tcspec.fmt_ms(abs(ms))


# -- text layout -------------------------------------------------------------------


def width(text: str) -> int:
    """Terminal columns of ``text``: CJK and emoji take two."""
    n = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        n += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return n


def fit(text: str, cols: int) -> str:
    """``text`` cut or padded with spaces to exactly ``cols`` columns."""
    out = []
    n = 0
    for ch in text:
        w = width(ch)
        if n + w > cols:
            break
        out.append(ch)
        n += w
    return "".join(out) + " " * (cols - n)


def spread(left: str, right: str, cols: int) -> str:
    """``left`` and ``right`` on one line of ``cols`` columns."""
    gap = cols - width(left) - width(right)
    if gap < 1:
        return fit(left, cols)
    return left + " " * gap + right


def keys_from_bytes(data: bytes) -> list[str]:
    """The keys in a read from the terminal; escape sequences (arrows, F-keys) dropped."""
    text = data.decode("utf-8", "ignore")
    keys: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        i += 1
        if ch != "\x1b":
            keys.append(ch)
            continue
        if i < len(text) and text[i] in "[O":  # CSI / SS3: skip up to the final byte
            i += 1
            while i < len(text) and not "\x40" <= text[i] <= "\x7e":
                i += 1
            i += 1
    return keys


# -- the demo ------------------------------------------------------------------------

_Action = Callable[[int], object]  # a key's action at t


class Demo:
    """The terminal clock over injected time: keys in, screens out."""

    FACE_W = 36  # columns inside a face's frame
    SCREEN_W = 2 * (FACE_W + 2) + 1
    LOG_SHOWN = 6
    LOG_KEEP = 500
    ADJUST_MS = 60000  # what + and - give or take
    HELP = keys.HELP

    def __init__(self, tc: TimeControl, names: Sequence[str] = ("Red", "Black")) -> None:
        self.tc = tc
        self.names = (str(names[0]), str(names[1]))
        self.spec = tcspec.format(tc)
        self.clock = clock.Clock(tc)
        self.log: list[str] = []
        self.message = ""  # the last refusal or notice, until the next key
        self.origin = -1  # ms of the game's start: log times count from it
        self._name_w = max(width(n) for n in self.names)

    # -- input -----------------------------------------------------------------

    def tick(self, t: int) -> None:
        """Bring the clock up to ``t``, logging what happened on the way.

        Deadline by deadline, so a long gap cannot overflow the clock's event ring.
        """
        c = self.clock
        while True:
            d = c.next_deadline()
            if d < 0 or d > t:
                break
            c.tick(d)
            self._drain()
        c.tick(t)
        self._drain()

    def handle_key(self, key: str, t: int) -> bool:
        """One key at ``t``. False means quit. Unknown keys change nothing."""
        if key in keys.QUIT:
            return False
        action = self._actions().get(key)
        if action is None:
            return True
        self.tick(t)
        self.message = ""
        try:
            action(t)
        except clock.ClockError as e:
            self.message = "refused: %s" % e
        self._drain()
        return True

    def _actions(self) -> dict[str, _Action]:
        return {
            "a": lambda t: self._lever(0, t),
            "l": lambda t: self._lever(1, t),
            " ": self._space,
            "k": self.clock.knock,
            "+": lambda t: self._plus_minus(0, t),
            "=": lambda t: self._plus_minus(0, t),  # + without shift
            "-": lambda t: self._plus_minus(1, t),
            "m": self._no_menu,
            "o": self._no_menu,
            "n": self._reset,
        }

    def _plus_minus(self, lever: int, t: int) -> None:
        """Knocked over: the left (+) or right (-) player did it; paused: ±60 s."""
        if self.clock.state == clock.KNOCKED:
            self._assign(lever, t)
        else:
            self._adjust(self.ADJUST_MS if lever == 0 else -self.ADJUST_MS, t)

    def _no_menu(self, t: int) -> None:
        self.message = "the setup menu is the firmware's: make sim (here: qizhong demo SPEC)"

    def _lever(self, lever: int, t: int) -> None:
        side = self.clock.side_of_lever(lever)
        self.clock.press(side, t)
        self.clock.release(side, t)  # a tap: never held long enough for EQ-3

    def _space(self, t: int) -> None:
        c = self.clock
        if c.state == clock.IDLE:
            c.start(t, 0)
        elif c.state == clock.RUNNING:
            c.pause(t)
        else:
            c.resume(t)

    def _assign(self, lever: int, t: int) -> None:
        side = self.clock.side_of_lever(lever)
        self.clock.assign_knock(side, t)
        self.message = "%s knocked the clock: %s %s" % (
            self.names[side],
            self.names[1 - side],
            _signed(self.clock.KNOCK_BONUS_MS),
        )

    def _adjust(self, delta: int, t: int) -> None:
        c = self.clock
        if c.state not in (clock.PAUSED, clock.KNOCKED) or c.run < 0:
            self.message = "pause the clock first (space) to correct a time"
            return
        c.adjust(c.run, delta, t)

    def _reset(self, t: int) -> None:
        self.clock = clock.Clock(self.tc, self.clock.left_side)  # same levers (EQ-1)
        self.origin = -1
        self._add("—— new game: %s ——" % self.spec)

    # -- the log ---------------------------------------------------------------

    def _add(self, line: str) -> None:
        self.log.append(line)
        if len(self.log) > self.LOG_KEEP:
            del self.log[: len(self.log) - self.LOG_KEEP]

    def _drain(self) -> None:
        c = self.clock
        while True:
            kind = c.pop_event()
            if not kind:
                return
            if kind == clock.EV_START and self.origin < 0:
                self.origin = c.ev_t
            self._add(self._event_line(kind, c.ev_side, c.ev_t, c.ev_arg))

    def _name(self, side: int) -> str:
        return self.names[side] if side in (0, 1) else "—"

    def _event_line(self, kind: int, side: int, t: int, arg: int) -> str:
        stamp = fmt_stamp(t - self.origin if self.origin >= 0 else 0)
        if kind == clock.EV_CUE:
            return "%s 🔊 %s: %s" % (stamp, self._name(side), cuenames.cue_text(arg))
        detail = ""
        if kind == clock.EV_PRESS:
            detail = fmt_clock(arg)
        elif kind == clock.EV_WRONG:
            detail = "not on move" if arg == clock.RUNNING else clock.STATE_NAMES[arg]
        elif kind == clock.EV_FLAG:
            detail = "fell first" if arg else "fell"
        elif kind == clock.EV_OVERTIME:
            detail = self._ot_rule()
        elif kind == clock.EV_PERIOD:
            detail = "%d left" % arg
        elif kind == clock.EV_STAGE:
            detail = "stage %d" % (arg + 1)
        elif kind == clock.EV_RECORD:
            detail = "under %s: recording optional for both (TC-9)" % tcspec.fmt_ms(self.tc.record)
        elif kind == clock.EV_HELD:
            detail = "%d ms" % arg
        elif kind == clock.EV_KNOCK:
            detail = "clock knocked over"
        elif kind == clock.EV_PENALTY:
            detail = _signed(arg)
        elif kind == clock.EV_SET:
            detail = fmt_clock(arg)
        name = self._name(side)
        name += " " * (self._name_w - width(name))
        return ("%s %s  %-7s %s" % (stamp, name, clock.EVENT_NAMES[kind], detail)).rstrip()

    # -- the screen ------------------------------------------------------------

    def shown(self, side: int, t: int) -> str:
        """The digits on ``side``'s face at ``t`` (see ``fmt_clock`` for rounding)."""
        return fmt_clock(self.clock.left(side, t))

    def render(self, t: int) -> str:
        """The whole screen at ``t`` as plain text (it brings the clock up to ``t`` first)."""
        self.tick(t)
        c = self.clock
        w = self.SCREEN_W
        title = " 棋钟 qizhong demo   %s" % self.spec
        lines = [spread(title, clock.STATE_NAMES[c.state].upper() + " ", w)]
        left = self._face(c.side_of_lever(0), t)
        right = self._face(c.side_of_lever(1), t)
        for a, b in zip(left, right, strict=True):
            lines.append(a + " " + b)
        lines.append(" " + self._status())
        lines.append(" ! " + self.message if self.message else "")
        lines.append("─ log " + "─" * (w - 6))
        shown = self.log[-self.LOG_SHOWN :]
        lines.extend(" " + line for line in shown)
        lines.extend("" for _ in range(self.LOG_SHOWN - len(shown)))
        lines.append("─" * w)
        lines.extend(" " + h for h in self.HELP)
        return "\n".join(lines)

    def _face(self, side: int, t: int) -> list[str]:
        c = self.clock
        s = c.sides[side]
        fw = self.FACE_W
        mark = "▶" if side == c.run else " "
        rows = [spread(" %s %s" % (mark, self.names[side]), "moves %d " % s.moves, fw), ""]
        for row in big(self.shown(side, t)):  # right-aligned, as on a clock
            rows.append(" " * max(0, fw - 3 - width(row)) + row)
        rows.append("")
        rows.append(" " + self._main_info(side))
        rows.append(" " + self._ot_info(side))
        rows.append(" " + self._marks(side))
        if side == c.run and c.state == clock.RUNNING:  # the running face: heavy frame
            h, v, tl, tr, bl, br = "━", "┃", "┏", "┓", "┗", "┛"
        else:
            h, v, tl, tr, bl, br = "─", "│", "┌", "┐", "└", "┘"
        out = [tl + h * fw + tr]
        out.extend(v + fit(r, fw) + v for r in rows)
        out.append(bl + h * fw + br)
        return out

    def _main_info(self, side: int) -> str:
        """How main time runs for ``side``: stage, increment or delay, handicap."""
        tc = self.tc
        s = self.clock.sides[side]
        st = tc.stages[s.stage]
        parts = []
        if tc.timing == HOURGLASS:
            parts.append("hourglass")
        if len(tc.stages) > 1:
            parts.append("stage %d/%d" % (s.stage + 1, len(tc.stages)))
        if st.moves:
            parts.append("%d to go" % (st.moves - s.smoves))
        if tc.timing == FISCHER and st.inc:
            parts.append("+%s a move" % tcspec.fmt_ms(st.inc))
        elif tc.timing == BRONSTEIN:
            parts.append("bronstein %s" % tcspec.fmt_ms(tc.delay))
        elif tc.timing == DELAY:
            parts.append("delay %s" % tcspec.fmt_ms(tc.delay))
        h = tc.handicap
        if (h < 0 and side == 0) or (h > 0 and side == 1):
            parts.append("handicap %+d%%" % h)
        if not parts and tc.overtime is None:
            parts.append("sudden death")
        return " · ".join(parts)

    def _ot_rule(self) -> str:
        ot = self.tc.overtime
        if ot is None:
            return ""
        if ot.kind == "count":
            return "count %s a move" % tcspec.fmt_ms(ot.period)
        if ot.kind == "byoyomi":
            return "byo-yomi %d×%s" % (ot.count, tcspec.fmt_ms(ot.period))
        if ot.kind == "upcount":
            return "upcount: the time over counts up"
        return "canadian %d moves in %s" % (ot.moves, tcspec.fmt_ms(ot.period))

    def _ot_info(self, side: int) -> str:
        """Overtime: what comes, or the indicator and what is left of it."""
        ot = self.tc.overtime
        if ot is None:
            return ""
        s = self.clock.sides[side]
        if ot.kind == "count":
            if s.ot:
                return "COUNT 读秒 %s a move" % tcspec.fmt_ms(ot.period)
            return "then " + self._ot_rule()
        if ot.kind == "byoyomi":
            if s.ot and s.periods == 1:
                return "BYO-YOMI 读秒 last period (1 of %d)" % ot.count
            text = "%d of %d periods left" % (s.periods, ot.count)
            return ("BYO-YOMI 读秒 " if s.ot else "byo-yomi: ") + text
        if ot.kind == "upcount":
            return "UPCOUNT %s over" % tcspec.fmt_ms(s.oc) if s.ot else "then " + self._ot_rule()
        if s.ot:
            return "CANADIAN %d moves left in block" % s.left
        return "then " + self._ot_rule()

    def _marks(self, side: int) -> str:
        c = self.clock
        s = c.sides[side]
        parts = []
        if s.flagged:
            parts.append("⚑ FLAG, fell first" if c.first_flag == side else "⚑ FLAG")
        if (s.recorded or c.sides[1 - side].recorded) and not s.flagged:  # TC-9: both
            parts.append("✎ REC optional")
        if c.knocker == side and c.state == clock.KNOCKED:
            parts.append("knocked it")
        return "  ".join(parts)

    def _status(self) -> str:
        c = self.clock
        st = c.state
        mover = self._name(c.run)
        if st == clock.IDLE:
            first = self.names[0]
            return "Ready: space starts %s's clock; a lever starts the other side's." % first
        if st == clock.RUNNING:
            text = "%s to move." % mover
            if c.first_flag >= 0:
                text += " %s's flag fell first; play goes on." % self._name(c.first_flag)
            return text
        if st == clock.PAUSED:
            return "Paused, %s to move: +/- corrects %s's time, space resumes." % (mover, mover)
        if st == clock.KNOCKED:
            if c.knocker < 0:
                return (
                    "Knocked over (EQ-5): +/- = left/right did it (opponent +60s); space resumes."
                )
            return "Clock knocked over by %s: space resumes." % self._name(c.knocker)
        if st == clock.FLAGGED:
            return "Flag! %s fell first. n: new game." % self._name(c.first_flag)
        return "Game over. n: new game."


# -- the terminal ------------------------------------------------------------------

REDRAW_MS = 100
_ENTER = "\x1b[?1049h\x1b[?25l"  # alternate screen, cursor hidden
_LEAVE = "\x1b[?25h\x1b[?1049l"  # cursor shown, main screen back
_HOME = "\x1b[H"
_EOL = "\x1b[K"  # clear to the end of the line
_EOS = "\x1b[J"  # clear to the end of the screen


def _now_ms() -> int:
    return time.monotonic_ns() // 1_000_000


def _write(text: str) -> None:
    out = sys.stdout.buffer
    out.write(text.encode("utf-8"))
    out.flush()


def _frame(screen: str) -> str:
    """One redraw in place: home, each line cleared to its end, the rest cleared."""
    return _HOME + (_EOL + "\n").join(screen.split("\n")) + _EOL + _EOS


class _Stop(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def _on_signal(signum: int, frame: FrameType | None) -> None:
    raise _Stop(128 + signum)


def main(spec: str) -> int:
    """``qizhong demo SPEC``: 0 after q, 2 for a bad spec, 1 without a terminal."""
    try:
        tc = tcspec.parse(spec)
    except tcspec.SpecError as e:
        print("qizhong demo: bad time control: %s" % e, file=sys.stderr)
        print(e.pointer(), file=sys.stderr)
        return 2
    stdin = sys.stdin
    if stdin is None or not stdin.isatty():
        print(
            "qizhong demo: the demo needs an interactive terminal (stdin is not a tty)",
            file=sys.stderr,
        )
        return 1
    fd = stdin.fileno()
    saved = termios.tcgetattr(fd)
    handlers = {}
    for sig in (signal.SIGTERM, signal.SIGHUP):  # restore the terminal on these too
        try:
            handlers[sig] = signal.signal(sig, _on_signal)
        except ValueError:  # not the main thread: leave signals alone
            break
    demo = Demo(tc)
    code = 0
    try:
        tty.setcbreak(fd)
        _write(_ENTER)
        code = _loop(demo, fd)
    except KeyboardInterrupt:
        code = 130
    except _Stop as e:
        code = e.code
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        for sig, old in handlers.items():
            signal.signal(sig, old)
        _write(_LEAVE)
    now = _now_ms()
    c = demo.clock
    print(
        "qizhong demo: %s  %s %s  %s %s"
        % (
            demo.spec,
            demo.names[0],
            fmt_clock(c.left(0, now)),
            demo.names[1],
            fmt_clock(c.left(1, now)),
        )
    )
    return code


def _loop(demo: Demo, fd: int) -> int:
    last = ""
    while True:
        now = _now_ms()
        screen = demo.render(now)
        if screen != last:
            _write(_frame(screen))
            last = screen
        wait = REDRAW_MS
        deadline = demo.clock.next_deadline()
        if deadline >= 0:
            wait = max(0, min(wait, deadline - now))
        ready, _, _ = select.select([fd], [], [], wait / 1000)
        if not ready:
            continue
        data = os.read(fd, 256)
        if not data:  # end of input
            return 0
        for key in keys_from_bytes(data):
            if not demo.handle_key(key, _now_ms()):
                return 0
