# SPDX-License-Identifier: GPL-3.0-or-later
"""What every game session shares: one clock, one record, the rules between them.

A session binds a ``Clock`` (the driver) to a rules engine's record. The
arbiter enters each move as it is made; the clock's press that ends it is
paired with it, and gives the move its time used and the mover's time left
(the press event's own times, from the lever interrupt). Everything the rules
make of the clock is applied with the clock's times and sent back to it:
penalties, the knock bonus (EQ-5), a restored turn after a press without a
move, and at the end ``finish`` with the result, which the displays show
(WIN / LOSS / DRAW).

``keep(path)`` keeps the record in a file from then on, whole after every
change (``qizhong.records.files``); the console also journals the session
(``qizhong.arbiter.journal``) so that a stopped console resumes the game.

Sides are ints as on the clock: 0 moves first (Red, Black in Go, White in
chess), 1 second. Every action returns the ``Notice`` list it caused
(rulings, the end, and whatever the clock reported meanwhile); ``poll``
returns the notices of clock events as they come. A refused action raises
``ArbiterError`` and changes nothing.

The games: ``qizhong.arbiter.xiangqi.XiangqiSession`` (its docstring shows a
whole session), ``qizhong.arbiter.go.GoSession`` and
``qizhong.arbiter.chess.ChessSession``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from typing import ClassVar

from qizhong import timecontrol
from qizhong.clocks.driver import DRAW, Clock, CommandError
from qizhong.clocks.link import Event
from qizhong.core import cuenames
from qizhong.core.timecontrol import DELAY
from qizhong.records import files
from qizhong.timecontrol import fmt_clock

__all__ = [
    "ArbiterError",
    "GameSession",
    "Notice",
    "Played",
    "Press",
    "Result",
    "free_path",
    "ms_between",
]


# docs/protocol.md: the clock's ms fall by exactly this when they reach 2**29.
ORIGIN_STEP = 402_653_184  # App.REBASE_MS - App.KEEP_MS


def ms_between(a: int, b: int) -> int:
    """The ms from the clock's instant ``a`` to its later instant ``b`` of the
    same boot: T fell by ``ORIGIN_STEP`` if the origin moved between them
    (a running move is far shorter than the 4.6 days between two moves)."""
    d = b - a
    return d if d >= 0 else d % ORIGIN_STEP


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
        # What happened before this game is not its business: it starts at the
        # clock's last event, however long the history (a replay of it would
        # come 64 events a request, SINCE_MAX, and look new).
        st = clock.status()
        early = clock.since(st.seq)  # anything after the status is this game's
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
        self._recording_free = False  # TC-9 was noted
        self.result: Result | None = None
        self.notes: dict[int, list[str]] = {}  # ply -> comments for the record
        self.log: list[Notice] = []
        self._out: list[Notice] = []
        self._cut = -1  # the side a penalty is being taken from (a flag then is its loss)
        self.start_seq = st.seq  # the clock's last event before this game
        self.late_upto = 0  # presses up to this seq came while no console watched (a restart)
        self.late: list[tuple[int, int]] = []  # (after, upto]: the same, for each resume
        self._early = early
        self.record_path: str | None = None  # the record file kept up to date (``keep``)
        self.hold_record = False  # True: ``keep`` waits (a journal being replayed)
        self._kept: tuple[int, int, bool] = (0, 0, True)

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
        self._keep()
        out = self._out
        self._out = []
        return out

    # -- the clock's events ----------------------------------------------------------

    def poll(self, timeout: float = 0.0) -> list[Notice]:
        """Take the clock's new events (waiting up to ``timeout`` s for one) and
        apply them; returns what the arbiter should know."""
        self._apply_early()
        for ev in self.clock.events(timeout):
            self._event(ev)
        return self._flush()

    def _apply_early(self) -> None:
        early, self._early = self._early, []
        for ev in early:
            self._event(ev)

    def _drain(self) -> None:
        self._apply_early()
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
            self._acc += ms_between(self._since, t)
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
        used = self._acc + (ms_between(self._since, ev.t) if self.running else 0)
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

    def is_late(self, seq: int) -> bool:
        """Event ``seq`` came while no console watched: its press waits for its move."""
        return seq <= self.late_upto or any(lo < seq <= hi for lo, hi in self.late)

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
        return max(0, self._last_left[side] - ms_between(self._last_t, ev.t))

    def _on_pause(self, ev: Event) -> None:
        self._stop_running(ev.t)

    def _on_resume(self, ev: Event) -> None:
        self.knocked = False
        self.running = True
        self._since = ev.t
        self.run = ev.side
        if self.result is None:
            self._say("info", "play resumes: %s to move" % self.name(ev.side))

    def _on_boot(self, ev: Event) -> None:
        """The clock restarted (a power cut, its watchdog): it comes back
        paused with the times of its last journal record (docs/journal.md).
        The running side's move keeps what it used up to that record; the
        clock's ms count starts again, so the move's time goes on from the
        ``resume``."""
        if self.running:
            self._acc += max(0, self._last_left[self.run] - ev.left[self.run])
            self.running = False
        if not self.started or self.result is not None:
            return
        if ev.arg:  # the last event number of the record it restored
            text = "it is paused with the times it had kept; `resume` when play goes on"
        else:
            text = "it kept no record of this game: its times are not this game's"
        self._say("warn", "the clock restarted (power): " + text)
        run = self.run
        if ev.arg and run in (0, 1) and self.clock.status().run == 1 - run:
            # A press the clock kept but whose event its restart dropped (its log
            # starts empty): nobody saw it, so it waits for its move, as a press
            # made while no console watched does (never XQ-R19 or CH-1).
            self.late_upto = max(self.late_upto, ev.seq)
            self._say("warn", "%s's press was lost with the restart: it waits for its move"
                      % self.name(run))  # fmt: skip
            self._on_press(Event(ev.seq, ev.t, "press", run, ev.left[run], ev.left))
            self.running = False
            self._acc = 0

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
        if self.result is not None or self._recording_free:
            return
        # TC-9: from the instant either clock is under the threshold, neither
        # player need record; the clock marks both displays (#26 item 9).
        self._recording_free = True
        text = "%s's clock is under %s: neither player need record the moves any longer" % (
            self.name(ev.side),
            timecontrol.fmt_ms(self.tc.record),
        )
        self._note("TC-9: " + text)
        self._say("info", text, "TC-9")

    def _on_cue(self, ev: Event) -> None:
        if self.result is None:
            self._say("cue", "%s: %s" % (self.name(ev.side), cuenames.cue_text(ev.arg)), "TC-6a")

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

    def penalty(self, who: int | str, ms: int, reason: str = "") -> list[Notice]:
        """The arbiter adds time to ``who``'s clock (``ms`` > 0) or takes it off
        (``ms`` < 0); the record notes it. A flag it causes is ruled as any flag."""
        self._check_playing()
        side = self.side(who)
        if ms == 0 or abs(ms) > 100 * 3600 * 1000:
            raise ArbiterError("a penalty is a time, not zero, up to 100 h")
        self._clock_call(lambda: self.clock.penalty(side, ms))
        what = "%s %s %s by the arbiter%s" % (
            timecontrol.fmt_ms(abs(ms)), "added to" if ms > 0 else "taken off",
            self.name(side) + "'s clock", ": " + reason if reason else "")  # fmt: skip
        self._note(what)
        self._say("rule", what)
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

    def save(self, path: str, replace: bool = False) -> str:
        """Write the record to ``path`` now; returns the path. A file already
        there is refused, or with ``replace`` replaced in one atomic step."""
        data = self.record_text().encode("utf-8")
        try:
            if replace:
                files.replace(path, data)
            else:
                files.claim(path, data)
        except files.RecordFileError as e:
            raise ArbiterError(str(e)) from None
        return path

    def keep(self, path: str, claim: bool = True) -> str:
        """Keep the record in ``path`` from now on: written now (``claim``: a
        taken path is refused, before the game), then again after every action
        and clock event that changes it, the result included when the game
        ends. Each write is whole (``qizhong.records.files.replace``)."""
        self.save(path, replace=not claim)
        self.record_path = path
        self._kept = self._record_mark()
        return path

    def _record_mark(self) -> tuple[int, int, bool]:
        """Changes whenever the record does: every change to it comes with a notice."""
        return (len(self.log), len(self.played), self.result is None)

    def _keep(self) -> None:
        if self.record_path is None or self.hold_record:
            return
        mark = self._record_mark()
        if mark != self._kept:
            self._kept = mark
            try:
                self.save(self.record_path, replace=True)
            except ArbiterError as e:  # the game goes on; the next change tries again
                self._say("warn", "the record was not written: %s" % e)
                self._kept = self._record_mark()


def free_path(path: str) -> str:
    """``path``, or ``path`` with -2, -3... before the suffix if it exists."""
    if not os.path.exists(path):
        return path
    stem, ext = os.path.splitext(path)
    n = 2
    while os.path.exists("%s-%d%s" % (stem, n, ext)):
        n += 1
    return "%s-%d%s" % (stem, n, ext)
