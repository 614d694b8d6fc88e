# SPDX-License-Identifier: GPL-3.0-or-later
"""The test jig's protocol and listeners (docs/jig.md), the same on a Pico and the unix port.

The jig speaks the simulated board's world lines (docs/sim.md) on its own USB
serial, so a scenario runner can drive a real clock through it:

  host -> jig   sync | at T | lever L down T | lever L up T | key NAME [down|up] T | tilt T | quit
  jig -> host   hello jig 1 | idle T D | beep T 0|1 | cue T ID | amp T 0|1 | err TEXT

T is jig time in ms (0 at ``sync``). Each line acts at its T (at once when T
has passed) and is answered by ``idle T D`` (D: the clock's next deadline when
the jig knows it, else -1). A key is held ``KEY_MS``; ``tilt`` opens the tilt
line for ``TILT_MS``. Outputs are stamped when the jig saw them on the wires.
"""

import sys

import cues
import pins

KEY_MS = 100  # the clock confirms a key held 20 ms
TILT_MS = 200  # the clock confirms an open tilt switch after 50 ms
KEYS = ("start", "menu", "plus", "minus", "ok")
TILT = 7  # channel of the tilt line: lit (closed) means upright

BUZZER_GAP_US = 1000  # low this long after a falling edge: the tone stopped (tones > 1 kHz)
GAP = 256  # zero samples (32 ms) that end a cue
HASH_MOD = 4194301  # a prime: the hash stays a small int on the Pico
RATE = 8000  # samples per second of the cues
US_PER_SAMPLE = 1000000 // RATE


class Buzzer:
    """The buzzer line: on at the first rising edge, off at the last falling one.

    ``edge`` may run in a hard IRQ: it only stores ints."""

    def __init__(self, diff):
        self.diff = diff  # ticks_diff on a Pico
        self.on = False
        self.fresh = False
        self.start = 0
        self.rise = 0
        self.fall = 0
        self.falls = 0  # falling edges since the start

    def edge(self, level, t_us):
        if level:
            if not self.on:
                self.on = True
                self.fresh = True
                self.start = t_us
                self.falls = 0
            self.rise = t_us
        elif self.on:
            self.fall = t_us
            self.falls += 1

    def poll(self, now_ms, now_us, out):
        """Append ("beep", T, 0|1) observations to ``out``."""
        if self.fresh:
            self.fresh = False
            out.append(("beep", _ms(self.start, now_ms, now_us, self.diff), 1))
        if (
            self.on
            and self.falls
            and self.diff(self.fall, self.rise) >= 0
            and self.diff(now_us, self.fall) >= BUZZER_GAP_US
        ):
            self.on = False
            out.append(("beep", _ms(self.fall, now_ms, now_us, self.diff), 0))


def _ms(t_us, now_ms, now_us, diff):
    return now_ms + diff(t_us, now_us) // 1000


class Voice:
    """Names a cue from the amplifier's samples.

    A cue is the sound between two silences of ``GAP`` zero samples or more
    (the clock pads each cue with 512 zeros; no cue holds a pause that long).
    Its length and hash (``cue_hash``) are looked up in the table built from
    the clock's own .pcm files (cues.TABLE: (length, hash) -> (cue id, onset)):
    a hit started ``onset`` samples before its first sound."""

    def __init__(self):
        self.reset()

    def reset(self):
        """Playback starts from silence."""
        self.zeros = GAP
        self.n = 0  # samples in the sound so far (0: none)
        self.h = 0
        self.t0 = 0

    def samples(self, t_us, data, out):
        """``data``: signed 16-bit samples, the first at ``t_us``. Appends ("cue", T_us, id)."""
        for i in range(len(data)):
            x = data[i]
            if x == 0:
                self.zeros += 1
                if self.n and self.zeros == GAP:  # the sound has ended
                    hit = cues.TABLE.get((self.n, self.h))
                    if hit is not None:
                        out.append(("cue", self.t0 - hit[1] * US_PER_SAMPLE, hit[0]))
                    self.n = 0
                continue
            if not self.n:
                if self.zeros < GAP:
                    self.zeros = 0
                    continue  # a sound that did not start from silence: not a cue start
                self.t0 = t_us + i * US_PER_SAMPLE
                self.h = 0
            else:
                for _ in range(self.zeros):  # a short pause inside the cue
                    self.h = (self.h * 31 + 32768) % HASH_MOD
                self.n += self.zeros
            self.h = (self.h * 31 + x + 32768) % HASH_MOD
            self.n += 1
            self.zeros = 0


def cue_hash(samples):
    """(length, hash) of one sound, as Voice computes it (for the table)."""
    h = 0
    for x in samples:
        h = (h * 31 + x + 32768) % HASH_MOD
    return len(samples), h


class Jig:
    """One jig: the host's lines in, the board's observations out."""

    def __init__(self, board, write=None):
        self.board = board
        self.write = write or _stdout
        self.pending = []  # (t, channel, on): releases the jig owes
        self.held = [False] * len(pins.CHANNELS)
        self.deadline = -1

    def say(self, line):
        self.write(line + "\n")

    def report(self, observations):
        for kind, t, arg in observations:
            self.say("%s %d %d" % (kind, t, arg))

    async def advance(self, t):
        """Run to jig time t, doing the releases due on the way."""
        while self.pending and self.pending[0][0] <= t:
            when, ch, on = self.pending.pop(0)
            await self._until(when)
            await self._drive(ch, on, when)
        await self._until(t)

    async def _until(self, t):
        if t >= self.board.now():
            self.deadline = await self.board.until(t)

    async def _drive(self, ch, on, t):
        self.held[ch] = on
        self.deadline = await self.board.drive(ch, on, t)

    def _later(self, t, ch, on):
        self.pending.append((t, ch, on))
        self.pending.sort()

    async def line(self, text):
        """Handle one host line; False on ``quit``."""
        words = text.split()
        if not words:
            return True
        try:
            more = await self._line(words)
        except (ValueError, IndexError) as e:
            self.say("err bad line %r: %s" % (text.strip(), e))
            more = True
        if more:
            self.say("idle %d %d" % (self.board.now(), self.deadline))
        return more

    async def _line(self, words):
        op = words[0]
        if op == "quit":
            return False
        if op == "sync":
            self.pending = []
            self.deadline = await self.board.sync()
            return True
        if op == "frame":
            raise ValueError("the jig cannot see the displays")
        t = int(words[-1])
        if op == "at" and len(words) == 2:
            await self.advance(t)
        elif op == "lever" and len(words) == 4 and words[2] in ("down", "up"):
            lever = int(words[1])
            if lever not in (0, 1):
                raise ValueError("lever 0 or 1")
            await self.advance(t)
            await self._drive(lever, words[2] == "down", t)
        elif op == "key" and len(words) == 3 and words[1] in KEYS:
            ch = 2 + KEYS.index(words[1])
            await self.advance(t)
            await self._drive(ch, True, t)
            self._later(t + KEY_MS, ch, False)
        elif op == "key" and len(words) == 4 and words[1] in KEYS and words[2] in ("down", "up"):
            await self.advance(t)  # a key held from down to up (hold-to-repeat)
            await self._drive(2 + KEYS.index(words[1]), words[2] == "down", t)
        elif op == "tilt" and len(words) == 2:
            await self.advance(t)
            await self._drive(TILT, False, t)
            self._later(t + TILT_MS, TILT, True)
        else:
            raise ValueError("unknown line")
        return True


def _stdout(text):
    sys.stdout.write(text)


async def serve(board):
    """Read host lines from stdin until ``quit`` or end of input."""
    import asyncio

    jig = Jig(board)
    board.attach(jig)
    jig.say("hello jig 1")
    reader = asyncio.StreamReader(sys.stdin.buffer)
    while True:
        raw = await reader.readline()
        if not raw:
            break
        try:
            text = raw.decode()
        except UnicodeError:
            jig.say("err not text")
            continue
        if not await jig.line(text):
            break
    board.close()
