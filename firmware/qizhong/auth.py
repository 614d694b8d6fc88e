# SPDX-License-Identifier: GPL-3.0-or-later
"""Arbiter authentication: only a paired host changes the clock (docs/security.md).

HMAC-SHA256 per RFC 2104 over ``hashlib.sha256`` (MicroPython has no hmac
module). A request that changes the clock carries a counter and a tag::

    17 penalty 1 60000 ~42 3b1f...        (32 hex digits)

TAG is the first ``TAG_HEX`` hex digits (128 bits, lower case) of
HMAC-SHA256(KEY, "17 penalty 1 60000 ~42"): the request ID, verb and
arguments and the counter, as sent. The clock runs it only if CTR is above
the last counter it accepted. Read-only queries (``is_open``) need no tag.
``proto.Request`` parses a body once; ``Guard.check`` judges that parse, and
the app runs the same parse (#12: ``mem  hold`` with two spaces is no query).

Pairing sets KEY. The arbiter presses ok three times at the clock (not while
it runs); both displays show a random 16-character code (80 bits, Crockford
base32). The host derives KEY = HMAC-SHA256(CODE, "qizhong pair " + BOARD_ID)
from the code the arbiter types and proves it with a tagged ``pair``
request. The code never travels over the serial line.

``Guard`` holds the key and the counter; the app asks it about every request
(``open``) and every arbiter key (``key_in``). Persisting them is the
journal's part: ``save``/``load`` and the ``on_change`` hook.
"""

import hashlib
import os

from .proto import CTR_DIGITS, TAG_HEX  # noqa: F401 - the tag's form, parsed in proto

CODE_LEN = 16  # pairing code: 16 base32 characters, 80 bits
ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford base32: no I, L, O, U
OPEN = ("hello", "status", "since", "time", "tc", "mem", "journal")  # queries anyone may send
PAIR_TEXT = b"qizhong pair "

_BLOCK = 64  # SHA-256's block size


class AuthError(Exception):
    """A request refused for want of authentication (the reply ``err auth ...``)."""


def _pads(key):
    if len(key) > _BLOCK:
        key = hashlib.sha256(key).digest()
    ipad = bytearray(_BLOCK)
    opad = bytearray(_BLOCK)
    for i in range(_BLOCK):
        b = key[i] if i < len(key) else 0
        ipad[i] = b ^ 0x36
        opad[i] = b ^ 0x5C
    return ipad, opad


def hmac_sha256(key, msg):
    """HMAC-SHA256 (RFC 2104) of bytes ``msg`` under bytes ``key``."""
    ipad, opad = _pads(key)
    inner = hashlib.sha256(ipad)
    inner.update(msg)
    outer = hashlib.sha256(opad)
    outer.update(inner.digest())
    return outer.digest()


def tag(key, text):
    """The tag of a request's text (``ID VERB ARGS ~CTR``)."""
    return hmac_sha256(key, text.encode()).hex()[:TAG_HEX]


def derive_key(code, board_id):
    """The key both ends derive from the pairing code shown on the clock."""
    return hmac_sha256(code.encode(), PAIR_TEXT + board_id.encode())


def new_code(rand=None):
    """A fresh pairing code from 80 random bits (``os.urandom``)."""
    n = int.from_bytes((rand or os.urandom)(CODE_LEN * 5 // 8), "big")
    out = ""
    for _ in range(CODE_LEN):
        out += ALPHABET[n & 31]
        n >>= 5
    return out


def equal(a, b):
    """Compare two strings in time independent of where they differ."""
    if len(a) != len(b):
        return False
    d = 0
    for i in range(len(a)):
        d |= ord(a[i]) ^ ord(b[i])
    return d == 0


def is_open(verb, args):
    """True for the read-only queries, which need no tag: their verbs, and
    for ``mem`` only ``mem`` and ``mem collect``, for ``voice`` only ``voice``.
    Anything else, unknown verbs and forms included, is a change (#12:
    decided on the one parse).
    ``args``: the request's words, or (for the host's link) their text."""
    if isinstance(args, str):
        args = args.split(" ") if args else []
    if verb == "mem":
        return not args or (len(args) == 1 and args[0] == "collect")
    if verb == "voice":  # docs/voice.md: without words it only asks
        return not args
    return verb in OPEN


class Guard:
    """The clock's key, its counter and the pairing step."""

    PAIR_MS = 120000  # the code stays up this long
    PAIR_TRIES = 5  # wrong codes before the pairing step ends
    OK_PRESSES = 3  # ok pressed this often ...
    OK_WINDOW_MS = 2000  # ... within this long starts pairing

    def __init__(self, board_id, rand=None):
        self.board_id = board_id
        self.rand = rand  # random bytes (n) -> bytes; default os.urandom
        self.key = None  # bytes once paired
        self.ctr = 0  # the last counter accepted
        self.fails = 0  # requests refused for authentication since boot
        self.authed = False  # the last request came with a valid tag
        self.code = ""  # while pairing: the code on the displays
        self.until = -1  # ... until then
        self.tries = 0
        self._pending = b""  # the key the code gives
        self._oks = [-1] * (self.OK_PRESSES - 1)  # the last ok presses
        self.on_change = None  # called after the key or counter changed (for a journal)

    # -- persistence (the journal's hook) ------------------------------------------

    def save(self):
        """The key and counter as text (``HEXKEY CTR``), "" when unpaired."""
        return "" if self.key is None else "%s %d" % (self.key.hex(), self.ctr)

    def load(self, text):
        """Restore what ``save`` gave (after a reboot)."""
        words = text.split()
        if len(words) == 2:
            self.key = bytes.fromhex(words[0])
            self.ctr = int(words[1])
        else:
            self.key = None
            self.ctr = 0

    def _changed(self):
        if self.on_change is not None:
            self.on_change()

    def unpair(self):
        self.key = None
        self.ctr = 0
        self._changed()

    # -- the pairing step ----------------------------------------------------------

    def pairing(self, now):
        """True while the code is up (it ends by itself at ``until``)."""
        if self.code and now >= self.until:
            self.cancel()
        return self.code != ""

    def deadline(self):
        return self.until if self.code else -1

    def rebase(self, d):
        """The time origin moved ``d`` ms later (App.rebase)."""
        if self.until >= 0:
            self.until -= d
        oks = self._oks
        for i in range(len(oks)):
            if oks[i] >= 0:
                oks[i] = max(0, oks[i] - d)

    def cancel(self):
        self.code = ""
        self.until = -1
        self._pending = b""

    def key_in(self, is_ok, t, blocked):
        """An arbiter key at ``t``; True when pairing took it. Any key ends the
        pairing step; ok pressed OK_PRESSES times within OK_WINDOW_MS starts it
        unless ``blocked`` (the clock runs, or the setup menu is open)."""
        oks = self._oks
        if self.pairing(t):
            self.cancel()
            return True
        if not is_ok or blocked:
            for i in range(len(oks)):
                oks[i] = -1
            return False
        first = oks[0]
        for i in range(len(oks) - 1):
            oks[i] = oks[i + 1]
        oks[-1] = t
        if first < 0 or t - first > self.OK_WINDOW_MS:
            return False
        for i in range(len(oks)):
            oks[i] = -1
        self.code = new_code(self.rand)
        self._pending = derive_key(self.code, self.board_id)
        self.until = t + self.PAIR_MS
        self.tries = 0
        return True

    def draw(self, fb):
        """The pairing screen: the code in four groups, on 8-px text rows."""
        c = self.code
        fb.fill(0)
        fb.text("PAIRING CODE", 16, 8, 1)
        fb.text(c[0:4] + " " + c[4:8], 24, 24, 1)
        fb.text(c[8:12] + " " + c[12:16], 24, 40, 1)
        fb.text("key: cancel", 16, 56, 1)

    # -- requests ------------------------------------------------------------------

    def check(self, req, now):
        """Return if the parsed request ``req`` (``proto.Request``) may run;
        else raise AuthError.

        Untagged: runs on an unpaired clock, and on a paired one only if it is
        a query. Tagged: the tag must match (the pairing code's key for
        ``pair``, else the paired key) and the counter be above the last one;
        the counter is then taken, whatever the command's own outcome. The
        verb and arguments judged here are the ones the app runs."""
        self.authed = False
        verb = req.verb
        if not req.ctr:
            if verb == "pair":
                raise AuthError("code: pair carries a tag made with the code on the display")
            if self.key is not None and not is_open(verb, req.args):
                self.fails += 1
                raise AuthError("required: the clock is paired; changes need a tag")
            return
        ctr = req.ctr
        if verb == "pair":
            if not self.pairing(now):
                raise AuthError("pairing is off: press ok three times on the clock")
            key = self._pending
        else:
            if self.key is None:
                raise AuthError("unpaired: the clock has no key; pair it (qizhong pair)")
            key = self.key
            if ctr <= self.ctr:
                self.fails += 1
                raise AuthError("replay: counter %d is not above %d" % (ctr, self.ctr))
        if not equal(req.tag, tag(key, req.signed)):
            self.fails += 1
            if verb == "pair":
                self.tries += 1
                if self.tries >= self.PAIR_TRIES:
                    self.cancel()
                raise AuthError("code: the tag does not match the code on the display")
            raise AuthError("tag: wrong tag")
        if verb == "pair":
            self.key = key
            self.cancel()
        self.ctr = ctr
        self.authed = True
        self._changed()
