# SPDX-License-Identifier: GPL-3.0-or-later
"""The broadcast feed under load (#20): ``/live.pgn`` polled while levers are pressed.

    .venv/bin/python benchmarks/feed.py [--boards 200] [--moves 80] [--clients 10] [--seconds 20]

A real ``qizhong serve`` process. Its hall holds ``--boards`` boards of
``--moves`` moves each (Xiangqi, with one in twelve chess and one in twelve
Go, as a mixed tournament): 200 simulated clocks in real time are too heavy
for a shared 2-core machine, so those boards are put in the server's SQLite
file before it starts, through the server's own ``Store`` (``board_for``,
``add_event``: config, start, a press per move with its time left; the
moves as ``move`` actions, as ``POST /api/boards/N/move`` keeps them), and
the server rebuilds them as after a restart. Two more boards are real
simulated clocks (the firmware on MicroPython) that get a move and a lever
press every ``--gap`` ms, so the feed changes all the time.

Meanwhile ``--clients`` clients each fetch ``/live.pgn`` once a second. It
prints the first ``/live.pgn`` (every record built from the file),
then the time of each poll (p50/p99/max), the time from a lever press sent
to the simulated clock until a WebSocket client (what a page gets) has the
press (p50/p99), ``/api/boards/N`` answers during the polls, and the
server's CPU; then, after a SIGKILL and a restart, the first ``/live.pgn``
(the records made are kept in the file). Real time on a shared machine:
numbers, not pass/fail.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import threading
import time
import urllib.request

from _hall import Server, cpu_s, pct, press

from qizhong.clocks.link import Event
from qizhong.rules import chess, go, xiangqi
from qizhong.server.store import Store

SPEC = {"xiangqi": "xq-rapid", "chess": "15m+10s", "go": "15m byoyomi 3x30s"}


def a_game(kind: str, n: int, rng: random.Random) -> list[str]:
    """``n`` random legal moves that do not end the game, in the game's notation."""
    out: list[str] = []
    if kind == "xiangqi":
        xb = xiangqi.Board()
        while len(out) < n:
            mv = rng.choice(xb.legal_moves)
            text = xb.notation(mv)
            xb.push(mv)
            if not xb.legal_moves:
                xb.pop()
                continue
            out.append(text)
    elif kind == "chess":
        cb = chess.Board()
        while len(out) < n:
            mv = rng.choice(list(cb.legal_moves))
            text = cb.notation(mv)
            cb.push(mv)
            if cb.is_game_over():
                cb.pop()
                continue
            out.append(text)
    else:
        gb = go.Board(19)
        while len(out) < n:
            point = "ABCDEFGHJKLMNOPQRST"[rng.randrange(19)] + str(rng.randrange(1, 20))
            try:
                out.append(gb.push_gtp(point).gtp())
            except ValueError:
                pass
    return out


def fill(db: str, boards: int, moves: int) -> None:
    """``boards`` boards of ``moves`` moves each, kept as the server keeps them."""
    rng = random.Random(20)
    games = {k: [a_game(k, moves, rng) for _ in range(3)] for k in SPEC}
    store = Store(db)
    store._db.execute("PRAGMA synchronous=OFF")  # the fill only: the server runs with FULL
    for no in range(1, boards + 1):
        kind = "chess" if no % 12 == 5 else "go" if no % 12 == 11 else "xiangqi"
        b = store.board_for("bench-%03d" % no, "/dev/bench%d" % no, kind, SPEC[kind])
        store.set_board(b.no, first="Red %d" % no, second="Black %d" % no)
        left = [900000, 900000]
        t = 1000
        store.add_event(b.no, "bench", Event(1, t, "config", -1, 0, (left[0], left[1])))
        store.add_event(b.no, "bench", Event(2, t, "start", 0, 0, (left[0], left[1])))
        for i, text in enumerate(games[kind][no % 3]):
            side = i % 2
            t += 20000
            left[side] -= 20000 - 10000  # 20 s used, 10 s added
            aid = store.add_action(b.no, "move", {"text": text, "game": 1}, "arbiter")
            store.action_done(aid, "ok")
            store.add_event(b.no, "bench", Event(3 + i, t, "press", side, 0, (left[0], left[1])))
    store.close()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--boards", type=int, default=200)
    ap.add_argument("--moves", type=int, default=80)
    ap.add_argument("--clients", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--gap", type=int, default=250, help="ms between presses on the 2 clocks")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "feed.sqlite")
        t0 = time.monotonic()
        fill(db, args.boards, args.moves)
        print("%d boards of %d moves kept in %.1f s" % (args.boards, args.moves,
                                                        time.monotonic() - t0))  # fmt: skip
        server = Server(db, 2, name="feed")
        try:
            measure(server, args)
            server.kill()  # SIGKILL, and a restart on the same file and clocks
            t0 = time.monotonic()
            server.start()
            up = time.monotonic() - t0
            ms, _ = fetch(server.url + "/live.pgn", 900)
            print("after a SIGKILL and a restart: serving in %.1f s, then the first /live.pgn "
                  "%.1f ms (the records kept in the file)" % (up, ms))  # fmt: skip
        finally:
            server.stop()
        return 0


def fetch(url: str, timeout: float = 60) -> tuple[float, int]:
    t = time.monotonic()
    with urllib.request.urlopen(url, timeout=timeout) as r:
        n = len(r.read())
    return 1000 * (time.monotonic() - t), n


def measure(server: Server, args: argparse.Namespace) -> None:
    ws = server.socket()
    server.boards_up(ws)
    live = [b["no"] for b in server.get("/api/boards") if b["link"] == "up"]
    ms, size = fetch(server.url + "/live.pgn", 900)
    print("first /live.pgn, every record built from the store after the start: %.1f s, %d kB"
          % (ms / 1000, size // 1000))  # fmt: skip
    ms, _ = fetch(server.url + "/live.pgn")
    print("second /live.pgn (nothing changed): %.1f ms" % ms)
    ws.close()  # unread through the first build: the server's heartbeat may have dropped it
    ws = server.socket()
    for no in live:
        server.post("/api/boards/%d/start" % no, {"side": 0})
    stop = threading.Event()
    polls: list[float] = []
    details: list[float] = []
    lock = threading.Lock()

    def poller(k: int) -> None:
        nxt = time.monotonic() + k / args.clients
        while not stop.is_set():
            stop.wait(max(0.0, nxt - time.monotonic()))
            if stop.is_set():
                return
            nxt += 1.0
            took, _ = fetch(server.url + "/live.pgn")
            with lock:
                polls.append(took)

    def detail() -> None:
        while not stop.wait(0.5):
            took, _ = fetch(server.url + "/api/boards/1")
            with lock:
                details.append(took)

    got: dict[tuple[int, int], float] = {}
    count: dict[int, int] = {}

    def reader() -> None:
        ws.settimeout(2)
        while not stop.is_set():
            try:
                m = json.loads(ws.recv())
            except Exception:
                continue
            ev = m.get("event")
            if ev and ev["name"] == "press":
                k = count[ev["board"]] = count.get(ev["board"], 0) + 1
                got[(ev["board"], k)] = time.monotonic()

    threads = [threading.Thread(target=poller, args=(k,), daemon=True) for k in range(args.clients)]
    threads.append(threading.Thread(target=detail, daemon=True))
    threads.append(threading.Thread(target=reader, daemon=True))
    for t in threads:
        t.start()
    sims = {no: server.sim(no) for no in live}
    moves = {no: a_game("xiangqi", 400, random.Random(no)) for no in live}
    sent: dict[tuple[int, int], float] = {}
    cpu0, w0 = cpu_s(server.proc.pid), time.monotonic()
    k = 0
    while time.monotonic() - w0 < args.seconds:
        k += 1
        for no in live:
            server.post("/api/boards/%d/move" % no, {"text": moves[no][k - 1]})
            sent[(no, k)] = time.monotonic()
            press(sims[no], "left" if k % 2 else "right")
        time.sleep(args.gap / 1000)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and len(got) < len(sent):
        time.sleep(0.1)
    wall = time.monotonic() - w0
    cpu = (cpu_s(server.proc.pid) - cpu0) / wall
    stop.set()
    for t in threads:
        t.join(5)
    press_ms = [1000 * (got[x] - sent[x]) for x in sent if x in got]
    print("%d clients polling /live.pgn once a second for %.0f s; %d moves and presses on %d "
          "clocks meanwhile" % (args.clients, wall, len(sent), len(live)))  # fmt: skip
    print("/live.pgn (%d boards, %d kB): p50 %.1f ms, p99 %.1f ms, max %.1f ms, %d polls"
          % (args.boards + len(live), size // 1000, pct(polls, 50), pct(polls, 99),
             max(polls, default=float("nan")), len(polls)))  # fmt: skip
    print("press -> WebSocket client: p50 %.1f ms, p99 %.1f ms (%d of %d presses)"
          % (pct(press_ms, 50), pct(press_ms, 99), len(press_ms), len(sent)))  # fmt: skip
    print("/api/boards/1 meanwhile: p50 %.1f ms, p99 %.1f ms" % (pct(details, 50),
                                                                pct(details, 99)))  # fmt: skip
    print("server CPU: %.0f%% of one core" % (100 * cpu))


if __name__ == "__main__":
    sys.exit(main())
