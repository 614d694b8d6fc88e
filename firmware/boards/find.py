# SPDX-License-Identifier: GPL-3.0-or-later
"""Which board is this? ``board()`` builds the one that is there (#33).

The boards differ on I2C0 (GP0 SDA, GP1 SCL): the battery board's PCF85176
glass drivers answer at 0x38 and 0x39. ``kind`` scans that bus at 100 kHz
(the PCF85176's top rate) and says "battery", "oled" (a panel at 0x3C) or ""
when nothing answers. On the OLED board nothing does: R26 holds both panels
in reset until oled.Board lets RES go, so "" is the OLED board (as is a hung
or missing glass, which this cannot tell apart). The unix port with no simulated
RP2040 on its path has no ``machine.I2C``: the board is then the host
simulator's (boards/sim.py). The battery board's enable (GP10) is held by
boot.py before this runs; on the OLED board GP10 is not connected.
"""

from micropython import const

GLASS_ADDR = const(0x38)  # battery.GLASS_ADDR and the next one
OLED_ADDR = const(0x3C)  # oled.OLED_ADDR
PROBE_HZ = const(100_000)
TRIES = const(3)  # a driver still in its power-on reset answers on the next scan


def kind(i2c):
    """ "battery", "oled" or "" from one bus's scan (tried ``TRIES`` times)."""
    for _ in range(TRIES):
        try:
            found = i2c.scan()
        except OSError:  # a bus held low: no answer (a reset loop would be worse)
            continue
        if GLASS_ADDR in found or GLASS_ADDR + 1 in found:
            return "battery"
        if OLED_ADDR in found:
            return "oled"
    return ""


def board():
    """The board that is there, built."""
    try:
        from machine import I2C, Pin
    except ImportError:  # the unix port, no simulated chip: the host simulator's world
        from boards import sim

        return sim.Board()
    from boards import pins

    bus = I2C(0, scl=Pin(pins.I2C0_SCL), sda=Pin(pins.I2C0_SDA), freq=PROBE_HZ)
    found = kind(bus)
    del bus
    if found == "battery":
        from boards import battery

        return battery.Board()
    from boards import oled

    return oled.Board()
