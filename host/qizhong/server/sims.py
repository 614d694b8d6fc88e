# SPDX-License-Identifier: GPL-3.0-or-later
"""``qizhong serve --sim N``: N simulated clocks, each its own process.

Each is a headless simulator (``qizhong.sim.headless``: the real firmware in
real time on a pty, a lever control port on 127.0.0.1) in its own session,
so it outlives a server killed with SIGKILL, as a real clock on the table
does. Its address is kept in a state file beside the server's database; a
restarted server finds the same clocks still running and takes them back.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

from qizhong.server.store import Store
from qizhong.sim import headless

# A bound on the simulators' start, in case one hangs: each is waited for on its
# own output (it says when it is ready, or exits), so a busy machine only makes
# the wait longer; 2 s a clock at load 28 on 2 cores would still be ample.
START_S = 120.0
START_EACH_S = 2.0


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
    running (their state files in ``folder``) are taken as they are. Each new
    one is waited for until it says where it listens (its output's ``world``
    line, after its state file is written), or exits; RuntimeError (with
    what it wrote on stderr, kept in ``folder/ID.err``) if it does not."""
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
        with open(os.path.join(folder, "%s.err" % board_id), "wb") as err:
            proc = subprocess.Popen(
                [sys.executable, "-m", "qizhong.sim.headless", spec, state, board_id],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,  # its readiness: the line that says where it listens
                stderr=err,
                start_new_session=True,  # a clock outlives its server's SIGKILL
            )
        procs.append((board_id, state, proc))
    try:
        _ready(procs, START_S + n * START_EACH_S)
    except BaseException:
        for _, _, proc in procs:
            if proc.poll() is None:
                proc.terminate()  # it stops its firmware too
        raise
    for board_id, state, proc in procs:
        got = _alive(state)
        if got is None or got.pid != proc.pid:
            raise RuntimeError("simulated clock %s started but does not answer" % board_id)
        out.append(SimClock(board_id, got.serial, got.world, got.pid, state))
    out.sort(key=lambda s: int(s.board_id.rsplit("-", 1)[1]))
    return out


def _ready(procs: list[tuple[str, str, subprocess.Popen[bytes]]], bound_s: float) -> None:
    """Wait until each process has printed its ``world`` line (it is ready),
    on their output pipes; RuntimeError if one exits first, or past ``bound_s``."""
    sel = selectors.DefaultSelector()
    said: dict[int, bytes] = {}
    for board_id, state, proc in procs:
        assert proc.stdout is not None
        sel.register(proc.stdout, selectors.EVENT_READ, (board_id, state, proc))
        said[proc.pid] = b""
    deadline = time.monotonic() + bound_s
    try:
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                late = sorted(str(k.data[0]) for k in sel.get_map().values())
                raise RuntimeError(
                    "simulated clocks %s did not start in %.0f s" % (", ".join(late), bound_s)
                )
            for key, _ in sel.select(left):
                board_id, state, proc = key.data
                chunk = os.read(key.fd, 4096)
                said[proc.pid] += chunk
                if not chunk:
                    proc.wait()
                    raise RuntimeError(
                        "simulated clock %s did not start (exit %s): %s"
                        % (board_id, proc.returncode, _said(state))
                    )
                if any(x.startswith(b"world ") for x in said[proc.pid].split(b"\n")[:-1]):
                    sel.unregister(key.fileobj)
                    assert proc.stdout is not None
                    proc.stdout.close()  # the whole line is in: nothing more is printed there
    finally:
        for _, _, proc in procs:
            if proc.stdout is not None:
                proc.stdout.close()
        sel.close()


def _said(state: str) -> str:
    """The end of what a simulated clock wrote on stderr."""
    try:
        with open(state[: -len(".json")] + ".err", "rb") as f:
            return f.read()[-2000:].decode(errors="replace").strip()
    except OSError as e:
        return str(e)


def number(store: Store, sims: list[SimClock], game: str, spec: str) -> None:
    """Board N is ``PREFIX-N`` (#20): each clock takes its board number in
    order before any of them says hello (a board the store knew keeps its
    number)."""
    for s in sims:
        store.board_for(s.board_id, s.serial, game, spec)


def stop(sims: list[SimClock]) -> None:
    """Stop each (asked on its control port; one too busy to answer gets SIGTERM,
    which stops it and its firmware all the same)."""
    for s in sims:
        try:
            headless.request(headless.address(s.world, None), "stop", timeout=10.0)
        except (headless.HeadlessError, ValueError):
            if _is_sim(s):
                with contextlib.suppress(OSError):
                    os.kill(s.pid, signal.SIGTERM)


def _is_sim(s: SimClock) -> bool:
    """Whether process ``s.pid`` is still that simulated clock (not a pid reused)."""
    try:
        with open("/proc/%d/cmdline" % s.pid, "rb") as f:
            argv = f.read().split(b"\0")
    except OSError:
        return False
    return b"qizhong.sim.headless" in argv and os.fsencode(s.state) in argv


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
