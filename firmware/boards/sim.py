# SPDX-License-Identifier: GPL-3.0-or-later
"""The simulated board: the firmware on MicroPython's unix port.

Serial is stdin/stdout (the host puts a pty there, so pyserial sees the same
bytes as over USB). The physical world is a TCP connection to the host's
simulator on 127.0.0.1 (QIZHONG_WORLD=port), one text line per message:

  host -> board   at T | lever L down T | lever L up T | key NAME T | tilt T
                  frame | quit | cut N
  board -> host   hello sim 1 | idle T D | beep T 0|1 | cue T ID | fb I HEX T
                  | volume T V

In virtual time (QIZHONG_TIME=virtual, the default) the host owns the clock:
``at T`` moves it to T, and the board answers ``idle T D`` (D: the next
deadline, -1 for none) once everything due by T has happened. In real time
the board reads ticks_ms and the host's lines arrive when they arrive.

Flash (#8, docs/journal.md): QIZHONG_FLASH=path is a littlefs image
(boards/flashfile.py, created blank and formatted if missing) mounted at
/flash; the journal keeps the clock's state in /flash/state. ``cut N`` puts
a power cut N bytes of flash writes ahead: the write there is torn and the
process kills itself. Without QIZHONG_FLASH there is no journal.
"""

import asyncio
import os
import socket  # type: ignore[import-not-found]  # unix port only, not on a Pico
import time

import framebuf

from boards.usb import Serial
from qizhong import app as A
from qizhong.lever import DOWN, UP, Lever
from qizhong.monotonic import Monotonic

INPUTS = 16  # input ring: edges stamped before the loop takes them


class Board:
    NAME = "sim"

    def __init__(self):
        self.virtual = (os.getenv("QIZHONG_TIME") or "virtual") == "virtual"
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
        self.fb = tuple(framebuf.FrameBuffer(b, 128, 64, framebuf.MONO_VLSB) for b in self.fb_buf)
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
        self._base = 0  # board ms + _base = the host's ms (App.rebase moves the origin)
        self._want_frame = False
        self._app = None
        self._serial = Serial()
        port = int(os.getenv("QIZHONG_WORLD") or "0")
        self._sock = socket.socket()
        self._sock.connect(socket.getaddrinfo("127.0.0.1", port)[0][-1])
        self._sock.setsockopt(6, 1, 1)  # IPPROTO_TCP, TCP_NODELAY: a frame then "idle" go at once
        self._world = asyncio.StreamReader(self._sock)
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
        return self._now if self.virtual else self._mono.now()

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
        for lv in self.levers:  # a lever to settle is a deadline too
            d = lv.settle_at()
            if d >= 0 and (deadline < 0 or d < deadline):
                deadline = d
        d = deadline + self._base if deadline >= 0 else -1  # in the host's time
        if self._want_frame and self._app is not None:
            self._want_frame = False
            self._app.draw(self.now())
            self._tell("idle %d %d" % (self._true if self.virtual else self.now() + self._base, d))
        elif self.virtual:
            self._tell("idle %d %d" % (self._true, d))
        if self.virtual:
            line = await self._world.readline()
        else:
            timeout = deadline - self.now() if deadline >= 0 else 1000
            try:
                line = await asyncio.wait_for_ms(self._world.readline(), max(timeout, 0))
            except asyncio.TimeoutError:
                self._settle(self._mono.now())
                return
        self._world_line(line)

    def _world_line(self, line):
        words = line.decode().split()
        if not words:  # the host went away
            self.stopped = True
            return
        op = words[0]
        if op == "quit":
            self.stopped = True
            return
        if op == "frame":
            self._want_frame = True
            return
        if op == "cut":  # a power cut inside a flash write, N bytes ahead (#8)
            if self.flash is None:
                self._tell("err cut: no flash (QIZHONG_FLASH)")
            else:
                self.flash.cut_after(int(words[1]), self._power_off)
            return
        if self.virtual:
            t = int(words[-1])
            if t < self._true:
                self._tell("err time runs forward: %d < %d" % (t, self._true))
                return
            self._true = t
            t = self._now = self._at(t)
        else:
            t = self._mono.now()
        self._settle(t)
        if op == "lever":
            lever = int(words[1])
            edge = self.levers[lever].edge(words[2] == "down", t)
            if edge == DOWN:
                self._push(A.IN_LEVER_DOWN, lever, t)
            elif edge == UP:
                self._push(A.IN_LEVER_UP, lever, t)
        elif op == "key":
            if words[1] in A.KEY_NAMES:
                self._push(A.IN_KEY, A.KEY_NAMES.index(words[1]), t)
        elif op == "tilt":
            self._push(A.IN_TILT, 0, t)

    def rebase(self, d):
        """The time origin moved ``d`` ms later (App.rebase). The host keeps
        its own time: what goes to it is reported in host time (``_base``)."""
        self._mono.rebase(d)
        self._now -= d
        self._base += d
        for lv in self.levers:
            lv.rebase(d)
        for k in range(INPUTS):
            self._t[k] -= d

    # -- inputs ------------------------------------------------------------------

    def _push(self, kind, arg, t):
        if self._n == INPUTS:
            return  # a flood: the oldest inputs stay, as a real FIFO would
        i = (self._head + self._n) % INPUTS
        self._kind[i] = kind
        self._arg[i] = arg
        self._t[i] = t
        self._n += 1

    def pop_input(self):
        if not self._n:
            return 0
        i = self._head
        self._head = (i + 1) % INPUTS
        self._n -= 1
        self.in_arg = self._arg[i]
        self.in_t = self._t[i]
        return self._kind[i]

    # -- outputs -----------------------------------------------------------------

    def _tell(self, line):
        self._sock.send((line + "\n").encode())

    def beep(self, on, t):
        self._tell("beep %d %d" % (t + self._base, 1 if on else 0))

    def say(self, cue, t):
        self._tell("cue %d %d" % (t + self._base, cue))

    def show(self, i):
        self._tell("fb %d %s %d" % (i, self.fb_buf[i].hex(), self.now() + self._base))

    # -- serial ------------------------------------------------------------------

    def start_serial(self, app):
        self._app = app
        self._serial.start(app, self._serial_done)

    def _serial_done(self):
        # A command changed the clock: draw it now, as the Pico's loop, woken
        # by the command, would (the loop here may be waiting on the world).
        app = self._app
        if app is not None and self.live_display and app.drawn < 0:
            app.draw(self.now())

    def write_n(self, buf, n):
        return self._serial.write_n(buf, n)

    def write(self, data):
        return self._serial.write(data)

    def boot_id(self):
        return "%08x" % (time.time_ns() & 0x7FFFFFFF)

    def set_volume(self, v):
        self._tell("volume %d %d" % (self.now() + self._base, v))

    def set_trim(self, ppm):
        self._mono.skew_ppm = ppm

    # -- power (#8) --------------------------------------------------------------

    def feed(self):
        """No watchdog here: the host's Sim.power_cut is the simulated reset."""

    def keep_alive(self):
        """After Ctrl-C (pico.py keeps its watchdog fed); nothing to do here."""

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
