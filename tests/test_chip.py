# SPDX-License-Identifier: GPL-3.0-or-later
"""The firmware as it ships, on the simulated RP2040 (#33, host/qizhong/sim/chip.py).

firmware/boot.py and firmware/main.py run unchanged on MicroPython's unix port
with the simulated chip at the board boundary: I2C devices at their addresses,
the enable pin, the watchdog counting through lightsleep, the I2S's DMA and a
machine.Timer ending a sleep at their real rates. Each run is virtual time.
"""

import os
import re
import shutil

import pytest

from conftest import ROOT
from qizhong.sim import chip

FIRMWARE = os.path.join(ROOT, "firmware")
with open(os.path.join(FIRMWARE, "boards", "battery.py"), encoding="utf-8") as _f:
    CPU_HZ = int(re.search(r"^CPU_HZ = const\(([\d_]+)\)", _f.read(), re.M).group(1))
PCF = (0x38, 0x39)
OLED = 0x3C


def _patched(tmp_path, module: str, old: str, new: str) -> str:
    """A copy of the firmware with one change in ``boards/<module>``: a check
    that can fail is shown failing on it."""
    fw = tmp_path / "firmware"
    shutil.copytree(FIRMWARE, fw, ignore=shutil.ignore_patterns("assets"))
    os.symlink(os.path.join(FIRMWARE, "assets"), fw / "assets")
    path = fw / "boards" / module
    src = path.read_text()
    assert old in src, old
    path.write_text(src.replace(old, new))
    return str(fw)


def _blank(ram: bytes) -> bool:
    return not any(ram[4:])  # the PCF85176 frame: 4 command bytes, then the RAM


@pytest.fixture(scope="module")
def idle_battery():
    """The battery board switched on and left alone for 70 s (virtual)."""
    return chip.run("battery", 70_000)


def test_main_boots_the_battery_board_unchanged(idle_battery):
    tr = idle_battery
    assert tr.board == "battery"
    # boot.py's first line holds the TPS63900's enable: at t = 0, never let go
    assert tr.events[0] == ("pin", 0, 10, 1)
    assert tr.enable == [(0, 1)]
    # the glasses were drawn: both PCF85176s got frames with segments lit
    for addr in PCF:
        ram, frames = tr.ram[(0, addr)]
        assert frames >= 1 and not _blank(ram), hex(addr)
    assert (0, OLED) not in tr.ram
    # and it sleeps: in lightsleep, with no USB host
    assert any(w.mode == "lightsleep" for w in tr.wakes)


def test_main_boots_the_oled_board_unchanged():
    tr = chip.run("oled", 3000)
    assert tr.end == "end"
    for bus in (0, 1):
        ram, frames = tr.ram[(bus, OLED)]
        assert frames >= 1 and any(ram), bus
    assert (0, PCF[0]) not in tr.ram
    assert not any(w.mode == "lightsleep" for w in tr.wakes)  # it waits in WFE


def test_the_watchdog_outlives_a_long_sleep(idle_battery):
    """rp2's watchdog counts through lightsleep (MicroPython #17228): an idle
    clock that sleeps until its next cell reading (60 s) must not reset."""
    tr = idle_battery
    assert tr.end == "end" and tr.resets == [], tr.resets
    starts = tr.lines("wdt")
    assert starts and starts[0][2] == "start"
    longest = max(w.slept_us for w in tr.wakes)
    assert longest < starts[0][3] * 1000  # every sleep shorter than the timeout


def test_the_simulated_watchdog_resets_a_clock_that_sleeps_too_long(tmp_path):
    """The check can fail: the same firmware with its sleep steps as long as
    its deadlines resets in the first idle minute."""
    step = "WDT_STEP_MS = const(WDT_MS - 1000)"
    fw = _patched(tmp_path, "pico.py", step, "WDT_STEP_MS = const(3_600_000)")
    tr = chip.run("battery", 70_000, firmware=fw)
    assert tr.end == "reset" and tr.resets


def test_no_i2s_interrupt_while_silent(idle_battery):
    """rp2's I2S raises its DMA interrupt ~250 times a second, silence or not:
    it must not run until a cue plays (docs/power.md)."""
    tr = idle_battery
    assert not tr.lines("i2s")
    assert not [w for w in tr.wakes if w.cause == "i2s"]


def test_a_running_i2s_ends_each_lightsleep_early(tmp_path):
    """The chip: an I2S left running (as the old firmware built it at boot)
    ends every lightsleep early. Its DMA interrupt comes 250 times a second
    at full clock, 250 * 12 / 48 a second while the chip sleeps on its 12 MHz
    crystal: with each wake's own ~3 ms at 48 MHz, over 100 wakes a second
    (the issue's emulator saw 30 a second at 125 MHz)."""
    old = "        self._i2s_on = False\n"
    new = old + "        self._i2s = I2S(0, **self._i2s_config())\n        self._i2s_on = True\n"
    tr = chip.run("battery", 20_000, firmware=_patched(tmp_path, "pico.py", old, new))
    assert tr.lines("i2s") == [("i2s", tr.lines("i2s")[0][1], "on")]
    s = tr.summary(from_ms=2000)
    i2s = [w for w in tr.wakes if w.t_us >= 2_000_000 and w.cause == "i2s"]
    assert len(i2s) / s.seconds > 62.5, len(i2s) / s.seconds  # more than asleep alone
    assert all(w.mode == "lightsleep" for w in i2s)


def test_the_battery_board_runs_at_the_models_clock(idle_battery):
    """machine.freq(48 MHz) before any peripheral: the PIO's lever stamps,
    the buzzer's PWM and the I2C rate keep their dividers right, and USB
    still works (clk_sys >= clk_usb, 48 MHz)."""
    tr = idle_battery
    freqs = tr.lines("freq")
    assert [f[2] for f in freqs] == [CPU_HZ] and CPU_HZ >= 48_000_000
    first_peripheral = min(e[1] for e in tr.events if e[0] in ("pwm", "i2s", "clock"))
    assert freqs[0][1] <= first_peripheral
    assert not tr.lines("clock")  # nothing built before it runs at the wrong rate
    assert [e[3] for e in tr.lines("pwm")] == [4000] * len(tr.lines("pwm"))
    assert {w.hz for w in tr.wakes if w.mode != "boot"} == {CPU_HZ}


def test_an_idle_battery_board_wakes_rarely(idle_battery):
    """Before a game: the cells once a minute and the watchdog's steps only."""
    s = idle_battery.summary(from_ms=5000)
    assert s.wakes_per_s < 0.5, s


def test_a_game_without_counting_wakes_at_most_twice_a_second():
    """Done-when of #33: while the glasses show seconds, at most two wakes a
    second (a press every 20 s; the voice does not count)."""
    tr = chip.run("battery", 120_000, events=chip.game(2, 20_000))
    assert tr.end == "end" and not tr.resets
    s = tr.summary(from_ms=10_000)
    assert s.wakes_per_s <= 2.0, s
    assert s.hz == CPU_HZ


def test_the_board_releases_its_enable_when_it_switches_itself_off():
    """#33 Build 5: after OFF_MS quiet the board lets GP10 go, the glasses blanked
    first; the simulator ends the run there ("off")."""
    tr = chip.run("battery", 40 * 60_000)
    assert tr.end == "off", tr.end
    assert tr.enable[-1][1] == 0 and 30 * 60_000_000 <= tr.enable[-1][0] < 32 * 60_000_000
    for addr in PCF:
        assert tr.ram[(0, addr)][0] == bytes([0x40])  # mode set, E = 0: blank


def test_the_simulator_catches_a_board_that_blanks_but_holds_its_enable(tmp_path):
    fw = _patched(tmp_path, "battery.py", "self._hold.value(0)", "pass")
    tr = chip.run("battery", 40 * 60_000, firmware=fw)
    assert tr.end == "held", tr.end


def _script(tmp_path, main: str) -> str:
    """A firmware folder whose main.py is ``main`` (the chip itself under test)."""
    fw = tmp_path / "script"
    fw.mkdir(parents=True)
    os.symlink(os.path.join(FIRMWARE, "boards"), fw / "boards")  # its flash file for /state
    (fw / "boot.py").write_text("")
    (fw / "main.py").write_text(main)
    return str(fw)


def test_a_machine_timer_ends_each_lightsleep_at_its_period(tmp_path):
    main = (
        "import machine\n"
        "t = machine.Timer(period=250, callback=lambda t: None)\n"
        "while True:\n"
        "    machine.lightsleep(1000)\n"
    )
    tr = chip.run("battery", 5000, firmware=_script(tmp_path, main))
    sleeps = [w for w in tr.wakes if w.mode == "lightsleep"]
    assert {w.cause for w in sleeps} == {"mtimer"}
    assert 15 <= len(sleeps) <= 20  # every 250 ms, less the awake time


def test_a_running_pwm_wakes_nothing_and_keeps_its_divider(tmp_path):
    """rp2's PWM raises no interrupt; built before machine.freq, its tone moves
    with the clock (the battery board sets the clock first for this)."""
    main = (
        "import machine\n"
        "pwm = machine.PWM(machine.Pin(16), freq=4000, duty_u16=32768)\n"
        "machine.freq(48_000_000)\n"
        "while True:\n"
        "    machine.lightsleep(1000)\n"
    )
    tr = chip.run("battery", 5000, firmware=_script(tmp_path, main))
    assert {w.cause for w in tr.wakes if w.mode == "lightsleep"} == {"timer"}
    assert tr.lines("clock") == [("clock", tr.lines("freq")[0][1], "pwm", 16)]
    assert tr.lines("pwm")[0][3] == 4000
    with pytest.raises(RuntimeError, match="cannot change frequency"):
        chip.run(
            "battery",
            100,
            firmware=_script(tmp_path / "b", "import machine\nmachine.freq(1_000_000)\n"),
        )


def test_the_i2s_runs_for_the_cues_and_stops_after():
    """A host loads a counted control over USB, then unplugs; the clock is
    started and left to count: the I2S runs while the voice counts, and is
    off again after the flag (no DMA interrupt while silent)."""
    start = [(2000, "key", "start", "down"), (2100, "key", "start", "up")]
    tr = chip.run("battery", 90_000, start, spec="1m count 10s")
    assert "ok config" in tr.usb_out
    i2s = tr.lines("i2s")
    assert i2s and i2s[0][2] == "on" and i2s[-1][2] == "off"
    first_on, last_off = i2s[0][1], i2s[-1][1]
    assert 60_000_000 < first_on < last_off < 75_000_000  # the count: 60 s of main time on
    assert [w for w in tr.wakes if w.cause == "i2s" and first_on <= w.t_us <= last_off]
    assert not [w for w in tr.wakes if w.cause == "i2s" and not first_on <= w.t_us <= last_off]
    amp = [e for e in tr.lines("pin") if e[2] == 11]  # the amplifier's supply follows
    assert amp[-1][3] == 0 and amp[-1][1] == last_off
