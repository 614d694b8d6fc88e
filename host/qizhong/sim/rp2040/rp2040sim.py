# SPDX-License-Identifier: GPL-3.0-or-later
"""The simulated RP2040 (#33): virtual time, interrupts, sleeps, the watchdog,
and the wake trace. MicroPython code for the unix port; ``machine``, ``rp2``,
``time`` and ``select`` beside it are the chip as the firmware sees it, and
``run.py`` boots firmware/boot.py and firmware/main.py on it, unchanged.

Time is virtual, in integer µs (``now``). It moves only when the firmware
sleeps (``sleep``: lightsleep, or WFE in ``select.poll``) or waits on the
hardware while awake (``busy``: an I2C transfer, a ``sleep_ms``, the awake
cost charged at the next sleep). World events (a lever, a key, USB) happen at
their instants; an enabled interrupt then runs its handler, hard ones at once,
soft ones through ``micropython.schedule``, as rp2 does.

What the chip does as the RP2040 does, in power terms:
- the watchdog counts through lightsleep and resets the chip when a sleep
  outlasts it (MicroPython issue #17228 for the RP2040; PR #17546, merged, makes
  that a clean reset rather than a lock-up); its timeout is at most 8388 ms
  (rp2's machine.WDT, the RP2040-E1 erratum);
- any enabled interrupt ends a lightsleep: a pin edge, a PIO IRQ, a
  machine.Timer, and a running I2S's DMA. rp2's I2S (ports/rp2/machine_i2s.c)
  raises a DMA IRQ for every half of its 256-byte buffer of 32-bit stereo
  frames: 32 frames, 250 times a second at 8 kHz, silence or not. In
  lightsleep clk_sys runs from the 12 MHz crystal (modmachine.c), so the PIO,
  whose divider was set for the full clock, runs slower: 250 * 12 MHz / f a
  second (24 at 125 MHz; the issue's emulator saw 30 lightsleeps a second
  with the I2S and the loop's own wakes). rp2's machine.PWM enables no
  interrupt: a running PWM wakes nothing;
- lightsleep(ms) is a plain delay for ms <= 1 and refuses 2**32 / 1000 ms or
  more ("sleep too long");
- machine.freq(hz) must be a frequency the PLL makes exactly from the 12 MHz
  crystal (VCO 750-1600 MHz, FBDIV 16-320, POSTDIV 1-7: RP2040 datasheet
  2.18.2); a PIO program, a PWM or an I2C bus set up before it keeps its
  divider, so it then runs at the old rate times new f / old f.

Awake time (cycles at the set frequency) cannot be counted on the unix port.
The model charges each awake period as the work happens (virtual time moves
with it), and the trace gives the total at the sleep that ends it:
- ``WAKE_CYCLES`` for a wake of the loop (lightsleep's clock restart, the
  wait loop's re-check): 145,800, the issue's emulator measurement of the old
  firmware idle (30 lightsleeps a second, 3.5 % awake at 125 MHz);
- ``DRAW_CYCLES`` more when the pass sent a frame to a display: 720,000. The
  emulator's game without presses was 4.2-4.3 % awake: 0.75 % of 125 MHz
  (937,500 cycles) more than idle, for one more wake a second that drew one
  glass. Less that wake (145,800) and the frame's 25 bytes at 400 kHz (567 µs,
  70,900 cycles) leaves 720,800;
- ``ISR_CYCLES`` for an interrupt that only runs its handler while the CPU
  waits in WFE (the poll re-checks and waits again): 2,000, an estimate;
- the I2C transfers at their bus rate (rp2's driver waits for them), 2 µs per
  ADC conversion (96 cycles of the 48 MHz ADC clock, datasheet 4.9).
``costs`` in the run's config replaces any of these.
"""

import micropython

XOSC_HZ = 12_000_000
PERIOD = 1 << 30  # rp2's ticks_ms and ticks_us wrap here
WDT_MAX_MS = 8388
SLEEP_MAX_MS = (1 << 32) // 1000
FOREVER = 1 << 62

COSTS = {"wake": 145_800, "draw": 720_000, "isr": 2_000}


class End(BaseException):
    """The run reached its last instant."""


class Reset(BaseException):
    """The chip reset (the watchdog, or machine.reset)."""


class Off(BaseException):
    """The board let go of its supply."""


class Held(BaseException):
    """The board blanked its glasses to switch off, and still holds its enable."""


class Source:
    """A periodic interrupt: I2S DMA or a machine.Timer."""

    def __init__(self, cause, period_us, fire):
        self.cause = cause
        self.period_us = period_us
        self.fire = fire
        self.next_us = now + period_us
        self.on = True

    def asleep(self, flag):
        """The CPU goes into (or out of) lightsleep: clk_sys changes under it."""


# -- state ---------------------------------------------------------------------------

now = 0
hz = 125_000_000  # rp2's default clk_sys
board = "oled"
until_us = FOREVER
usb = False
world = {}  # gpio -> level the world drives (inputs)
adc = {}  # channel -> read_u16 value
events = []  # (t_us, gpio, level), sorted; the world's pin changes
_ei = 0
sources = []
pins = {}  # gpio -> machine.Pin
world_out = {}  # gpio -> level the chip drives (outputs)
sms = []  # rp2.StateMachine objects (they watch their pins)
buses = {0: {}, 1: {}}  # bus -> {addr: Device}
masked = 0
pending = []  # hard IRQs raised while masked
wdt_timeout_us = 0
wdt_fed = 0
blank_at = -1  # when the glasses were blanked (the board switching itself off)
HELD_US = 1_000_000  # the enable must go within this of the blanking
clocked = []  # PIO state machines and PWMs: their dividers were set at their build
out = None  # the trace file
costs = dict(COSTS)
# the current awake period
_wake_t = 0
_wake_cause = "boot"
_wake_slept = 0
_wake_mode = "boot"
_drew = False
_busy_cycles = 0
POWER_PINS = (10, 11, 13, 21)  # PWR_HOLD, the amp's supply, the cells' divider, AMP SD


def configure(cfg):
    global board, until_us, usb, out, costs, events
    board = cfg["board"]
    until_us = cfg["until_ms"] * 1000
    for k, v in cfg.get("costs", {}).items():
        costs[k] = v
    for g, v in cfg.get("world", {}).items():
        world[int(g)] = v
    for c, v in cfg.get("adc", {}).items():
        adc[int(c)] = v
    usb = cfg.get("usb", False)
    world[24] = 1 if usb else 0  # VBUS sense
    events = [(e[0] * 1000, e[1], e[2]) for e in cfg.get("pins", [])]
    events += [(e[0] * 1000, -1, e[1]) for e in cfg.get("rx", [])]  # host bytes over USB
    events.sort()
    if board == "battery":
        buses[0][0x38] = Device("pcf85176")
        buses[0][0x39] = Device("pcf85176")
    else:
        buses[0][0x3C] = Device("ssd1309", reset=22)  # both panels' RES on GP22
        buses[1][0x3C] = Device("ssd1309", reset=22)
    out = open(cfg["trace"], "w")
    line("chip 1 " + board)  # power-on: boot.py's first line runs at 0 (boot's cost: not modelled)


def line(s):
    out.write(s)
    out.write("\n")


class Device:
    """An I2C device that answers at its address and keeps what it was sent."""

    def __init__(self, kind, reset=-1):
        self.kind = kind
        self.reset = reset  # a GPIO that holds it in reset while low (a pull-down: low at boot)
        self.last = b""
        self.frames = 0

    def answers(self):
        return self.reset < 0 or world_out.get(self.reset, 0) == 1

    def write(self, data):
        global _drew, blank_at
        self.last = data
        if self.kind == "pcf85176" and data == b"\x40":  # mode set, E = 0: blank
            blank_at = now
        if len(data) >= 16:  # a frame, not a command
            self.frames += 1
            if not _drew:  # the pass drew it before it sent it
                _drew = True
                work(costs["draw"])


# -- time and interrupts ----------------------------------------------------------------


def _next():
    """(t_us, kind) of the next thing due: "event", a Source, or "wdt"."""
    t = FOREVER
    what = None
    if _ei < len(events):
        t = events[_ei][0]
        what = "event"
    for s in sources:
        if s.on and s.next_us < t:
            t = s.next_us
            what = s
    if wdt_timeout_us and wdt_fed + wdt_timeout_us < t:
        t = wdt_fed + wdt_timeout_us
        what = "wdt"
    if blank_at >= 0 and blank_at + HELD_US < t:
        t = blank_at + HELD_US
        what = "held"
    return t, what


def _fire(what):
    """Run what is due now; the cause of a wake if it raised an interrupt, else ""."""
    global _ei, blank_at
    if what == "wdt":
        line("wdt %d reset" % now)
        raise Reset("watchdog")
    if what == "held":
        if world_out.get(10) == 1 and not usb:
            line("held %d" % now)
            raise Held()
        blank_at = -1
        return ""
    if what == "event":
        _, gpio, level = events[_ei]
        _ei += 1
        if gpio < 0:
            return host_bytes(level)
        return set_world(gpio, level)
    what.next_us += what.period_us
    what.fire()
    return what.cause


def set_world(gpio, level):
    """The world drives ``gpio`` to ``level``: the pin's and the PIO's interrupts."""
    global usb
    old = world.get(gpio, 1)
    world[gpio] = level
    if gpio == 24:
        usb = bool(level)
    if old == level:
        return ""
    cause = ""
    p = pins.get(gpio)
    if p is not None and p.handler is not None:
        edge = 8 if level else 4  # IRQ_RISING, IRQ_FALLING
        if p.trigger & edge:
            interrupt(p.handler, p, p.hard)
            cause = "pin:%d" % gpio
    for sm in sms:
        if sm.step() and not cause:
            cause = "pio:%d" % sm.id
    if gpio == 10 and not level:
        check_off()
    return cause


rx_avail = 0  # host bytes arrived and not read yet
rx_lost = 0


def host_bytes(n):
    """``n`` bytes from the USB host (they are next on the process's stdin):
    with no host (VBUS low) they never came, and are dropped."""
    global rx_avail, rx_lost
    if not usb:
        import sys

        sys.stdin.buffer.read(n)
        rx_lost += n
        line("rx %d lost %d" % (now, n))
        return ""
    rx_avail += n
    return "usb"


def interrupt(handler, arg, hard=True):
    if not hard:
        try:
            micropython.schedule(handler, arg)
        except RuntimeError:
            pass
        return
    if masked:
        pending.append((handler, arg))
        return
    handler(arg)


def unmask():
    while pending and not masked:
        handler, arg = pending.pop(0)
        handler(arg)


def busy(us):
    """Awake time passing (a bus transfer, a delay): what falls due runs."""
    _advance(us, us * (hz // 1000) // 1000)


def work(cycles):
    """The CPU at work for ``cycles`` at the set clock (the cost model's)."""
    _advance(cycles * 1000 // (hz // 1000), cycles)


def _advance(us, cycles):
    global now, _busy_cycles
    end = now + us
    _busy_cycles += cycles
    while True:
        t, what = _next()
        if t > end:
            break
        now = t
        _fire(what)
    now = end


def _charge():
    """Close the awake period: the line of the wake that began it, with the
    cycles it took (already spent, as the work happened)."""
    global _busy_cycles, _drew
    total = _busy_cycles
    _busy_cycles = 0
    _drew = False
    mode = "wfe" if _wake_mode == "wfe-isr" else _wake_mode
    line("wake %d %s %d %s %d %d" % (_wake_t, _wake_cause, _wake_slept, mode, total, hz))


def _woke(cause, slept, mode):
    """The CPU woke: a new awake period, its fixed cost spent first (the
    clock's restart and the loop's re-check: the firmware's ``now`` after it
    is later by that much)."""
    global _wake_t, _wake_cause, _wake_slept, _wake_mode
    _wake_t = now
    _wake_cause = cause
    _wake_slept = slept
    _wake_mode = mode
    work(costs["isr"] if mode == "wfe-isr" else costs["wake"])


def sleep(us, mode, ready=None):
    """Sleep up to ``us`` (lightsleep, or WFE until ``ready()``); returns the cause."""
    _charge()
    end = now + us if us >= 0 else FOREVER
    while True:
        start = now
        cause = _asleep(end, mode == "lightsleep")
        if cause == "timer" or mode == "lightsleep" or ready is None or ready():
            _woke(cause, now - start, mode)
            return cause
        _woke(cause, now - start, "wfe-isr")  # WFE: the handler ran, the poll waits on
        _charge()


def _asleep(end, deep):
    """Asleep until ``end`` or an interrupt: its cause ("timer": the end)."""
    global now
    for s in sources:
        s.asleep(deep)  # lightsleep: clk_sys from the crystal
    try:
        while True:
            t, what = _next()
            if t >= end or t > until_us:
                if end > until_us:
                    now = until_us
                    line("end %d" % now)
                    raise End()
                now = end
                return "timer"
            now = t
            cause = _fire(what)
            if cause:
                return cause
    finally:
        for s in sources:
            s.asleep(False)  # awake: the full clock again


def check_off():
    """GP10 went low: with no USB the supply goes, and the run with it."""
    if not usb:
        line("off %d" % now)
        raise Off()


def finish():
    if out is not None:
        for bus in (0, 1):
            for addr, d in buses[bus].items():
                line("ram %d %d %s %d" % (bus, addr, d.last.hex() or "-", d.frames))
        out.close()


# -- the clock (machine.freq) -----------------------------------------------------------


def pll_ok(f):
    """True if the PLL makes ``f`` exactly from the crystal (datasheet 2.18.2)."""
    ref = XOSC_HZ
    for fb in range(16, 321):
        vco = ref * fb
        if vco < 750_000_000 or vco > 1_600_000_000:
            continue
        for p1 in range(1, 8):
            for p2 in range(1, p1 + 1):
                if vco == f * p1 * p2:
                    return True
    return False


def set_freq(f):
    global hz
    if not pll_ok(f):
        raise ValueError("cannot change frequency")
    hz = f
    line("freq %d %d" % (now, f))
    if f < 48_000_000:  # USB needs clk_sys >= clk_usb (pico-sdk issue #1697)
        line("clock %d usb 0" % now)
    for what, ident in clocked:
        line("clock %d %s %d" % (now, what, ident))  # built at the old clock: its rate moves
