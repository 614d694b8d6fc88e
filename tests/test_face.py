# SPDX-License-Identifier: GPL-3.0-or-later
"""The display (firmware/qizhong/face.py), read back the way a player reads it.

tests/mp/face_check.py renders every state with the real framebuf on
MicroPython and draws under heap_lock; here the framebuffers are decoded and
read: the big digits by a seven-segment recogniser built from face.py's own
segment table, the status line by matching 8x8 cells against the font the same
interpreter draws, the icons against face.py's bitmaps.
"""

import os
import re
import struct
import subprocess
import zlib

import pytest

from conftest import ROOT
from qizhong.core import face
from qizhong.sim import Sim
from qizhong.sim.png import mono_vlsb_pixels, mono_vlsb_to_png, side_by_side

W = 128
H = 64
FACE = face.Face(None, W, H)  # geometry only; never draws


# -- reading a framebuffer back -------------------------------------------------------


def pixels(buf):
    return mono_vlsb_pixels(buf, W, H)


def _read_glyph(px, x0, x1, size):
    """One ink run of the digit area as a glyph, or None if it is none in this size."""
    w, t, _, cw, rects = size
    y0 = FACE.digit_y
    h = FACE.digit_h
    run = x1 - x0 + 1
    if px[y0][x0] or px[y0][x1]:  # every digit has ink in its top row
        left = x1 - w + 1  # and in its right column
        mask = 0
        for j in range(7):
            rx, ry, rw, rh = rects[4 * j : 4 * j + 4]
            if px[y0 + ry + rh // 2][left + rx + rw // 2]:
                mask |= 1 << j
        if mask not in face.SEGMENTS:
            return None
        d = face.SEGMENTS.index(mask)
        return str(d) if run == (t if d == 1 else w) else None
    if run != cw:
        return None
    if px[y0 + h // 3][x0] and px[y0 + 2 * h // 3][x0] and not px[y0 + h - 1][x0]:
        return ":"
    if px[y0 + h - 1][x0] and not px[y0 + h // 3][x0]:
        return "."
    return None


def read_big(px):
    """The big digits as text ("14:51", "8.3", "7"), or None if unreadable."""
    y0 = FACE.digit_y
    rows = px[y0 : y0 + FACE.digit_h]
    ink = [any(r[x] for r in rows) for x in range(W)]
    runs = []
    x = 0
    while x < W:
        if ink[x]:
            start = x
            while x < W and ink[x]:
                x += 1
            runs.append((start, x - 1))
        x += 1
    if not runs:
        return ""
    for size in FACE.sizes:
        glyphs = [_read_glyph(px, a, b, size) for a, b in runs]
        if None not in glyphs:
            return "".join(glyphs)
    return None


def cell(px, x, invert):
    """The 8x8 status cell at ``x`` as 8 column bytes (MONO_VLSB), lit bar undone."""
    out = []
    for i in range(8):
        b = 0
        for r in range(8):
            if px[face.TEXT_Y + r][x + i] != invert:
                b |= 1 << r
        out.append(b)
    return tuple(out)


def lit(px):
    return bool(px[5][face.OT_X - 3])  # a spot between fields: only a lit bar inks it


def framed(px):
    return bool(px[0][W // 2]) and not lit(px)


def read_text(px, font, x, n):
    invert = lit(px)
    return "".join(font.get(cell(px, x + 8 * k, invert), "?") for k in range(n)).rstrip()


def has_icon(px, icon, x):
    return cell(px, x, lit(px)) == icon


# -- the MicroPython run ----------------------------------------------------------------


class Shot:
    def __init__(self, buf, font):
        self.buf = buf
        self.px = pixels(buf)
        self.font = font

    @property
    def big(self):
        return read_big(self.px)

    @property
    def moves(self):
        return read_text(self.px, self.font, face.MOVES_X, 3)

    @property
    def ot(self):
        return read_text(self.px, self.font, face.OT_X, 5)

    @property
    def state(self):
        return read_text(self.px, self.font, face.STATE_X, 5)

    def icon(self, icon, x):
        return has_icon(self.px, icon, x)

    @property
    def flag(self):
        return self.icon(face.FLAG_ICON, face.STATE_X)

    @property
    def first(self):
        return read_text(self.px, self.font, face.STATE_X + 10, 3) == "1st"

    @property
    def rec(self):
        return self.icon(face.REC_ICON, face.REC_X)

    @property
    def bat(self):
        return self.icon(face.BAT_ICON, face.BAT_X)

    @property
    def voice(self):
        """(language, "up" or "down") as the idle face shows it, or None."""
        if not self.icon(face.VOICE_ICON, face.STATE_X):
            return None
        arrow = face.STATE_X + 32
        style = (
            "up"
            if self.icon(face.UP_ICON, arrow)
            else "down"
            if self.icon(face.DOWN_ICON, arrow)
            else "?"
        )
        return read_text(self.px, self.font, face.STATE_X + 8, 3), style


@pytest.fixture(scope="module")
def run(micropython):
    r = subprocess.run(
        [micropython, os.path.join(ROOT, "tests", "mp", "face_check.py")],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    font_hex = re.search(r"^font ([0-9a-f]+)$", r.stdout, re.M)
    assert font_hex, r.stdout + r.stderr
    raw = bytes.fromhex(font_hex.group(1))
    font = {tuple(raw[8 * i : 8 * i + 8]): chr(32 + i) for i in range(95)}
    font[(0,) * 8] = " "
    shots = {}
    for m in re.finditer(r"^frame (\S+) (\d) (\d) ([0-9a-f]+)$", r.stdout, re.M):
        shots[m.group(1), int(m.group(2))] = Shot(bytes.fromhex(m.group(4)), font)
    return r, shots


@pytest.fixture(scope="module")
def shots(run):
    return run[1]


def test_face_check_passes_on_micropython(run):
    r = run[0]
    assert r.returncode == 0, r.stdout + r.stderr
    m = re.search(r"^face: (\d+) passed, (\d+) failed$", r.stdout, re.M)
    assert m, r.stdout
    assert int(m.group(2)) == 0 and int(m.group(1)) >= 10, r.stdout
    assert "FAIL" not in r.stdout


def test_draw_is_measured(run):
    out = run[0].stdout
    face_bytes = int(re.search(r"^face-bytes (-?\d+)$", out, re.M).group(1))
    tables = int(re.search(r"^face-tables (-?\d+)$", out, re.M).group(1))
    draw_us = int(re.search(r"^draw-us (\d+)$", out, re.M).group(1))
    assert 0 < face_bytes < 1024 and 0 < tables < 4096
    assert draw_us < 5000


def test_every_state_rendered(shots):
    labels = {k[0] for k in shots}
    assert labels >= {
        "idle", "running", "tenths", "fide-idle", "hours", "count", "byoyomi",
        "canadian", "flagged", "paused", "knocked", "record", "battery", "finished",
    }  # fmt: skip
    assert all((label, s) in shots for label in labels for s in (0, 1))


# What each player reads: label -> (Red's digits, Black's digits).
BIG = {
    "idle": ("15:00", "15:00"),
    "running": ("14:51", "13:20"),  # 891 200 and 800 400 ms: floor, never more
    "tenths": ("8.3", "1:35"),  # 8 350 ms: tenths under 20 s
    "fide-idle": ("1:30:00", "1:30:00"),
    "hours": ("1:00:00", "1:06:40"),  # 3 600 100 ms
    "count": ("7", "2:05"),  # 7.4 s into the count: the count digit
    "byoyomi": ("0:44", "12:34"),  # 44.7 s left in the period
    "canadian": ("20:34", "7:32"),
    "flagged": ("1:01", "0.0"),
    "paused": ("14:50", "13:20"),
    "knocked": ("14:49", "13:20"),
    "record": ("2:58", "5:00"),
    "battery": ("14:51", "13:20"),
    "finished": ("14:50", "13:20"),
}


@pytest.mark.parametrize("label", sorted(BIG))
def test_big_digits_read(shots, label):
    assert (shots[label, 0].big, shots[label, 1].big) == BIG[label]


def test_the_running_side_is_lit(shots):
    for label in ("running", "tenths", "hours", "count", "byoyomi", "record", "battery"):
        assert lit(shots[label, 0].px) and not lit(shots[label, 1].px), label
    assert lit(shots["canadian", 1].px) and not lit(shots["canadian", 0].px)
    for label in ("idle", "fide-idle", "flagged", "finished"):
        for side in (0, 1):
            s = shots[label, side]
            assert not lit(s.px) and not framed(s.px), (label, side)


def test_stopped_clock_frames_the_side_to_move(shots):
    for label, word in (("paused", "PAUSE"), ("knocked", "KNOCK")):
        red, black = shots[label, 0], shots[label, 1]
        assert framed(red.px) and not framed(black.px)
        assert red.state == black.state == word
    assert shots["finished", 0].state == shots["finished", 1].state == "END"
    assert shots["running", 0].state == ""
    assert shots["idle", 0].voice == shots["idle", 1].voice == ("CMN", "up")  # before a game


def test_move_counts(shots):
    assert shots["idle", 0].moves == shots["idle", 1].moves == "0"
    assert shots["running", 0].moves == "12"
    assert (shots["byoyomi", 0].moves, shots["byoyomi", 1].moves) == ("150", "149")
    assert (shots["canadian", 0].moves, shots["canadian", 1].moves) == ("81", "80")


def test_overtime_fields(shots):
    assert (shots["count", 0].ot, shots["count", 1].ot) == ("CNT", "")  # Black still has main time
    assert (shots["byoyomi", 0].ot, shots["byoyomi", 1].ot) == ("BY2", "BY3")
    assert (shots["canadian", 1].ot, shots["canadian", 0].ot) == ("5/15", "")
    assert shots["running", 0].ot == shots["hours", 0].ot == ""


def test_flag_and_first(shots):
    red, black = shots["flagged", 0], shots["flagged", 1]
    assert black.flag and black.first
    assert not red.flag and not red.first and red.state == ""
    assert not black.rec  # a flagged side gets no TC-9 mark


def test_recording_mark(shots):
    # TC-9: Red went under 3 min; from then on neither player need record,
    # so both displays show the pencil (#26 item 9).
    assert shots["record", 0].rec and shots["record", 1].rec
    assert shots["tenths", 0].rec and shots["tenths", 1].rec
    assert shots["count", 0].rec
    assert not shots["running", 0].rec and not shots["idle", 0].rec


def test_low_battery_mark(shots):
    assert shots["battery", 0].bat and shots["battery", 1].bat
    assert not shots["running", 0].bat and not shots["running", 1].bat


def test_status_line_holds_only_its_fields(shots):
    # Every inked status pixel belongs to a field that reads as text or an icon.
    black = shots["byoyomi", 1]
    assert (black.moves, black.ot, black.state) == ("149", "BY3", "")
    assert black.rec  # Red is under 3 min: TC-9 marks both (#26 item 9)
    fields = ((face.MOVES_X, 3), (face.OT_X, 5), (face.REC_X, 1))
    for y in range(face.BAR_H):
        for x in range(W):
            if black.px[y][x]:
                assert any(x0 <= x < x0 + 8 * n for x0, n in fields), (x, y)


def test_the_rest_of_the_screen_is_dark(shots):
    # Nothing is drawn between the status bar and the digits, nor below them.
    for (label, side), s in shots.items():
        for y in range(face.BAR_H, FACE.digit_y):
            assert not any(s.px[y]), (label, side, y)
        for y in range(FACE.digit_y + FACE.digit_h, H):
            assert not any(s.px[y]), (label, side, y)


# -- the digits on CPython: every format, read back ---------------------------------------


class FakeFB:
    """The framebuf calls Face makes, into a MONO_VLSB buffer (text is ignored)."""

    def __init__(self):
        self.buf = bytearray(W * H // 8)

    def pixel(self, x, y, c):
        if 0 <= x < W and 0 <= y < H:
            i = (y >> 3) * W + x
            if c:
                self.buf[i] |= 1 << (y & 7)
            else:
                self.buf[i] &= ~(1 << (y & 7)) & 0xFF

    def fill_rect(self, x, y, w, h, c):
        for yy in range(y, y + h):
            for xx in range(x, x + w):
                self.pixel(xx, yy, c)

    def fill(self, c):
        self.buf[:] = bytes([0xFF if c else 0]) * len(self.buf)

    def rect(self, x, y, w, h, c):
        self.fill_rect(x, y, w, 1, c)
        self.fill_rect(x, y + h - 1, w, 1, c)
        self.fill_rect(x, y, 1, h, c)
        self.fill_rect(x + w - 1, y, 1, h, c)

    def text(self, s, x, y, c):
        pass


def shown(ms):
    """The rounding rule, independently: floor; S.t under 20 s, M:SS, H:MM:SS from 1 h."""
    ms = max(ms, 0)
    if ms < 20000:
        return "%d.%d" % (ms // 1000, ms // 100 % 10)
    s = min(ms // 1000, 99 * 3600 + 3599)
    if s >= 3600:
        return "%d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60)
    return "%d:%02d" % (s // 60, s % 60)


def render_time(ms):
    fb = FakeFB()
    f = face.Face(fb)
    f.set_time(ms)
    f.big()
    return read_big(pixels(fb.buf)), f


@pytest.mark.parametrize(
    "ms",
    [0, 99, 100, 999, 1000, 8350, 9999, 19999, 20000, 20999, 59999, 60000, 599999, 600000,
     891999, 3599999, 3600000, 3600999, 5400000, 35999999, 36000000, 100 * 3600000,
     -5, 123456789],
)  # fmt: skip
def test_time_reads_back_floor(ms):
    text, f = render_time(ms)
    assert text == shown(ms)
    assert f.x0 >= 0  # inside the screen


def test_every_digit_in_every_size_reads_back():
    for ms in range(0, 10 * 3600000, 1111111):
        assert render_time(ms)[0] == shown(ms)
    for v in range(0, 1000, 37):
        fb = FakeFB()
        f = face.Face(fb)
        f.set_number(v)
        f.big()
        assert read_big(pixels(fb.buf)) == str(v)
    sizes = set()
    for ms in (5000, 754000, 3600000, 36000000):
        sizes.add(render_time(ms)[1].size)
    assert sizes == {0, 1, 2}  # large M:SS, medium H:MM:SS, small HH:MM:SS


def test_digits_are_big():
    assert FACE.digit_h >= 40
    assert FACE.digit_y >= face.BAR_H and FACE.digit_y + FACE.digit_h <= H


# -- PNG ---------------------------------------------------------------------------------


def decode_png(data):
    """(width, height, rows of RGB tuples) for the 8-bit RGB, filter-0 PNGs png.py writes."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos = 8
    chunks = {}
    idat = b""
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + n]
        (crc,) = struct.unpack(">I", data[pos + 8 + n : pos + 12 + n])
        assert crc == zlib.crc32(kind + body)
        chunks[kind] = body
        if kind == b"IDAT":
            idat += body
        pos += 12 + n
    assert b"IEND" in chunks
    w, h, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    assert (depth, colour, interlace) == (8, 2, 0)
    raw = zlib.decompress(idat)
    stride = 1 + 3 * w
    assert len(raw) == h * stride
    rows = []
    for y in range(h):
        line = raw[y * stride : (y + 1) * stride]
        assert line[0] == 0
        rows.append([tuple(line[1 + 3 * x : 4 + 3 * x]) for x in range(w)])
    return w, h, rows


def test_png_round_trip():
    buf = bytearray(W * H // 8)
    on = {(0, 0), (127, 63), (5, 9), (64, 31), (3, 7), (3, 8)}
    for x, y in on:
        buf[(y >> 3) * W + x] |= 1 << (y & 7)
    fg, bg = (250, 200, 10), (1, 2, 3)
    w, h, rows = decode_png(mono_vlsb_to_png(bytes(buf), W, H, scale=3, fg=fg, bg=bg))
    assert (w, h) == (3 * W, 3 * H)
    for y in range(h):
        for x in range(w):
            assert rows[y][x] == (fg if (x // 3, y // 3) in on else bg)


def test_png_scale_one_and_errors():
    buf = bytes([0x01]) + bytes(W * H // 8 - 1)
    w, h, rows = decode_png(mono_vlsb_to_png(buf, W, H, scale=1))
    assert (w, h) == (W, H) and rows[0][0] != rows[0][1] and rows[1][0] == rows[0][1]
    with pytest.raises(ValueError):
        mono_vlsb_to_png(buf, W, 60)
    with pytest.raises(ValueError):
        mono_vlsb_to_png(buf[:-1], W, H)
    with pytest.raises(ValueError):
        mono_vlsb_to_png(buf, W, H, scale=0)


def test_side_by_side_places_both_displays(shots):
    left, right = shots["running", 0], shots["running", 1]
    scale, gap, margin = 2, 10, 4
    case = (9, 9, 9)
    data = side_by_side(left.buf, right.buf, scale=scale, gap=gap, margin=margin, case=case)
    w, h, rows = decode_png(data)
    assert (w, h) == ((2 * W + gap + 2 * margin) * scale, (H + 2 * margin) * scale)
    fg = rows[(margin + 5) * scale][(margin + W // 2) * scale]  # the lit bar
    assert rows[0][0] == case and rows[h - 1][w - 1] == case
    assert rows[(margin + 30) * scale][(margin + W + gap // 2) * scale] == case
    for panel, x0 in ((left, margin), (right, margin + W + gap)):
        for y in range(0, H, 3):
            for x in range(0, W, 3):
                got = rows[(margin + y) * scale + 1][(x0 + x) * scale + 1]
                assert (got == fg) == bool(panel.px[y][x]), (x, y)


def test_the_idle_face_shows_the_voice_and_its_count(run):
    # #23: the voice was shown only in its menu, `status` and the `voice` query.
    # Before a game both faces show it: a speaker, the language as the `voice`
    # command names it, an arrow up (counting up) or down (counting down).
    font = next(iter(run[1].values())).font
    with Sim() as sim:
        for lang, style in (("ja", "down"), ("yue", "up"), ("en", "down"), ("cmn", "up")):
            assert sim.command("voice %s %s" % (lang, style)) == "ok voice %s %s" % (lang, style)
            for buf in sim.frame():
                assert Shot(buf, font).voice == (lang.upper(), style)
        sim.key("start", 1000)
        assert [Shot(buf, font).voice for buf in sim.frame()] == [None, None]  # in play: the game's
