# SPDX-License-Identifier: GPL-3.0-or-later
"""The hall server alone at 100, 400 and 1,000 clocks (#32), and the old code beside it.

One ``benchmarks/_fleet.py`` process plays every clock over its own pty with
the real protocol; one ``qizhong serve --port ...`` takes them all, as a hall
of USB clocks. For each size: the time until it serves HTTP and until every
board is up; the server's CPU (from /proc) with no presses and with each
clock pressed every 10-20 s at random, with 1 and then 20 WebSocket
viewers; its memory (VmRSS, VmHWM); press -> page (the clock's stamp of the
press to its arrival at each viewer; the stamps are whole ms, so up to 1 ms
high) p50/p99; and ``/live.pgn`` p50/p99 (one request every 0.2 s while
pressing). The first row is the same at 100 clocks from a checkout of the old
code (``--old``, a commit), in a temporary ``git worktree``.

    .venv/bin/python benchmarks/hall_scale.py                 # 100, 400, 1000 and old 100
    .venv/bin/python benchmarks/hall_scale.py --clocks 100 --window 5 --old ''
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

import aiohttp

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PASSWORD = "bench-arbiter-pw"
UP_S = 1200.0  # a bound on the start (the old code took 946 s at 1,000)


def mono_ms() -> float:
    return time.monotonic_ns() / 1e6


def cpu_s(pid: int) -> float:
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def mem_mb(pid: int) -> tuple[float, float]:
    """VmRSS and VmHWM in MB."""
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM"):
                out[k] = int(v.split()[0]) / 1024
    return out.get("VmRSS", 0.0), out.get("VmHWM", 0.0)


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else float("nan")


class Run:
    """A fleet of ``n`` clocks and a server (``host``: the package's folder) on them."""

    def __init__(self, n: int, host: str, tmp: str) -> None:
        self.n = n
        self.base = int(mono_ms()) - 1000
        self.fleet = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "_fleet.py"), str(n), "--base-ms", str(self.base)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.fleet.stdout is not None
        ports = json.loads(self.fleet.stdout.readline())["ports"]
        env = dict(os.environ, PYTHONPATH=host, QIZHONG_ARBITER_PASSWORD=PASSWORD)
        argv = [sys.executable, "-c", "import sys; from qizhong.cli import main; sys.exit(main())"]
        argv += ["serve", "--db", os.path.join(tmp, "hall.sqlite"), "--listen", "127.0.0.1:0"]
        for p in ports:
            argv += ["--port", p]
        self.t0 = time.monotonic()
        self.err = open(os.path.join(tmp, "stderr"), "w+")  # read if it fails
        self.proc = subprocess.Popen(
            argv, env=env, stdout=subprocess.PIPE, stderr=self.err, text=True, cwd=tmp
        )
        assert self.proc.stdout is not None
        line = ""
        for line in self.proc.stdout:
            if line.startswith("hall at "):
                break
        self.serving_s = time.monotonic() - self.t0
        if not line.startswith("hall at "):
            self.err.seek(0)
            raise RuntimeError("the server did not start: %s" % self.err.read()[-2000:])
        self.url = line.split()[2].rstrip("/")
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()  # never a full pipe

    def fleet_say(self, line: str) -> dict[str, Any]:
        assert self.fleet.stdin is not None and self.fleet.stdout is not None
        self.fleet.stdin.write(line + "\n")
        self.fleet.stdin.flush()
        if line == "cpu":
            out: dict[str, Any] = json.loads(self.fleet.stdout.readline())
            return out
        return {}

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.fleet_say("quit")
        self.fleet.wait(30)


async def all_up(run: Run, http: aiohttp.ClientSession) -> float:
    """Seconds from the server's start until every board is up."""
    while time.monotonic() - run.t0 < UP_S:
        async with http.get(run.url + "/api/boards") as r:
            boards = await r.json()
        if sum(1 for b in boards if b["link"] == "up") >= run.n:
            return time.monotonic() - run.t0
        await asyncio.sleep(0.25)
    raise RuntimeError("not every board up in %.0f s" % UP_S)


class Viewers:
    """WebSocket pages: each press's age on arrival."""

    def __init__(self, run: Run, http: aiohttp.ClientSession) -> None:
        self.run, self.http = run, http
        self.tasks: list[asyncio.Task[None]] = []
        self.ages: list[float] = []
        self.messages = 0
        self.recording = False

    async def add(self, k: int) -> None:
        for _ in range(k):
            ws = await self.http.ws_connect(self.run.url + "/ws", max_msg_size=0)
            self.tasks.append(asyncio.ensure_future(self._read(ws)))

    async def _read(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        async for msg in ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            self.messages += 1
            if not self.recording:
                continue
            m = json.loads(msg.data)
            ev = m.get("event") if m.get("type") == "board" else None
            if ev and ev.get("name") == "press":
                self.ages.append(mono_ms() - self.run.base - ev["t"])

    async def close(self) -> None:
        for t in self.tasks:
            t.cancel()


async def live_pgn(
    run: Run, http: aiohttp.ClientSession, times: list[float], stop: asyncio.Event
) -> None:
    while not stop.is_set():
        a = mono_ms()
        async with http.get(run.url + "/live.pgn") as r:
            await r.read()
        times.append(mono_ms() - a)
        await asyncio.sleep(0.2)


async def window(
    run: Run, viewers: Viewers, http: aiohttp.ClientSession, s: float, pressing: bool
) -> dict[str, Any]:
    viewers.ages, viewers.messages = [], 0
    viewers.recording = pressing
    pgn: list[float] = []
    stop = asyncio.Event()
    task = asyncio.ensure_future(live_pgn(run, http, pgn, stop)) if pressing else None
    c0, t0 = cpu_s(run.proc.pid), time.monotonic()
    await asyncio.sleep(s)
    cpu = (cpu_s(run.proc.pid) - c0) / (time.monotonic() - t0) * 100
    stop.set()
    if task is not None:
        await task
    return {"cpu": cpu, "ages": list(viewers.ages), "pgn": pgn, "messages": viewers.messages}


async def measure(n: int, host: str, label: str, s: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        run = Run(n, host, tmp)
        try:
            async with aiohttp.ClientSession() as http:
                up = await all_up(run, http)
                a = mono_ms()
                async with http.get(run.url + "/live.pgn") as r:  # the first: every record made
                    await r.read()
                first_pgn = mono_ms() - a
                viewers = Viewers(run, http)
                await viewers.add(1)
                await asyncio.sleep(2)  # the start's work over
                idle1 = await window(run, viewers, http, s, False)
                run.fleet_say("go 10 20")
                await asyncio.sleep(2 + n / 200)  # every clock's start event kept
                press1 = await window(run, viewers, http, s, True)
                await viewers.add(19)
                await asyncio.sleep(1)
                press20 = await window(run, viewers, http, s, True)
                run.fleet_say("stop")
                await asyncio.sleep(2)
                idle20 = await window(run, viewers, http, s, False)
                rss, hwm = mem_mb(run.proc.pid)
                fleet = run.fleet_say("cpu")
                await viewers.close()
        finally:
            run.stop()
    return {
        "label": label, "n": n, "serving": run.serving_s, "up": up, "idle": (idle1, idle20),
        "press": (press1, press20), "rss": rss, "hwm": hwm, "fleet": fleet, "first": first_pgn,
    }  # fmt: skip


def row(r: dict[str, Any]) -> str:
    i1, i20 = r["idle"]
    p1, p20 = r["press"]
    return (
        "| %s | %d | %.1f / %.1f %% | %.1f / %.1f %% | %.1f / %.1f ms; %.1f / %.1f ms"
        " | %.0f / %.0f ms (first %.0f) | %.0f MB (peak %.0f) | %.1f s (HTTP %.1f s) | %d"
        " | %.1f s |"
        % (
            r["label"], r["n"], i1["cpu"], i20["cpu"], p1["cpu"], p20["cpu"],
            pct(p1["ages"], 50), pct(p1["ages"], 99), pct(p20["ages"], 50), pct(p20["ages"], 99),
            pct(p1["pgn"] + p20["pgn"], 50), pct(p1["pgn"] + p20["pgn"], 99), r["first"],
            r["rss"], r["hwm"], r["up"], r["serving"], i20["messages"], r["fleet"]["cpu_s"],
        )
    )  # fmt: skip


def old_tree(commit: str, tmp: str) -> str:
    path = os.path.join(tmp, "old")
    subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", path, commit],
                   check=True, capture_output=True)  # fmt: skip
    return path


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--clocks", default="100,400,1000", help="the sizes, comma-separated")
    p.add_argument(
        "--window",
        type=float,
        default=15.0,
        help="seconds of each measurement (a heartbeat period)",
    )
    p.add_argument("--old", default="123eacc", help="the old code's commit ('' for none)")
    args = p.parse_args()
    print("load average at start: %.2f %.2f %.2f" % os.getloadavg(), flush=True)
    print("| code | clocks | CPU idle, 1 / 20 viewers | CPU pressing, 1 / 20"
          " | press -> page p50 / p99, 1 viewer; 20 | /live.pgn p50 / p99 | RSS"
          " | all boards up (serving) | messages to 20 idle viewers |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        if args.old:
            old = old_tree(args.old, tmp)
            try:
                print(
                    row(
                        asyncio.run(measure(100, os.path.join(old, "host"), args.old, args.window))
                    ),
                    flush=True,
                )
            finally:
                subprocess.run(
                    ["git", "-C", ROOT, "worktree", "remove", "--force", old], check=False
                )
        for n in (int(x) for x in args.clocks.split(",")):
            print(
                row(asyncio.run(measure(n, os.path.join(ROOT, "host"), "new", args.window))),
                flush=True,
            )
    print("load average at end: %.2f %.2f %.2f" % os.getloadavg(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
