# SPDX-License-Identifier: GPL-3.0-or-later
"""The battery board's energy model (#22, docs/power.md).

The simulated board records what the firmware does (``Sim.power``: every
wake of its loop and the sleep before it, the frames that changed and their
bytes on the bus, the flash written) and the harness records every cue and
beep. ``Usage.of(sim, since)`` takes that record over a stretch of play;
``Model`` turns it into an average current on the 3.3 V rail and hours on
two AA alkaline cells. Every figure in ``Model`` carries its source: a
datasheet, or "estimate" (then docs/hardware-build.md's bring-up checklist
says how to measure it on the first board).

    >>> m = Model()
    >>> round(m.hours(Usage(ms=3_600_000)))  # a clock asleep for an hour, no wakes
    4369
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from qizhong.core import cuenames
from qizhong.sim.simulator import Sim, repo_root

PAD_MS = 64  # one chunk of zeros after each cue (boards/pico.py)
AMP_HOLD_MS = 400  # the amplifier stays on this long after the last chunk (boards/pico.py)
BEEP_MS = 2000  # the time-out buzzer (App.BEEP_MS)


@dataclass(frozen=True)
class Usage:
    """What the firmware did over ``ms`` of (virtual) time."""

    ms: int
    wakes: int = 0
    frames: int = 0
    bus_bytes: int = 0
    flash_progs: int = 0
    flash_bytes: int = 0
    flash_erases: int = 0
    cue_ms: int = 0  # the cues' sound, summed
    cues: int = 0
    beep_ms: int = 0

    @classmethod
    def of(cls, sim: Sim, since: dict[str, int], t0: int, cues0: int, beeps0: int) -> Usage:
        """The usage from the record ``since`` (``sim.power()``) at ``t0``
        to now; ``cues0``, ``beeps0``: ``len(sim.cues)``, ``len(sim.beeps)`` then."""
        now = sim.power()
        cues = sim.cues[cues0:]
        beep_ms = sum(min(BEEP_MS, max(0, sim.now - t)) for t, on in sim.beeps[beeps0:] if on)
        return cls(
            ms=sim.now - t0,
            wakes=now["wakes"] - since["wakes"],
            frames=now["frames"] - since["frames"],
            bus_bytes=now["bus_bytes"] - since["bus_bytes"],
            flash_progs=now["progs"] - since["progs"],
            flash_bytes=now["prog_bytes"] - since["prog_bytes"],
            flash_erases=now["erases"] - since["erases"],
            cue_ms=sum(cue_ms(c) for _, c in cues),
            cues=len(cues),
            beep_ms=beep_ms,
        )

    def __add__(self, other: Usage) -> Usage:
        return Usage(*(a + b for a, b in zip(_fields(self), _fields(other), strict=True)))


def _fields(u: Usage) -> tuple[int, ...]:
    return (u.ms, u.wakes, u.frames, u.bus_bytes, u.flash_progs, u.flash_bytes,
            u.flash_erases, u.cue_ms, u.cues, u.beep_ms)  # fmt: skip


_CUE_MS: dict[str, int] = {}


def cue_ms(cue: int) -> int:
    """How long a cue sounds: its Mandarin sample's duration (the default
    voice's index.txt; 0: no sample, nothing plays)."""
    if not _CUE_MS:
        path = os.path.join(repo_root(), "firmware", "assets", "voice", "cmn", "index.txt")
        with open(path, encoding="utf-8") as f:
            for line in f:
                words = line.split("\t")
                if len(words) >= 3 and not line.startswith("#"):
                    _CUE_MS[words[0]] = int(words[2])
    return _CUE_MS.get(cuenames.cue_asset(cue), 0)


@dataclass(frozen=True)
class Model:
    """Currents in µA on the 3.3 V rail (typical figures), times in µs.

    Sources (docs/power.md has the table):
    RP2040 datasheet, Table "Power Consumption" (5.7): Sleep DVDD 0.39 mA;
    BOOTSEL mode at 48 MHz, active: DVDD 9.4 mA + IOVDD 1.2 mA, idle 9.0 +
    1.2 mA. TPS63900 datasheet: 75 nA quiescent, efficiency curves. PCF85176
    datasheet: 3.5 µA supply current. MAX98357A datasheet: 2.4 mA quiescent.
    Energizer E91 (AA alkaline): 2,850 mAh at low drain.
    """

    sleep_ua: float = 390.0  # RP2040 SLEEP, DVDD (datasheet); the timer runs through it
    buck_boost_ua: float = 0.075  # TPS63900 quiescent (datasheet)
    lcd_driver_ua: float = 3.5  # PCF85176 supply, per display (datasheet)
    lcd_glass_ua: float = 6.5  # bias and glass, per display (estimate)
    flash_standby_ua: float = 10.0  # QSPI flash in standby (estimate; W25Q16JV class)
    active_ua: float = 10_600.0  # RP2040 at 48 MHz, running (datasheet: BOOTSEL active)
    xip_ua: float = 4_000.0  # the flash read while the CPU runs from it (estimate)
    wake_us: int = 13_000  # one loop pass at 48 MHz, segment face (estimate: measure)
    i2c_hz: int = 400_000  # the displays' bus
    flash_ua: float = 20_000.0  # flash programming or erasing (estimate; W25Q16JV class)
    prog_us: int = 700  # one flash page program (estimate; W25Q16JV class)
    erase_us: int = 45_000  # one sector erase, typical (boards/pico.py's figure)
    dma_idle_ua: float = 10_200.0  # RP2040 awake, DMA feeding I2S (datasheet: BOOTSEL idle)
    amp_ua: float = 2_400.0  # MAX98357A quiescent (datasheet)
    speaker_ua: float = 9_000.0  # the speech into the speaker, average (estimate)
    buzzer_ua: float = 1_000.0  # piezo driven at 2.7 kHz (estimate)
    cell_mah: float = 2_850.0  # Energizer E91, low drain (datasheet)
    cell_v: float = 1.25  # a cell's average voltage down to 0.9 V (estimate from its curves)
    cells: int = 2
    efficiency: float = 0.85  # TPS63900 at 3.3 V out, µA to mA loads (datasheet curves)
    rail_v: float = 3.3

    def charge_uas(self, u: Usage) -> float:
        """µA·s drawn from the rail over ``u``."""
        run = self.active_ua + self.xip_ua - self.sleep_ua  # over the floor, while awake
        awake_us = u.wakes * self.wake_us + u.bus_bytes * 9 * 1_000_000 // self.i2c_hz
        flash_us = u.flash_progs * self.prog_us + u.flash_erases * self.erase_us
        cue_us = (u.cue_ms + u.cues * PAD_MS) * 1000
        amp_us = cue_us + u.cues * AMP_HOLD_MS * 1000
        total = (
            self.floor_ua * u.ms * 1000
            + run * awake_us
            + (self.flash_ua + self.active_ua - self.sleep_ua) * flash_us
            + (self.dma_idle_ua - self.sleep_ua + self.speaker_ua) * cue_us
            + self.amp_ua * amp_us
            + (self.dma_idle_ua - self.sleep_ua + self.buzzer_ua) * u.beep_ms * 1000
        )
        return total / 1_000_000

    @property
    def floor_ua(self) -> float:
        """What the board draws asleep: the chip's sleep, the supply, the
        displays, the flash. The amplifier is power-gated and the tilt switch
        draws nothing at rest (docs/power.md)."""
        return (
            self.sleep_ua
            + self.buck_boost_ua
            + 2 * (self.lcd_driver_ua + self.lcd_glass_ua)
            + self.flash_standby_ua
        )

    def average_ua(self, u: Usage) -> float:
        """The rail's average current over ``u``."""
        return self.charge_uas(u) * 1000 / max(1, u.ms)

    def battery_wh(self) -> float:
        """The energy the converter delivers from a fresh pair of cells."""
        return self.cells * self.cell_v * self.cell_mah / 1000 * self.efficiency

    def hours(self, u: Usage) -> float:
        """Hours on the cells at ``u``'s average current."""
        return self.battery_wh() / (self.average_ua(u) * 1e-6 * self.rail_v)

    def days_asleep(self, wakes_per_hour: float = 120.0) -> float:
        """Idle storage, paused or on the menu, were the clock left on: the
        floor and its cells' two wakes a minute, in days."""
        hour = Usage(ms=3_600_000, wakes=round(wakes_per_hour))
        return self.hours(hour) / 24

    def days_off(self, off_ua: float = 0.15) -> float:
        """Switched off: only the converter's quiescent current (75 nA into
        VIN and about as much into VOUT, TI's figures), in days; the cells'
        own self-discharge ends this first (years)."""
        return self.battery_wh() / (off_ua * 1e-6 * self.rail_v) / 24


MODEL = Model()


def play(sim: Sim, spec: str, thinks: list[int]) -> None:
    """A game under ``spec`` from the clock's state now: configured and
    started over the serial link, then each side presses its lever after its
    think time (``thinks``, ms, Red first, on the left lever); then finished."""
    st = sim.status()["state"]
    if st != "idle":
        sim.command("finish" if st not in ("finished", "flagged") else "status")
        sim.command("new")
    got = sim.command("config " + spec)
    if not got.startswith("ok"):
        raise ValueError("%s: %s" % (spec, got))
    sim.command("start")
    t = sim.now
    for k, ms in enumerate(thinks):
        t += ms
        sim.press(k % 2, t)
    sim.run_to(t + 100)
    sim.command("finish")


def measure(sim: Sim, games: list[tuple[str, list[int]]], idle_ms: int = 0) -> Usage:
    """Play ``games`` one after another on ``sim`` (a battery board stepping
    deadline by deadline, as its firmware sleeps), ``idle_ms`` of rest after
    each; the usage over all of it."""
    since = sim.power()
    t0, cues0, beeps0 = sim.now, len(sim.cues), len(sim.beeps)
    for spec, thinks in games:
        play(sim, spec, thinks)
        if idle_ms:
            sim.run_to(sim.now + idle_ms)
    return Usage.of(sim, since, t0, cues0, beeps0)


def battery_sim(flash: str) -> Sim:
    """The battery board in virtual time, its displays drawn as the firmware
    draws them, time moving deadline by deadline; its journal on the flash
    image ``flash`` (a path; created)."""
    sim = Sim(board="battery", live_display=True, flash=flash, log_sleeps=True)
    sim.step = True
    return sim
