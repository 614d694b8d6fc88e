# SPDX-License-Identifier: GPL-3.0-or-later
"""One player's display: big time digits and a status line (docs/display.md).

``Face(fb)`` draws into any framebuf-like object (``fill``, ``fill_rect``,
``rect``, ``pixel``, ``text``); on the clock that is a 128x64 MONO_VLSB
``framebuf.FrameBuffer`` for one SSD1306/SSD1309. ``draw`` allocates nothing:
digits are filled rectangles from a constant segment table, the glyph
sequence goes to a preallocated bytearray, numbers are drawn one digit string
at a time. Integer maths only.

Layout (128x64): a status bar (rows 0-9, text at row 1) and the big digits
(48 rows high, centred below it). Status fields, left to right: moves made,
overtime ("CNT", "BY2", "5/15"), state ("PAUSE", "KNOCK", "END" or a flag and
"1st"; before a game the voice: a speaker, its language as the ``voice``
command names it, an arrow up or down for counting up or down), the TC-9
pencil, the low-battery mark. The running side's bar is lit (text dark); a
paused or knocked clock frames the side to move.
"""

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):  # type: ignore
        return x


from . import voice
from .clock import FINISHED, IDLE, KNOCKED, PAUSED, RUNNING

# Under this many ms the face shows seconds and tenths.
TENTHS_MS = const(20000)

# Status bar and its fields (x of each field, in px).
BAR_H = const(10)
TEXT_Y = const(1)
MOVES_X = const(2)  # up to 3 digits
OT_X = const(30)  # up to 5 chars
STATE_X = const(72)  # up to 5 chars
REC_X = const(112)  # 8x8 icon
BAT_X = const(120)  # 8x8 icon

# Big digits: reference height; sizes are (digit width, stroke, gap, colon/dot width),
# tried in order until the time fits the width.
DIGIT_H = const(48)
SIZES = ((24, 6, 4, 6), (19, 5, 3, 5), (15, 4, 3, 4))

# Glyph codes besides 0-9.
COLON = const(10)
DOT = const(11)

# Seven segments, bit 0..6 = a (top), b (top right), c (bottom right), d (bottom),
# e (bottom left), f (top left), g (middle).
SEGMENTS = (0x3F, 0x06, 0x5B, 0x4F, 0x66, 0x6D, 0x7D, 0x07, 0x7F, 0x6F)

# 8x8 icons, one byte per column, bit 0 at the top (MONO_VLSB).
FLAG_ICON = (0x00, 0x7F, 0x0F, 0x0F, 0x0F, 0x0F, 0x00, 0x00)
REC_ICON = (0x00, 0x30, 0x18, 0x14, 0x0A, 0x05, 0x02, 0x00)  # pencil: recording optional
BAT_ICON = (0x3E, 0x3E, 0x22, 0x22, 0x22, 0x3E, 0x1C, 0x00)  # nearly empty battery
VOICE_ICON = (0x1C, 0x1C, 0x3E, 0x7F, 0x00, 0x14, 0x22, 0x00)  # a speaker: the voice
UP_ICON = (0x00, 0x04, 0x02, 0x7F, 0x02, 0x04, 0x00, 0x00)  # counting up
DOWN_ICON = (0x00, 0x10, 0x20, 0x7F, 0x20, 0x10, 0x00, 0x00)  # counting down
VOICE_LABELS = tuple(name.upper() for name in voice.LANGS)  # CMN, YUE, JA, KO, EN

DIGITS = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9")


def segment_rects(w, h, t):
    """The 7 segment rectangles of a w x h digit with stroke t, as (x, y, w, h)
    in segment order; their centres belong to one segment only."""
    m = (h - t) // 2  # top of the middle bar
    return (
        (0, 0, w, t),
        (w - t, 0, t, m + t),
        (w - t, m, t, h - m),
        (0, h - t, w, t),
        (0, m, t, h - m),
        (0, 0, t, m + t),
        (0, m, w, t),
    )


_cache = {}  # type: dict # digit height -> sizes, shared by both faces


def _sizes(dh):
    # SIZES scaled to a digit height, each as (w, t, gap, colon, flat segment rects).
    if dh not in _cache:
        sizes = []
        for w, t, g, c in SIZES:
            w = w * dh // DIGIT_H
            t = max(1, t * dh // DIGIT_H)
            c = max(1, c * dh // DIGIT_H)
            rects = []
            for r in segment_rects(w, dh, t):
                rects.extend(r)
            sizes.append((w, t, g, c, tuple(rects)))
        _cache[dh] = tuple(sizes)
    return _cache[dh]


class Face:
    """One player's display."""

    def __init__(self, fb, width=128, height=64):
        self.fb = fb
        self.width = width
        self.height = height
        dh = DIGIT_H * height // 64
        self.digit_h = dh
        self.digit_y = BAR_H + (height - BAR_H - dh) // 2
        self.sizes = _sizes(dh)
        self.glyphs = bytearray(10)  # the glyph codes of what is shown
        self.n = 0
        self.size = 0  # index into self.sizes of the last draw
        self.x0 = 0  # left edge of the last draw's digits

    # -- what to show -------------------------------------------------------------

    def set_time(self, ms):
        """Fill ``glyphs`` with ``ms`` as H:MM:SS, M:SS or S.t, rounded down."""
        g = self.glyphs
        if ms < 0:
            ms = 0
        n = 0
        if ms < TENTHS_MS:
            d = ms // 100
            s = d // 10
            if s >= 10:
                g[0] = s // 10
                n = 1
            g[n] = s % 10
            g[n + 1] = DOT
            g[n + 2] = d % 10
            self.n = n + 3
            return
        s = ms // 1000
        if s >= 360000:
            s = 359999  # 99:59:59
        h = s // 3600
        s -= h * 3600
        m = s // 60
        s -= m * 60
        if h:
            if h >= 10:
                g[0] = h // 10
                n = 1
            g[n] = h % 10
            g[n + 1] = COLON
            g[n + 2] = m // 10
            n += 3
        elif m >= 10:
            g[0] = m // 10
            n = 1
        g[n] = m % 10
        g[n + 1] = COLON
        g[n + 2] = s // 10
        g[n + 3] = s % 10
        self.n = n + 4

    def set_number(self, v):
        """Fill ``glyphs`` with the whole number ``v`` (0..999)."""
        g = self.glyphs
        if v < 0:
            v = 0
        elif v > 999:
            v = 999
        n = 0
        if v >= 100:
            g[0] = v // 100
            n = 1
        if v >= 10:
            g[n] = v // 10 % 10
            n += 1
        g[n] = v % 10
        self.n = n + 1

    # -- drawing ------------------------------------------------------------------

    def draw(self, clock, side, t, low_battery=False):
        """Draw ``side``'s face for ``clock`` at ``t`` (ms). Call after ``clock.tick(t)``."""
        fb = self.fb
        fb.fill(0)
        s = clock.sides[side]
        state = clock.state
        ms = clock.left(side, t)
        ot = clock.tc.overtime
        kind = ot.kind if ot is not None else ""
        counting = kind == "count" and s.ot and not s.flagged

        # Status bar: lit for the running side, framed for the side to move when stopped.
        c = 1
        if side == clock.run:
            if state == RUNNING:
                fb.fill_rect(0, 0, self.width, BAR_H, 1)
                c = 0
            elif state == PAUSED or state == KNOCKED:
                fb.rect(0, 0, self.width, BAR_H, 1)
        self.number(s.moves if s.moves < 1000 else 999, MOVES_X, c)
        if counting:
            fb.text("CNT", OT_X, TEXT_Y, c)
        elif kind == "byoyomi":
            fb.text("BY", OT_X, TEXT_Y, c)
            self.number(s.periods, OT_X + 16, c)
        elif kind == "canadian" and s.ot and not s.flagged:
            x = self.number(s.left, OT_X, c)
            fb.text("/", x, TEXT_Y, c)
            self.number(ot.block_moves(s), x + 8, c)  # #31: a progressive block's own
        if s.flagged:
            self.icon(FLAG_ICON, STATE_X, c)
            if clock.first_flag == side:
                fb.text("1st", STATE_X + 10, TEXT_Y, c)
        elif state == PAUSED:
            fb.text("PAUSE", STATE_X, TEXT_Y, c)
        elif state == KNOCKED:
            fb.text("KNOCK", STATE_X, TEXT_Y, c)
        elif state == FINISHED:
            r = clock.result
            fb.text(
                "END" if r < 0 else "DRAW" if r > 1 else "WIN" if r == side else "LOSS",
                STATE_X,
                TEXT_Y,
                c,
            )
        elif state == IDLE:  # before a game: the voice it will speak, and its count
            self.icon(VOICE_ICON, STATE_X, c)
            fb.text(VOICE_LABELS[voice.lang], STATE_X + 8, TEXT_Y, c)
            self.icon(DOWN_ICON if voice.style else UP_ICON, STATE_X + 32, c)
        if (s.recorded or clock.sides[1 - side].recorded) and not s.flagged:
            self.icon(REC_ICON, REC_X, c)  # TC-9: once either crossed, neither need record
        if low_battery:
            self.icon(BAT_ICON, BAT_X, c)

        # Big digits: the count digit during the Xiangqi count, else the time.
        if counting:
            self.set_number((ot.period - ms) // 1000)
        else:
            self.set_time(ms)
        self.big()

    def number(self, v, x, c):
        """Draw ``v`` >= 0 in the text font at ``x`` on the status line; return the x after it."""
        fb = self.fb
        p = 1
        while p * 10 <= v:
            p *= 10
        while p:
            fb.text(DIGITS[v // p % 10], x, TEXT_Y, c)
            x += 8
            p //= 10
        return x

    def icon(self, cols, x, c):
        fb = self.fb
        for i in range(8):
            b = cols[i]
            y = TEXT_Y
            while b:
                if b & 1:
                    fb.pixel(x + i, y, c)
                b >>= 1
                y += 1

    def big(self):
        """Draw ``glyphs[:n]`` centred in the digit area, in the largest size that fits."""
        fb = self.fb
        g = self.glyphs
        n = self.n
        k = 0
        last = len(self.sizes) - 1
        while True:
            size = self.sizes[k]
            total = size[2] * (n - 1)
            for i in range(n):
                total += size[0] if g[i] < COLON else size[3]
            if total <= self.width or k == last:
                break
            k += 1
        self.size = k
        w, _, gap, cw, rects = size
        x = (self.width - total) // 2
        self.x0 = x
        y = self.digit_y
        h = self.digit_h
        for i in range(n):
            code = g[i]
            if code < COLON:
                bits = SEGMENTS[code]
                j = 0
                while bits:
                    if bits & 1:
                        fb.fill_rect(x + rects[j], y + rects[j + 1], rects[j + 2], rects[j + 3], 1)
                    bits >>= 1
                    j += 4
                x += w + gap
            else:
                if code == COLON:
                    fb.fill_rect(x, y + h // 3 - cw // 2, cw, cw, 1)
                    fb.fill_rect(x, y + 2 * h // 3 - cw // 2, cw, cw, 1)
                else:
                    fb.fill_rect(x, y + h - cw, cw, cw, 1)
                x += cw + gap
