# SPDX-License-Identifier: GPL-3.0-or-later
"""The arbiter's game session: one clock, one record, the rules between them.

    from qizhong import Clock
    from qizhong.arbiter import XiangqiSession

    clock = Clock("/dev/ttyACM0")
    game = XiangqiSession(clock, "xq-rapid", red="吕钦", black="许银川")
    game.start()                      # Red's clock runs
    game.move("炮二平五")             # entered as Red makes it ...
    for note in game.poll(1.0):       # ... and paired with Red's press
        print(note)
    game.claim_natural_limit("black")  # XQ-R20: checked on this record (XQ-R24)
    print(game.pgn())

A session binds a ``Clock`` (the driver) to a rules engine's record. The
arbiter enters each move as it is made; the clock's press that ends it is
paired with it, and gives the move its time used and the mover's time left
(the press event's own times, from the lever interrupt). Everything the rules
make of the clock is applied with the clock's times and sent back to it:
penalties, the knock bonus (EQ-5), a restored turn after a press without a
move (XQ-R19), and at the end ``finish`` with the result, which the displays
show (WIN / LOSS / DRAW).

Sides are ints as on the clock: 0 moves first (Red; Black in Go), 1 second.
Every action returns the ``Notice`` list it caused (rulings, the end, and
whatever the clock reported meanwhile); ``poll`` returns the notices of clock
events as they come. A refused action raises ``ArbiterError`` and changes
nothing.

Xiangqi (RULES.md §3) here: XQ-R15 (results), R16 (draws: agreement, a true
natural-move-limit claim, a flag against no mating material, repetition on a
claim), R17 (two fouls lose), R18 (draw-offer count), R19 (a press without a
move), R20 (false natural-move-limit claims), R22/R23 (drawn knock-outs),
R24 (claims decided on this record), R25 (phones), R27 (rounds a day), with
EQ-2, EQ-3, EQ-5 and TC-9 from the clock. The Go session is
``qizhong.arbiter_go.GoSession``.
"""

from __future__ import annotations

import dataclasses
import os
import unicodedata
from collections.abc import Callable
from typing import ClassVar

from . import timecontrol
from .core import voice
from .core.timecontrol import DELAY
from .driver import DRAW, Clock, CommandError
from .link import Event
from .rules import xiangqi, xiangqi_pgn
from .timecontrol import fmt_clock

__all__ = [
    "ArbiterError",
    "GameSession",
    "Notice",
    "Played",
    "Press",
    "Result",
    "XiangqiSession",
    "rounds_per_day_limit",
]

ONE_MINUTE = 60000  # XQ-R19: under this on either clock, a press without a move loses
FALSE_CLAIM_MS = 120000  # XQ-R20: taken from a false claimant


class ArbiterError(ValueError):
    """An action the session refuses (bad input, or not possible now); nothing changed."""


@dataclasses.dataclass(frozen=True)
class Notice:
    """Something for the arbiter: ``kind`` is move, rule, foul, end, warn, info or cue."""

    kind: str
    text: str
    rule: str = ""

    def __str__(self) -> str:
        return "%s (%s)" % (self.text, self.rule) if self.rule else self.text


@dataclasses.dataclass(frozen=True)
class Press:
    """A press of the clock that switched it: the press event's own times.

    ``used``: running ms of the move it ended (pauses and knocks left out);
    ``left``: both sides' ms just after it; ``before``: the presser's ms just
    before it (without the increment or credit it added). In overtime,
    ``count`` is the presser's byo-yomi periods left or Canadian moves left in
    the block.
    """

    seq: int
    t: int
    side: int
    left: tuple[int, int]
    used: int
    before: int
    overtime: bool = False
    count: int | None = None


@dataclasses.dataclass
class Played:
    """A move in the record, and the press it was paired with (None until it comes)."""

    ply: int  # 1 for the first move
    side: int
    text: str  # as the record writes it (记谱, or a GTP vertex)
    press: Press | None = None
    end_ms: int | None = None  # the mover's time when the game ended before its press
    end_count: int | None = None  # and its overtime count then (see ``Press.count``)

    @property
    def clock_ms(self) -> int | None:
        """The mover's time left after the move."""
        return self.press.left[self.side] if self.press else self.end_ms

    @property
    def used_ms(self) -> int | None:
        return self.press.used if self.press else None

    @property
    def overtime_count(self) -> int | None:
        """Periods or Canadian moves left after the move, in overtime (SGF OB/OW)."""
        return self.press.count if self.press else self.end_count


@dataclasses.dataclass(frozen=True)
class Result:
    """The end: ``winner`` 0, 1 or None for a draw; why, and the rule that says so."""

    winner: int | None
    reason: str
    rule: str = ""
    termination: str = "normal"  # PGN Termination: normal, time forfeit, rules infraction...


def rounds_per_day_limit(tc: timecontrol.TimeControl | str) -> int | None:
    """XQ-R27: the most rounds a day at this control, or None if it is not rapid play.

    Base up to 10 min: 10 rounds; up to 20 min: 8; up to 30 min: 5
    (**Interpretation**: the rule names 5-10, 15-20 and 30 min; a base between
    two brackets takes the stricter one above it).
    """
    control = timecontrol.parse(tc) if isinstance(tc, str) else tc
    base = control.stages[0].base
    for most, rounds in ((10 * ONE_MINUTE, 10), (20 * ONE_MINUTE, 8), (30 * ONE_MINUTE, 5)):
        if base <= most:
            return rounds
    return None


class GameSession:
    """What every game shares: the clock's events, presses paired with moves, the end.

    Subclasses give the board, the names of the sides and the rules.
    """

    SIDES: ClassVar[tuple[str, str]] = ("first", "second")
    SIDE_WORDS: ClassVar[dict[str, int]] = {}

    def __init__(self, clock: Clock, spec: str, *, left: int, configure: bool = True) -> None:
        try:
            self.tc = timecontrol.parse(spec)
        except timecontrol.SpecError as e:
            raise ArbiterError("bad time control: %s" % e.msg) from None
        self.spec = timecontrol.spec_of(self.tc)
        self.clock = clock
        self.left_side = left
        if configure:
            st = clock.status()
            if st.state in ("running", "paused", "knocked"):
                raise ArbiterError("the clock is in a game (%s): finish that game first" % st.state)
            clock.configure(self.spec)
            clock.levers(left)
        while clock.events(0):  # what happened before this game is not its business
            pass
        st = clock.status()
        self._last_t = st.t
        self._last_left = st.left
        self.periods = list(st.periods)  # byo-yomi periods left
        self.overtime = [False, False]
        ot = self.tc.overtime
        self._block_moves = ot.moves if ot is not None and ot.kind == "canadian" else 0
        self.block = [self._block_moves, self._block_moves]  # Canadian moves left
        self.run = -1  # the side whose clock runs (or would, when paused)
        self.running = False
        self._since = 0
        self._acc = 0
        self.started = False
        self.knocked = False  # EQ-5: knocked over, waiting for the arbiter
        self.played: list[Played] = []
        self.presses: list[Press] = []
        self._open: list[Press] = []  # presses no move was entered for yet
        self.fouls = [0, 0]
        self.result: Result | None = None
        self.notes: dict[int, list[str]] = {}  # ply -> comments for the record
        self.log: list[Notice] = []
        self._out: list[Notice] = []
        self._cut = -1  # the side a penalty is being taken from (a flag then is its loss)

    # -- sides -----------------------------------------------------------------------

    def side(self, who: int | str) -> int:
        """A side from 0/1 or a name (``red``, ``r``, ``红``...)."""
        if isinstance(who, int) and who in (0, 1):
            return who
        if isinstance(who, str):
            key = who.strip().lower()
            if key in ("0", "1"):
                return int(key)
            if key in self.SIDE_WORDS:
                return self.SIDE_WORDS[key]
        names = " or ".join(s.lower() for s in self.SIDES)
        raise ArbiterError("no side %r: %s" % (who, names))

    def name(self, side: int) -> str:
        return self.SIDES[side]

    # -- notices ---------------------------------------------------------------------

    def _say(self, kind: str, text: str, rule: str = "") -> Notice:
        n = Notice(kind, text, rule)
        self._out.append(n)
        if kind != "cue":
            self.log.append(n)
        return n

    def _note(self, text: str) -> None:
        """A comment in the record at the current move."""
        self.notes.setdefault(len(self.played), []).append(text)

    def _flush(self) -> list[Notice]:
        self._drain()
        out = self._out
        self._out = []
        return out

    # -- the clock's events ----------------------------------------------------------

    def poll(self, timeout: float = 0.0) -> list[Notice]:
        """Take the clock's new events (waiting up to ``timeout`` s for one) and
        apply them; returns what the arbiter should know."""
        for ev in self.clock.events(timeout):
            self._event(ev)
        return self._flush()

    def _drain(self) -> None:
        while True:
            evs = self.clock.events(0)
            if not evs:
                return
            for ev in evs:
                self._event(ev)

    def _event(self, ev: Event) -> None:
        handler: Callable[[Event], None] | None = getattr(self, "_on_" + ev.name, None)
        if handler is not None:
            handler(ev)
        self._last_t = ev.t
        self._last_left = ev.left

    def _stop_running(self, t: int) -> None:
        if self.running:
            self._acc += t - self._since
            self.running = False

    def _on_start(self, ev: Event) -> None:
        self.started = True
        self.run = ev.side
        self.running = True
        self._since = ev.t
        self._acc = 0
        want = self._to_move()
        if ev.side != want and self.result is None:
            self._say(
                "warn",
                "the clock started %s's time but %s is to move: turned round"
                % (self.name(ev.side), self.name(want)),
            )
            self._load(want, list(ev.left), shift=(0, 0))
        else:
            self._say("info", "the clock started: %s to move" % self.name(ev.side))

    def _on_press(self, ev: Event) -> None:
        side = ev.side
        used = self._acc + (ev.t - self._since if self.running else 0)
        ot = self.tc.overtime
        if self.overtime[side] and ot is not None and ot.kind == "canadian":
            self.block[side] -= 1
            if self.block[side] <= 0:  # a block done: a fresh one
                self.block[side] = self._block_moves
        count = self._count(side)
        before = self._before_press(ev)
        press = Press(ev.seq, ev.t, side, ev.left, used, before, self.overtime[side], count)
        self.run = 1 - side
        self.running = True
        self._since = ev.t
        self._acc = 0
        self.presses.append(press)
        if self.result is not None:
            return
        self._pressed(press)

    def _count(self, side: int) -> int | None:
        """``side``'s byo-yomi periods or Canadian moves left, in overtime."""
        ot = self.tc.overtime
        if not self.overtime[side] or ot is None:
            return None
        if ot.kind == "byoyomi":
            return self.periods[side]
        if ot.kind == "canadian":
            return self.block[side]
        return None

    def _before_press(self, ev: Event) -> int:
        """The presser's time just before ``ev`` (without what the press added)."""
        side = ev.side
        if self.tc.timing == DELAY and not self.overtime[side]:
            return ev.left[side]  # a delay adds nothing at the press
        return max(0, self._last_left[side] - (ev.t - self._last_t))

    def _on_pause(self, ev: Event) -> None:
        self._stop_running(ev.t)

    def _on_resume(self, ev: Event) -> None:
        self.knocked = False
        self.running = True
        self._since = ev.t
        self.run = ev.side
        if self.result is None:
            self._say("info", "play resumes: %s to move" % self.name(ev.side))

    def _on_knock(self, ev: Event) -> None:
        self._stop_running(ev.t)
        if self.result is not None:
            return
        self.knocked = True
        self._say(
            "warn",
            "the clock was knocked over: both times stopped; name who knocked it "
            "(the opponent gets 1 min)",
            "EQ-5",
        )

    def _on_wrong(self, ev: Event) -> None:
        if self.result is None and ev.arg == 1:  # not this side's turn
            self._say(
                "info",
                "%s pressed out of turn; the clock did not switch" % self.name(ev.side),
                "EQ-2",
            )

    def _on_held(self, ev: Event) -> None:
        if self.result is None:
            self._say(
                "warn",
                "%s's lever held down %.1f s" % (self.name(ev.side), ev.arg / 1000),
                "EQ-3",
            )

    def _on_flag(self, ev: Event) -> None:
        if self.result is not None or not ev.arg:  # only the first flag decides
            return
        self._flagged(ev.side)

    def _on_overtime(self, ev: Event) -> None:
        self.overtime[ev.side] = True
        self.block[ev.side] = self._block_moves
        ot = self.tc.overtime
        if self.result is None and ot is not None:
            if ot.kind == "byoyomi":
                text = "%s's main time is up: byo-yomi, %d periods" % (
                    self.name(ev.side),
                    self.periods[ev.side],
                )
                rule = "TC-6"
            elif ot.kind == "canadian":
                text = "%s's main time is up: %d moves in %s" % (
                    self.name(ev.side),
                    ot.moves,
                    timecontrol.fmt_ms(ot.period),
                )
                rule = "TC-7"
            else:
                text = "%s's main time is up: the count begins" % self.name(ev.side)
                rule = "TC-5"
            self._say("info", text, rule)

    def _on_period(self, ev: Event) -> None:
        self.periods[ev.side] = ev.arg
        if self.result is None:
            self._say("info", "%s used a period: %d left" % (self.name(ev.side), ev.arg), "TC-6")

    def _on_stage(self, ev: Event) -> None:
        self.overtime[ev.side] = False
        self.block[ev.side] = self._block_moves

    def _on_penalty(self, ev: Event) -> None:
        ot = self.tc.overtime
        if ev.arg > 0 and self.overtime[ev.side] and ot is not None and ot.kind != "canadian":
            self.overtime[ev.side] = False  # a gift in byo-yomi or the count is main time
        if self.result is None:
            self._say(
                "info",
                "%s %+d s: %s" % (self.name(ev.side), ev.arg // 1000, fmt_clock(ev.left[ev.side])),
            )

    def _on_set(self, ev: Event) -> None:
        self.overtime[ev.side] = self.tc.overtime is not None and ev.arg == 0
        self.periods[ev.side] = self.clock.status().periods[ev.side]

    def _on_record(self, ev: Event) -> None:
        if self.result is not None:
            return
        text = "%s's clock is under %s: moves need no longer be recorded" % (
            self.name(ev.side),
            timecontrol.fmt_ms(self.tc.record),
        )
        self._note("TC-9: " + text)
        self._say("info", text, "TC-9")

    def _on_cue(self, ev: Event) -> None:
        if self.result is None:
            self._say("cue", "%s: %s" % (self.name(ev.side), voice.cue_text(ev.arg)), "TC-6a")

    def _on_finish(self, ev: Event) -> None:
        if self.result is None:
            self._say("warn", "the clock was finished outside this session")

    # -- moves and presses -----------------------------------------------------------

    def _to_move(self) -> int:
        """The side whose move comes next on the clock (the oldest one without a press)."""
        for p in self.played:
            if p.press is None:
                return p.side
        return self._board_turn()

    def _board_turn(self) -> int:
        raise NotImplementedError

    def _enter(self, side: int, text: str, more: str = "") -> Played:
        """A move entered for ``side`` (already on the board): pair it or keep it."""
        played = Played(len(self.played) + 1, side, text)
        self.played.append(played)
        self._say("move", "%d. %s %s%s" % (played.ply, self.name(side), text, more))
        if self._open and self._open[0].side == side:
            played.press = self._open.pop(0)
            self._paired(played)
        return played

    def _pressed(self, press: Press) -> None:
        """A press that switched the clock: the oldest entered move waiting for one is its."""
        for p in self.played:
            if p.press is None:
                if p.side == press.side:
                    p.press = press
                    self._paired(p)
                    return
                break
        self._unpaired(press)

    def _paired(self, played: Played) -> None:
        """A move just got its press."""
        p = played.press
        assert p is not None
        self._say(
            "info",
            "%s %s: %s used, %s left"
            % (self.name(p.side), played.text, fmt_clock(p.used), fmt_clock(p.left[p.side])),
        )

    def _unpaired(self, press: Press) -> None:
        """A press with no move entered: kept until the move is entered."""
        self._open.append(press)
        self._say("info", "%s pressed: enter the move" % self.name(press.side))

    def take_back(self) -> list[Notice]:
        """Undo the last move entered, if no press was paired with it yet (a typo)."""
        self._check_playing()
        if not self.played or self.played[-1].press is not None:
            raise ArbiterError("no entered move is waiting for its press")
        self._pop()
        gone = self.played.pop()
        self._say("info", "took back %s" % gone.text)
        return self._flush()

    def _pop(self) -> None:
        raise NotImplementedError

    def _load(self, run: int, ms: list[int], shift: tuple[int, int]) -> None:
        """Put the clock in ``run``'s turn with main times ``ms`` (EQ-7); ``shift``
        corrects the move counts. A side in overtime keeps its overtime."""
        st = self.clock.status()
        main = tuple(0 if self.overtime[i] else max(1, ms[i]) for i in (0, 1))
        moves = (st.moves[0] + shift[0], st.moves[1] + shift[1])
        running = st.state == "running"
        self.clock.load(run, (main[0], main[1]), moves, (-1, -1), running=running)
        now = self.clock.status()
        self.run = run
        self.running = running
        self._since = now.t

    # -- the end ---------------------------------------------------------------------

    def _check_playing(self) -> None:
        """Before an action: the clock's events so far apply first."""
        self._drain()
        if self.result is not None:
            raise ArbiterError("the game is over: %s" % self.result.reason)

    @property
    def over(self) -> bool:
        return self.result is not None

    def _flagged(self, side: int) -> None:
        raise NotImplementedError

    def _end(self, result: Result) -> None:
        """Record the result and show it on the clock, which stops."""
        self.result = result
        try:
            self.clock.finish(DRAW if result.winner is None else result.winner)
        except CommandError as e:  # a clock that never started has nothing to show
            self._say("warn", "the clock did not take the result: %s" % e.message)
        st = self.clock.status()
        for p in self.played:
            if p.press is None:
                p.end_ms = st.left[p.side]
                p.end_count = self._count(p.side)
        self._note(result.reason)
        self._say("end", self.result_text(), result.rule)

    def result_text(self) -> str:
        r = self.result
        if r is None:
            return "the game goes on"
        head = "draw" if r.winner is None else "%s wins" % self.name(r.winner)
        return "%s: %s" % (head, r.reason)

    def declare(self, winner: int | str | None, reason: str = "") -> list[Notice]:
        """The arbiter's own ruling: ``winner`` (a side) or None for a draw."""
        self._check_playing()
        w = None if winner is None else self.side(winner)
        text = reason or (
            "the arbiter rules a draw" if w is None else "the arbiter awards the game"
        )
        self._end(Result(w, text, "", "adjudication"))
        return self._flush()

    def foul(self, who: int | str, reason: str = "", rule: str = "") -> list[Notice]:
        """Record a foul against ``who`` (the rules of the game say what follows)."""
        self._check_playing()
        self._foul(self.side(who), reason or "a foul", rule)
        return self._flush()

    def _foul(self, side: int, reason: str, rule: str) -> bool:
        """A foul; True if it ended the game."""
        self.fouls[side] += 1
        text = "foul %d for %s: %s" % (self.fouls[side], self.name(side), reason)
        self._note(text + (" (%s)" % rule if rule else ""))
        self._say("foul", text, rule)
        return False

    # -- the clock, from the arbiter --------------------------------------------------

    def start(self) -> list[Notice]:
        """Start the clock with the side to move running."""
        self._check_playing()
        self._clock_call(lambda: self.clock.start(self._to_move()))
        return self._flush()

    def pause(self) -> list[Notice]:
        self._clock_call(self.clock.pause)
        return self._flush()

    def resume(self) -> list[Notice]:
        self._check_playing()
        self._clock_call(self.clock.resume)
        return self._flush()

    def knock(self, who: int | str, resume: bool = True) -> list[Notice]:
        """EQ-5: ``who`` knocked the clock over; the opponent gets 1 min, then
        (``resume``) play goes on."""
        self._check_playing()
        side = self.side(who)
        if not self.knocked:
            raise ArbiterError("the clock has not been knocked over")
        self._clock_call(lambda: self.clock.knock(side))
        self._note("%s knocked the clock over: %s +1 min (EQ-5)" % (
            self.name(side), self.name(1 - side)))  # fmt: skip
        self._say("rule", "%s knocked the clock over: %s gets 1 min" % (
            self.name(side), self.name(1 - side)), "EQ-5")  # fmt: skip
        self.knocked = False
        if resume:
            self._clock_call(self.clock.resume)
        return self._flush()

    def _clock_call(self, fn: Callable[[], None]) -> None:
        try:
            fn()
        except CommandError as e:
            raise ArbiterError("the clock refused: %s" % e.message) from None

    def status_line(self) -> str:
        """Both clocks as they stand, in a line."""
        st = self.clock.status()
        parts = []
        for i in (0, 1):
            mark = ">" if st.run == i and st.state == "running" else " "
            extra = ""
            if self.overtime[i]:
                ot = self.tc.overtime
                if ot is not None and ot.kind == "byoyomi":
                    extra = " BY%d" % st.periods[i]
                elif ot is not None and ot.kind == "canadian":
                    extra = " %d/%d" % (self.block[i], self._block_moves)
                else:
                    extra = " CNT"
            parts.append("%s%s %s%s" % (mark, self.name(i), fmt_clock(st.left[i]), extra))
        state = st.state if st.state != "running" else ""
        tail = "  fouls %d-%d" % tuple(self.fouls) if any(self.fouls) else ""
        return "%s | %s  %s%s" % (parts[0], parts[1], state, tail)

    # -- the record ------------------------------------------------------------------

    def record_text(self) -> str:
        raise NotImplementedError

    def suffix(self) -> str:
        raise NotImplementedError

    def save(self, path: str) -> str:
        """Write the record to ``path`` (never over an existing file); returns the path."""
        data = self.record_text()
        try:
            with open(path, "x", encoding="utf-8") as f:
                f.write(data)
        except FileExistsError:
            raise ArbiterError("%s exists: not overwritten" % path) from None
        except OSError as e:
            raise ArbiterError("cannot write %s: %s" % (path, e.strerror)) from None
        return path


def free_path(path: str) -> str:
    """``path``, or ``path`` with -2, -3... before the suffix if it exists."""
    if not os.path.exists(path):
        return path
    stem, ext = os.path.splitext(path)
    n = 2
    while os.path.exists("%s-%d%s" % (stem, n, ext)):
        n += 1
    return "%s-%d%s" % (stem, n, ext)


# -- Xiangqi ------------------------------------------------------------------------------

_XQ_WORDS = {"red": 0, "r": 0, "红": 0, "紅": 0, "black": 1, "b": 1, "黑": 1}
_REPETITIONS = (
    xiangqi.Termination.REPETITION,
    xiangqi.Termination.PERPETUAL_CHECK,
    xiangqi.Termination.PERPETUAL_CHASE,
)


class XiangqiSession(GameSession):
    """A Xiangqi game under the rapid-play rules (RULES.md §3).

    ``spec``: the time control (a preset or a spec); ``left``: whose lever is
    the left one (EQ-1); ``fen``: a starting position; ``knockout``: a
    single-game knock-out, where a draw goes to XQ-R22/R23 (default: when the
    control has the TC-4 handicap); ``strict``: a press with no move entered
    is a press without moving (XQ-R19) at once. With ``strict=False`` the
    press waits for the move to be entered, and ``no_move`` rules R19.
    ``headers``: PGN tags (Event, Site, Date, Round, Red, Black...).
    """

    SIDES = ("Red", "Black")
    SIDE_WORDS = _XQ_WORDS

    def __init__(
        self,
        clock: Clock,
        spec: str = "xq-rapid",
        *,
        left: int | str = "red",
        fen: str | None = None,
        knockout: bool | None = None,
        strict: bool = True,
        configure: bool = True,
        **headers: str,
    ) -> None:
        try:
            self.board = xiangqi.Board(fen)
        except xiangqi.XiangqiError as e:
            raise ArbiterError("bad position: %s" % e) from None
        side = _XQ_WORDS.get(left, left) if isinstance(left, str) else left
        if side not in (0, 1):
            raise ArbiterError("the left lever is red's or black's, not %r" % (left,))
        super().__init__(clock, spec, left=int(side), configure=configure)
        self.knockout = self.tc.handicap != 0 if knockout is None else knockout
        self.strict = strict
        self.headers = {k: v for k, v in headers.items() if v}
        self.offers = [0, 0]  # XQ-R18
        self.offer_by = -1  # a standing draw offer
        self.no_moves = [0, 0]  # XQ-R19
        self.false_claims: list[set[int]] = [set(), set()]  # XQ-R20: limits claimed falsely in
        self.rounds_limit = rounds_per_day_limit(self.tc)

    def _board_turn(self) -> int:
        return self.board.turn.value

    # -- moves -----------------------------------------------------------------------

    def move(self, text: str) -> list[Notice]:
        """Enter the move being made (记谱, WXF or ICCS); it waits for its press."""
        self._check_playing()
        try:
            mv = self.board.parse_notation(text)
        except xiangqi.XiangqiError as e:
            hint = self.suggest(text)
            more = "; legal here: %s" % " ".join(hint[:12]) if hint else ""
            raise ArbiterError("%s%s" % (e, more)) from None
        side = self._board_turn()
        written = self.board.notation(mv)
        self.board.push(mv)
        self._enter(side, written)
        if self.offer_by == 1 - side:  # moving on declines a standing offer
            self.offer_by = -1
        out = self.board.outcome()
        if out is not None:
            if out.termination in _REPETITIONS:
                self._say("warn", "%s: a claim decides it on this record" % out.reason, "XQ-R24")
            else:
                self._end(Result(_winner(out), out.reason, "XQ-R15"))
        return self._flush()

    def _pop(self) -> None:
        self.board.pop()

    def suggest(self, text: str) -> list[str]:
        """Legal moves whose notation (记谱, traditional, WXF or ICCS) starts with ``text``."""
        key = unicodedata.normalize("NFKC", "".join(text.split())).lower()
        out = []
        for mv in self.board.legal_moves:
            cn = self.board.notation(mv)
            for style in ("chinese", "traditional", "wxf", "iccs"):
                w = cn if style == "chinese" else self.board.notation(mv, style)
                w = unicodedata.normalize("NFKC", w).lower()
                if w.startswith(key) or (style == "iccs" and w.replace("-", "").startswith(key)):
                    out.append(cn)
                    break
        return sorted(out)

    # -- presses ---------------------------------------------------------------------

    def _unpaired(self, press: Press) -> None:
        if self.strict:
            self._no_move(press)
        else:
            super()._unpaired(press)

    def no_move(self, who: int | str) -> list[Notice]:
        """XQ-R19 on ``who``'s last press, which no move was entered for."""
        self._check_playing()
        side = self.side(who)
        for i in range(len(self._open) - 1, -1, -1):
            if self._open[i].side == side:
                press = self._open.pop(i)
                self._no_move(press)
                return self._flush()
        raise ArbiterError("%s has no press waiting for a move" % self.name(side))

    def _no_move(self, press: Press) -> None:
        """XQ-R19: ``press`` came without a move. The times are the press's:
        the presser's just before it, the opponent's at it."""
        side, opp = press.side, 1 - press.side
        before = press.before
        self.no_moves[side] += 1
        low = min(before, press.left[opp])
        what = "%s pressed the clock without moving" % self.name(side)
        if low < ONE_MINUTE:
            self._end(Result(opp, "%s with under 1 min on a clock (%s)" % (what, fmt_clock(low)),
                             "XQ-R19", "rules infraction"))  # fmt: skip
            return
        if self.no_moves[side] >= 2:
            self._end(Result(opp, what + " a second time", "XQ-R19", "rules infraction"))
            return
        if self._foul(side, "pressed the clock without moving", "XQ-R19"):
            return
        # The clock goes back to the offender: its time before the press, the
        # opponent's as it was then, and one move less on its counter (EQ-7).
        ms = [0, 0]
        ms[side] = before
        ms[opp] = press.left[opp]
        shift = (-1, 0) if side == 0 else (0, -1)
        self._load(side, ms, shift)
        self._acc = press.used
        self._say("rule", "the clock goes back to %s" % self.name(side), "XQ-R19")

    # -- fouls, offers, claims -------------------------------------------------------------

    def _foul(self, side: int, reason: str, rule: str) -> bool:
        super()._foul(side, reason, rule)
        if self.fouls[side] >= 2:
            self._end(Result(1 - side, "%s has two fouls" % self.name(side), "XQ-R17",
                             "rules infraction"))  # fmt: skip
            return True
        return False

    def offer(self, who: int | str) -> list[Notice]:
        """``who`` offers a draw (XQ-R18 counts them)."""
        self._check_playing()
        side = self.side(who)
        self.offers[side] += 1
        self._note("%s offers a draw" % self.name(side))
        self._say("info", "%s offers a draw (%d-%d offers)" % (
            self.name(side), self.offers[0], self.offers[1]), "XQ-R18")  # fmt: skip
        if self.offers[side] - self.offers[1 - side] >= 2:
            if self._foul(side, "two draw offers more than the opponent", "XQ-R18"):
                return self._flush()
        self.offer_by = side
        return self._flush()

    def accept(self) -> list[Notice]:
        """The opponent accepts the standing offer: a draw (XQ-R16)."""
        self._check_playing()
        if self.offer_by < 0:
            raise ArbiterError("no draw offer stands")
        by = self.offer_by
        self._end(Result(None, "draw agreed (%s offered)" % self.name(by), "XQ-R16"))
        return self._flush()

    def decline(self) -> list[Notice]:
        self._check_playing()
        if self.offer_by < 0:
            raise ArbiterError("no draw offer stands")
        self._say("info", "%s declines the draw" % self.name(1 - self.offer_by))
        self.offer_by = -1
        return self._flush()

    def claim_natural_limit(self, who: int | str) -> list[Notice]:
        """XQ-R20/R16: ``who`` claims the natural move limit, checked on this record (R24).

        True: a draw. False: a foul and 2 min off the claimant's clock (a flag
        so caused loses); a second false claim within the same limit loses.
        """
        self._check_playing()
        side = self.side(who)
        claim = self.board.natural_move_limit(xiangqi.Color(side))
        what = "%s claims the natural move limit" % self.name(side)
        if claim.valid:
            self._end(Result(None, "%s: %d and %d moves without a capture" % (
                what, claim.claimant_moves, claim.opponent_moves), "XQ-R16"))  # fmt: skip
            return self._flush()
        detail = "%d and %d of 30 moves since the last capture" % (
            claim.claimant_moves,
            claim.opponent_moves,
        )
        if claim.window_start in self.false_claims[side]:
            why = "%s claimed the natural move limit falsely twice in one limit (%s)" % (
                self.name(side),
                detail,
            )
            self._end(Result(1 - side, why, "XQ-R20", "rules infraction"))
            return self._flush()
        self.false_claims[side].add(claim.window_start)
        if self._foul(side, "a false natural-move-limit claim (%s)" % detail, "XQ-R20"):
            return self._flush()
        self._cut = side
        try:
            self._clock_call(lambda: self.clock.penalty(side, -FALSE_CLAIM_MS))
            self._drain()  # a flag from the cut is ruled with _cut set
        finally:
            self._cut = -1
        if self.result is None:
            self._say("rule", "2 min off %s's clock" % self.name(side), "XQ-R20")
        return self._flush()

    def claim_repetition(self, who: int | str, foul_if_false: bool = False) -> list[Notice]:
        """XQ-R24: a repetition claim, decided on this record: perpetual check
        or chase loses (XQ-R15), otherwise 不变作和 draws (XQ-R16). A claim the
        record does not bear out is refused, a foul with ``foul_if_false``."""
        self._check_playing()
        side = self.side(who)
        out = self.board.outcome()
        if out is not None and out.termination in _REPETITIONS:
            self._end(Result(_winner(out), out.reason, "XQ-R24"))
            return self._flush()
        rep = self.board.repetition()
        seen = rep.count if rep else 1
        text = "%s claims a repetition: the position has occurred %d time%s on the record" % (
            self.name(side), seen, "" if seen == 1 else "s")  # fmt: skip
        if foul_if_false:
            self._foul(side, "an unfounded repetition claim", "XQ-R24")
        else:
            self._say("rule", text + "; play goes on", "XQ-R24")
        return self._flush()

    def resign(self, who: int | str) -> list[Notice]:
        self._check_playing()
        side = self.side(who)
        self._end(Result(1 - side, "%s resigns" % self.name(side), "XQ-R15"))
        return self._flush()

    def phone(self, who: int | str) -> list[Notice]:
        """XQ-R25: ``who``'s phone rang or was used: an immediate loss."""
        self._check_playing()
        side = self.side(who)
        self._end(Result(1 - side, "%s's phone rang or was used" % self.name(side), "XQ-R25",
                         "rules infraction"))  # fmt: skip
        return self._flush()

    def _flagged(self, side: int) -> None:
        if self._cut == side:
            self._end(Result(1 - side, "%s's flag fell from the 2 min taken for a false claim"
                             % self.name(side), "XQ-R20", "time forfeit"))  # fmt: skip
            return
        out = self.board.flag_outcome(xiangqi.Color(side))
        rule = "XQ-R16" if out.winner is None else "XQ-R15"
        self._end(Result(_winner(out), out.reason, rule,
                         "normal" if out.winner is None else "time forfeit"))  # fmt: skip

    def _end(self, result: Result) -> None:
        if result.winner is None and self.knockout:  # XQ-R22, XQ-R23
            handicap = self.tc.handicap != 0
            w = xiangqi.drawn_knockout_winner(self.fouls[0], self.fouls[1], handicap)
            if w is not None:
                if self.fouls[0] != self.fouls[1]:
                    why, rule = "%s has more fouls" % self.name(1 - w.value), "XQ-R22"
                else:
                    why, rule = "Black had time compensation", "XQ-R23"
                result = Result(w.value, "%s; in a knock-out game %s goes through: %s"
                                % (result.reason, self.name(w.value), why), rule,
                                result.termination)  # fmt: skip
        super()._end(result)

    # -- the record ------------------------------------------------------------------

    def game(self) -> xiangqi_pgn.Game:
        """The record as a ``xiangqi_pgn.Game``, each move with its clock time."""
        hdr = dict(self.headers)
        r = self.result
        hdr["Result"] = "*" if r is None else (
            "1/2-1/2" if r.winner is None else "1-0" if r.winner == 0 else "0-1")  # fmt: skip
        if r is not None:
            hdr.setdefault("Termination", r.termination)
        clocks = [p.clock_ms for p in self.played]
        game = xiangqi_pgn.Game.from_board(self.board, clocks, **hdr)
        game.set_time_control(self.tc)
        for ply, texts in self.notes.items():
            text = "; ".join(texts)
            if ply == 0:
                game.intro = text
            else:
                game.comments[ply - 1] = text
        return game

    def pgn(self, style: str = "chinese") -> str:
        return xiangqi_pgn.write_game(self.game(), style)

    def record_text(self) -> str:
        return self.pgn()

    def suffix(self) -> str:
        return ".pgn"


def _winner(out: xiangqi.Outcome) -> int | None:
    return None if out.winner is None else out.winner.value
