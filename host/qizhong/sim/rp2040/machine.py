# SPDX-License-Identifier: GPL-3.0-or-later
"""``machine`` of the simulated RP2040 (rp2040sim.py): what rp2's module gives
the firmware, at the board boundary, in virtual time."""

import rp2040sim as C

PWRON_RESET = 1
WDT_RESET = 3


def freq(f=None):
    if f is None:
        return C.hz
    C.set_freq(f)


def lightsleep(ms=None):
    if ms is None:
        raise ValueError("lightsleep with no period: DORMANT needs a wake source")
    if ms <= 1:  # rp2: too short to sleep, a plain delay
        C.busy(ms * 1000 if ms > 0 else 0)
        return
    if ms >= C.SLEEP_MAX_MS:
        raise ValueError("sleep too long")
    C.sleep(ms * 1000, "lightsleep")


def idle():
    C.sleep(-1, "wfe", lambda: True)


def reset():
    C.line("reset %d machine" % C.now)
    raise C.Reset("machine.reset")


def reset_cause():
    return PWRON_RESET


def unique_id():
    return bytes((0xE6, 0x60, 0x38, 0xB7, 0x13, 0x3F, 0x5A, 0x2C))


def disable_irq():
    C.masked += 1
    return 1


def enable_irq(state=1):
    C.masked -= 1
    if not C.masked:
        C.unmask()


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    ALT = 3
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, id, mode=-1, pull=-1, value=None):
        self.id = id
        self.handler = None
        self.trigger = 0
        self.hard = False
        self._v = 0
        self.mode = -1
        C.pins[id] = self
        self.init(mode, pull, value)

    def init(self, mode=-1, pull=-1, value=None):
        if mode != -1:
            self.mode = mode
        if value is not None:
            self._set(1 if value else 0)

    def _set(self, v):
        if v != C.world_out.get(self.id, -1):
            C.world_out[self.id] = v
            if self.id in C.POWER_PINS:
                C.line("pin %d %d %d" % (C.now, self.id, v))
                if self.id == 10 and not v:
                    C.check_off()
        self._v = v

    def value(self, v=None):
        if v is None:
            if self.mode == Pin.OUT:
                return self._v
            return C.world.get(self.id, 1)
        self._set(1 if v else 0)

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)

    def __call__(self, v=None):
        return self.value(v)

    def irq(self, handler=None, trigger=12, hard=False):
        self.handler = handler
        self.trigger = trigger
        self.hard = hard


def _hz_at(hz_then, f):
    """A divider set at ``hz_then`` for ``f``: the rate it makes now."""
    return f * C.hz // hz_then


class I2C:
    def __init__(self, id, scl=None, sda=None, freq=400_000, timeout=50_000):
        if id not in (0, 1):
            raise ValueError("I2C(%d) doesn't exist" % id)
        self.id = id
        self.freq = freq
        self.timeout = timeout
        self._hz = C.hz  # clk_peri follows clk_sys (pico-sdk set_sys_clock_khz)
        self._told = False

    def _bus(self, nbytes):
        if self._hz != C.hz and not self._told:
            self._told = True
            C.line("clock %d i2c %d" % (C.now, self.id))  # set up at the old clock
        rate = _hz_at(self._hz, self.freq)
        C.busy((nbytes * 9 + 2) * 1_000_000 // rate)  # 9 bits a byte, START and STOP

    def scan(self):
        self._bus(112)  # 0x08-0x77, one address byte each
        return sorted(a for a, d in C.buses[self.id].items() if d.answers())

    def _dev(self, addr):
        d = C.buses[self.id].get(addr)
        if d is None or not d.answers():
            self._bus(1)
            raise OSError(5)  # EIO: no ACK
        return d

    def writeto(self, addr, buf, stop=True):
        d = self._dev(addr)
        self._bus(1 + len(buf))
        d.write(bytes(buf))
        return len(buf)

    def writevto(self, addr, vector, stop=True):
        d = self._dev(addr)
        data = b"".join(bytes(b) for b in vector)
        self._bus(1 + len(data))
        d.write(data)
        return len(vector)

    def readfrom(self, addr, n, stop=True):
        self._dev(addr)
        self._bus(1 + n)
        return bytes(n)


class PWM:
    """rp2's PWM enables no interrupt: running, it wakes nothing (its current
    is the energy model's). Its divider is set at ``freq``: a later
    machine.freq moves the tone."""

    def __init__(self, pin, freq=0, duty_u16=0):
        self.pin = pin
        self._f = freq
        self._hz = C.hz
        self._duty = duty_u16
        C.clocked.append(("pwm", pin.id))
        self._log()

    def _log(self):
        C.line("pwm %d %d %d %d" % (C.now, self.pin.id, _hz_at(self._hz, self._f), self._duty))

    def freq(self, f=None):
        if f is None:
            return _hz_at(self._hz, self._f)
        self._f = f
        self._hz = C.hz
        self._log()

    def duty_u16(self, d=None):
        if d is None:
            return self._duty
        if d != self._duty:
            self._duty = d
            self._log()

    def deinit(self):
        self._duty = 0
        self._log()


class _Dma(C.Source):
    """rp2's I2S DMA: an IRQ per half buffer (32 stereo frames), silence or not."""

    def __init__(self, i2s):
        self.i2s = i2s
        self.base_us = 32 * 1_000_000 // i2s.rate
        super().__init__("i2s", self.base_us * i2s._hz // C.hz, i2s._dma)

    def asleep(self, flag):
        # lightsleep: clk_sys from the 12 MHz crystal; the PIO keeps its divider
        clk = C.XOSC_HZ if flag else C.hz
        period = self.base_us * self.i2s._hz // clk
        if period != self.period_us:
            rem = self.next_us - C.now
            self.next_us = C.now + rem * period // self.period_us
            self.period_us = period


class I2S:
    RX = 0
    TX = 1
    MONO = 0
    STEREO = 1

    def __init__(self, id, **kw):
        self.id = id
        self._src = None
        self.handler = None
        self.init(**kw)

    def init(self, sck=None, ws=None, sd=None, mode=1, bits=16, format=0, rate=8000, ibuf=4096):
        if self._src is not None:
            raise OSError(1)  # rp2: already initialised
        self.rate = rate
        self.ibuf = ibuf
        self._ring = 0
        self._pend = 0
        self._hz = C.hz
        self._src = _Dma(self)
        C.sources.append(self._src)
        C.clocked.append(("i2s", self.id))
        C.line("i2s %d on" % C.now)

    def deinit(self):
        if self._src is not None:
            C.sources.remove(self._src)
            C.clocked.remove(("i2s", self.id))
            self._src = None
            C.line("i2s %d off" % C.now)

    def irq(self, handler):
        self.handler = handler

    def write(self, buf):
        if self._src is None:
            raise OSError(22)
        self._pend = len(buf)
        return len(buf)

    def _dma(self):
        self._ring = max(0, self._ring - 64)  # 32 mono 16-bit samples went out
        if self._pend and self._ring + self._pend <= self.ibuf:
            self._ring += self._pend
            self._pend = 0
            if self.handler is not None:
                C.interrupt(self.handler, self, False)


class ADC:
    def __init__(self, id):
        self.id = id

    def read_u16(self):
        C.busy(2)  # one conversion: 96 cycles of the 48 MHz ADC clock
        return C.adc.get(self.id, 0)


class Timer:
    ONE_SHOT = 0
    PERIODIC = 1

    def __init__(self, id=-1, mode=1, period=-1, callback=None, freq=-1):
        self._src = None
        if callback is not None:
            self.init(mode=mode, period=period, callback=callback)

    def init(self, mode=1, period=-1, callback=None, freq=-1):
        self.deinit()
        self._mode = mode
        self._cb = callback
        self._src = C.Source("mtimer", period * 1000, self._fire)
        C.sources.append(self._src)

    def _fire(self):
        if self._mode == Timer.ONE_SHOT:
            self.deinit()
        C.interrupt(self._cb, self, False)

    def deinit(self):
        if self._src is not None and self._src in C.sources:
            C.sources.remove(self._src)
        self._src = None


class WDT:
    def __init__(self, id=0, timeout=5000):
        if timeout > C.WDT_MAX_MS:
            raise ValueError("timeout exceeds 8388 ms")
        C.wdt_timeout_us = timeout * 1000
        C.wdt_fed = C.now
        C.line("wdt %d start %d" % (C.now, timeout))

    def feed(self):
        C.wdt_fed = C.now
        C.line("wdt %d feed" % C.now)
