# SPDX-License-Identifier: GPL-3.0-or-later
"""A day of virtual play with random events: drift and lost events (issue #8).

    .venv/bin/python benchmarks/soak.py [HOURS] [SEED]

The real firmware on the simulated board, paired (every change tagged), plays
game after game under random time controls for HOURS (default 24) of virtual
time: presses with random thinking times, and abuse (lever chatter, both
levers at once, held levers (EQ-3), wrong-side presses, presses while paused,
flagged or knocked, arbiter pauses, penalties, knocks (EQ-5), unplugs of the
serial link). ``Model`` runs the core clock (``qizhong.core.clock``) and lever
debouncer on CPython on the very same inputs, as the reference (a press the
bounce window hid is charged at its own edge, as the board does, #26 item 4). Printed:
the largest difference between any time the clock reported and the model's
(drift, ms), events lost, duplicated or different, and counts.
"""

from __future__ import annotations

import heapq
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "host"))

from qizhong.clocks import auth  # noqa: E402
from qizhong.clocks.driver import Clock  # noqa: E402
from qizhong.clocks.link import CommandError  # noqa: E402
from qizhong.core import clock as C  # noqa: E402
from qizhong.core import tcspec  # noqa: E402
from qizhong.core.lever import DOWN, Lever  # noqa: E402
from qizhong.sim import Sim  # noqa: E402

CORE = frozenset(C.EVENT_NAMES[1:])  # the clock core's events (not the app's own)
SPECS = (
    "15m+10s", "5m+5s", "3m", "10m+5s red -40%", "1m count 10s", "20s count 10s grace 1s",
    "30s byoyomi 3x20s", "1m byoyomi 2x60s", "1m canadian 5/30s", "2/1m+10s:30s+10s",
    "2m bronstein 3s", "2m delay 2s", "1m hourglass", "2m flag run",
)  # fmt: skip


class Model:
    """The reference: the core clock and two lever debouncers, fed what the
    sim board gets, acting as the app does (docs/sim.md, firmware/qizhong/app.py)."""

    def __init__(self, spec: str = "xq-rapid") -> None:
        self.clock = C.Clock(tcspec.parse(spec))
        self.levers = (Lever(), Lever())
        self.now = 0
        self.events: list[tuple[str, int, int, int, int, int]] = []
        self.downs = 0  # presses the debouncer let through
        self.lever_starts = 0  # of them, presses that started the clock
        self._in: list[tuple[str, int, int]] = []  # in stamp order
        self._given = 0  # the last time the board gave out (its now())

    def _drain(self) -> None:
        c = self.clock
        while True:
            kind = c.pop_event()
            if not kind:
                return
            t = c.ev_t
            self.events.append(
                (C.EVENT_NAMES[kind], c.ev_side, t, c.ev_arg, c.left(0, t), c.left(1, t))
            )

    def _time(self) -> int:
        # The board's now (#26 item 4): time waits at a lever edge the bounce
        # window hides until it settles, never going back.
        t = self.now
        for lv in self.levers:
            if lv.settle_at() >= 0 and lv.raw_t < t:
                t = max(lv.raw_t, self._given)
        self._given = t
        return t

    def _push(self, kind: str, arg: int, t: int) -> None:
        # Inputs in stamp order: a settled edge goes before later-stamped ones.
        k = len(self._in)
        while k and self._in[k - 1][2] > t:
            k -= 1
        self._in.insert(k, (kind, arg, t))

    def _held(self, t: int) -> bool:
        # An input stamped after a hidden edge waits until that edge settles.
        return any(lv.settle_at() >= 0 and lv.raw_t < t for lv in self.levers)

    def _line(self, t: int) -> None:
        # A world line at t: the board settles what the bounce window hid,
        # at its own edge's stamp, in time order with the inputs (#26 item 4).
        self.now = t
        for i in (0, 1):
            edge = self.levers[i].settle(t)
            if edge:
                self._push("down" if edge == DOWN else "up", i, self.levers[i].t)

    def _step(self) -> None:
        c = self.clock
        now = self._time()
        while self._in and not self._held(self._in[0][2]):
            kind, arg, t = self._in.pop(0)
            try:
                if kind == "down":
                    self.downs += 1
                    if c.press(c.side_of_lever(arg), t) == C.PRESS_STARTED:
                        self.lever_starts += 1
                elif kind == "up":
                    c.release(c.side_of_lever(arg), t)
                elif kind == "tilt":
                    if c.state in (C.RUNNING, C.PAUSED):
                        c.knock(t)
                elif kind == "start":
                    if c.state == C.IDLE:
                        c.start(t, 0)
                    elif c.state == C.RUNNING:
                        c.pause(t)
                    elif c.state in (C.PAUSED, C.KNOCKED):
                        c.resume(t)
                elif kind in ("plus", "minus") and c.state == C.KNOCKED:
                    c.assign_knock(c.side_of_lever(0 if kind == "plus" else 1), t)
            except C.ClockError:
                pass
            self._drain()
        while c.tick(now) >= C.Clock.EVENTS:
            self._drain()
        self._drain()

    def at(self, t: int) -> None:
        self._line(t)
        self._step()

    def lever(self, i: int, down: bool, t: int) -> None:
        self._line(t)
        edge = self.levers[i].edge(down, t)
        if edge:
            self._push("down" if edge == DOWN else "up", i, t)
        self._step()

    def key(self, name: str, t: int) -> None:
        self._line(t)
        self._push(name, 0, t)
        self._step()

    def tilt(self, t: int) -> None:
        self._line(t)
        self._push("tilt", 0, t)
        self._step()

    def command(self, line: str) -> bool:
        """A change over the serial link at ``now``; False if the clock refuses it."""
        c = self.clock
        verb, _, rest = line.partition(" ")
        args = rest.split()
        now = self._time()  # the board's now, held at a hidden edge (#26 item 4)
        side = {"red": 0, "black": 1}
        try:
            if verb == "config":
                c.configure(tcspec.parse(rest), now, False)
            elif verb == "new":
                c.configure(c.tc, now, True)
            elif verb == "pause":
                c.pause(now)
            elif verb == "resume":
                c.resume(now)
            elif verb == "penalty":
                c.adjust(side[args[0]], int(args[1]), now)
            elif verb == "knock":
                c.assign_knock(side[args[0]], now)
            elif verb == "set":
                c.set_side(side[args[0]], now, int(args[1]))
            elif verb == "finish":
                c.finish(now, side.get(args[0], -1) if args else -1)
            elif verb == "levers":
                c.left_side = side[args[0]]
            else:
                raise ValueError("the model has no %r" % verb)
            ok = True
        except C.ClockError:
            ok = False
        self._drain()
        return ok

    def lever_of(self, side: int) -> int:
        return 0 if self.clock.left_side == side else 1


@dataclass
class Counts:
    """What a run did and found."""

    virtual_ms: int = 0
    games: int = 0
    presses: int = 0  # lever presses made (first edges)
    edges: int = 0  # raw lever edges sent, bounces included
    abuse: dict[str, int] = field(default_factory=dict)
    commands: int = 0
    refused: int = 0  # commands the clock refused (and the model too)
    unplugs: int = 0
    statuses: int = 0
    events: int = 0  # events the host got
    lost: int = 0  # events missing at the host
    duplicated: int = 0
    compared: int = 0  # core events compared with the model's
    mismatched: int = 0  # core events that differ from the model's
    disagreed: int = 0  # commands the clock and the model judged differently
    drift_ms: int = 0  # the largest |clock's time - model's time| seen
    wall_s: float = 0.0

    def note(self, what: str) -> None:
        self.abuse[what] = self.abuse.get(what, 0) + 1


class Driver:
    """Sends every input to the simulated clock and the model alike, in time order."""

    def __init__(self, sim: Sim, clock: Clock, model: Model, counts: Counts) -> None:
        self.sim = sim
        self.clock = clock
        self.model = model
        self.n = counts
        self._later: list[tuple[int, int, int, bool]] = []  # (t, order, lever, down)
        self._order = 0
        self.plugged = True
        self.got: list = []  # events the host received

    def _flush(self, t: int) -> None:
        while self._later and self._later[0][0] <= t:
            when, _, i, down = heapq.heappop(self._later)
            self._at(when)
            self.sim.lever(i, down, when)
            self.model.lever(i, down, when)
            self.n.edges += 1

    def _at(self, t: int) -> None:
        if t > self.sim.now:
            self.sim.at(t)
            self.model.at(t)

    def to(self, t: int) -> None:
        """Time runs to ``t``: due edges first, each at its instant."""
        self._flush(t)
        self._at(t)

    def edge(self, i: int, down: bool, t: int) -> None:
        """A raw lever edge, sent in order with the others."""
        assert t >= self.sim.now, "time runs forward"
        heapq.heappush(self._later, (t, self._order, i, down))
        self._order += 1

    def press(self, i: int, t: int, hold: int = 80, bounces: int = 0) -> None:
        """A press at ``t`` (chattering ``bounces`` times within 15 ms), released after ``hold``."""
        self.n.presses += 1
        self.edge(i, True, t)
        for k in range(bounces):  # up, down, ... ending down
            self.edge(i, False, t + 1 + 2 * k)
            self.edge(i, True, t + 2 + 2 * k)
        self.edge(i, False, t + hold)
        self.to(t)

    def key(self, name: str, t: int) -> None:
        self.to(t)
        self.sim.key(name, t)
        self.model.key(name, t)

    def tilt(self, t: int) -> None:
        self.to(t)
        self.sim.tilt(t)
        self.model.tilt(t)

    def command(self, t: int, line: str) -> bool:
        """An arbiter's command at ``t``, tagged; the clock and the model must agree."""
        self.to(t)
        self.n.commands += 1
        want = self.model.command(line)
        verb, _, args = line.partition(" ")
        try:
            self.clock.link.request(verb, args)
            ok = True
        except CommandError as e:
            ok = False
            if e.code == "auth":
                raise
        if ok != want:
            self.n.disagreed += 1
        if not ok:
            self.n.refused += 1
        self.poll()
        return ok

    def poll(self) -> None:
        if self.plugged:
            self.got += self.clock.events(0)

    def unplug(self) -> None:
        self.n.unplugs += 1
        self.poll()
        self.clock.link.close()
        self.plugged = False

    def replug(self) -> None:
        self.clock.reconnect()
        self.plugged = True
        self.poll()

    def check_status(self) -> None:
        """The clock's times now against the model's."""
        self.n.statuses += 1
        st = self.clock.status()
        c = self.model.clock
        for i in (0, 1):
            self.n.drift_ms = max(self.n.drift_ms, abs(st.left[i] - c.left(i, st.t)))
        if st.state != C.STATE_NAMES[c.state]:
            self.n.mismatched += 1
        self.poll()

    def finish(self) -> None:
        """Every input delivered; every event collected and compared."""
        if self._later:
            self.to(max(t for t, *_ in self._later))
        if not self.plugged:
            self.replug()
        self.check_status()
        self.clock.link.sync()
        self.got += self.clock.link.take_events()
        seqs = [e.seq for e in self.got]
        self.n.events = len(seqs)
        self.n.duplicated = len(seqs) - len(set(seqs))
        last = self.clock.status().seq
        self.n.lost = last - len(set(seqs)) + self.clock.link.lost
        mine = [(e.name, e.side, e.t, e.arg, e.left[0], e.left[1]) for e in self.got]
        mine = [e for e in mine if e[0] in CORE]
        want = self.model.events
        self.n.compared = len(want)
        self.n.mismatched += sum(1 for a, b in zip(mine, want, strict=False) if a != b)
        self.n.mismatched += abs(len(mine) - len(want))
        for a, b in zip(mine, want, strict=False):
            self.n.drift_ms = max(self.n.drift_ms, abs(a[4] - b[4]), abs(a[5] - b[5]))


def open_paired(keys: str) -> tuple[Sim, Clock]:
    """A simulated clock, paired through its keys and display."""
    sim = Sim()
    store = auth.KeyStore(keys)
    auth.pair_sim(sim, store)
    return sim, Clock(sim.link, keys=store)


def play(d: Driver, rng: random.Random, end: int) -> None:
    """Games with random events until virtual time ``end``."""
    m = d.model
    n = d.n
    t = d.sim.now + 1000
    while t < end:
        n.games += 1
        d.command(t, "config " + rng.choice(SPECS))
        if rng.random() < 0.3:
            d.command(t, "levers " + rng.choice(("red", "black")))
        t += rng.randrange(500, 5000)
        if rng.random() < 0.5:
            d.key("start", t)  # Red to move
        else:
            d.press(m.lever_of(1), t, rng.randrange(40, 300))  # Black starts Red's clock
        limit = rng.randrange(20, 160)
        while t < end and m.clock.state not in (C.FLAGGED, C.FINISHED):
            t = move(d, rng, t)
            if m.clock.sides[0].moves + m.clock.sides[1].moves >= limit:
                break
        t += rng.randrange(200, 3000)
        if m.clock.state == C.FLAGGED and rng.random() < 0.5:
            n.note("press after flag")
            d.press(rng.randrange(2), t, 100)
            t += 500
        d.command(t, "finish" + rng.choice(("", " red", " black")))
        if rng.random() < 0.2:
            d.check_status()
        t += rng.randrange(1000, 20000)
    d.to(end)


def move(d: Driver, rng: random.Random, t: int) -> int:
    """One move, perhaps with abuse; returns the time after it."""
    m = d.model
    n = d.n
    c = m.clock
    r = rng.random()
    think = rng.choice(
        (rng.randrange(100, 3000), rng.randrange(2000, 30000), rng.randrange(20000, 90000))
    )
    t += think
    side = c.run if c.run >= 0 else 0
    lever = m.lever_of(side)
    if r < 0.70:
        d.press(lever, t, rng.randrange(30, 400))
    elif r < 0.76:
        n.note("chatter")
        d.press(lever, t, rng.randrange(60, 400), bounces=rng.randrange(1, 7))
    elif r < 0.80:
        n.note("both levers")
        d.press(lever, t, 100)
        d.press(1 - lever, t + rng.choice((0, 0, 1, 5, 30)), 100)
    elif r < 0.83:
        n.note("held lever")
        d.press(lever, t, rng.randrange(2000, 7000))
    elif r < 0.86:
        n.note("wrong lever")
        d.press(1 - lever, t, 120)
        d.press(lever, t + rng.randrange(200, 2000), 120)
    elif r < 0.89:
        n.note("pause")
        if rng.random() < 0.5:
            d.command(t, "pause")
        else:
            d.key("start", t)
        t += rng.randrange(500, 20000)
        if rng.random() < 0.5:
            n.note("press while paused")
            d.press(rng.randrange(2), t, 100)
            t += 300
        if rng.random() < 0.5:
            d.command(t, "resume")
        else:
            d.key("start", t)
    elif r < 0.91:
        n.note("knock")
        d.tilt(t)
        t += rng.randrange(500, 5000)
        if rng.random() < 0.5:
            n.note("press while knocked")
            d.press(rng.randrange(2), t, 100)
            t += 300
        if rng.random() < 0.5:
            d.key(rng.choice(("plus", "minus")), t)
        else:
            d.command(t, "knock " + rng.choice(("red", "black")))
        t += rng.randrange(200, 3000)
        if rng.random() < 0.5:
            d.key("start", t)
        else:
            d.command(t, "resume")
    elif r < 0.94:
        n.note("penalty")
        d.command(
            t, "penalty %s %d" % (rng.choice(("red", "black")), rng.randrange(-60, 61) * 1000)
        )
    elif r < 0.96:
        n.note("flood")
        for k in range(rng.randrange(10, 60)):
            i = rng.randrange(2)
            d.edge(i, bool(k & 1) ^ (i == 1), t + k * rng.randrange(0, 40))
        d.to(t + 60 * 40)
        # both levers up again
        d.edge(0, False, d.sim.now + 50)
        d.edge(1, False, d.sim.now + 50)
        t = d.sim.now + 100
        d.to(t)
    elif r < 0.98:
        n.note("unplug")
        d.unplug()
        for _ in range(rng.randrange(1, 4)):
            t += rng.randrange(200, 8000)
            side = c.run if c.run >= 0 else 0
            d.press(m.lever_of(side), t, 100)
        d.to(t + 500)
        d.replug()
    else:
        d.press(lever, t, 100)
        d.check_status()
    if rng.random() < 0.1:
        d.poll()
    return max(t, d.sim.now)


def soak(hours: float = 24, seed: int = 1, keys: str | None = None) -> Counts:
    n = Counts()
    start = time.monotonic()
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        sim, clock = open_paired(keys or os.path.join(tmp, "keys.json"))
        with sim:
            model = Model()
            model.now = sim.now
            d = Driver(sim, clock, model, n)
            end = sim.now + int(hours * 3600000)
            play(d, rng, end)
            d.finish()
            n.virtual_ms = sim.now
    n.wall_s = time.monotonic() - start
    return n


def report(n: Counts) -> None:
    print("virtual time       %.1f h in %.1f s wall" % (n.virtual_ms / 3600000, n.wall_s))
    print("games              %d" % n.games)
    print("presses / edges    %d / %d" % (n.presses, n.edges))
    print("commands (refused) %d (%d), all tagged" % (n.commands, n.refused))
    print("unplugs            %d" % n.unplugs)
    print("abuse              " + ", ".join("%s %d" % kv for kv in sorted(n.abuse.items())))
    print("events at the host %d" % n.events)
    print("lost / duplicated  %d / %d" % (n.lost, n.duplicated))
    print("differing events   %d of %d core events against the model" % (n.mismatched, n.compared))
    print("status checks      %d" % n.statuses)
    print("disagreements      %d (commands judged differently)" % n.disagreed)
    print("drift              %d ms (largest |clock - model| in any reported time)" % n.drift_ms)


def main() -> int:
    hours = float(sys.argv[1]) if len(sys.argv) > 1 else 24
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    print("soak: %g virtual hours of random play, seed %d" % (hours, seed))
    report(soak(hours, seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
