# SPDX-License-Identifier: GPL-3.0-or-later
"""The simulated board: the real firmware on MicroPython's unix port.

``Sim`` starts ``micropython firmware/main.py`` with the sim board. Its serial
link is a real pty (``serial_path``; pyserial opens it as it would a USB
port) and its physical world is a TCP connection on 127.0.0.1 carrying lever
edges, keys and tilt in, and buzzer, voice and display frames out
(docs/sim.md). In virtual time the harness owns the clock: ``at(t)`` runs the
firmware up to ``t`` and returns its next deadline, so a two-hour game is
checked exactly in well under a second.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import tty
from types import TracebackType

from qizhong.clocks.link import CommandError, Link, LinkError
from qizhong.core import tcspec

HERE = os.path.dirname(os.path.abspath(__file__))
BOARDS = ("oled", "battery")  # firmware/boards/sim.py's QIZHONG_BOARD


def repo_root() -> str:
    """The repository holding firmware/ (the sim runs the firmware's sources)."""
    return os.path.dirname(os.path.dirname(os.path.realpath(os.path.join(HERE, "..", "core"))))


def micropython_path() -> str:
    exe = os.path.join(os.path.dirname(sys.executable), "micropython")
    if os.path.exists(exe):
        return exe
    return "micropython"


def _text(word: str) -> tuple[int, int, str]:
    """One ``X,Y,HEX`` text of an ``fb`` line (firmware/boards/sim.py)."""
    x, y, hexed = word.split(",")
    return int(x), int(y), bytes.fromhex(hexed).decode(errors="replace")


class SimError(RuntimeError):
    """The simulated firmware said something unexpected, or went away."""


class PowerCut(SimError):
    """The power cut armed with ``Sim.cut_after`` happened (``power_on`` next)."""


class Sim:
    """One simulated clock. Use as a context manager."""

    TIMEOUT_S = 10.0  # a bound on waiting for the firmware's serial replies, never a sleep
    # The firmware's start and its world lines: a bound that only a hung firmware
    # reaches. A start compiles the firmware (0.1-0.3 s alone); on a 2-core
    # machine at load 12 it has a small share of a core.
    WORLD_TIMEOUT_S = 60.0

    def __init__(
        self,
        virtual: bool = True,
        firmware: str | None = None,
        options: tuple[str, ...] = (),
        skew_ppm: int = 0,
        board_id: str = "sim",
        open_link: bool = True,
        display: bool = True,
        flash: str | None = None,
        live_display: bool = False,
        board: str | None = None,
        log_sleeps: bool = False,
    ) -> None:
        """``firmware``: a folder with main.py (default: the repository's);
        ``options``: interpreter options such as ``("-X", "heapsize=64k")``;
        ``skew_ppm``: the simulated crystal runs this fast (+) or slow (-);
        ``open_link``: False leaves the pty to another program (``link.open()``
        takes it back); ``display``: False stops a real-time board drawing
        its displays by itself (for many clocks at once); ``flash``: a
        littlefs image file (created if missing) for the power-loss journal
        (#8, docs/journal.md): then ``power_cut`` and ``cut_after`` work;
        ``live_display``: the displays draw themselves in virtual time too;
        then, and in real time, every frame is kept in ``frame_log`` as
        (t, display, bytes); ``board``: ``oled`` (today's board) or
        ``battery`` (#22: segment displays, a loop that sleeps; docs/power.md);
        by default ``QIZHONG_SIM_BOARD``, else ``oled`` (so a whole test run
        can take the other board); ``log_sleeps``: keep every wake of the
        firmware's loop in ``sleeps`` as (t, ms slept before it)."""
        board = board or os.environ.get("QIZHONG_SIM_BOARD") or "oled"
        if board not in BOARDS:
            raise ValueError("board is %s, not %r" % (" or ".join(BOARDS), board))
        self.board = board
        self.virtual = virtual
        self.firmware = firmware or os.path.join(repo_root(), "firmware")
        self.beeps: list[tuple[int, int]] = []
        self.cues: list[tuple[int, int]] = []
        self.voices: list[tuple[int, str]] = []  # (t, language) as the firmware set it
        self.volumes: list[tuple[int, int]] = []
        self.events: list[tuple[str, int, int, int]] = []  # (name, side, t, arg)
        self.frames: dict[int, bytes] = {}
        # The texts the firmware drew on each display since its last fill, as (x, y, text).
        self.texts: dict[int, list[tuple[int, int, str]]] = {}
        self.live_display = live_display
        self.frame_log: list[tuple[int, int, bytes]] = []
        self.sleeps: list[tuple[int, int]] = []  # (t woken, ms slept), with log_sleeps
        self.now = 0
        self.deadline = -1
        self.requests = 0  # frames the firmware had taken at its last idle or wake line
        self._releases: list[tuple[int, int]] = []
        self._key_ups: list[tuple[int, str]] = []  # held keys: when each comes up
        self.step = False  # True: run_to moves deadline by deadline
        self._buf = b""
        self._sbuf = b""
        srv = socket.socket()
        srv.bind(("127.0.0.1", 0))
        srv.listen(1)
        srv.settimeout(self.WORLD_TIMEOUT_S)
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line editing: the bytes as over USB
        self.serial_path = os.ttyname(slave)
        env = dict(os.environ)
        env["QIZHONG_WORLD"] = str(srv.getsockname()[1])
        env["QIZHONG_TIME"] = "virtual" if virtual else "real"
        env["QIZHONG_SKEW_PPM"] = str(skew_ppm)
        env["QIZHONG_ID"] = board_id
        env["QIZHONG_DISPLAY"] = "live" if live_display else "1" if display else "0"
        env["QIZHONG_BOARD"] = board
        env["QIZHONG_SLEEPS"] = "1" if log_sleeps else "0"
        if flash:
            env["QIZHONG_FLASH"] = flash
        self.flash = flash
        self._argv = [micropython_path(), *options, os.path.join(self.firmware, "main.py")]
        self._env = env
        self._armed = False  # a cut_after is pending
        self.proc = subprocess.Popen(
            self._argv,
            stdin=master,
            stdout=master,
            stderr=subprocess.PIPE,
            env=env,
        )
        self._master = master if flash else -1  # a power cut restarts on the same pty
        if not flash:
            os.close(master)
        try:
            self.world = self._accept(srv)
        except OSError:
            self.close()
            raise SimError("the firmware did not connect: " + self._stderr())
        finally:
            srv.close()
        self.world.settimeout(self.WORLD_TIMEOUT_S)
        try:
            self.link = Link(self.serial_path, timeout=self.TIMEOUT_S, open_now=open_link)
        except BaseException:
            self.close()  # PortBusy and the like: no firmware left running for nobody
            raise
        finally:
            os.close(slave)
        try:
            hello = self._line()
            if hello != "hello sim 1":
                raise SimError("unexpected greeting %r" % hello)
            if virtual:
                self._until_idle()
        except BaseException:
            self.close()
            raise

    # -- lifetime --------------------------------------------------------------

    def __enter__(self) -> Sim:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _accept(self, srv: socket.socket) -> socket.socket:
        """The firmware's world connection; OSError at once if the firmware
        exits before it connects (a MemoryError at boot), else after
        WORLD_TIMEOUT_S."""
        end = time.monotonic() + self.WORLD_TIMEOUT_S
        srv.settimeout(0.1)  # a bound on each accept, to notice the process's exit
        while True:
            try:
                conn, _ = srv.accept()
                return conn
            except TimeoutError:
                if self.proc.poll() is not None or time.monotonic() > end:
                    raise OSError("the firmware exited or did not connect") from None

    def close(self) -> None:
        if getattr(self, "world", None) is not None:
            try:
                self.world.sendall(b"quit\n")
            except OSError:
                pass
            self.world.close()
            self.world = None  # type: ignore[assignment]
        if getattr(self, "link", None) is not None:
            self.link.close()
        try:
            self.proc.wait(timeout=self.TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if getattr(self, "_master", -1) >= 0:
            os.close(self._master)
            self._master = -1

    def _stderr(self) -> str:
        if self.proc.poll() is None:
            self.proc.kill()
        assert self.proc.stderr is not None
        return self.proc.stderr.read().decode(errors="replace")

    # -- power (#8: the journal, docs/journal.md) --------------------------------

    def power_cut(self, restart: bool = True) -> None:
        """Cut the power now: SIGKILL, so nothing more reaches the flash image;
        then, with ``restart``, ``power_on``. The serial link stays open (the
        same pty), as a host would reopen the port."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        if self.proc.stderr is not None:
            self.proc.stderr.close()
        if self.world is not None:
            self.world.close()
            self.world = None  # type: ignore[assignment]
        self._buf = b""
        self._releases = []
        self._key_ups = []
        self._armed = False
        if restart:
            self.power_on()

    def power_on(self) -> None:
        """Start the firmware again on the same flash image, after ``power_cut``
        or a ``PowerCut``. Its time restarts at 0; ``at`` moves it on."""
        if self._master < 0:
            raise SimError("power_on needs Sim(flash=...)")
        if self.proc.poll() is None:
            raise SimError("the firmware is still running: power_cut first")
        if self.world is not None:
            self.world.close()
        if self.proc.stderr is not None:
            self.proc.stderr.close()
        srv = socket.socket()
        srv.bind(("127.0.0.1", 0))
        srv.listen(1)
        srv.settimeout(self.WORLD_TIMEOUT_S)
        self._env["QIZHONG_WORLD"] = str(srv.getsockname()[1])
        self.proc = subprocess.Popen(
            self._argv,
            stdin=self._master,
            stdout=self._master,
            stderr=subprocess.PIPE,
            env=self._env,
        )
        try:
            self.world = self._accept(srv)
        except OSError:
            raise SimError("the firmware did not connect: " + self._stderr())
        finally:
            srv.close()
        self.world.settimeout(self.WORLD_TIMEOUT_S)
        self._buf = b""
        self._releases = []
        self._key_ups = []
        self._armed = False
        hello = self._line()
        if hello != "hello sim 1":
            raise SimError("unexpected greeting %r" % hello)
        if self.virtual:
            self._until_idle()

    def cut_after(self, nbytes: int) -> None:
        """Arm a power cut inside a flash write: the firmware dies once
        ``nbytes`` more bytes have gone to its flash (an erase counts as a
        whole block), tearing the write it is in. The world action that
        makes it write raises ``PowerCut``. (Send no serial command while a
        cut is armed: a dead clock answers none.)"""
        self._send("cut %d" % nbytes)
        self._armed = True

    # -- the world -------------------------------------------------------------

    def _line(self) -> str:
        while b"\n" not in self._buf:
            try:
                chunk = self.world.recv(65536)
            except OSError as e:
                raise SimError("the firmware stopped answering (%s)" % e)
            if not chunk:
                if self._armed and self.proc.wait(self.TIMEOUT_S) == -9:  # SIGKILL
                    self._armed = False
                    raise PowerCut("the power was cut inside a flash write")
                raise SimError("the firmware went away:\n" + self._stderr())
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return line.decode()

    def _send(self, line: str) -> int:
        """Send one world line; collect outputs until the board is idle."""
        self.world.sendall((line + "\n").encode())
        return self._until_idle()

    def _until_idle(self) -> int:
        while not self._handle(self._line().split()):
            pass
        return self.deadline

    def _handle(self, words: list[str]) -> bool:
        """Record one board line; True for ``idle``."""
        if words[0] == "idle" or words[0] == "wake":  # wake: host bytes woke the loop (#20)
            self.now, self.deadline = int(words[1]), int(words[2])
            if len(words) > 3:
                self.requests = int(words[3])
            return words[0] == "idle"
        if words[0] == "beep":
            self.beeps.append((int(words[1]), int(words[2])))
        elif words[0] == "cue":
            self.cues.append((int(words[1]), int(words[2])))
        elif words[0] == "fb":
            i = int(words[1])
            self.frames[i] = bytes.fromhex(words[2])
            self.texts[i] = [_text(w) for w in words[4:]]
            if len(words) > 3 and (self.live_display or not self.virtual):
                self.frame_log.append((int(words[3]), i, self.frames[i]))
        elif words[0] == "volume":
            self.volumes.append((int(words[1]), int(words[2])))
        elif words[0] == "slept":
            self.sleeps.append((int(words[1]), int(words[2])))
        elif words[0] == "voice":
            self.voices.append((int(words[1]), words[2]))
        else:
            raise SimError("unexpected from the board: %r" % " ".join(words))
        return False

    def pump(self) -> None:
        """Real time: record whatever the board has sent, without waiting."""
        self.world.setblocking(False)
        try:
            while True:
                chunk = self.world.recv(65536)
                if not chunk:
                    raise SimError("the firmware went away")
                self._buf += chunk
        except BlockingIOError:
            pass
        finally:
            self.world.settimeout(self.WORLD_TIMEOUT_S)
        while b"\n" in self._buf:
            line, self._buf = self._buf.split(b"\n", 1)
            if line.strip():
                self._handle(line.decode().split())

    def power(self) -> dict[str, int]:
        """The board's energy record so far (#22, docs/power.md): ``wakes``
        of the loop, ``slept_ms``, ``frames`` that changed and their
        ``bus_bytes``, flash ``progs``, ``prog_bytes`` and ``erases``. Asking
        does not wake the firmware."""
        self.world.sendall(b"power\n")
        while True:
            words = self._line().split()
            if words[0] == "power":
                break
            self._handle(words)
        flash = [int(x) for x in words[5].split(",")] if "," in words[5] else [0, 0, 0, 0]
        keys = ("wakes", "slept_ms", "frames", "bus_bytes")
        out = dict(zip(keys, (int(w) for w in words[1:5]), strict=True))
        out.update(progs=flash[0], prog_bytes=flash[1], erases=flash[2])
        return out

    def at(self, t: int) -> int:
        """Run the firmware to virtual time ``t``; returns its next deadline."""
        return self._send("at %d" % t)

    def run_to(self, t: int) -> None:
        """Run the firmware to ``t``; levers due to come up on the way come up
        at their instants. With ``step`` set, time moves deadline by deadline,
        as the firmware's own sleep does; otherwise in one jump (the clock
        fires everything due in order, each at its own instant, either way)."""
        while True:
            lev = self._releases[0][0] if self._releases else t + 1
            key = self._key_ups[0][0] if self._key_ups else t + 1
            if min(lev, key) > t:
                break
            if lev <= key:
                when, lever = self._releases.pop(0)
                self._step_to(when)
                self.lever(lever, False, when)
            else:
                when, name = self._key_ups.pop(0)
                self._step_to(when)
                self._send("key %s up %d" % (name, when))
        self._step_to(t)

    def _step_to(self, t: int) -> None:
        while self.step and 0 <= self.deadline < t:
            self.at(self.deadline)
        if t > self.now:
            self.at(t)

    def lever(self, lever: int, down: bool, t: int) -> int:
        return self._send("lever %d %s %d" % (lever, "down" if down else "up", t))

    def press(self, lever: int, t: int, hold: int = 80) -> None:
        """A press at ``t``; the lever comes up ``hold`` ms later, as time moves on."""
        self.run_to(t)
        self.lever(lever, True, t)
        self._releases.append((t + hold, lever))
        self._releases.sort()

    def key(self, name: str, t: int, hold: int = 0) -> int:
        """An arbiter's key at ``t``: a tap, or held ``hold`` ms (it comes up
        then, as time moves on: a held plus or minus repeats in a menu)."""
        self.run_to(t)
        if hold <= 0:
            return self._send("key %s %d" % (name, t))
        self._key_ups.append((t + hold, name))
        self._key_ups.sort()
        return self._send("key %s down %d" % (name, t))

    def tilt(self, t: int) -> int:
        self.run_to(t)
        return self._send("tilt %d" % t)

    def frame(self) -> tuple[bytes, bytes]:
        """Both displays as they are now (MONO_VLSB, 1024 bytes each)."""
        self._send("frame")
        return self.frames[0], self.frames[1]

    def png(self, path: str, scale: int = 4) -> None:
        """Both displays as they are now, side by side as on the clock, to a PNG."""
        from qizhong.records import files
        from qizhong.sim import png

        left, right = self.frame()
        files.replace(path, png.side_by_side(left, right, scale=scale))

    # -- the serial link -------------------------------------------------------

    def command(self, line: str) -> str:
        """One request over the pty (docs/protocol.md); collects the events
        that came with it. Returns ``ok ...`` or ``err CODE ...``."""
        verb, _, args = line.strip().partition(" ")
        if verb in ("config", "override"):  # as the driver does: the canonical spec
            try:
                args = tcspec.format(tcspec.parse(args))
            except tcspec.SpecError:
                pass  # the clock's own error comes back
        try:
            text = "ok " + self.link.request(verb, args).text
        except CommandError as e:
            text = "err %s %s" % (e.code, e.message)
        except LinkError as e:
            raise SimError("%s\n%s" % (e, self._stderr()))
        self._collect()
        if self.virtual and self.world is not None:
            self._woken()
        return text

    def _woken(self) -> None:
        """Virtual time: wait for the loop's ``wake`` after the requests the
        firmware has taken so far. The loop is not woken by this: the
        firmware wakes itself on host bytes, as the Pico does (#20), and
        ``deadline`` is then the one the request left."""
        self.world.sendall(b"sync\n")
        while True:
            words = self._line().split()
            if words[0] == "sync":
                want = int(words[1])
                break
            self._handle(words)
        while self.requests < want:
            self._handle(self._line().split())

    def _collect(self) -> list[tuple[str, int, int, int]]:
        new = [(e.name, e.side, e.t, e.arg) for e in self.link.take_events()]
        self.events += new
        return new

    def collect_all(self) -> list[tuple[str, int, int, int]]:
        """Every event the clock has sent so far, fetched until none is
        missing (``Link.sync``: a gap a status reply showed is filled before
        this returns); returns the new ones."""
        try:
            self.link.sync()
        except LinkError as e:
            raise SimError("%s\n%s" % (e, self._stderr()))
        return self._collect()

    def read_events(self) -> list[tuple[str, int, int, int]]:
        """Real time: the events waiting on the serial link."""
        self.link.pump(0)
        return self._collect()

    def status(self) -> dict[str, int | str]:
        """The clock's state now (also collects every event sent before it)."""
        f = dict(w.split("=", 1) for w in self.command("status").split() if "=" in w)
        out: dict[str, int | str] = {"t": int(f["t"]), "state": f["state"], "run": int(f["run"])}
        for key in ("left", "moves", "periods"):
            a, b = f[key].split(",")
            out[key + "0"], out[key + "1"] = int(a), int(b)
        out["first_flag"] = int(f["flag"])
        out["seq"] = int(f["seq"])
        return out
