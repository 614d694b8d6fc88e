# SPDX-License-Identifier: GPL-3.0-or-later
"""``rp2`` of the simulated RP2040: a model of the levers' PIO program
(firmware/boards/pio.py), as tests/mp/pico_check.py's. Each state machine
waits for its pin to reach the level it wants (0 the press, then 1 the
release), raises its IRQ, and counts the edge's age in µs until the CPU
puts its acknowledgement; ``get`` returns that age. Its clock divider is set
when it is built: after a machine.freq it counts at new f / old f the rate."""

import rp2040sim as C


def asm_pio(**kw):
    def program(f):
        return f

    return program


class StateMachine:
    def __init__(self, id, prog=None, freq=-1, in_base=None, jmp_pin=None, **kw):
        div = C.hz / freq if freq > 0 else 1
        if div < 1 or div > 65536:
            raise ValueError("freq out of range")
        self.id = id
        self.pin = in_base
        self.handler = None
        self.hard = False
        self.on = False
        self.want = 0
        self.since = -1
        self.age = -1
        self._hz = C.hz
        C.sms.append(self)
        C.clocked.append(("sm", id))

    def irq(self, handler=None, trigger=0, hard=False):
        self.handler = handler
        self.hard = hard

    def active(self, v=None):
        if v is not None:
            self.on = bool(v)
            self.step()
        return self.on

    def step(self):
        """The pin may have reached the wanted level: True if the IRQ was raised."""
        if self.on and self.since < 0 and self.pin is not None and self.pin.value() == self.want:
            self.since = C.now
            if self.handler is not None:
                C.interrupt(self.handler, self, self.hard)
            return True
        return False

    def put(self, v):
        if self.since < 0:
            return  # no edge counted: the program is not at its pull
        self.age = (C.now - self.since) * C.hz // self._hz
        self.since = -1
        self.want = 1 - self.want

    def get(self):
        a = self.age
        self.age = -1
        self.step()
        return a
