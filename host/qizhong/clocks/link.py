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

import errno
import fcntl
import os
import random
import select
import shlex
import stat
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass

import serial

from qizhong.clocks import pathwatch
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


class PortBusy(LinkError):
    """Another program owns the port (#12: one program at a time per clock).
    ``pid`` and ``command`` name it when known (0 and "" if not)."""

    def __init__(self, port: str, pid: int = 0, command: str = "") -> None:
        who = "pid %d (%s)" % (pid, command or "?") if pid else "another program"
        super().__init__(
            "%s is in use by %s; one program at a time may own a clock's port" % (port, who)
        )
        self.port = port
        self.pid = pid
        self.command = command


class OtherClock(LinkError):
    """Another clock answers on the port (a pty's number taken by a new
    simulator, a USB socket given another clock): not the one lost there,
    so not taken back. The port is closed again at once (its lock freed)."""

    def __init__(self, port: str, expected: str, found: str) -> None:
        super().__init__(
            "%s: another clock (%s) answers there now, not %s: not taken back"
            % (port, found[:40], expected)
        )
        self.expected, self.found = expected, found


class OtherDevice(LinkError):
    """The port's path names another device than the one this link had (a
    pty's number given to another program; a USB path leading to another
    board): it is not opened, so the other program's port gets no probe."""

    def __init__(self, port: str) -> None:
        super().__init__("another device is at %s now: not opened (the clock had another)" % port)
        self.port = port


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
class Restart:
    """The clock restarted (its ``hello`` gave a new boot id, or a ``boot``
    event came). ``Link.restarts`` lists them; what was lost is also in
    ``Link.lost``.

    With the journal the new numbering goes on above the old one; without it
    (or with a journal of another layout) it starts again at 1
    (``renumbered``). Either way every event of the new boot that the clock
    still keeps is handed out, from ``first``. Events of the old boot after
    ``last_seq`` that never reached the host are gone: ``lost`` counts the
    numbers skipped where they can be known (the old numbering's tail is
    unknown when it was renumbered)."""

    old_boot: str  # "" when the host had not heard it
    new_boot: str  # "" when not (yet) known
    last_seq: int  # the last event handed out under the old boot
    first: int  # the first event handed out under the new boot
    renumbered: bool
    lost: int


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
    """A framed, lossless link to one clock over a serial port (or a pty).

    One program at a time owns a port: ``open`` locks it (an ``flock`` on the
    device, as pyserial's ``exclusive=True`` does, and a lock file naming the
    owner) and raises ``PortBusy`` saying who holds it."""

    TIMEOUT_S = 2.0  # a request gives up after this long without a reply
    RETRY_S = 0.25  # a request's frame is sent again after this long
    REOPEN_S = 0.05  # a port that is there but fails to open is tried again this often

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
        self._lock_fd = -1
        self._dec = proto.Decoder()
        self._id = random.randrange(1, 60000)
        self._replies: dict[int, tuple[bool, str]] = {}
        self._sent: dict[int, bytes] = {}  # frames of recent ``send`` requests, for ``resend``
        self._pending: dict[int, Event] = {}  # events after a gap, held until it is filled
        self._ready: list[Event] = []
        self.last_seq = 0  # every event up to this one has been handed out
        self.boot = ""  # the boot id last_seq counts in ("" not known)
        self.clock_id = ""  # the id of the clock on this port, from its first hello
        self.errors: list[str] = []  # frame errors the clock reported ("crc", ...)
        self.bad_frames = 0  # frames from the clock that failed their check
        # #8: tags requests that change the clock (qizhong.clocks.auth.Signer), None: untagged
        self.sign: Callable[[str], str] | None = None
        self.opens = 0
        self.reopens = 0  # opened again after the port failed
        self.gaps = 0  # times a gap was filled with "since"
        self.lost = 0  # events the clock no longer had when asked (log overflow, restarts)
        self.busy = 0  # "err busy" answers (the request was sent again)
        self.restarts: list[Restart] = []  # #12: every restart of the clock seen
        self._since_id = 0  # the outstanding "since" request
        self._since_sent = 0.0
        # #12: boot ids decide the numbering. After a reopen, events wait (are
        # dropped, to be fetched again) until a hello reply says whose they are.
        self._hello_ids: set[int] = set()  # hellos sent since the port opened
        self._hello_id = 0  # the link's own outstanding hello (after a reopen, or a boot event)
        self._own_hellos: set[int] = set()  # their ids: replies nobody waits for
        self._hello_sent = 0.0
        self._hold = False  # drop events until a hello reply decides the numbering
        self._suspect = False  # a boot event came below our numbering: a restart?
        self._was: tuple[str, int, int] | None = None  # (boot, last_seq, boot seq) at a boot event
        self._renumber: tuple[str, int] | None = None  # (old boot, old last_seq)
        self._boot_ev: Event | None = None  # the boot event of the current numbering
        self._syncing = False  # in sync(): replays of what we have may come
        self._top = 0  # the highest number this boot has used, as far as we know
        self._want = 0  # a status reply's last event number: up to it is owed to us
        self.device: Device | None = None  # the device opened first (reopened only if there)
        self.heard = clock()  # when the clock last sent a byte (its silence is a heartbeat's cue)
        if open_now:
            self.open()

    # -- the port ------------------------------------------------------------------

    def open(self) -> None:
        """Open and lock the port (``PortBusy`` if another program has it;
        ``OtherDevice``, not opened, if the path now names another device
        than the one this link had)."""
        if self.device is not None:
            now = device_at(self.port)
            if now is not None and not now.same(self.device):
                raise OtherDevice(self.port)
        self._lock()
        try:
            self._ser = serial.serial_for_url(self.port, baudrate=115200, timeout=0, exclusive=True)
        except (OSError, serial.SerialException) as e:
            self._unlock()
            if "exclusively lock" in str(e):  # an flock by a program without our lock file
                raise _busy(self.port) from None
            raise LinkError("cannot open %s: %s" % (self.port, e)) from None
        self._dec = proto.Decoder()  # a half frame from before is garbage now
        self._hello_ids.clear()  # a reply to a hello sent before is stale now
        self.device = device_at(self.port) or self.device  # what it may reopen
        self.opens += 1
        self._hold = bool(self.boot)
        if self._hold:
            self._ask_hello()  # the clock may have restarted meanwhile: whose events come now?

    def close(self) -> None:
        if self._ser is not None:
            self._ser.close()
            self._ser = None
        self._unlock()

    def __del__(self) -> None:
        self._unlock()  # a link dropped unclosed frees its port (its serial closes itself)

    def _lock(self) -> None:
        if not os.path.exists(self.port):
            return  # a URL (loop://, socket://): nothing to lock
        path = lock_path(self.port)
        fd = _open_lock(path)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            pid, command = _read_owner(fd)
            os.close(fd)
            raise PortBusy(self.port, pid, command) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, ("%d\n%s\n" % (os.getpid(), _command_line())).encode(), 0)
        self._lock_fd = fd

    def _unlock(self) -> None:
        if self._lock_fd >= 0:
            os.close(self._lock_fd)  # closing it releases the flock
            self._lock_fd = -1

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
            except (PortBusy, OtherDevice):
                raise
            except LinkError as e:
                left = deadline - self._clock()
                if left <= 0:
                    raise LinkError("%s: cannot reopen (%s)" % (self.port, e))
                if device_at(self.port) is None and "://" not in self.port:
                    pathwatch.until_there(self.port, left)  # gone: woken when it is made again
                else:
                    _wait(self.REOPEN_S)  # there but not opening yet (udev setting its mode)

    def _write(self, data: bytes, deadline: float) -> None:
        while True:
            try:
                if self._ser is None:
                    self._reopen(deadline)
                assert self._ser is not None
                fd = _posix_fd(self._ser)
                if fd < 0:
                    self._ser.write(data)
                else:
                    _write_fd(fd, data, deadline - self._clock())
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
        if self._pending and not self._since_id and not self._hold and self.is_open:
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
                    return
                if rid in self._hello_ids and ok and words[3:4] == ["hello"]:
                    self._hello_ids.discard(rid)
                    self._on_hello(Reply(rid, text).fields())
                if ok and words[3:4] == ["status"]:
                    self._status_seq(Reply(rid, text).fields())
                if rid == self._since_id:
                    self._since_done(ok, words[3:])
                elif rid in self._own_hellos:
                    self._own_hellos.discard(rid)
                else:
                    self._replies[rid] = (ok, text)
            else:
                self.bad_frames += 1
        except ValueError:
            self.bad_frames += 1

    def _event(self, ev: Event) -> None:
        if self._hold:
            return  # whose numbering? a hello reply will say; "since" fetches it then
        asked = self._since_id or self._syncing  # a replay may repeat what we have
        if (
            ev.seq <= self.last_seq
            and self._renumber is None
            and (not asked or ev.name == "boot")
            and (self.boot or ev.name == "boot")
        ):
            # #12: an event below our numbering that nobody asked for: a clock
            # without its journal restarted while we listened (a boot event
            # looks the same at every boot). Hold everything and ask whose it is.
            # A boot event is asked even amid a replay: a clock that restarts
            # while it answers "since" sends its new boot event where the
            # replay's could come, and the same bytes (seq 1, t 0), so only
            # hello can tell; a real replay costs one hello.
            self._suspect = ev.name == "boot"
            self._hold = True
            self._pending.clear()
            self._ask_hello()
            return
        if ev.name == "boot" and ev != self._boot_ev and self._renumber is None:
            if self.boot and ev.seq > max(self.last_seq, self._top):
                # a boot event above all this boot has used: the clock restarted,
                # and with the journal the numbering goes on. Learn the new boot id
                self._was = (self.boot, self.last_seq, ev.seq)
                self.boot = ""
                self._ask_hello()
        if ev.name == "boot":
            self._boot_ev = ev
        if ev.seq <= self.last_seq or ev.seq in self._pending:
            return  # seen already: a replay, or stale bytes from before a reopen
        self._pending[ev.seq] = ev
        self._deliver()

    def _ask_hello(self) -> None:
        self._hello_id = self._next_id()
        self._hello_ids.add(self._hello_id)
        self._own_hellos.add(self._hello_id)
        self._send_frame(self._hello_id, "hello")
        self._hello_sent = self._clock()

    def _on_hello(self, f: dict[str, str]) -> None:
        """A hello reply, in its place in the byte stream: before it, events
        were held; from here on the numbering is the one of its boot id."""
        found = f.get("id", "")
        if found and self.clock_id and found != self.clock_id:
            # Another clock on the port (a reused pty number): none of its
            # events are this clock's. Let the port go; the caller decides.
            self.close()
            raise OtherClock(self.port, self.clock_id, found)
        self.clock_id = self.clock_id or found
        boot = f.get("boot", "")
        seq = int(f.get("seq", "0"))
        hold, suspect = self._hold, self._suspect
        self._hold = self._suspect = False
        self._hello_id = 0
        if not boot:
            return
        if (self.boot and boot != self.boot) or (suspect and not self.boot):
            self._restart(self.boot, boot)
            self._top = seq
            return
        self._top = max(self._top, seq) if boot == self.boot else seq
        self.boot = boot
        was, self._was = self._was, None
        if was and was[0] != boot:  # a boot event moved us on (the journal's numbering)
            self.restarts.append(Restart(was[0], boot, was[1], was[2], False, was[2] - was[1] - 1))
        if hold and seq > self.last_seq and not self._since_id:
            self._ask_since()  # what came while we held

    def _restart(self, old_boot: str, new_boot: str) -> None:
        """The clock restarted: fetch everything it keeps of its new boot."""
        if self._was is not None:  # a boot event had already made the old boot unknown
            old_boot = old_boot or self._was[0]
            self._was = None
        self._renumber = (old_boot, self.last_seq)
        self.boot = new_boot
        self.last_seq = 0
        self._pending.clear()
        self._boot_ev = None
        self._since_id = 0
        self._want = 0
        self._ask_since()

    def _ask_since(self) -> None:
        self._since_id = self._next_id()
        self._send_frame(self._since_id, "since %d" % self.last_seq)
        self._since_sent = self._clock()
        self.gaps += 1

    def _since_done(self, ok: bool, words: list[str]) -> None:
        self._since_id = 0
        below = False
        if ok and len(words) == 4 and words[0] == "since":
            last = int(words[3])
            self._want = min(self._want, last)
            # The clock's last is below an event we hold: that event was another
            # boot's, and asking again would never fill the gap (#12).
            below = bool(self._pending) and max(self._pending) > last
            if not below and not self._since_result(int(words[1]), last):
                self._ask_since()  # some replayed frames were lost, or there are more
        if (below or (not ok and words[:1] == ["args"])) and not self._hold:
            # "since N" refused: the clock's numbering is below ours. It
            # restarted without its journal; hello says so (#12).
            self._suspect = True
            self._hold = True
            self._pending.clear()
            self._ask_hello()

    def _status_seq(self, f: dict[str, str]) -> None:
        """A status reply says the clock's last event number. The byte stream
        keeps order, so every event up to it was sent before the reply: one
        still missing was lost on the line (or not written: the clock never
        waits for a host), and no later event would show the gap. Fetch it,
        from the first status on (#24): a host that has received nothing yet
        (its first events lost, or sent before it opened the port) fetches
        them too."""
        try:
            seq = int(f.get("seq", "0"))
        except ValueError:
            return
        if self._hold or self._renumber is not None:
            return  # whose numbering is being decided
        self._want = max(self._want, seq)
        if seq > self.last_seq and seq not in self._pending and not self._since_id:
            if not self._syncing and self.is_open:
                self._ask_since()

    def _since_result(self, first: int, last: int) -> bool:
        """The clock replayed from ``first`` and has up to ``last``; True when
        all have arrived."""
        if self._renumber is not None:
            old_boot, old = self._renumber
            self._renumber = None
            # With the journal the new numbering starts above the old one
            # (docs/journal.md); if the clock's first kept number is not above
            # what we had, it started again from 1.
            renumbered = first <= old
            skipped = first - 1 if renumbered else first - 1 - old
            self.lost += max(0, skipped)
            self.restarts.append(Restart(old_boot, self.boot, old, first, renumbered, skipped))
            self.last_seq = first - 1
            for seq in [s for s in self._pending if s <= self.last_seq]:
                del self._pending[seq]
            self._deliver()
        elif first > self.last_seq + 1:  # the clock's log no longer had these
            self.lost += first - self.last_seq - 1
            self.last_seq = first - 1
            for seq in [s for s in self._pending if s <= self.last_seq]:
                del self._pending[seq]
            self._deliver()
        return self.last_seq >= last

    def _deliver(self) -> None:
        if self._renumber is not None:
            return  # after a restart: nothing until "since" says where the numbering starts
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
            fd = _posix_fd(self._ser)
            if fd >= 0:
                data = _read_fd(fd, max(0.0, timeout))
            else:
                self._ser.timeout = max(0.0, timeout)
                data = self._ser.read(max(1, self._ser.in_waiting))
                if data:
                    data += self._ser.read(self._ser.in_waiting)
        except (OSError, serial.SerialException):
            self._reopen(deadline + self.timeout)
            return
        now = self._clock()
        if data:
            self.heard = now
        self.feed(data)
        if self._hello_id and now - self._hello_sent > self.RETRY_S:
            self._ask_hello()  # its reply was lost: ask again
        if self._since_id and now - self._since_sent > self.RETRY_S:
            self._since_id = 0  # its reply was lost: ask again on the next gap check
            if self._pending or self._renumber is not None or self._want > self.last_seq:
                self._ask_since()

    def due(self) -> float | None:
        """When ``pump`` must run again though the port says nothing (a
        ``hello`` or ``since`` whose reply may be lost is asked again), in
        the link's clock; None: not before the clock speaks. An event-driven
        host waits for the port's bytes or this, whichever comes first."""
        sent = [
            t
            for t, rid in ((self._hello_sent, self._hello_id), (self._since_sent, self._since_id))
            if rid
        ]
        return min(sent) + self.RETRY_S if sent else None

    def now(self) -> float:
        """The link's clock now (``due`` and ``heard`` are on it)."""
        return self._clock()

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
        if verb == "hello":
            self._hello_ids.add(rid)  # its reply decides the numbering (#12)
        text = ("%d %s %s" % (rid, verb, args)).strip()
        if self.sign is not None and not auth.is_open(verb, args):
            text = self.sign(text)
            if len(text) > proto.MAX_BODY:
                raise ValueError("request too long with its tag (%d bytes)" % len(text))
        return text

    def send(self, verb: str, args: str = "") -> int:
        """Send a request without waiting; returns its id (see ``reply``,
        and ``resend`` when no reply came)."""
        _check_body((verb + " " + args).strip())
        rid = self._next_id()
        frame = proto.frame(self._text(rid, verb, args))
        self._sent[rid] = frame
        while len(self._sent) > 64:  # only the recent ones can still be waited for
            del self._sent[next(iter(self._sent))]
        self._write(frame, self._clock() + self.timeout)
        return rid

    def resend(self, rid: int) -> None:
        """Send request ``rid`` again, the very same frame: the clock runs it
        at most once (its reply was lost, or it said ``busy``)."""
        self._write(self._sent[rid], self._clock() + self.timeout)

    def reply(self, rid: int) -> tuple[bool, str] | None:
        """The reply to request ``rid`` if it came, else None."""
        return self._replies.pop(rid, None)

    def request(self, verb: str, args: str = "") -> Reply:
        """Send a request and wait for its reply; raise CommandError on ``err``.

        The frame goes out again, the same bytes with the same id, every
        ``RETRY_S`` until the reply comes (the clock runs a repeated frame
        once and answers it from its cache), the port reopened if it went
        away. ``err busy`` (the clock did not run it) is no answer either: the
        same frame goes out again. A clock that gives no answer for
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
                if not ok and text.split(" ", 1)[0] == "busy":
                    self.busy += 1  # not run: the same frame again after RETRY_S
                elif not ok:
                    raise CommandError.from_reply(verb, text)
                else:
                    return Reply(rid, text)
            if now >= deadline:
                raise LinkError("%s: no reply to %r in %.1f s" % (self.port, verb, self.timeout))
            if now - sent >= self.RETRY_S:
                self._write(frame, now + self.timeout)
                sent = now
            self.pump(max(0.0, min(self.RETRY_S - (now - sent), deadline - now)))

    def request_text(self, text: str) -> tuple[bool, str]:
        """Send a request text exactly as given, ``ID VERB ARGS [~CTR TAG]``,
        and wait for its reply: ``(ok, reply text)``. For a request tagged
        elsewhere (another laptop's arbiter, over the hall's broker, #15):
        nothing is added or changed here, so whoever relays it cannot forge
        one; the clock checks the tag. Retries and ``busy`` as ``request``."""
        rid_text, _, body = text.partition(" ")
        if not rid_text.isdigit() or not 0 < int(rid_text) < 65536 or not body:
            raise ValueError("a request text is ID VERB ARGS, not %r" % text[:40])
        _check_body(text)
        rid = int(rid_text)
        if rid in self._sent or rid == self._id:
            raise ValueError("request id %d is in use here: take another" % rid)
        frame = proto.frame(text)
        start = self._clock()
        deadline = start + self.timeout
        sent = start
        self._write(frame, deadline)
        while True:
            now = self._clock()
            got = self._replies.pop(rid, None)
            if got is not None:
                if got[0] or got[1].split(" ", 1)[0] != "busy":
                    return got
                self.busy += 1
            if now >= deadline:
                raise LinkError(
                    "%s: no reply to request %d in %.1f s" % (self.port, rid, self.timeout)
                )
            if now - sent >= self.RETRY_S:
                self._write(frame, now + self.timeout)
                sent = now
            self.pump(max(0.0, min(self.RETRY_S - (now - sent), deadline - now)))

    def sync(self) -> None:
        """Ask for every event since the last one handed out, and wait until
        all have arrived (after a reconnect, or to be sure nothing is missing)."""
        deadline = self._clock() + self.timeout
        self._syncing = True
        try:
            while True:
                words = self.request("since", str(self.last_seq)).words
                if self._since_result(int(words[1]), int(words[3])):
                    return
                if self._clock() >= deadline:
                    raise LinkError("%s: events up to %s did not arrive" % (self.port, words[3]))
        finally:
            self._syncing = False


def lock_path(port: str) -> str:
    """The lock file that names a port's owner: in ``$XDG_RUNTIME_DIR/qizhong``,
    else ``/tmp/qizhong-UID`` (one per device, by its real path)."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    folder = (
        os.path.join(base, "qizhong")
        if base
        else os.path.join(tempfile.gettempdir(), "qizhong-%d" % os.getuid())
    )
    os.makedirs(folder, mode=0o700, exist_ok=True)
    _check_lock_folder(folder)
    name = os.path.realpath(port).strip("/").replace("/", "_")
    return os.path.join(folder, name + ".lock")


def _check_lock_folder(folder: str) -> None:
    """Refuse a lock folder another user could put files in: one that is not
    ours, or that others may write without the sticky bit (a ``/tmp/qizhong-UID``
    made beforehand by someone else, #26 item 5)."""
    st = os.lstat(folder)
    if not stat.S_ISDIR(st.st_mode):
        raise LinkError("the lock folder %s is not a folder (a link?): refused" % folder)
    if st.st_uid != os.getuid():
        raise LinkError(
            "the lock folder %s belongs to user %d, not to this one (%d): refused; remove it"
            % (folder, st.st_uid, os.getuid())
        )
    if st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
        raise LinkError(
            "the lock folder %s may be written by others (mode %o): refused; chmod 700 it"
            % (folder, stat.S_IMODE(st.st_mode))
        )


@dataclass(frozen=True)
class Device:
    """The device a port's path names now: its node (device number, inode and
    creation time: a pty number given again, or a USB socket's node made anew,
    is another node) and its USB serial number ("" for a pty)."""

    node: tuple[int, int, int]
    usb_serial: str

    def same(self, other: Device) -> bool:
        """The same device: the same node, or a USB device with the same serial."""
        if self.node == other.node:
            return True
        return bool(self.usb_serial) and self.usb_serial == other.usb_serial


def device_at(path: str) -> Device | None:
    """What ``path`` names now (None: nothing), without opening it.
    ``Link`` reopens only the device it had (#34): a pty's number given to
    another program, or a USB path that now leads to another board, is
    another device, and is never opened."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    serial = ""
    try:  # pyserial's sysfs reading of the USB descriptor (None for a pty)
        from serial.tools.list_ports_linux import SysFS

        serial = SysFS(os.path.realpath(path)).serial_number or ""
    except (OSError, ValueError):
        pass
    return Device((st.st_rdev, st.st_ino, st.st_ctime_ns), serial)


def _open_lock(path: str) -> int:
    """The lock file, opened without following a link (a link there would have
    its target overwritten with our pid): only a plain file of ours is taken."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise LinkError("the lock file %s is a link: refused; remove it" % path) from None
        raise LinkError("cannot open the lock file %s: %s" % (path, e.strerror)) from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or st.st_nlink != 1:
        os.close(fd)
        raise LinkError("the lock file %s is not a plain file of ours: refused" % path)
    return fd


def _command_line() -> str:
    argv = getattr(sys, "orig_argv", None) or [sys.executable, *sys.argv]
    return shlex.join(argv)


def _read_owner(fd: int) -> tuple[int, str]:
    """The pid and command line in a lock file (0, "" if it does not say)."""
    try:
        pid, _, command = os.pread(fd, 4096, 0).decode(errors="replace").partition("\n")
        return int(pid), command.strip()
    except ValueError:
        return 0, ""


def _busy(port: str) -> PortBusy:
    """A port another program locked without our lock file: find it in /proc."""
    real = os.path.realpath(port)
    for pid in (p for p in os.listdir("/proc") if p.isdigit()) if os.path.isdir("/proc") else ():
        try:
            fds = os.listdir("/proc/%s/fd" % pid)
            if any(os.path.realpath("/proc/%s/fd/%s" % (pid, fd)) == real for fd in fds):
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    argv = f.read().decode(errors="replace").split("\0")
                return PortBusy(port, int(pid), shlex.join(a for a in argv if a))
        except OSError:
            continue
    return PortBusy(port)


def _check_body(body: str) -> None:
    if len(body) > proto.MAX_BODY - 6:
        raise ValueError("request too long (%d bytes)" % len(body))
    bad = [c for c in body if c in "$*" or not " " <= c <= "~"]
    if bad:
        raise ValueError("a request cannot carry %r (printable ASCII, no $ or *)" % bad[0])


def _wait(seconds: float) -> None:
    # Waiting for a port that is there to open (a node udev has not yet given
    # its mode); never on a test's path. A port that is gone is waited for
    # with inotify (``pathwatch.until_there``).
    time.sleep(seconds)


# pyserial waits with select(), which fails on a descriptor number of 1024
# or more ("filedescriptor out of range"): a hall server with a few hundred
# clocks has such numbers. A port with a POSIX descriptor is waited on with
# poll() here instead, and read and written directly (pyserial opened it
# non-blocking); other ports (loop://, socket://) go through pyserial.


def _posix_fd(ser: object) -> int:
    fd = getattr(ser, "fd", None)
    return fd if isinstance(fd, int) and fd >= 0 else -1


def _read_fd(fd: int, timeout: float) -> bytes:
    """What the port has, waiting up to ``timeout`` s for the first byte."""
    p = select.poll()
    p.register(fd, select.POLLIN | select.POLLERR | select.POLLHUP)
    if not p.poll(int(timeout * 1000)):
        return b""
    out = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except BlockingIOError:
            return out
        except OSError as e:
            if e.errno == errno.EINTR:
                continue
            raise
        if not chunk:
            if out:
                return out
            raise OSError(errno.EIO, "the device reports data but gives none (unplugged?)")
        out += chunk
        if len(chunk) < 4096:
            return out


def _write_fd(fd: int, data: bytes, timeout: float) -> None:
    """All of ``data``, waiting (poll) while the port's buffer is full."""
    p = select.poll()
    p.register(fd, select.POLLOUT | select.POLLERR | select.POLLHUP)
    deadline = time.monotonic() + max(0.0, timeout)
    view = memoryview(data)
    while view:
        try:
            n = os.write(fd, view)
            view = view[n:]
            continue
        except BlockingIOError:
            pass
        except OSError as e:
            if e.errno != errno.EINTR:
                raise
            continue
        left = deadline - time.monotonic()
        if left <= 0 or not p.poll(int(left * 1000) + 1):
            raise OSError(errno.ETIMEDOUT, "the port took no bytes for %.1f s" % timeout)
