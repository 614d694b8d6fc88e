# SPDX-License-Identifier: GPL-3.0-or-later
"""Test helper: a real ``qizhong serve`` with simulated clocks, in its own process.

Its simulated clocks are their own processes (qizhong.server.sims), so the
server can be killed with SIGKILL and started again on the same clocks and
the same SQLite file. Everything waits on the server's own messages (its
first line of output, its WebSocket), bounded in time."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import websocket  # websocket-client (selenium's own dependency)

from qizhong.server import sims

PASSWORD = "test-arbiter-pw"
START_S = 60.0


class Server:
    def __init__(
        self,
        db: str,
        n: int = 2,
        extra: tuple[str, ...] = (),
        name: str = "hall",
        password: str | None = PASSWORD,
    ) -> None:
        self.db, self.n, self.extra, self.name = db, n, extra, name
        self.password = password  # None: the server makes one (or takes the one it kept)
        self.said: list[str] = []  # its lines after "hall at" up to the last sim's
        self.listen = "127.0.0.1:0"  # a free port; kept for a restart (a page reconnects)
        self.start()

    def start(self) -> None:
        env = dict(os.environ, QIZHONG_ARBITER_PASSWORD=self.password or "")
        if self.password is None:
            del env["QIZHONG_ARBITER_PASSWORD"]
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "qizhong.cli",
                "serve",
                "--sim",
                str(self.n),
                "--db",
                self.db,
                "--listen",
                self.listen,
                "--name",
                self.name,
                *self.extra,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()  # blocks until it serves (or dies)
        if not line.startswith("hall at "):
            self.proc.kill()
            sims.stop_folder(self.db + ".sims")  # the clocks it started outlive it
            raise RuntimeError("server did not start: %r %s" % (line, self.proc.stderr.read()))
        self.url = line.split()[2].rstrip("/")
        self.said = []
        for _ in range(self.n + (self.password is None)):  # the password's line, each clock's
            self.said.append(self.proc.stdout.readline().rstrip("\n"))
        self.listen = self.url.split("//", 1)[1]
        self.sims = sims.start(
            self.n, self.db + ".sims", "xq-rapid", self.name + "-sim"
        )  # the same, running

    def sim(self, no: int) -> sims.SimClock:
        """The simulated clock of board ``no`` (boards are numbered as clocks answer)."""
        clock_id = self.get("/api/boards/%d" % no)["clock_id"]
        return next(s for s in self.sims if s.board_id == clock_id)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def term(self) -> None:
        """A normal stop (SIGTERM): the simulated clocks run on."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(20)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        sims.stop(self.sims)

    # -- the API --------------------------------------------------------------------------

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=10) as r:
            return json.load(r)

    def events(self, path: str = "/api/events") -> list[Any]:
        """Every kept event of a paged events path (``/api/events``,
        ``/api/boards/N/events``), following each page's ``Link`` next."""
        from qizhong.server.client import next_page

        out: list[Any] = []
        at: str | None = path
        while at is not None:
            with urllib.request.urlopen(self.url + at, timeout=10) as r:
                out += json.load(r)
                at = next_page(r.headers.get("Link", ""))
        return out

    def post(self, path: str, body: dict[str, Any], password: str | None = PASSWORD) -> Any:
        req = urllib.request.Request(
            self.url + path,
            data=json.dumps(body).encode(),
            method="POST",
            headers={"Content-Type": "application/json"},
        )
        if password is not None:
            req.add_header("Authorization", "Bearer " + password)
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.load(r)

    def status_of(self, path: str, body: dict[str, Any], password: str | None = None) -> int:
        try:
            self.post(path, body, password)
        except urllib.error.HTTPError as e:
            return e.code
        return 200

    def socket(self) -> websocket.WebSocket:
        return websocket.create_connection(self.url.replace("http", "ws", 1) + "/ws", timeout=20)

    def wait(
        self, ws: websocket.WebSocket, pred: Callable[[dict[str, Any]], bool], timeout: float = 20.0
    ) -> dict[str, Any]:
        """The first message from the server's socket that ``pred`` accepts."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ws.settimeout(max(0.1, deadline - time.monotonic()))
            msg = json.loads(ws.recv())
            if pred(msg):
                return msg
        raise AssertionError("no such message from the server in %.0f s" % timeout)

    def boards_up(self, ws: websocket.WebSocket) -> None:
        """Wait until every board's clock is connected."""
        up: set[int] = set()
        msg = self.wait(ws, lambda m: m["type"] == "hello")
        up |= {b["no"] for b in msg["boards"] if b["link"] == "up"}
        while len(up) < self.n:
            msg = self.wait(ws, lambda m: m["type"] == "board")
            if msg["board"]["link"] == "up":
                up.add(msg["board"]["no"])
