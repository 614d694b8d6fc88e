# SPDX-License-Identifier: GPL-3.0-or-later
"""The boards' electrical check in ngspice (#29): hardware/spice.py.

Both boards pass every check; the same check fails on the netlists as they
were before #29 (tests/data/hw29/*-before.net): the power key read through a
divider, D3's anode on VSYS (battery-board.md's old fallback), the Pico's
VSYS on the cells when off, the DW01A before the reverse guard.
"""

import importlib.util
import os
import re
import shutil

import pytest

from conftest import ROOT

HW = os.path.join(ROOT, "hardware")
BEFORE = os.path.join(ROOT, "tests", "data", "hw29")


def test_ngspice_is_installed():
    """make test installs Debian's ngspice (the Makefile's DEBIAN list): without
    it the check cannot run, and this says so rather than skipping."""
    assert shutil.which("ngspice"), "ngspice is missing: apt-get install ngspice (make test does)"


def _load():
    spec = importlib.util.spec_from_file_location("spice", os.path.join(HW, "spice.py"))
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


spice = _load()


def _failed(results):
    return {(r.check, r.case) for r in results if not r.ok}


@pytest.fixture(scope="module")
def battery():
    return spice.load("battery")


@pytest.fixture(scope="module")
def oled():
    return spice.load("qizhong")


@pytest.fixture(scope="module")
def battery_results(battery):
    return spice.check_battery(*battery)


@pytest.fixture(scope="module")
def oled_results(oled):
    return spice.check_oled(*oled)


def test_the_battery_board_passes_every_check(battery_results):
    for r in battery_results:
        print(r)
    assert _failed(battery_results) == set()
    checks = {r.check for r in battery_results}
    for sig in ("lever_left", "key_start", "tilt", "key_power"):
        assert {sig + " reads 1", sig + " reads 0"} <= checks, sig
    assert {"EN on from USB", "EN on from the power key", "EN off: nothing holds it"} <= checks
    assert "current from the cells, off (uA)" in checks
    assert "current from reversed cells (mA)" in checks
    assert "lever_left release crosses VIH (ms)" in checks


def test_the_oled_board_passes_every_check(oled_results):
    for r in oled_results:
        print(r)
    assert _failed(oled_results) == set()
    assert "current from a reversed cell (mA)" in {r.check for r in oled_results}


def test_off_current_is_under_a_microamp_and_printed(battery_results):
    off = [r for r in battery_results if r.check == "current from the cells, off (uA)"]
    assert len(off) == 2 and all(0 < r.value < 1.0 for r in off)
    print("off current from the cells: %s uA" % ", ".join("%.3f" % r.value for r in off))


def _old_battery():
    parts, nets = spice.load("battery", os.path.join(BEFORE, "battery-before.net"))
    # the old netlist left the CFG resistors' values open: the values #29 settles
    for ref, value in (("R12", "36.5k"), ("R13", "0"), ("R14", "16.2k")):
        parts[ref] = ("Resistor", value)
    return parts, nets


def test_the_check_fails_on_the_old_battery_board():
    """The power key through 100 kOhm against the pull-down the old design meant
    (GP12 at 0.6-1.4 V, never a 1), and the Pico's 3V3_EN pull-up and VSYS
    divider on the cells (about 33 uA, off or asleep)."""
    parts, nets = _old_battery()
    pulls = dict(spice.FIRMWARE["battery"], key_power="down")
    results = spice.check_battery(parts, nets, pulls, sections=("inputs", "power"))
    checks = {c for c, _ in _failed(results)}
    assert "key_power reads 1" in checks  # pressed: the divider never reaches VIH
    assert "current from the cells, off (uA)" in checks
    assert "board's own draw on cells, asleep (uA)" in checks
    off = [r.value for r in results if r.check == "current from the cells, off (uA)"]
    assert min(off) > 20  # tens of uA, not nA
    print("old off current: %s uA" % ", ".join("%.1f" % v for v in off))


def test_the_check_fails_on_the_old_en_fallback():
    """battery-board.md's fallback: D3's anode from VSYS. On the old board VSYS is
    the cells', so EN is held high with nothing pressed: never off."""
    parts, nets = _old_battery()
    nets = {k: list(v) for k, v in nets.items()}
    nets["VBUS"].remove(("D3", "1"))
    nets["VSYS"].append(("D3", "1"))
    failed = _failed(spice.check_battery(parts, nets, sections=("power",)))
    assert ("EN off: nothing holds it", "off, cells 3.2 V") in failed


def test_the_check_fails_on_the_old_oled_boards_reversed_cell():
    """The DW01A fed from BAT_P, before the guard: a reversed cell drives about
    30 mA through its substrate diode and R24."""
    parts, nets = spice.load("qizhong", os.path.join(BEFORE, "qizhong-before.net"))
    results = spice.check_oled(parts, nets)
    rev = [r for r in results if r.check == "current from a reversed cell (mA)"]
    assert len(rev) == 1 and not rev[0].ok and 20 < rev[0].value < 40, rev
    print("old reversed-cell current: %.1f mA" % rev[0].value)


def test_a_part_without_a_model_is_refused(battery):
    parts, nets = battery
    parts = dict(parts, X1=("Mystery part", "?"))
    with pytest.raises(KeyError, match="no SPICE model"):
        spice.op("battery", parts, nets, spice.Case("x"))


def test_values_are_read_as_the_netlist_writes_them():
    assert spice.value_of("4k7") == pytest.approx(4700)
    assert spice.value_of("16.2k") == pytest.approx(16200)
    assert spice.value_of("1M") == pytest.approx(1e6)
    assert spice.value_of("100n") == pytest.approx(1e-7)
    assert spice.value_of("0") == 0
    with pytest.raises(ValueError):
        spice.value_of("CFG1")


def _firmware(name):
    with open(os.path.join(ROOT, "firmware", "boards", name), encoding="utf-8") as f:
        return f.read()


def test_the_checks_pulls_are_the_ones_the_firmware_sets():
    """spice.FIRMWARE is what the board classes configure: keys and tilt on the
    internal pull-up (pico.py), levers on it unless the board says not
    (LEVER_PULL_UP), the battery board's power key on it (battery.py)."""
    base, bat, oled = _firmware("pico.py"), _firmware("battery.py"), _firmware("oled.py")

    def lever_pull(text, default):
        m = re.search(r"^    LEVER_PULL_UP = (True|False)", text, re.M)
        return default if m is None else m.group(1) == "True"

    default = lever_pull(base, None)
    assert default is not None
    assert "Pin(n, Pin.IN, Pin.PULL_UP) for n, _ in KEYS" in base
    assert "Pin(pins.TILT, Pin.IN, Pin.PULL_UP)" in base
    assert "Pin(KEY_POWER, Pin.IN, Pin.PULL_UP)" in bat
    for board, text in (("qizhong", oled), ("battery", bat)):
        want = "up" if lever_pull(text, default) else None
        pulls = spice.FIRMWARE[board]
        assert pulls["lever_left"] == pulls["lever_right"] == want, board
        assert all(pulls[k] == "up" for k in spice.KEYS) and pulls["tilt"] == "up", board
    assert spice.FIRMWARE["battery"]["key_power"] == "up"


def test_speech_at_the_cap_passes_and_at_full_scale_fails(battery_results, battery):
    """The firmware's gain cap keeps speech within the TPS63900's 400 mA and its
    1.8 V input from cells at their end; the uncapped gain (256, before #29)
    asks more than the cells, their resistance and the FETs can give: the
    simulation finds no operating point above VIN's minimum (the converter
    would brown out), so both checks fail."""
    speaking = [r for r in battery_results if "speaking" in r.check or "speaking" in r.case]
    assert {r.check for r in speaking} == {
        "current from the cells, speaking (mA)",
        "VIN while speaking",
    }
    assert all(r.ok for r in speaking)
    full = spice.check_battery(*battery, sections=("speech",), speech_gain=256)
    assert {r.check for r in full if not r.ok} == {
        "current from the cells, speaking (mA)",
        "VIN while speaking",
    }
    for r in speaking + full:
        print(r)
