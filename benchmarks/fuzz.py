# SPDX-License-Identifier: GPL-3.0-or-later
"""Fuzzed frames at the firmware's serial link (issue #8).

    .venv/bin/python benchmarks/fuzz.py [FRAMES] [SEED] [virtual|real|both]

A paired simulated clock plays a game while its serial line gets FRAMES
(default 100,000) fuzz units: random bytes, random printable bodies with a
right CRC, and valid frames mutated (bits flipped, bytes replaced, inserted,
deleted, doubled, cut; half of them with the CRC made right again so they
reach the parser): untagged changes, tags made with a wrong key, replays of
frames the clock took, queries. A twin clock plays the same game with no
fuzz. ``proto.Decoder`` on the host reads the same bytes the clock read, so
every frame error and every complete frame has one answer it must get
(docs/security.md: "What the clock does with bad bytes"). Printed: units,
bytes, answers by kind, frames unanswered, changes the clock took (must be
0), and the difference from the twin's times and events (must be 0).

Then the same in real time (#12): the clock on the real-time simulator,
fuzzed while it plays, 120,000 units by default (over 100,000 complete and
broken frames). No twin can keep its time there; instead every press sent
during the fuzz must have been taken (the moves the clock counts), the
firmware must still run (faults: 0), and every frame must have its answer.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import random
import re
import subprocess
import sys
import tempfile
import termios
import threading
import time
from dataclasses import dataclass, field

import serial

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "host"))

from qizhong.clocks import auth  # noqa: E402
from qizhong.clocks.link import decode  # noqa: E402
from qizhong.core import auth as fw  # noqa: E402
from qizhong.core import proto  # noqa: E402
from qizhong.sim import Sim  # noqa: E402

QUERIES = ("hello", "status", "time", "tc", "mem", "mem collect", "since 1000000")
CHANGES = (
    "config 5m", "override 3m+2s", "start", "pause", "resume", "penalty 0 60000",
    "penalty 1 -120000", "knock 0", "set 0 1", "state 1 1000 0 -1 1000 0 -1 running",
    "levers black", "new", "finish red", "volume 0", "mute on", "trim -1000", "unpair",
    "mem hold", "pair",
)  # fmt: skip
_ID = re.compile(r"[0-9]+")
_BURST = re.compile(rb"since\s*[0-9]{1,3}(?![0-9])")


@dataclass
class FuzzCounts:
    units: int = 0
    bytes: int = 0
    frames: int = 0  # complete frames the clock's decoder found (the host's decoder says)
    frame_errors: dict[str, int] = field(default_factory=dict)  # "crc", "truncated", ...
    answers: dict[str, int] = field(default_factory=dict)  # reply kinds
    unanswered: int = 0  # frames or errors with no answer, or a wrong one
    taken: int = 0  # changes the clock ran from fuzz (must be 0)
    events: int = 0  # events compared with the twin
    event_diffs: int = 0
    time_diff_ms: int = 0  # |fuzzed clock - twin| in times, at the end
    state_same: bool = True
    wall_s: float = 0.0
    real: bool = False
    presses: int = 0  # real time: lever presses sent while fuzzing
    moves: int = 0  # ... and the moves the clock counted (presses - 1: the first starts it)
    faults: int = 0  # real time: the firmware died or stopped answering

    def count(self, d: dict[str, int], key: str) -> None:
        d[key] = d.get(key, 0) + 1


class Reader(threading.Thread):
    """Everything the clock writes on the raw port. ``cat`` drains the port
    into a pipe of PIPE_BYTES at once, so the clock never finds the line full
    and never has to drop a frame (boards/usb.py); this thread moves the
    bytes on, and ``wait_for`` decodes them in the caller's thread."""

    PIPE_BYTES = 1 << 20

    def __init__(self, port: serial.Serial) -> None:
        super().__init__(daemon=True)
        fd = os.open(port.port, os.O_RDONLY | os.O_NOCTTY)  # blocking, unlike pyserial's
        attrs = termios.tcgetattr(fd)
        attrs[6][termios.VMIN] = 1  # a read waits for a byte (pyserial polls first anyway)
        attrs[6][termios.VTIME] = 0
        termios.tcsetattr(fd, termios.TCSANOW, attrs)
        self.cat = subprocess.Popen(["cat"], stdin=fd, stdout=subprocess.PIPE)
        os.close(fd)
        assert self.cat.stdout is not None
        self.pipe = self.cat.stdout.fileno()
        try:
            fcntl.fcntl(self.pipe, 1031, self.PIPE_BYTES)  # F_SETPIPE_SZ (Linux)
        except OSError:
            pass
        self.replies: list[str] = []
        self.events: dict[int, str] = {}
        self.bad = 0  # frames from the clock that did not decode (must be 0)
        self.cond = threading.Condition()
        self._raw = bytearray()
        self._dec = proto.Decoder()

    def run(self) -> None:
        while True:
            data = os.read(self.pipe, 1 << 16)
            if not data:
                return
            with self.cond:
                self._raw += data
                self.cond.notify_all()

    def close(self) -> None:
        self.cat.terminate()
        self.cat.wait()
        self.join()

    def _decode(self) -> None:
        with self.cond:
            data = bytes(self._raw)
            self._raw.clear()
        dec = self._dec
        for b in data:
            r = dec.push(b)
            if r == proto.FRAME:
                body = dec.body()
                if body.startswith("e "):
                    self.events[int(body.split(" ", 2)[1])] = body
                else:
                    self.replies.append(body)
            elif r < 0:
                self.bad += 1

    def wait_for(self, n: int, timeout: float = 20.0) -> bool:
        """Until ``n`` replies have come; False after ``timeout`` s without one."""
        while True:
            self._decode()
            if len(self.replies) >= n:
                return True
            with self.cond:
                if not self._raw and not self.cond.wait(timeout):
                    return False


def mutate(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randrange(1, 5)):
        op = rng.randrange(7)
        i = rng.randrange(len(b)) if b else 0
        if op == 0 and b:
            b[i] ^= 1 << rng.randrange(8)
        elif op == 1 and b:
            b[i] = rng.randrange(256)
        elif op == 2:
            b.insert(i, rng.choice((rng.randrange(256), 0x24, 0x2A, 0x20, 0x7E, 0x0A)))
        elif op == 3 and b:
            del b[i]
        elif op == 4 and b:
            j = rng.randrange(i, len(b) + 1)
            b[i:i] = b[i:j]
        elif op == 5:
            b = b[: rng.randrange(len(b) + 1)]
        elif op == 6 and len(b) > 1:
            j = rng.randrange(len(b))
            b[i], b[j] = b[j], b[i]
    return bytes(b)


def reframe(data: bytes) -> bytes:
    """A mutated frame with its CRC made right again, so the parser sees the body."""
    if not data.startswith(b"$") or b"*" not in data:
        return data
    body = data[1 : data.index(b"*")]
    if b"$" in body:
        return data
    return b"$%s*%04X\r\n" % (body, proto.crc16(body, 0, len(body)))


class Fuzzer:
    def __init__(self, rng: random.Random, taken_bodies: set[str]) -> None:
        self.rng = rng
        self.taken_bodies = taken_bodies  # frames the clock took for real: replays
        self.forger = auth.Signer(b"a player's laptop", iter(range(10**6, 10**9)).__next__)

    def body(self) -> str:
        rng = self.rng
        rid = rng.randrange(1, 65536)
        k = rng.random()
        if k < 0.25:
            return "%d %s" % (rid, rng.choice(QUERIES))
        if k < 0.5:
            return "%d %s" % (rid, rng.choice(CHANGES))
        if k < 0.75:
            return self.forger("%d %s" % (rid, rng.choice(CHANGES)))
        if k < 0.9 and self.taken_bodies:
            return rng.choice(sorted(self.taken_bodies))
        return "%d since %d" % (rid, rng.randrange(0, 400))

    def unit(self) -> bytes:
        rng = self.rng
        k = rng.random()
        if k < 0.2:
            return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 120)))
        if k < 0.3:
            n = rng.choice((rng.randrange(1, 60), rng.randrange(190, 230)))
            body = "".join(chr(rng.randrange(32, 127)) for _ in range(n))
            return reframe(b"$%s*0000\r\n" % body.replace("$", "#").replace("*", "+").encode())
        frame = proto.frame(self.body())
        if k < 0.45:
            return frame
        data = mutate(rng, frame)
        return reframe(data) if rng.random() < 0.5 else data

    def batch(self, k: int) -> list[bytes]:
        """``k`` units, in parts to send one after the other, each when the
        last is answered. A ``since`` that replays many events is a burst of
        up to EventLog.SIZE frames (16 KB) that the clock writes at once; a
        pty holds about 20 KB, a USB CDC buffer less, and the clock drops what
        does not fit (boards/usb.py). So such a unit goes on its own."""
        units: list[bytes] = []
        bursts: list[bytes] = []
        for _ in range(k):
            u = self.unit()
            (bursts if _BURST.search(u) else units).append(u)
        return [b"".join(units), *bursts]


_REPLY = re.compile(r"r ([1-9][0-9]{0,4}) ")


def _stale(reply: str, ours: set[int]) -> bool:
    """A reply to a request the fuzz did not send (the sim's own link's)."""
    m = _REPLY.match(reply)
    return m is not None and int(m.group(1)) not in ours


def expected(dec: proto.Decoder, data: bytes) -> list[tuple[int, str]]:
    """What the clock must answer to ``data``, read as its decoder reads it."""
    return decode(data, dec)


def check(n: FuzzCounts, want: tuple[int, str], reply: str, taken: set[str]) -> None:
    r, body = want
    words = reply.split(" ", 3)
    if r < 0:
        n.count(n.frame_errors, proto.ERROR_CODES[r])
        if reply != "r 0 err " + proto.ERROR_CODES[r]:
            n.unanswered += 1
        return
    n.frames += 1
    req = body.split(" ", 2)
    plain = _ID.fullmatch(req[0]) and 0 < int(req[0]) < 65536 and len(req) >= 2
    if len(words) < 3 or words[0] != "r":
        n.unanswered += 1
        return
    if plain and words[1] != str(int(req[0])):
        n.unanswered += 1
        return
    if words[2] == "ok":
        n.count(n.answers, "ok " + (words[3].split(" ", 1)[0] if len(words) > 3 else ""))
        try:  # the firmware's own parse: a query by its rules, or a change
            parsed = proto.Request().parse(body)
            query = fw.is_open(parsed.verb, parsed.args)
        except ValueError:
            query = False  # an ok to a body that is no request is a change taken
        if not query and body not in taken:
            n.taken += 1
    else:
        detail = (words[3] if len(words) > 3 else "").split(" ", 2)
        detail = " ".join(detail[:2]).rstrip(":") if detail[0] == "auth" else detail[0]
        n.count(n.answers, "err " + detail)


def collect(sim: Sim, into: dict[int, str], since: int = -1) -> None:
    """A clock's events as their frame bodies, by number (``since``: ask again from there)."""
    link = sim.link
    if since >= 0:
        link.last_seq = since
        link.sync()
    for e in link.take_events() + link.poll(0):
        into[e.seq] = "e %d %d %s %d %d %d %d" % (e.seq, e.t, e.name, e.side, e.arg, *e.left)


def pair_real(sim: Sim, store: auth.KeyStore) -> None:
    """Pair a real-time simulated clock: ok three times on its world socket."""
    sim.world.sendall(b"key ok 0\n" * fw.Guard.OK_PRESSES)
    board_id = sim.link.request("hello").fields()["id"]
    auth.pair(sim.link, board_id, auth.read_code(sim.frame()[0]), store)


def fuzz(units: int = 100000, seed: int = 1, batch: int = 100, real: bool = False) -> FuzzCounts:
    n = FuzzCounts(real=real)
    start = time.monotonic()
    rng = random.Random(seed)
    with contextlib.ExitStack() as stack:
        tmp = stack.enter_context(tempfile.TemporaryDirectory())
        sim = stack.enter_context(Sim(board_id="fuzzed", virtual=not real, display=False))
        twin = None if real else stack.enter_context(Sim(board_id="twin"))
        clocks = [sim] if twin is None else [sim, twin]
        store = auth.KeyStore(os.path.join(tmp, "keys.json"))
        taken: set[str] = set()
        for s in clocks:
            if real:
                pair_real(s, store)
            else:
                auth.pair_sim(s, store)
            for line in ("config 10m+5s", "levers red", "volume 4"):
                s.command(line)
        # Frames the fuzzed clock took, for replays: sent once more, for real, to both.
        sign = store.signer("fuzzed")
        assert sign is not None
        for i, line in enumerate(("penalty 0 1000", "penalty 1 1000", "volume 5")):
            body = sign("%d %s" % (900 + i, line))
            taken.add(body)
            sim.link.close()
            with serial.Serial(sim.serial_path, timeout=5) as raw:
                raw.write(proto.frame(body))
                got = b""
                while b"r %d ok" % (900 + i) not in got:
                    got += raw.read(1)
            sim.link.open()
            if twin is not None:
                twin.command(line)
        mine: dict[int, str] = {}
        theirs: dict[int, str] = {}
        collect(sim, mine, since=0)
        if twin is not None:
            collect(twin, theirs, since=0)
        sim.link.close()
        raw = serial.Serial(sim.serial_path, timeout=0.05)
        reader = Reader(raw)
        reader.start()
        dec = proto.Decoder()
        wants: list[tuple[int, str]] = []
        fz = Fuzzer(rng, taken)
        t = sim.now + 1000
        lever = 1  # Black's lever starts Red's clock
        try:
            done = 0

            def send(data: bytes) -> bool:
                nonlocal wants
                n.bytes += len(data)
                wants += expected(dec, data)
                raw.write(data)
                return reader.wait_for(len(wants))

            while done < units:
                k = min(batch, units - done)
                parts = fz.batch(k)
                done += k
                n.units += k
                if done >= units:
                    parts.append(b"\r\n")  # the last frame, if cut short, ends here
                if not all(send(data) for data in parts):
                    break  # no answer for 20 s: counted below
                if twin is None:  # real time: a press now, stamped at the instant it was sent
                    sent = time.monotonic_ns() // 10**6 & 0x3FFFFFFF  # docs/sim.md
                    sim.world.sendall(
                        b"lever %d down %d\nlever %d up %d\n" % (lever, sent, lever, sent)
                    )
                    n.presses += 1
                    sim.pump()  # the board's beeps and cues, so its socket never fills
                else:
                    for s in (sim, twin):  # the game goes on, the same on both
                        s.press(lever, t)
                    collect(twin, theirs)
                lever = 1 - lever
                t += rng.randrange(1000, 6000)
        finally:
            reader.close()
            raw.close()
        reader._decode()
        # The sim's own link asks ``hello`` when it opens and ``since`` to fill
        # a gap (above): an answer that comes after it closed is the raw
        # port's first reply, and put every reply after it out of place (one
        # full run in three). Not one of ours: no request the fuzz sent has
        # its id (a frame the clock cannot read is answered ``r 0``).
        ours = {
            int(b.split(" ", 1)[0])
            for r, b in wants
            if r >= 0 and _ID.fullmatch(b.split(" ", 1)[0])
        }
        replies = [x for x in reader.replies if not _stale(x, ours)]
        n.unanswered += reader.bad
        for i, want in enumerate(wants):
            if i < len(replies):
                check(n, want, replies[i], taken)
            else:
                n.unanswered += 1
        n.unanswered += max(0, len(replies) - len(wants))
        sim.link.open()
        if twin is None:
            try:
                a = sim.status()
            except Exception:
                n.faults += 1
                a = {"moves0": 0, "moves1": 0}
            if sim.proc.poll() is not None:
                n.faults += 1
            n.moves = int(a["moves0"]) + int(a["moves1"])
            n.state_same = n.moves == n.presses - 1
            mine.update(reader.events)
            n.events = len(mine)
            n.wall_s = time.monotonic() - start
            return n
        for s in (sim, twin):
            s.run_to(t)
        a, b = sim.status(), twin.status()
        n.time_diff_ms = max(abs(int(a[k]) - int(b[k])) for k in ("left0", "left1"))
        n.state_same = all(a[k] == b[k] for k in ("state", "run", "moves0", "moves1", "seq"))
        collect(twin, theirs, since=0)
        collect(sim, mine, since=0)
        mine.update(reader.events)
        n.events = len(theirs)
        n.event_diffs = sum(1 for seq, body in theirs.items() if mine.get(seq) != body)
        n.event_diffs += len(set(mine) - set(theirs))
    n.wall_s = time.monotonic() - start
    return n


def report(n: FuzzCounts) -> None:
    print("units              %d (%d bytes) in %.1f s" % (n.units, n.bytes, n.wall_s))
    print(
        "frames             %d: %d complete, %d broken"
        % (n.frames + sum(n.frame_errors.values()), n.frames, sum(n.frame_errors.values()))
    )
    print("frame errors       " + ", ".join("%s %d" % kv for kv in sorted(n.frame_errors.items())))
    print("answers            " + ", ".join("%s %d" % kv for kv in sorted(n.answers.items())))
    print("unanswered/wrong   %d" % n.unanswered)
    print("changes taken      %d" % n.taken)
    if n.real:
        print("faults             %d" % n.faults)
        print("presses / moves    %d sent while fuzzing, %d moves counted (+1 start)"
              % (n.presses, n.moves))  # fmt: skip
        print("events seen        %d" % n.events)
        return
    print("events vs twin     %d compared, %d differ" % (n.events, n.event_diffs))
    print("time vs twin       %d ms; state the same: %s" % (n.time_diff_ms, n.state_same))


def main() -> int:
    units = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    mode = sys.argv[3] if len(sys.argv) > 3 else "both"
    if mode in ("virtual", "both"):
        k = units or 100000
        print("fuzz: %d units at a paired simulated clock, virtual time, seed %d" % (k, seed))
        report(fuzz(k, seed))
    if mode in ("real", "both"):
        k = units or 120000
        print("fuzz: %d units at a paired simulated clock, real time, seed %d" % (k, seed))
        report(fuzz(k, seed, real=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
