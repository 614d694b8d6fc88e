# SPDX-License-Identifier: GPL-3.0-or-later
"""Time controls (RULES §1) as small policy objects. Integer milliseconds only.

A ``TimeControl`` is an immutable description: stages of main time, how main
time is credited (Fischer, Bronstein, simple delay, hourglass) and an optional
overtime policy (Xiangqi count, byo-yomi, Canadian). Each side's mutable state
is a ``SideTime``. All rules are written as functions of a side's state at the
start of a *segment* (the last instant the clock committed that side's time)
and the milliseconds ``e`` elapsed since then; the clock commits a segment on
every press, pause and event, so nothing depends on how often anyone polls.

Nothing here allocates once a game runs: no tuples built, no floats.
"""

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):  # type: ignore
        return x


from . import voice

# How main time is credited.
FISCHER = const(0)  # +inc after every move (TC-1, TC-2; inc 0 is TC-3 sudden death)
BRONSTEIN = const(1)  # after a move, credit back the time used, at most the delay
DELAY = const(2)  # simple (US) delay: main time runs only after the delay
HOURGLASS = const(3)  # what the mover uses, the opponent gains
UPCOUNT = const(4)  # TC-13: each side's clock counts up from 0 and never flags (below MAX_MS)

TIMING_NAMES = ("fischer", "bronstein", "delay", "hourglass", "upcount")

# What a side's record-keeping threshold starts at (TC-9: less than 3 min).
RECORD_MS = const(180000)

# Ranges (#12, docs/protocol.md "Ranges"). A side never holds more than
# MAX_MS: what an increment, a stage, a Canadian block or the hourglass would
# add beyond it is not added. So every time fits the journal's int32 and, as
# twice MAX_MS still does, a small int on the Pico (2**30).
MAX_MS = const(360000000)  # 100 h, as tcspec's longest duration
MAX_MOVES = const(9999)  # a side's move count stops here
MAX_PERIODS = const(99)  # byo-yomi periods (tcspec: 1 to 99)


def _cap(v):
    return v if v < MAX_MS else MAX_MS


class Stage:
    """``moves`` moves in ``base`` ms, +``inc`` ms per move. ``moves`` 0: the
    rest of the game, or, before the last stage, until the first flag (TC-10).
    ``timing``/``delay``: this stage's own method (TC-11), -1: the control's."""

    def __init__(self, base, inc=0, moves=0, timing=-1, delay=0):
        self.base = base
        self.inc = inc
        self.moves = moves
        self.timing = timing
        self.delay = delay

    def __eq__(self, other):
        return (
            isinstance(other, Stage)
            and self.base == other.base
            and self.inc == other.inc
            and self.moves == other.moves
            and self.timing == other.timing
            and self.delay == other.delay
        )


class SideTime:
    """One side's time. Fields are committed values at the segment start."""

    def __init__(self):
        self.main = 0  # main time left, ms
        self.mu = 0  # ms already used in the move in progress
        self.moves = 0  # completed moves
        self.stage = 0  # index into TimeControl.stages
        self.smoves = 0  # moves completed in this stage
        self.ot = False  # main time used up; overtime runs
        self.oc = 0  # ms elapsed in the current count / byo-yomi period
        self.periods = 0  # byo-yomi periods left
        self.bank = 0  # Canadian: ms left for this block of moves
        self.left = 0  # Canadian: moves left in this block
        self.cue = 0  # index of the next voice cue in the current table
        self.flagged = False
        self.recorded = False  # TC-9 threshold crossed (latched)
        self.warned = False  # TC-15 low-time warning given (this stage)


class Overtime:
    """What happens once main time is used up. Subclasses hold the rule."""

    kind = ""

    def reset(self, s):
        """Fresh state, as at the start of the game."""
        s.oc = 0

    def flag_in(self, s):
        """Overtime ms from the segment start until the flag falls."""
        raise NotImplementedError

    def boundary_in(self, s):
        """Overtime ms until a non-flag boundary (a period used up), or -1."""
        return -1

    def advance(self, s, x):
        """Commit ``x`` ms of overtime in the move in progress."""
        s.oc += x

    def next_period(self, s):
        """A period boundary (``boundary_in``) was reached."""

    def complete(self, s):
        """The move in progress was completed in overtime."""
        s.oc = 0
        s.cue = 0

    def left_ms(self, s, x):
        """The time shown after ``x`` more ms of overtime."""
        raise NotImplementedError

    def cues(self, s):
        """The cue table of the current period."""
        return ()

    def retable(self):
        """Build the cue tables for the voice in use (``voice.use``)."""

    def cue_in(self, s):
        """Overtime ms from the segment start to the next voice cue, or -1."""
        table = self.cues(s)
        if s.cue >= len(table):
            return -1
        return table[s.cue][0] - s.oc


class Count(Overtime):
    """TC-5 Xiangqi voice count: every move within ``period`` ms, flag at period + grace."""

    kind = "count"

    def __init__(self, period=10000, grace=500):
        self.period = period
        self.grace = grace
        self.retable()

    def retable(self):
        self.table = voice.count_table(self.period)

    def flag_in(self, s):
        return self.period + self.grace - s.oc

    def left_ms(self, s, x):
        v = self.period - s.oc - x
        return v if v > 0 else 0

    def cues(self, s):
        return self.table

    def __eq__(self, other):
        return (
            isinstance(other, Count) and self.period == other.period and self.grace == other.grace
        )


class ByoYomi(Overtime):
    """TC-6 Japanese byo-yomi: ``periods`` periods of ``period`` ms, no grace."""

    kind = "byoyomi"

    def __init__(self, periods=3, period=60000):
        self.count = periods
        self.period = period
        self.retable()

    def retable(self):
        self.table = voice.byoyomi_table(self.period, False)
        self.table_last = voice.byoyomi_table(self.period, True)

    def reset(self, s):
        s.oc = 0
        s.periods = self.count

    def flag_in(self, s):
        # The last period reaching its end flags, even with a press at that instant.
        return s.periods * self.period - s.oc

    def boundary_in(self, s):
        return self.period - s.oc if s.periods > 1 else -1

    def advance(self, s, x):
        # The clock fires the boundary (``next_period``) before committing past
        # it, so a commit may land on the boundary but never crosses it.
        s.oc += x

    def next_period(self, s):
        """The current period was used up: a fresh one starts."""
        s.periods -= 1
        s.oc -= self.period
        s.cue = 0

    def left_ms(self, s, x):
        c = s.oc + x
        if c >= s.periods * self.period:
            return 0
        return self.period - c % self.period

    def cues(self, s):
        return self.table_last if s.periods <= 1 else self.table

    def __eq__(self, other):
        return (
            isinstance(other, ByoYomi) and self.count == other.count and self.period == other.period
        )


class Canadian(Overtime):
    """TC-7 Canadian: ``moves`` moves within ``period`` ms; unused time carries
    over, or with ``reset`` (TC-12) each block starts again at ``period``.
    ``step`` (#31, progressive: "10 in 5, 20 in 5, 30 in 5", docs/rules.md
    TC-7): each later block has ``step`` moves more; the side's ``periods``
    counts the blocks done (journaled with it)."""

    kind = "canadian"

    def __init__(self, moves=15, period=600000, reset=False, step=0):
        self.moves = moves
        self.period = period
        self.reset_blocks = reset
        self.step = step
        self.retable()

    def retable(self):
        self.table = voice.canadian_table(self.period)

    def cues(self, s):
        return self.table

    def cue_in(self, s):
        # The table is by block time left. Cues the block has already passed
        # (a penalty, a short block) are skipped, never said late.
        t = self.table
        i = s.cue
        while i < len(t) and t[i][0] > s.bank:
            i += 1
        s.cue = i
        return s.bank - t[i][0] if i < len(t) else -1

    def reset(self, s):
        s.oc = 0
        s.bank = self.period
        s.left = self.moves

    def flag_in(self, s):
        return s.bank

    def advance(self, s, x):
        s.bank -= x

    def complete(self, s):
        s.left -= 1
        if s.left <= 0:  # block done: a fresh block, plus what is left over (TC-7)
            if self.step and s.periods < MAX_PERIODS:  # blocks done, when they grow
                s.periods += 1
            s.left = self.block_moves(s)
            s.bank = self.period if self.reset_blocks else _cap(s.bank + self.period)
            s.cue = 0

    def left_ms(self, s, x):
        v = s.bank - x
        return v if v > 0 else 0

    def block_moves(self, s):
        """The moves of ``s``'s block now (#31: ``step`` more each block)."""
        n = self.moves + s.periods * self.step
        return n if n < 999 else 999

    def __eq__(self, other):
        return (
            isinstance(other, Canadian)
            and self.step == other.step
            and self.moves == other.moves
            and self.period == other.period
            and self.reset_blocks == other.reset_blocks
        )


class TimeControl:
    """A whole time control. Build it with ``tcspec.parse`` or directly.

    ``stages``: Stage list; the last one repeats when it has a move count.
    ``timing``/``delay``: FISCHER (stage increments), BRONSTEIN, DELAY, HOURGLASS.
    ``overtime``: None, Count, ByoYomi, Canadian or ``upcount.Upcount``.
    ``handicap``: TC-4, percent; negative cuts side 0's first base (Red -40 %),
    positive adds to side 1's (Black +40 %).
    ``record``: TC-9 threshold in ms (0: off).
    ``freeze``: after a flag, stop both clocks (None: freeze unless plain sudden death).
    ``cap``: TC-14, a Fischer increment never takes main time above it (0: none).
    ``warn``: TC-15 low-time warning threshold in ms (0: off); ``warn_voice``:
    spoken (the cue for the threshold) rather than a short beep.
    ``first``/``second``: TC-16, that side's first-stage base (0: the stage's).
    ``first_inc``/``second_inc``: #31, that side's own first-stage increment
    (-1: the stage's).
    """

    def __init__(
        self,
        stages,
        timing=FISCHER,
        delay=0,
        overtime=None,
        handicap=0,
        record=RECORD_MS,
        freeze=None,
        cap=0,
        warn=0,
        warn_voice=False,
        first=0,
        second=0,
        first_inc=-1,
        second_inc=-1,
    ):
        self.stages = tuple(stages)
        self.timing = timing
        self.delay = delay
        self.overtime = overtime
        self.handicap = handicap
        self.record = record
        self.freeze = freeze
        self.cap = cap
        self.warn = warn
        self.warn_voice = warn_voice
        self.first = first
        self.second = second
        self.first_inc = first_inc
        self.second_inc = second_inc
        self._cs = 0  # chain(): scratch, so the display path builds no tuple
        self._ce = 0

    def __eq__(self, other):
        return (
            isinstance(other, TimeControl)
            and self.stages == other.stages
            and self.timing == other.timing
            and self.delay == other.delay
            and self.overtime == other.overtime
            and self.handicap == other.handicap
            and self.record == other.record
            and self.freeze == other.freeze
            and self.cap == other.cap
            and self.warn == other.warn
            and self.warn_voice == other.warn_voice
            and self.first == other.first
            and self.second == other.second
            and self.first_inc == other.first_inc
            and self.second_inc == other.second_inc
        )

    def __repr__(self):
        from . import tcspec

        return "TimeControl(%r)" % tcspec.format(self)

    # -- setup ---------------------------------------------------------------

    def base_for(self, side):
        """First-stage base for ``side``: its own (TC-16), with the TC-4 handicap applied."""
        base = self.stages[0].base
        own = self.first if side == 0 else self.second
        if own:
            base = own
        h = self.handicap
        if h < 0 and side == 0:
            return base - base * -h // 100
        if h > 0 and side == 1:
            return _cap(base + base * h // 100)
        return base

    def freezes(self):
        """Whether a flag stops both clocks (issue #2: increment modes freeze)."""
        if self.freeze is not None:
            return self.freeze
        if self.overtime is not None or self.timing != FISCHER:
            return True
        for st in self.stages:
            if st.inc or st.moves or st.timing > 0:
                return True
        return self.first_inc > 0 or self.second_inc > 0

    def timing_of(self, stage):
        """The method of stage ``stage`` (TC-11: its own, else the control's)."""
        t = self.stages[stage].timing
        return self.timing if t < 0 else t

    def delay_of(self, stage):
        st = self.stages[stage]
        return self.delay if st.timing < 0 else st.delay

    def at_flag(self, s):
        """TC-10: ``s``'s stage ends at the first flag (no move count, not the last)."""
        return self._at_flag(s.stage)

    def _at_flag(self, i):
        return not self.stages[i].moves and i + 1 < len(self.stages)

    def chain(self, stage, x):
        """TC-10: ``x`` ms after the flag ends ``stage``, which stage runs
        (``_cs``) and for how long it has (``_ce``). Each change starts the
        next stage's base afresh (and its delay: the move's time restarts)."""
        i = stage + 1
        while self._at_flag(i):
            d = self.delay_of(i) if self.timing_of(i) == DELAY else 0
            need = d + self.stages[i].base
            if x < need:
                break
            x -= need
            i += 1
        self._cs = i
        self._ce = x

    def next_stage(self, s):
        """TC-10: the next stage's base is added (both sides at the first flag)."""
        if s.stage + 1 < len(self.stages):
            s.stage += 1
        s.smoves = 0
        s.warned = False
        s.main = _cap(s.main + self.stages[s.stage].base)

    def reset(self, s, side):
        s.main = self.base_for(side)
        s.mu = 0
        s.moves = 0
        s.stage = 0
        s.smoves = 0
        s.ot = False
        s.cue = 0
        s.flagged = False
        s.recorded = False
        s.warned = False
        s.periods = 0
        s.bank = 0
        s.left = 0
        if self.overtime is not None:
            self.overtime.reset(s)
        else:
            s.oc = 0

    # -- the time function ---------------------------------------------------

    def _free(self, s):
        # Simple delay: ms of the move that do not touch main time yet.
        if self.timing_of(s.stage) == DELAY:
            d = self.delay_of(s.stage)
            if d > s.mu:
                return d - s.mu
        return 0

    def main_end(self, s):
        """Segment ms until main time is used up (0 once in overtime)."""
        if s.ot:
            return 0
        if self.timing == UPCOUNT:  # counts up: "used up" at MAX_MS
            return MAX_MS - s.main
        return self._free(s) + s.main

    def main_used(self, s, e):
        """Main ms consumed by ``e`` ms of this segment."""
        if s.ot or self.timing == UPCOUNT:
            return 0
        u = e - self._free(s)
        if u <= 0:
            return 0
        return u if u < s.main else s.main

    def flag_in(self, s):
        """Segment ms until ``s`` flags, or -1 if it already has.

        While main time runs the overtime state is fresh (the count and period
        at 0, a full Canadian block), so one formula serves both phases.
        """
        if s.flagged:
            return -1
        me = self.main_end(s)
        if self.overtime is None:
            return me
        return me + self.overtime.flag_in(s)

    def left_ms(self, s, e):
        """The time shown for ``s`` after ``e`` ms of running."""
        if s.flagged:
            return 0
        if self.timing == UPCOUNT:
            return _cap(s.main + e)
        if not s.ot:
            me = self.main_end(s)
            if e >= me and self.at_flag(s):  # TC-10: the next stages show from the flag on
                self.chain(s.stage, e - me)
                st = self.stages[self._cs]
                x = self._ce  # ms run in that stage, which started with its base, mu 0
                b = _cap(st.base)
                d = self.delay_of(self._cs) if self.timing_of(self._cs) == DELAY else 0
                if x >= d + b and self.overtime is not None and not self._at_flag(self._cs):
                    return self.overtime.left_ms(s, x - d - b)
                v = b - (x - d if x > d else 0)
                return v if v > 0 else 0
            if e < me or self.overtime is None:
                v = s.main - self.main_used(s, e)
                return v if v > 0 else 0
            return self.overtime.left_ms(s, e - me)
        return self.overtime.left_ms(s, e)  # type: ignore[union-attr]

    def record_in(self, s):
        """Segment ms until the shown time first drops below the TC-9 threshold, or -1."""
        thr = self.record
        if thr <= 0 or s.recorded or s.flagged or self.timing == UPCOUNT:
            return -1
        ot = self.overtime
        up = ot is not None and ot.kind == "upcount"  # counting up: never below a threshold
        if up and s.ot:
            return -1
        if not s.ot and (s.main > 0 or ot is None or up):
            v = s.main - thr + 1  # main time shows below thr after v ms of charging
            return v + self._free(s) if v > 0 else 0
        # The overtime display (from main_end on, if main time is still to run out).
        v = ot.left_ms(s, 0) - thr + 1  # type: ignore[union-attr]
        return self.main_end(s) + (v if v > 0 else 0)

    def warn_in(self, s):
        """TC-15: segment ms until main time shows under ``warn``, or -1."""
        thr = self.warn
        if thr <= 0 or s.warned or s.flagged or s.ot or self.timing == UPCOUNT:
            return -1
        v = s.main - thr + 1
        return v + self._free(s) if v > 0 else 0

    # -- committing time -----------------------------------------------------

    def advance(self, s, e):
        """Commit ``e`` ms of the move in progress; return main ms consumed."""
        used = 0
        if self.timing == UPCOUNT:
            s.main = _cap(s.main + e)
            s.mu += e
            return 0
        if not s.ot:
            me = self.main_end(s)
            # Landing exactly on the end of main time stays in main time: the
            # clock's overtime event (``enter_overtime``) crosses over.
            if e <= me or self.overtime is None:
                used = self.main_used(s, e)
                s.main -= used
                s.mu += e
                return used
            used = s.main
            s.main = 0
            s.ot = True
            s.cue = 0
            s.mu += me
            e -= me
        self.overtime.advance(s, e)  # type: ignore[union-attr]
        s.mu += e
        return used

    def complete(self, s, side=0):
        """End side ``side``'s move in progress: increments (its own, #31),
        overtime and stage bookkeeping."""
        if s.ot:
            self.overtime.complete(s)  # type: ignore[union-attr]
        else:
            st = self.stages[s.stage]
            timing = self.timing_of(s.stage)
            if timing == FISCHER:
                inc = st.inc
                if not s.stage:  # #31: a side's own increment, in the first stage
                    own = self.second_inc if side else self.first_inc
                    if own >= 0:
                        inc = own
                v = _cap(s.main + inc)
                cap = self.cap  # TC-14: not above the cap, never below what it was
                if cap and v > cap:
                    v = cap if s.main < cap else s.main
                s.main = v
            elif timing == BRONSTEIN:
                d = self.delay_of(s.stage)
                s.main = _cap(s.main + (s.mu if s.mu < d else d))
        s.mu = 0
        if s.moves < MAX_MOVES:
            s.moves += 1
        if s.smoves < MAX_MOVES:
            s.smoves += 1
        st = self.stages[s.stage]
        new_stage = False
        if st.moves and s.smoves >= st.moves:
            self.next_stage(s)
            new_stage = True
            if s.ot:  # fresh main time ends overtime
                self.leave_overtime(s)
        return new_stage

    def enter_overtime(self, s):
        """Main time is used up: the fresh overtime state starts counting."""
        s.main = 0
        s.ot = True
        s.cue = 0

    def leave_overtime(self, s):
        s.ot = False
        s.cue = 0
        ot = self.overtime
        if ot is not None:
            periods = s.periods
            ot.reset(s)
            if ot.kind == "byoyomi":
                s.periods = periods  # periods used stay used

    def adjust(self, s, delta):
        """Add (or take) ``delta`` ms. Returns True if the side is now out of time.

        Main time takes the change; a Canadian side in overtime has it on its
        block. Taking more than there is flags.
        """
        if delta == 0:
            return False
        if self.timing == UPCOUNT:  # TC-13: a gift takes from the count, a penalty adds
            v = s.main - delta
            s.main = 0 if v < 0 else _cap(v)
            return False
        ot = self.overtime
        if s.ot and ot is not None and ot.kind == "upcount":  # a gift takes from the time over
            v = s.oc - delta
            s.oc = 0 if v < 0 else _cap(v)
            return False
        if s.ot and ot is not None and ot.kind == "canadian":
            s.bank = _cap(s.bank + delta)
            return s.bank <= 0
        if s.ot:  # count or byo-yomi: nothing to take from; a gift is main time
            if delta > 0:
                self.leave_overtime(s)
                s.main = _cap(delta)
            return delta < 0
        s.main = _cap(s.main + delta)
        if s.main <= 0:
            s.main = 0
            return True
        return False

    def cue_in(self, s):
        """Segment ms until the next voice cue, or -1. ``s.cue`` indexes it."""
        ot = self.overtime
        if ot is None or s.flagged:
            return -1
        d = ot.cue_in(s)
        if s.ot or d < 0:
            return d
        # Not yet in overtime: the first cue of the fresh period (s.cue is 0).
        return self.main_end(s) + d

    def cue_id(self, s):
        """The id of the cue ``s.cue`` points at, the periods left filled in (``voice.fill``)."""
        ot = self.overtime
        cue = ot.cues(s)[s.cue][1]  # type: ignore[union-attr]
        if cue >= voice.MARK_IN:
            cue = voice.fill(cue, s.periods - 1, ot.period)  # type: ignore[union-attr]
        return cue
