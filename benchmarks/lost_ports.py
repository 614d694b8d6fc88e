# SPDX-License-Identifier: GPL-3.0-or-later
"""What lost clocks cost a hall server (#34), and the old code beside it.

N workers (``qizhong.server.board.Worker``, the server's own) each had a
clock on a pty reached by a link, as a server's ``--port`` may be; then the
pty and the link are gone (a cable pulled). Over WINDOW seconds of real time
it counts the times their ports were looked at (``Worker._connect``: a
``stat``, a sysfs read, and an open when the path is there), the workers'
wake-ups and the process's CPU. Then, one by one, K paths that nobody had
yet are made (a link to a new pty) and it times the made link to the
worker's look at it (p50 and the largest). The old code is the commit
before #34's watch (``--old``), unpacked with ``git archive`` into a
temporary folder, run the same way.

    .venv/bin/python benchmarks/lost_ports.py
    .venv/bin/python benchmarks/lost_ports.py --clocks 1000 --window 10
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def child(clocks: int, window: float, appear: int) -> dict[str, float]:
    """The measure itself, run with the code under test first on sys.path."""
    from qizhong.clocks.link import device_at
    from qizhong.server import board
    from qizhong.server.store import Store

    tmp = tempfile.mkdtemp(prefix="qz-lost-")
    store = Store(os.path.join(tmp, "hall.sqlite"))
    ports = board.Ports()
    looks = [0]
    seen: dict[str, float] = {}
    lock = threading.Lock()

    def counted(w: board.Worker) -> None:
        real = w._connect

        def connect() -> None:
            with lock:
                looks[0] += 1
                seen.setdefault(w.port, time.monotonic())
            real()

        w._connect = connect  # type: ignore[method-assign]

    workers = []
    for i in range(clocks):
        master, slave = os.openpty()
        path = os.path.join(tmp, "tty%d" % i)
        os.symlink(os.ttyname(slave), path)
        w = board.Worker(path, store, lambda no, view, event: None, ports=ports)
        w.device = device_at(path)  # the device its clock was on ...
        os.close(slave)
        os.close(master)  # ... gone, with its link
        os.unlink(path)
        counted(w)
        workers.append(w)
    for w in workers:
        w.start()
    for w in workers:
        w.ready.wait(60)
    time.sleep(1.0)  # their first look done
    looks0, wakes0, cpu0 = looks[0], sum(w.wakes for w in workers), time.process_time()
    time.sleep(window)
    out = {
        "looks_per_s": (looks[0] - looks0) / window,
        "wakes_per_s": (sum(w.wakes for w in workers) - wakes0) / window,
        "cpu_pct": 100 * (time.process_time() - cpu0) / window,
    }
    # Paths nobody had yet, made one at a time: how soon is each looked at?
    late = []
    rng = random.Random(34)
    for i in range(appear):
        path = os.path.join(tmp, "new%d" % i)
        w = board.Worker(path, store, lambda no, view, event: None, ports=ports)
        w.TIMEOUT_S = 0.5  # nobody answers on the new pty: its try ends soon
        counted(w)
        w.start()
        w.ready.wait(60)
        time.sleep(rng.uniform(0.05, 1.05))  # anywhere in an old worker's second
        master, slave = os.openpty()
        with lock:
            seen.pop(path, None)
        made = time.monotonic()
        os.symlink(os.ttyname(slave), path)
        while path not in seen and time.monotonic() - made < 10:
            time.sleep(0.001)
        late.append(1000 * (seen.get(path, made + 10) - made))
        w.stop()
        os.close(slave)
        os.close(master)
    out["appear_p50_ms"] = statistics.median(late) if late else 0.0
    out["appear_max_ms"] = max(late) if late else 0.0
    for w in workers:
        w.stop()
    return out


def run(host: str, clocks: int, window: float, appear: int) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=host)
    cmd = [sys.executable, __file__, "--child", "--clocks", str(clocks), "--window", str(window),
           "--appear", str(appear)]  # fmt: skip
    got = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
    return dict(json.loads(got.stdout.strip().splitlines()[-1]))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--clocks", type=int, default=100)
    p.add_argument("--window", type=float, default=10.0)
    p.add_argument("--appear", type=int, default=10)
    p.add_argument("--old", default="fbe7225", help="the old code's commit ('' for none)")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        print(json.dumps(child(args.clocks, args.window, args.appear)))
        return 0
    rows = [("this code", run(os.path.join(ROOT, "host"), args.clocks, args.window, args.appear))]
    if args.old:
        with tempfile.TemporaryDirectory() as tmp:
            tar = subprocess.run(["git", "-C", ROOT, "archive", args.old, "host", "firmware"],
                                 check=True, capture_output=True).stdout  # fmt: skip
            subprocess.run(["tar", "-x", "-C", tmp], input=tar, check=True)
            rows.append(("old " + args.old, run(os.path.join(tmp, "host"), args.clocks,
                                                args.window, args.appear)))  # fmt: skip
    print("%d lost clocks over %.0f s; then %d paths made one by one" % (args.clocks, args.window,
          args.appear))  # fmt: skip
    head = "%-16s %12s %12s %8s %14s %14s"
    print(head % ("code", "looks/s", "wakes/s", "CPU %", "made->look p50", "max"))
    for name, r in rows:
        print("%-16s %12.1f %12.1f %8.1f %11.1f ms %11.1f ms" % (name, r["looks_per_s"],
              r["wakes_per_s"], r["cpu_pct"], r["appear_p50_ms"], r["appear_max_ms"]))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
