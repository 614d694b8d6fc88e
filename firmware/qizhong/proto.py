# SPDX-License-Identifier: GPL-3.0-or-later
"""The serial protocol's frames, and the log of recent events (docs/protocol.md).

A frame is ``$`` BODY ``*`` CRC, then optionally CR LF::

    $12 pause*8F0A
    $e 7 61250 press 0 10000 590000 600000*1C2B

BODY is 1..MAX_BODY printable ASCII bytes, never ``$`` or ``*``; CRC is
CRC-16/CCITT-FALSE of BODY in four hex digits. ``$`` always starts a frame,
so a receiver resynchronises on the next one after any garbage.

``Decoder.push(byte)`` takes one byte at a time and says when a frame is
complete or broken. ``Encoder.event`` writes an event frame into one
preallocated buffer, allocating nothing (it is on the press path);
``frame(text)`` builds any other frame, ``reply(rid, text)`` a reply, never
over MAX_BODY (#12). ``Request`` is the one parse of a request body: the app
authorises and runs exactly what it parsed (#12: no second reading that could
disagree). ``EventLog`` keeps the last ``SIZE`` events by sequence number, so a
host that reconnects asks for what it missed.
"""

from array import array

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):  # type: ignore
        return x


PROTOCOL = 1
MAX_BODY = const(200)

SOF = const(0x24)  # $
SEP = const(0x2A)  # *
LF = const(10)
CR = const(13)

# Decoder.push results.
NONE = const(0)
FRAME = const(1)
E_TRUNCATED = const(-1)  # a frame cut short by a new "$" or a line end
E_TOO_LONG = const(-2)  # BODY over MAX_BODY: the rest up to the next "$" is skipped
E_CRC = const(-3)  # the CRC does not match
E_BYTE = const(-4)  # a byte that cannot be in a frame (control, non-ASCII, bad hex)
ERROR_CODES = {E_TRUNCATED: "truncated", E_TOO_LONG: "too-long", E_CRC: "crc", E_BYTE: "bad-byte"}

# Decoder states.
_HUNT = const(0)
_BODY = const(1)
_CRC = const(2)
_SKIP = const(3)


def _table():
    t = [0] * 256
    for i in range(256):
        c = i << 8
        for _ in range(8):
            c = ((c << 1) ^ 0x1021) if c & 0x8000 else c << 1
        t[i] = c & 0xFFFF
    return tuple(t)


CRC_TABLE = _table()
HEX = b"0123456789ABCDEF"


def crc16(buf, start, end):
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) of ``buf[start:end]``."""
    c = 0xFFFF
    t = CRC_TABLE
    for i in range(start, end):
        c = ((c << 8) & 0xFFFF) ^ t[(c >> 8) ^ buf[i]]
    return c


def _hexval(b):
    if 48 <= b <= 57:
        return b - 48
    if 65 <= b <= 70:
        return b - 55
    if 97 <= b <= 102:
        return b - 87
    return -1


class Decoder:
    """Bytes in, frames out. ``garbage`` counts bytes dropped outside frames."""

    def __init__(self):
        self.buf = bytearray(MAX_BODY)
        self.n = 0
        self._state = _HUNT
        self._crc = 0
        self._k = 0
        self.garbage = 0

    def push(self, b):
        """Take one byte; return FRAME (``body()`` holds it), an E_* error, or NONE."""
        st = self._state
        if b == SOF:
            self._state = _BODY
            self.n = 0
            return E_TRUNCATED if st == _BODY or st == _CRC else NONE
        if st == _HUNT:
            if b != LF and b != CR:
                self.garbage += 1
            return NONE
        if st == _SKIP:
            return NONE
        if st == _BODY:
            if b == SEP:
                if not self.n:
                    self._state = _HUNT
                    return E_TRUNCATED
                self._state = _CRC
                self._crc = 0
                self._k = 0
                return NONE
            if b == LF or b == CR:
                self._state = _HUNT
                return E_TRUNCATED
            if b < 0x20 or b > 0x7E:
                self._state = _HUNT
                return E_BYTE
            if self.n == MAX_BODY:
                self._state = _SKIP
                return E_TOO_LONG
            self.buf[self.n] = b
            self.n += 1
            return NONE
        # _CRC
        v = _hexval(b)
        if v < 0:
            self._state = _HUNT
            return E_TRUNCATED if b == LF or b == CR else E_BYTE
        self._crc = (self._crc << 4) | v
        self._k += 1
        if self._k < 4:
            return NONE
        self._state = _HUNT
        return FRAME if self._crc == crc16(self.buf, 0, self.n) else E_CRC

    def body(self):
        """The last complete frame's body, as text."""
        return bytes(self.buf[: self.n]).decode()


def frame(text):
    """One frame (bytes, with CR LF) for ``text``; allocates, for replies."""
    body = text.encode()
    c = crc16(body, 0, len(body))
    return b"$%s*%04X\r\n" % (body, c)


def reply(rid, text):
    """The reply frame ``r RID TEXT``, always a valid frame and never over
    MAX_BODY (#12): an echoed byte no body may hold reads ``?``, an error's
    message is cut short (``...``); an ``ok`` reply that long is a firmware
    bug, and the host gets an error it can read instead of a frame it cannot."""
    body = "r %d %s" % (rid, text)
    for ch in body:  # an echoed byte that cannot be in a body becomes "?"
        if not " " <= ch <= "~" or ch == "$" or ch == "*":
            body = "".join(c if " " <= c <= "~" and c != "$" and c != "*" else "?" for c in body)
            break
    if len(body) > MAX_BODY:
        if text.startswith("err "):
            body = body[: MAX_BODY - 3] + "..."
        else:
            body = "r %d err internal a %d-byte reply" % (rid, len(body))
    return frame(body)


def show(word, n=16):
    """``word`` for an error message: at most ``n`` characters (#12)."""
    return word if len(word) <= n else word[:n] + "..."


class BadRequest(ValueError):
    """A frame whose body is not a request (``err bad-request``)."""


class TagForm(ValueError):
    """A ``~`` tail that is not ``~CTR TAG`` (``err auth form``)."""


TAG_HEX = 32  # hex digits of a tag (auth.py: 128 bits of HMAC-SHA256)
CTR_DIGITS = 10  # a counter: 1 .. 9999999999


class Request:
    """One request body, parsed once (docs/protocol.md, docs/security.md).

    ``ID VERB ARGS`` or ``ID VERB ARGS ~CTR TAG``: words separated by exactly
    one space, the ID 1..65535. ``rid``, ``verb``, ``args`` (a list of words),
    ``ctr`` (0: untagged), ``tag``, ``signed`` (the text the tag covers).
    ``parse`` raises BadRequest (``rid`` stays 0 when even the ID is
    unreadable) or TagForm.
    """

    def __init__(self):
        self.rid = 0
        self.verb = ""
        self.args = []  # type: list
        self.ctr = 0
        self.tag = ""
        self.signed = ""

    def parse(self, body):
        self.rid = 0
        words = body.split(" ")
        w = words[0]
        v = w.lstrip("0")  # leading zeros are allowed, as int() reads them
        if not w.isdigit() or not v or len(v) > 5 or int(v) > 65535:
            raise BadRequest(show(body, 40))
        self.rid = int(v)
        for w in words:  # one space between words; nothing but printable ASCII
            if not w:
                raise BadRequest("one space between words")
            for ch in w:
                if not "!" <= ch <= "~":
                    raise BadRequest("a byte that is not printable ASCII")
        self.ctr = 0
        self.tag = ""
        self.signed = body
        n = len(words)
        if n >= 3 and words[-2][0] == "~":
            c = words[-2][1:]
            t = words[-1]
            if not c.isdigit() or len(c) > CTR_DIGITS or len(t) != TAG_HEX:
                raise TagForm("a tagged request ends in ~CTR TAG (docs/security.md)")
            self.ctr = int(c)
            if self.ctr < 1:
                raise TagForm("the counter starts at 1")
            self.tag = t
            self.signed = body[: len(body) - TAG_HEX - 1]
            n -= 2
        for i in range(1, n):
            if words[i][0] == "~":
                raise TagForm("a tagged request ends in ~CTR TAG (docs/security.md)")
        if n < 2:
            raise TagForm("no command before the tag") if self.ctr else BadRequest("no command")
        self.verb = words[1]
        self.args = words[2:n]
        return self


class Encoder:
    """Event frames written into one buffer: ``event(...)`` returns the length."""

    SIZE = 128  # the longest event frame is about 90 bytes

    def __init__(self, names):
        self.buf = bytearray(self.SIZE)
        self.names = tuple(n.encode() for n in names)
        self._n = 0

    def _int(self, v):
        buf = self.buf
        i = self._n
        if v < 0:
            buf[i] = 45  # -
            i += 1
            v = -v
        p = 1
        while p * 10 <= v:
            p *= 10
        while p:
            buf[i] = 48 + v // p % 10
            i += 1
            p //= 10
        buf[i] = 32
        self._n = i + 1

    def event(self, seq, t, kind, side, arg, left0, left1):
        buf = self.buf
        buf[0] = SOF
        buf[1] = 101  # e
        buf[2] = 32
        self._n = 3
        self._int(seq)
        self._int(t)
        i = self._n
        for b in self.names[kind]:
            buf[i] = b
            i += 1
        buf[i] = 32
        self._n = i + 1
        self._int(side)
        self._int(arg)
        self._int(left0)
        self._int(left1)
        i = self._n - 1  # over the last space
        c = crc16(buf, 1, i)
        buf[i] = SEP
        buf[i + 1] = HEX[c >> 12]
        buf[i + 2] = HEX[(c >> 8) & 15]
        buf[i + 3] = HEX[(c >> 4) & 15]
        buf[i + 4] = HEX[c & 15]
        buf[i + 5] = CR
        buf[i + 6] = LF
        return i + 7


class EventLog:
    """The last ``SIZE`` events, by sequence number (1, 2, ...)."""

    SIZE = 256  # a reconnecting host gets back this many; 5 KB of RAM

    def __init__(self, first=1):
        n = self.SIZE
        self.kind = bytearray(n)
        self.side = array("b", bytes(n))  # -1: none
        self.t = array("i", bytes(4 * n))  # ms: 24 days fit
        self.arg = array("i", bytes(4 * n))
        self.left0 = array("i", bytes(4 * n))
        self.left1 = array("i", bytes(4 * n))
        self.last = first - 1  # the last sequence number given out
        self.first = first  # the first this boot gives out

    def add(self, kind, side, t, arg, left0, left1):
        self.last += 1
        i = self.last % self.SIZE
        self.kind[i] = kind
        self.side[i] = side
        self.t[i] = t
        self.arg[i] = arg
        self.left0[i] = left0
        self.left1[i] = left1
        return self.last

    def oldest(self):
        """The oldest sequence number still kept."""
        o = self.last - self.SIZE + 1
        return o if o > self.first else self.first

    def encode(self, enc, seq):
        """Frame event ``seq`` (kept) with ``enc``; returns the length."""
        i = seq % self.SIZE
        return enc.event(
            seq, self.t[i], self.kind[i], self.side[i], self.arg[i], self.left0[i], self.left1[i]
        )
