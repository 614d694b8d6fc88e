# SPDX-License-Identifier: GPL-3.0-or-later
"""The two-sided clock: a state machine over injected integer-ms time.

Time is never read here: every call carries ``t``, a monotonic ms count from
the board layer. The clock answers "what happens next, and when"
(``next_deadline``); the firmware sleeps until then, or a simulator jumps
straight there, and calls ``tick``. Every action first fires the events due at
or before its instant, so a press at the flag instant loses to the flag.

Sides are 0 (moves first: Red, White in chess, Black in Go) and 1. Which
lever is which side is configuration (EQ-1), see ``side_of_lever``.

Events go to a fixed ring that ``pop_event`` drains; nothing in ``press``,
``release``, ``tick``, ``next_deadline`` or ``left`` allocates.
"""

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):  # type: ignore
        return x


from .timecontrol import HOURGLASS, MAX_MOVES, MAX_MS, MAX_PERIODS, UPCOUNT, SideTime, _cap

MAX_SEQ = const(2147483647)  # event numbers: 1 .. 2**31 - 1 (the journal's uint32 holds them)

# States.
IDLE = const(0)  # configured, not started
RUNNING = const(1)
PAUSED = const(2)
KNOCKED = const(3)  # EQ-5: tilted, both frozen, waiting for the arbiter
FLAGGED = const(4)  # a flag fell and both clocks froze
FINISHED = const(5)  # the arbiter ended the game

STATE_NAMES = ("idle", "running", "paused", "knocked", "flagged", "finished")

# Event kinds (0 is "no event").
EV_START = const(1)
EV_PRESS = const(2)  # arg: the presser's time after the press
EV_WRONG = const(3)  # a press that does not switch; arg: the state (RUNNING: not its turn)
EV_PAUSE = const(4)
EV_RESUME = const(5)
EV_FLAG = const(6)  # arg: 1 if this side flagged first
EV_CUE = const(7)  # arg: voice cue id
EV_OVERTIME = const(8)  # main time used up, overtime begins
EV_PERIOD = const(9)  # a byo-yomi period used up; arg: periods left
EV_STAGE = const(10)  # a new stage's time was added; arg: stage index
EV_RECORD = const(11)  # TC-9: shown time went below the threshold
EV_HELD = const(12)  # EQ-3: lever held down; arg: ms held
EV_KNOCK = const(13)  # EQ-5: clock knocked over
EV_PENALTY = const(14)  # arg: ms added (negative: taken)
EV_FINISH = const(15)
EV_SET = const(16)  # arbiter set a side's time (EQ-7); arg: main ms
EV_WARN = const(17)  # TC-15: main time went below the warning threshold; arg: time shown

EVENT_NAMES = (
    "none", "start", "press", "wrong", "pause", "resume", "flag", "cue",
    "overtime", "period", "stage", "record", "held", "knock", "penalty",
    "finish", "set", "warn",
)  # fmt: skip

RESULT_DRAW = const(2)  # finish(): neither side won

# press() results.
PRESS_SWITCHED = const(1)
PRESS_STARTED = const(2)
PRESS_IGNORED = const(3)


class ClockError(ValueError):
    """An impossible command: refused, and nothing changed."""


class Clock:
    """Two sides' time under one ``TimeControl``."""

    HOLD_MS = 2000  # EQ-3: a lever held this long is reported to the arbiter
    KNOCK_BONUS_MS = 60000  # EQ-5: the knocker's opponent gets this
    LOCK_MOVES = 3  # EQ-6: settings lock once both sides made this many moves
    EVENTS = 32  # event ring size; the app drains it after every call

    def __init__(self, tc, left_side=0):
        self.tc = tc
        self.left_side = left_side  # EQ-1: the side whose lever is on the left
        self.sides = (SideTime(), SideTime())
        n = self.EVENTS
        self._ek = [0] * n
        self._es = [0] * n
        self._et = [0] * n
        self._ea = [0] * n
        self._head = 0
        self._count = 0
        self.lost = 0  # events dropped because nobody drained the ring
        self.late = 0  # calls whose t was earlier than one already seen
        self.ev_side = 0
        self.ev_t = 0
        self.ev_arg = 0
        self._nk = 0
        self._ns = 0
        self.down = [-1, -1]  # when each lever went down, -1: up
        self._held = [False, False]
        self.now = 0
        self._reset()

    def _reset(self):
        for i in (0, 1):
            self.tc.reset(self.sides[i], i)
            self.down[i] = -1
            self._held[i] = False
        self.state = IDLE
        self.run = -1  # the running side, -1: none
        self.t0 = self.now  # start of the running side's segment
        self.first_flag = -1
        self.knocker = -1
        self.result = -1  # after finish: the winner (0, 1), RESULT_DRAW, or -1

    # -- events ----------------------------------------------------------------

    def _emit(self, kind, side, t, arg):
        n = self.EVENTS
        if self._count == n:
            self._head = (self._head + 1) % n
            self._count -= 1
            self.lost += 1
        i = (self._head + self._count) % n
        self._ek[i] = kind
        self._es[i] = side
        self._et[i] = t
        self._ea[i] = arg
        self._count += 1

    def pop_event(self):
        """Next event kind, or 0; its side, time and arg go to ``ev_side``, ``ev_t``, ``ev_arg``."""
        if not self._count:
            return 0
        i = self._head
        self._head = (i + 1) % self.EVENTS
        self._count -= 1
        self.ev_side = self._es[i]
        self.ev_t = self._et[i]
        self.ev_arg = self._ea[i]
        return self._ek[i]

    # -- time ------------------------------------------------------------------

    def rebase(self, d):
        """Move the time origin ``d`` ms later: every instant the clock keeps
        goes down by ``d`` (the app's epoch change, #12: times stay small
        ints for any uptime). Durations, and so every side's time, are
        unchanged. -1 (none) stays -1."""
        self.now -= d
        self.t0 -= d
        for i in (0, 1):
            if self.down[i] >= 0:
                self.down[i] -= d
        for i in range(len(self._et)):
            self._et[i] -= d

    def _sync(self, t):
        if t < self.now:
            self.late += 1
            t = self.now
        self._run(t, True)
        return t

    def _commit(self, t):
        # Charge the running side up to t.
        if self.state == RUNNING and self.run >= 0 and not self.sides[self.run].flagged:
            s = self.sides[self.run]  # a flagged side's time stands still, as its face does
            used = self.tc.advance(s, t - self.t0)
            o = self.sides[1 - self.run]
            if self.tc.timing == HOURGLASS and used and not o.flagged:
                o.main = _cap(o.main + used)
        self.t0 = t

    def _earlier(self, best, d, base, kind, side):
        # Keep the earliest candidate (``base + d``, none if d < 0); ties keep the first.
        if d < 0:
            return best
        d += base
        if best < 0 or d < best:
            self._nk = kind
            self._ns = side
            return d
        return best

    def next_deadline(self):
        """Absolute ms of the next thing that will happen by itself, or -1.

        Candidates in order of precedence at one instant: held lever, voice
        cue, TC-9 threshold, TC-15 warning, then the next stage at the first
        flag (TC-10), or overtime, period, flag.
        """
        self._nk = 0
        best = -1
        for i in (0, 1):
            if not self._held[i]:
                d = self.down[i]
                best = self._earlier(best, d, self.HOLD_MS if d >= 0 else 0, EV_HELD, i)
        if self.state != RUNNING:
            return best
        side = self.run
        s = self.sides[side]
        tc = self.tc
        t0 = self.t0
        best = self._earlier(best, tc.cue_in(s), t0, EV_CUE, side)
        best = self._earlier(best, tc.record_in(s), t0, EV_RECORD, side)
        best = self._earlier(best, tc.warn_in(s), t0, EV_WARN, side)
        if s.flagged:
            return best
        if tc.at_flag(s):  # TC-10: main time used up here brings the next stage
            return self._earlier(best, tc.main_end(s), t0, EV_STAGE, side)
        ot = tc.overtime
        if ot is not None:
            if not s.ot:
                best = self._earlier(best, tc.main_end(s), t0, EV_OVERTIME, side)
            else:
                best = self._earlier(best, ot.boundary_in(s), t0, EV_PERIOD, side)
        return self._earlier(best, tc.flag_in(s), t0, EV_FLAG, side)

    def tick(self, t):
        """Fire everything due at or before ``t``, in time order; return the
        number of events waiting in the ring.

        Nothing is ever dropped by ``tick``: when the ring fills it stops
        early, and returns ``EVENTS``. Drain it with ``pop_event`` and call
        again. (The firmware ticks at every deadline, so this takes a long
        jump; actions such as ``press`` always run to their instant.)
        """
        return self._run(t, False)

    def _run(self, t, force):
        while force or self._count < self.EVENTS:
            nt = self.next_deadline()
            if nt < 0 or nt > t:
                if t > self.now:
                    self.now = t
                break
            self._fire(self._nk, self._ns, nt)
        return self._count

    def _fire(self, kind, side, t):
        if kind == EV_HELD:
            self._held[side] = True
            self._emit(EV_HELD, side, t, t - self.down[side])
            return
        self._commit(t)
        s = self.sides[side]
        if kind == EV_CUE:
            self._emit(EV_CUE, side, t, self.tc.cue_id(s))
            s.cue += 1
        elif kind == EV_RECORD:
            s.recorded = True
            self._emit(EV_RECORD, side, t, self.tc.left_ms(s, 0))
        elif kind == EV_OVERTIME:
            self.tc.enter_overtime(s)
            self._emit(EV_OVERTIME, side, t, 0)
        elif kind == EV_PERIOD:
            self.tc.overtime.next_period(s)
            self._emit(EV_PERIOD, side, t, s.periods)
        elif kind == EV_WARN:
            s.warned = True
            self._emit(EV_WARN, side, t, self.tc.left_ms(s, 0))
        elif kind == EV_STAGE:  # TC-10: the first flag brings both sides the next stage
            stage = s.stage
            for i in (0, 1):
                o = self.sides[i]
                if o.stage == stage:
                    self.tc.next_stage(o)
                    self._emit(EV_STAGE, i, t, o.stage)
            s.mu = 0  # the new stage starts the move's time afresh (its delay too)
        else:
            self._flag(side, t)

    def _flag(self, side, t):
        s = self.sides[side]
        s.flagged = True
        first = self.first_flag < 0
        if first:
            self.first_flag = side
        self._emit(EV_FLAG, side, t, 1 if first else 0)
        if self.tc.freezes() or self.sides[1 - side].flagged:
            self._commit(t)
            self.state = FLAGGED

    # -- players ---------------------------------------------------------------

    def side_of_lever(self, lever):
        """EQ-1: lever 0 is the left one, 1 the right one."""
        return self.left_side if lever == 0 else 1 - self.left_side

    def press(self, side, t):
        """A lever went down at ``t`` (its first edge). Only the running side switches."""
        t = self._sync(t)
        self.down[side] = t
        self._held[side] = False
        if self.state == IDLE:  # pressing one's own lever starts the opponent
            self._start(1 - side, t)
            return PRESS_STARTED
        if self.state != RUNNING or side != self.run:
            self._emit(EV_WRONG, side, t, self.state)
            return PRESS_IGNORED
        self._commit(t)
        s = self.sides[side]
        if s.flagged:  # play goes on after a flag that did not freeze: no credits
            s.mu = 0
            s.moves += 1
        elif self.tc.complete(s, side):
            self._emit(EV_STAGE, side, t, s.stage)
        self._emit(EV_PRESS, side, t, self.tc.left_ms(s, 0))
        self.run = 1 - side
        self.t0 = t
        self._run(t, True)
        return PRESS_SWITCHED

    def release(self, side, t):
        """A lever came up."""
        self._sync(t)
        self.down[side] = -1
        self._held[side] = False

    # -- arbiter ---------------------------------------------------------------

    def _start(self, side, t):
        self.state = RUNNING
        self.run = side
        self.t0 = t
        self._emit(EV_START, side, t, 0)
        self._check_record(0, t)  # TC-9: a control under the threshold marks both at once
        self._check_record(1, t)
        self._run(t, True)

    def start(self, t, side=0):
        """Start a configured clock with ``side`` to move."""
        t = self._sync(t)
        if self.state != IDLE:
            raise ClockError("the clock has already started")
        self._start(side, t)

    def pause(self, t):
        t = self._sync(t)
        if self.state != RUNNING:
            raise ClockError("the clock is not running")
        self._commit(t)
        self.state = PAUSED
        self._emit(EV_PAUSE, self.run, t, 0)

    def resume(self, t):
        t = self._sync(t)
        if self.state not in (PAUSED, KNOCKED):
            raise ClockError("the clock is not paused")
        self.state = RUNNING
        self.t0 = t
        self._emit(EV_RESUME, self.run, t, 0)
        self._run(t, True)

    def knock(self, t):
        """EQ-5: the clock was knocked over; both times stop."""
        t = self._sync(t)
        if self.state not in (RUNNING, PAUSED):
            raise ClockError("the clock is not in play")
        self._commit(t)
        self.state = KNOCKED
        self.knocker = -1
        self._emit(EV_KNOCK, self.run, t, 0)

    def assign_knock(self, side, t):
        """EQ-5: ``side`` knocked the clock; the opponent gets KNOCK_BONUS_MS."""
        t = self._sync(t)
        if self.state != KNOCKED:
            raise ClockError("the clock was not knocked over")
        if self.knocker >= 0:
            raise ClockError("the knock was already assigned")
        self.knocker = side
        if not self.sides[1 - side].flagged:  # a fallen flag stays fallen (TC-8)
            self._adjust(1 - side, self.KNOCK_BONUS_MS, t)

    def adjust(self, side, delta, t):
        """Add ``delta`` ms to ``side`` (negative takes time; taking too much flags)."""
        t = self._sync(t)
        if not -MAX_MS <= delta <= MAX_MS:  # #12
            raise ClockError("a penalty is at most %d ms" % MAX_MS)
        if self.state in (FLAGGED, FINISHED):
            raise ClockError("the game is over")
        if delta and self.sides[side].flagged:
            raise ClockError("that side's flag has fallen (TC-8)")
        self._commit(t)
        self._adjust(side, delta, t)
        self._run(t, True)

    def _adjust(self, side, delta, t):
        s = self.sides[side]
        out = self.tc.adjust(s, delta)
        self._emit(EV_PENALTY, side, t, delta)
        if out and not s.flagged:
            self._flag(side, t)
        else:
            self._check_record(side, t)

    def _check_record(self, side, t):
        s = self.sides[side]
        thr = self.tc.record if self.tc.timing != UPCOUNT else 0
        if thr > 0 and not s.recorded and not s.flagged and self.tc.left_ms(s, 0) < thr:
            s.recorded = True
            self._emit(EV_RECORD, side, t, self.tc.left_ms(s, 0))

    def finish(self, t, result=-1):
        """The arbiter ends the game: both clocks stop. ``result``: the
        winning side (0, 1), RESULT_DRAW, or -1 for none given; the
        displays show it."""
        t = self._sync(t)
        if self.state == IDLE:
            raise ClockError("the clock has not started")
        if not -1 <= result <= RESULT_DRAW:
            raise ClockError("no such result")
        self._commit(t)
        self.state = FINISHED
        self.result = result
        self._emit(EV_FINISH, self.run, t, result)

    @property
    def knocked(self):
        """EQ-5: knocked over and waiting for the arbiter."""
        return self.state == KNOCKED

    def locked(self):
        """EQ-6: settings are locked once both sides made LOCK_MOVES moves."""
        a, b = self.sides
        return a.moves >= self.LOCK_MOVES and b.moves >= self.LOCK_MOVES

    def configure(self, tc, t, override=False):
        """Load a new time control. Before the start it resets the clock;
        during a game it keeps each side's time and moves (EQ-6: after three
        moves each only with ``override``)."""
        t = self._sync(t)
        if self.state in (IDLE, FLAGGED, FINISHED):  # a new game
            self.tc = tc
            self._reset()
            return
        if self.locked() and not override:
            raise ClockError("settings are locked after three moves each (EQ-6)")
        self._commit(t)
        old = self.sides
        self.tc = tc
        for i in (0, 1):
            self._load(i, old[i].main, old[i].moves, -1, -1, -1)
            self._check_record(i, t)

    def set_side(self, side, t, main, moves=-1, periods=-1, bank=-1, block=-1):
        """EQ-7 / arbiter: set ``side``'s main time, and optionally its move
        count, byo-yomi periods left, Canadian block time and moves left."""
        t = self._sync(t)
        if main < 0 or bank < -1:
            raise ClockError("times cannot be negative")
        if main > MAX_MS or bank > MAX_MS:  # #12: the ranges hold in the core too
            raise ClockError("a side holds at most %d ms" % MAX_MS)
        if moves > MAX_MOVES or periods > MAX_PERIODS:
            raise ClockError("at most %d moves and %d periods" % (MAX_MOVES, MAX_PERIODS))
        self._commit(t)
        s = self.sides[side]
        if periods < 0:  # what is not given stays as it is
            periods = s.periods
        if bank < 0 and s.ot:
            bank, block = s.bank, s.left
        self._load(side, main, s.moves if moves < 0 else moves, periods, bank, block)
        self._emit(EV_SET, side, t, main)
        self._check_record(side, t)
        self._run(t, True)

    def _load(self, side, main, moves, periods, bank, block):
        tc = self.tc
        s = self.sides[side]
        recorded = s.recorded
        stage = s.stage if s.stage < len(tc.stages) else 0
        tc.reset(s, side)
        s.recorded = recorded
        s.main = main
        s.moves = moves
        while s.stage < stage and tc.at_flag(s):  # TC-10: stages past a flag stay past
            s.stage += 1
        # Walk the stages to find where move `moves` stands.
        n = moves
        while True:
            st = tc.stages[s.stage]
            if not st.moves or n < st.moves:
                break
            n -= st.moves
            if s.stage + 1 < len(tc.stages):
                s.stage += 1
        s.smoves = n
        ot = tc.overtime
        if ot is not None:
            if periods >= 0:
                s.periods = periods
            if bank >= 0:
                s.bank = bank
            if block > 0:
                s.left = block
            s.ot = main == 0

    def load(self, t, run, state=PAUSED):
        """EQ-7: after ``set_side`` for both sides, put the replacement clock
        in ``state`` (PAUSED or RUNNING) with ``run`` to move."""
        t = self._sync(t)
        if state not in (PAUSED, RUNNING):
            raise ClockError("a loaded clock is paused or running")
        self.run = run
        self.state = state
        self.t0 = t
        self._check_record(0, t)
        self._check_record(1, t)
        self._run(t, True)

    # -- what the displays show -------------------------------------------------

    def left(self, side, t):
        """The ms ``side`` has left at ``t`` (what its display shows)."""
        s = self.sides[side]
        if self.state != RUNNING or t <= self.t0 or s.flagged:
            return self.tc.left_ms(s, 0)
        e = t - self.t0
        if side == self.run:
            return self.tc.left_ms(s, e)
        tc = self.tc
        r = self.sides[self.run]
        if tc.timing == HOURGLASS:
            return s.main + tc.main_used(r, e)
        v = tc.left_ms(s, 0)
        if s.stage == r.stage and tc.at_flag(r) and e >= tc.main_end(r):
            tc.chain(r.stage, e - tc.main_end(r))  # TC-10: both sides' next stages
            for i in range(r.stage + 1, tc._cs + 1):
                v = _cap(v + tc.stages[i].base)
        return v
