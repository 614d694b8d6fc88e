# SPDX-License-Identifier: GPL-3.0-or-later
"""The battery board's speech gain cap (#29).

Full-scale speech would draw about 0.5 A from two spent cells (2.0 V), more
than the 400 mA the TPS63900 switches. The voice's gain (/256, ``scale`` in
pico.py) is capped at ``GAIN_CAP`` so that the loudest speech stays within it
at the cells' end voltage, as ``speech_gain_cap`` in hardware/power.py
computes it from the converter's limit and efficiency, the amplifier's and
the rest of the 3.3 V rail (tests/test_speech.py holds the two equal).
"""

from micropython import const

GAIN_CAP = const(222)  # /256: hardware/power.py speech_gain_cap()


def capped(gain, cap=GAIN_CAP):
    """``gain`` (/256), no more than ``cap``."""
    return gain if gain < cap else cap
