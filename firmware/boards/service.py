# SPDX-License-Identifier: GPL-3.0-or-later
"""Service mode: the REPL on USB, for developers and `make flash` (#12).

In play the clock's USB port carries the framed protocol and nothing else:
main.py switches Ctrl-C off before anything else, and whatever ends the
clock's loop resets the Pico instead of falling through to the REPL. So
nobody with only the cable reaches a Python prompt, raw paste, mpremote or
the files (the arbiter's key in ``/state``).

Service mode needs someone at the clock: hold **menu** and **ok** while the
clock is switched on (or while the USB cable powers it up). ``requested``
reads the two keys' pins at boot, ``SAMPLES`` times ``GAP_MS`` apart; both
must read pressed every time. ``enter`` switches Ctrl-C back on, shows
SERVICE on both displays, and returns: main.py then ends, the watchdog was
never started, and MicroPython's REPL has the USB port (mpremote, `make
flash`). Switching the clock off and on again leaves service mode.
"""

from machine import Pin

from . import pins

KEYS = (pins.KEY_MENU, pins.KEY_OK)  # both held at power-on; pulled up, pressed reads 0
SAMPLES = 5
GAP_MS = 10  # 5 readings over 40 ms: a key bouncing or brushed is not held


def requested(sleep_ms=None):
    """True if menu and ok are both held now (read SAMPLES times)."""
    if sleep_ms is None:
        from time import sleep_ms
    keys = [Pin(n, Pin.IN, Pin.PULL_UP) for n in KEYS]
    for i in range(SAMPLES):
        for k in keys:
            if k.value():  # released
                return False
        if i < SAMPLES - 1:
            sleep_ms(GAP_MS)
    return True


def enter():
    """Switch Ctrl-C on again and say SERVICE on the displays; main.py then
    returns to the REPL."""
    import micropython

    micropython.kbd_intr(3)
    try:
        _show()
    except (OSError, ImportError):  # a display missing: service mode all the same
        pass


def _show():
    import framebuf
    from machine import I2C

    from .ssd1306 import SSD1306

    buses = (
        I2C(0, scl=Pin(pins.I2C0_SCL), sda=Pin(pins.I2C0_SDA)),
        I2C(1, scl=Pin(pins.I2C1_SCL), sda=Pin(pins.I2C1_SDA)),
    )
    for bus in buses:
        oled = SSD1306(bus, 0x3C, True)
        oled.init()  # (clears the panel's buffer)
        fb = framebuf.FrameBuffer(oled.pixels, 128, 64, framebuf.MONO_VLSB)
        fb.fill(0)
        fb.text("SERVICE", 36, 16, 1)
        fb.text("REPL on USB", 20, 32, 1)
        fb.text("off/on: play", 16, 48, 1)
        oled.show()
