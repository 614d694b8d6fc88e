# SPDX-License-Identifier: GPL-3.0-or-later
"""The battery board's energy model (#22, #33, docs/power.md).

The real firmware (boot.py, then main.py, unchanged) runs on the simulated
RP2040 (``qizhong.sim.chip``) in virtual time and plays a game day given as
key and lever presses (``DAYS``). The chip's trace says what the model
needs: every wake of the loop, why, the sleep before it (lightsleep, or WFE
with the clocks on) and the loop's cycles awake at the clock the firmware
set; when the I2S ran, when the amplifier's and the cells' divider's supply
pins were on; every watchdog reset. ``Usage.of`` sums a trace; a ``Model``
(one per board or route, ``MODELS``) turns it into an average current at
the 3.3 V rail and hours on two AA alkaline cells (``cell.py``). Every
current carries its source beside it: a datasheet table, a published
measurement, or "estimate" (docs/power.md's bring-up list says how the
first board measures it).

    >>> round(PICO.average_ua(Usage(ms=3_600_000)))  # asleep for an hour, no wakes
    1012
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from qizhong.sim import cell

MHZ = 1_000_000
HOLD_MS = 80  # a lever press: down, then up this much later (as a player's hand)
KEY_MS = 100  # a key press: down, then up
KEY_GAP_MS = 500  # between two keys in a menu
PAD_MS = 64  # a chunk of zeros after a cue's last (boards/pico.py CHUNK: 64 ms at 8 kHz)
AMP_HOLD_MS = 400  # the amplifier stays on this long after it (boards/pico.py AMP_HOLD_MS)


@dataclass(frozen=True)
class Usage:
    """What the firmware did over ``ms`` of virtual time, from its trace.

    ``cycles`` the loop ran awake, ``awake_us`` their time at the clock then
    set; ``wfe_us``: asleep with the clocks on (a host on USB, or the I2S
    running; ``mwfe``: the same, each µs times the MHz then); ``i2s_us``,
    ``amp_us``, ``meas_us``: the I2S running, the amplifier's supply (GP11)
    and the cells' divider (GP13) on; ``speech_us``: the I2S running into a
    powered amplifier, less each stretch's closing silence and hold;
    ``lever_ms``: a lever held down; ``beep_ms``, ``flash_erases``,
    ``flash_progs``: the buzzer sounding and the flash written (0 when the
    trace does not say); ``resets``: watchdog resets; ``off_ms``: the board
    off."""

    ms: int
    wakes: int = 0
    cycles: int = 0
    awake_us: int = 0
    wfe_us: int = 0
    mwfe: int = 0
    i2s_us: int = 0
    amp_us: int = 0
    speech_us: int = 0
    meas_us: int = 0
    lever_ms: int = 0
    beep_ms: int = 0
    flash_erases: int = 0
    flash_progs: int = 0
    resets: int = 0
    off_ms: int = 0  # switched off (its supply let go): only the cells' own leaks

    def __add__(self, other: Usage) -> Usage:
        return Usage(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    @property
    def wakes_per_s(self) -> float:
        return self.wakes * 1000 / max(1, self.ms)

    @property
    def awake_pct(self) -> float:
        return self.awake_us / 10 / max(1, self.ms)

    @classmethod
    def of(cls, tr: Any, from_ms: int = 0, to_ms: int | None = None, lever_ms: int = 0) -> Usage:
        """The usage in ``tr`` (a ``chip`` trace) from ``from_ms`` to ``to_ms``
        (default: its end); ``lever_ms``: a lever held meanwhile (the
        presses are the caller's)."""
        lo = from_ms * 1000
        hi = (to_ms * 1000) if to_ms is not None else _end_us(tr)
        wakes = [w for w in tr.wakes if lo <= w.t_us < hi]
        hz = [w.hz for w in tr.wakes if w.t_us < lo][-1:] or [wakes[0].hz if wakes else MHZ]
        i2s = _spans(tr, lo, hi, lambda e: e[0] == "i2s", lambda e: e[2] == "on")
        amp = _spans(tr, lo, hi, _pin(11), lambda e: int(e[3]) == 1)
        flash = [e for e in tr.events if e[0] == "flash" and lo <= e[1] < hi]
        beep = _spans(tr, lo, hi, lambda e: e[0] == "beep", lambda e: e[2] == "on")
        wfe = mwfe = 0
        for w in wakes:
            if w.mode == "wfe":  # the sleep before it kept the clocks on, at the clock then
                wfe += w.slept_us
                mwfe += w.slept_us * hz[0] // MHZ
            hz[0] = w.hz
        return cls(
            ms=(hi - lo) // 1000,
            wakes=len(wakes),
            cycles=sum(w.cycles for w in wakes),
            awake_us=sum(w.cycles * MHZ // w.hz for w in wakes),
            wfe_us=wfe,
            mwfe=mwfe,
            i2s_us=_us(i2s),
            amp_us=_us(amp),
            speech_us=_speech_us(_both(i2s, amp)),
            meas_us=_us(_spans(tr, lo, hi, _pin(13), lambda e: int(e[3]) == 1)),
            lever_ms=lever_ms,
            beep_ms=_us(beep) // 1000,
            flash_erases=sum(1 for e in flash if e[2] == "erase"),
            flash_progs=sum(1 for e in flash if e[2] == "prog"),
            resets=sum(1 for t in tr.resets if lo <= t <= hi),
        )


def _end_us(tr: Any) -> int:
    return int(tr.end_us) or max((w.t_us for w in tr.wakes), default=0)


def _pin(gpio: int) -> Any:
    return lambda e: e[0] == "pin" and int(e[2]) == gpio


def _spans(tr: Any, lo: int, hi: int, which: Any, is_on: Any) -> list[tuple[int, int]]:
    """The spans within [lo, hi) µs that the trace's ``which`` events left on."""
    out, since = [], -1
    for e in tr.events:
        if not which(e):
            continue
        t = min(max(e[1], lo), hi)
        if is_on(e) and since < 0:
            since = t
        elif not is_on(e) and since >= 0:
            out.append((since, t))
            since = -1
    if since >= 0:
        out.append((since, hi))
    return out


def _us(spans: list[tuple[int, int]]) -> int:
    return sum(b - a for a, b in spans)


def _both(xs: list[tuple[int, int]], ys: list[tuple[int, int]]) -> list[tuple[int, int]]:
    got = [(max(a, c), min(b, d)) for a, b in xs for c, d in ys]
    return [(a, b) for a, b in got if b > a]


def _speech_us(spans: list[tuple[int, int]]) -> int:
    """The sound in spans of the I2S running into the powered amplifier: each
    ends with a chunk of zeros and the amplifier's hold (boards/pico.py)."""
    return sum(max(0, b - a - (PAD_MS + AMP_HOLD_MS) * 1000) for a, b in spans)


@dataclass(frozen=True)
class Model:
    """A board's currents in µA at its 3.3 V rail (typical figures), and the
    converter from the cells. ``name`` says which board or route."""

    name: str
    # The MCU (module) asleep between wakes, the whole of it at the rail.
    sleep_ua: float
    # Awake: the core's current per MHz of its clock (CMOS: it scales with the
    # clock), the IO supply and the program's memory while it runs, over the
    # chip's own sleep current (which the floor already holds).
    core_ua_per_mhz: float
    io_ua: float
    xip_ua: float
    chip_sleep_ua: float
    # Asleep in WFE with the clocks on (USB, or the I2S's DMA): per MHz.
    idle_ua_per_mhz: float = 9_000 / 48  # RP2040 Table 631: BOOTSEL mode idle, DVDD 9.0 mA
    # The loop's cycles on this core against the traced RP2040's (CoreMark/MHz).
    speed: float = 1.0
    mhz: float = 0.0  # 0: the clock the firmware set (the trace's); else this core's fixed clock
    wake_us: int = 0  # each wake's start-up before the first instruction (an oscillator)
    # The rest of the board (both boards of #22 share it).
    lcd_driver_ua: float = 3.5  # PCF85176 IDD, per driver (NXP, listed "Current - Supply 3.5 µA")
    lcd_glass_ua: float = 6.5  # bias and glass, per display (estimate: measure, B1)
    pull_en_ua: float = 1.85  # R15 1 MΩ from EN to GND: GP10 holds EN at about 1.85 V
    # through R30 (680 kΩ) and D2 (battery-board.md, #29's soft power)
    pull_lever_ua: float = 3.3  # R1/R2 1 MΩ to 3.3 V, while that lever is held
    meas_on_ua: float = 1.6 + 3.2 + 26  # cell divider, Q5's gate pull-up, Q2's base while GP13
    # is high (battery-board.md's figures)
    flash_ua: float = 20_000.0  # flash programming or erasing (estimate; W25Q16JV class)
    prog_us: int = 700  # one flash page program (estimate; W25Q16JV class)
    erase_us: int = 45_000  # one sector erase, typical (boards/pico.py's figure)
    amp_ua: float = 2_400.0  # MAX98357A quiescent (MAX98357A datasheet), while GP11 is high
    speaker_ua: float = 9_000.0  # the speech into the speaker, I2S on into the powered
    # amplifier (estimate: measure a cue's energy, B5)
    buzzer_ua: float = 1_000.0  # piezo driven at 4 kHz (estimate)
    # At the cells, not through the converter.
    buck_boost_ua: float = 0.075  # TPS63900 IQ into VIN (SLVSET3D, 6.5 Electrical Characteristics)
    buck_boost_out_ua: float = 0.075  # and into VOUT (TI E2E, TPS63901: "75nA typically")
    vsys_leak_ua: float = 0.0  # 3V3_EN pull-up and VSYS divider: 0 once the Pico's VSYS is
    # unpowered on cells (#29's fix); 33 µA before (3 V / 100 kΩ and 3 V / 300 kΩ)
    efficiency: float = 0.80  # TPS63900 (TI SLYY203B, Figure 10: above 80 % from 1 µA up)
    rail_v: float = 3.3

    def awake_ua(self, mhz: float) -> float:
        """Over the floor while the loop runs at ``mhz``."""
        return self.core_ua_per_mhz * mhz + self.io_ua + self.xip_ua - self.chip_sleep_ua

    def idle_ua(self, mhz: float) -> float:
        """Over the floor asleep in WFE, the clocks on at ``mhz``."""
        return self.idle_ua_per_mhz * mhz + self.io_ua - self.chip_sleep_ua

    def charge_uas(self, u: Usage) -> float:
        """µA·s drawn from the rail over ``u``."""
        if self.mhz:  # another core: the traced cycles at its speed and clock
            awake_us = u.cycles / self.speed / self.mhz
            run = self.awake_ua(self.mhz) * awake_us
            idle = self.idle_ua(self.mhz) * u.wfe_us
        else:  # the traced RP2040 at the clock it ran: µA·µs summed per MHz
            awake_us = u.awake_us
            run = self.core_ua_per_mhz * u.cycles + self.awake_ua(0) * u.awake_us
            idle = self.idle_ua_per_mhz * u.mwfe + self.idle_ua(0) * u.wfe_us
        flash_us = u.flash_progs * self.prog_us + u.flash_erases * self.erase_us
        total = (
            self.floor_ua * (u.ms - u.off_ms) * 1000
            + run
            + self.awake_ua(self.mhz or 48) * u.wakes * self.wake_us
            + idle
            + self.flash_ua * flash_us
            + self.speaker_ua * u.speech_us
            + self.amp_ua * u.amp_us
            + self.meas_on_ua * u.meas_us
            + self.buzzer_ua * u.beep_ms * 1000
            + self.pull_lever_ua * u.lever_ms * 1000
        )
        return total / 1_000_000

    @property
    def floor_ua(self) -> float:
        """What the board draws at its rail asleep: the MCU, both glasses,
        the soft power's pull-down, the converter's output side. The
        amplifier is power-gated and the tilt switch open at rest."""
        glasses = 2 * (self.lcd_driver_ua + self.lcd_glass_ua)
        return self.sleep_ua + glasses + self.pull_en_ua + self.buck_boost_out_ua

    def average_ua(self, u: Usage) -> float:
        """The rail's average current over ``u``."""
        return self.charge_uas(u) * 1000 / max(1, u.ms)

    def cells_mw(self, u: Usage) -> float:
        """The power taken from the cells: the rail's through the converter,
        and what draws from the cells directly (at their mean 2.5 V)."""
        rail_mw = self.average_ua(u) * self.rail_v / 1000 / self.efficiency
        return rail_mw + (self.buck_boost_ua + self.vsys_leak_ua) * 2.5 / 1000

    def hours(self, u: Usage) -> float:
        """Hours on a fresh pair of cells at ``u``'s rate."""
        return cell.energy_wh() * 1000 / self.cells_mw(u)

    def days_off(self) -> float:
        """Switched off: the converter in shutdown and whatever leaks from
        the cells (``vsys_leak_ua``), in days; the cells' own shelf life
        ends this first (years)."""
        off_mw = (self.buck_boost_ua + self.vsys_leak_ua) * 2.5 / 1000
        return cell.energy_wh() * 1000 / off_mw / 24


# The battery board as built (#22): a Raspberry Pi Pico module, its RT6150 off
# (3V3_EN to GND), its 3V3 fed by the TPS63900; machine.lightsleep between wakes.
PICO = Model(
    name="Pico module (battery board)",
    # MicroPython PR #8832 (P. Hinch): machine.lightsleep(5000), a whole Pico
    # with 5 V on VSYS: 990 µA. Taken as the same current at 3V3: pico-sdk
    # pico_low_power (low_power.h) measures a Pico's DORMANT at 0.76 mA on VSYS
    # and 0.75 mA on 3V3, the same to 1 %.
    sleep_ua=990.0,
    # RP2040 datasheet, 5.7 Power Consumption, Table 631: BOOTSEL mode active
    # DVDD 9.4 mA at 48 MHz (5.7.2.1, Figure 172: DVDD rises with the clock),
    # IOVDD 1.2 mA; Sleep DVDD 0.39 mA.
    core_ua_per_mhz=9_400 / 48,
    io_ua=1_200.0,
    xip_ua=4_000.0,  # the QSPI flash read while the CPU runs from it (estimate: W25Q16JV class)
    chip_sleep_ua=390.0,
)

# Route (a): a bare RP2040 on the board, its flash in deep power-down, DORMANT
# between wakes, woken by a 32 kHz RTC's 1 Hz interrupt or a lever.
RP2040_DORMANT = Model(
    name="bare RP2040, DORMANT + RTC",
    # RP2040 datasheet Table 631: Dormant DVDD 0.18 mA typical (4.2 mA worst
    # case); flash deep power-down and the RTC add a few µA (estimate: W25Q16JV
    # class power-down 1 µA; a 32 kHz RTC under 1 µA).
    sleep_ua=180.0 + 1.0 + 1.0,
    core_ua_per_mhz=9_400 / 48,
    io_ua=1_200.0,
    xip_ua=4_000.0,
    chip_sleep_ua=180.0,
    # Each wake restarts the 12 MHz crystal: about 1 ms (RP2040 datasheet,
    # 2.16 XOSC: the startup delay its STARTUP register counts; estimate).
    wake_us=1_000,
)

# Route (b): RP2350 (Pico 2). pico-sdk low_power.h, measured on a Pico 2 at
# 3V3: DORMANT 3.7 mA (its timer runs from the LPOSC), Pstate 0.14 mA (but a
# Pstate wake restarts the program: MicroPython would boot at every wake).
RP2350_DORMANT = Model(
    name="Pico 2 (RP2350), DORMANT",
    sleep_ua=3_700.0,
    core_ua_per_mhz=9_400 / 48,  # not in the table: taken as the RP2040's (estimate)
    io_ua=1_200.0,
    xip_ua=4_000.0,
    chip_sleep_ua=0.0,
)

# Route (c): a Nordic nRF52840 (MicroPython's nrf port; Bluetooth LE), System
# ON between wakes with its RTC running, its CPU at 64 MHz from internal flash.
NRF52840 = Model(
    name="nRF52840, System ON + RTC",
    # nRF52840 Product Specification, Current consumption, Sleep: System ON,
    # full RAM retention, wake on RTC (ION_RAMON_RTC) 3.16 µA at 3 V.
    sleep_ua=3.16,
    # Same, CPU: CoreMark from flash at 64 MHz, DC/DC, cache on: 3.3 mA.
    core_ua_per_mhz=3_300 / 64,
    io_ua=0.0,
    xip_ua=0.0,  # in the figure above (internal flash)
    chip_sleep_ua=0.0,
    # The I2S's EasyDMA and the 64 MHz crystal while the CPU sleeps (estimate).
    idle_ua_per_mhz=500 / 64,
    # Arm's figures: Cortex-M4 3.42 CoreMark/MHz against Cortex-M0+'s 2.46.
    speed=3.42 / 2.46,
    mhz=64.0,
    # A wake's clock start: the CPU runs from the internal 64 MHz RC in µs;
    # 0.36 ms is counted for each, an upper bound (estimate).
    wake_us=360,
)

# The same, advertising on Bluetooth LE once a second for a phone or the hall
# to find it: 4.8 mA (nRF52840 PS, radio TX at 0 dBm, DC/DC) for about 1.2 ms
# an event on three channels (estimate), over the sleep.
NRF52840_BLE = replace(
    NRF52840, name="nRF52840, advertising 1/s", sleep_ua=3.16 + 4_800 * 1.2 / 1000
)

ROUTES = (RP2040_DORMANT, RP2350_DORMANT, NRF52840, NRF52840_BLE)
MODELS = {
    "pico": PICO,
    "rp2040": RP2040_DORMANT,
    "rp2350": RP2350_DORMANT,
    "nrf52840": NRF52840,
    "nrf52840-ble": NRF52840_BLE,
}


class Script:
    """A game day as the chip simulator's inputs: key and lever presses, each
    at its virtual ms (``chip.run``'s ``events``). Time starts after boot."""

    def __init__(self, t: int = 2_000) -> None:
        self.t = t
        self.events: list[tuple[int, str, Any, str]] = []
        self.lever_ms = 0
        self.game = 0  # the app's game (xiangqi): the menu opens on it

    def key(self, name: str) -> None:
        self.events += [(self.t, "key", name, "down"), (self.t + KEY_MS, "key", name, "up")]
        self.t += KEY_GAP_MS

    def wait(self, ms: int) -> None:
        self.t += ms

    def moves(self, thinks: list[int]) -> None:
        """Each side presses its lever after its think time (the side that
        started first, on the left lever)."""
        for k, ms in enumerate(thinks):
            self.t += ms
            lever = k % 2
            self.events += [
                (self.t, "lever", lever, "down"),
                (self.t + HOLD_MS, "lever", lever, "up"),
            ]
            self.lever_ms += HOLD_MS

    def choose(self, game: int, preset: int) -> None:
        """The setup menu: ``game`` (menuitems.GAMES) and its ``preset``
        (menuitems.PRESETS), applied with start; the clock then waits idle."""
        self.key("menu")
        for _ in range((game - self.game) % 3):
            self.key("plus")
        self.key("ok")
        for _ in range(preset):
            self.key("plus")
        self.key("start")
        self.game = game

    def game_to_flag(self, thinks: list[int], flag_ms: int, rest_ms: int) -> None:
        """Start, play ``thinks``, then the side to move thinks until its flag
        falls (``flag_ms`` later at most), and the clock rests ``rest_ms``."""
        self.key("start")
        self.moves(thinks)
        self.wait(flag_ms + rest_ms)


MIN = 60_000
XIANGQI, GO, CHESS = 0, 1, 2
XQ_COUNT, GO_BYOYOMI, FIDE = 6, 0, 0  # menuitems.PRESETS: xq-count, go-byoyomi, fide
# xq-rapid (15m+10s): 30 moves a side at 25 s leave the side to move 450 s.
RAPID = ([25_000] * 60, 450_000 + 10_000)


def _xq_rapid() -> Script:
    s = Script()  # the clock boots on xq-rapid (main.py's DEFAULT)
    for k in range(6):
        if k:
            s.choose(XIANGQI, 0)
        s.game_to_flag(*RAPID, 5 * MIN)
    return s


def _xq_count() -> Script:
    s = Script()
    for k in range(4):
        if k:
            s.choose(XIANGQI, 0)
        s.game_to_flag(*RAPID, 5 * MIN)
    # xq-count (20m count 10s): 59 moves a side at 20 s, the last 20 s of
    # base in three moves at 7 s, then about 10 min of counting at 7 s a move.
    s.choose(XIANGQI, XQ_COUNT)
    s.game_to_flag([20_000] * 118 + [7_000] * 92, 10_000 + 2_000, 0)
    return s


def _go() -> Script:
    # go-byoyomi (60m byoyomi 3x60s): 59 moves a side at 60 s, then 2 h at 20 s a move.
    s = Script()
    s.choose(GO, GO_BYOYOMI)
    s.key("start")
    s.moves([60_000] * 118 + [20_000] * 362)
    return s


def _chess() -> Script:
    # fide (40/90m+30s:30m+30s): a move every 90 s for 4 h.
    s = Script()
    s.choose(CHESS, FIDE)
    s.key("start")
    s.moves([90_000] * 160)
    return s


def _lunch() -> list[Script]:
    # fide, 60 moves at 90 s, then paused for an hour's lunch (start pauses):
    # after OFF_MS (30 min) with no input the board switches itself off (its
    # journal keeps the game); after lunch the power key boots it again, on
    # the same flash, the game comes back paused, start resumes it, 60 more.
    s = Script()
    s.choose(CHESS, FIDE)
    s.key("start")
    s.moves([90_000] * 60)
    s.wait(30_000)
    s.key("start")
    s.wait(60 * MIN)
    after = Script()
    after.key("start")
    after.moves([90_000] * 60)
    return [s, after]


DAYS: dict[str, tuple[Any, str]] = {
    "xq-rapid": (_xq_rapid, "six games of 15m+10s to the flag, 5 min apart (no counting)"),
    "xq-count": (_xq_count, "four of those, then 20m count 10s with 10 min of counting"),
    "go": (_go, "60m byoyomi 3x60s: an hour each, then 2 h of byo-yomi at 20 s a move"),
    "chess": (_chess, "40/90m+30s:30m+30s, a move every 90 s for 4 h"),
    "lunch": (_lunch, "the same, paused an hour for lunch after move 60 (it switches off)"),
}


def run_day(name: str, board: str = "battery", **chip_args: Any) -> tuple[Usage, list[Any]]:
    """Day ``name`` (``DAYS``) played by the real firmware on the simulated
    ``board``: each of its runs boots the board afresh (the power key) on the
    same flash image; time after a run's power-off until its script's end is
    off. The day's usage, and each run's trace."""
    import os
    import tempfile

    from qizhong.sim import chip

    got = DAYS[name][0]()
    scripts = got if isinstance(got, list) else [got]
    total, traces = Usage(ms=0), []
    with tempfile.TemporaryDirectory(prefix="qizhong-day-") as tmp:
        flash = os.path.join(tmp, "flash.img")
        for s in scripts:
            end_ms = s.t + 1_000
            tr = chip.run(board, until_ms=end_ms, events=s.events, flash=flash, **chip_args)
            traces.append(tr)
            u = Usage.of(tr, lever_ms=s.lever_ms)
            gap = end_ms - u.ms if tr.end == "off" else 0
            total = total + u + Usage(ms=gap, off_ms=gap)
    return total, traces
