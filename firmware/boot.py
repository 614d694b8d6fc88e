# SPDX-License-Identifier: GPL-3.0-or-later
"""The first lines that run (#33): the battery board's enable, held at once.

A press of the power key starts the TPS63900 only while the key is down; GP10
high holds it on from here (boards/battery.py's PWR_HOLD), before main.py has
imported anything. On the OLED board GP10 is not connected. Nothing else runs
here: main.py finds the board and runs the clock.
"""

try:
    from machine import Pin

    Pin(10, Pin.OUT, value=1)  # PWR_HOLD
except ImportError:  # the unix port with no simulated RP2040: no pins to hold
    pass
