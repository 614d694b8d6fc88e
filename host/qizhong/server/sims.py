# SPDX-License-Identifier: GPL-3.0-or-later
"""``qizhong serve --sim N``: N simulated clocks, each its own process.

Each is a headless simulator (``qizhong.sim.headless``: the real firmware in
real time on a pty, a lever control port on 127.0.0.1) in its own session,
so it outlives a server killed with SIGKILL, as a real clock on the table
does. Its address is kept in a state file beside the server's database; a
restarted server finds the same clocks still running and takes them back.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass

from qizhong.server.store import Store
from qizhong.sim import headless

START_S = 30.0  # a bound on a simulator's start (the firmware boots on MicroPython)


@dataclass(frozen=True)
class SimClock:
    board_id: str
    serial: str  # the pty the server opens
    world: str  # HOST:PORT of its lever control
    pid: int
    state: str  # its state file


def _alive(state: str) -> SimClock | None:
    try:
        with open(state) as f:
            info = json.load(f)
        addr = headless.address(str(info["world"]), None)
        reply = headless.request(addr, "info", timeout=2.0)
    except (OSError, ValueError, KeyError, headless.HeadlessError):
        return None
    now = json.loads(reply[3:])
    return SimClock(
        str(info.get("id", "")), str(now["serial"]), str(now["world"]), int(now["pid"]), state
    )


def start(n: int, folder: str, spec: str, prefix: str = "sim") -> list[SimClock]:
    """N simulated clocks named ``PREFIX-1`` .. ``PREFIX-N``; those already
    running (their state files in ``folder``) are taken as they are."""
    os.makedirs(folder, exist_ok=True)
    out: list[SimClock] = []
    procs: list[tuple[str, str, subprocess.Popen[bytes]]] = []
    for i in range(1, n + 1):
        board_id = "%s-%d" % (prefix, i)
        state = os.path.join(folder, "%s.json" % board_id)
        got = _alive(state)
        if got is not None:
            out.append(SimClock(board_id, got.serial, got.world, got.pid, state))
            continue
        proc = subprocess.Popen(
            [sys.executable, "-m", "qizhong.sim.headless", spec, state, board_id],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a clock outlives its server's SIGKILL
        )
        procs.append((board_id, state, proc))
    deadline = time.monotonic() + START_S + n * 0.5
    for board_id, state, proc in procs:
        while True:
            got = _alive(state)
            if got is not None and got.pid == proc.pid:
                out.append(SimClock(board_id, got.serial, got.world, got.pid, state))
                break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("simulated clock %s did not start" % board_id)
            time.sleep(0.05)  # waiting on another process's start, bounded above
    out.sort(key=lambda s: int(s.board_id.rsplit("-", 1)[1]))
    return out


def number(store: Store, sims: list[SimClock], game: str, spec: str) -> None:
    """Board N is ``PREFIX-N`` (#20): each clock takes its board number in
    order before any of them says hello (a board the store knew keeps its
    number)."""
    for s in sims:
        store.board_for(s.board_id, s.serial, game, spec)


def stop(sims: list[SimClock]) -> None:
    for s in sims:
        try:
            headless.request(headless.address(s.world, None), "stop", timeout=2.0)
        except (headless.HeadlessError, ValueError):
            pass


def stop_folder(folder: str) -> int:
    """Stop every simulated clock whose state file is in ``folder`` (those a
    server started and left behind); how many were stopped."""
    n = 0
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        got = _alive(os.path.join(folder, name)) if name.endswith(".json") else None
        if got is not None:
            stop([got])
            n += 1
    return n


def press(
    sim: SimClock, lever: str = "left", hold_ms: int = headless.HOLD_MS, wait_up: bool = False
) -> None:
    """Press a simulated clock's lever (as a player does); ``wait_up``: return
    once it is up again (a player's next press of it can count)."""
    line = "press %s %d%s" % (lever, hold_ms, " up" if wait_up else "")
    headless.request(headless.address(sim.world, None), line)
