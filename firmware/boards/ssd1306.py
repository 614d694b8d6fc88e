# SPDX-License-Identifier: GPL-3.0-or-later
"""A minimal SSD1306 / SSD1309 driver: one 128x64 monochrome OLED on I2C.

Written for qizhong from the command tables of the Solomon Systech datasheets
(SSD1306 rev 1.5, SSD1309 rev 1.1). The controller's RAM is 8 pages of 128
column bytes with bit 0 at the top of each page, which is framebuf.MONO_VLSB:
a 1024-byte frame goes out unchanged, in horizontal addressing mode.

Every I2C transfer begins with a control byte: 0x00 (commands follow) or 0x40
(display data follows). A frame is one transfer of 0x40 and the 1024 bytes:

- ``show()`` sends the driver's own buffer ``buf``: 1025 bytes, the 0x40 prefix
  and then ``pixels`` (a memoryview of the 1024 pixel bytes, for a FrameBuffer).
  One ``writeto``, nothing allocated.
- ``show(frame)`` sends any 1024-byte buffer with ``writevto`` and a vector
  preallocated with the prefix. That allocates nothing in Python. But on rp2
  the I2C driver joins the vector into one temporary C buffer (the generic
  ``mp_machine_i2c_transfer_adaptor``), so each frame briefly takes 1 KB of
  heap. The board uses ``show()``.

The SSD1309 has no charge pump (its panel supply is on the module), and it
wants other pre-charge and VCOMH values. ``ssd1309=True`` selects those.
"""

from micropython import const

WIDTH = const(128)
HEIGHT = const(64)
FRAME = const(1024)  # WIDTH * HEIGHT // 8
ADDR = const(0x3C)  # 0x3D when the module's D/C# (SA0) pad is tied high

_CMD = const(0x00)  # control byte: the rest of the transfer is commands
_DATA = const(0x40)  # control byte: the rest is display RAM data

_ADDRESSING = const(0x20)  # + 0: horizontal (column, then page, wraps to 0,0)
_COLUMNS = const(0x21)  # + first, last column
_PAGES = const(0x22)  # + first, last page
_SCROLL_OFF = const(0x2E)
_START_LINE = const(0x40)  # | line 0..63
_CONTRAST = const(0x81)  # + 0..255
# The level set at start: the segment current, and so the panel's current, is
# proportional to it (SSD1309 datasheet, Set Contrast Control); hardware/power.md.
LEVEL = const(0x3F)
_CHARGE_PUMP = const(0x8D)  # SSD1306 only: + 0x14 on, 0x10 off
_SEG_REMAP = const(0xA0)  # | 1: column 127 drives SEG0
_FOLLOW_RAM = const(0xA4)  # (0xA5 lights every pixel)
_NORMAL = const(0xA6)  # | 1: inverse
_MULTIPLEX = const(0xA8)  # + rows - 1
_OFF = const(0xAE)
_ON = const(0xAF)
_COM_SCAN = const(0xC0)  # | 8: scan COM[N-1] to COM0
_OFFSET = const(0xD3)  # + vertical shift
_CLOCK = const(0xD5)  # + oscillator << 4 | (divide - 1)
_PRECHARGE = const(0xD9)  # + phase 2 << 4 | phase 1, in DCLKs
_COM_PINS = const(0xDA)  # + 0x12: alternative COM pins, no left/right remap (64 rows)
_VCOMH = const(0xDB)  # + deselect level


class SSD1306:
    """One display at ``addr`` on ``i2c`` (a machine.I2C)."""

    def __init__(self, i2c, addr=ADDR, ssd1309=False, flip=False):
        self.i2c = i2c
        self.addr = addr
        self.ssd1309 = ssd1309
        self.flip = flip  # rotate 180 degrees (a display mounted upside down)
        self.buf = bytearray(1 + FRAME)
        self.buf[0] = _DATA
        self.pixels = memoryview(self.buf)[1:]
        self._vec = [self.buf[:1], self.pixels]  # [prefix, frame] for writevto
        self._window = bytes((_CMD, _COLUMNS, 0, WIDTH - 1, _PAGES, 0, HEIGHT // 8 - 1))
        self._pages = bytearray(self._window)  # the same, its page range set per send
        # #22: a span of pages p0..p1 goes out as buf[128 * p0 : 128 * (p1 + 1) + 1]
        # with the byte before it briefly the 0x40 prefix; its views made once.
        n = HEIGHT // 8
        mv = memoryview(self.buf)
        self._spans = tuple(
            tuple(mv[WIDTH * p0 : WIDTH * (p1 + 1) + 1] for p1 in range(n)) for p0 in range(n)
        )
        self.first = 0  # the changed pages, as ``changed`` found them
        self.last = -1
        self._cmd = bytearray(3)  # [_CMD, command, argument]
        self._cmd[0] = _CMD

    def init(self):
        """Configure the controller, clear the panel, switch it on (OSError: absent)."""
        seg = _SEG_REMAP if self.flip else _SEG_REMAP | 1
        com = _COM_SCAN if self.flip else _COM_SCAN | 8
        if self.ssd1309:  # external panel supply: no charge pump; datasheet defaults
            supply = bytes((_PRECHARGE, 0x22, _VCOMH, 0x34))
        else:  # internal charge pump on; VCOMH 0.83 x Vcc
            supply = bytes((_CHARGE_PUMP, 0x14, _PRECHARGE, 0xF1, _VCOMH, 0x30))
        cmds = (
            bytes((_CMD, _OFF, _CLOCK, 0x80, _MULTIPLEX, HEIGHT - 1, _OFFSET, 0, _START_LINE))
            + bytes((_ADDRESSING, 0, seg, com, _COM_PINS, 0x12, _CONTRAST, LEVEL))
            + supply
            + bytes((_FOLLOW_RAM, _NORMAL, _SCROLL_OFF))
        )
        self.i2c.writeto(self.addr, cmds)
        self.show()  # what the buffer holds (blank at first), before the panel lights
        self.power(True)

    def show(self, frame=None):
        """Send a frame: the driver's own ``buf`` (None), or a 1024-byte buffer."""
        self.i2c.writeto(self.addr, self._window)  # RAM pointer to (0, 0), always
        if frame is None:
            self.i2c.writeto(self.addr, self.buf)
        else:
            self._vec[1] = frame
            self.i2c.writevto(self.addr, self._vec)

    def changed(self, sent):
        """Find the pages where ``buf`` differs from ``sent`` (a copy of the
        last ``buf`` sent): ``first``..``last`` (``last`` < ``first``: none).
        Allocates nothing; about a thousand byte compares at worst."""
        buf = self.buf
        n = HEIGHT // 8
        first = n
        last = -1
        for p in range(n):
            i = 1 + WIDTH * p
            end = i + WIDTH
            while i < end:
                if buf[i] != sent[i]:
                    if p < first:
                        first = p
                    last = p
                    break
                i += 1
        self.first = first
        self.last = last

    def show_pages(self, p0, p1):
        """Send pages ``p0``..``p1`` of ``buf`` only (#22: after a press the
        other display's status row is one page, 3 ms at 400 kHz, not 23)."""
        w = self._pages
        w[5] = p0
        w[6] = p1
        self.i2c.writeto(self.addr, w)
        buf = self.buf
        k = WIDTH * p0
        keep = buf[k]
        buf[k] = _DATA
        try:
            self.i2c.writeto(self.addr, self._spans[p0][p1])
        finally:
            buf[k] = keep

    def contrast(self, level):
        """Panel brightness, 0..255 (segment current)."""
        self._command(_CONTRAST, level & 0xFF)

    def power(self, on):
        """Panel on or off (sleep: the RAM keeps the frame)."""
        self._command(_ON if on else _OFF, -1)

    def invert(self, on):
        self._command(_NORMAL | (1 if on else 0), -1)

    def _command(self, c, arg):
        cmd = self._cmd
        cmd[1] = c
        if arg < 0:
            self.i2c.writeto(self.addr, memoryview(cmd)[:2])
        else:
            cmd[2] = arg
            self.i2c.writeto(self.addr, cmd)
