# SPDX-License-Identifier: GPL-3.0-or-later
"""The battery board: two segment glasses, two AA cells (#22, docs/power.md,
hardware/battery-board.md).

Power
    A press of the power key starts the TPS63900; GP10 (``PWR_HOLD``) high
    then holds its enable, from boot.py's first line on (the key's press is
    brief). ``power_off`` lets it go: after ``OFF_MS`` with no host, no
    running clock and no input, the journal committed and the glasses
    blanked first. With USB the supply stays on whatever the board does.

Glasses
    Two PCF85176 drivers on I2C0, at 0x38 and 0x39 by SA0; a glass's frame is
    24 bytes, always sent whole. No tenths (#22).

Clock
    72 MHz (``CPU_HZ``), the energy model's, set before any peripheral.

Sleep
    With no USB host (GP24, VBUS, low) the loop sleeps in
    ``machine.lightsleep``, woken by the levers' and keys' pin interrupts or
    its deadline, in steps of at most ``pico.WDT_STEP_MS`` while the watchdog
    runs (it counts through lightsleep). Nothing plays then (the I2S needs its clocks) and nothing
    settles (keys, tilt, a bounce window: polled every ``POLL_MS``).

Cells
    Read once a minute: GP13 switches the divider on, and the reading comes
    ``MEAS_SETTLE_MS`` later, when it has settled. The amplifier has its own
    load switch (GP11), on only while a cue plays.

Levers
    The board's 1 MOhm pull-ups alone: the internal ~50 kOhm would draw
    ~66 uA all game through the held lever.
"""

import machine
from machine import Pin
from micropython import const

from qizhong import app as A
from qizhong import segface

from . import cell
from .pcf85176 import PCF85176
from .pico import POLL_MS, VBUS_SENSE, Pico
from .speech import GAIN_CAP

GLASS_ADDR = const(0x38)  # the PCF85176s: 0x38 and 0x39, both on I2C0
BATTERY_ON_CELLS_MS = const(60_000)  # the cells are read once a minute (#22)
# The battery board's own pins (hardware/battery-board.md) and figures.
PWR_HOLD = const(10)  # high holds the TPS63900 on; low: the clock switches itself off
AMP_PWR = const(11)  # the amplifier's load switch
BAT_MEAS = const(13)  # switches the cells' divider on for a reading
KEY_POWER = const(12)  # the power key through Q6: low while it is down (#29)
MEAS_SETTLE_MS = const(300)  # the divider's 1 MOhm / 100 nF settles (5 time constants)
OFF_MS = const(30 * 60_000)  # no host, not running, no input this long: off (the journal keeps it)
# The CPU clock on this board (#33), the energy model's (docs/power.md): a
# loop pass costs the same energy at any clock and is shorter at a fast one,
# but a cue's I2S keeps the clocks on (WFE) at the same clock for the sound's
# time; 72 MHz balances the two (a second's pass, ~0.9 M cycles, 1.2 % awake).
# Set before any peripheral, so every divider is computed for it: the levers'
# PIO (4 MHz: 72 / 18 exactly), the buzzer's PWM, the I2C rate, and the I2S
# when a cue builds it (rp2's machine_i2s.c: PIO at rate * 2 * 16 * 2 =
# 512 kHz, a divider of 140.625, exact in 16.8). USB still works: clk_sys must
# be at least clk_usb, 48 MHz (pico-sdk issue #1697). The PLL makes it exactly:
# 12 MHz * 120 = 1440 MHz VCO, / 5 / 4 (RP2040 datasheet 2.18.2).
CPU_HZ = const(72_000_000)


class Board(Pico):
    tenths = False  # #22: the budget has no tenths
    CELLS_MS = BATTERY_ON_CELLS_MS
    TILT_UPRIGHT = 1  # the switch closes when the clock falls (pin low): no draw standing
    WARN_MV = cell.WARN_MV  # the cells' curve at this board's rate (#29, boards/cell.py)
    CLEAR_MV = cell.CLEAR_MV
    LEVER_PULL_UP = False
    LEVER_WAKES = True
    PANEL_BUS = (0, 0)  # both glasses on I2C0
    GAIN_MAX = GAIN_CAP  # #29: speech within the TPS63900's 400 mA at the cells' end

    def _power_on(self):
        self._hold = Pin(PWR_HOLD, Pin.OUT, value=1)  # first: the key's press is brief
        machine.freq(CPU_HZ)  # before any peripheral takes its divider from the clock
        self._amp_pwr = Pin(AMP_PWR, Pin.OUT, value=0)
        self._meas = Pin(BAT_MEAS, Pin.OUT, value=0)
        self.key_power = Pin(KEY_POWER, Pin.IN, Pin.PULL_UP)  # the pull Q6 works against

    def _displays(self, buses):
        # both glasses on I2C0, by SA0 (hardware/battery-board.md)
        self._oled = (PCF85176(buses[0], GLASS_ADDR), PCF85176(buses[0], GLASS_ADDR + 1))
        self.fb_buf = (self._oled[0].ram, self._oled[1].ram)
        ram = self.fb_buf
        self.fb = (segface.SegText(ram[0], 0), segface.SegText(ram[1], 1))
        self.faces = (segface.SegFace(ram[0]), segface.SegFace(ram[1]))
        self._vbus = Pin(VBUS_SENSE, Pin.IN)  # high while a USB host powers the port

    def _cells_start(self):
        self._meas.value(1)  # the divider on; the first reading once it has settled
        self._meas_at = MEAS_SETTLE_MS

    def _cells_poll(self, now):
        if self._meas_at >= 0:
            if now >= self._meas_at:  # the divider has settled: read, and switch it off
                self._meas_at = -1
                self._battery()
                self._meas.value(0)
        elif now - self._battery_ms >= self.CELLS_MS:
            self._battery_ms = now  # switch the divider on; read once it has settled
            self._meas.value(1)
            self._meas_at = now + MEAS_SETTLE_MS

    def _idle(self, now, cells):
        return cells  # no idle wake: the next reading of the cells

    def _power_limit(self, now, limit):
        # soft power: off after OFF_MS quiet with no host
        app = self._app
        if self._r != self._w or self._n or app is None or app.clock.state == A.C.RUNNING:
            self._quiet_ms = now
        off = self._quiet_ms + OFF_MS
        if now >= off and not self._vbus.value():
            self.power_off()
        elif off < limit:
            limit = off
        return limit

    def power_off(self):
        """Switch the clock off: the journal committed, the glasses blanked,
        then PWR_HOLD let go, and the supply with it (a key switches it on
        again; the journal brings the game back, paused). With USB the supply
        stays on whatever this does."""
        if self._app is not None:
            self._app.commit()
        for g in self._oled:
            try:
                g.power(False)
            except OSError:
                pass
        self.off = True
        self._hold.value(0)

    def _deep(self, dt):
        """Sleep in machine.lightsleep, not in WFE, when no USB host is there
        (its bytes could not wake it), nothing plays, nothing settles and the
        sleep is worth a clock restart."""
        return (
            dt > POLL_MS
            and not self._playing
            and not self._amp_off_due
            and not self._vbus.value()
            and not self._settling()
        )

    def _amp_power(self, on):
        self._amp_pwr.value(1 if on else 0)  # the load switch: the amplifier draws nothing off

    def _send(self, i, oled, sent, whole):
        oled.show()  # a glass is 24 bytes: always whole
