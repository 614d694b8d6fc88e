# SPDX-License-Identifier: GPL-3.0-or-later
"""The OLED board's I2C rate rule, in one place (#17, #22).

Both displays' frames must fit in the app's fastest refresh. ``check(hz)``
says why a rate breaks that ("" if it does not); ``boards/pico.py`` falls
back to ``SAFE_HZ`` at boot rather than refuse to run (a refusal there would
reset the clock forever), and ``tools/build_firmware.py`` (``make firmware``)
refuses to build a bundle whose ``I2C_HZ`` breaks it. Pure: no hardware.
"""

FRAME_BITS = (2 + 1024) * 9 + 2  # address, 0x40, 1024 bytes: 9 clocks each; start, stop
REFRESH_MS = 100  # the app's fastest refresh (App.REFRESH_MS)
SAFE_HZ = 400_000  # the rate the board falls back to
MAX_HZ = 1_000_000  # I2C Fast-mode Plus


def frame_us(hz):
    """How long one 1,025-byte frame takes on an I2C bus clocked at ``hz``."""
    return FRAME_BITS * 1_000_000 // hz


def check(hz):
    """Why ``hz`` cannot drive the two displays ("" when it can)."""
    if not isinstance(hz, int) or not 10_000 <= hz <= MAX_HZ:
        return "I2C_HZ %r: not a rate from 10 kHz to %d Hz" % (hz, MAX_HZ)
    if 2 * frame_us(hz) > REFRESH_MS * 1000:
        return "I2C_HZ %d: two frames take %d ms, more than the %d ms refresh" % (
            hz,
            2 * frame_us(hz) // 1000,
            REFRESH_MS,
        )
    return ""
