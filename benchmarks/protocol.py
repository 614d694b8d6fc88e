# SPDX-License-Identifier: GPL-3.0-or-later
"""Serial protocol figures, in real time on the simulated board.

    python benchmarks/protocol.py [--clocks 10,50,100] [--seconds 20] [--presses 300]

1. Press -> host event latency: a lever edge goes into the simulated board's
   world socket; the time until the press event's frame is decoded by the
   host's Link, over the pty. p50, p99 and max.
2. A hall: N simulated clocks (each its own MicroPython process, displays
   off), presses at random on all of them from this process, and one host
   process driving all N with ``qizhong.clocks.hall.Hall``. Printed: that host
   process's CPU use, and the p99 of press -> event latency across clocks.
   Times are CLOCK_MONOTONIC, shared by both processes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "host"))

from qizhong.clocks.driver import Clock  # noqa: E402
from qizhong.sim import Sim  # noqa: E402


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))]


def latency(presses: int) -> list[float]:
    with Sim(virtual=False, display=False) as sim:
        clock = Clock(sim.link)
        clock.configure("90m+30s")
        clock.events(0.2)
        out = []
        for i in range(presses):
            lever = 1 - i % 2
            t0 = time.monotonic()
            sim.world.sendall(b"lever %d down 0\n" % lever)
            while True:
                evs = clock.events(2.0)
                hit = [e for e in evs if e.name in ("press", "start")]
                if hit:
                    out.append((time.monotonic() - t0) * 1000)
                    break
                if time.monotonic() - t0 > 5:
                    raise RuntimeError("no press event")
            sim.world.sendall(b"lever %d up 0\n" % lever)
            time.sleep(0.03 + random.random() * 0.02)  # past the 20 ms settle window
            sim.pump()
            clock.events(0)
        return out


HALL_CHILD = r"""
import json, os, resource, sys, time
sys.path.insert(0, %(host)r)
from qizhong.clocks.hall import Hall
ports = json.loads(sys.argv[1]); seconds = float(sys.argv[2])
hall = Hall.open(ports, timeout=10)
names = {c.link.port: n for n, c in hall.clocks.items()}
r = hall.broadcast("config", "90m+30s")
assert all(v == "config" for v in r.values()), r
print("ready", flush=True)
got = []
end = time.monotonic() + seconds
while time.monotonic() < end:
    for name, ev in hall.poll(0.2):
        if ev.name in ("press", "start"):
            got.append((name, time.monotonic()))
u = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"cpu": u.ru_utime + u.ru_stime, "got": got,
                  "ports": {n: c.link.port for n, c in hall.clocks.items()}}), flush=True)
"""


def hall(n: int, seconds: float) -> dict[str, float]:
    sims = [
        Sim(virtual=False, open_link=False, display=False, board_id="c%03d" % i) for i in range(n)
    ]
    try:
        code = HALL_CHILD % {"host": os.path.join(HERE, "..", "host")}
        child = subprocess.Popen(
            [sys.executable, "-c", code, json.dumps([s.serial_path for s in sims]), str(seconds)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        start = time.monotonic()
        sent: dict[str, list[float]] = {"c%03d" % i: [] for i in range(n)}
        rng = random.Random(1)
        nxt = [start + rng.random() * 2 for _ in range(n)]
        k = [0] * n
        while time.monotonic() < start + seconds - 1.0:
            i = min(range(n), key=nxt.__getitem__)
            wait = nxt[i] - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            lever = 1 - k[i] % 2
            sims[i].world.sendall(b"lever %d down 0\n" % lever)
            sent["c%03d" % i].append(time.monotonic())
            sims[i].world.sendall(b"lever %d up 0\n" % lever)  # settles 20 ms later
            k[i] += 1
            nxt[i] = time.monotonic() + 1.0 + rng.random() * 2  # a press every 1-3 s per clock
            for s in sims:
                s.pump()
        out = json.loads(child.stdout.readline())
        child.wait()
        got: dict[str, list[float]] = {}
        for name, t in out["got"]:
            got.setdefault(name, []).append(t)
        lat = []
        missing = 0
        for name, ts in sent.items():
            rs = got.get(name, [])
            missing += max(0, len(ts) - len(rs))
            lat += [(r - s) * 1000 for s, r in zip(ts, rs, strict=False)]
        return {
            "clocks": n,
            "presses": sum(len(v) for v in sent.values()),
            "missing": missing,
            "cpu_pct": 100 * out["cpu"] / seconds,
            "p50": pct(lat, 0.5),
            "p99": pct(lat, 0.99),
        }
    finally:
        for s in sims:
            s.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clocks", default="10,50,100")
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--presses", type=int, default=300)
    args = ap.parse_args()
    lat = latency(args.presses)
    print(
        "press -> host event, real-time sim over a pty: %d presses, p50 %.2f ms, p99 %.2f ms,"
        " max %.2f ms" % (len(lat), pct(lat, 0.5), pct(lat, 0.99), max(lat))
    )
    for n in (int(x) for x in args.clocks.split(",")):
        r = hall(n, args.seconds)
        print(
            "hall of %(clocks)3d clocks: %(presses)d presses, %(missing)d missing; host process CPU"
            " %(cpu_pct).1f %%; press -> event p50 %(p50).2f ms, p99 %(p99).2f ms" % r
        )


if __name__ == "__main__":
    main()
