# SPDX-License-Identifier: GPL-3.0-or-later
"""The hardware (issue #7): schematic ERC, netlists, pin map, BOM, power budget, drawings.

hardware/schematic.py reads hardware/pinout.csv (the clock) and jig/pins.py
(the jig), so these fail when a committed netlist, the BOM or a drawing no
longer matches them.
"""

import csv
import importlib.util
import os
import re
from decimal import Decimal

import pytest

from conftest import ROOT

HW = os.path.join(ROOT, "hardware")


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


schematic = _load("schematic", os.path.join(HW, "schematic.py"))
power = _load("power", os.path.join(HW, "power.py"))
gen_pins = _load("gen_pins", os.path.join(ROOT, "tools", "gen_pins.py"))


@pytest.fixture(scope="module")
def sheets():
    return {name: make() for name, make in schematic.SHEETS.items()}


def nets_of(netlist):
    """net name -> {(ref, pin)} from a KiCad netlist."""
    out = {}
    for block in netlist.split("(net\n")[1:]:
        name = re.search(r'\(name "([^"]*)"\)', block).group(1)
        out[name] = set(re.findall(r'\(ref "([^"]+)"\)\s*\(pin "([^"]+)"\)', block))
    return out


@pytest.mark.parametrize("name", ["qizhong", "jig", "battery"])
def test_erc_finds_no_error_and_no_warning(sheets, name):
    assert sheets[name].erc() == (0, 0)


def test_erc_catches_two_outputs_on_one_net():
    s = schematic.Sheet()
    for ref in ("U1", "U2"):
        p = s.part(ref, "Driver", "x", "r", [(1, "O", schematic.P.OUTPUT)])
        s.net("fight").connect(p[1])
    errors, _ = s.erc()
    assert errors > 0


@pytest.mark.parametrize("name", ["qizhong", "jig", "battery"])
def test_the_committed_netlist_is_regenerated_byte_for_byte(sheets, name):
    with open(schematic.NETLISTS[name], encoding="utf-8") as f:
        committed = f.read()
    assert sheets[name].netlist() == committed, "run: python hardware/schematic.py"
    assert committed.startswith("(export") and '(version "D")' in committed


def test_every_pinout_signal_is_on_its_pico_pin_in_the_netlist(sheets):
    nets = nets_of(sheets["qizhong"].netlist())
    rows = gen_pins.read_csv()
    assert schematic.read_pinout() == {r["signal"]: gen_pins.gpio_number(r["gpio"]) for r in rows}
    for r in rows:
        gp = gen_pins.gpio_number(r["gpio"])
        if gp in schematic.INTERNAL:
            assert r["signal"] not in nets  # GP29 is inside the Pico
            continue
        assert ("U1", str(schematic.GP_PINS[gp])) in nets[r["signal"]], r["signal"]
    # and no Pico GPIO carries a signal the pin map does not know
    named = {n for n, nodes in nets.items() if any(ref == "U1" for ref, _ in nodes)}
    assert named - {r["signal"] for r in rows} == {"GND", "+3V3", "VSYS", "VBUS"}


def test_the_schematic_follows_a_changed_pinout(tmp_path, monkeypatch):
    src = os.path.join(HW, "pinout.csv")
    with open(src, encoding="utf-8") as f:
        text = f.read().replace("key_ok,GP8,", "key_ok,GP10,")
    moved = tmp_path / "pinout.csv"
    moved.write_text(text, encoding="utf-8")
    monkeypatch.setattr(schematic, "PINOUT", str(moved))
    nets = nets_of(schematic.clock().netlist())
    assert ("U1", "14") in nets["key_ok"] and ("U1", "11") not in nets["key_ok"]


def test_the_jig_drives_each_clock_line_through_an_optocoupler(sheets):
    jp = schematic.read_jig_pins()
    jig_nets = nets_of(sheets["jig"].netlist())
    clock_nets = nets_of(sheets["qizhong"].netlist())
    for ch, signal in enumerate(jp["CHANNELS"]):
        refs = {ref for ref, _ in jig_nets[signal]}
        assert any(ref.startswith("U10") and ref != "U101" for ref in refs), signal
        led = "jig_opto%d" % ch
        assert ("U101", str(schematic.GP_PINS[jp["OPTO"][ch]])) in jig_nets[led]
        assert signal in clock_nets
    for k, name in enumerate(schematic.HARNESS):  # J101 mates with J2 pin for pin
        assert ("J101", str(k + 1)) in jig_nets[name]
        assert ("J2", str(k + 1)) in clock_nets[name]


def _bom(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize(
    ("name", "bom"),
    [("qizhong", "bom.csv"), ("jig", "jig-bom.csv"), ("battery", "battery-bom.csv")],
)
def test_bom_lists_every_schematic_part_and_adds_up(sheets, name, bom):
    rows = _bom(os.path.join(HW, bom))
    assert list(rows[0]) == [
        "refs",
        "part",
        "value",
        "manufacturer",
        "mpn",
        "quantity",
        "unit_cost_usd",
        "total_usd",
        "notes",
    ]
    listed = {}
    total = Decimal(0)
    for r in rows:
        qty, unit, line = int(r["quantity"]), Decimal(r["unit_cost_usd"]), Decimal(r["total_usd"])
        assert qty * unit == line, r["part"]
        assert r["manufacturer"] and r["part"]
        total += line
        if r["refs"] != "-":
            refs = r["refs"].split()
            assert len(refs) == qty, r["part"]
            for ref in refs:
                assert ref not in listed, "%s listed twice" % ref
                listed[ref] = r["part"]
    assert listed == sheets[name].bom  # every part, under the schematic's name for it
    assert total > 0
    print("%s BOM total: $%s" % (name, total))


def test_the_power_budget_is_current_and_meets_the_fide_rule():
    low, ok = power.firmware_thresholds()
    assert (low, ok) == (3850, 4000)
    rows = power.read_parts()
    with open(power.DOC, encoding="utf-8") as f:
        assert f.read() == power.render(rows, low, ok), "run: python hardware/power.py"
    assert power.check(rows, low) == []
    ma, _, _ = power.budget(rows, "worst")
    assert power.life(ma, low)[1] >= power.REQUIRED_H
    assert power.check(rows, 3200)  # a warning that late would not leave 10 h


def test_the_battery_curve_is_monotonic():
    volts = [v for v, _ in power.CURVE]
    left = [f for _, f in power.CURVE]
    assert volts == sorted(volts, reverse=True) and left == sorted(left, reverse=True)
    assert power.left_at(3.75) == pytest.approx(0.5 + 0.1 * 5 / 7)  # between 3.77 and 3.70


def test_the_drawings_are_current(tmp_path):
    drawings = _load("drawings", os.path.join(HW, "drawings.py"))
    for name, path in drawings.OUT.items():
        fresh = tmp_path / (name + ".svg")
        getattr(drawings, name)(str(fresh))
        with open(path, encoding="utf-8") as f:
            assert fresh.read_text(encoding="utf-8") == f.read(), "run: python hardware/drawings.py"
    wiring = (tmp_path / "wiring.svg").read_text(encoding="utf-8")
    for sig in schematic.read_pinout():
        if sig != "vsys_sense":
            assert sig in wiring


PARTS_COLUMNS = [
    "refs",
    "mpn",
    "datasheet",
    "footprint",
    "pins",
    "pitch_mm",
    "rating",
    "limit",
    "unit",
    "stress",
]


def _pins_in_name(fp):
    """The pin count a KiCad footprint name states, or None."""
    m = re.search(r"_(\d+)x(\d+)_P", fp) or re.search(r"DIP-(\d+)_", fp)
    if m and m.lastindex == 2:
        return int(m.group(1)) * int(m.group(2))
    if m:
        return int(m.group(1))
    m = re.search(r"(?:SOT-23|TSSOP)-(\d+)", fp)
    return int(m.group(1)) if m else None


@pytest.mark.parametrize(
    ("name", "bom", "parts"),
    [
        ("qizhong", "bom.csv", "parts.csv"),
        ("jig", "jig-bom.csv", "jig-parts.csv"),
        ("battery", "battery-bom.csv", "battery-parts.csv"),
    ],
)
def test_every_part_has_its_datasheet_footprint_and_rating(sheets, name, bom, parts):
    """hardware/parts.csv: each BOM line's datasheet, footprint, pins and pitch,
    and its rating against the worst case of hardware/power.py (#25); the
    battery board's against ``power.battery_stresses`` (#22)."""
    rows = _bom(os.path.join(HW, parts))
    assert list(rows[0]) == PARTS_COLUMNS
    sheet = sheets[name]
    by_refs = {r["refs"]: r for r in rows if r["refs"] != "-"}
    bom_refs = {r["refs"]: r for r in _bom(os.path.join(HW, bom)) if r["refs"] != "-"}
    assert set(by_refs) == set(bom_refs), "a BOM line without its parts row, or the reverse"
    if name == "battery":
        stresses = power.battery_stresses()
    else:
        stresses = power.stresses(power.read_parts())
    checked = 0
    for r in rows:
        assert r["datasheet"], r["refs"]
        if r["refs"] != "-":
            assert r["mpn"] == bom_refs[r["refs"]]["mpn"], r["refs"]
            for ref in r["refs"].split():
                assert sheet.fp[ref] == r["footprint"], ref
                assert sheet.pin_count[ref] == int(r["pins"]), ref
            stated = _pins_in_name(r["footprint"])
            assert stated in (None, int(r["pins"])), r["footprint"]
            pitch = re.search(r"_P(\d+\.\d+)mm", r["footprint"])
            if pitch and r["pitch_mm"]:
                assert abs(float(pitch.group(1)) - float(r["pitch_mm"])) <= 0.05, r["refs"]
        if r["stress"]:
            worst = stresses[r["stress"]]
            assert worst < float(r["limit"]), "%s: %s %.2f %s against %s" % (
                r["refs"] if r["refs"] != "-" else r["mpn"],
                r["stress"],
                worst,
                r["unit"],
                r["limit"],
            )
            checked += 1
    assert checked >= 3


def test_a_part_past_its_rating_fails(monkeypatch):
    """The rating check can fail: the old 2 kOhm PROG resistor (500 mA of charge)
    takes the USB draw past what a port gives."""
    monkeypatch.setattr(power, "CHARGE_MA", 1000 / 2.0)
    assert power.stresses(power.read_parts())["usb_ma"] > 500


def test_the_buzzer_is_driven_at_its_rated_frequency():
    """The TDK PS1240 is specified at 4 kHz (#25): the firmware and the sim agree."""
    with open(os.path.join(ROOT, "firmware", "boards", "pico.py"), encoding="utf-8") as f:
        hz = int(re.search(r"^BEEP_HZ = const\((\d+)\)", f.read(), re.M).group(1))
    with open(os.path.join(ROOT, "host", "qizhong", "sim", "audio.py"), encoding="utf-8") as f:
        sim_hz = int(re.search(r"^BUZZER_HZ = (\d+)", f.read(), re.M).group(1))
    assert hz == sim_hz == 4000


def test_the_speaker_is_on_the_amplifiers_own_terminal(sheets):
    """The Adafruit 3006 has a 7-pin header; its speaker terminal is on the far
    edge, so no board net may reach for a speaker pin on that header (#25)."""
    assert sheets["qizhong"].pin_count["U2"] == 7
    nets = nets_of(sheets["qizhong"].netlist())
    assert "spk_p" not in nets and "LS1" not in sheets["qizhong"].bom
    assert ("R9", "1") in nets["amp_sd"] or ("R9", "2") in nets["amp_sd"]  # its pull-down


def test_the_harness_keeps_a_ground_beside_the_bit_clock():
    k = schematic.HARNESS.index("i2s_bclk")
    assert schematic.HARNESS[k - 1] == schematic.HARNESS[k + 1] == "GND"
    assert len(schematic.HARNESS) == 16


def test_the_battery_boards_bom_adds_up():
    """hardware/battery-bom.csv (#22): the same columns, every line adds up, and the
    total battery-board.md states."""
    rows = _bom(os.path.join(HW, "battery-bom.csv"))
    assert list(rows[0]) == list(_bom(os.path.join(HW, "bom.csv"))[0])
    total = Decimal(0)
    for r in rows:
        assert int(r["quantity"]) * Decimal(r["unit_cost_usd"]) == Decimal(r["total_usd"])
        total += Decimal(r["total_usd"])
    with open(os.path.join(HW, "battery-board.md"), encoding="utf-8") as f:
        stated = int(re.search(r"about \$(\d+) in single units", f.read()).group(1))
    assert abs(total - stated) < 1, total


# The battery board's netlist (#22, #25): every part's pins against the pin
# table it names in hardware/pintables.csv, where each pin has its source.


def _pin_table_problems(sheet, tables):
    """Parts with no table, or whose pins (number and name) differ from it."""
    out = []
    for ref, pins in sheet.pins.items():
        table = sheet.table.get(ref)
        if table not in tables:
            out.append("%s: no pin table (%r)" % (ref, table))
            continue
        want = {(n, row["name"]) for n, row in tables[table].items()}
        if set(pins) != want or len(pins) != len(want):
            out.append("%s (%s): %s" % (ref, table, sorted(set(pins) ^ want)))
    return out


def _rail_problems(sheet, nets, tables):
    """Power and strap pins whose table names a rail, not on that rail."""
    where = {node: name for name, nodes in nets.items() for node in nodes}
    out = []
    for ref, table in sheet.table.items():
        for n, row in tables[table].items():
            if row["rail"] and where.get((ref, n)) != row["rail"]:
                out.append(
                    "%s.%s %s: on %s, not %s"
                    % (ref, n, row["name"], where.get((ref, n)), row["rail"])
                )
    return out


def _pins_on_two_nets(nets):
    seen, out = {}, []
    for name, nodes in nets.items():
        for node in nodes:
            if node in seen:
                out.append("%s.%s on %s and %s" % (*node, seen[node], name))
            seen[node] = name
    return out


def test_the_pin_tables_name_a_source_for_every_pin():
    tables = schematic.read_pin_tables()
    with open(schematic.PIN_TABLES, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["part", "pin", "name", "type", "rail", "source"]
    assert all(r["source"].strip() for r in rows)
    assert len(rows) == sum(len(t) for t in tables.values())  # no pin twice
    assert sorted(tables["PCF85176T"], key=int) == [str(n) for n in range(1, 57)]
    assert sorted(tables["TPS63900"], key=int) == [str(n) for n in range(1, 12)]


def test_a_pin_table_without_a_source_is_refused(tmp_path):
    bad = tmp_path / "pintables.csv"
    bad.write_text("part,pin,name,type,rail,source\nX,1,A,in,,\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no source"):
        schematic.read_pin_tables(str(bad))


def test_every_battery_part_has_its_tables_pins(sheets):
    tables = schematic.read_pin_tables()
    sheet = sheets["battery"]
    assert set(sheet.table) == set(sheet.pins)  # every part names its table
    assert _pin_table_problems(sheet, tables) == []


def test_a_part_that_differs_from_its_table_is_caught(sheets):
    """The check can fail: the PCF85176's VDD and VSS swapped, a pin missing."""
    tables = schematic.read_pin_tables()
    sheet = schematic.battery()
    pins = dict(sheet.pins["U3"])
    pins["48"], pins["54"] = pins["54"], pins["48"]
    sheet.pins["U3"] = tuple(pins.items())
    sheet.pins["U5"] = sheet.pins["U5"][:-1]
    problems = _pin_table_problems(sheet, tables)
    assert len(problems) == 2 and "U3" in problems[0] and "U5" in problems[1]


@pytest.mark.parametrize("name", ["qizhong", "jig", "battery"])
def test_no_pin_is_on_two_nets(sheets, name):
    assert _pins_on_two_nets(nets_of(sheets[name].netlist())) == []


def test_no_pin_on_two_nets_is_caught():
    assert _pins_on_two_nets({"a": {("U1", "1")}, "b": {("U1", "1"), ("U2", "1")}})


def test_battery_power_pins_are_on_their_rails(sheets):
    tables = schematic.read_pin_tables()
    sheet = sheets["battery"]
    nets = nets_of(sheet.netlist())
    assert _rail_problems(sheet, nets, tables) == []
    # every supply pin has a rail in its table, so none escapes the check
    for table in set(sheet.table.values()):
        for n, row in tables[table].items():
            assert row["type"] != "power" or row["rail"], "%s pin %s" % (table, n)
    # and a pin moved off its rail is caught: the TPS63900's VIN on the cells
    nets = {k: set(v) for k, v in nets.items()}
    nets["VIN"].discard(("U2", "10"))
    nets["CELLS"].add(("U2", "10"))
    assert _rail_problems(sheet, nets, tables) == ["U2.10 VIN: on CELLS, not VIN"]


def test_each_glass_meets_its_driver_line_for_line(sheets):
    """COMk to BPk, SEGk to Sk, by name through the pin tables, and nothing else
    on those nets."""
    sheet = sheets["battery"]
    nets = nets_of(sheet.netlist())
    where = {node: name for name, nodes in nets.items() for node in nodes}
    for glass, driver in (("DS1", "U3"), ("DS2", "U4")):
        by_name = {nm: n for n, nm in sheet.pins[driver]}
        for n, nm in sheet.pins[glass]:
            line = ("BP" + nm[3:]) if nm.startswith("COM") else ("S" + nm[3:])
            net = where[(glass, n)]
            assert nets[net] == {(glass, n), (driver, by_name[line])}, nm


def test_the_battery_board_follows_the_firmwares_pins_and_addresses(sheets):
    """GP10-GP13 as firmware/boards/battery.py has them, and the two PCF85176 at
    0x38 and 0x39 by SA0 (GLASS_ADDR): the firmware and the netlist agree."""
    with open(os.path.join(ROOT, "firmware", "boards", "battery.py"), encoding="utf-8") as f:
        fw = f.read()

    def const(name):
        return int(re.search(r"^%s = const\((\w+)\)" % name, fw, re.M).group(1), 0)

    pins = schematic.BATTERY_PINS
    assert (pins["pwr_hold"], pins["amp_pwr"], pins["bat_meas"], pins["key_power"]) == (
        const("PWR_HOLD"),
        const("AMP_PWR"),
        const("BAT_MEAS"),
        const("KEY_POWER"),
    )
    nets = nets_of(sheets["battery"].netlist())
    for sig, gp in pins.items():
        assert ("U1", str(schematic.GP_PINS[gp])) in nets[sig], sig
    for sig in schematic.BATTERY_UNUSED:
        assert sig not in nets
    sa0 = {
        ref: name
        for name, nodes in nets.items()
        for ref, pin in nodes
        if pin == "53" and ref in ("U3", "U4")
    }
    assert const("GLASS_ADDR") == 0x38 and sa0 == {"U3": "GND", "U4": "+3V3"}
    assert ("U1", "37") in nets["GND"]  # 3V3_EN: the Pico's own regulator off


def test_the_battery_boards_open_items_are_listed():
    """What the netlist leaves open (the glass's footprint, the PCF85176 pin
    table's confirmation) is listed in battery-board.md, so nothing unchecked is
    ordered; the CFG resistors (#29) are settled, each value with its primary
    source, and no longer open."""
    sheet = schematic.battery()
    with open(os.path.join(HW, "battery-board.md"), encoding="utf-8") as f:
        doc = f.read()
    open_items = doc.split("## Open before ordering", 1)[1].split("\n## ", 1)[0]
    cfg = {"R12": ("36.5k", "CFG1"), "R13": ("0", "CFG2"), "R14": ("16.2k", "CFG3")}
    sources = doc.split("### Where each pin number comes from", 1)[1]
    for ref, (value, pin) in cfg.items():
        assert sheet.values[ref] == value, ref
        assert ref not in open_items
        assert "%s (%s)" % (pin, ref) in sources and "SLVSET3D" in sources
    assert "EN on USB" not in open_items and "C9, C10" not in open_items
    assert sheet.fp["DS1"].startswith("qizhong:") and "qizhong:LCD_Glass_Zebra_1x44" in open_items
    tables = schematic.read_pin_tables()
    assert "not read" in tables["PCF85176T"]["48"]["source"] and "PCF85176" in open_items


def test_the_oled_boards_tabled_parts_have_their_tables_pins(sheets):
    """The same pin check on the OLED board's parts that name a table (the
    Pico, the charger, the cell protection, the FETs, the amplifier header)."""
    sheet = sheets["qizhong"]
    assert {"U1", "U2", "U3", "U4", "Q1", "Q3", "Q4", "J2"} <= set(sheet.table)
    tabled = schematic.Sheet()
    tabled.pins = {ref: sheet.pins[ref] for ref in sheet.table}
    tabled.table = sheet.table
    assert _pin_table_problems(tabled, schematic.read_pin_tables()) == []
