# SPDX-License-Identifier: GPL-3.0-or-later
"""The Pico board layer: its pin map, and its pure parts on MicroPython.

The pin map has one source, hardware/pinout.csv. firmware/boards/pins.py is
generated from it (tools/gen_pins.py), so this fails when the two disagree, and
it checks the CSV against the RP2040's and the Pico's rules. The board itself
runs on the unix port against a fake ``machine`` written to a temp dir
(tests/mp/pico_check.py); there is no Pico here.
"""

import importlib.util
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT

PINS_PY = os.path.join(ROOT, "firmware", "boards", "pins.py")
BOARDS = os.path.join(ROOT, "firmware", "boards")
PICO_PY = os.path.join(BOARDS, "pico.py")
PICO_BOARDS = [os.path.join(BOARDS, m) for m in ("pico.py", "oled.py", "battery.py", "find.py")]
CHECK = os.path.join(ROOT, "tests", "mp", "pico_check.py")
GUIDE = os.path.join(ROOT, "docs", "hardware-build.md")


def _load_gen_pins():
    spec = importlib.util.spec_from_file_location(
        "gen_pins", os.path.join(ROOT, "tools", "gen_pins.py")
    )
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


gen_pins = _load_gen_pins()


@pytest.fixture(scope="module")
def rows():
    return gen_pins.read_csv()


def _constants(text):
    ns: dict = {}
    exec(compile(text, "pins.py", "exec"), ns)
    return {k: v for k, v in ns.items() if k.isupper()}


def test_pins_py_is_generated_from_pinout_csv(rows):
    with open(PINS_PY, encoding="utf-8") as f:
        committed = f.read()
    assert committed == gen_pins.render(rows), "pins.py is stale: run python tools/gen_pins.py"


def test_pinout_csv_is_valid(rows):
    assert gen_pins.check(rows) == []
    gpios = [gen_pins.gpio_number(r["gpio"]) for r in rows]
    assert None not in gpios and all(0 <= n <= 29 for n in gpios)
    assert len(set(gpios)) == len(gpios), "a GPIO is used twice"
    by = {r["signal"]: gen_pins.gpio_number(r["gpio"]) for r in rows}
    assert by["i2s_lrclk"] == by["i2s_bclk"] + 1, "machine.I2S on rp2 needs ws = sck + 1"


def test_generated_names_and_numbers(rows):
    c = _constants(gen_pins.render(rows))
    assert c["LEVER_LEFT"] == 2 and c["LEVER_RIGHT"] == 3
    assert c["I2C0_SDA"] == 0 and c["I2C0_SCL"] == 1
    assert c["VSYS_SENSE"] == 29 and c["VSYS_SENSE_ADC"] == 3
    assert c["BAT_SENSE"] == 26 and c["BAT_SENSE_ADC"] == 0
    assert c["OLED_RES"] == 22
    assert len([k for k in c if not k.endswith("_ADC")]) == len(rows)


def test_every_signal_the_board_uses_is_mapped(rows):
    used = set()
    for path in PICO_BOARDS:  # the shared part and both boards
        with open(path, encoding="utf-8") as f:
            used |= set(re.findall(r"\bpins\.([A-Z][A-Z0-9_]*)", f.read()))
    defined = _constants(gen_pins.render(rows))
    assert used, "the boards read no pins?"
    assert used <= set(defined), sorted(used - set(defined))
    # And nothing wired is forgotten by the board (the ADC channel stands for GP29).
    unused = {k for k in defined if k not in used and k + "_ADC" not in used}
    assert not unused, sorted(unused)


def pico_pin(n):
    """The Pico's physical pin for GPn ("-" for GP29, which is not on the header).

    Pins 1..20 run down the left side from the USB end, a GND after GP1 and then
    after every four GPIOs; pins 21..29 repeat that pattern from GP16. Then
    RUN (30), GP26 (31), GP27 (32), AGND (33), GP28 (34).
    """
    if n < 16:
        return str(n + 1 + (n + 2) // 4)
    if n <= 22:
        return str(20 + int(pico_pin(n - 16)))
    return {26: "31", 27: "32", 28: "34"}.get(n, "—")


def test_pico_pin_numbers():
    pins = {n: pico_pin(n) for n in (0, 1, 2, 5, 6, 9, 10, 13, 14, 15, 16, 17, 18, 21, 22, 28, 29)}
    assert pins == {
        **{0: "1", 1: "2", 2: "4", 5: "7", 6: "9", 9: "12", 10: "14", 13: "17", 14: "19"},
        **{15: "20", 16: "21", 17: "22", 18: "24", 21: "27", 22: "29", 28: "34", 29: "—"},
    }


def test_build_guide_wiring_table_matches_pinout_csv(rows):
    with open(GUIDE, encoding="utf-8") as f:
        table = re.findall(r"^\| `([a-z0-9_]+)` \| (GP\d+) \| (\S+) \|", f.read(), re.M)
    want = [(r["signal"], r["gpio"], pico_pin(gen_pins.gpio_number(r["gpio"]))) for r in rows]
    assert table == want


def _mutated(rows, signal, change):
    out = [dict(r) for r in rows]
    for r in out:
        if r["signal"] == signal:
            r.update(change)
    return out


@pytest.mark.parametrize(
    ("signal", "change", "message"),
    [
        ("key_ok", {"gpio": "GP2"}, "already lever_left"),
        ("key_ok", {"gpio": "GP30"}, "not a GPIO"),
        ("key_ok", {"gpio": "gp8"}, "not a GPIO"),
        ("key_ok", {"gpio": "GP25"}, "inside the Pico"),
        ("i2s_lrclk", {"gpio": "GP17"}, "must be i2s_bclk + 1"),
        ("i2c1_sda", {"gpio": "GP12"}, "cannot be SDA"),
        ("i2c0_scl", {"gpio": "GP0"}, "already i2c0_sda"),
        ("tilt", {"direction": "input"}, "direction"),
        ("vsys_sense", {"gpio": "GP22"}, "has no ADC"),
        ("buzzer", {"signal": "lever_left"}, "listed twice"),
    ],
)
def test_check_catches_a_wrong_pin_map(rows, signal, change, message):
    errors = gen_pins.check(_mutated(rows, signal, change))
    assert any(message in e for e in errors), errors


def test_gen_pins_check_mode_passes():
    r = subprocess.run(
        [sys.executable, os.path.join(ROOT, "tools", "gen_pins.py"), "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stderr


def test_pico_board_on_micropython(micropython, tmp_path):
    env = dict(os.environ, QIZHONG_FAKE_DIR=str(tmp_path))
    env.pop("QIZHONG_FIRMWARE", None)
    r = subprocess.run(
        [micropython, CHECK],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=env,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert os.path.exists(tmp_path / "machine.py"), "the fake machine lives in the temp dir"
    with open(CHECK, encoding="utf-8") as f:
        expected = len(re.findall(r"^    check_\w+,$", f.read(), re.M))
    m = re.search(r"^pico: (\d+) passed, (\d+) failed$", r.stdout, re.M)
    assert m, r.stdout
    assert (int(m.group(1)), int(m.group(2))) == (expected, 0), r.stdout


def test_make_firmware_refuses_an_i2c_rate_the_displays_cannot_use(tmp_path):
    # #22: refused when the bundle is built, not by a clock that resets forever.
    import shutil

    spec = importlib.util.spec_from_file_location(
        "build_firmware", os.path.join(ROOT, "tools", "build_firmware.py")
    )
    assert spec and spec.loader
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    assert build.i2c_problem() == ""
    fw = tmp_path / "firmware"
    shutil.copytree(os.path.join(ROOT, "firmware", "boards"), fw / "boards")
    src = (fw / "boards" / "pico.py").read_text()
    (fw / "boards" / "pico.py").write_text(src.replace("const(400_000)", "const(100_000)", 1))
    assert "refresh" in build.i2c_problem(str(fw))
