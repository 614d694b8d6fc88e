# SPDX-License-Identifier: GPL-3.0-or-later
"""firmware/boards/i2cbus.py (#29): the bus clear, on the real MicroPython unix
port against a fake open-drain bus with a stuck device (tests/mp/bus_check.py),
and the speech gain cap (firmware/boards/speech.py) against the budget that
computes it (hardware/power.py)."""

import importlib.util
import os
import re
import subprocess

from conftest import ROOT

CHECK = os.path.join(ROOT, "tests", "mp", "bus_check.py")


def test_the_bus_clear_on_micropython(micropython, tmp_path):
    r = subprocess.run(
        [micropython, CHECK, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    with open(CHECK, encoding="utf-8") as f:
        expected = len(re.findall(r"^    check_\w+,$", f.read(), re.M))
    m = re.search(r"^bus: (\d+) passed, (\d+) failed$", r.stdout, re.M)
    assert m and (int(m.group(1)), int(m.group(2))) == (expected, 0), r.stdout


def _power():
    spec = importlib.util.spec_from_file_location(
        "power", os.path.join(ROOT, "hardware", "power.py")
    )
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_firmwares_gain_cap_is_the_budgets():
    """GAIN_CAP is what power.py computes: speech at it keeps the TPS63900 within
    its 400 mA and above its 1.8 V input at the cells' 2.0 V end, one step more
    would not, and full scale is far past both."""
    power = _power()
    with open(os.path.join(ROOT, "firmware", "boards", "speech.py"), encoding="utf-8") as f:
        cap = int(re.search(r"^GAIN_CAP = const\((\d+)\)", f.read(), re.M).group(1))
    assert cap == power.speech_gain_cap()
    assert power.speech_input_ma(cap) <= power.TPS63900_SWITCH_MA
    assert power.speech_vin(cap) >= power.TPS63900_VIN_MIN
    over = cap + 1
    assert (
        power.speech_input_ma(over) > power.TPS63900_SWITCH_MA
        or power.speech_vin(over) < power.TPS63900_VIN_MIN
    )
    assert power.speech_input_ma(256) > 500  # the "about 0.5 A", and more
