# SPDX-License-Identifier: GPL-3.0-or-later
"""The jig's simulated pin layer: the simulated clock (firmware/boards/sim.py) on its wires.

Unix port only. The jig listens on 127.0.0.1 for the simulated clock's world
connection (``QIZHONG_WORLD`` of the clock) and prints ``jig-sim listening
PORT`` on stderr. Then:

- an optocoupler lit or dark becomes the world line the wire would carry:
  ``lever L down|up T``, ``key NAME T`` (on the press), ``tilt T`` (the tilt
  line opens);
- the clock's ``beep T 1`` / ``beep T 0`` become the buzzer line's PWM edges
  (2.7 kHz, as boards/pico.py drives it) into the jig's Buzzer listener;
- the clock's ``cue T ID`` becomes that cue's samples, decoded from the cue
  bank of the clock's language (``voice T LANG``; Mandarin before), as the I2S
  capture would record them, into the jig's Voice matcher, which names the cue
  by itself.

Time is the clock's virtual time: ``until(t)`` sends ``at t`` and returns once
the clock is idle (the clock's deadline is passed on to the host).
"""

import os
import socket  # type: ignore[import-not-found]
import sys
from array import array

import jigcore
import pins

HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
FIRMWARE = os.getenv("QIZHONG_FIRMWARE") or HERE + "/../../firmware"
if FIRMWARE not in sys.path:
    sys.path.append(FIRMWARE)

from qizhong import adpcm, voice  # noqa: E402  (the clock's cue names and format)

BEEP_HZ = 2700  # boards/pico.py BEEP_HZ
PAD = array("h", bytes(1024))  # the chunk of zeros boards/pico.py plays after each cue
KEYS = ("key_start", "key_menu", "key_plus", "key_minus", "key_ok")


def _diff(a, b):
    return a - b


class Board:
    def __init__(self):
        self.voice_dir = os.getenv("QIZHONG_VOICE") or FIRMWARE + "/assets/voice"
        self._now = 0
        self._deadline = -1
        self._jig = None
        self._out = []
        self._tone = -1  # us of the buzzer's first edge while it sounds
        self.buzzer = jigcore.Buzzer(_diff)
        self.voice = jigcore.Voice()
        self.lang = "cmn"  # the clock's language (its voice lines)
        srv = socket.socket()
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        base = int(os.getenv("JIG_PORT") or "0") or 20000 + (os.urandom(2)[0] << 7)
        for port in range(base, base + 64):
            try:
                srv.bind(socket.getaddrinfo("127.0.0.1", port)[0][-1])
                break
            except OSError:
                continue
        else:
            raise OSError("no free port from %d" % base)
        srv.listen(1)
        sys.stderr.write("jig-sim listening %d\n" % port)
        self._sock, _ = srv.accept()
        srv.close()
        hello = self._sock.readline().decode().strip()
        if hello != "hello sim 1":
            raise OSError("not a simulated clock: %r" % hello)
        self._collect()  # its first idle

    def attach(self, jig):
        self._jig = jig

    def close(self):
        try:
            self._sock.send(b"quit\n")
        except OSError:
            pass
        self._sock.close()

    # -- time ----------------------------------------------------------------

    def now(self):
        return self._now

    async def sync(self):
        # Virtual time is the clock's own: jig time 0 is the clock's boot.
        return self._deadline

    async def until(self, t):
        if t > self._now:
            self._send("at %d" % t)
        return self._deadline

    # -- the optocouplers ----------------------------------------------------

    async def drive(self, ch, on, t):
        name = pins.CHANNELS[ch]
        if ch < 2:
            self._send("lever %d %s %d" % (ch, "down" if on else "up", t))
        elif name in KEYS and on:
            self._send("key %s %d" % (name[4:], t))
        elif name == "tilt" and not on:
            self._send("tilt %d" % t)
        return self._deadline

    # -- the clock's lines ---------------------------------------------------

    def _send(self, line):
        self._sock.send((line + "\n").encode())
        self._collect()

    def _collect(self):
        """Read the clock's lines up to its ``idle``; play them onto the wires."""
        while True:
            raw = self._sock.readline()
            if not raw:
                raise OSError("the simulated clock went away")
            words = raw.decode().split()
            if not words:
                continue
            if words[0] == "idle":
                self._now, self._deadline = int(words[1]), int(words[2])
                break
            if words[0] in ("beep", "cue"):
                t = int(words[1])
                self.buzzer.poll(t, t * 1000, self._out)  # the wires as time reaches t
            if words[0] == "beep":
                self._beep(int(words[1]), words[2] == "1")
            elif words[0] == "cue":
                self._cue(int(words[1]), int(words[2]))
            elif words[0] == "voice":
                self.lang = words[2]
            elif words[0] == "err":
                raise OSError("the simulated clock: " + " ".join(words))
            # fb lines: the jig has no eyes
        self._poll()

    def _beep(self, t, on):
        us = t * 1000
        if on:
            if self._tone < 0:
                self._tone = us
                self.buzzer.edge(1, us)
            return
        if self._tone < 0:
            return
        # The PWM square wave from the first edge to the last (falling) one at t.
        half = 500000 // BEEP_HZ
        k = 1
        while self._tone + k * half < us:
            self.buzzer.edge(k % 2 == 0, self._tone + k * half)
            k += 1
        self.buzzer.edge(0, us)
        self._tone = -1

    def _cue(self, t, cue):
        slot = voice.cue_slot(cue)
        try:
            with open(self.voice_dir + "/" + self.lang + "/" + voice.BANK, "rb") as f:
                head = f.read(voice.BANK_HEAD + 8 * voice.SLOTS)
                j = voice.BANK_HEAD + 8 * slot
                n = int.from_bytes(head[j + 4 : j + 8], "little")
                f.seek(int.from_bytes(head[j : j + 4], "little"))
                raw = f.read(n)
        except OSError:
            return  # no bank: the speaker stays silent, as on the clock
        if slot < 0 or not n:
            return  # no sample: silent too
        pcm = bytearray(4 * n)
        adpcm.Decoder().decode_into(raw, n, pcm)
        data = array("h", pcm)
        self.voice.reset()  # playback starts from silence (or the padding after a cue)
        out = []
        self.voice.samples(t * 1000, data, out)
        self.voice.samples((t * 1000) + len(data) * jigcore.US_PER_SAMPLE, PAD, out)
        for kind, t_us, arg in out:
            self._out.append((kind, t_us // 1000, arg))

    def _poll(self):
        out = self._out
        self.buzzer.poll(self._now, self._now * 1000, out)
        if out and self._jig is not None:
            self._jig.report(out)
        self._out = []
