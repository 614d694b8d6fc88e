# SPDX-License-Identifier: GPL-3.0-or-later
"""The power-loss journal: the clock's committed state on flash (docs/journal.md).

One record holds everything the clock needs to come back after a power cut or
a watchdog reset: the time control (its spec text), both sides' committed
time, moves, periods, Canadian block and stage, the state and the side to
move, the left lever (EQ-1), volume and mute, the crystal trim, the arbiter's
key and counter (``auth.Guard.save``), and the event numbering. Records go to
two files, ``j0`` and ``j1``, in turn; each carries a generation number and a
CRC-32, so a cut at any instant leaves the newer or the older one whole. (On
littlefs a file's new contents are committed atomically anyway; the slots
and the CRC guard against everything else.)

Commit points (``event``): every clock or app event except voice cues, wrong
presses and held levers; the change of the arbiter's counter; and while a
side runs, every ``PERIOD_MS`` (``tick``, ``deadline``). The app commits
before it sends the events of a step, so the host never hears of a change
that a cut could undo.

What a cut loses: the time a running side used since the last commit, at
most ``PERIOD_MS`` and never more than the move in progress (a press
commits). The clock comes back paused, the side to move unchanged; the
arbiter resumes it.

Event numbers continue across reboots: each record reserves the next
``RESERVE`` numbers (``seq_hi``), a commit is forced before one beyond them
goes out, and after a reboot numbering resumes above the reservation. So a
number is never given to two events; the host sees a gap, at most RESERVE
long, that ``since`` reports as not kept. The boot event's arg is the last
number the restored record had given out.

``save`` allocates nothing unless the time control or the key changed since
the last record (then the buffer is rebuilt); ``decode`` is for boot and for
tests.
"""

import struct

from . import clock as C
from . import tcspec, voice

try:
    from time import ticks_diff, ticks_us
except ImportError:  # CPython: the same figures from time_ns
    from time import time_ns

    def ticks_us():  # type: ignore[misc]
        return time_ns() // 1000

    def ticks_diff(a, b):  # type: ignore[misc,no-redef]
        return a - b


MAGIC = 0x314A5A51  # b"QZJ1", little-endian
VERSION = 1  # bump when the layout changes: an old record is then ignored

# Layout, little-endian, no padding. HEAD: magic, gen, version, size, CRC-32.
HEAD = "<IIHH4s"
CRC_AT = 12  # the CRC's offset; it is zero while the CRC is computed
# CORE: state, run, first_flag, knocker, result, left_side, volume, muted,
# boots, el, saved, seq, seq_hi, trim, spec length, auth length. The muted
# byte also holds the voice: bit 0 muted, bit 1 the count (voice.STYLES),
# bits 2-4 the language (voice.LANGS); a record from before has 0 there (cmn, up).
CORE = "<bbbbbbBBHiiIIhBB"
# SIDE: main, mu, oc, bank, moves, smoves, periods, left, stage, cue, flags.
SIDE = "<iiiiHHHHBBB"
SIDE_FIELDS = (
    "main", "mu", "oc", "bank", "moves", "smoves", "periods", "left", "stage", "cue",
    "ot", "flagged", "recorded", "warned",
)  # fmt: skip
CORE_AT = struct.calcsize(HEAD)
SIDE_AT = CORE_AT + struct.calcsize(CORE)
SIDE_SIZE = struct.calcsize(SIDE)
FIXED = SIDE_AT + 2 * SIDE_SIZE  # then the spec and the auth text

F_OT = 1
F_FLAGGED = 2
F_RECORDED = 4
F_WARNED = 8  # TC-15
# Events that do not commit: voice cues, wrong presses, held levers.
SKIP = (1 << C.EV_CUE) | (1 << C.EV_WRONG) | (1 << C.EV_HELD)

ZERO4 = bytes(4)
SAVED_MASK = 0x3FFFFFFF  # "saved" is informative; kept to a small int


def _crc_tables():
    lo = [0] * 256
    hi = [0] * 256
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
        lo[i] = c & 0xFFFF
        hi[i] = c >> 16
    return tuple(lo), tuple(hi)


# CRC-32 (IEEE, as zlib's) in 16-bit halves: small ints only, so nothing is
# allocated on MicroPython (rp2 has no binascii.crc32).
_TLO, _THI = _crc_tables()


def crc_into(buf, n, out, at):
    """Write the CRC-32 of ``buf[:n]`` into ``out[at:at + 4]``, little-endian."""
    lo = 0xFFFF
    hi = 0xFFFF
    tl = _TLO
    th = _THI
    for i in range(n):
        x = (lo ^ buf[i]) & 0xFF
        lo = ((lo >> 8) | ((hi & 0xFF) << 8)) ^ tl[x]
        hi = (hi >> 8) ^ th[x]
    lo ^= 0xFFFF
    hi ^= 0xFFFF
    out[at] = lo & 0xFF
    out[at + 1] = lo >> 8
    out[at + 2] = hi & 0xFF
    out[at + 3] = hi >> 8


def crc32(data):
    """CRC-32 of ``data``, as zlib.crc32 gives it (for tests and tools)."""
    out = bytearray(4)
    crc_into(data, len(data), out, 0)
    return out[0] | out[1] << 8 | out[2] << 16 | out[3] << 24


class Record:
    """One decoded record (``decode``). ``sides`` holds two tuples in SIDE order."""

    def __init__(self):
        self.gen = 0
        self.state = C.IDLE
        self.run = -1
        self.first_flag = -1
        self.knocker = -1
        self.result = -1
        self.left_side = 0
        self.volume = 10
        self.muted = False
        self.voice = 0  # language * 2 + style
        self.boots = 0
        self.el = 0  # ms the running side had used since its segment start
        self.saved = 0  # the instant the record stands for (its boot's ms)
        self.seq = 0  # the last event number given out
        self.seq_hi = 0  # numbers reserved up to here
        self.trim = 0
        self.sides = ((), ())
        self.spec = ""
        self.auth = ""


def decode(data):
    """The Record in ``data`` (one slot file's bytes), or None if it is not a
    whole, current record."""
    n = len(data)
    if n < FIXED:
        return None
    magic, gen, version, size, crc = struct.unpack_from(HEAD, data, 0)
    if magic != MAGIC or version != VERSION or not FIXED <= size <= n:
        return None
    body = bytearray(data[:size])
    for i in range(CRC_AT, CRC_AT + 4):
        body[i] = 0
    check = bytearray(4)
    crc_into(body, size, check, 0)
    if check != crc:
        return None
    v = struct.unpack_from(CORE, body, CORE_AT)
    if FIXED + v[14] + v[15] != size:
        return None
    r = Record()
    r.gen = gen
    r.state, r.run, r.first_flag, r.knocker, r.result, r.left_side = v[0:6]
    r.volume, r.muted, r.boots, r.el, r.saved, r.seq, r.seq_hi, r.trim = v[6:14]
    r.voice = r.muted >> 1
    r.muted = bool(r.muted & 1)
    r.sides = (
        struct.unpack_from(SIDE, body, SIDE_AT),
        struct.unpack_from(SIDE, body, SIDE_AT + SIDE_SIZE),
    )
    try:
        r.spec = bytes(body[FIXED : FIXED + v[14]]).decode()
        r.auth = bytes(body[FIXED + v[14] : size]).decode()
    except UnicodeError:
        return None
    return r


class Journal:
    """The journal in ``folder`` (created if missing). ``fs``: an object with
    ``open(path, mode)`` and ``mkdir(path)`` (a ``VfsLfs2``); default the
    mounted filesystem."""

    PERIOD_MS = 10000  # a running side's time is committed at least this often
    RESERVE = 32  # event numbers reserved by each record
    SLOTS = ("j0", "j1")

    def __init__(self, folder, fs=None):
        self.folder = folder
        self._fs = fs
        self.files = [None, None]  # type: list
        self.gen = 0  # the generation of the last record written or read
        self.seq_hi = 0  # event numbers reserved up to here
        self.saved = 0  # when the last record was written (this boot's ms)
        self.dirty = False  # an event since the last record
        self.boots = 0  # restores of this game's journal
        self.restored = None  # the Record restored at boot
        self.commits = 0
        self.errors = 0  # commits that failed (the clock runs on)
        self.error = ""
        self.us_last = 0  # the last commit's duration, and the worst, in us
        self.us_max = 0
        self.us_total = 0
        self.buf = bytearray(FIXED)
        self._tc = None  # the time control whose spec is in buf
        self._auth_stale = True
        self._nspec = 0
        self._nauth = 0

    # -- the slot files --------------------------------------------------------

    def _open(self, path, mode):
        return self._fs.open(path, mode) if self._fs is not None else open(path, mode)

    def open(self):
        """Open (or create) the slot files; return the newest whole Record, or None."""
        try:
            if self._fs is not None:
                self._fs.mkdir(self.folder)
            else:
                import os

                os.mkdir(self.folder)
        except OSError:
            pass  # it is there already
        best = None
        for i in (0, 1):
            path = self.folder + "/" + self.SLOTS[i]
            try:
                f = self._open(path, "r+b")
            except OSError:
                f = self._open(path, "wb")  # a fresh slot: empty, so not a record
                f.close()
                f = self._open(path, "r+b")
            self.files[i] = f
            r = decode(f.read())
            if r is not None and (best is None or r.gen > best.gen):
                best = r
        if best is not None:
            self.gen = best.gen
            self.seq_hi = best.seq_hi
        return best

    def close(self):
        for f in self.files:
            if f is not None:
                f.close()
        self.files = [None, None]

    # -- the app's hooks -------------------------------------------------------

    def start(self, app):
        """At boot: open, restore the newest record into ``app`` (paused if it
        ran) and hook the arbiter's counter. Returns the restored record's
        last event number (0: nothing restored)."""
        r = self.open()
        app.auth.on_change = self.auth_changed
        if r is None:
            return 0
        try:
            restore(r, app)  # checks before it changes anything
        except (ValueError, IndexError) as e:  # a record this firmware cannot use
            self.error = "restore: %s" % e
        else:
            self.restored = r
            self.boots = r.boots + 1
        app.log.last = r.seq_hi  # numbering resumes above the reservation
        app.log.first = r.seq_hi + 1
        return r.seq

    def auth_changed(self):
        self._auth_stale = True
        self.dirty = True

    def event(self, kind):
        """An event went into the log: most kinds are commit points."""
        if not (SKIP >> kind) & 1:
            self.dirty = True

    def tick(self, app, now):
        """Commit a running side's time every PERIOD_MS."""
        c = app.clock
        if c.state == C.RUNNING and now - self.saved >= self.PERIOD_MS:
            self.save(app)

    def rebase(self, d):
        """The time origin moved ``d`` ms later (App.rebase)."""
        self.saved -= d

    def deadline(self, app, d):
        """``d``, or the next periodic commit if that is sooner."""
        if app.clock.state != C.RUNNING:
            return d
        p = self.saved + self.PERIOD_MS
        return p if d < 0 or p < d else d

    # -- writing ---------------------------------------------------------------

    def _rebuild(self, app):
        # The time control or the key changed: a new buffer (allocates).
        c = app.clock
        spec = tcspec.format(c.tc).encode()
        auth = app.auth.save().encode()
        buf = bytearray(FIXED + len(spec) + len(auth))
        buf[FIXED : FIXED + len(spec)] = spec
        buf[FIXED + len(spec) :] = auth
        self.buf = buf
        self._nspec = len(spec)
        self._nauth = len(auth)
        self._tc = c.tc
        self._auth_stale = False

    def save(self, app):
        """Write the app's state as the next generation, in the other slot."""
        start = ticks_us()
        c = app.clock
        if c.tc is not self._tc or self._auth_stale:
            self._rebuild(app)
        buf = self.buf
        t = c.now if c.now > c.t0 else c.t0  # the instant this record stands for
        el = t - c.t0 if c.state == C.RUNNING and c.run >= 0 else 0
        self.gen += 1
        seq = app.log.last
        self.seq_hi = seq + self.RESERVE
        size = len(buf)
        struct.pack_into(HEAD, buf, 0, MAGIC, self.gen, VERSION, size, ZERO4)
        struct.pack_into(
            CORE,
            buf,
            CORE_AT,
            c.state,
            c.run,
            c.first_flag,
            c.knocker,
            c.result,
            c.left_side,
            app.volume,
            (1 if app.muted else 0) | voice.style << 1 | voice.lang << 2,
            self.boots,
            el,
            t & SAVED_MASK,
            seq,
            self.seq_hi,
            app.trim,
            self._nspec,
            self._nauth,
        )
        at = SIDE_AT
        for s in c.sides:
            flags = (F_OT if s.ot else 0) | (F_FLAGGED if s.flagged else 0)
            if s.recorded:
                flags |= F_RECORDED
            if s.warned:
                flags |= F_WARNED
            struct.pack_into(
                SIDE,
                buf,
                at,
                s.main,
                s.mu,
                s.oc,
                s.bank,
                s.moves,
                s.smoves,
                s.periods,
                s.left,
                s.stage,
                s.cue,
                flags,
            )
            at += SIDE_SIZE
        crc_into(buf, size, buf, CRC_AT)
        f = self.files[self.gen & 1]
        try:
            f.seek(0)
            f.write(buf)
            f.flush()  # littlefs: the file's new contents are committed here
        except OSError as e:
            self.errors += 1
            self.error = "commit: %s" % e
        self.saved = t
        self.dirty = False
        self.commits += 1
        us = ticks_diff(ticks_us(), start)
        self.us_last = us
        self.us_total += us
        if us > self.us_max:
            self.us_max = us

    def report(self, app):
        """The ``journal`` query's reply fields."""
        r = self.restored
        text = "gen=%d saved=%d commits=%d errors=%d us=%d,%d,%d boots=%d period=%d reserve=%d" % (
            self.gen,
            self.saved,
            self.commits,
            self.errors,
            self.us_last,
            self.us_max,
            self.us_total,
            self.boots,
            self.PERIOD_MS,
            self.RESERVE,
        )
        if r is None:
            text += " restored=none"
        else:
            text += " restored=%d,%d,%d,%d" % (r.gen, r.saved, r.el, r.seq)
        stats = getattr(app.board, "flash_stats", None)
        if stats is not None:
            text += " flash=" + stats()
        if self.error:
            text += " error=" + self.error[:24].replace(" ", "_")  # the reply fits a frame
        return text


def restore(r, app):
    """Put Record ``r`` into ``app`` at boot: the clock paused if it ran."""
    c = app.clock
    tc = tcspec.parse(r.spec)
    if not C.IDLE <= r.state <= C.FINISHED or not -1 <= r.run <= 1:
        raise ValueError("state %d run %d" % (r.state, r.run))
    for v in r.sides:
        if v[8] >= len(tc.stages):
            raise ValueError("stage %d of %d" % (v[8], len(tc.stages)))
        # #12: the ranges of docs/protocol.md, checked at this edge too
        if not 0 <= v[0] <= C.MAX_MS or v[3] > C.MAX_MS or v[4] > C.MAX_MOVES:
            raise ValueError("a side's time or moves out of range")
        if v[6] > C.MAX_PERIODS:
            raise ValueError("periods %d" % v[6])
    if not 0 <= r.volume <= 10 or not -1000 <= r.trim <= 1000:
        raise ValueError("volume %d trim %d" % (r.volume, r.trim))
    if r.voice >= 2 * len(voice.LANGS):
        raise ValueError("voice %d" % r.voice)
    if r.voice != voice.lang * 2 + voice.style:
        voice.use(r.voice >> 1, r.voice & 1)
        if tc.overtime is not None:
            tc.overtime.retable()
        app.board.set_voice(voice.LANGS[voice.lang])
    now = c.now
    c.configure(tc, now)  # idle at boot: a reset under the recorded control
    for i in (0, 1):
        s = c.sides[i]
        v = r.sides[i]
        s.main, s.mu, s.oc, s.bank, s.moves, s.smoves, s.periods, s.left = v[0:8]
        s.stage, s.cue = v[8], v[9]
        s.ot = bool(v[10] & F_OT)
        s.flagged = bool(v[10] & F_FLAGGED)
        s.recorded = bool(v[10] & F_RECORDED)
        s.warned = bool(v[10] & F_WARNED)
    c.left_side = r.left_side
    c.first_flag = r.first_flag
    c.knocker = r.knocker
    c.result = r.result
    c.run = r.run
    if r.state == C.RUNNING and r.run >= 0:
        # Charge what the running side had used at the record's instant, as
        # the clock's own commit would, then stop: it comes back paused.
        c.state = C.RUNNING
        c.t0 = now - r.el
        c._commit(now)
        c.state = C.PAUSED
    else:
        c.state = r.state
    c.t0 = now
    if (r.volume, r.muted) != (app.volume, app.muted):
        app.volume = r.volume
        app.muted = r.muted
        app.board.set_volume(0 if r.muted else r.volume)
    if r.trim != app.trim:
        app.trim = r.trim
        app.board.set_trim(r.trim)
    if r.auth:
        app.auth.load(r.auth)
