# SPDX-License-Identifier: GPL-3.0-or-later
# mypy: ignore-errors
# ruff: noqa: F821  (the PIO assembler's names exist only inside rp2.asm_pio)
"""The levers' PIO program (rp2 only; boards/pico.py runs one per lever).

The stamp of a press must not depend on the CPU: rp2's flash driver turns
interrupts off for a whole erase (45 ms typical, 400 ms worst case), and a
pin interrupt would run, and read the time, only after it. A state machine
runs on regardless. It waits for the lever's pin to change, raises its IRQ,
and counts 1-us turns in X (4 cycles a turn at ``pico.SM_HZ``, 4 MHz) until
the CPU acknowledges with a ``put``; then it pushes the count, the edge's age
when the handler ran, and waits for the opposite level. Press and release
alternate, so the handler knows which edge each IRQ is.

Unverified on silicon: the tests run a model of this program (the fake
``rp2`` in tests/mp/pico_check.py); docs/hardware-build.md has its bring-up
check.
"""

import rp2


@rp2.asm_pio()
def lever_pio():
    # in_base and jmp_pin: the lever (pulled up: 0 is pressed).
    wrap_target()
    wait(0, pin, 0)  # the press
    irq(rel(0))
    mov(x, invert(null))
    label("down")
    pull(noblock)  # the CPU's 0, or X again while none came
    mov(y, osr)
    jmp(x_not_y, "down_ack")
    jmp(x_dec, "down")
    label("down_ack")
    mov(isr, invert(x))
    push(block)
    wait(1, pin, 0)  # the release
    irq(rel(0))
    mov(x, invert(null))
    label("up")
    pull(noblock)
    mov(y, osr)
    jmp(x_not_y, "up_ack")
    jmp(x_dec, "up")
    label("up_ack")
    mov(isr, invert(x))
    push(block)
    wrap()
