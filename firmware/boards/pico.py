# SPDX-License-Identifier: GPL-3.0-or-later
"""The Raspberry Pi Pico boards' shared part: the firmware on the real clock.

``Pico`` is what both boards share; ``oled.Board`` (two SSD1309 panels, a
Li-ion cell) and ``battery.Board`` (two segment glasses, two AA cells, soft
power) are the boards, each in its own module, and ``find.board()`` builds the
one that is there. Pins come from ``pins.py``, generated from
hardware/pinout.csv. The interface is the one ``boards/__init__.py``
describes and ``sim.py`` implements.

Levers (the only input whose instant is charged)
    Each lever has a PIO state machine (``lever_pio``, on PIO1) that waits for
    its pin to change, raises its IRQ and counts microseconds in X until the
    CPU acknowledges. The hard IRQ handler reads ``ticks_ms()``, puts 0, gets
    the count, and dates the edge back by it. The PIO runs on while the CPU
    has interrupts off, as rp2's flash driver does for an erase (45 ms
    typical, 400 ms worst case) or a page program, so a press during a
    journal commit is charged at its edge, not when the handler runs (#17).
    Edges alternate (press, release), so the handler knows each one without
    reading the pin. It then applies qizhong.lever's rule: the first edge is
    the press, and edges within ``Lever.BOUNCE_MS`` of an accepted edge are
    ignored. The rule runs on the raw ticks with ``ticks_diff``, which is safe
    across wraparound. An accepted edge goes into a ring of preallocated int
    lists as (kind, lever, raw ticks), and the handler sets the loop's wake
    flag. It allocates nothing.

    The IRQ never calls ``Monotonic.now()``. That call is a read-modify-write
    of the loop's count, and an IRQ landing inside it would corrupt the count.
    ``Lever.edge`` itself would need a count that never wraps (``t - last``),
    and an IRQ cannot read one safely. So the stamp stays raw until
    ``pop_input`` converts it against the loop's last reading:
    ``t = ms + ticks_diff(raw_edge, raw_ms)``, where ``now()`` read ``ms`` from
    ``raw_ms``. ``pop_input`` returns only the edges stamped at or before that
    reading. Later ones wait for the next pass, so no input is dated after the
    app's ``now``.

    Limits: while the state machine counts one edge's age it does not watch
    the pin, so a release during a long erase is stamped when the handler runs
    (a release is never charged; a press is). A gap of more than half the tick
    period (2**29 ms, about 6.2 days) since a lever's last accepted edge looks
    negative to ``ticks_diff`` and is taken as long ago. If the loop falls
    ``RING - 1`` accepted edges behind, a further edge is lost and counted in
    ``lost``. The debounce state still follows the pin, so the next edge is
    right. Unverified on silicon: the PIO program itself (the unix port's
    fake ``rp2`` models it; docs/hardware-build.md, bring-up).

Keys and tilt
    A pin interrupt on either edge wakes the loop; the loop then polls every
    ``POLL_MS`` until the level has held for ``KEY_MS`` (``TILT_MS`` for the
    ball switch). The input is stamped when it is confirmed. Keys are not
    time-critical, and a knock is charged at most ``TILT_MS + POLL_MS`` late.

Waiting
    ``wait(deadline)`` sleeps in ``select.poll`` on the wake flag and the USB
    input, until the deadline (``IDLE_MS`` without one, the battery's next
    reading if sooner). Nothing polls while nothing changes: a running game
    wakes the loop about once a second (the face's next whole second), ten
    times a second under 20 s. It allocates nothing: the awaitable it
    returns is asyncio's allocation-free ``sleep_ms(0)``.

Voice
    ``machine.I2S`` in non-blocking mode: ``irq(callback)`` is set, so
    ``write`` returns at once and the callback runs in scheduler context
    when the DMA IRQ has copied the chunk into the I2S ring (``ibuf``). The
    callback reads the next ``CHUNK // 4`` bytes of the cue's IMA ADPCM from
    the language's cue bank (one file, kept open: ``seek`` and ``readinto``
    allocate nothing), decodes them into one preallocated buffer
    (``qizhong.adpcm``, plain Python) and writes it. ``say`` only queues the cue id (a ring
    with one writer on each side) and, when nothing plays, schedules a kick.
    Every other change to the voice state happens in scheduler context, where
    callbacks run to completion, so nothing needs locking. After a cue comes
    one chunk of zeros. rp2's DMA feeder takes samples only from a ring
    holding at least 128 bytes, so without that padding the last ones would
    wait for the next cue. The amplifier (MAX98357A SD pin) goes on with the
    first chunk. It goes off ``AMP_HOLD_MS`` after the last chunk, once the
    ring has played out, and the I2S is deinitialised with it (#22: rp2's
    I2S DMA otherwise raises its interrupt about 250 times a second on
    silence, each one waking the loop; #33: and each one ending a
    lightsleep). So no I2S runs at boot either: the first cue builds it, and
    each cue after a silence initialises it again, which takes the 4 KB ring
    from the heap (freed at ``deinit``): the only allocation of the voice
    path, once per burst of cues. (The alternative,
    an asyncio.StreamWriter on the I2S, slices and joins bytes in ``write``,
    allocating for every chunk.)

Displays
    Each board's own (oled.py: two SSD1309 panels; battery.py: two PCF85176
    glasses). The framebuffers are the drivers' own prefixed buffers, so a
    frame is one ``writeto`` and nothing is allocated. The I2C time-out is set from the
    frame and the bus rate (``i2c_timeout_us``: rp2's default, 50 ms, timed
    out at 100 kHz). A rate too slow for both frames within the refresh period
    is refused by ``make firmware``; if one reaches the board anyway it runs
    its displays at 400 kHz and says why in ``i2c_refused`` (boards/i2crate.py).
    ``show`` skips a frame identical to the last one it sent, and re-sends
    the whole frame every ``RESEND_MS``. A display that fails is retried
    every ``RETRY_MS`` and does not stop the clock; each failure first clears
    its bus (nine clocks and a STOP) and builds it again, and one that keeps
    failing is reset again (#29, boards/i2cbus.py).

Battery
    GP26 (ADC0) reads the cell through a 100k/100k divider, after the power
    switch and before the P-FET into VSYS, so a cue's sag on VSYS does not
    trip the warning (hardware/schematic.py); GP29 (ADC3) reads VSYS/3, which
    stands above the cell while USB powers the clock. The average of 8
    readings is taken every ``CELLS_MS``. ``low_battery`` sets below
    ``LOW_MV`` and clears above ``OK_MV`` (each board's figures).

Serial
    USB CDC through usb.Serial, shared with sim.py: the framed protocol of
    docs/protocol.md. ``wait`` takes at most ``Serial.BUDGET`` bytes per loop
    turn, so a flood of input slows the clock's loop by one budget per turn,
    never stops it (#12). A frame is written only when the CDC buffer takes
    it at once, so a host that stops reading never stalls the clock; a reply
    that does not fit waits, and no request is read meanwhile.

Watchdog and journal (#8, docs/journal.md)
    ``feed`` runs once per pass of the app's loop, after the pass has done
    its work, and from nowhere else (no timer, not the serial input); the
    first call starts ``machine.WDT`` (``WDT_MS``; it cannot be stopped
    again). A loop stuck or starved that long resets the Pico, and the
    journal in ``STATE_DIR`` (on the littlefs root that holds the firmware)
    brings the clock back paused with its last committed state, exactly as
    after a power cut. After Ctrl-C (mpremote), main.py calls
    ``keep_alive``: a timer feeds the watchdog for ``MAINT_MS`` so the REPL
    can be used, then lets it reset the clock.
    A soft reset (Ctrl-D) stops that timer: the watchdog resets the clock
    ``WDT_MS`` later unless the host feeds it (docs/journal.md).
"""

import asyncio
import io
import select
import sys
from os import urandom
from time import ticks_add, ticks_diff, ticks_ms

import machine
import micropython
from machine import ADC, I2C, I2S, PWM, Pin, disable_irq, enable_irq, unique_id
from micropython import const

from qizhong import adpcm, voice
from qizhong import app as A
from qizhong.lever import Lever
from qizhong.monotonic import Monotonic

from . import i2cbus, i2crate, pins, speech
from .i2crate import FRAME_BITS, REFRESH_MS, frame_us  # noqa: F401 - the board's figures
from .usb import Serial

BOUNCE_MS = Lever.BOUNCE_MS  # 20: the lever rule, applied in the IRQ
RING = const(16)  # lever edges between two loop passes (accepted edges only)
INPUTS = const(8)  # keys and tilt, pushed by the loop itself
POLL_MS = const(10)
KEY_MS = const(20)
TILT_MS = const(50)
IDLE_MS = const(1000)

I2C_HZ = const(400_000)  # tools/build_firmware.py refuses a rate i2crate.check refuses
RESEND_MS = const(5000)
RETRY_MS = const(3000)

BEEP_HZ = const(4000)  # the TDK PS1240's rated frequency (its datasheet's SPL is at 4 kHz)
BEEP_DUTY = const(32768)  # 50 %

VOICE_DIR = "/assets/voice"  # firmware/assets/voice, copied to the Pico's root
RATE = const(8000)
CHUNK = const(1024)  # 64 ms of 8 kHz 16-bit mono
IBUF = const(4096)  # the I2S ring: 256 ms
CUES = const(4)  # cue queue (3 waiting)
AMP_HOLD_MS = const(400)

WDT_MS = const(5000)  # a loop pass takes at most IDLE_MS plus a flash erase (0.4 s)
# rp2's watchdog counts on through lightsleep (MicroPython #17228): no sleep step
# is longer than this, and each wake feeds it. The second left covers a flash
# erase (0.4 s worst case) and the wake's own work.
WDT_STEP_MS = const(WDT_MS - 1000)
MAINT_MS = const(600_000)  # after Ctrl-C, the REPL keeps the watchdog fed this long
STATE_DIR = "/state"  # the journal's folder

VBUS_SENSE = const(24)  # the Pico's VBUS detect: high while USB powers the clock
ADC_MV = const(2 * 3300)  # cell = 2 x ADC (a 100k/100k divider on GP26), full scale 3.3 V
VSYS_MV = const(3 * 3300)  # VSYS = 3 x ADC (the Pico's own divider on GP29)

SM_LEVERS = (4, 5)  # PIO1's state machines 0 and 1 (rp2's machine.I2S takes PIO0)
SM_HZ = const(4_000_000)  # a counting turn is 4 cycles: 1 us

KEYS = (
    (pins.KEY_START, A.KEY_START),
    (pins.KEY_MENU, A.KEY_MENU),
    (pins.KEY_PLUS, A.KEY_PLUS),
    (pins.KEY_MINUS, A.KEY_MINUS),
    (pins.KEY_OK, A.KEY_OK),
)
_TILT = const(5)  # index of the tilt switch in the polled inputs


def i2c_timeout_us(hz):
    """rp2's I2C time-out for a whole transfer (its default, 50 ms, is less
    than a frame at 100 kHz): twice a frame, so a slow ACK still fits, but a
    hung bus gives up within one refresh or two. Raises ValueError for a rate
    at which the two displays' frames do not fit in the refresh period
    (``i2crate.check``, #17); the board never asks for one (``i2c_rate``)."""
    why = i2crate.check(hz)
    if why:
        raise ValueError(why)
    return 2 * frame_us(hz)


def i2c_rate(hz):
    """The rate the board runs its displays at, and why it is not ``hz`` ("" if
    it is): a bad I2C_HZ falls back to SAFE_HZ, never stops the clock (#22: it
    used to raise at boot, and the clock reset forever; ``make firmware``
    refuses such a bundle first)."""
    why = i2crate.check(hz)
    return (i2crate.SAFE_HZ, why) if why else (hz, "")


class Wake(io.IOBase):
    """A flag an interrupt sets and ``select.poll`` waits on (as asyncio's
    ThreadSafeFlag, which the loop cannot use without allocating)."""

    def __init__(self):
        self.state = 0

    def ioctl(self, req, flags):
        if req == 3:  # MP_STREAM_POLL
            return self.state * flags
        return -22  # EINVAL

    def set(self):
        self.state = 1


def battery_raw(mv):
    """The ADC reading (read_u16) for a cell of ``mv`` millivolts."""
    return mv * 65535 // ADC_MV


def scale(buf, n, gain):
    """Voice volume: s16le samples in ``buf[:n]`` times ``gain`` / 256, in place."""
    for i in range(0, n - 1, 2):
        v = buf[i] | (buf[i + 1] << 8)
        if v & 0x8000:
            v -= 0x10000
        v = (v * gain) >> 8
        buf[i] = v & 0xFF
        buf[i + 1] = (v >> 8) & 0xFF


class Pico:
    """What both Pico boards share; ``oled.Board`` and ``battery.Board`` add
    their displays, their cells and their power. The class attributes below
    are the board's figures, each set by the board's own class."""

    NAME = "pico"
    tenths = True  # the faces show tenths under 20 s (App.next_redraw)
    CELLS_MS = 0  # the cells are read this often
    TILT_UPRIGHT = 0  # the tilt pin while the clock stands
    WARN_MV = 0  # low_battery sets below this, clears above CLEAR_MV
    CLEAR_MV = 0
    LEVER_PULL_UP = True  # False: the board's own pull-ups alone
    LEVER_WAKES = False  # True: the levers' pin interrupts wake the loop too (lightsleep)
    PANEL_BUS = (0, 1)  # each display's I2C bus
    GAIN_MAX = 256  # the voice's gain at most, /256 (#29: the battery board caps it)
    _oled: tuple  # the two displays' drivers (a glass or a panel each), set by _displays
    fb_buf: tuple  # what the app draws into, one per display
    fb: tuple

    def __init__(self, voice_dir=VOICE_DIR, i2c_hz=I2C_HZ):
        self._power_on()  # first: the battery board holds its supply
        self._app = None
        self.left_side = 0
        self.low_battery = False
        self.live_display = True
        self.off = False  # the battery board let go of its supply (soft power off)
        self._quiet_ms = 0  # the last instant of an input or a running clock
        self._meas_at = -1  # battery board: when the switched divider has settled
        self.lightsleeps = 0  # how often the loop slept in lightsleep
        self.stopped = False
        self.in_arg = 0
        self.in_t = 0
        self.lost = 0  # lever edges dropped by a full ring
        self.battery_mv = 0

        # Time: the loop's last reading, ms from raw ticks _ref_raw.
        self._ticks = ticks_ms
        self._read = ticks_ms()
        self._mono = Monotonic(self._tick, ticks_diff)
        self._ref_ms = 0
        self._ref_raw = self._read
        self._given = 0  # the last ``now`` given out
        self._hidden_t = 0  # see ``_hidden``
        self._flag = Wake()  # set by every interrupt that has news for the loop
        self._sleep = select.poll()  # the loop sleeps here: the flag, or bytes from the host
        self._sleep.register(self._flag, select.POLLIN)
        self._sleep.register(sys.stdin, select.POLLIN)
        self._stdin_on = True

        # Levers: IRQ state and the edge ring (the IRQ writes _w, the loop _r).
        pull = Pin.PULL_UP if self.LEVER_PULL_UP else None
        self._levers = (
            Pin(pins.LEVER_LEFT, Pin.IN, pull),  # type: ignore[arg-type]  # None: no pull
            Pin(pins.LEVER_RIGHT, Pin.IN, pull),  # type: ignore[arg-type]
        )
        self._down = [1 - p.value() for p in self._levers]
        self._last = [ticks_add(self._read, -BOUNCE_MS)] * 2
        # raw ticks of the last edge the bounce window hid; none yet (not after _last):
        # a boot-time value here would stamp a polled press at boot
        self._hid = list(self._last)
        self._ek = [0] * RING
        self._el = [0] * RING
        self._et = [self._read] * RING
        self._w = 0
        self._r = 0
        self._phase = [0, 0]  # each lever's state machine: 0 waits for a press, 1 a release
        import rp2

        from .pio import lever_pio

        self._sm = (
            rp2.StateMachine(SM_LEVERS[0], lever_pio, freq=SM_HZ, in_base=self._levers[0],
                             jmp_pin=self._levers[0]),
            rp2.StateMachine(SM_LEVERS[1], lever_pio, freq=SM_HZ, in_base=self._levers[1],
                             jmp_pin=self._levers[1]),
        )  # fmt: skip
        self._sm[0].irq(self._irq_left, hard=True)
        self._sm[1].irq(self._irq_right, hard=True)
        self._sm[0].active(1)
        self._sm[1].active(1)

        # Keys and tilt: debounced by the loop, which their pin interrupts wake.
        self._polled = tuple(Pin(n, Pin.IN, Pin.PULL_UP) for n, _ in KEYS) + (
            Pin(pins.TILT, Pin.IN, Pin.PULL_UP),
        )
        self._wake_cb = self._irq_wake
        for p in self._polled:
            p.irq(self._wake_cb, Pin.IRQ_FALLING | Pin.IRQ_RISING, hard=True)
        if self.LEVER_WAKES:  # the pin's own interrupt wakes a lightsleep; the PIO still stamps
            for p in self._levers:
                p.irq(self._wake_cb, Pin.IRQ_FALLING | Pin.IRQ_RISING, hard=True)
        self._level = [self._polled[j].value() for j in range(_TILT + 1)]
        self._since = [-1] * (_TILT + 1)
        self._kind = [0] * INPUTS
        self._arg = [0] * INPUTS
        self._t = [0] * INPUTS
        self._head = 0
        self._n = 0

        # Displays: 0 the left one.
        hz, self.i2c_refused = i2c_rate(i2c_hz)
        timeout = i2c_timeout_us(hz)
        buses = (
            I2C(0, scl=Pin(pins.I2C0_SCL), sda=Pin(pins.I2C0_SDA), freq=hz, timeout=timeout),
            I2C(1, scl=Pin(pins.I2C1_SCL), sda=Pin(pins.I2C1_SDA), freq=hz, timeout=timeout),
        )
        self._i2c_args = (hz, timeout)  # #29: a cleared bus is built again with these
        self._watch = i2cbus.Watch()
        self._displays(buses)  # _oled, fb_buf, fb
        self._sent = (bytearray(len(self._oled[0].buf)), bytearray(len(self._oled[1].buf)))
        self._sent_ms = [-RESEND_MS, -RESEND_MS]
        self._oled_ok = [False, False]
        self._retry_ms = [0, 0]
        for i in (0, 1):
            self._start_oled(i)

        # Buzzer.
        self._pwm = PWM(Pin(pins.BUZZER), freq=BEEP_HZ, duty_u16=0)

        # Voice.
        self._voice_dir = voice_dir
        self._amp = Pin(pins.AMP_SD, Pin.OUT, value=0)
        self._i2s_pins = (Pin(pins.I2S_BCLK), Pin(pins.I2S_LRCLK), Pin(pins.I2S_DIN))
        self._i2s: I2S | None = None  # built for the first cue: none runs while silent (#33)
        self._i2s_on = False
        self._abuf = bytearray(CHUNK)
        self._ibuf = bytearray(CHUNK // 4)  # IMA ADPCM: 4 bits a sample
        self._dec = adpcm.Decoder()
        self._zeros = bytearray(CHUNK)
        self._bank = None  # the language's cue bank (voice.BANK), open
        self._slots = [0] * (2 * voice.SLOTS)  # offset, length per slot
        self._lang_want = voice.LANGS[voice.lang]  # type: str | None
        self._swap_cb = self._swap
        self._left = 0  # ADPCM bytes of the playing cue not read yet
        self._cues = [0] * CUES
        self._qw = 0  # written by say (the loop)
        self._qr = 0  # written by the pump (scheduler)
        self._pad = False
        self._playing = False
        self._amp_raw = self._read
        self._amp_off_due = False
        self.cues_lost = 0
        self.cues_missing = 0
        self._kick_cb = self._kick
        self._amp_off_cb = self._amp_off
        self._swap(0)  # the bank of the language in use

        # Battery.
        self._adc = ADC(pins.BAT_SENSE_ADC)
        self._vsys = ADC(pins.VSYS_SENSE_ADC)
        self.vsys_mv = 0  # above the cell by the Pico's diode drop: USB powers the clock
        self._battery_ms = 0
        self._cells_start()

        self._gain = self.GAIN_MAX  # voice volume, /256
        self._serial = Serial()
        self.board_id = "%02x" * 8 % tuple(unique_id())
        self.state_dir = STATE_DIR
        self._wdt = None  # machine.WDT, from the first feed on
        self._maint = None
        self._maint_raw = self._read  # ticks: until then the REPL feeds the watchdog

    # -- time --------------------------------------------------------------------

    def _tick(self):
        raw = self._ticks()
        self._read = raw  # the raw reading behind Monotonic's count
        return raw

    def now(self):
        ms = self._mono.now()
        self._ref_ms = ms
        self._ref_raw = self._read
        # #26: a lever edge the bounce window hides may yet be a press at its
        # own instant: time waits there until it settles, never going back.
        if self._hidden() and self._hidden_t < ms:
            ms = self._hidden_t if self._hidden_t > self._given else self._given
        self._given = ms
        return ms

    def _hidden(self):
        """True if a lever edge its bounce window hid is still on the pin (it
        becomes an edge once the window has passed); ``_hidden_t`` is then
        the earliest such instant, in the loop's ms."""
        found = False
        for i in (0, 1):
            if 1 - self._levers[i].value() != self._down[i]:
                hid = self._hid[i]
                if ticks_diff(hid, self._last[i]) > 0:
                    t = self._ref_ms + ticks_diff(hid, self._ref_raw)
                    if not found or t < self._hidden_t:
                        self._hidden_t = t
                    found = True
        return found

    def wait(self, deadline):
        """Sleep until ``deadline`` (-1: IDLE_MS), a lever edge, a key or tilt
        change, or bytes from the host; take at most Serial.BUDGET of those
        bytes. The CPU sleeps in ``select.poll`` (WFE), and polls every
        POLL_MS only while a key, the tilt switch or a lever's bounce window
        is settling. Returns an awaitable that only yields (asyncio.sleep_ms
        is allocation-free), so the loop runs as a coroutine and allocates
        nothing here (#17)."""
        now = self.now()
        b = self._battery_ms + self.CELLS_MS
        if self._meas_at >= 0:
            b = self._meas_at
        limit = deadline if deadline >= 0 else self._idle(now, b)
        if b < limit:
            limit = b
        limit = self._power_limit(now, limit)
        while True:
            self._flag.state = 0  # cleared before looking: an edge from here on wakes the poll
            self._poll(now)
            if (self._n or self._r != self._w) and not self._hidden():  # #26: held till settled
                break
            got = self._serial.pump(self._app) if self._app is not None else 0
            if got > 0:
                break
            if now >= limit:
                break
            dt = limit - now
            if dt > POLL_MS and self._settling():
                dt = POLL_MS
            blocked = got < 0  # a reply waits for the host: its bytes cannot wake us
            if blocked == self._stdin_on:
                self._stdin_on = not blocked
                self._sleep.modify(sys.stdin, 0 if blocked else select.POLLIN)
            if blocked and dt > Serial.RETRY_MS:
                dt = Serial.RETRY_MS
            wdt = self._wdt
            if wdt is not None and dt > WDT_STEP_MS:
                dt = WDT_STEP_MS
            if self._deep(dt):
                self.lightsleeps += 1
                machine.lightsleep(dt)  # a lever edge, a key or the timer wakes it (docs/power.md)
            else:
                for _ in self._sleep.ipoll(dt):
                    break
            if wdt is not None:
                wdt.feed()  # the loop is alive: it slept as it meant to
            now = self.now()
        return asyncio.sleep_ms(0)

    # -- what each board does its own way (oled.Board, battery.Board) ------------

    def _power_on(self):
        """First thing at boot: take hold of the supply (the battery board)."""

    def _displays(self, buses):
        """Build the two displays on ``buses`` (I2C0, I2C1): ``_oled``, ``fb_buf``, ``fb``."""
        raise NotImplementedError

    def _cells_start(self):
        """At boot: the first reading of the cells (or its start)."""
        self._battery()

    def _cells_poll(self, now):
        """Each pass: read the cells every CELLS_MS."""
        if now - self._battery_ms >= self.CELLS_MS:
            self._battery_ms = now
            self._battery()

    def _idle(self, now, cells):
        """The loop's deadline when the app has none (``cells``: the next reading)."""
        return now + IDLE_MS

    def _power_limit(self, now, limit):
        """The deadline, moved sooner by the board's own power needs."""
        return limit

    def _deep(self, dt):
        """True: sleep ``dt`` in machine.lightsleep, not in WFE."""
        return False

    def _amp_power(self, on):
        """The amplifier's own supply, where it has one."""

    def _send(self, i, oled, sent, whole):
        """Send display ``i``'s frame (``whole``: all of it)."""
        oled.show()

    def _settling(self):
        """True while something needs polling: a key or the tilt switch
        changing, a lever's pin not yet where its state is, the amplifier's
        hold running out."""
        for j in range(_TILT + 1):
            if self._since[j] >= 0:
                return True
        for i in (0, 1):
            if 1 - self._levers[i].value() != self._down[i]:
                return True
        return self._amp_off_due

    def _irq_wake(self, _):
        self._flag.set()

    def rebase(self, d):
        """The time origin moved ``d`` ms later (App.rebase): the count and
        every ms the board keeps. Lever stamps are raw ticks, converted
        against ``_ref_ms``, so they follow."""
        state = disable_irq()
        self._mono.rebase(d)
        self._ref_ms -= d
        self._given -= d
        enable_irq(state)
        for j in range(_TILT + 1):
            if self._since[j] >= 0:
                self._since[j] = max(0, self._since[j] - d)
        self._battery_ms -= d
        self._quiet_ms -= d
        if self._meas_at >= 0:
            self._meas_at = max(0, self._meas_at - d)
        for i in (0, 1):
            self._sent_ms[i] -= d
            self._retry_ms[i] -= d
        for k in range(INPUTS):
            self._t[k] -= d

    # -- levers (hard IRQ: allocates nothing) ---------------------------------------

    def _irq_left(self, sm):
        self._stamp(0)

    def _irq_right(self, sm):
        self._stamp(1)

    def _stamp(self, i):
        # The state machine saw an edge and has counted its age since, in us:
        # acknowledge, read the count, date the edge back by it.
        raw = self._ticks()
        sm = self._sm[i]
        sm.put(0)
        age = sm.get()
        down = 1 - self._phase[i]
        self._phase[i] = down
        self._edge(i, down, ticks_add(raw, -((age + 500) // 1000)))

    def _edge(self, i, down, raw):
        if down == self._down[i]:
            return
        d = ticks_diff(raw, self._last[i])
        if 0 <= d < BOUNCE_MS:
            self._hid[i] = raw  # bounce of the edge just accepted (or a quick tap: _settle_lever)
            self._flag.set()  # the loop settles it once the window has passed
            return
        self._accept(i, down, raw)

    def _accept(self, i, down, raw):
        self._down[i] = down
        self._last[i] = raw
        w = self._w
        nw = (w + 1) % RING
        if nw == self._r:  # the loop is far behind: this edge is lost, the state follows the pin
            self.lost += 1
            return
        # In stamp order: an edge the bounce window hid (settled by the loop,
        # the IRQ off) is accepted after later ones of the other lever (#26).
        while w != self._r:
            j = (w - 1) % RING
            if ticks_diff(self._et[j], raw) <= 0:
                break
            self._ek[w] = self._ek[j]
            self._el[w] = self._el[j]
            self._et[w] = self._et[j]
            w = j
        self._ek[w] = A.IN_LEVER_DOWN if down else A.IN_LEVER_UP
        self._el[w] = i
        self._et[w] = raw
        self._w = nw
        self._flag.set()

    # -- inputs ------------------------------------------------------------------

    def pending(self):
        """True when a lever edge (or a key, the tilt) waits for the loop: the
        app then sends no further frame before it has taken it (#22: a frame
        blocks the loop 23 ms, and the press's event would wait behind it)."""
        return self._r != self._w or self._n > 0

    def pop_input(self):
        r = self._r
        held = self._hidden()  # nothing after a hidden lever edge until it settles (#26)
        if r != self._w:
            d = ticks_diff(self._et[r], self._ref_raw)
            # stamped at or before the loop's reading (and the hidden edge)
            if d <= 0 and not (held and self._ref_ms + d > self._hidden_t):
                t = self._ref_ms + d
                if self._n and self._t[self._head] < t:
                    return self._pop_polled()
                self.in_arg = self._el[r]
                self.in_t = t
                kind = self._ek[r]
                self._r = (r + 1) % RING
                return kind
        if self._n and not (held and self._t[self._head] > self._hidden_t):
            return self._pop_polled()
        return 0

    def _pop_polled(self):
        i = self._head
        self._head = (i + 1) % INPUTS
        self._n -= 1
        self.in_arg = self._arg[i]
        self.in_t = self._t[i]
        return self._kind[i]

    def _push(self, kind, arg, t):
        if self._n == INPUTS:
            return
        i = (self._head + self._n) % INPUTS
        self._kind[i] = kind
        self._arg[i] = arg
        self._t[i] = t
        self._n += 1

    def _settle_lever(self, i):
        # A release (or press) inside the bounce window left no later edge: once
        # the window has passed, the pin's level is the truth. Stamped at its edge.
        down = 1 - self._levers[i].value()
        if down == self._down[i] or ticks_diff(self._ticks(), self._last[i]) < BOUNCE_MS:
            return
        state = disable_irq()
        if down != self._down[i]:  # the IRQ did not get there first
            hid = self._hid[i]
            raw = hid if ticks_diff(hid, self._last[i]) > 0 else self._ticks()
            self._accept(i, down, raw)
        enable_irq(state)

    def _poll(self, now):
        self._settle_lever(0)
        self._settle_lever(1)
        for j in range(_TILT):  # keys: pressed pulls low
            if self._settle(j, now, KEY_MS):  # down, and up (hold-to-repeat ends there)
                self._push(A.IN_KEY_UP if self._level[j] else A.IN_KEY, KEYS[j][1], now)
        # OLED board: the switch opens when the clock falls (pin high); battery
        # board: it closes (pin low), so it draws nothing while the clock stands.
        if self._settle(_TILT, now, TILT_MS) and self._level[_TILT] != self.TILT_UPRIGHT:
            self._push(A.IN_TILT, 0, now)
        self._cells_poll(now)
        if self._amp_off_due and ticks_diff(self._ticks(), self._amp_raw) >= AMP_HOLD_MS:
            self._schedule(self._amp_off_cb)

    def _settle(self, j, now, ms):
        """True when polled input j has held a new level for ``ms``; it is then the level."""
        v = self._polled[j].value()
        if v == self._level[j]:
            self._since[j] = -1
            return False
        if self._since[j] < 0:
            self._since[j] = now
            return False
        if now - self._since[j] < ms:
            return False
        self._level[j] = v
        self._since[j] = -1
        return True

    # -- battery -----------------------------------------------------------------

    def _battery(self):
        total = 0
        for _ in range(8):
            total += self._adc.read_u16()
        mv = (total // 8) * ADC_MV // 65535
        self.battery_mv = mv
        self.vsys_mv = self._vsys.read_u16() * VSYS_MV // 65535
        low = self.low_battery
        if mv < self.WARN_MV:
            low = True
        elif mv > self.CLEAR_MV:
            low = False
        if low != self.low_battery:
            self.low_battery = low
            if self._app is not None:
                self._app.drawn = -1  # the mark goes on (or off) the displays now

    # -- buzzer and displays -------------------------------------------------------

    def beep(self, on, t):
        self._pwm.duty_u16(BEEP_DUTY if on else 0)

    def _start_oled(self, i):
        self._sent_ms[i] = self._ref_ms - RESEND_MS  # send the next frame in full
        try:
            self._oled[i].init()
        except OSError:
            self._oled_ok[i] = False
            self._retry_ms[i] = self._ref_ms + RETRY_MS
            self._lost(i)
            return False
        self._oled_ok[i] = True
        self._watch.ok(i)
        return True

    def _lost(self, i):
        """#29: display ``i`` stopped answering. Its bus is cleared (nine clocks
        and a STOP: a device stuck mid-byte lets SDA go) and built again before
        the display waits for its retry; one that keeps failing is reset again
        (``_reset_panels``), at most once every ``i2cbus.RESET_MS``."""
        n = self.PANEL_BUS[i]
        scl, sda = ((pins.I2C0_SCL, pins.I2C0_SDA), (pins.I2C1_SCL, pins.I2C1_SDA))[n]
        i2cbus.clear(scl, sda)
        self._watch.clears += 1
        hz, timeout = self._i2c_args
        bus = I2C(n, scl=Pin(scl), sda=Pin(sda), freq=hz, timeout=timeout)
        for j in (0, 1):
            if self.PANEL_BUS[j] == n:
                self._oled[j].i2c = bus
        if self._watch.failed(i, self._ref_ms):
            self._reset_panels()

    def _reset_panels(self):
        """Reset the displays again (the OLED board's RES); a glass has no reset pin."""

    def show(self, i):
        now = self._ref_ms
        if not self._oled_ok[i] and (now < self._retry_ms[i] or not self._start_oled(i)):
            return
        oled = self._oled[i]
        sent = self._sent[i]
        whole = now - self._sent_ms[i] >= RESEND_MS
        if oled.buf == sent and not whole:
            return
        try:
            self._send(i, oled, sent, whole)
        except OSError:
            self._oled_ok[i] = False
            self._retry_ms[i] = now + RETRY_MS
            self._lost(i)
            return
        sent[:] = oled.buf
        self._sent_ms[i] = now

    # -- voice -------------------------------------------------------------------

    def say(self, cue, t):
        w = self._qw
        nw = (w + 1) % CUES
        if nw == self._qr:
            self.cues_lost += 1
            return
        self._cues[w] = cue
        self._qw = nw
        if not self._playing:
            self._schedule(self._kick_cb)

    def _schedule(self, cb):
        try:
            micropython.schedule(cb, 0)
        except RuntimeError:  # the schedule queue is full: the next poll or cue retries
            pass

    def set_voice(self, lang):
        """Speak ``lang`` (``voice.LANGS``) from the next cue on: its bank is
        opened in scheduler context, between cues."""
        self._lang_want = lang
        self._schedule(self._swap_cb)

    # Scheduler context from here on: each call runs to completion.

    def _swap(self, _):
        lang = self._lang_want
        if lang is None or self._left:
            return  # a cue plays: the next _open_next swaps
        self._lang_want = None
        if self._bank is not None:
            self._bank.close()
            self._bank = None
        try:
            f = open(self._voice_dir + "/" + lang + "/" + voice.BANK, "rb")
        except OSError:  # no bank: every cue is missing
            return
        head = f.read(voice.BANK_HEAD + 4 * len(self._slots))
        n = voice.SLOTS
        if head[:4] != voice.MAGIC or head[4] | head[5] << 8 != n:
            f.close()
            return
        for i in range(2 * n):
            j = voice.BANK_HEAD + 4 * i
            self._slots[i] = head[j] | head[j + 1] << 8 | head[j + 2] << 16 | head[j + 3] << 24
        self._bank = f

    def _kick(self, _):
        if not self._playing:
            self._pump()

    def _i2s_done(self, _):
        self._pump()

    def _i2s_config(self):
        sck, ws, sd = self._i2s_pins
        return dict(
            sck=sck, ws=ws, sd=sd, mode=I2S.TX, bits=16, format=I2S.MONO, rate=RATE, ibuf=IBUF
        )

    def _amp_off(self, _):
        if self._amp_off_due and not self._playing:
            self._amp.value(0)
            self._amp_power(False)
            if self._i2s_on and self._i2s is not None:  # #22: the ring has played out
                self._i2s.deinit()  # no DMA interrupt while silent
                self._i2s_on = False
        self._amp_off_due = False

    def _pump(self):
        buf = self._abuf
        try:
            while True:
                if not self._left:
                    if self._pad:
                        self._pad = False
                        self._i2s.write(self._zeros)  # type: ignore[union-attr]  # playing: built
                        return
                    if not self._open_next():
                        self._playing = False
                        self._amp_raw = self._ticks()
                        self._amp_off_due = True
                        return
                    continue
                n = self._bank.readinto(self._ibuf)  # type: ignore[union-attr]  # _left: open
                if n > self._left:
                    n = self._left  # the next cue's bytes follow in the bank
                if not n:  # the bank ends early: drop the rest
                    self._left = 0
                    self._pad = True
                    continue
                self._left -= n
                m = self._dec.decode_into(self._ibuf, n, buf)
                for i in range(m, CHUNK):  # a cue's last chunk: silence after it
                    buf[i] = 0
                if self._gain < 256:
                    scale(buf, m, self._gain)
                self._i2s.write(buf)  # type: ignore[union-attr]  # playing: built
                if not self._left:
                    self._pad = True
                return
        except Exception:  # never raise into the loop: drop the cue, go quiet
            self._left = 0
            self._pad = False
            self._playing = False
            self._amp_off_due = True

    def _open_next(self):
        if self._lang_want is not None:
            self._swap(0)
        while self._qr != self._qw:
            cue = self._cues[self._qr]
            self._qr = (self._qr + 1) % CUES
            i = voice.cue_slot(cue)
            if self._bank is None or i < 0 or not self._slots[2 * i + 1]:
                self.cues_missing += 1  # no sample (e.g. more than 10 periods left)
                continue
            self._bank.seek(self._slots[2 * i])
            self._left = self._slots[2 * i + 1]
            self._dec.reset()
            if not self._playing:
                self._playing = True
                self._amp_off_due = False
                if not self._i2s_on:  # stopped while silent: its ring comes back (4 KB)
                    if self._i2s is None:
                        self._i2s = I2S(0, **self._i2s_config())
                    else:
                        self._i2s.init(**self._i2s_config())
                    self._i2s.irq(self._i2s_done)
                    self._i2s_on = True
                self._amp_power(True)
                self._amp.value(1)
            return True
        return False

    # -- serial ------------------------------------------------------------------

    def start_serial(self, app):
        """The loop's ``wait`` reads the host's bytes itself (Serial.pump)."""
        self._app = app

    def write_n(self, buf, n):
        return self._serial.write_n(buf, n)

    def write(self, data):
        return self._serial.write(data)

    def boot_id(self):
        return "%02x%02x%02x%02x" % tuple(urandom(4))

    def set_volume(self, v):
        """0..10: a square law, as ears hear loudness; 10 is the file as recorded."""
        self._gain = speech.capped(v * v * 256 // 100, self.GAIN_MAX)

    def set_trim(self, ppm):
        self._mono.skew_ppm = ppm

    # -- watchdog ----------------------------------------------------------------

    def feed(self):
        """Feed the watchdog; the first call starts it."""
        w = self._wdt
        if w is None:
            from machine import WDT

            w = self._wdt = WDT(timeout=WDT_MS)
        w.feed()

    def keep_alive(self):
        """After Ctrl-C: feed the watchdog from a timer for MAINT_MS."""
        if self._wdt is None or self._maint is not None:
            return
        from machine import Timer

        self._maint_raw = ticks_add(self._ticks(), MAINT_MS)
        self._maint = Timer(-1, period=WDT_MS // 4, callback=self._maint_feed)

    def _maint_feed(self, _):
        w = self._wdt
        if w is not None and ticks_diff(self._maint_raw, self._ticks()) > 0:
            w.feed()
