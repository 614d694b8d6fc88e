# SPDX-License-Identifier: GPL-3.0-or-later
"""The simulated board: the firmware on MicroPython's unix port (docs/sim.md).

Serial is stdin/stdout (a pty: pyserial sees the bytes of USB). The world is
a TCP line protocol with the host's simulator on 127.0.0.1 (QIZHONG_WORLD):

  host -> board   at T | lever L down|up T | key NAME [down|up] T | tilt T | frame
                  | quit | cut N | sync | power
  board -> host   hello sim 1 | idle T D N | wake T D N | sync N | beep T 0|1
                  | cue T ID | fb I HEX T [X,Y,HEX...] | volume T V | voice T LANG
                  | power WAKES SLEPT_MS FRAMES BUS_BYTES FLASH | slept T MS

Virtual time (QIZHONG_TIME=virtual): ``at T`` moves the clock; ``idle T D
N`` (D: next deadline; N: requests taken) answers each line. Host bytes wake
the loop as USB bytes wake the Pico's (#20): ``wake T D N``; ``sync`` gets
``sync N`` without a wake. QIZHONG_FLASH: the journal's littlefs image (#8),
``cut N`` tears a write N bytes ahead. QIZHONG_BOARD=battery: the battery
board (#22, boards/simglass.py); ``power``: its energy record.
"""

import asyncio
import os
import select
import socket  # type: ignore[import-not-found]  # unix port only, not on a Pico
import time

import framebuf

from boards import simworld
from boards.usb import Serial
from qizhong import app as A
from qizhong.lever import DOWN, UP, Lever
from qizhong.monotonic import Monotonic

INPUTS = 16  # input ring: edges stamped before the loop takes them
BOARDS = ("oled", "battery")  # QIZHONG_BOARD: the OLED board (default) or the battery board (#22)
BATTERY_MS = 60000  # the battery board reads its cells this often (boards/pico.py)
MEAS_SETTLE_MS = 300  # its divider switched on, then read this much later: two wakes a minute
OLED_FRAME = 2 + 1024  # bytes on the bus for one OLED frame (address, 0x40, pixels)
STAMP_MAX_AGE_MS = 10000  # real time: an edge older than this is stamped when read
_TICKS_MASK = 0x3FFFFFFF  # real time: T is the sender's CLOCK_MONOTONIC ms modulo 2**30


class Frame(framebuf.FrameBuffer):
    """A display's framebuffer that keeps the texts drawn on it since its last fill."""

    def __init__(self, buf):
        super().__init__(buf, 128, 64, framebuf.MONO_VLSB)
        self.texts = []

    def fill(self, c):
        self.texts = []
        super().fill(c)

    def text(self, s, x, y, c=1):
        self.texts.append("%d,%d,%s" % (x, y, s.encode().hex()))
        super().text(s, x, y, c)


class Board:
    NAME = "sim"
    # set by simworld.power_init (#22: the board, the energy record)
    variant: str
    wakes: int
    slept_ms: int
    frames_sent: int
    bus_bytes: int
    tenths: bool
    _battery_at: int
    _measuring: bool
    _log_sleeps: bool

    def __init__(self):
        self.virtual = (os.getenv("QIZHONG_TIME") or "virtual") == "virtual"
        simworld.power_init(self, BOARDS, MEAS_SETTLE_MS)
        self.board_id = os.getenv("QIZHONG_ID") or "sim"
        # The simulated crystal runs this many ppm fast (+) or slow (-).
        self.skew_ppm = int(os.getenv("QIZHONG_SKEW_PPM") or "0")
        self._ticks = 0  # the crystal's count in virtual time
        self.left_side = 0
        self.low_battery = False
        # Displays draw themselves in real time (QIZHONG_DISPLAY=0: not), and in
        # virtual time with QIZHONG_DISPLAY=live (each frame then goes out, stamped).
        disp = os.getenv("QIZHONG_DISPLAY")
        self.live_display = disp == "live" or (not self.virtual and disp != "0")
        self.stopped = False
        self.fb_buf = (bytearray(1024), bytearray(1024))
        self._sent = (bytearray(1024), bytearray(1024))
        self._sent_ok = [False, False]
        self.fb: tuple = tuple(Frame(b) for b in self.fb_buf)
        self._glass = self.fb  # the pictures sent to the host
        self._simglass = None
        if self.variant == "battery":  # #22: two segment glasses (boards/simglass.py)
            from boards import simglass

            self._simglass = simglass
            simglass.setup(self)
        self.levers = (Lever(), Lever())
        self._kind = [0] * INPUTS
        self._arg = [0] * INPUTS
        self._t = [0] * INPUTS
        self._head = 0
        self._n = 0
        self.in_arg = 0
        self.in_t = 0
        self._t0 = time.ticks_ms()
        if self.virtual:
            self._mono = Monotonic(self._crystal, _diff)
        else:
            self._mono = Monotonic(self._skewed_ticks, time.ticks_diff)
        self._now = 0
        self._true = 0  # virtual time: the host's last "at"
        self._last_stamp = 0  # real time: the last input's stamp
        self._base = 0  # board ms + _base = the host's ms (App.rebase moves the origin)
        self._given = 0  # the last ``now`` given out
        self._want_frame = False
        self._app = None
        self._wake = asyncio.Event()  # a world line or host bytes: the loop runs a pass
        self._reader = None  # the task reading world lines
        self._owed = 1  # virtual time: idle lines owed to the host (one after hello)
        self._serial = Serial()
        self._connect()

    def _connect(self):
        port = int(os.getenv("QIZHONG_WORLD") or "0")
        self._sock = socket.socket()
        self._sock.connect(socket.getaddrinfo("127.0.0.1", port)[0][-1])
        self._sock.setsockopt(6, 1, 1)  # IPPROTO_TCP, TCP_NODELAY: a frame then "idle" go at once
        self._world = asyncio.StreamReader(self._sock)
        # Real time: a host that stops reading must not stop the clock. A line
        # that finds the socket full is dropped (and counted), never waited on.
        self._out = select.poll()
        self._out.register(self._sock, select.POLLOUT)
        self.dropped = 0
        self._tell("hello sim 1")
        self.state_dir = None  # #8: the journal's folder, on the flash image
        self.flash = None
        image = os.getenv("QIZHONG_FLASH")
        if image:
            from boards import flashfile

            self.flash = flashfile.Flash(image)
            try:
                flashfile.mount(self.flash, "/flash")
            except ValueError as e:  # never formatted over: say why (on stderr), and stop
                import sys

                sys.stderr.write("QIZHONG_FLASH: %s\n" % e)
                raise
            self.state_dir = "/flash/state"

    # -- time --------------------------------------------------------------------

    def now(self):
        t = self._now if self.virtual else self._mono.now()
        # A lever edge the bounce window hides may yet be a press at its own
        # instant: time waits there until it settles (#26), never going back.
        for lv in self.levers:
            if lv.settle_at() >= 0 and lv.raw_t < t:
                t = lv.raw_t if lv.raw_t > self._given else self._given
        self._given = t
        return t

    def _crystal(self):
        return self._ticks

    def _skewed_ticks(self):
        # Real time: ticks_ms, as a crystal skew_ppm off would count them.
        d = time.ticks_diff(time.ticks_ms(), self._t0)
        return time.ticks_add(self._t0, d + d * self.skew_ppm // 1000000)

    def _at(self, t):
        # Virtual time: the host's true time t, as this board's crystal and trim see it.
        self._ticks = t + t * self.skew_ppm // 1000000
        return self._mono.now()

    def _settle(self, t):
        # Report what a lever's bounce window hid, stamped at its edge.
        for i in (0, 1):
            lv = self.levers[i]
            edge = lv.settle(t)
            if edge == DOWN:
                self._push(A.IN_LEVER_DOWN, i, lv.t)
            elif edge == UP:
                self._push(A.IN_LEVER_UP, i, lv.t)

    async def wait(self, deadline):
        if self._reader is None:
            self._reader = asyncio.create_task(self._read_world())
        for lv in self.levers:  # a lever to settle is a deadline too
            d = lv.settle_at()
            if d >= 0 and (deadline < 0 or d < deadline):
                deadline = d
        if self.variant == "battery":  # its own wakes: the cells' divider on, then the reading
            now = self.now()
            while self._battery_at <= now:
                self._measuring = not self._measuring
                on = MEAS_SETTLE_MS if self._measuring else BATTERY_MS - MEAS_SETTLE_MS
                self._battery_at += on
            if deadline < 0 or self._battery_at < deadline:
                deadline = self._battery_at
        d = deadline + self._base if deadline >= 0 else -1  # in the host's time
        app = self._app
        drew = self._want_frame and app is not None
        if drew and app is not None:
            self._want_frame = False
            app.draw(self.now())
        asleep = self.now()
        if self.virtual:
            self._tell(
                "%s %d %d %d" % ("idle" if self._owed else "wake", self._true, d, self._requests())
            )
            self._owed = 0
            await self._wake.wait()
        else:
            if drew:
                self._tell("idle %d %d" % (self.now() + self._base, d))
            timeout = deadline - self.now() if deadline >= 0 else 1000
            if not self._wake.is_set():
                try:
                    await asyncio.wait_for_ms(self._wake.wait(), max(timeout, 0))
                except asyncio.TimeoutError:
                    pass
            self._settle(self._mono.now())
        self._wake.clear()
        self.wakes += 1
        slept = self.now() - asleep
        self.slept_ms += slept
        if self._log_sleeps:  # every wake, with the sleep before it
            self._tell("slept %d %d" % (self.now() + self._base, slept))

    async def _read_world(self):
        # Each world line is taken as it comes and wakes the loop (#20).
        while not self.stopped:
            line = await self._world.readline()
            if line.strip() == b"sync":
                self._tell("sync %d" % self._requests())
                continue
            if line.strip() == b"power":  # the energy record (#22), without waking the loop
                self._tell(simworld.power_line(self))
                continue
            self._world_line(line)
            self._owed += 1
            self._wake.set()

    def _requests(self):
        return self._app.requests if self._app is not None else 0

    def _world_line(self, line):
        try:
            words = line.decode().split()
        except UnicodeError:
            words = ["?"]
        if not words:  # the host went away
            self.stopped = True
            return
        try:
            self._world_do(words)
        except ValueError as e:  # #12: a bad line is refused, and the board goes on
            self._tell("err world %s: %s" % (e, " ".join(words)[:60]))

    def _world_do(self, words):
        op, arg, t = simworld.parse(words, A.KEY_NAMES)
        if op == "quit" or op == "frame":
            self.stopped = self.stopped or op == "quit"
            self._want_frame = self._want_frame or op == "frame"
            return
        if op == "cut":
            if self.flash is None:
                self._tell("err cut: no flash (QIZHONG_FLASH)")
            else:
                self.flash.cut_after(arg, self._power_off)
            return
        if self.virtual:
            if t < self._true:
                self._tell("err time runs forward: %d < %d" % (t, self._true))
                return
            self._true = t
            t = self._now = self._at(t)
        else:
            t = self._stamp(t)
        self._settle(t)
        if op == "lever":
            edge = self.levers[arg >> 1].edge(arg & 1 == 1, t)
            if edge:
                self._push(A.IN_LEVER_DOWN if edge == DOWN else A.IN_LEVER_UP, arg >> 1, t)
        elif op == "key":  # arg & 7 the key; a tap (< 8) goes down and up at once
            if arg < 16:
                self._push(A.IN_KEY, arg & 7, t)
            if arg < 8 or arg >= 16:
                self._push(A.IN_KEY_UP, arg & 7, t)
        elif op == "tilt":
            self._push(A.IN_TILT, 0, t)

    def _stamp(self, sent):
        return simworld.stamp(self, sent, STAMP_MAX_AGE_MS, _TICKS_MASK)

    def rebase(self, d):
        # The time origin moved d ms later (App.rebase). The host keeps its
        # own time: what goes to it is reported in host time (_base).
        self._mono.rebase(d)
        self._last_stamp -= d
        self._now -= d
        self._battery_at -= d
        self._base += d
        self._given -= d
        for lv in self.levers:
            lv.rebase(d)
        for k in range(INPUTS):
            self._t[k] -= d

    # -- inputs ------------------------------------------------------------------

    def _push(self, kind, arg, t):
        if self._n == INPUTS:
            return  # a flood: the oldest inputs stay, as a real FIFO would
        # In stamp order: an edge the bounce window hid comes after later ones.
        i = (self._head + self._n) % INPUTS
        k = self._n
        while k:
            j = (i - 1) % INPUTS
            if self._t[j] <= t:
                break
            self._kind[i] = self._kind[j]
            self._arg[i] = self._arg[j]
            self._t[i] = self._t[j]
            i = j
            k -= 1
        self._kind[i] = kind
        self._arg[i] = arg
        self._t[i] = t
        self._n += 1

    def pop_input(self):
        if not self._n:
            return 0
        i = self._head
        for lv in self.levers:  # a hidden edge before it is settled first (#26)
            if lv.settle_at() >= 0 and lv.raw_t < self._t[i]:
                return 0
        self._head = (i + 1) % INPUTS
        self._n -= 1
        self.in_arg = self._arg[i]
        self.in_t = self._t[i]
        return self._kind[i]

    # -- outputs -----------------------------------------------------------------

    def _tell(self, line):
        if not self.virtual and not self._out.poll(0):  # full: nobody reads the world
            self.dropped += 1
            return
        self._sock.send((line + "\n").encode())

    def beep(self, on, t):
        self._tell("beep %d %d" % (t + self._base, 1 if on else 0))

    def say(self, cue, t):
        self._tell("cue %d %d" % (t + self._base, cue))

    def show(self, i):
        glass = self._simglass is not None
        src = self.ram[i] if glass else self.fb_buf[i]  # type: ignore[attr-defined]
        if not self._sent_ok[i] or self._sent[i][: len(src)] != src:  # what the Pico sends
            self._sent[i][: len(src)] = src
            self._sent_ok[i] = True
            self.frames_sent += 1
            self.bus_bytes += self._simglass.FRAME if glass else OLED_FRAME  # type: ignore
        texts = self._simglass.texts(self, i) if glass else self.fb[i].texts  # type: ignore[union-attr]
        fb = "fb %d %s %d" % (i, self.fb_buf[i].hex(), self.now() + self._base)
        self._tell(" ".join([fb] + texts))

    # -- serial ------------------------------------------------------------------

    def start_serial(self, app):
        self._app = app
        self._serial.start(app, self._serial_done)

    def _serial_done(self):
        # Host bytes wake the loop, as USB bytes wake the Pico's (#20): it
        # steps, draws what changed and waits for the deadline the request left.
        self._wake.set()

    def write_n(self, buf, n):
        return self._serial.write_n(buf, n)

    def write(self, data):
        return self._serial.write(data)

    def boot_id(self):
        return "%08x" % (time.time_ns() & 0x7FFFFFFF)

    def set_volume(self, v):
        self._tell("volume %d %d" % (self.now() + self._base, v))

    def set_voice(self, lang):
        self._tell("voice %d %s" % (self.now() + self._base, lang))

    def set_trim(self, ppm):
        self._mono.skew_ppm = ppm

    # -- power (#8) --------------------------------------------------------------

    def feed(self):
        pass  # no watchdog here: the host's Sim.power_cut is the simulated reset

    def keep_alive(self):
        pass  # after Ctrl-C (pico.py keeps its watchdog fed); nothing to do here

    def flash_stats(self):
        return self.flash.stats() if self.flash is not None else "none"

    def _power_off(self):
        # The flash just took its last byte: die now, as a chip losing power
        # would, with nothing more written (the process cannot run on).
        import sys

        sys.stderr.write("power cut: flash write torn\n")
        os.system("kill -9 $PPID")
        raise SystemExit(137)  # only if the kill failed


def _diff(a, b):
    return a - b
