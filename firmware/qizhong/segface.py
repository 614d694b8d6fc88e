# SPDX-License-Identifier: GPL-3.0-or-later
"""The battery board's segment face (#22, docs/segment-face.md).

One glass per player on one PCF85176-class driver: 40 segment lines x 4
backplanes = 160 segments, held in 20 bytes of display RAM (``ram``, bit
``n`` of the glass = byte ``n >> 3``, bit ``7 - (n & 7)``: the driver's
auto-incremented order). The layout is fixed (``GLASS``), 153 segments:

    status   8 14-segment characters: moves (3, right-aligned),   112
             overtime (2: CN, B3, 15), state (3: PAU, KNK, FLG,
             1ST, END, WIN, LOS, DRW); before a game the voice's
             language on the moves (CMN, YUE, JA, KO, EN) and
             an arrow up or down (its count) on the state
    marks    RUN (this side's time runs), REC (TC-9), BAT         3
    time     5 big 7-segment digits H:MM:SS, 2 colons, a point    38
             (S.t only on a board with tenths)

``SegFace(ram).draw(clock, side, t, low_battery)`` shows what ``Face``
shows on the OLED (both times, whose move, moves, count, periods, flag,
knock, pause, battery). ``SegText(ram)`` takes the setup menu's and the
pairing code's text as ``Face``'s framebuffer does (``fill``, ``text``),
on the status characters and the big digits. Drawing
allocates nothing. ``GLASS`` places each segment on a 128x64 picture
(``raster``: the simulator, the PNG faces and the drawing in docs).
"""

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):  # type: ignore
        return x


from . import voice
from .clock import FINISHED, IDLE, KNOCKED, PAUSED, RUNNING

RAM_BYTES = const(20)
SEGS = const(160)

# Field offsets (segment numbers).
STATUS = const(0)  # 8 x 14: moves at 0-2, overtime at 3-4, state at 5-7
MOVES = STATUS
OT = const(42)  # STATUS + 3 * 14
STATE = const(70)  # STATUS + 5 * 14
RUN = const(112)
REC = const(113)
BAT = const(114)
TIME = const(115)  # 5 x 7
COLON1 = const(150)  # H:MM
COLON2 = const(151)  # MM:SS
DOT = const(152)  # S.t
USED = const(153)

# 7-segment: bit 0..6 = a (top), b, c, d, e, f, g (middle).
SEVEN = (0x3F, 0x06, 0x5B, 0x4F, 0x66, 0x6D, 0x7D, 0x07, 0x7F, 0x6F)
# Letters a 7-segment digit can show (the menu's text on the big digits), else blank.
SEVEN_ALPHA = {
    "A": 0x77, "B": 0x7C, "C": 0x39, "D": 0x5E, "E": 0x79, "F": 0x71, "G": 0x3D, "H": 0x76,
    "I": 0x06, "J": 0x1E, "L": 0x38, "N": 0x54, "O": 0x3F, "P": 0x73, "R": 0x50, "S": 0x6D,
    "T": 0x78, "U": 0x3E, "Y": 0x6E, "-": 0x40, "_": 0x08, "=": 0x48, " ": 0,
}  # fmt: skip

# 14-segment: bit 0..13 = a (top), b, c, d, e, f, g1 (middle left), g2 (middle
# right), h (upper-left diagonal), i (upper vertical), j (upper-right
# diagonal), k (lower-left diagonal), l (lower vertical), m (lower-right diagonal).
FOURTEEN = {
    "0": 0x063F, "1": 0x0006, "2": 0x00DB, "3": 0x008F, "4": 0x00E6, "5": 0x2069,
    "6": 0x00FD, "7": 0x0007, "8": 0x00FF, "9": 0x00EF,
    "A": 0x00F7, "B": 0x128F, "C": 0x0039, "D": 0x120F, "E": 0x0079, "F": 0x0071,
    "G": 0x00BD, "H": 0x00F6, "I": 0x1209, "J": 0x001E, "K": 0x2470, "L": 0x0038,
    "M": 0x0536, "N": 0x2136, "O": 0x003F, "P": 0x00F3, "Q": 0x203F, "R": 0x20F3,
    "S": 0x00ED, "T": 0x1201, "U": 0x003E, "V": 0x0C30, "W": 0x2836, "X": 0x2D00,
    "Y": 0x1500, "Z": 0x0C09, "-": 0x00C0, "+": 0x12C0, "/": 0x0C00, ">": 0x0900,
    "<": 0x2400, "_": 0x0008, "=": 0x00C8, ":": 0x1200, "*": 0x3FC0, " ": 0,
    "%": 0x0C24,  # f, c and the slash: the menu's handicap (-40%)
    "\u2191": 0x1700, "\u2193": 0x3A00,  # arrows up and down: the voice's count
}  # fmt: skip

TENTHS_MS = const(20000)
DIGITS = "0123456789"


def pattern(s, n):
    """The 14-segment patterns of ``s`` (upper-cased) on ``n`` characters, blank-padded."""
    return tuple(FOURTEEN.get(s[i].upper(), 0) if i < len(s) else 0 for i in range(n))


# The state field's words and the ot field's, made once (drawing them allocates nothing).
W = {w: pattern(w, 3) for w in ("PAU", "KNK", "END", "WIN", "LOS", "DRW", "FLG", "1ST")}
CN = pattern("CN", 2)
# Before a game: the voice's language on the moves field (right-aligned), its count's arrow.
VOICE_WORDS = tuple(pattern(("  " + name)[-3:], 3) for name in voice.LANGS)
ARROWS = (FOURTEEN["\u2191"], FOURTEEN["\u2193"])  # voice.STYLES: up, down
FOURTEEN_DIGITS = tuple(FOURTEEN[d] for d in DIGITS)


def _on(ram, n):
    ram[n >> 3] |= 0x80 >> (n & 7)


def lit(ram, n):
    """True when segment ``n`` is on."""
    return (ram[n >> 3] >> (7 - (n & 7))) & 1


def clear(ram):
    for i in range(RAM_BYTES):
        ram[i] = 0


def seven(ram, base, bits):
    """Light 7-segment pattern ``bits`` on the digit at segment ``base``."""
    for j in range(7):
        if bits >> j & 1:
            _on(ram, base + j)


def fourteen(ram, base, bits):
    for j in range(14):
        if bits >> j & 1:
            _on(ram, base + j)


def word(ram, base, pat):
    """The 14-segment patterns ``pat`` (``pattern``) from the character at ``base``."""
    for i in range(len(pat)):
        fourteen(ram, base + 14 * i, pat[i])


def number(ram, v, base, n):
    """``v`` >= 0 right-aligned on ``n`` 14-segment characters (no leading zeros)."""
    i = n - 1
    while True:
        fourteen(ram, base + 14 * i, FOURTEEN_DIGITS[v % 10])
        v //= 10
        i -= 1
        if not v or i < 0:
            return


class SegFace:
    """One player's glass: ``draw`` fills ``ram`` from the clock (as ``Face``)."""

    def __init__(self, ram, tenths=False):
        self.ram = ram
        self.tenths = tenths  # the board's budget: S.t under 20 s (docs/power.md)

    def draw(self, clock, side, t, low_battery=False):
        ram = self.ram
        clear(ram)
        s = clock.sides[side]
        state = clock.state
        ms = clock.left(side, t)
        ot = clock.tc.overtime
        kind = ot.kind if ot is not None else ""
        counting = kind == "count" and s.ot and not s.flagged
        if state == IDLE:  # no move yet: the voice it will speak, and its count (#23)
            word(ram, MOVES, VOICE_WORDS[voice.lang])
            fourteen(ram, STATE, ARROWS[voice.style])
        else:
            number(ram, s.moves if s.moves < 1000 else 999, MOVES, 3)
        if counting:
            word(ram, OT, CN)
        elif kind == "byoyomi":
            fourteen(ram, OT, FOURTEEN["B"])
            fourteen(ram, OT + 14, FOURTEEN_DIGITS[s.periods] if s.periods < 10 else FOURTEEN["+"])
        elif kind == "canadian" and s.ot and not s.flagged:
            v = s.left if s.left < 100 else 99
            if v >= 10:
                fourteen(ram, OT, FOURTEEN_DIGITS[v // 10])
            fourteen(ram, OT + 14, FOURTEEN_DIGITS[v % 10])
        if s.flagged:
            word(ram, STATE, W["1ST"] if clock.first_flag == side and _both(clock) else W["FLG"])
        elif state == PAUSED:
            word(ram, STATE, W["PAU"])
        elif state == KNOCKED:
            word(ram, STATE, W["KNK"])
        elif state == FINISHED:
            r = clock.result
            w = "END" if r < 0 else "DRW" if r > 1 else "WIN" if r == side else "LOS"
            word(ram, STATE, W[w])
        if side == clock.run and state == RUNNING:
            _on(ram, RUN)
        if s.recorded and not s.flagged:
            _on(ram, REC)
        if low_battery:
            _on(ram, BAT)
        if counting:
            v = (ot.period - ms) // 1000
            seven(ram, TIME + 28, SEVEN[v % 10])
            if v >= 10:
                seven(ram, TIME + 21, SEVEN[v // 10 % 10])
        else:
            self.time(ms)

    def time(self, ms):
        """``ms`` on the big digits: H:MM:SS, MM:SS, or S.t with tenths, rounded down."""
        ram = self.ram
        if ms < 0:
            ms = 0
        if self.tenths and ms < TENTHS_MS:
            d = ms // 100
            seven(ram, TIME + 28, SEVEN[d % 10])
            seven(ram, TIME + 21, SEVEN[d // 10 % 10])
            if d >= 100:
                seven(ram, TIME + 14, SEVEN[d // 100])
            _on(ram, DOT)
            return
        s = ms // 1000
        if s > 35999:  # one hours digit: 9:59:59 at most
            s = 35999
        h = s // 3600
        m = s // 60 % 60
        s %= 60
        seven(ram, TIME + 28, SEVEN[s % 10])
        seven(ram, TIME + 21, SEVEN[s // 10])
        seven(ram, TIME + 14, SEVEN[m % 10])
        _on(ram, COLON2)
        if h or m >= 10:
            seven(ram, TIME + 7, SEVEN[m // 10])
        if h:
            seven(ram, TIME, SEVEN[h])
            _on(ram, COLON1)


def _both(clock):
    return clock.sides[0].flagged and clock.sides[1].flagged


class SegText:
    """The glass as a text screen, for the setup menu and the pairing code:
    the interface ``App.draw_menu`` and ``auth.draw`` use on a framebuffer
    (``fill``, ``text``), so their logic is the OLED's. The lines are laid
    out on the 8 status characters and the big digits (as 7-segment letters,
    where a letter has a shape there):

    - a line with the menu's cursor (``> ``): its first word on the status
      characters, the rest on the big digits, RUN lit;
    - else the second line (the preset's name) on the status characters and
      the third (its control) on the big digits;
    - the pairing code (``PAIRING CODE`` and two lines of it): glass
      ``index`` 0 shows its first 8 characters, glass 1 the last 8, on the
      status characters, and ``PAIr1`` or ``PAIr2`` on the big digits.
    """

    def __init__(self, ram, index=0):
        self.ram = ram
        self.index = index
        self.texts = []  # (x, y, text) as drawn
        self.shown = b""  # the RAM as the texts left it (a face may have drawn since)

    def fill(self, c):
        clear(self.ram)
        self.texts = []
        self.shown = bytes(self.ram)

    def text(self, s, x, y, c=1):
        self.texts.append((x, y, s))
        self.layout([t for _, _, t in self.texts])
        self.shown = bytes(self.ram)

    def menu_rows(self, m, display):
        """The setup menu's rows for glass ``display`` (``menu_rows``)."""
        return menu_rows(m, display)

    def layout(self, lines):
        ram = self.ram
        clear(ram)
        if lines[0].startswith("PAIRING"):
            code = "".join(lines[1:3]).replace(" ", "").upper()[8 * self.index :][:8]
            word(ram, STATUS, pattern(code, 8))
            _sevens(ram, "PAIR%d" % (self.index + 1))
            return
        for t in lines:
            if t.startswith("> "):
                _on(ram, RUN)
                head, _, rest = t[2:].strip().partition(" ")
                word(ram, STATUS, pattern(head, 8))
                _sevens(ram, rest.upper())
                return
        if len(lines) > 1:
            word(ram, STATUS, pattern(lines[1].strip(), 8))
        if len(lines) > 2:
            _sevens(ram, lines[2].strip().upper())


def menu_rows(m, display):
    """The segment glass (battery board, ``segface.SegText``: a blank line,
    the 8 status characters, the 5 big digits): the left glass names the
    setting, the right one gives its value, both on the 14-segment status
    characters, which have every letter (the 7-segment digits have few);
    a value that is a number is on the big digits too, a refusal is ``ERROR``
    over the first 8 characters of its reason."""
    label, value = m.current()
    if m.error:
        return ("", "ERROR", "") if display == 0 else ("", m.error[:8], "")
    if len(value) > 8:  # a preset's long name: across both glasses
        return ("", value[8 * display : 8 * display + 8], "")
    if display == 0:
        return ("", label[:8], "")
    digits = value.split(" ")[-1]
    if digits[-1:] in ("h", "m", "s") and digits[:-1].isdigit():
        digits = digits[:-1]  # 90m: 90 (its unit on the status characters)
    return ("", value[:8], digits if digits.isdigit() else "")


def _sevens(ram, s):
    for i in range(min(5, len(s))):
        seven(ram, TIME + 7 * i, _seven_char(s[i]))


def _seven_char(ch):
    if "0" <= ch <= "9":
        return SEVEN[ord(ch) - 48]
    return SEVEN_ALPHA.get(ch, 0)


# -- the glass: where each segment is, on a 128x64 picture ---------------------------


def _seven_rects(x, y, w, h, t):
    """A 7-segment digit's segments a..g as rectangles (x, y, w, h), stroke ``t``."""
    m = y + (h - t) // 2
    return (
        ((x + t, y, w - 2 * t, t),),
        ((x + w - t, y + t, t, (h - t) // 2 - t + 1),),
        ((x + w - t, m + t, t, y + h - t - m - t),),
        ((x + t, y + h - t, w - 2 * t, t),),
        ((x, m + t, t, y + h - t - m - t),),
        ((x, y + t, t, (h - t) // 2 - t + 1),),
        ((x + t, m, w - 2 * t, t),),
    )


def _fourteen_rects(x, y, w, h):
    """A 14-segment character as rectangles, stroke 1 (diagonals as steps)."""
    m = y + h // 2
    c = x + w // 2
    out = [
        ((x + 1, y, w - 2, 1),), ((x + w - 1, y + 1, 1, m - y - 1),),
        ((x + w - 1, m + 1, 1, y + h - m - 2),), ((x + 1, y + h - 1, w - 2, 1),),
        ((x, m + 1, 1, y + h - m - 2),), ((x, y + 1, 1, m - y - 1),),
        ((x + 1, m, c - x - 1, 1),), ((c + 1, m, x + w - c - 2, 1),),
    ]  # fmt: skip

    def diag(x0, y0, x1, y1):
        n = max(abs(x1 - x0), abs(y1 - y0)) or 1
        return tuple((x0 + (x1 - x0) * k // n, y0 + (y1 - y0) * k // n, 1, 1) for k in range(n + 1))

    out.append(diag(x + 1, y + 1, c - 1, m - 1))  # h
    out.append(((c, y + 1, 1, m - y - 1),))  # i
    out.append(diag(x + w - 2, y + 1, c + 1, m - 1))  # j
    out.append(diag(c - 1, m + 1, x + 1, y + h - 2))  # k
    out.append(((c, m + 1, 1, y + h - m - 2),))  # l
    out.append(diag(c + 1, m + 1, x + w - 2, y + h - 2))  # m
    return tuple(out)


def _glass():
    g: list = [()] * SEGS
    for i in range(8):  # status: 14-segment characters, 9x10, 13 px apart
        for j, r in enumerate(_fourteen_rects(1 + 13 * i, 0, 9, 10)):
            g[STATUS + 14 * i + j] = r
    g[RUN] = ((0, 12, 128, 2),)  # a bar under the status row: this side's time runs
    g[REC] = ((107, 1, 1, 7), (108, 7, 2, 2), (109, 1, 1, 5))  # a pencil
    g[BAT] = ((114, 2, 11, 6), (125, 3, 2, 4))  # a battery
    xs = (2, 30, 53, 81, 106)
    for i in range(5):  # the time: big digits, 20x44
        for j, r in enumerate(_seven_rects(xs[i], 18, 20, 44, 4)):
            g[TIME + 7 * i + j] = r
    g[COLON1] = ((24, 30, 3, 4), (24, 46, 3, 4))
    g[COLON2] = ((76, 30, 3, 4), (76, 46, 3, 4))
    g[DOT] = ((102, 58, 3, 4),)
    return tuple(g)


GLASS = _glass()


def raster(ram, fb):
    """Draw the lit segments of ``ram`` on ``fb`` (a 128x64 framebuffer: ``fill``,
    ``fill_rect``), as the glass shows them."""
    fb.fill(0)
    for n in range(USED):
        if lit(ram, n):
            for x, y, w, h in GLASS[n]:
                fb.fill_rect(x, y, w, h, 1)


# -- reading a glass back (the simulator's text, the tests) -------------------------


def _bits(ram, base, n):
    v = 0
    for j in range(n):
        v |= lit(ram, base + j) << j
    return v


def _char7(bits):
    if not bits:
        return " "
    for i in range(10):
        if SEVEN[i] == bits:
            return DIGITS[i]
    for ch in SEVEN_ALPHA:
        if SEVEN_ALPHA[ch] == bits:
            return ch
    return "?"


def _char14(bits, letters=False):
    if not bits:
        return " "
    for ch in sorted(FOURTEEN, reverse=letters):  # S and 5 share a pattern
        if FOURTEEN[ch] == bits:
            return ch
    return "?"


def decode(ram):
    """What a glass shows, as text: ``(moves, ot, state, time, marks)``, where
    ``time`` has its colons and point and ``marks`` lists RUN, REC, BAT (on a
    text screen ``moves + ot + state`` is the status line as shown)."""
    moves = "".join(_char14(_bits(ram, STATUS + 14 * i, 14)) for i in range(3)).strip()
    ot = "".join(_char14(_bits(ram, OT + 14 * i, 14)) for i in range(2)).strip()
    state = "".join(_char14(_bits(ram, STATE + 14 * i, 14), True) for i in range(3)).strip()
    t = ""
    for i in range(5):
        t += _char7(_bits(ram, TIME + 7 * i, 7))
        if (i == 0 and lit(ram, COLON1)) or (i == 2 and lit(ram, COLON2)):
            t += ":"
        if i == 3 and lit(ram, DOT):
            t += "."
    marks = [m for m, n in (("RUN", RUN), ("REC", REC), ("BAT", BAT)) if lit(ram, n)]
    return moves, ot, state, t.strip(), marks


def status_line(ram):
    """The 8 status characters as shown (a text screen's line)."""
    return "".join(_char14(_bits(ram, STATUS + 14 * i, 14), True) for i in range(8)).strip()
