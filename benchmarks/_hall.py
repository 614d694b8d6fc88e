# SPDX-License-Identifier: GPL-3.0-or-later
"""What the hall's benchmarks share (hall.py, hall_network.py, feed.py): the
servers and the broker they start, as the tests start them
(tests/hallserver.py), and their figures. Not a benchmark itself
(run_all.py skips names that start with ``_``)."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Iterator

sys.path.insert(
    0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests")
)

from hallserver import Broker, Server

from qizhong.server import sims
from qizhong.sim import headless

__all__ = ["Broker", "Server", "cpu_s", "hall", "pct", "press", "start_every_board"]


def cpu_s(pid: int) -> float:
    """A process's CPU time so far (user + system), in seconds (from /proc)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(xs: list[float], p: float) -> float:
    """The ``p``-th percentile of ``xs`` (NaN for none)."""
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else float("nan")


@contextlib.contextmanager
def hall(clocks: int, names: tuple[str, ...] = ("a", "b")) -> Iterator[tuple[list[Server], str]]:
    """A broker and one ``qizhong serve --sim N --mqtt`` per name (``clocks``
    split evenly), every clock up; yields (servers, the broker's address) and
    stops them all after. Prints how long the start took."""
    n = clocks // len(names)
    with tempfile.TemporaryDirectory() as tmp:
        broker = Broker(tmp)
        servers: list[Server] = []
        try:
            t0 = time.monotonic()
            for name in names:
                db = os.path.join(tmp, "%s.sqlite" % name)
                servers.append(Server(db, n, ("--mqtt", broker.addr), name=name))
            for s in servers:
                with s.listening() as ws:
                    s.boards_up(ws)
            print(
                "%d clocks up on %d servers in %.1f s"
                % (n * len(names), len(names), time.monotonic() - t0),
                flush=True,
            )
            yield servers, broker.addr
        finally:
            for s in servers:
                s.stop()
            broker.stop()


def start_every_board(servers: list[Server]) -> dict[tuple[str, int], str]:
    """Each server's boards started (Red first); (server name, board no.) -> clock id."""
    ids: dict[tuple[str, int], str] = {}
    for s in servers:
        for b in s.get("/api/boards"):
            ids[(s.name, b["no"])] = b["clock_id"]
            s.post("/api/boards/%d/start" % b["no"], {"side": 0})
    return ids


def press(sim: sims.SimClock, lever: str, hold_ms: int = 30) -> None:
    """A press of a simulated clock's lever (sent; not waited for)."""
    headless.request(headless.address(sim.world, None), "press %s %d" % (lever, hold_ms))
