# SPDX-License-Identifier: GPL-3.0-or-later
"""A headless clock with a game on it, in real time, for MINUTES (#13).

    .venv/bin/python benchmarks/arbiter_day.py [MINUTES]

The real firmware on the simulated board in real time (its displays drawn and
sent to the world socket, which this program reads as `qizhong sim` does),
and the arbiter's console (``qizhong.cli.arbiter``, with its journal and the
record kept on disk) on a 19x19 Go game at 90m byoyomi 3x30s: a stone typed
and its lever pressed every 2-4 s for MINUTES (default 5). Halfway the console
is dropped as a killed one would be, two presses are made while it is down,
and a new console resumes the game. At the end Black resigns.

Printed: how long it ran, moves and presses, the clock's status round trip
and the press-to-paired latency (median and worst), the clock's time against
the host's over the run (drift), how often the record was read back whole
while being written, the resume (journal size, replay time), and the record
read back at the end with sgfmill: every move, every time as the clock's own
press event gave it, the result.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "host"))

from sgfmill import sgf  # noqa: E402

from qizhong.cli import arbiter as cli_arbiter  # noqa: E402
from qizhong.clocks.driver import Clock  # noqa: E402
from qizhong.records import go_sgf  # noqa: E402
from qizhong.sim import Sim  # noqa: E402


def args_for(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="qizhong")
    cli_arbiter.add_commands(p.add_subparsers(dest="command"))
    return p.parse_args(["arbiter", *argv])


def ms(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * q))] if xs else float("nan")


def main() -> int:
    minutes = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    rng = random.Random(13)
    tmp = tempfile.mkdtemp(prefix="qizhong-day-")
    os.environ["QIZHONG_STATE"] = os.path.join(tmp, "state")
    out = os.path.join(tmp, "board1.sgf")
    status_rt: list[float] = []
    paired_lat: list[float] = []
    drift: list[int] = []
    reads = bad_reads = 0
    typed: list[str] = []
    with Sim(virtual=False, open_link=False, board_id="bench-table") as sim:
        clock = Clock(sim.serial_path, timeout=5.0)
        argv = ("--game", "go", "--spec", "90m byoyomi 3x30s", "--out", out)
        con, _ = cli_arbiter.open_console(args_for("--port", sim.serial_path, *argv), clock)
        con.handle("start")
        t0 = time.monotonic()
        c0 = clock.now()
        end = t0 + minutes * 60
        resumed = False
        resume_ms = 0.0
        journal_bytes = 0
        while time.monotonic() < end:
            s = con.session
            side = len(s.played) % 2
            mv = rng.choice([m.gtp() for m in s.board.legal_moves if m.gtp() != "pass"])
            con.handle(mv)
            typed.append(mv)
            think_end = time.monotonic() + rng.uniform(2.0, 4.0)
            while time.monotonic() < think_end:  # the player thinks; the table is watched
                sim.pump()
                con.poll(0.1)
                a = time.monotonic()
                st = clock.status()
                b = time.monotonic()
                status_rt.append((b - a) * 1000)
                drift.append((st.t - c0) - round(((a + b) / 2 - t0) * 1000))
            lever = 0 if side == s.left_side else 1
            a = time.monotonic()
            sim.world.sendall(b"lever %d down 0\n" % lever)
            while s.played[-1].press is None:
                sim.pump()
                con.poll(0.02)
                if time.monotonic() - a > 5:
                    raise RuntimeError("the press of %s never came" % mv)
            paired_lat.append((time.monotonic() - a) * 1000)
            sim.world.sendall(b"lever %d up 0\n" % lever)
            try:
                with open(out, "rb") as f:
                    go_sgf.read(f.read())
                reads += 1
            except Exception:  # a record read half-written: the finding
                bad_reads += 1
            if not resumed and time.monotonic() > t0 + minutes * 30:
                resumed = True
                clock.close()  # the console dies (no close, nothing flushed by it)
                for lever_ in (1 - lever, lever):  # two presses while it is down
                    time.sleep(1.0)  # the players keep playing
                    sim.world.sendall(b"lever %d down 0\n" % lever_)
                    time.sleep(0.1)
                    sim.world.sendall(b"lever %d up 0\n" % lever_)
                    sim.pump()
                journal_bytes = os.path.getsize(out + ".journal")
                a = time.monotonic()
                clock = Clock(sim.serial_path, timeout=5.0)
                con, lines = cli_arbiter.open_console(args_for("--port", sim.serial_path), clock)
                resume_ms = (time.monotonic() - a) * 1000
                print(lines[0].strip())
                s = con.session
                while len(s.presses) < len(s.played) + 2:
                    sim.pump()
                    con.poll(0.05)
                for _ in range(2):  # the two stones, typed after the fact
                    mv = rng.choice([m.gtp() for m in s.board.legal_moves if m.gtp() != "pass"])
                    con.handle(mv)
                    typed.append(mv)
                assert all(p.press is not None for p in s.played)
        elapsed = time.monotonic() - t0
        con.handle("resign black")
        con.close()
        evs = clock.since(con.session.start_seq)
        clock.close()
    presses = [e for e in evs if e.name == "press"]
    data = open(out, "rb").read()
    game = sgf.Sgf_game.from_bytes(data)
    rec = go_sgf.read(data)
    moves = [m.gtp() for m in rec.board.move_stack]
    times = [t.left_ms if t else None for t in rec.times]
    want = [p.left[p.side] for p in presses]
    print("ran %.1f min in real time; %d moves typed, %d presses" % (
        elapsed / 60, len(typed), len(presses)))  # fmt: skip
    print("status round trip: median %.1f ms, worst %.1f ms (%d requests)" % (
        ms(status_rt, 0.5), max(status_rt), len(status_rt)))  # fmt: skip
    print("press to paired in the console: median %.1f ms, worst %.1f ms" % (
        ms(paired_lat, 0.5), max(paired_lat)))  # fmt: skip
    print("clock time minus host time: %+d ms at the start, %+d ms at the end (worst %+d)" % (
        drift[0], drift[-1], max(drift, key=abs)))  # fmt: skip
    print("record read back whole while written: %d of %d reads" % (reads, reads + bad_reads))
    print("resume: journal %d bytes, new console ready in %.0f ms" % (journal_bytes, resume_ms))
    print("record at the end: %d moves (typed %d, same: %s), times as the presses: %s, RE %s" % (
        len(moves), len(typed), moves == typed, times == want[: len(times)],
        game.get_root().get("RE")))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
