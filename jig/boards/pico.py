# SPDX-License-Identifier: GPL-3.0-or-later
"""The jig's own Pico: optocouplers out, the clock's buzzer and amplifier in.

Not yet run on hardware (docs/jig.md says what is unverified).

Optocouplers
    ``pins.OPTO[ch]`` high lights the LED of channel ``ch``; its transistor
    pulls the clock's input low, as the closed switch would. The tilt channel
    is lit from boot: the clock stands upright until ``tilt``.

Buzzer
    A hard IRQ on both edges of the buzzer line hands ``ticks_us`` to the
    core's Buzzer (it only stores ints). ``poll`` turns the stamps into
    ``beep T 1|0`` in the loop.

Voice
    The amplifier's enable line (the clock's GP21) starts a capture on its
    rising edge: a PIO state machine clocks in the I2S data (32 bits a frame,
    the left sample in the top half) and DMA moves ``FRAMES`` frames into a
    buffer; while the amplifier stays on, the next capture follows. Each
    buffer's left samples go to the core's Voice matcher, stamped from the
    capture's start. ``amp T 1|0`` reports the enable line itself.
"""

import asyncio
from time import ticks_diff, ticks_ms, ticks_us

import jigcore
import pins
import rp2
from machine import Pin

FRAMES = 2048  # 256 ms of 8 kHz frames per capture
PIO0_RXF0 = 0x50200020  # RP2040: PIO0 base + RXF0
DREQ_PIO0_RX0 = 4
POLL_MS = 2


@rp2.asm_pio(
    in_shiftdir=rp2.PIO.SHIFT_LEFT, autopush=True, push_thresh=32, fifo_join=rp2.PIO.JOIN_RX
)
def _i2s_in():
    # Pins (relative to in_base = DIN): 1 BCLK, 2 LRCLK. Sync once on a left word.
    wait(1, pin, 2)  # noqa: F821  (PIO assembler names)
    wait(0, pin, 2)  # noqa: F821
    wait(0, pin, 1)  # noqa: F821
    wait(1, pin, 1)  # noqa: F821  the I2S one-bit delay
    wrap_target()  # noqa: F821
    wait(0, pin, 1)  # noqa: F821
    wait(1, pin, 1)  # noqa: F821
    in_(pins, 1)  # noqa: F821
    wrap()  # noqa: F821


class Board:
    def __init__(self):
        self._t0 = ticks_ms()
        self._opto = [Pin(n, Pin.OUT, value=0) for n in pins.OPTO]
        self._opto[jigcore.TILT].value(1)  # upright
        self.buzzer = jigcore.Buzzer(ticks_diff)
        self.voice = jigcore.Voice()
        self._jig = None
        self._out = []
        self._buzz = Pin(pins.BUZZER, Pin.IN, Pin.PULL_DOWN)
        self._buzz.irq(self._buzz_edge, Pin.IRQ_RISING | Pin.IRQ_FALLING, hard=True)
        self._amp = Pin(pins.AMP_SD, Pin.IN, Pin.PULL_DOWN)
        self._amp_level = 0
        for n in (pins.I2S_DIN, pins.I2S_BCLK, pins.I2S_LRCLK):
            Pin(n, Pin.IN)
        self._sm = rp2.StateMachine(0, _i2s_in, freq=125_000_000, in_base=Pin(pins.I2S_DIN))
        # Two buffers, two DMA channels chained to each other: no frame is lost
        # while the loop reads the full buffer.
        self._bufs = (bytearray(FRAMES * 4), bytearray(FRAMES * 4))
        self._dma = (rp2.DMA(), rp2.DMA())
        self._fill = -1  # the buffer being filled (-1: not capturing)
        self._fill_us = 0  # ticks_us when it started
        self._samples = [0] * FRAMES
        self._task = None

    def attach(self, jig):
        self._jig = jig
        self._task = asyncio.create_task(self._watch())

    def close(self):
        self._stop_capture()
        for d in self._dma:
            d.close()

    # -- time --------------------------------------------------------------------

    def now(self):
        return ticks_diff(ticks_ms(), self._t0)

    async def sync(self):
        self._t0 = ticks_ms()
        return -1

    async def until(self, t):
        while True:
            dt = t - self.now()
            if dt <= 0:
                return -1
            await asyncio.sleep_ms(dt if dt < POLL_MS else POLL_MS)

    # -- optocouplers ------------------------------------------------------------

    async def drive(self, ch, on, t):
        self._opto[ch].value(1 if on else 0)
        return -1

    # -- listening ---------------------------------------------------------------

    def _buzz_edge(self, pin):
        self.buzzer.edge(pin.value(), ticks_us())

    def _arm(self, i, trigger):
        d = self._dma[i]
        other = self._dma[1 - i].channel
        ctrl = d.pack_ctrl(size=2, inc_read=False, treq_sel=DREQ_PIO0_RX0, chain_to=other)
        d.config(read=PIO0_RXF0, write=self._bufs[i], count=FRAMES, ctrl=ctrl, trigger=trigger)

    def _start_capture(self):
        self._sm.active(0)
        self._sm.restart()
        self._arm(1, False)
        self._arm(0, True)
        self._fill = 0
        self._fill_us = ticks_us()
        self.voice.reset()
        self._sm.active(1)

    def _stop_capture(self):
        self._sm.active(0)
        for d in self._dma:
            d.active(0)
        self._fill = -1

    def _take(self, i, frames, now_ms, now_us):
        """Hand ``frames`` left samples of buffer i to the matcher."""
        buf = self._bufs[i]
        samples = self._samples
        for k in range(frames):
            x = buf[4 * k + 3] << 8 | buf[4 * k + 2]  # the top half of a little-endian word
            samples[k] = x - 65536 if x & 0x8000 else x
        found = []
        self.voice.samples(self._fill_us, samples[:frames], found)
        for kind, t_us, arg in found:
            self._out.append((kind, now_ms + ticks_diff(t_us, now_us) // 1000, arg))
        self._fill_us += frames * jigcore.US_PER_SAMPLE

    async def _watch(self):
        while True:
            now_us = ticks_us()
            now_ms = self.now()
            amp = self._amp.value()
            i = self._fill
            if i >= 0 and not self._dma[i].active() and self._dma[1 - i].active():
                self._take(i, FRAMES, now_ms, now_us)  # full: the other one fills now
                self._arm(i, False)
                self._fill = 1 - i
            if amp != self._amp_level:
                self._amp_level = amp
                self._out.append(("amp", now_ms, amp))
                if amp and self._fill < 0:
                    self._start_capture()
                elif not amp and self._fill >= 0:
                    i = self._fill
                    done = FRAMES - self._dma[i].count
                    self._stop_capture()
                    self._take(i, done, now_ms, now_us)
            self.buzzer.poll(now_ms, now_us, self._out)
            if self._out and self._jig is not None:
                self._jig.report(self._out)
                self._out = []
            await asyncio.sleep_ms(POLL_MS)
