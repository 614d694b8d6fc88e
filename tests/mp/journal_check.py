# SPDX-License-Identifier: GPL-3.0-or-later
"""The power-loss journal on MicroPython, over littlefs (#8, docs/journal.md).

    micropython tests/mp/journal_check.py [FAKE_DIR]

The real App, Clock, EventLog and journal write to a littlefs (``VfsLfs2``)
on ``boards.flashfile.Flash``, the simulated NOR chip. The board under the
App is a bench stand-in for the hardware (framebuffers, volume, trim). Checks:
a record round-trips and the restored clock plays on exactly as the original;
a commit torn at every byte it writes leaves the old or the new record, never
a corrupt one; a commit allocates nothing; the Pico's watchdog (against a fake
``machine`` written to FAKE_DIR). Prints "journal: N passed, M failed" and
the timings; exit 1 on failure.
"""

import os
import sys
import time

import framebuf
import micropython
import vfs

import _path

_path.setup(__file__)
sys.path.insert(0, _path.__file__.rsplit("/", 1)[0] + "/../../firmware")

from boards import flashfile  # noqa: E402

from qizhong import app as A  # noqa: E402
from qizhong import clock as C  # noqa: E402
from qizhong import journal as J  # noqa: E402
from qizhong import tcspec  # noqa: E402

SIDE_FIELDS = (
    "main", "mu", "moves", "stage", "smoves", "ot", "oc", "periods", "bank", "left", "cue",
    "flagged", "recorded",
)  # fmt: skip


class Rng:
    """A small deterministic generator (MicroPython's random has no Random)."""

    def __init__(self, seed):
        self.x = (seed * 2654435761 + 1) & 0xFFFFFFFF or 1

    def next(self):
        x = self.x
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self.x = x
        return x

    def randrange(self, n):
        return self.next() % n

    def random(self):
        return (self.next() & 0xFFFFFF) / 16777216

    def choice(self, seq):
        return seq[self.randrange(len(seq))]


class Bench:
    """The hardware under the App: what a board gives the app, no more."""

    NAME = "bench"

    def __init__(self):
        self.left_side = 0
        self.board_id = "bench"
        self.fb_buf = (bytearray(1024), bytearray(1024))
        self.fb = tuple(framebuf.FrameBuffer(b, 128, 64, framebuf.MONO_VLSB) for b in self.fb_buf)
        self.volume = -1
        self.trim = 0
        self.sent = 0

    def boot_id(self):
        return "bench"

    def set_volume(self, v):
        self.volume = v

    def set_trim(self, ppm):
        self.trim = ppm

    def say(self, cue, t):
        pass

    def beep(self, on, t):
        pass

    def write_n(self, buf, n):
        self.sent += 1


def fresh_fs(blocks=8):
    flash = flashfile.Flash(None, blocks)
    vfs.VfsLfs2.mkfs(flash, progsize=flashfile.PROG)
    return flash, vfs.VfsLfs2(flash, progsize=flashfile.PROG)


def new_app(spec, fs):
    app = A.App(Bench(), tcspec.parse(spec))
    app.journal = J.Journal("/state", fs)
    app.journal.start(app)
    return app


def side_state(c):
    return tuple(tuple(getattr(s, f) for f in SIDE_FIELDS) for s in c.sides)


def clock_state(c):
    return (
        c.state, c.run, c.first_flag, c.knocker, c.result, c.left_side, tcspec.format(c.tc),
        side_state(c),
    )  # fmt: skip


def play(app, rng, t, n):
    """n random steps: presses by the side to move (sometimes the wrong one),
    time passing, a few arbiter actions. Returns the time."""
    c = app.clock
    for _ in range(n):
        t += rng.choice((150, 900, 2500, 7000, 13000, 31000))
        c.tick(t)
        app.drain()
        r = rng.random()
        try:
            if c.state == C.IDLE:
                c.start(t, rng.randrange(2))
            elif c.state == C.PAUSED or c.state == C.KNOCKED:
                if c.state == C.KNOCKED and c.knocker < 0:
                    c.assign_knock(rng.randrange(2), t)
                c.resume(t)
            elif r < 0.8:
                c.press(c.run if rng.random() < 0.95 else 1 - c.run, t)
            elif r < 0.85:
                c.pause(t)
            elif r < 0.9:
                c.adjust(rng.randrange(2), rng.choice((-60000, 30000)), t)
            elif r < 0.93:
                c.knock(t)
        except C.ClockError:
            pass
        app.drain()
        t += 80
        for i in (0, 1):  # the hand comes off the lever
            if c.down[i] >= 0:
                c.release(i, t)
        app.drain()
    return t


SPECS = (
    "15m+10s",
    "2/1m+10s:30s+10s",
    "1m count 10s",
    "30s byoyomi 3x20s",
    "1m canadian 3/30s",
    "1m bronstein 3s",
    "1m delay 3s",
    "1m hourglass",
    "10m+5s red -40% record 5m flag run",
)


def check_round_trip_and_play_on():
    # Each record restores to the clock the original had at that instant; both
    # paused there then play on identically (the journal loses nothing else).
    rng = Rng(1)
    for spec in SPECS:
        for k in range(6):
            _, fs = fresh_fs()
            a = new_app(spec, fs)
            a.volume, a.muted, a.trim = 7, k % 2 == 1, -12
            a.clock.left_side = k % 2
            play(a, rng, 0, 5 + 7 * k)
            a.journal.save(a)
            t_rec = a.journal.saved
            seq_hi = a.journal.seq_hi
            gen = a.journal.gen
            a.journal.close()  # the power goes; a plays on without its journal
            a.journal = None
            b = new_app("xq-rapid", fs)  # a reboot onto the same filesystem
            assert b.journal.restored is not None, (spec, b.journal.error)
            assert b.journal.restored.gen == gen, spec
            ca, cb = a.clock, b.clock
            if ca.state == C.RUNNING:
                ca.pause(t_rec)
                a.drain()
            assert clock_state(ca) == clock_state(cb), (spec, clock_state(ca), clock_state(cb))
            assert (b.volume, b.muted, b.trim) == (7, k % 2 == 1, -12)
            assert b.board.trim == -12 and b.board.volume == (0 if k % 2 else 7)
            assert b.log.last == seq_hi and b.log.first == seq_hi + 1
            # play on from the same paused instant, same inputs
            outs = []
            for app, t0 in ((a, t_rec), (b, 0)):
                r2 = Rng(k)
                seen = []
                c = app.clock
                shift = t0
                for _ in range(12):
                    shift += r2.choice((400, 3000, 9000, 21000))
                    c.tick(shift)
                    while c.pop_event():
                        seen.append((c.ev_side, c.ev_t - t0, c.ev_arg))
                    try:
                        if c.state in (C.PAUSED, C.KNOCKED):
                            c.resume(shift)
                        elif c.state == C.RUNNING:
                            c.press(c.run, shift)
                    except C.ClockError:
                        pass
                    while True:
                        kind = c.pop_event()
                        if not kind:
                            break
                        seen.append((kind, c.ev_side, c.ev_t - t0, c.ev_arg))
                    seen.append((c.left(0, shift), c.left(1, shift)))
                outs.append(seen)
            assert outs[0] == outs[1], spec
            b.journal.close()
    return True


def check_reserve_forces_a_commit():
    # Events that do not commit (cues, wrong presses) may not outrun the reservation.
    _, fs = fresh_fs()
    a = new_app("10m", fs)
    c = a.clock
    c.start(0, 0)
    a.drain()
    g = a.journal.gen
    for i in range(J.Journal.RESERVE + 5):
        c.press(1, 10 + i)  # not its turn: a "wrong" event each
        a.drain()
        assert a.log.last <= a.journal.seq_hi
    assert a.journal.gen == g + 1, (g, a.journal.gen)
    a.journal.close()
    return True


def writes(flash):
    return flash.prog_bytes + flash.erases * flash.block


def tear_every_byte(image, app, gen0, label):
    """Commit ``app``'s state onto a copy of ``image`` (holding record gen0),
    cut at every byte it writes; each copy must hold gen0 or gen0 + 1, whole."""
    f = flashfile.Flash(None, len(image) // flashfile.BLOCK, data=image)
    fs = vfs.VfsLfs2(f, progsize=flashfile.PROG)
    jr = J.Journal("/state", fs)
    old = jr.open()
    assert (old.gen if old else 0) == gen0, (label, old and old.gen, gen0)
    base = writes(f)
    jr.save(app)
    total = writes(f) - base
    new = J.decode(bytes(jr.buf))
    erased = f.erases
    jr.close()
    olds = news = 0
    for k in range(total + 1):
        f = flashfile.Flash(None, len(image) // flashfile.BLOCK, data=image)
        fs = vfs.VfsLfs2(f, progsize=flashfile.PROG)
        jr = J.Journal("/state", fs)
        jr.open()
        f.cut_after(k)
        try:
            jr.save(app)
        except OSError:
            pass
        try:
            jr.close()  # littlefs on a chip that lost power: errors are expected
        except OSError:
            pass
        after = flashfile.Flash(None, len(image) // flashfile.BLOCK, data=f.image())
        jr = J.Journal("/state", vfs.VfsLfs2(after, progsize=flashfile.PROG))
        got = jr.open()
        jr.close()
        if got is None:  # only before the first record: the clock starts afresh
            assert gen0 == 0, (label, k)
        else:
            want = old if got.gen == gen0 else new
            assert got.gen in (gen0, gen0 + 1), (label, k, got.gen)
            assert got.__dict__ == want.__dict__, (label, k)
        if got is None or got.gen == gen0:
            olds += 1
        else:
            news += 1
    assert olds and news, (label, olds, news)  # both outcomes happen
    return total, erased


TEARS = []


def check_torn_commits_leave_old_or_new():
    rng = Rng(5)
    flash, fs = fresh_fs()
    a = new_app("60m byoyomi 3x30s", fs)
    t = 0
    picked = {"first": None, "plain": None, "erase": None}
    n = 0
    while n < 400 and None in picked.values():
        before = flash.image()
        gen0 = a.journal.gen
        e0 = flash.erases
        t = play(a, rng, t, 1)
        if a.journal.gen == gen0:
            continue
        # play() may have committed more than once; tear the last one only
        if a.journal.gen > gen0 + 1:
            continue
        n += 1
        kind = "first" if gen0 == 0 else "erase" if flash.erases > e0 else "plain"
        if picked[kind] is None:
            picked[kind] = (before, gen0)
            total, erased = tear_every_byte(before, a, gen0, kind)
            TEARS.append((kind, total, erased))
    assert None not in picked.values(), picked
    a.journal.close()
    return True


def check_commit_allocates_nothing():
    path = "/tmp/qizhong-journal-check.img"
    try:
        os.remove(path)
    except OSError:
        pass
    f = flashfile.Flash(path, 16)
    vfs.VfsLfs2.mkfs(f, progsize=flashfile.PROG)
    fs = vfs.VfsLfs2(f, progsize=flashfile.PROG)
    a = new_app("20m count 10s", fs)
    c = a.clock
    c.start(0, 0)
    a.drain()  # the first record builds the buffer
    t = 0
    micropython.heap_lock()
    try:
        for _ in range(60):
            t += 4321
            c.press(c.run, t)
            a.drain()  # the press commits
        micropython.heap_unlock()
    except MemoryError:
        micropython.heap_unlock()
        raise AssertionError("a commit allocated")
    finally:
        a.journal.close()
        os.remove(path)
    assert a.journal.commits >= 60
    return True


def timing():
    """us per commit on this machine: the CRC, and a whole save on a RAM chip."""
    _, fs = fresh_fs(64)
    a = new_app("15m+10s", fs)
    jr = a.journal
    jr.save(a)
    n = 2000
    buf = jr.buf
    s = time.ticks_us()
    for _ in range(n):
        J.crc_into(buf, len(buf), buf, J.CRC_AT)
    crc = time.ticks_diff(time.ticks_us(), s) / n
    s = time.ticks_us()
    for _ in range(n):
        jr.save(a)
    whole = time.ticks_diff(time.ticks_us(), s) / n
    jr.close()
    return len(buf), crc, whole


FAKE = '''
"""Fake machine for tests/mp/journal_check.py: just enough to import boards.pico."""
WDTS = []
TIMERS = []


class _Any:
    def __init__(self, *a, **k):
        pass


Pin = I2C = I2S = PWM = ADC = _Any


def disable_irq():
    return 0


def enable_irq(state):
    pass


def unique_id():
    return bytes(8)


class WDT:
    def __init__(self, id=0, timeout=5000):
        self.timeout = timeout
        self.feeds = 0
        WDTS.append(self)

    def feed(self):
        self.feeds += 1


class Timer:
    def __init__(self, id=-1, period=-1, callback=None):
        self.period = period
        self.callback = callback
        TIMERS.append(self)
'''


def check_pico_watchdog():
    d = (sys.argv[1] if len(sys.argv) > 1 else None) or "/tmp/qizhong-journal-fake"
    try:
        os.mkdir(d)
    except OSError:
        pass
    with open(d + "/machine.py", "w") as f:
        f.write(FAKE)
    sys.path.insert(0, d)
    import machine
    from boards import pico

    class Half:  # the watchdog part of a Board (the rest needs pins)
        feed = pico.Pico.feed
        keep_alive = pico.Pico.keep_alive
        _maint_feed = pico.Pico._maint_feed

        def __init__(self):
            self._wdt = None
            self._maint = None
            self._maint_raw = 0
            self.raw = 1000

        def _ticks(self):
            return self.raw

    b = Half()
    b.keep_alive()  # before the watchdog runs: nothing to keep alive
    assert not machine.WDTS and not machine.TIMERS
    for _ in range(3):
        b.feed()
    assert len(machine.WDTS) == 1 and machine.WDTS[0].timeout == pico.WDT_MS == 5000
    assert machine.WDTS[0].feeds == 3
    b.keep_alive()
    (tm,) = machine.TIMERS
    assert 0 < tm.period < pico.WDT_MS
    b.raw += pico.MAINT_MS - 1
    tm.callback(tm)
    assert machine.WDTS[0].feeds == 4
    b.raw += 2  # the maintenance window is over: the watchdog may reset the clock
    tm.callback(tm)
    assert machine.WDTS[0].feeds == 4
    assert pico.STATE_DIR == "/state"
    return True


CHECKS = [
    check_round_trip_and_play_on,
    check_reserve_forces_a_commit,
    check_torn_commits_leave_old_or_new,
    check_commit_allocates_nothing,
    check_pico_watchdog,
]


def main():
    passed = failed = 0
    for check in CHECKS:
        try:
            check()
            passed += 1
        except Exception as e:  # report every check, then fail
            failed += 1
            sys.print_exception(e)
            print("FAIL", check.__name__)
    for kind, total, erased in TEARS:
        print("torn: %s commit, %d bytes, %d erases: every byte checked" % (kind, total, erased))
    size, crc, whole = timing()
    print("commit: %d-byte record, crc %.0f us, save %.0f us (unix, RAM chip)" % (size, crc, whole))
    print("journal: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


main()
