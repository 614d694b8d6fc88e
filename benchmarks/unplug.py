# SPDX-License-Identifier: GPL-3.0-or-later
"""Unplug and replug the serial link, over and over (issue #8).

    .venv/bin/python benchmarks/unplug.py [CYCLES] [SEED]

A paired simulated clock plays on while its serial link (the pty, as USB
would be) is closed and reopened CYCLES times (default 1,000): sometimes with
a query in flight or half a frame written, presses and voice cues while it
is away, tagged arbiter commands just after it is back. The host reconnects
with ``Clock.reconnect`` (hello, then ``since``). ``soak.Model`` runs the
core clock on the same inputs. Printed: events received, lost, duplicated,
and those that differ from the model's (all must be 0).
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from soak import Counts, Driver, Model, open_paired  # noqa: E402

from qizhong.core import clock as C  # noqa: E402

SPECS = ("10m byoyomi 3x20s", "5m count 10s", "20m+10s", "3m+2s")


def cycles(n: int = 1000, seed: int = 1) -> Counts:
    counts = Counts()
    start = time.monotonic()
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        sim, clock = open_paired(os.path.join(tmp, "keys.json"))
        with sim:
            model = Model()
            model.now = sim.now
            d = Driver(sim, clock, model, counts)
            c = model.clock
            t = sim.now + 1000
            for i in range(n):
                if c.state in (C.IDLE, C.FLAGGED, C.FINISHED):
                    if c.state != C.IDLE:
                        d.command(t, "finish")
                    counts.games += 1
                    d.command(t, "config " + rng.choice(SPECS))
                    t += 500
                    d.press(model.lever_of(1), t, 90)  # Black starts Red's clock
                    t += 500
                how = rng.random()
                link = clock.link
                if how < 0.2:
                    counts.note("query in flight")
                    link.send("status")
                elif how < 0.3:
                    counts.note("half a frame")
                    os.write(link.fileno(), b"$%d pen" % rng.randrange(1, 60000))
                d.unplug()
                for _ in range(rng.choice((0, 1, 1, 2, 3))):  # play goes on meanwhile
                    t += rng.randrange(300, 25000)
                    if c.state == C.RUNNING:
                        d.press(model.lever_of(c.run), t, rng.randrange(40, 300))
                t += rng.randrange(50, 3000)
                d.to(t)
                d.replug()
                r = rng.random()
                if r < 0.15:
                    d.command(t, "penalty %s %d" % (rng.choice(("red", "black")), 1000))
                elif r < 0.2 and c.state == C.RUNNING:
                    d.command(t, "pause")
                    t += rng.randrange(100, 2000)
                    d.command(t, "resume")
                if i % 50 == 0:
                    d.check_status()
            d.finish()
            counts.virtual_ms = sim.now
            counts.abuse["port opens"] = clock.link.opens
            counts.abuse["gaps filled"] = clock.link.gaps
    counts.wall_s = time.monotonic() - start
    return counts


def report(n: Counts, cycles_done: int) -> None:
    print(
        "cycles             %d in %.1f s (%.1f virtual h)"
        % (cycles_done, n.wall_s, n.virtual_ms / 3600000)
    )
    print("games / presses    %d / %d" % (n.games, n.presses))
    print("commands           %d, tagged (%d refused by the rules)" % (n.commands, n.refused))
    print("extras             " + ", ".join("%s %d" % kv for kv in sorted(n.abuse.items())))
    print("events at the host %d" % n.events)
    print("lost / duplicated  %d / %d" % (n.lost, n.duplicated))
    print("differing events   %d of %d core events against the model" % (n.mismatched, n.compared))
    print("drift              %d ms" % n.drift_ms)


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    print("unplug: %d cycles of the serial link, seed %d" % (n, seed))
    report(cycles(n, seed), n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
