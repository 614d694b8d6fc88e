# SPDX-License-Identifier: GPL-3.0-or-later
"""Both faces on the real framebuf, and draw() under heap_lock.

    micropython tests/mp/face_check.py

Prints, for the tests and the screenshots (tools/screenshots.py):
  font HEX                     the 8x8 text font, chars 32..126, 8 bytes each
  frame LABEL SIDE LOWBAT HEX  a rendered 128x64 MONO_VLSB framebuffer
  face-bytes N                 heap used by one Face
  face-tables N                heap used by the digit tables both faces share
  draw-us N                    mean draw() time on this port, microseconds
then "face: N passed, M failed"; exit 1 on failure.
"""

import gc
import sys
import time
from binascii import hexlify

import framebuf
import micropython

import _path

_path.setup(__file__)

from qizhong import clock, face, tcspec  # noqa: E402

W = 128
H = 64


def new_fb():
    buf = bytearray(W * H // 8)
    return buf, framebuf.FrameBuffer(buf, W, H, framebuf.MONO_VLSB)


def setup(spec, red, black, run, state=clock.RUNNING):
    """A clock loaded (EQ-7) with each side's (main, moves, periods, bank, block)."""
    c = clock.Clock(tcspec.parse(spec))
    for side, v in ((0, red), (1, black)):
        a = [-1] * 5
        a[: len(v)] = v
        c.set_side(side, 0, a[0], a[1], a[2], a[3], a[4])
    c.load(0, run, state)
    return c


def drain(c, t):
    while c.tick(t) == c.EVENTS:
        while c.pop_event():
            pass
    while c.pop_event():
        pass


def running():
    return setup("xq-rapid", (891500, 12), (800400, 12), 0)


def scenarios():
    """(label, clock, t, low_battery): the states of docs/display.md."""
    out = []
    out.append(("idle", clock.Clock(tcspec.parse("xq-rapid")), 0, False))
    out.append(("running", running(), 300, False))
    out.append(("tenths", setup("xq-blitz", (8650, 40), (95000, 40), 0), 300, False))
    out.append(("fide-idle", clock.Clock(tcspec.parse("fide")), 0, False))
    out.append(("hours", setup("fide", (3600400, 10), (4000000, 10), 0), 300, False))
    out.append(("count", setup("xq-count", (0, 60), (125000, 59), 0), 7400, False))
    c = setup("go-byoyomi", (0, 150, 2), (754000, 149), 0)
    out.append(("byoyomi", c, 15300, False))
    c = setup("go-canadian", (1234000, 81), (0, 80, -1, 452500, 5), 1)
    out.append(("canadian", c, 500, False))
    c = setup("xq-rapid", (61000, 30), (3000, 29), 1)
    drain(c, 3000)
    out.append(("flagged", c, 5000, False))
    c = running()
    c.pause(1000)
    out.append(("paused", c, 4000, False))
    c = running()
    c.knock(2000)
    out.append(("knocked", c, 4000, False))
    out.append(("record", setup("xq-rapid", (181000, 35), (300000, 35), 0), 2500, False))
    out.append(("battery", running(), 300, True))
    c = running()
    c.finish(700)
    out.append(("finished", c, 900, False))
    for _, c, t, _ in out:
        drain(c, t)
    return out


def font_hex():
    buf = bytearray(8)
    fb = framebuf.FrameBuffer(buf, 8, 8, framebuf.MONO_VLSB)
    out = []
    for ch in range(32, 127):
        fb.fill(0)
        fb.text(chr(ch), 0, 0, 1)
        out.append(hexlify(buf).decode())
    return "".join(out)


# -- heap-locked play ---------------------------------------------------------------

SPECS = (
    "15m+10s",
    "fide",
    "1m count 10s",
    "10s byoyomi 3x20s",
    "10s canadian 3/30s",
    "1m hourglass",
    "30s flag run",
)
THINK = (2500, 9000, 10400, 500, 6000, 19000)
STEP = 97  # ms between redraws


def play(c, faces, moves):
    t = c.now
    frames = 0
    for i in range(moves):
        side = c.run
        end = t + THINK[i % len(THINK)]
        while t < end:
            d = c.next_deadline()
            t = t + STEP if d < 0 or d > t + STEP else d
            if t > end:
                t = end
            c.tick(t)
            while c.pop_event():
                pass
            faces[0].draw(c, 0, t, False)
            faces[1].draw(c, 1, t, i & 1 == 1)
            frames += 1
        c.press(side, t)
        c.release(side, t)
        while c.pop_event():
            pass
        if c.state != clock.RUNNING:
            faces[0].draw(c, 0, t, False)
            faces[1].draw(c, 1, t, True)
            break
    return frames


def locked(fn, a, b, n):
    # Plain positional calls: ``fn(*args)`` itself would allocate.
    gc.collect()
    before = gc.mem_alloc()
    micropython.heap_lock()
    try:
        r = fn(a, b, n)
        err = None
    except MemoryError as e:
        r = 0
        err = e
    micropython.heap_unlock()
    return err, gc.mem_alloc() - before, r


def draw_all(cases, faces, _):
    for _, c, t, low in cases:
        faces[0].draw(c, 0, t, low)
        faces[1].draw(c, 1, t, not low)
    return len(cases)


def face_bytes(fb):
    # What __init__ keeps (not its scratch lists): the mean over 10 faces, and the
    # digit tables all faces of one height share.
    gc.collect()
    before = gc.mem_alloc()
    face._sizes(47)
    gc.collect()
    tables = gc.mem_alloc() - before
    face.Face(fb)
    keep = [None] * 10
    gc.collect()
    before = gc.mem_alloc()
    for i in range(10):
        keep[i] = face.Face(fb)
    gc.collect()
    return (gc.mem_alloc() - before) // 10, tables


def main():
    passed = failed = 0
    print("font", font_hex())
    cases = scenarios()
    bufs = (new_fb(), new_fb())

    per_face, tables = face_bytes(bufs[0][1])
    print("face-bytes", per_face)
    print("face-tables", tables)
    f0 = face.Face(bufs[0][1])
    faces = (f0, face.Face(bufs[1][1]))

    for label, c, t, low in cases:
        for side in (0, 1):
            faces[side].draw(c, side, t, low)
            print("frame", label, side, 1 if low else 0, hexlify(bufs[side][0]).decode())
    passed += 1

    # The check must be able to fail: an allocation under the lock is caught.
    err, _, _ = locked(lambda a, b, n: [a, b, n], 1, 2, 3)
    if err is None:
        failed += 1
        print("FAIL  control: an allocation under heap_lock went unnoticed")
    else:
        passed += 1

    draw_all(cases, faces, 0)  # warm up
    err, grew, _ = locked(draw_all, cases, faces, 0)
    if err is None and grew == 0:
        passed += 1
        print("ok    every state drawn, 0 bytes allocated")
    else:
        failed += 1
        print("FAIL  states: %r, heap grew %d bytes" % (err, grew))

    for spec in SPECS:
        c = clock.Clock(tcspec.parse(spec))
        c.start(0)
        play(c, faces, 6)  # warm up outside the lock
        c = clock.Clock(tcspec.parse(spec))
        c.start(0)
        err, grew, frames = locked(play, c, faces, 60)
        if err is None and grew == 0 and frames > 100:
            passed += 1
            print("ok    %-20s %d frames, 0 bytes allocated" % (spec, frames))
        else:
            failed += 1
            print("FAIL  %-20s %r, heap grew %d bytes, %d frames" % (spec, err, grew, frames))

    # #23: before a game the faces show the voice; the segment glass too. In
    # every language and style, drawn with nothing allocated.
    from qizhong import segface, voice

    glass = bytearray(segface.RAM_BYTES)
    seg = segface.SegFace(glass)
    idle = cases[0][1]

    def voices(a, b, n):
        for k in range(n):
            voice.use(k % len(voice.LANGS), k // len(voice.LANGS) % 2)
            a.draw(idle, 0, 0, False)
            b.draw(idle, 1, 0, False)
        return n

    voices(f0, seg, 10)  # warm up
    err, grew, _ = locked(voices, f0, seg, 10)
    voice.use(0, 0)
    if err is None and grew == 0:
        passed += 1
        print("ok    the voice on both idle faces, 0 bytes allocated")
    else:
        failed += 1
        print("FAIL  idle voice: %r, heap grew %d bytes" % (err, grew))

    # Time per frame: the worst common case, a lit bar and H:MM:SS.
    c = cases[4][1]
    n = 2000
    t0 = time.ticks_us()
    for i in range(n):
        f0.draw(c, 0, 300 + i, True)
    us = time.ticks_diff(time.ticks_us(), t0)
    print("draw-us", us // n)

    print("face: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


sys.exit(main())
