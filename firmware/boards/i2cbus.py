# SPDX-License-Identifier: GPL-3.0-or-later
"""I2C bus recovery and the panels' re-reset (#29).

A device reset or disturbed in the middle of a byte (an ESD touch, a brown-out
of its own) can hold SDA low, waiting for clocks that never come: every
transfer then fails, and retrying the panel forever on that bus never helps.
``clear`` is the I2C specification's bus clear (NXP UM10204, 3.1.16): up to
nine clocks on SCL, driven by hand, until the device lets SDA go, then a
STOP; the board then builds its ``machine.I2C`` again on those pins.

``Watch`` is the policy: every failed start or frame clears the panel's bus
before the panel is given up until its next retry, and a panel that still
fails ``RESET_AFTER`` starts in a row is reset again (the OLED board pulses
both panels' RES: an SSD1309 that has stopped answering comes back only from
a reset), at most once every ``RESET_MS``, and only one that has answered
since boot: an absent panel does not blink the other one. Only the error path
runs this: nothing here is in the steady tick.
"""

from time import sleep_us

from machine import Pin
from micropython import const

CLOCKS = const(9)  # a byte and its ACK: the most a stuck device can still want
HALF_US = const(5)  # half a clock at 100 kHz, slow enough for any device
RESET_AFTER = const(2)  # failed starts in a row before the panel is reset again
RESET_MS = const(60_000)  # a dead panel costs the other one a blink at most this often


def clear(scl, sda, half_us=HALF_US):
    """Free a bus that a device holds low: clock SCL until SDA is released (at
    most ``CLOCKS`` times), then a STOP (SDA rising while SCL is high).
    ``scl``, ``sda``: GPIO numbers; the pins are left open-drain and released,
    for ``machine.I2C`` to take back. True when both lines are high at the end."""
    c = Pin(scl, Pin.OPEN_DRAIN, value=1)
    d = Pin(sda, Pin.OPEN_DRAIN, value=1)
    sleep_us(half_us)
    n = 0
    while n < CLOCKS and not d.value():
        c.value(0)
        sleep_us(half_us)
        c.value(1)
        sleep_us(half_us)
        n += 1
    c.value(0)  # STOP: SDA low while SCL is low, then SCL high, then SDA high
    sleep_us(half_us)
    d.value(0)
    sleep_us(half_us)
    c.value(1)
    sleep_us(half_us)
    d.value(1)
    sleep_us(half_us)
    return bool(c.value()) and bool(d.value())


class Watch:
    """Counts each panel's failed starts: ``failed`` says when to reset it again."""

    def __init__(self, n=2):
        self.fails = [0] * n
        self.seen = [False] * n  # answered since boot: hung, not absent
        self.clears = 0  # bus clears done (the service screen, the tests)
        self.resets = 0  # panel re-resets done
        self._reset_at = -RESET_MS

    def failed(self, i, now):
        """A start or frame of panel ``i`` failed at ``now`` (ms; its bus has been
        cleared): True when it has answered since boot, has now failed
        ``RESET_AFTER`` times in a row, and no reset came in the last
        ``RESET_MS``; the count then starts again."""
        self.fails[i] += 1
        if not self.seen[i] or self.fails[i] < RESET_AFTER or now - self._reset_at < RESET_MS:
            return False
        self.fails[i] = 0
        self._reset_at = now
        self.resets += 1
        return True

    def ok(self, i):
        self.fails[i] = 0
        self.seen[i] = True
