# SPDX-License-Identifier: GPL-3.0-or-later
"""A fleet of clocks in one process: N ptys speaking the clock's protocol.

For measuring the hall server alone, as a hall of physical clocks loads it
(#32): the simulated MicroPython clocks (one process each) saturate this
machine long before the server does. Each ``Clock`` here answers the
requests a host sends (``hello``, ``status``, ``since``, ``time``, ``tc``, the
changes, each repeated ID answered from its cache), keeps its last 256
events, and sends each event as it happens, dropped from the wire when the
pty cannot take it at once, as the firmware does (docs/protocol.md). It is
unpaired (``auth=0``): a fresh clock takes untagged requests. No time
control is run: a press switches the sides and takes the time used from the
mover, and that is all a host sees of a game.

An event's ``T`` is the host's monotonic ms less ``base_ms`` (the command's
``--base-ms``), so a reader of the hall's pages can tell each press's age
(benchmarks/hall_scale.py: press -> page). Not a benchmark itself (run_all.py
skips names that start with ``_``).

    python benchmarks/_fleet.py 1000 --base-ms 123456
        prints {"ports": [...]} on one line, then reads commands, one a line:
        go MIN_S MAX_S (start every clock, then a press each MIN..MAX s),
        stop (no more presses), cpu (prints this process's CPU seconds), quit.
"""

from __future__ import annotations

import argparse
import collections
import errno
import heapq
import json
import os
import random
import selectors
import sys
import time
import tty

from qizhong.core import proto

START_MS = 600_000  # each side's time at the start (10 min)
KEPT = 256  # events kept for ``since`` (the firmware's log)
SINCE_MAX = 64


def mono_ms() -> int:
    return time.monotonic_ns() // 1_000_000


class Clock:
    """One clock on a pty: the protocol's side of it (see the module's text)."""

    def __init__(self, no: int, base_ms: int, spec: str = "xq-rapid") -> None:
        self.master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line editing: the bytes as over USB
        os.set_blocking(self.master, False)
        self.slave = slave  # kept open: the master never sees a hang-up between hosts
        self.path = os.ttyname(slave)
        self.base_ms = base_ms
        self.id = "fleet-%04d" % no
        self.boot = "%08x" % random.getrandbits(32)
        self.spec = spec
        self.dec = proto.Decoder()
        self.log: collections.deque[tuple[int, bytes]] = collections.deque(maxlen=KEPT)
        self.seq = 0
        self.state = "idle"
        self.run = -1
        self.left = [START_MS, START_MS]
        self.moves = [0, 0]
        self.since_ms = 0  # the clock's ms when the running side's time was last taken
        self.last: tuple[bytes, bytes] = (b"", b"")  # the last request's body and its reply
        self.out = b""  # a reply waiting for room on the pty (never an event)
        self.sent = 0
        self.dropped = 0
        self.event("boot", -1, 0)

    def now(self) -> int:
        return mono_ms() - self.base_ms

    def event(self, name: str, side: int, arg: int) -> None:
        self.seq += 1
        body = "e %d %d %s %d %d %d %d" % (
            self.seq, self.now(), name, side, arg, self.left[0], self.left[1]
        )  # fmt: skip
        data = proto.frame(body)
        self.log.append((self.seq, data))
        if self.out:  # a reply is waiting: the event is dropped from the wire, kept in the log
            self.dropped += 1
            return
        try:
            n = os.write(self.master, data)
            if n < len(data):
                self.dropped += 1  # a partial frame: the host drops it and asks ``since``
        except BlockingIOError:
            self.dropped += 1
        self.sent += 1

    def _take(self) -> None:
        """The running side's time used since it was last taken."""
        if self.state == "running" and self.run in (0, 1):
            now = self.now()
            self.left[self.run] = max(0, self.left[self.run] - (now - self.since_ms))
            self.since_ms = now

    def start(self) -> None:
        if self.state != "running":
            self.state, self.run, self.since_ms = "running", 0, self.now()
            self.event("start", 0, 0)

    def press(self) -> None:
        if self.state != "running":
            return
        self._take()
        side = self.run
        self.moves[side] += 1
        self.run = 1 - side
        self.event("press", side, self.left[side])

    def status(self) -> str:
        self._take()
        return (
            "ok status t=%d state=%s run=%d left=%d,%d moves=%d,%d periods=-1,-1 flag=-1"
            " result=-1 levers=red locked=0 seq=%d volume=5 mute=0 auth=0 freeze=1"
            % (self.now(), self.state, self.run, *self.left, *self.moves, self.seq)
        )

    def answer(self, verb: str, args: list[str]) -> str:
        if verb == "hello":
            ids = (self.id, self.boot, self.seq)
            return "ok hello proto=1 fw=fleet board=sim id=%s boot=%s seq=%d" % ids + (
                " auth=0 ctr=0 authfail=0"
            )
        if verb == "status":
            return self.status()
        if verb == "since":
            try:
                n = int(args[0])
            except (IndexError, ValueError):
                return "err args since N"
            if n > self.seq:
                return "err args since %d: the last event is %d" % (n, self.seq)
            oldest = self.log[0][0] if self.log else self.seq + 1
            first = max(n + 1, oldest)
            upto = first - 1
            for seq, data in self.log:
                if seq >= first and upto - first < SINCE_MAX - 1:
                    self.out += data
                    upto = seq
            return "ok since %d %d %d" % (first, upto, self.seq)
        if verb == "time":
            return "ok time %d" % self.now()
        if verb == "tc":
            return "ok tc %s" % self.spec
        if verb in ("config", "override"):
            self.spec = " ".join(args) or self.spec
            self.state, self.run, self.moves = "idle", -1, [0, 0]
            self.left = [START_MS, START_MS]
            self.event("config", -1, 0)
            return "ok %s" % verb
        if verb == "start":
            self.start()
        return "ok %s" % verb

    def readable(self) -> None:
        try:
            data = os.read(self.master, 4096)
        except BlockingIOError:
            return
        except OSError as e:
            if e.errno == errno.EIO:  # no host has the port open
                return
            raise
        for b in data:
            r = self.dec.push(b)
            if r == proto.FRAME:
                self.request(self.dec.body().encode())
            elif r < 0:
                self.reply(0, "err crc")
        self.flush()

    def request(self, body: bytes) -> None:
        if body == self.last[0]:  # the same ID and body again: the same reply, run once
            self.out += self.last[1]
            return
        words = body.decode(errors="replace").split(" ")
        try:
            rid = int(words[0])
        except ValueError:
            self.reply(0, "err bad-request")
            return
        text = self.answer(words[1] if len(words) > 1 else "", words[2:])
        data = proto.frame("r %d %s" % (rid, text))
        self.last = (body, data)
        self.out += data

    def reply(self, rid: int, text: str) -> None:
        self.out += proto.frame("r %d %s" % (rid, text))

    def flush(self) -> None:
        """Replies wait for room (a reply is never dropped)."""
        while self.out:
            try:
                n = os.write(self.master, self.out)
            except BlockingIOError:
                return
            self.out = self.out[n:]


class Fleet:
    """N clocks, one selector, a heap of press times."""

    def __init__(self, n: int, base_ms: int) -> None:
        self.clocks = [Clock(i + 1, base_ms) for i in range(n)]
        self.sel = selectors.DefaultSelector()
        for c in self.clocks:
            self.sel.register(c.master, selectors.EVENT_READ, c)
        self.presses: list[tuple[float, int]] = []
        self.span = (10.0, 20.0)
        self.pressed = 0

    def go(self, lo: float, hi: float) -> None:
        self.span = (lo, hi)
        now = time.monotonic()
        self.presses = []
        for i, c in enumerate(self.clocks):
            c.start()
            heapq.heappush(self.presses, (now + random.uniform(0, hi), i))

    def stop(self) -> None:
        self.presses = []

    def step(self, extra: list[int]) -> list[int]:
        """One pass: wait for the ptys, ``extra`` descriptors, or the next press."""
        timeout = None
        if self.presses:
            timeout = max(0.0, self.presses[0][0] - time.monotonic())
        for fd in extra:
            if fd not in self.sel.get_map():
                self.sel.register(fd, selectors.EVENT_READ, None)
        ready = []
        for key, _ in self.sel.select(timeout):
            if key.data is None:
                ready.append(key.fd)
            else:
                key.data.readable()
        now = time.monotonic()
        while self.presses and self.presses[0][0] <= now:
            _, i = heapq.heappop(self.presses)
            self.clocks[i].press()
            self.pressed += 1
            heapq.heappush(self.presses, (now + random.uniform(*self.span), i))
        return ready


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("n", type=int)
    p.add_argument("--base-ms", type=int, default=None)
    args = p.parse_args()
    base = args.base_ms if args.base_ms is not None else mono_ms()
    fleet = Fleet(args.n, base)
    print(json.dumps({"ports": [c.path for c in fleet.clocks], "base_ms": base}), flush=True)
    stdin = sys.stdin.fileno()
    os.set_blocking(stdin, False)
    buf = b""
    while True:
        if not fleet.step([stdin]):
            continue
        try:
            chunk = os.read(stdin, 4096)
        except BlockingIOError:
            continue
        if not chunk:
            return 0
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            words = line.decode().split()
            if not words:
                continue
            if words[0] == "go":
                fleet.go(float(words[1]), float(words[2]))
            elif words[0] == "stop":
                fleet.stop()
            elif words[0] == "cpu":
                t = os.times()
                dropped = sum(c.dropped for c in fleet.clocks)
                print(json.dumps({"cpu_s": t.user + t.system, "pressed": fleet.pressed,
                                  "dropped": dropped}), flush=True)  # fmt: skip
            elif words[0] == "quit":
                return 0


if __name__ == "__main__":
    sys.exit(main())
