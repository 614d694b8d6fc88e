# SPDX-License-Identifier: GPL-3.0-or-later
"""The OLED board: two SSD1309 panels, one Li-ion cell (docs/hardware-build.md).

The panels are at 0x3C, one on I2C0 and one on I2C1, driven by ssd1306.py.
At 400 kHz a frame takes about 23 ms, so ``show`` sends only the span of
128-byte pages that changed (#22: after a press the other display's status
row is one page, about 3 ms), and the whole frame every ``RESEND_MS``. Both
panels' RES share one pin, held low by R26 until the board lets it go, so a
brown-out that resets the Pico resets the panels too. The cell is read every
``BATTERY_MS``; the loop sleeps in WFE (``select.poll``), at most
``IDLE_MS`` at a time. Everything else is ``pico.Pico``.
"""

from time import sleep_ms

import framebuf
from machine import Pin
from micropython import const

from . import pins
from .pico import Pico
from .ssd1306 import SSD1306

OLED_ADDR = const(0x3C)  # both panels; one per bus
BATTERY_MS = const(2000)
LOW_MV = const(3850)  # the cell's own volts: 15 h left in the worst case (hardware/power.md)
OK_MV = const(4000)


class Board(Pico):
    CELLS_MS = BATTERY_MS
    TILT_UPRIGHT = 0  # the switch opens when the clock falls (pin high)
    WARN_MV = LOW_MV
    CLEAR_MV = OK_MV

    def _displays(self, buses):
        self._oled = (SSD1306(buses[0], OLED_ADDR, True), SSD1306(buses[1], OLED_ADDR, True))
        self.fb_buf = (self._oled[0].pixels, self._oled[1].pixels)
        self.fb = tuple(framebuf.FrameBuffer(b, 128, 64, framebuf.MONO_VLSB) for b in self.fb_buf)
        self._res = Pin(pins.OLED_RES, Pin.OUT, value=0)
        sleep_ms(1)  # SSD1309: RES low at least 3 us
        self._res.value(1)

    def _reset_panels(self):
        # #29: a panel that stopped answering comes back only from a reset; both
        # share RES, so both start again at their next frame
        self._res.value(0)
        sleep_ms(1)  # SSD1309: RES low at least 3 us
        self._res.value(1)
        for j in (0, 1):
            self._oled_ok[j] = False
            self._retry_ms[j] = self._ref_ms

    def _send(self, i, oled, sent, whole):
        if whole:
            oled.show()
        else:  # #22: only the pages that changed
            oled.changed(sent)
            oled.show_pages(oled.first, oled.last)
