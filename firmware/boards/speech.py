# SPDX-License-Identifier: GPL-3.0-or-later
"""The battery board's speech gain cap (#29).

Full-scale speech would draw about 0.7 A from two spent cells (2.0 V, with
their own and the FETs' resistance), more than the 400 mA the TPS63900
switches, and pull its input below its 1.8 V minimum. The voice's gain (/256,
``scale`` in pico.py) is capped at ``GAIN_CAP`` so that the loudest speech
stays within both at the cells' end, as ``speech_gain_cap`` in
hardware/power.py computes it from the converter's limits and efficiency, the
amplifier's, the rest of the 3.3 V rail and the resistance on the way
(tests/test_i2cbus.py holds the two equal; hardware/spice.py simulates it).
"""

from micropython import const

GAIN_CAP = const(158)  # /256: hardware/power.py speech_gain_cap()


def capped(gain, cap=GAIN_CAP):
    """``gain`` (/256), no more than ``cap``."""
    return gain if gain < cap else cap
