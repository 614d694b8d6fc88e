# SPDX-License-Identifier: GPL-3.0-or-later
"""Unplug and replug the serial link, over and over (issues #8, #12).

    .venv/bin/python benchmarks/unplug.py [CYCLES] [SEED] [REAL_CYCLES]

A paired simulated clock plays on while its serial link (the pty, as USB
would be) is closed and reopened CYCLES times (default 1,000): sometimes with
a query in flight or half a frame written, presses and voice cues while it
is away, tagged arbiter commands just after it is back. The host reconnects
with ``Clock.reconnect`` (hello, then ``since``). ``soak.Model`` runs the
core clock on the same inputs. Printed: events received, lost, duplicated,
and those that differ from the model's (all must be 0).

Then the same in real time (#12), REAL_CYCLES times (default 1,000): a
real-time simulated clock is pressed every 30-60 ms by a thread while the
host closes the port, waits 0-20 ms, and reconnects, again and again, so
events land before, with and after the ``hello`` reply. Printed: events,
lost, duplicated, out of order, and the reconnect time.
"""

from __future__ import annotations

import itertools
import os
import random
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from soak import Counts, Driver, Model, open_paired  # noqa: E402

from qizhong.clocks.driver import Clock  # noqa: E402
from qizhong.core import clock as C  # noqa: E402
from qizhong.sim import Sim  # noqa: E402

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


def realtime(n: int = 1000, seed: int = 1) -> dict[str, float]:
    """``n`` unplug cycles in real time while a thread presses the levers."""
    rng = random.Random(seed)
    with Sim(virtual=False, display=False, open_link=False) as sim:
        clock = Clock(sim.serial_path, timeout=5.0)
        clock.configure("90m+30s")
        stop = threading.Event()
        presses = [0]

        def presser() -> None:
            prng = random.Random(seed + 1)
            k = 0
            while not stop.is_set():
                lever = 1 - k % 2
                sim.world.sendall(b"lever %d down 0\n" % lever)
                time.sleep(0.02 + prng.random() * 0.01)  # past the 20 ms settle window
                sim.world.sendall(b"lever %d up 0\n" % lever)
                time.sleep(0.01 + prng.random() * 0.02)
                sim.pump()
                k += 1
                presses[0] = k

        got = clock.events(0.2)
        thread = threading.Thread(target=presser, daemon=True)
        start = time.monotonic()
        thread.start()
        reconnect_ms = []
        try:
            for _ in range(n):
                got += clock.events(rng.random() * 0.02)
                if rng.random() < 0.2:
                    clock.link.send("status")  # a query in flight
                clock.close()
                time.sleep(rng.random() * 0.02)  # unplugged; presses go on
                t0 = time.monotonic()
                clock.reconnect()
                reconnect_ms.append((time.monotonic() - t0) * 1000)
        finally:
            stop.set()
            thread.join()
        wall = time.monotonic() - start
        last = clock.status().seq
        while clock.link.last_seq < last:
            got += clock.events(0.1)
        got += clock.events(0)
        seqs = [e.seq for e in got]
        kept = {e.seq: e for e in clock.since(max(0, last - 200))}
        differ = sum(1 for e in got if e.seq in kept and kept[e.seq] != e)
        reconnect_ms.sort()
        return {
            "cycles": n,
            "wall_s": wall,
            "presses": presses[0],
            "events": len(got),
            "last": last,
            "lost": last - len(set(seqs)) + clock.link.lost,
            "duplicated": len(seqs) - len(set(seqs)),
            "out_of_order": sum(1 for a, b in itertools.pairwise(seqs) if b <= a),
            "differ": differ,
            "restarts": len(clock.link.restarts),
            "p50": reconnect_ms[len(reconnect_ms) // 2],
            "p99": reconnect_ms[len(reconnect_ms) * 99 // 100],
        }


def report_realtime(r: dict[str, float]) -> None:
    print(
        "real-time cycles   %d in %.1f s, %d presses meanwhile"
        % (r["cycles"], r["wall_s"], r["presses"])
    )
    print("events at the host %d (the clock's last: %d)" % (r["events"], r["last"]))
    print(
        "lost / duplicated / out of order  %d / %d / %d (restarts seen %d, differing %d)"
        % (r["lost"], r["duplicated"], r["out_of_order"], r["restarts"], r["differ"])
    )
    print("reconnect          p50 %.1f ms, p99 %.1f ms" % (r["p50"], r["p99"]))


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
    real = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    print("unplug: %d cycles of the serial link in virtual time, seed %d" % (n, seed))
    report(cycles(n, seed), n)
    print("unplug: %d cycles of the serial link in real time, seed %d" % (real, seed))
    report_realtime(realtime(real, seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
