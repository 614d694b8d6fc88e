# SPDX-License-Identifier: GPL-3.0-or-later
"""The simulated board: the firmware on MicroPython's unix port.

Serial is stdin/stdout (the host puts a pty there, so pyserial sees the same
bytes as over USB). The physical world is a TCP connection to the host's
simulator on 127.0.0.1 (QIZHONG_WORLD=port), one text line per message:

  host -> board   at T | lever L down T | lever L up T | key NAME T | tilt T
                  frame | quit | cut N
  board -> host   hello sim 1 | idle T D | beep T 0|1 | cue T ID | fb I HEX T [TEXT...]
                  | volume T V | voice T LANG

``fb`` carries a display's pixels, then each text the firmware drew on it
since its last fill, as ``X,Y,HEX`` (the UTF-8 text in hex): the terminal
clock prints the status line, the setup menu and the pairing code as text.

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
import select
import socket  # type: ignore[import-not-found]  # unix port only, not on a Pico
import time

import framebuf

from boards.usb import Serial
from qizhong import app as A
from qizhong.lever import DOWN, UP, Lever
from qizhong.monotonic import Monotonic

INPUTS = 16  # input ring: edges stamped before the loop takes them
T_MAX = (1 << 62) - 1  # a world line's T
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
        self.fb = tuple(Frame(b) for b in self.fb_buf)
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
        self._serial = Serial()
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
        op = words[0]
        n = len(words)
        if op == "quit" or op == "frame":
            _arity(n, 1, op)
            if op == "quit":
                self.stopped = True
            else:
                self._want_frame = True
            return
        if op == "cut":  # a power cut inside a flash write, N bytes ahead (#8)
            _arity(n, 2, "cut N")
            nbytes = _int(words[1], 0, 1 << 30, "cut N")
            if self.flash is None:
                self._tell("err cut: no flash (QIZHONG_FLASH)")
            else:
                self.flash.cut_after(nbytes, self._power_off)
            return
        lever = key = 0
        if op == "lever":
            _arity(n, 4, "lever L down|up T")
            lever = _int(words[1], 0, 1, "lever L")
            if words[2] not in ("down", "up"):
                raise ValueError("lever L down|up T")
        elif op == "key":
            _arity(n, 3, "key NAME T")
            if words[1] not in A.KEY_NAMES[1:]:
                raise ValueError("no key %s" % words[1][:16])
            key = A.KEY_NAMES.index(words[1])
        elif op == "at" or op == "tilt":
            _arity(n, 2, op + " T")
        else:
            raise ValueError("unknown")
        # T: virtual time, 0 .. 2**62 - 1 ms (a small int on the 64-bit unix port);
        # real time: 0 (when read) or the sender's CLOCK_MONOTONIC ms mod 2**30 at the edge.
        t = _int(words[-1], 0, T_MAX, "T")
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
            edge = self.levers[lever].edge(words[2] == "down", t)
            if edge == DOWN:
                self._push(A.IN_LEVER_DOWN, lever, t)
            elif edge == UP:
                self._push(A.IN_LEVER_UP, lever, t)
        elif op == "key":
            self._push(A.IN_KEY, key, t)
        elif op == "tilt":
            self._push(A.IN_TILT, 0, t)

    def _stamp(self, sent):
        """Real time: the board's ms for an edge the harness sent at its
        CLOCK_MONOTONIC ms ``sent`` (mod 2**30; 0: now), as the Pico's IRQ stamps an
        edge when it happens, not when the loop reads it (#12). The unix
        port's ticks_ms is CLOCK_MONOTONIC ms too. Never after now, never
        before the last stamp nor before the instant the clock was last
        brought up to (as on the Pico, where the loop takes an edge in the
        pass after the one it happened in)."""
        now = self._mono.now()
        if sent:
            age = (time.ticks_ms() - sent) & _TICKS_MASK
            if age < STAMP_MAX_AGE_MS:
                now -= age
        floor = self._last_stamp
        if self._app is not None and self._app.clock.now > floor:
            floor = self._app.clock.now
        if now < floor:
            now = floor
        self._last_stamp = now
        return now

    def rebase(self, d):
        """The time origin moved ``d`` ms later (App.rebase). The host keeps
        its own time: what goes to it is reported in host time (``_base``)."""
        self._mono.rebase(d)
        self._last_stamp -= d
        self._now -= d
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
        self._tell(
            " ".join(
                ["fb %d %s %d" % (i, self.fb_buf[i].hex(), self.now() + self._base)]
                + self.fb[i].texts
            )
        )

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

    def set_voice(self, lang):
        self._tell("voice %d %s" % (self.now() + self._base, lang))

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


def _arity(n, want, usage):
    if n != want:
        raise ValueError(usage)


def _int(word, lo, hi, what):
    """A world line's number: ASCII digits (and ``-``) in lo..hi, else ValueError."""
    d = word[1:] if word[:1] == "-" else word
    if not d or len(d) > 19 or not d.isdigit() or not lo <= int(word) <= hi:
        raise ValueError("%s is %d..%d" % (what, lo, hi))
    return int(word)
