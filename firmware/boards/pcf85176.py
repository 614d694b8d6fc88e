# SPDX-License-Identifier: GPL-3.0-or-later
"""A minimal PCF85176 driver: one 40 x 4 segment LCD glass on I2C (#22).

Written for qizhong from the command table of the NXP PCF85176 data sheet.
Every command byte carries a continuation bit C (bit 7): 1, another command
follows; 0, the last command, display RAM bytes follow. The commands used:

- mode set ``C 1 0 LP E B M1 M0``: E = 1 display on, B = 0 1/3 bias,
  M = 00 1:4 multiplex (4 backplanes), LP = 0 normal drive;
- device select ``C 1 1 0 0 A2 A1 A0``: subaddress 0 (one driver per bus);
- blink select ``C 1 1 1 0 AB BF1 BF0``: blinking off;
- load data pointer ``C 0 P5..P0``: RAM address 0.

In 1:4 multiplex a RAM byte holds two segment lines, four backplanes each,
the first line in the high nibble: the order of ``segface``'s bits (segment
``n`` at byte ``n >> 3``, bit ``7 - (n & 7)``). ``show(ram)`` sends the 20
bytes after four command bytes in one ``writeto``: 22 bytes with the address,
about 0.5 ms at 400 kHz; nothing is allocated (the frame buffer is the
driver's). ``power(False)`` blanks the glass (mode set with E = 0): the
driver's current then falls to its standby figure (docs/power.md).
Unverified on silicon: the bring-up checklist (docs/hardware-build.md)
starts with every segment lit, then each field in turn.
"""

from micropython import const

ADDR = const(0x38)  # SA0 tied low (0x39 high)
RAM = const(20)  # 40 segment lines x 4 backplanes, bits
_MODE_ON = const(0xC8)  # C=1, mode set, E=1, B=0 (1/3 bias), M=00 (1:4)
_MODE_OFF = const(0xC0)  # C=1, mode set, E=0 (blank)
_DEVICE = const(0xE0)  # C=1, device select, subaddress 0
_BLINK_OFF = const(0xF0)  # C=1, blink select, off
_POINTER = const(0x00)  # C=0 (last command), load data pointer 0
HEAD = bytes((_MODE_ON, _DEVICE, _BLINK_OFF, _POINTER))


class PCF85176:
    """One glass. ``ram`` (a memoryview of the frame's last 20 bytes) is what
    the face draws into; ``show()`` sends it."""

    def __init__(self, i2c, addr=ADDR):
        self.i2c = i2c
        self.addr = addr
        self.buf = bytearray(HEAD + bytes(RAM))  # the commands, then the display RAM
        self.ram = memoryview(self.buf)[len(HEAD) :]

    def init(self):
        """Mode, subaddress, no blinking, and a blank glass."""
        for i in range(RAM):
            self.ram[i] = 0
        self.show()

    def show(self):
        self.i2c.writeto(self.addr, self.buf)

    def power(self, on):
        """Display on (as ``init`` left it) or blank (E = 0), the RAM kept."""
        self.i2c.writeto(self.addr, LAST_ON if on else LAST_OFF)


LAST_ON = bytes((_MODE_ON & 0x7F,))  # mode set as the last command (C = 0), no data
LAST_OFF = bytes((_MODE_OFF & 0x7F,))
