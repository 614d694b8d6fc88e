# SPDX-License-Identifier: GPL-3.0-or-later
"""Presses and display refresh during a serial flood, in real time (#12, #17).

    .venv/bin/python benchmarks/flood.py [SECONDS]

The simulated clock runs in real time with its displays on. A second handle
on its pty floods it with bytes for SECONDS (default 8): garbage without a
``$`` (dropped by the decoder, the most input per byte the loop can be given)
with a valid ``status`` request every 4 KB. Meanwhile a lever is pressed
every 400 ms. Printed: presses delivered, each press's event time against the
instant it was sent (the board's clock mapped to the host's by a ``time``
round trip), and the gaps between display frames while the clock ran under
20 s (tenths: a frame every 100 ms). The simulated board stamps a lever edge
when its loop reads the world line, so a stalled loop shows as late stamps.
Numbers only; nothing is judged.
"""

import itertools
import os
import random
import statistics
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "host"))

from qizhong import Clock  # noqa: E402
from qizhong.core import proto  # noqa: E402
from qizhong.sim import Sim  # noqa: E402


def board_offset(clock):
    """Board ms minus host ms (monotonic), from the best of a few round trips."""
    best = None
    for _ in range(5):
        a = time.monotonic()
        t = int(clock.link.request("time").words[1])
        b = time.monotonic()
        if best is None or b - a < best[0]:
            best = (b - a, t - (a + b) / 2 * 1000)
    assert best is not None
    return best[1]


def flood(path, stop, sent):
    rng = random.Random(7)
    junk = bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz0123456789 *\r\n") for _ in range(4096))
    fd = os.open(path, os.O_WRONLY | os.O_NOCTTY)
    try:
        rid = 60000
        while not stop.is_set():
            os.write(fd, junk)
            rid += 1
            os.write(fd, proto.frame("%d status" % rid))
            sent[0] += len(junk)
    finally:
        os.close(fd)


def run(seconds=8.0, period=0.4):
    with Sim(virtual=False) as sim:
        clock = Clock(sim.link)
        clock.configure("19s")
        clock.events(0.2)
        offset = board_offset(clock)
        stop = threading.Event()
        flooded = [0]
        th = threading.Thread(target=flood, args=(sim.serial_path, stop, flooded))
        sim.frame_log.clear()
        presses = []  # host ms at each press sent
        events = []
        th.start()
        start = time.monotonic()
        lever = 0
        nxt = start + 0.2
        while time.monotonic() < start + seconds:
            now = time.monotonic()
            if now >= nxt:
                sim.world.sendall(b"lever %d down 0\n" % lever)
                presses.append(now * 1000)
                sim.world.sendall(b"lever %d up 0\n" % lever)
                lever = 1 - lever
                nxt += period
            sim.pump()
            events += [e for e in clock.link.poll(0.005) if e.name in ("press", "start")]
        stop.set()
        th.join()
        deadline = time.monotonic() + 5
        while len(events) < len(presses) and time.monotonic() < deadline:
            events += [e for e in clock.link.poll(0.05) if e.name in ("press", "start")]
        sim.pump()
        frames = sorted({t for t, _, _ in sim.frame_log})
        return presses, events, offset, frames, flooded[0], seconds


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 8.0
    presses, events, offset, frames, flooded, secs = run(seconds)
    late = [e.t - (p + offset) for p, e in zip(presses, events, strict=False)]
    print(
        "serial flood %.0f s, %.1f MB written (%.0f KB/s), a press every 400 ms:"
        % (secs, flooded / 1e6, flooded / 1e3 / secs)
    )
    print("  presses delivered:        %d of %d" % (len(events), len(presses)))
    if late:
        late.sort()
        print(
            "  stamp - sent instant:     p50 %d ms, max %d ms (min %d: round-trip error)"
            % (statistics.median(late), late[-1], late[0])
        )
    gaps = [b - a for a, b in itertools.pairwise(frames)]
    if gaps:
        gaps.sort()
        print(
            "  display frames:           %d, gap p50 %d ms, max %d ms (100 ms expected)"
            % (len(frames), statistics.median(gaps), gaps[-1])
        )


if __name__ == "__main__":
    main()
