# SPDX-License-Identifier: GPL-3.0-or-later
"""Test helper: a real ``qizhong serve`` with simulated clocks, in its own process.

Its simulated clocks are their own processes (qizhong.server.sims), so the
server can be killed with SIGKILL and started again on the same clocks and
the same SQLite file. Everything waits on the server's own messages (its
first line of output, its WebSocket), bounded in time: the bounds are for a
loaded 2-core machine (CI), so only a failing test waits one out."""

from __future__ import annotations

import collections
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import websocket  # websocket-client (selenium's own dependency)

from qizhong.server import sims

PASSWORD = "test-arbiter-pw"
START_S = 60.0  # the server's own start, beyond its clocks' (sims.START_S, ...)
WAIT_S = 60.0  # a bound on waiting for the server's news (a message, a state)
HTTP_S = 30.0  # a bound on one HTTP answer
MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


def _read_on(stream: Any, into: collections.deque[str]) -> None:
    """A process's output read to its end, its last lines kept."""
    with stream:  # closed at its end: no unclosed pipe for the collector to warn of
        for line in stream:
            into.append(line.rstrip("\n"))


class Broker:
    """A real mosquitto (Debian's) on a free loopback port (``addr``), for the
    tests and the benchmarks. Started when it says it runs (its log, on a
    pipe), or RuntimeError with what it said; its log is read on (the last
    lines kept in ``log``), so it never waits on a full pipe."""

    def __init__(
        self, folder: str, queued: int | None = None, conf: str = "allow_anonymous true\n"
    ) -> None:
        """``queued``: its ``max_queued_messages`` for each client (None: its
        default); ``conf``: more of its configuration (after its listener's line)."""
        if not os.path.exists(MOSQUITTO):
            raise RuntimeError(
                "Debian's mosquitto is needed: apt-get install mosquitto (make test does it)"
            )
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        path = os.path.join(folder, "mosquitto.conf")
        with open(path, "w") as f:
            f.write("listener %d 127.0.0.1\npersistence false\n" % port)
            # its log on stderr: unbuffered, each line as it is written (stdout is not)
            f.write("log_dest stderr\nlog_type error\nlog_type warning\nlog_type information\n")
            if queued is not None:
                f.write("max_queued_messages %d\n" % queued)
            f.write(conf)
        self.proc = subprocess.Popen(
            [MOSQUITTO, "-c", path], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        assert self.proc.stderr is not None
        self.log: collections.deque[str] = collections.deque(maxlen=100)
        watchdog = threading.Timer(START_S, self.proc.kill)  # only if it hangs
        watchdog.start()
        try:
            for line in self.proc.stderr:
                self.log.append(line.rstrip("\n"))
                if line.rstrip().endswith(" running"):  # after its listener is open
                    break
            else:
                self.proc.wait()
                raise RuntimeError("mosquitto did not start: " + "\n".join(self.log))
        finally:
            watchdog.cancel()
        threading.Thread(target=_read_on, args=(self.proc.stderr, self.log), daemon=True).start()
        self.addr = "127.0.0.1:%d" % port

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


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
        self._sockets: list[websocket.WebSocket] = []
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
        # It prints its address once it serves, after its clocks have started (each
        # waited for on its own output): a bound only in case it hangs.
        bound = START_S + sims.START_S + self.n * sims.START_EACH_S
        watchdog = threading.Timer(bound, self.proc.kill)
        watchdog.start()
        try:
            line = self.proc.stdout.readline()  # blocks until it serves (or dies)
            if not line.startswith("hall at "):
                self.proc.kill()
                sims.stop_folder(self.db + ".sims")  # the clocks it started outlive it
                raise RuntimeError(
                    "server did not start (bound %.0f s): %r %s"
                    % (bound, line, self.proc.stderr.read())
                )
            self.url = line.split()[2].rstrip("/")
            self.said = []
            for _ in range(self.n + (self.password is None)):  # the password's line, each clock's
                self.said.append(self.proc.stdout.readline().rstrip("\n"))
        finally:
            watchdog.cancel()
        # What it says on stderr, read as it comes (a full pipe would stop it), the end kept.
        self.errors: collections.deque[str] = collections.deque(maxlen=200)
        threading.Thread(target=_read_on, args=(self.proc.stderr, self.errors), daemon=True).start()
        self.listen = self.url.split("//", 1)[1]
        self.sims = sims.start(
            self.n, self.db + ".sims", "xq-rapid", self.name + "-sim"
        )  # the same, running

    def sim(self, no: int) -> sims.SimClock:
        """The simulated clock of board ``no`` (boards are numbered as clocks answer)."""
        clock_id = self.get("/api/boards/%d" % no)["clock_id"]
        return next(s for s in self.sims if s.board_id == clock_id)

    def _closed(self) -> None:
        """The ended process's stdout closed (its stderr closes at its reader's end)."""
        if self.proc.stdout is not None:
            self.proc.stdout.close()

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self._closed()

    def term(self) -> None:
        """A normal stop (SIGTERM): the simulated clocks run on."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(20)
        self._closed()

    def stop(self) -> None:
        for ws in self._sockets:
            ws.close()
        self._sockets.clear()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._closed()
        sims.stop(self.sims)

    # -- the API --------------------------------------------------------------------------

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=HTTP_S) as r:
            return json.load(r)

    def events(self, path: str = "/api/events") -> list[Any]:
        """Every kept event of a paged events path (``/api/events``,
        ``/api/boards/N/events``), following each page's ``Link`` next."""
        from qizhong.server.client import next_page

        out: list[Any] = []
        at: str | None = path
        while at is not None:
            with urllib.request.urlopen(self.url + at, timeout=HTTP_S) as r:
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
        with urllib.request.urlopen(req, timeout=HTTP_S) as r:
            return json.load(r)

    def status_of(self, path: str, body: dict[str, Any], password: str | None = None) -> int:
        try:
            self.post(path, body, password)
        except urllib.error.HTTPError as e:
            return e.code
        return 200

    def socket(self) -> websocket.WebSocket:
        """A page's WebSocket, once the server has said ``hello`` on it (kept as
        ``ws.hello``): from then on every change reaches it."""
        # skip_utf8_validation: websocket-client checks each frame byte by byte in
        # Python (a browser does it natively); recv() still decodes it as UTF-8.
        ws = websocket.create_connection(
            self.url.replace("http", "ws", 1) + "/ws", timeout=WAIT_S, skip_utf8_validation=True
        )
        self._sockets.append(ws)  # closed at stop(): none left for the collector to warn of
        ws.hello = self.wait(ws, lambda m: m["type"] == "hello", what="its hello")
        return ws

    @contextlib.contextmanager
    def listening(self) -> Iterator[websocket.WebSocket]:
        """A WebSocket for a while (closed after)."""
        ws = self.socket()
        try:
            yield ws
        finally:
            ws.close()

    def wait(
        self,
        ws: websocket.WebSocket,
        pred: Callable[[dict[str, Any]], bool],
        timeout: float = WAIT_S,
        what: str = "such a message",
    ) -> dict[str, Any]:
        """The first message from the server's socket that ``pred`` accepts."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            ws.settimeout(left)
            try:
                msg = json.loads(ws.recv())
            except websocket.WebSocketTimeoutException:
                break
            if pred(msg):
                return msg
        raise AssertionError("no message from the server in %.0f s: %s" % (timeout, what))

    def until(
        self,
        fn: Callable[[], Any],
        what: str,
        board: int | None = None,
        timeout: float = WAIT_S,
        ws: websocket.WebSocket | None = None,
    ) -> Any:
        """``fn()`` once it is true: looked at once a socket is open (``ws``, or
        one of its own), then again at each news of board ``board`` (of any
        board with None) the server sends: every change after a look is news."""
        if ws is None:
            with self.listening() as mine:
                return self.until(fn, what, board, timeout, mine)
        deadline = time.monotonic() + timeout
        while not (got := fn()):
            self.wait(
                ws,
                lambda m: m["type"] == "board" and board in (None, m["board"]["no"]),
                deadline - time.monotonic(),
                what,
            )
        return got

    def boards_up(self, ws: websocket.WebSocket) -> None:
        """Wait until every board's clock is connected (this server's boards:
        another server's, heard over MQTT, carry its name and may share numbers)."""

        def mine_up(b: dict[str, Any]) -> bool:
            return b["link"] == "up" and not b.get("server")

        up = {b["no"] for b in ws.hello["boards"] if mine_up(b)}
        while len(up) < self.n:
            msg = self.wait(ws, lambda m: m["type"] == "board", what="every clock up")
            if mine_up(msg["board"]):
                up.add(msg["board"]["no"])


def is_event(name: str, board: int | None = None) -> Callable[[dict[str, Any]], bool]:
    """A predicate for ``Server.wait``: the server's news of a clock's event ``name``
    (on board ``board``, or any)."""

    def pred(m: dict[str, Any]) -> bool:
        ev = m.get("event")
        return bool(ev) and ev["name"] == name and board in (None, ev["board"])

    return pred
