# SPDX-License-Identifier: GPL-3.0-or-later
"""Property-based tests of the pure clock core (RULES §1: TC-1 ... TC-9; EQ-3, EQ-5).

Every expectation here is computed by a small reference model written from the
rule texts and the actions the test generated; the core's own helpers are never
asked what the answer should be. Times are integer ms passed in: nothing sleeps.

The regression tests at the end pin the core bugs these properties found
(each with its minimal reproduction).
"""

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qizhong.core import clock, tcspec, timecontrol, voice

EV = clock
SELF_EVENTS = (
    EV.EV_FLAG, EV.EV_CUE, EV.EV_OVERTIME, EV.EV_PERIOD, EV.EV_RECORD, EV.EV_HELD,
    EV.EV_WARN, EV.EV_STAGE,  # TC-15, TC-10
)  # fmt: skip
KNOCK_BONUS = 60000  # EQ-5: the knocker's opponent gets +60 s
SEC, MIN1, LEFT = 100, 200, 300  # voice cue ids, as documented in voice.py


class BigClock(clock.Clock):
    """The core clock with a roomy event ring, so one call may fire any number of
    events. (With the real 32-slot ring ``tick`` stops at a full ring, but an
    action after a long gap runs to its instant: ``run_small_ring`` drives the
    real ring the way the firmware must.)"""

    EVENTS = 4096


def new_clock(spec):
    return BigClock(tcspec.parse(spec))


def drain(c):
    """All waiting events as (kind, side, t, arg); TC: every value is an int."""
    out = []
    while True:
        k = c.pop_event()
        if not k:
            break
        ev = (k, c.ev_side, c.ev_t, c.ev_arg)
        assert all(type(v) is int for v in ev), ev
        out.append(ev)
    assert c.lost == 0
    return out


def left(c, side, t):
    v = c.left(side, t)
    assert type(v) is int, v
    assert v >= 0
    return v


def kinds(evs, *which):
    return [e for e in evs if e[0] in which]


def without_marks(evs):
    """The events other than TC-9 record marks and EQ-3 held levers."""
    return [e for e in evs if e[0] not in (EV.EV_RECORD, EV.EV_HELD)]


# -- 1. conservation: no millisecond created or lost (TC-1, TC-2, TC-3, TC-4, EQ-5) ---------


@dataclass
class Plain:
    spec: str
    mode: str  # fischer | bronstein | delay | hourglass
    stages: list  # [(base, inc, moves)]
    delay: int
    base: tuple  # each side's first main time (TC-4 handicap applied)


@st.composite
def plain_controls(draw):
    """Controls without overtime, with random bases, increments and delays."""
    mode = draw(st.sampled_from(("fischer", "stages", "bronstein", "delay", "hourglass")))
    ms = st.integers(1, 20 * 60000)
    delay = 0
    handicap = ""
    if mode in ("fischer", "stages"):
        n = 1 if mode == "fischer" else draw(st.integers(2, 3))
        handicap = draw(st.sampled_from(("", "", "red", "black")))
        stages = []
        for k in range(n):
            moves = draw(st.integers(1, 4)) if k < n - 1 else draw(st.integers(0, 3))
            base = draw(ms)
            if k == 0 and handicap:
                base = 100 * draw(st.integers(1, 12000))  # whole percentages stay exact
            stages.append((base, draw(st.integers(0, 60000)), moves))
        parts = []
        for base, inc, moves in stages:
            s = "%dms" % base
            if moves:
                s = "%d/%s" % (moves, s)
            if inc:
                s += "+%dms" % inc
            parts.append(s)
        spec = ":".join(parts)
        mode = "fischer"
    else:
        stages = [(draw(ms), 0, 0)]
        spec = "%dms" % stages[0][0]
        if mode == "hourglass":
            spec += " hourglass"
        else:
            delay = draw(st.integers(1, 30000))
            spec += " %s %dms" % (mode, delay)
    b = stages[0][0]
    base = (b, b)
    if handicap:
        pct = draw(st.integers(1, 90))
        if handicap == "red":  # TC-4: Red's base reduced by pct % of the base
            spec += " red -%d%%" % pct
            base = (b * (100 - pct) // 100, b)
        else:  # variant: Black's base increased by pct %
            spec += " black +%d%%" % pct
            base = (b, b * (100 + pct) // 100)
    return Plain(spec, mode, stages, delay, base)


class Model:
    """The rules' bookkeeping: start + credits - charged, per side."""

    def __init__(self, p, first):
        self.p = p
        self.run = first
        self.mt = 0  # running ms of the move in progress (pauses excluded)
        self.ran = [0, 0]  # total running ms
        self.credit = [0, 0]  # increments, Bronstein credits, stage bases
        self.pen = [0, 0]  # penalties and knock bonuses
        self.charged = [0, 0]  # simple delay: sum over moves of max(0, move - delay)
        self.moves = [0, 0]
        self.stage = [0, 0]
        self.smoves = [0, 0]

    def shown(self, i):
        p = self.p
        if p.mode == "hourglass":
            return p.base[i] + self.ran[1 - i] - self.ran[i] + self.pen[i]
        if p.mode == "delay":
            now = max(0, self.mt - p.delay) if i == self.run else 0
            return p.base[i] + self.pen[i] - self.charged[i] - now
        return p.base[i] + self.credit[i] + self.pen[i] - self.ran[i]

    def to_flag(self):
        """Running ms the side to move has before its flag falls."""
        extra = max(0, self.p.delay - self.mt) if self.p.mode == "delay" else 0
        return self.shown(self.run) + extra

    def think(self, dt):
        self.ran[self.run] += dt
        self.mt += dt

    def press(self):
        """Complete the move; returns the new stage index if one began, else -1."""
        r = self.run
        p = self.p
        new_stage = -1
        if p.mode == "fischer":
            k = self.stage[r]
            self.credit[r] += p.stages[k][1]
            self.smoves[r] += 1
            if p.stages[k][2] and self.smoves[r] == p.stages[k][2]:
                k = min(k + 1, len(p.stages) - 1)  # the last stage repeats
                self.stage[r] = k
                self.smoves[r] = 0
                self.credit[r] += p.stages[k][0]
                new_stage = k
        elif p.mode == "bronstein":
            self.credit[r] += min(self.mt, p.delay)
        elif p.mode == "delay":
            self.charged[r] += max(0, self.mt - p.delay)
        self.moves[r] += 1
        self.run = 1 - r
        self.mt = 0
        return new_stage


def check_model(c, m, t):
    assert c.state == clock.RUNNING
    assert c.run == m.run
    for i in (0, 1):
        assert left(c, i, t) == m.shown(i), (i, t)
        assert c.sides[i].moves == m.moves[i]


THINK = st.one_of(st.just(0), st.integers(0, 3000), st.integers(0, 10**7))
CONS_ACTION = st.tuples(
    st.sampled_from(("move",) * 6 + ("think", "press", "wrong", "pause", "knock", "pen")),
    THINK,
    st.integers(0, 1),
    st.integers(-(10**6), 10**6),
)


@settings(max_examples=400, deadline=None)
@given(
    plain_controls(),
    st.integers(0, 10**9),
    st.integers(0, 1),
    st.lists(CONS_ACTION, min_size=8, max_size=60),
)
def test_conservation_no_millisecond_created_or_lost(p, t0, first, actions):
    """TC-1/2/3 Fischer and multi-stage, TC-4 handicap, Bronstein, simple delay,
    hourglass; EQ-5 knock bonus; penalties. Paused and knocked time is never
    charged, and the side to move flags exactly when the model says it runs out
    (TC-8)."""
    tc = tcspec.parse(p.spec)
    assert tc.stages == tuple(timecontrol.Stage(b, i, n) for b, i, n in p.stages)
    assert tc.overtime is None
    c = BigClock(tc)
    m = Model(p, first)
    t = t0
    c.start(t, first)
    drain(c)
    check_model(c, m, t)
    for kind, dt, side, delta in actions:
        if kind in ("think", "move"):
            dt = min(dt, m.to_flag() - 1)
            t += dt
            m.think(dt)
            c.tick(t)
            if kind == "move":
                check_model(c, m, t)
        if kind in ("press", "move"):
            r = m.run
            assert c.press(r, t) == clock.PRESS_SWITCHED
            c.release(r, t)
            stage = m.press()
            want = [(EV.EV_STAGE, r, t, stage)] if stage >= 0 else []
            want.append((EV.EV_PRESS, r, t, m.shown(r)))  # arg: the presser's time after
            assert kinds(drain(c), EV.EV_STAGE, EV.EV_PRESS) == want
        if kind == "wrong":  # the side not to move presses: nothing switches
            w = 1 - m.run
            assert c.press(w, t) == clock.PRESS_IGNORED
            c.release(w, t)
            assert kinds(drain(c), EV.EV_WRONG) == [(EV.EV_WRONG, w, t, clock.RUNNING)]
        elif kind == "pause":
            c.pause(t)
            assert c.state == clock.PAUSED
            t += dt
            for i in (0, 1):
                assert left(c, i, t) == m.shown(i)
            c.resume(t)
        elif kind == "knock":  # EQ-5: both frozen; the knocker's opponent gets +60 s
            c.knock(t)
            assert c.state == clock.KNOCKED
            t += dt
            for i in (0, 1):
                assert left(c, i, t) == m.shown(i)
            c.assign_knock(side, t)
            m.pen[1 - side] += KNOCK_BONUS
            c.resume(t)
        elif kind == "pen":  # penalty (or gift): never takes a side to 0 here
            if delta < 0:
                delta = -min(-delta, m.shown(side) - 1)
            c.adjust(side, delta, t)
            m.pen[side] += delta
            assert kinds(drain(c), EV.EV_PENALTY) == [(EV.EV_PENALTY, side, t, delta)]
        assert kinds(drain(c), EV.EV_FLAG) == []
        check_model(c, m, t)

    # Now the side to move never presses: its flag falls exactly when its time is out.
    r = m.run
    out = m.to_flag()
    c.tick(t + out - 1)
    assert kinds(drain(c), EV.EV_FLAG) == []
    assert left(c, r, t + out - 1) == 1
    c.tick(t + out)
    assert kinds(drain(c), EV.EV_FLAG) == [(EV.EV_FLAG, r, t + out, 1)]
    m.think(out)
    assert left(c, r, t + out) == 0 == m.shown(r)
    assert left(c, 1 - r, t + out) == m.shown(1 - r)


# -- 3./4./6. determinism, exact deadlines, integer ms (all controls) ------------------------


@st.composite
def any_specs(draw):
    """Any control: Fischer (stages), Bronstein, delay, hourglass, with or without
    count (TC-5), byo-yomi (TC-6) or Canadian (TC-7) overtime, TC-4, TC-9, flag mode."""
    timing = draw(
        st.sampled_from(("fischer", "fischer", "bronstein", "delay", "hourglass", "upcount"))
    )
    if timing == "upcount":  # TC-13
        return "upcount" + draw(st.sampled_from(("", " record off", " flag run")))
    ot = "none"
    if timing != "hourglass":  # an hourglass has no overtime
        ot = draw(st.sampled_from(("none", "count", "byoyomi", "canadian")))
    n = draw(st.integers(1, 3)) if timing == "fischer" else 1
    lo = 1 if ot == "none" or n > 1 else 0
    at_flag = n > 1 and draw(st.booleans())  # TC-10: stages to the first flag
    parts = []
    for k in range(n):
        s = "%dms" % draw(st.integers(lo, 90000))
        if (k < n - 1 and not at_flag) or (k == n - 1 and draw(st.booleans())):
            s = "%d/%s" % (draw(st.integers(1, 4)), s)
        if timing == "fischer" and draw(st.booleans()):
            s += "+%dms" % draw(st.integers(1, 20000))
        elif timing == "fischer" and draw(st.booleans()):  # TC-11: this stage's own delay
            s += "+%s%dms" % (draw(st.sampled_from("db")), draw(st.integers(1, 20000)))
        parts.append(s)
    spec = ":".join(parts)
    if timing == "hourglass":
        spec = spec.split("/")[-1] + " hourglass"
    elif timing != "fischer":
        spec += " %s %dms" % (timing, draw(st.integers(1, 20000)))
    if ot == "count":
        spec += " count %ds grace %dms" % (draw(st.integers(1, 12)), draw(st.integers(0, 5000)))
    elif ot == "byoyomi":
        period = draw(st.one_of(st.just(60), st.integers(1, 40)))
        spec += " byoyomi %dx%ds" % (draw(st.integers(1, 4)), period)
    elif ot == "canadian":
        spec += " canadian %d/%dms" % (draw(st.integers(1, 4)), draw(st.integers(1000, 60000)))
        spec += draw(st.sampled_from(("", " reset")))  # TC-12
    if timing == "fischer" and "+" in spec and "+d" not in spec and "+b" not in spec:
        spec += draw(st.sampled_from(("", " cap 100h")))  # TC-14 (before black +25%'s "+")
    spec += draw(st.sampled_from(("", "", " red -40%", " black +25%", " second 30s", " first 2m")))
    spec += draw(st.sampled_from(("", " warn 20s", " warn 1m voice")))  # TC-15
    thr = draw(st.one_of(st.just(1000), st.integers(1000, 200000)))  # at least 1 s
    spec += draw(st.sampled_from(("", " record off", " record %dms" % thr)))
    spec += draw(st.sampled_from(("", "", " flag run", " flag freeze")))
    return spec


ARBITER = ("pause", "resume", "adjust", "knock", "assign", "start")
ACT_KINDS = ("press",) * 6 + ("release",) * 3 + ARBITER
STEP = st.tuples(
    st.one_of(st.just(0), st.integers(0, 5000), st.integers(0, 90000)),
    st.tuples(st.sampled_from(ACT_KINDS), st.integers(0, 1), st.integers(-90000, 90000)),
    st.lists(st.integers(0, 2**31), max_size=4),
)


@st.composite
def scenarios(draw):
    spec = draw(any_specs())
    t0 = draw(st.integers(0, 10**9))
    steps = [(0, ("start", draw(st.integers(0, 1)), 0), [])]
    steps += draw(st.lists(STEP, min_size=3, max_size=30))
    tail = draw(st.one_of(st.integers(0, 10000), st.integers(0, 10**6)))
    return spec, t0, steps, tail


def act(c, a, t):
    """Run one action; "refused" for a ClockError (an impossible command)."""
    kind, side, delta = a
    try:
        if kind == "press":
            return c.press(side, t)
        if kind == "release":
            c.release(side, t)
        elif kind == "pause":
            c.pause(t)
        elif kind == "resume":
            c.resume(t)
        elif kind == "adjust":
            c.adjust(side, delta, t)
        elif kind == "knock":
            c.knock(t)
        elif kind == "assign":
            c.assign_knock(side, t)
        else:
            c.start(t, side)
    except clock.ClockError:
        return "refused"
    return 0


# Fields of a side that do not depend on where its running segment was last committed.
COUNTERS = ("moves", "stage", "smoves", "ot", "periods", "left", "cue", "flagged", "recorded")


def final(c, t):
    """Everything observable at the end, and each side's committed fields."""
    return (
        c.state,
        c.run,
        c.first_flag,
        c.knocked,
        c.knocker,
        left(c, 0, t),
        left(c, 1, t),
        list(c.down),
        c.late,
        [[(k, getattr(s, k)) for k in COUNTERS] for s in c.sides],
        [sorted(vars(s).items()) for s in c.sides],
    )


def snapshot(c):
    return (
        c.state,
        c.run,
        c.t0,
        c.now,
        c.first_flag,
        c.knocked,
        c.knocker,
        list(c.down),
        [sorted(vars(s).items()) for s in c.sides],
    )


def poll_times(t, gap, polls):
    return sorted(t + p % (gap + 1) for p in polls)


def run_actions_only(spec, t0, steps, tail, zero_adjusts=False):
    """Tick only at the actions (each action fires what is due first).

    ``zero_adjusts``: also adjust a side by 0 ms at the poll instants, which
    commits (splits) the running side's segment there and must change nothing.
    """
    c = new_clock(spec)
    evs, res = [], []
    t = t0
    for gap, a, polls in steps:
        if zero_adjusts:
            for p, tp in zip(polls, poll_times(t, gap, polls), strict=True):
                try:
                    c.adjust(p & 1, 0, tp)
                except clock.ClockError:
                    pass
                evs += drain(c)
        t += gap
        res.append(act(c, a, t))
        evs += drain(c)
    c.tick(t + tail)
    evs += drain(c)
    return evs, res, final(c, t + tail)


def point(c, t):
    r = c.run
    flagged = c.sides[0].flagged or c.sides[1].flagged  # a flagged side shows 0
    return (t, c.state, r, left(c, 0, t), left(c, 1, t), flagged)


def check_monotone(a, b, evs, hourglass, up=False):
    """Monotonic displays between two polls with no action in between."""
    t1, s1, r1, *l1, f1 = a
    t2, s2, r2, *l2, _ = b
    if not (s1 == s2 == clock.RUNNING and r1 == r2):
        return
    if kinds(evs, EV.EV_OVERTIME, EV.EV_PERIOD, EV.EV_FLAG, EV.EV_STAGE):
        return  # a new overtime period, or TC-10's next stage, shows a fresh time
    r, o, dt = r1, 1 - r1, t2 - t1
    if up:  # TC-13: the mover's count rises with time, the other stands still
        assert l2[r] - l1[r] == dt and l2[o] == l1[o], (a, b)
        return
    fell = l1[r] - l2[r]
    assert 0 <= fell <= dt, (a, b)  # never rises, never falls faster than time
    if hourglass and not f1:  # what the mover uses, the opponent gains
        assert fell == dt
        assert l2[o] - l1[o] == dt
    else:
        assert l2[o] >= l1[o]


def run_polled(spec, t0, steps, tail):
    """Tick at many random instants between the actions, checking on the way that
    the display never depends on the polling, that it is monotonic, and that a
    refused command changes nothing."""
    c = new_clock(spec)
    hourglass = "hourglass" in spec  # never with an overtime
    evs, res = [], []
    t = t0
    last = point(c, t)
    for gap, a, polls in steps:
        for tp in [*poll_times(t, gap, polls), t + gap]:
            before = (left(c, 0, tp), left(c, 1, tp))
            c.next_deadline()
            c.tick(tp)
            new = drain(c)
            # The display does not depend on the polling.
            assert (left(c, 0, tp), left(c, 1, tp)) == before
            cur = point(c, tp)
            check_monotone(last, cur, new, hourglass, spec.startswith("upcount"))
            last = cur
            evs += new
        t += gap
        snap = snapshot(c)
        r = act(c, a, t)
        res.append(r)
        new = drain(c)
        if r == "refused":  # ClockError: refused, and nothing changed
            assert new == []
            assert snapshot(c) == snap
        evs += new
        last = point(c, t)
    for tp in poll_times(t, tail, [t * 7 + 3, t * 13 + 1]):
        c.tick(tp)
        evs += drain(c)
    c.tick(t + tail)
    evs += drain(c)
    return evs, res, final(c, t + tail)


def jump_to(c, target, evs):
    """Simulate the firmware's sleep: jump straight from deadline to deadline.

    Checks that deadlines are exact (TC-8: the flag beeps on time): nothing fires
    at deadline - 1, every event fired at the deadline carries exactly that time,
    and the next deadline lies strictly later.
    """
    while True:
        d = c.next_deadline()
        assert type(d) is int
        if d < 0 or d > target:
            return
        assert d > c.now  # never a deadline in the past
        c.tick(d - 1)
        assert drain(c) == []
        c.tick(d)
        new = drain(c)
        assert new, d
        assert all(e[2] == d and e[0] in SELF_EVENTS for e in new), (d, new)
        nd = c.next_deadline()
        assert nd < 0 or nd > d
        evs += new


def run_jumping(spec, t0, steps, tail):
    c = new_clock(spec)
    evs, res = [], []
    t = t0
    for gap, a, _ in steps:
        t += gap
        jump_to(c, t, evs)
        res.append(act(c, a, t))
        evs += drain(c)
    jump_to(c, t + tail, evs)
    c.tick(t + tail)
    evs += drain(c)
    return evs, res, final(c, t + tail)


def tick_through(c, t, evs):
    """Tick to ``t`` with the firmware's own 32-slot ring: a full ring stops the
    tick early; drain it and tick again until the ring is not full."""
    while True:
        n = c.tick(t)
        evs += drain(c)
        if n < c.EVENTS:
            return


def run_small_ring(spec, t0, steps, tail):
    c = clock.Clock(tcspec.parse(spec))
    evs, res = [], []
    t = t0
    for gap, a, _ in steps:
        t += gap
        tick_through(c, t, evs)
        res.append(act(c, a, t))
        evs += drain(c)
    tick_through(c, t + tail, evs)
    return evs, res, final(c, t + tail)


@settings(max_examples=400, deadline=None)
@given(scenarios())
def test_events_do_not_depend_on_polling(sc):
    """TC-5, TC-6, TC-6a/b, TC-7, TC-8, TC-9, EQ-3, EQ-5: ticking only at the
    actions, at many random instants in between, or jumping from deadline to
    deadline gives the same events (kinds, sides, times, args), the same command
    results and the same final times; so does the real 32-slot ring, drained
    whenever a tick stops at a full ring. Also: events come out in time order."""
    a = run_actions_only(*sc)
    assert run_polled(*sc) == a
    assert run_jumping(*sc) == a
    assert run_small_ring(*sc) == a
    times = [e[2] for e in a[0]]
    assert times == sorted(times)


@settings(max_examples=300, deadline=None)
@given(scenarios())
def test_splitting_a_segment_changes_nothing(sc):
    """TC-1 ... TC-9: committing the running side's time at extra instants (a 0 ms
    adjustment) must not change any time or event."""
    spec, t0, steps, tail = sc
    a = run_actions_only(spec, t0, steps, tail)
    z = run_actions_only(spec, t0, steps, tail, zero_adjusts=True)

    def strip(evs):
        return [e for e in evs if not (e[0] == EV.EV_PENALTY and e[3] == 0)]

    assert strip(z[0]) == strip(a[0])
    assert z[1] == a[1]
    assert z[2][:-1] == a[2][:-1]  # main, mu, oc, bank are committed at other instants


# -- 2. monotonicity, stated directly -------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    plain_controls(),
    st.integers(0, 10**6),
    st.lists(st.integers(0, 10**6), min_size=2, max_size=20),
)
def test_monotonic_while_one_side_runs(p, t0, polls):
    """While side 0 runs: side 1's display never drops (hourglass: it rises by
    exactly the time side 0 uses), side 0's never rises and never falls faster
    than time (TC-1, TC-3, Bronstein, delay, hourglass)."""
    c = new_clock(p.spec)
    c.start(t0, 0)
    prev = None
    for tp in sorted(t0 + x for x in polls):
        c.tick(tp)
        evs = drain(c)
        cur = (left(c, 0, tp), left(c, 1, tp))
        if prev is not None and not kinds(evs, EV.EV_FLAG):
            dt = tp - prev[0]
            assert 0 <= prev[1][0] - cur[0] <= dt
            if p.mode == "hourglass":
                assert cur[1] - prev[1][1] == prev[1][0] - cur[0]
                if cur[0] > 0:  # side 0 still has time: every ms it uses moves over
                    assert cur[1] - prev[1][1] == dt
            else:
                assert cur[1] == prev[1][1]
        prev = (tp, cur)


# -- 5. flags (TC-3, TC-8) ------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 10**7),
    st.integers(0, 60000),
    st.sampled_from(("", " flag run", " flag freeze")),
    st.integers(0, 10**9),
    st.integers(0, 1),
    st.integers(0, 10**7),
    st.integers(0, 10**6),
    st.booleans(),
    st.sampled_from((0, 0, 1, 3600000)),
)
def test_flag_at_exactly_start_plus_base(base, inc, how, t0, side, lead, late, save, stage2):
    """TC-3/TC-8: a side that does not press flags at exactly the start of its
    move + base; a press 1 ms earlier saves it and earns the increment (and a
    next stage's base), a press at or after the flag instant never earns one."""
    i = "+%dms" % inc if inc else ""
    spec = "%dms%s" % (base, i)
    if stage2:  # 1 move in base, then stage2 more (the first move completes the stage)
        spec = "1/%s:%dms%s" % (spec, stage2, i)
    spec += how
    freeze = how == " flag freeze" or (how == "" and (inc > 0 or stage2 > 0))
    c = new_clock(spec)
    c.start(t0, 0)
    start = t0
    if side == 1:  # side 0 moves first, within its time
        start = t0 + lead % base
        assert c.press(0, start) == clock.PRESS_SWITCHED
        c.release(0, start)
    opp = left(c, 1 - side, start)
    flag = start + base
    drain(c)
    c.tick(flag - 1)
    assert kinds(drain(c), EV.EV_FLAG) == []
    assert left(c, side, flag - 1) == 1
    if save:  # the last millisecond
        assert c.press(side, flag - 1) == clock.PRESS_SWITCHED
        assert kinds(drain(c), EV.EV_FLAG) == []
        assert left(c, side, flag - 1) == 1 + inc + stage2
        return
    c.tick(flag)
    assert without_marks(drain(c)) == [(EV.EV_FLAG, side, flag, 1)]
    assert c.state == (clock.FLAGGED if freeze else clock.RUNNING)
    tp = flag + late
    r = c.press(side, tp)
    evs = drain(c)
    assert left(c, side, tp) == 0  # no increment after the flag
    assert c.sides[side].main == 0  # nor any credited out of sight
    assert left(c, 1 - side, tp) == opp
    assert kinds(evs, EV.EV_STAGE) == []
    if freeze:
        assert r == clock.PRESS_IGNORED
        assert evs == [(EV.EV_WRONG, side, tp, clock.FLAGGED)]
        return
    assert r == clock.PRESS_SWITCHED
    assert kinds(evs, EV.EV_PRESS) == [(EV.EV_PRESS, side, tp, 0)]
    assert c.sides[side].moves == 1
    # Play goes on: the opponent now runs out too, and its flag is not the first.
    c.tick(tp + opp - 1)
    assert kinds(drain(c), EV.EV_FLAG) == []
    c.tick(tp + opp)
    assert without_marks(drain(c)) == [(EV.EV_FLAG, 1 - side, tp + opp, 0)]
    assert c.state == clock.FLAGGED
    assert left(c, side, tp + opp) == 0 == left(c, 1 - side, tp + opp)


# -- overtime: the schedule of a side that never presses (TC-5, TC-6, TC-6a/b, TC-7) --


def count_cues(start, period):
    # TC-5: "1", "2", ... at each whole elapsed second of the move (P <= 10 s here).
    return [(EV.EV_CUE, 0, start + k * 1000, k) for k in range(1, period // 1000 + 1)]


def byoyomi_cues(start, period, last, left_after):
    if period == 60000:  # TC-6a
        secs = (30, 40, 50) if last else (30, 40, 50, 55, 58)
        out = [(EV.EV_CUE, 0, start + s * 1000, SEC + s) for s in secs]
        if last:
            out += [(EV.EV_CUE, 0, start + (50 + k) * 1000, k) for k in range(1, 11)]
        else:
            out += [(EV.EV_CUE, 0, start + 60000, MIN1)]
            out += [(EV.EV_CUE, 0, start + 60000, LEFT + left_after)]
        return out
    # TC-6b: every 10 s while more than 10 s remain, then "1" ... "10" over the last 10 s.
    out = []
    s = 10
    while period - s * 1000 > 10000:
        out.append((EV.EV_CUE, 0, start + s * 1000, SEC + s))
        s += 10
    end = start + period
    return out + [(EV.EV_CUE, 0, end - 10000 + k * 1000, k) for k in range(1, 11)]


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(("count", "byoyomi", "canadian")),
    st.one_of(st.just(0), st.integers(1, 10**6)),
    st.integers(0, 10**9),
    st.data(),
)
def test_overtime_schedule_when_nobody_presses(kind, base, t0, data):
    """TC-5 count: "1".."P" each whole second, flag at base + P + grace.
    TC-6/6a/6b byo-yomi: the readings of each period, "1分" and "还剩 k 分", a
    period event at each period end, the flag at the last period's end.
    TC-7 Canadian: the count over the block's last seconds, the flag when the
    block time is used up."""
    ot = base + t0  # main time used up
    want = [(EV.EV_START, 0, t0, 0), (EV.EV_OVERTIME, 0, ot, 0)]
    if kind == "count":
        period = data.draw(st.integers(1, 10)) * 1000
        grace = data.draw(st.integers(0, 5000))
        spec = "%dms count %ds grace %dms" % (base, period // 1000, grace)
        want += [*count_cues(ot, period), (EV.EV_FLAG, 0, ot + period + grace, 1)]
    elif kind == "byoyomi":
        n = data.draw(st.integers(1, 5))
        period = data.draw(st.sampled_from((60, 10, 20, 30, 40, 50, 70, 90, 120))) * 1000
        spec = "%dms byoyomi %dx%ds" % (base, n, period // 1000)
        for j in range(1, n + 1):
            start = ot + (j - 1) * period
            want += byoyomi_cues(start, period, j == n, n - j)
            if j < n:
                want.append((EV.EV_PERIOD, 0, start + period, n - j))
        want.append((EV.EV_FLAG, 0, ot + n * period, 1))
    else:
        moves = data.draw(st.integers(1, 30))
        block = data.draw(st.integers(1000, 10**6))
        spec = "%dms canadian %d/%dms" % (base, moves, block)
        # #23: the block's last seconds are counted, by the time left in it
        want += [(EV.EV_CUE, 0, ot + block - ms, cue) for ms, cue in voice.canadian_table(block)]
        want.append((EV.EV_FLAG, 0, ot + block, 1))
    c = new_clock(spec + " record off")
    c.start(t0, 0)
    c.tick(want[-1][2] + 10**6)
    assert drain(c) == want
    assert c.state == clock.FLAGGED
    assert left(c, 0, want[-1][2]) == 0


# -- overtime moves against a reference (TC-5, TC-6, TC-7) ---------------------------

KEY = (EV.EV_PRESS, EV.EV_PERIOD, EV.EV_FLAG, EV.EV_OVERTIME)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(("count", "byoyomi", "canadian")),
    st.integers(0, 10**9),
    st.data(),
    st.lists(
        st.tuples(st.sampled_from(("any", "any", "edge")), st.integers(0, 10**6)),
        min_size=1,
        max_size=30,
    ),
)
def test_overtime_moves_follow_the_rules(kind, t0, data, moves):
    """Pure overtime (base 0, record off): TC-5 the count restarts with every move
    and flags at P + grace; TC-6 a move under P consumes nothing, each full P
    consumes a period, the last period's end flags even with a press at that
    instant; TC-7 M moves within T, the unused time carries over (T + leftover)."""
    if kind == "count":
        period = data.draw(st.integers(1, 60)) * 1000
        grace = data.draw(st.integers(0, 5000))
        spec = "0s count %ds grace %dms" % (period // 1000, grace)
    elif kind == "byoyomi":
        n = data.draw(st.integers(1, 5))
        period = data.draw(st.integers(1, 70)) * 1000
        spec = "0s byoyomi %dx%ds" % (n, period // 1000)
    else:
        block_moves = data.draw(st.integers(1, 5))
        block = data.draw(st.integers(1000, 120000))
        spec = "0s canadian %d/%dms" % (block_moves, block)
    c = new_clock(spec + " record off")
    c.start(t0, 0)
    periods = [n, n] if kind == "byoyomi" else None
    bank = [block, block] if kind == "canadian" else None
    togo = [block_moves, block_moves] if kind == "canadian" else None
    want = [(EV.EV_OVERTIME, 0, t0, 0)]
    t = t0
    side = 0
    t_first = True
    for how, x in moves:
        if kind == "count":
            allow = period + grace
        elif kind == "byoyomi":
            allow = periods[side] * period
        else:
            allow = bank[side]
        d = x % (allow + 2) if how == "any" else allow - 1 + x % 2
        # What the displays show during the move (the waiting side's never changes).
        other = bank[1 - side] if kind == "canadian" else period
        for p in sorted(data.draw(st.lists(st.integers(0, d), max_size=3))):
            c.tick(t + p)
            if kind == "count":  # 0 during the grace
                show = max(0, period - p)
            elif kind == "byoyomi":
                show = 0 if p >= allow else period - p % period
            else:
                show = max(0, bank[side] - p)
            assert left(c, side, t + p) == show
            assert left(c, 1 - side, t + p) == other
        if kind == "byoyomi":  # the boundaries passed (the last period's end is the flag)
            for k in range(1, periods[side] if d >= allow else d // period + 1):
                periods[side] -= 1
                want.append((EV.EV_PERIOD, side, t + k * period, periods[side]))
        if d >= allow:
            want.append((EV.EV_FLAG, side, t + allow, 1))
            c.tick(t + d)
            c.press(side, t + d)
            assert kinds(drain(c), *KEY) == want
            assert c.state == clock.FLAGGED
            return
        t += d
        assert c.press(side, t) == clock.PRESS_SWITCHED
        c.release(side, t)
        if kind == "canadian":
            bank[side] -= d
            togo[side] -= 1
            if togo[side] == 0:  # a fresh block, plus what was left over
                togo[side] = block_moves
                bank[side] += block
            shown = bank[side]
        else:
            shown = period
        want.append((EV.EV_PRESS, side, t, shown))
        if t_first:  # side 1 starts its first move: straight into overtime
            t_first = False
            want.append((EV.EV_OVERTIME, 1, t, 0))
        assert kinds(drain(c), *KEY) == want
        want = []
        if kind == "byoyomi":
            assert c.sides[side].periods == periods[side]
        if kind == "canadian":
            assert c.sides[side].left == togo[side]  # TC-7: the move counter is shown
        assert left(c, side, t) == shown
        side = 1 - side


# -- TC-9: the recording threshold ------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(
        ("", "+inc", " bronstein", " delay", " hourglass", " count", " byoyomi", " canadian")
    ),
    st.one_of(st.just(0), st.integers(1, 400000)),
    st.integers(1000, 300000),
    st.integers(1, 20000),
    st.integers(0, 10**9),
)
def test_record_event_when_shown_time_first_drops_below(mode, base, thr, x, t0):
    """TC-9: the record event fires at the first instant the running side's display
    shows less than the threshold, with that display as its argument; a control
    already under the threshold marks both sides at the start. With an overtime
    and base 0 the display starts at the period (the block for Canadian)."""
    overtime = mode in (" count", " byoyomi", " canadian")
    if not overtime:
        base = max(base, 1)
    spec = "%dms" % base
    period = 0
    if mode == "+inc":
        spec += "+%dms" % x
    elif mode in (" bronstein", " delay"):
        spec += "%s %dms" % (mode, x)
    elif mode == " count":
        period = (x % 60 + 1) * 1000
        spec += " count %ds" % (period // 1000)
    elif mode == " byoyomi":
        period = (x % 120 + 1) * 1000
        spec += " byoyomi 3x%ds" % (period // 1000)
    elif mode == " canadian":
        period = 1000 + x * 20
        spec += " canadian 5/%dms" % period
    else:
        spec += mode
    shown0 = base if base else period  # the display at the start
    c = new_clock(spec + " record %dms" % thr)
    c.start(t0, 0)
    if shown0 < thr:
        at, shown = t0, shown0
        want = [(EV.EV_RECORD, 0, t0, shown0), (EV.EV_RECORD, 1, t0, shown0)]
    else:
        at = t0 + shown0 - thr + 1 + (x if mode == " delay" else 0)
        shown = thr - 1
        want = [(EV.EV_RECORD, 0, at, shown)]
    if at > t0:
        c.tick(at - 1)
        assert kinds(drain(c), EV.EV_RECORD) == []
    c.tick(at)
    assert kinds(drain(c), EV.EV_RECORD) == want
    assert left(c, 0, at) == shown


# -- 6. integer milliseconds -----------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(scenarios(), st.lists(st.integers(0, 10**7), max_size=10))
def test_values_are_integer_ms(sc, probes):
    """All of §1: left(), next_deadline(), event times and args and each side's
    committed fields are ints, never floats, at any instant."""
    spec, t0, steps, _ = sc
    c = new_clock(spec)
    t = t0
    for gap, a, _ in steps:
        t += gap
        act(c, a, t)
        drain(c)
        assert type(c.next_deadline()) is int
        for p in probes:
            left(c, 0, t + p)
            left(c, 1, t + p)
        for s in c.sides:
            for name, v in vars(s).items():
                want = bool if name in ("ot", "flagged", "recorded", "warned") else int
                assert type(v) is want, (name, v)


# -- regressions: core bugs these properties found, minimal reproductions ------------------


def test_regression_zero_adjust_never_flags():
    """Pure byo-yomi (base 0, TC-6): adjusting side 1 by 0 ms flagged it, though it
    had all its periods. A 0 ms change changes nothing."""
    c = new_clock("0s byoyomi 3x30s")
    c.start(0, 0)
    c.adjust(1, 0, 1000)
    assert kinds(drain(c), EV.EV_FLAG) == []
    assert not c.sides[1].flagged and c.state == clock.RUNNING


def test_regression_overtime_event_not_lost_under_a_commit():
    """TC-6/TC-9 with a 1 ms threshold (the parser now wants 1 s or more): the
    record event fell on the instant main time ran out and fired first; its commit
    entered overtime silently, so no EV_OVERTIME was ever reported."""
    tc = timecontrol.TimeControl(
        [timecontrol.Stage(60000)], overtime=timecontrol.ByoYomi(2, 30000), record=1
    )
    c = BigClock(tc)
    c.start(0, 0)
    c.tick(60001)
    assert kinds(drain(c), EV.EV_OVERTIME) == [(EV.EV_OVERTIME, 0, 60000, 0)]


def test_regression_record_on_time_in_delay_mode():
    """TC-9 with simple delay: after a configure (EQ-6, before the lock) raised the
    threshold above the side's time, the record came 3001 ms into the move, not at
    once as with Fischer or Bronstein (the delay's free time was added)."""
    c = new_clock("3m delay 5s")
    c.start(0, 0)
    c.configure(tcspec.parse("3m delay 5s record 182s"), 0)
    c.tick(10000)
    assert kinds(drain(c), EV.EV_RECORD)[:1] == [(EV.EV_RECORD, 0, 0, 180000)]


def test_regression_hourglass_has_no_overtime():
    """``1m hourglass byoyomi 3x30s`` used to parse, but once side 0 was in byo-yomi
    its display showed main + what it gained (1 ms, 2 ms, ...) while side 1 ran,
    instead of its 30 s period, and that time was never usable. Now refused."""
    with pytest.raises(tcspec.SpecError):
        tcspec.parse("1m hourglass byoyomi 3x30s")


@pytest.mark.parametrize("ot", ["byoyomi 3x60s", "count 60s", "canadian 5/60s"])
def test_regression_record_with_no_main_time(ot):
    """TC-9 with base 0: the display starts at the period (60 s), above the 30 s
    threshold, yet the record event fired at the start with arg 60000, and never
    when the display really dropped below 30 s (at 30001 ms, showing 29999)."""
    c = new_clock("0s %s record 30s" % ot)
    c.start(0, 0)
    c.tick(31000)
    assert kinds(drain(c), EV.EV_RECORD) == [(EV.EV_RECORD, 0, 30001, 29999)]


def test_regression_record_threshold_is_at_least_a_second():
    """With ``record 1ms`` and an overtime the record fired where main time ends,
    with arg 30000, though the display never showed less than 1 ms: such
    thresholds are now refused."""
    with pytest.raises(tcspec.SpecError):
        tcspec.parse("1m byoyomi 2x30s record 1ms")


def test_regression_flagged_hourglass_side_shows_0():
    """Hourglass with play on after a flag (``flag run``): side 0 flags at 60 s and
    presses; while side 1 ran, side 0's display showed the time it gained (1000 at
    61 s), but 0 as soon as anything committed: the display depended on polling."""
    c = new_clock("1m hourglass flag run")
    c.start(0, 0)
    c.tick(60000)
    c.press(0, 60000)
    assert left(c, 0, 61000) == 0
    c.pause(61000)
    assert left(c, 0, 61000) == 0


def test_regression_zero_adjust_on_a_flagged_side():
    """Sudden death plays on after a flag (TC-3). Side 1 flagged by a 5 min penalty
    got no record event then; a later 0 ms adjustment emitted EV_RECORD (arg 0) for
    it: a 0 ms change changed the event stream."""
    c = new_clock("5m")
    c.start(0, 0)
    c.adjust(1, -300000, 1000)
    drain(c)
    c.adjust(1, 0, 2000)
    assert drain(c) == [(EV.EV_PENALTY, 1, 2000, 0)]


def test_regression_a_fallen_flag_stays_fallen():
    """TC-8: found by hypothesis on a fresh database. Time given to or taken
    from a flagged side, or charged to it while the clock runs on ("flag
    run"), made its overtime phase depend on where a segment was committed.
    A flagged side's time now stands still, as its face does: adjustments
    are refused, and an hourglass gives it nothing."""
    c = new_clock("0ms count 1s grace 0ms flag run")
    c.start(0, 0)
    c.tick(1000)
    assert c.sides[0].flagged and c.state == clock.RUNNING
    with pytest.raises(clock.ClockError):
        c.adjust(0, 1, 1000)
    c.adjust(0, 0, 1500)  # a pure commit is still allowed, and changes nothing
    assert c.left(0, 5000) == c.left(0, 1000)
    h = new_clock("2ms hourglass flag run")
    h.start(0, 0)
    h.press(0, 0)
    h.adjust(1, -2, 0)  # side 1 flags by penalty; side 0 runs on
    h.press(1, 0)
    assert h.sides[1].flagged
    h.adjust(0, 0, 1)
    assert h.sides[1].main == 0 and h.left(1, 5) == 0
