# SPDX-License-Identifier: GPL-3.0-or-later
"""The hall server's board sessions in real time (#20 item 1, docs/server.md).

A real ``qizhong serve`` with simulated clocks: on every board a Xiangqi
game of ``--moves`` moves (legal, chosen by a fixed seed) is entered over
``POST /api/boards/N/session`` with the clock's presses in between. Prints
the round trip of a move (p50, p99), then kills the server (SIGKILL) and
prints how long the restarted server took to serve again with every
board's session rebuilt from the store (its journal replayed). Numbers,
nothing judged.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))

from hallserver import Server  # noqa: E402

from qizhong.rules import xiangqi  # noqa: E402
from qizhong.server import sims  # noqa: E402
from qizhong.server.hall import Hall  # noqa: E402
from qizhong.server.store import Store  # noqa: E402


def store_entries(db: str) -> int:
    con = sqlite3.connect(db)
    try:
        return int(con.execute("SELECT COUNT(*) FROM session_log").fetchone()[0])
    finally:
        con.close()


def game(n: int, seed: int) -> list[str]:
    """``n`` legal moves of a game that does not end (a random walk, fixed seed)."""
    rng = random.Random(seed)
    while True:
        board, out = xiangqi.Board(), []
        for _ in range(n):
            moves = sorted(board.legal_moves, key=str)
            if not moves:
                break
            mv = rng.choice(moves)
            out.append(board.notation(mv))
            board.push(mv)
            if board.outcome() is not None:
                break
        if len(out) == n:
            return out
        seed += 1000
        rng = random.Random(seed)


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--boards", type=int, default=2)
    ap.add_argument("--moves", type=int, default=40)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        s = Server(os.path.join(tmp, "hall.sqlite"), a.boards)
        try:
            s.boards_up(s.socket())
            rtt: list[float] = []
            for no in range(1, a.boards + 1):
                s.post("/api/boards/%d/session" % no, {"line": "start"})
                clock = s.sim(no)
                for i, mv in enumerate(game(a.moves, no)):
                    t0 = time.perf_counter()
                    got = s.post("/api/boards/%d/session" % no, {"line": mv})
                    rtt.append(time.perf_counter() - t0)
                    assert got["ok"], got
                    sims.press(clock, "left" if i % 2 == 0 else "right", wait_up=True)
            print("session move round trip: p50 %.1f ms, p99 %.1f ms (%d moves on %d boards)"
                  % (pct(rtt, 0.5) * 1e3, pct(rtt, 0.99) * 1e3, len(rtt), a.boards))  # fmt: skip
            s.kill()
            shutil.copy(s.db, s.db + ".copy")
            store = Store(s.db + ".copy")
            t0 = time.perf_counter()
            hall = Hall(store, "benchmark")  # the sessions replayed, in this process
            replay = time.perf_counter() - t0
            assert not hall.problems, hall.problems
            store.close()
            print("sessions replayed from the store: %.2f s (%d moves, %d journal entries)"
                  % (replay, len(rtt), store_entries(s.db)))  # fmt: skip
            t0 = time.perf_counter()
            s.start()  # serves once every board's session is replayed from the store
            up = time.perf_counter() - t0
            kept = [len(s.get("/api/boards/%d/session" % no)["moves"])
                    for no in range(1, a.boards + 1)]  # fmt: skip
            print("restart after SIGKILL to serving, sessions rebuilt: %.2f s (moves kept: %s)"
                  % (up, kept))  # fmt: skip
        finally:
            s.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
