# SPDX-License-Identifier: GPL-3.0-or-later
"""``qizhong sim --headless``: a simulated clock that runs until it is stopped.

``serve()`` starts the firmware in real time with no terminal, configures
``spec``, prints the serial device (pyserial opens it as it would a USB
port), and then stays in one loop that

- reads everything the board sends on its world socket (buzzer, voice,
  volume; display frames only when asked), so the firmware never waits on
  a full socket, for hours;
- listens on a control port on 127.0.0.1 for the physical world: a press of
  a lever, a knock (tilt), the arbiter's keys, a picture of the displays.

Where it listens goes in a state file (``--state``; default
``$XDG_RUNTIME_DIR/qizhong-sim.json``, else ``~/.cache/qizhong/sim.json``)
and on its second line of output, so a second terminal or a script can say
``qizhong sim press left`` (the state file) or
``qizhong sim press left --world 127.0.0.1:PORT`` (several at once).
SIGTERM, SIGHUP and Ctrl-C stop it and its micropython child.

The control protocol is one text line per connection, one reply line:
``press L HOLD_MS [up]`` | ``tilt`` | ``key NAME`` | ``frame`` | ``info`` |
``stop``; the reply is ``ok ...`` or ``err ...`` (with ``up``, ``ok up``
once the lever is up again: a script's next press of it then counts). The
hall server's ``--sim N`` runs ``python -m qizhong.sim.headless SPEC STATE
BOARD_ID``: each clock its own id, as each Pico has its flash id.
"""

from __future__ import annotations

import heapq
import json
import os
import selectors
import signal
import socket
import sys
import time
from collections.abc import Callable

from qizhong import timecontrol as tcs
from qizhong.clocks.driver import Clock
from qizhong.clocks.link import PortBusy
from qizhong.records import files
from qizhong.sim.simulator import Sim, SimError

KEYS = ("start", "menu", "plus", "minus", "ok")  # the arbiter's keys (docs/sim.md)
LEVERS = {"left": 0, "right": 1, "0": 0, "1": 1}
HOLD_MS = 80  # a press: the lever comes up again this much later


class HeadlessError(RuntimeError):
    """No headless simulator answers there, or it refused the request."""


def default_state() -> str:
    """Where ``serve`` writes, and the control commands read, the address."""
    run = os.environ.get("XDG_RUNTIME_DIR")
    if run and os.path.isdir(run):
        return os.path.join(run, "qizhong-sim.json")
    return os.path.join(os.path.expanduser("~"), ".cache", "qizhong", "sim.json")


def listen_address(text: str) -> tuple[str, int]:
    """``--listen HOST:PORT`` (HOST defaults to 127.0.0.1, PORT 0 to a free
    one); ValueError for anything else, before anything starts."""
    host, _, port = text.rpartition(":")
    if not (port or "0").isdigit() or int(port or 0) > 65535:
        raise ValueError("--listen is HOST:PORT, a port 0..65535, e.g. 127.0.0.1:0; not %r" % text)
    return host or "127.0.0.1", int(port or 0)


class Headless:
    """One real-time simulated clock with a control port. ``loop()`` runs it."""

    def __init__(
        self,
        spec: str = "xq-rapid",
        listen: str = "127.0.0.1:0",
        board_id: str = "sim",
        board: str | None = None,
    ) -> None:
        """``board_id``: the id the clock gives in ``hello`` (many sims in one
        hall need one each, as Picos have their flash ids); ``board``: ``oled``
        or ``battery`` (docs/power.md)."""
        tc = tcs.parse(spec)  # a bad spec fails here, before anything starts
        host, port = listen_address(listen)
        self.sim = Sim(
            virtual=False, open_link=False, display=False, board_id=board_id, board=board
        )
        try:
            self._open_link()
            Clock(self.sim.link).configure(tcs.spec_of(tc))
            self.sim.link.close()  # the pty is the user's now
            self.ctl = socket.socket()
            self.ctl.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.ctl.bind((host, port))
            self.ctl.listen(8)
        except BaseException:
            self.sim.close()
            raise
        self.address = "%s:%d" % self.ctl.getsockname()[:2]
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.sim.world, selectors.EVENT_READ, "world")
        self.sel.register(self.ctl, selectors.EVENT_READ, "ctl")
        # (monotonic s, world line, who waits for it): levers coming up
        self._due: list[tuple[float, str, int]] = []
        self._waiting: dict[int, socket.socket] = {}  # `press ... up`: answered once it is up
        self._frame_for: list[socket.socket] = []  # who waits for the next picture
        self._asking: dict[socket.socket, bytes] = {}  # control connections mid-line
        self.stopping = False
        self.lines_in = 0  # world lines read from the board

    def info(self) -> dict[str, object]:
        return {
            "serial": self.sim.serial_path,
            "world": self.address,
            "pid": os.getpid(),
            "firmware": self.sim.proc.pid,
        }

    # -- the loop ---------------------------------------------------------------

    def _open_link(self, bound_s: float = 10.0) -> None:
        """Open the new pty for the control set up: a program that had a
        lost clock on a pty of this number may be trying it (a hall server
        lets go once it sees another clock's id), so a busy port is tried
        again, within ``bound_s``."""
        deadline = time.monotonic() + bound_s
        while True:
            try:
                self.sim.link.open()
                return
            except PortBusy:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.05)  # the other program's hello, answered by our firmware

    def loop(self, until: Callable[[], bool] = lambda: False) -> None:
        """Run until ``stop`` (or ``until()``): the board's lines read as they
        come, control requests answered, levers released on time."""
        while not self.stopping and not until():
            timeout = 1.0
            if self._due:
                timeout = max(0.0, min(timeout, self._due[0][0] - time.monotonic()))
            for key, _ in self.sel.select(timeout):
                if key.data == "world":
                    self._read_world()
                elif key.data == "ctl":
                    self._accept()
                elif key.data == "ask":
                    self._read_request(key.fileobj)  # type: ignore[arg-type]
            now = time.monotonic()
            while self._due and self._due[0][0] <= now:
                _, line, waiter = heapq.heappop(self._due)
                self._world(line)
                if waiter in self._waiting:
                    self._reply(self._waiting.pop(waiter), "ok up\n")
            if self.sim.proc.poll() is not None:
                raise SimError("the firmware stopped (exit %s)" % self.sim.proc.returncode)

    def _read_world(self) -> None:
        try:
            chunk = self.sim.world.recv(65536)
        except BlockingIOError:
            return
        if not chunk:
            raise SimError("the firmware went away")
        buf = self.sim._buf + chunk
        *lines, self.sim._buf = buf.split(b"\n")
        for raw in lines:
            self.lines_in += 1
            words = raw.decode(errors="replace").split()
            if len(words) >= 3 and words[0] == "fb":
                self.sim.frames[int(words[1])] = bytes.fromhex(words[2])
                if words[1] == "1" and self._frame_for:  # both displays are in
                    reply = "ok %s %s\n" % (self.sim.frames[0].hex(), self.sim.frames[1].hex())
                    for conn in self._frame_for:
                        self._reply(conn, reply)
                    self._frame_for = []
            # beeps, cues and volume are what a speaker would play: nobody
            # listens to a headless clock, so they go (nothing piles up).

    def _world(self, line: str) -> None:
        self.sim.world.sendall((line + "\n").encode())

    def _accept(self) -> None:
        # The request line is read as it comes, in this loop: a client that
        # connects and says nothing (nc, a port scan) never holds up the
        # board's lines or a lever that is due to come up.
        conn, _ = self.ctl.accept()
        conn.setblocking(False)
        self._asking[conn] = b""
        self.sel.register(conn, selectors.EVENT_READ, "ask")

    def _read_request(self, conn: socket.socket) -> None:
        try:
            part = conn.recv(256)
        except BlockingIOError:
            return
        except OSError:
            part = b""
        line = self._asking[conn] + part
        if part and not line.endswith(b"\n") and len(line) < 256:
            self._asking[conn] = line  # more to come
            return
        self.sel.unregister(conn)
        del self._asking[conn]
        try:
            reply = self._control(line.decode(errors="replace").split(), conn)
        except (OSError, ValueError) as e:
            reply = "err %s" % e
        if reply is not None:
            self._reply(conn, reply + "\n")

    @staticmethod
    def _reply(conn: socket.socket, text: str) -> None:
        try:
            conn.settimeout(2.0)
            conn.sendall(text.encode())
        except OSError:
            pass
        conn.close()

    def _control(self, words: list[str], conn: socket.socket) -> str | None:
        op = words[0] if words else ""
        if op == "press" and len(words) in (2, 3, 4) and words[3:] in ([], ["up"]):
            # ``press L HOLD up``: the reply comes once the lever is up again
            lever = LEVERS.get(words[1])
            hold = int(words[2]) if len(words) >= 3 else HOLD_MS
            if lever is None or not 0 < hold <= 60000:
                return "err press left|right [HOLD_MS 1..60000] [up]"
            self._world("lever %d down 0" % lever)
            waiter = 0
            if words[3:]:
                waiter = id(conn)
                self._waiting[waiter] = conn
            up = "lever %d up 0" % lever
            heapq.heappush(self._due, (time.monotonic() + hold / 1000, up, waiter))
            return None if waiter else "ok press %s" % words[1]
        if op == "tilt" and len(words) == 1:
            self._world("tilt 0")
            return "ok tilt"
        if op == "key" and len(words) == 2 and words[1] in KEYS:
            self._world("key %s 0" % words[1])
            return "ok key %s" % words[1]
        if op == "frame" and len(words) == 1:
            self._frame_for.append(conn)
            self._world("frame")
            return None  # answered when both displays are in
        if op == "info" and len(words) == 1:
            return "ok " + json.dumps(self.info())
        if op == "stop" and len(words) == 1:
            self.stopping = True
            return "ok stop"
        return "err unknown request %r (press, tilt, key, frame, info, stop)" % " ".join(words)

    def close(self) -> None:
        for conn in [*self._frame_for, *self._waiting.values(), *self._asking]:
            conn.close()
        self.sel.close()
        self.ctl.close()
        self.sim.close()


def _write_state(path: str, info: dict[str, object]) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    files.replace(path, (json.dumps(info) + "\n").encode())


def serve(
    spec: str,
    state: str | None = None,
    listen: str = "127.0.0.1:0",
    board_id: str = "sim",
    board: str | None = None,
) -> int:
    """``qizhong sim --headless``: prints the serial device, then the control
    address, and runs until stopped (SIGTERM, SIGHUP, Ctrl-C, ``qizhong sim
    stop``). Returns the exit code."""
    state = state or default_state()

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # unwinds to the finally below

    old = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGHUP)}
    h = None
    try:
        h = Headless(spec, listen, board_id, board)
        _write_state(state, h.info())
        print(h.sim.serial_path, flush=True)
        print("world %s (state in %s)" % (h.address, state), flush=True)
        h.loop()
        return 0
    except KeyboardInterrupt:
        return 0
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
        if h is not None:
            h.close()
            try:
                with open(state) as f:
                    mine = json.load(f).get("pid") == os.getpid()
            except (OSError, ValueError):
                mine = False
            if mine:
                os.unlink(state)


def address(world: str | None, state: str | None) -> tuple[str, int]:
    """The control address: ``world`` (HOST:PORT), else the state file's."""
    if not world:
        path = state or default_state()
        try:
            with open(path) as f:
                world = str(json.load(f)["world"])
        except (OSError, ValueError, KeyError):
            raise HeadlessError(
                "no headless simulator's state in %s: start `qizhong sim --headless`, "
                "or give --world HOST:PORT" % path
            ) from None
    host, _, port = world.rpartition(":")
    if not port.isdigit():
        raise ValueError("--world is HOST:PORT, e.g. 127.0.0.1:40123")
    return host or "127.0.0.1", int(port)


def request(addr: tuple[str, int], line: str, timeout: float = 5.0) -> str:
    """One control request to a running headless simulator; its ``ok`` reply."""
    try:
        with socket.create_connection(addr, timeout=timeout) as s:
            s.sendall((line + "\n").encode())
            reply = b""
            while not reply.endswith(b"\n"):
                part = s.recv(65536)
                if not part:
                    break
                reply += part
    except OSError as e:
        raise HeadlessError("no headless simulator at %s:%d (%s)" % (*addr, e)) from None
    text = reply.decode(errors="replace").strip()
    if not text.startswith("ok"):
        raise HeadlessError(text or "no reply")
    return text


def main_control(op: str, args: list[str], world: str | None, state: str | None) -> int:
    """``qizhong sim press|tilt|key|png|port|stop``: tell a running headless sim."""
    addr = address(world, state)
    if op == "png":
        from qizhong.sim import png

        path = args[0]  # bad input before the simulator is asked (exit 2, no traceback)
        folder = os.path.dirname(os.path.abspath(path)) if path else ""
        if not path or os.path.isdir(path) or not os.path.isdir(folder):
            raise ValueError("cannot write a PNG to %r: not a file in an existing folder" % path)
        words = request(addr, "frame").split()
        picture = png.side_by_side(bytes.fromhex(words[1]), bytes.fromhex(words[2]), scale=4)
        try:
            files.replace(path, picture)
        except files.RecordFileError as e:
            raise ValueError(str(e)) from None
        print("both displays in %s" % args[0])
        return 0
    if op == "port":
        print(json.loads(request(addr, "info")[3:])["serial"])
        return 0
    print(request(addr, " ".join([op, *args]))[3:])
    return 0


if __name__ == "__main__":  # pragma: no cover
    # python -m qizhong.sim.headless [SPEC [STATE [BOARD_ID]]] (the hall server's --sim)
    a = sys.argv[1:] + [""] * 3
    sys.exit(serve(a[0] or "xq-rapid", a[1] or None, board_id=a[2] or "sim"))
