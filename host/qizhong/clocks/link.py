# SPDX-License-Identifier: GPL-3.0-or-later
"""One clock's serial link: frames, requests and replies, and every event once.

The frames are the firmware's own (``qizhong.core.proto``, docs/protocol.md).
``Link`` numbers each request, waits for its reply, and sends the same frame
again when a reply is lost (the clock answers a repeated request from its
cache and runs it only once). Events arrive with sequence numbers; ``Link``
hands them out in order, each exactly once. A gap (a frame lost on the line,
or a host that was away) is filled by asking the clock ``since N``, and a
port that went away is reopened. Nothing here sleeps: all waiting is on the
port, bounded by ``timeout``.

    link = Link("/dev/ttyACM0")
    link.request("config", "15m+10s")
    for ev in link.poll(1.0):
        print(ev.seq, ev.name, ev.t)
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import serial

from qizhong.core import auth, proto

Clock = Callable[[], float]


def decode(data: bytes, dec: proto.Decoder | None = None) -> list[tuple[int, str]]:
    """Every frame and every broken frame in ``data``, as a receiver reads
    them: ``(proto.FRAME, body)`` or ``(proto.E_..., "")``."""
    dec = dec or proto.Decoder()
    out = []
    for b in data:
        r = dec.push(b)
        if r == proto.FRAME:
            out.append((r, dec.body()))
        elif r < 0:
            out.append((r, ""))
    return out


class LinkError(Exception):
    """The clock could not be reached, or broke the protocol."""


class CommandError(Exception):
    """The clock refused a request: ``code`` (args, spec, state, unknown...) and why."""

    def __init__(self, verb: str, code: str, message: str) -> None:
        super().__init__("%s: %s %s" % (verb, code, message))
        self.verb = verb
        self.code = code
        self.message = message

    @classmethod
    def from_reply(cls, verb: str, text: str) -> CommandError:
        """From an ``err`` reply's text: ``CODE [MESSAGE]``."""
        code, _, msg = text.partition(" ")
        return cls(verb, code, msg)


@dataclass(frozen=True)
class Event:
    """One clock event. ``side`` 0 moves first (Red, Black in Go, White in
    chess), -1 for none; ``left``: both sides' ms after it."""

    seq: int
    t: int
    name: str
    side: int
    arg: int
    left: tuple[int, int]

    @classmethod
    def parse(cls, words: list[str]) -> Event:
        seq, t = int(words[1]), int(words[2])
        side, arg, l0, l1 = (int(w) for w in words[4:8])
        return cls(seq, t, words[3], side, arg, (l0, l1))


@dataclass(frozen=True)
class Reply:
    id: int
    text: str  # after "ok "

    @property
    def words(self) -> list[str]:
        return self.text.split()

    def fields(self) -> dict[str, str]:
        """``key=value`` words as a dict."""
        return dict(w.split("=", 1) for w in self.words if "=" in w)


class Link:
    """A framed, lossless link to one clock over a serial port (or a pty)."""

    TIMEOUT_S = 2.0  # a request gives up after this long without a reply
    RETRY_S = 0.25  # a request's frame is sent again after this long
    REOPEN_S = 0.05  # a vanished port is tried again this often

    def __init__(
        self,
        port: str,
        *,
        timeout: float = TIMEOUT_S,
        clock: Clock = time.monotonic,
        open_now: bool = True,
    ) -> None:
        self.port = port
        self.timeout = timeout
        self._clock = clock
        self._ser: serial.Serial | None = None
        self._dec = proto.Decoder()
        self._id = random.randrange(1, 60000)
        self._replies: dict[int, tuple[bool, str]] = {}
        self._pending: dict[int, Event] = {}  # events after a gap, held until it is filled
        self._ready: list[Event] = []
        self.last_seq = 0  # every event up to this one has been handed out
        self.boot = ""
        self.errors: list[str] = []  # frame errors the clock reported ("crc", ...)
        self.bad_frames = 0  # frames from the clock that failed their check
        # #8: tags requests that change the clock (qizhong.clocks.auth.Signer), None: untagged
        self.sign: Callable[[str], str] | None = None
        self.opens = 0
        self.reopens = 0  # opened again after the port failed
        self.gaps = 0  # times a gap was filled with "since"
        self.lost = 0  # events the clock no longer had when asked (log overflow)
        self._since_id = 0  # the outstanding "since" request
        self._since_sent = 0.0
        if open_now:
            self.open()

    # -- the port ------------------------------------------------------------------

    def open(self) -> None:
        try:
            self._ser = serial.serial_for_url(self.port, baudrate=115200, timeout=0)
        except (OSError, serial.SerialException) as e:
            raise LinkError("cannot open %s: %s" % (self.port, e)) from None
        self._dec = proto.Decoder()  # a half frame from before is garbage now
        self.opens += 1

    def close(self) -> None:
        if self._ser is not None:
            self._ser.close()
            self._ser = None

    @property
    def is_open(self) -> bool:
        return self._ser is not None

    def fileno(self) -> int:
        assert self._ser is not None
        return int(self._ser.fileno())

    def _reopen(self, deadline: float) -> None:
        self.close()
        while True:
            try:
                self.open()
                self.reopens += 1
                return
            except LinkError as e:
                if self._clock() >= deadline:
                    raise LinkError("%s: cannot reopen (%s)" % (self.port, e))
                _wait(self.REOPEN_S)

    def _write(self, data: bytes, deadline: float) -> None:
        while True:
            try:
                if self._ser is None:
                    self._reopen(deadline)
                assert self._ser is not None
                self._ser.write(data)
                return
            except (OSError, serial.SerialException):
                self._reopen(deadline)

    # -- bytes in --------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        """Decode bytes from the clock (``pump`` reads them; a hall feeds them)."""
        dec = self._dec
        for b in data:
            r = dec.push(b)
            if r == proto.FRAME:
                self._frame(dec.body())
            elif r < 0:
                self.bad_frames += 1
        if self._pending and not self._since_id and self.is_open:
            self._ask_since()

    def _frame(self, body: str) -> None:
        words = body.split(" ")
        kind = words[0]
        try:
            if kind == "e" and len(words) == 8:
                self._event(Event.parse(words))
            elif kind == "r" and len(words) >= 3:
                rid = int(words[1])
                ok = words[2] == "ok"
                text = " ".join(words[3:])
                if rid == 0:
                    self.errors.append(text)
                elif rid == self._since_id:
                    self._since_done(ok, words[3:])
                else:
                    self._replies[rid] = (ok, text)
            else:
                self.bad_frames += 1
        except ValueError:
            self.bad_frames += 1

    def _event(self, ev: Event) -> None:
        if ev.seq <= self.last_seq or ev.seq in self._pending:
            return  # seen already: a replay, or stale bytes from before a reopen
        self._pending[ev.seq] = ev
        self._deliver()

    def _ask_since(self) -> None:
        self._since_id = self._next_id()
        self._send_frame(self._since_id, "since %d" % self.last_seq)
        self._since_sent = self._clock()
        self.gaps += 1

    def _since_done(self, ok: bool, words: list[str]) -> None:
        self._since_id = 0
        if ok and len(words) == 4 and words[0] == "since":
            if not self._since_result(int(words[1]), int(words[3])):
                self._ask_since()  # some replayed frames were lost, or there are more

    def _since_result(self, first: int, last: int) -> bool:
        """The clock replayed from ``first`` and has up to ``last``; True when
        all have arrived."""
        if first > self.last_seq + 1:  # the clock's log no longer had these
            self.lost += first - self.last_seq - 1
            self.last_seq = first - 1
            for seq in [s for s in self._pending if s <= self.last_seq]:
                del self._pending[seq]
            self._deliver()
        return self.last_seq >= last

    def _deliver(self) -> None:
        while self.last_seq + 1 in self._pending:
            self.last_seq += 1
            self._ready.append(self._pending.pop(self.last_seq))

    def pump(self, timeout: float = 0.0) -> None:
        """Read what the clock has sent, waiting up to ``timeout`` s for the first byte."""
        deadline = self._clock() + timeout
        try:
            if self._ser is None:
                self._reopen(deadline)
            assert self._ser is not None
            self._ser.timeout = max(0.0, timeout)
            data = self._ser.read(max(1, self._ser.in_waiting))
            if data:
                data += self._ser.read(self._ser.in_waiting)
        except (OSError, serial.SerialException):
            self._reopen(deadline + self.timeout)
            return
        self.feed(data)
        if self._since_id and self._clock() - self._since_sent > self.RETRY_S:
            self._since_id = 0  # its reply was lost: ask again on the next gap check
            if self._pending:
                self._ask_since()

    def skip_to(self, seq: int) -> None:
        """Hand out nothing up to ``seq``: the next event handed out is ``seq + 1``
        (what came before is another user's business, or already seen)."""
        self.last_seq = seq
        self._ready = []
        for s in [s for s in self._pending if s <= seq]:
            del self._pending[s]
        self._deliver()

    def take_events(self) -> list[Event]:
        """The events that arrived since the last call, in order, each once."""
        out = self._ready
        self._ready = []
        return out

    def poll(self, timeout: float = 0.0) -> list[Event]:
        """Wait up to ``timeout`` s for events; return the new ones."""
        deadline = self._clock() + timeout
        while True:
            self.pump(max(0.0, deadline - self._clock()))
            if self._ready or self._clock() >= deadline:
                return self.take_events()

    # -- requests ----------------------------------------------------------------------

    def _next_id(self) -> int:
        self._id = self._id % 65535 + 1
        return self._id

    def _send_frame(self, rid: int, body: str) -> None:
        self._write(proto.frame("%d %s" % (rid, body)), self._clock() + self.timeout)

    def _text(self, rid: int, verb: str, args: str) -> str:
        """The request's text ``ID VERB ARGS``, tagged if it changes the clock."""
        text = ("%d %s %s" % (rid, verb, args)).strip()
        if self.sign is not None and not auth.is_open(verb, args):
            text = self.sign(text)
            if len(text) > proto.MAX_BODY:
                raise ValueError("request too long with its tag (%d bytes)" % len(text))
        return text

    def send(self, verb: str, args: str = "") -> int:
        """Send a request without waiting; returns its id (see ``reply``)."""
        rid = self._next_id()
        self._write(proto.frame(self._text(rid, verb, args)), self._clock() + self.timeout)
        return rid

    def reply(self, rid: int) -> tuple[bool, str] | None:
        """The reply to request ``rid`` if it came, else None."""
        return self._replies.pop(rid, None)

    def request(self, verb: str, args: str = "") -> Reply:
        """Send a request and wait for its reply; raise CommandError on ``err``.

        The frame goes out again every ``RETRY_S`` until the reply comes, the
        port reopened if it went away; a clock that stays silent for
        ``timeout`` seconds raises LinkError."""
        body = (verb + " " + args).strip()
        _check_body(body)
        rid = self._next_id()
        frame = proto.frame(self._text(rid, verb, args))  # the same bytes on every retry
        start = self._clock()
        deadline = start + self.timeout
        sent = start
        self._write(frame, deadline)
        while True:
            now = self._clock()
            got = self._replies.pop(rid, None)
            if got is not None:
                ok, text = got
                if not ok:
                    raise CommandError.from_reply(verb, text)
                return Reply(rid, text)
            if now >= deadline:
                raise LinkError("%s: no reply to %r in %.1f s" % (self.port, verb, self.timeout))
            if now - sent >= self.RETRY_S:
                self._write(frame, now + self.timeout)
                sent = now
            self.pump(min(self.RETRY_S - (now - sent), deadline - now))

    def sync(self) -> None:
        """Ask for every event since the last one handed out, and wait until
        all have arrived (after a reconnect, or to be sure nothing is missing)."""
        deadline = self._clock() + self.timeout
        while True:
            words = self.request("since", str(self.last_seq)).words
            if self._since_result(int(words[1]), int(words[3])):
                return
            if self._clock() >= deadline:
                raise LinkError("%s: events up to %s did not arrive" % (self.port, words[3]))


def _check_body(body: str) -> None:
    if len(body) > proto.MAX_BODY - 6:
        raise ValueError("request too long (%d bytes)" % len(body))
    bad = [c for c in body if c in "$*" or not " " <= c <= "~"]
    if bad:
        raise ValueError("a request cannot carry %r (printable ASCII, no $ or *)" % bad[0])


def _wait(seconds: float) -> None:
    # Waiting for a port to come back after an unplug; never on a test's path.
    time.sleep(seconds)
