# SPDX-License-Identifier: GPL-3.0-or-later
"""The power budget and battery life: hardware/power.csv in, hardware/power.md out.

    python hardware/power.py           write hardware/power.md
    python hardware/power.py --check   exit 1 if power.md is stale or the rule fails

Each part draws ``ma`` from its rail for a fraction ``duty`` of the time
(typical game, and the worst case: a byo-yomi count with a cue every second).
The 3V3 rail comes from the Pico's buck-boost regulator (``SMPS_EFF``); VSYS
comes from the cell through a P-FET (a few mV: taken as none). The firmware
reads the cell itself and warns below ``LOW_MV`` (firmware/boards/oled.py);
FIDE asks for at least 10 h of running after the warning (``REQUIRED_H``),
which this checks against the cell's discharge curve with a margin
(``MARGIN``). ``stresses`` gives the worst case each part must be rated for;
tests/test_hardware.py holds hardware/parts.csv's ratings against it.
"""

import csv
import itertools
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CSV = os.path.join(HERE, "power.csv")
DOC = os.path.join(HERE, "power.md")
PICO = os.path.join(ROOT, "firmware", "boards", "oled.py")  # the OLED board: the Li-ion cell

CELL_MAH = 3500  # Samsung INR18650-35E, hardware/bom.csv
DERATE = 0.85  # to 3.0 V at this low rate, after ageing and cold
SMPS_EFF = 0.85  # the Pico's RT6150 at about 100 mA
VBUS_V = 5.0  # USB
VSYS_USB_V = 4.7  # VBUS through the Pico's own Schottky diode
CHARGE_MA = 1000 / (4.7 + 0.47)  # MCP73831: I_REG = 1000 V / R_PROG (R14 4.7 kOhm + RT1 at 25 C)
USB_MA = 500  # what a USB 2.0 port promises
# MAX98357A at full scale into 4 Ohm from 4.2 V: about 1.8 W out (its datasheet's
# output power against supply), 85 % efficient. An estimate.
AMP_PEAK_MA = 800
CHARGER_THETA = 230  # MCP73831 SOT-23-5, junction to air, C/W (datasheet)
AMBIENT_C = 30  # a warm playing hall
REQUIRED_H = 10  # FIDE: at least 10 h after the low-battery warning
MARGIN = 1.5  # the estimate's uncertainty: ask for 15 h
# A typical NMC 18650 at 0.2 C: (loaded cell volts, fraction of capacity left).
CURVE = (
    (4.15, 1.00),
    (4.02, 0.90),
    (3.93, 0.80),
    (3.85, 0.70),
    (3.77, 0.60),
    (3.70, 0.50),
    (3.64, 0.40),
    (3.58, 0.30),
    (3.50, 0.20),
    (3.40, 0.10),
    (3.30, 0.05),
    (3.00, 0.00),
)


def firmware_thresholds(path=PICO):
    """(LOW_MV, OK_MV) of the Pico board."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    low = re.search(r"^LOW_MV = const\((\d+)\)", text, re.M)
    ok = re.search(r"^OK_MV = const\((\d+)\)", text, re.M)
    if not (low and ok):
        raise ValueError("%s: LOW_MV / OK_MV not found" % path)
    return int(low.group(1)), int(ok.group(1))


def read_parts(path=CSV):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for k in ("ma", "duty_typical", "duty_worst"):
            r[k] = float(r[k])
        if r["rail"] not in ("3V3", "VSYS", "VBAT"):
            raise ValueError("%s: rail %r" % (r["part"], r["rail"]))
    return rows


def left_at(volts):
    """Fraction of capacity left when the loaded cell reads ``volts``."""
    if volts >= CURVE[0][0]:
        return 1.0
    for (v1, f1), (v0, f0) in itertools.pairwise(CURVE):
        if v0 <= volts <= v1:
            return f0 + (f1 - f0) * (volts - v0) / (v1 - v0)
    return 0.0


def budget(rows, case):
    """Battery current in mA for ``case`` ('typical' or 'worst'), and per-part mW."""
    vbat = 3.6  # nominal, for the per-part power column
    per = []
    total_mw = 0.0
    for r in rows:
        ma = r["ma"] * r["duty_" + case]
        mw = ma * (3.3 / SMPS_EFF if r["rail"] == "3V3" else vbat)
        per.append((r, ma, mw))
        total_mw += mw
    return total_mw / vbat, total_mw, per


def life(ma, low_mv):
    usable = CELL_MAH * DERATE
    warn_v = low_mv / 1000
    return usable / ma, usable * left_at(warn_v) / ma, warn_v


def stresses(rows):
    """The worst case each part must carry (names used in hardware/parts.csv)."""
    ma, mw, _ = budget(rows, "worst")
    load_usb_ma = mw / VSYS_USB_V  # the clock itself, fed from VBUS on USB
    die_c = AMBIENT_C + CHARGER_THETA * (VBUS_V - CURVE[-1][0]) * CHARGE_MA / 1000
    return {
        "cell_ma": ma + AMP_PEAK_MA,  # the switch, fuse and FETs in the cell's path
        "usb_ma": load_usb_ma + CHARGE_MA,  # from the host's port while charging
        "charge_ma": CHARGE_MA,
        "charger_die_c": die_c,  # at the start of a charge from empty
        "amp_w": 1.8,  # the speaker's worst: the amplifier's full output at 4.2 V
        "vbat_v": CURVE[0][0] + 0.05,  # a full cell, charger at its 4.2 V limit
        "vbus_v": 5.25,  # USB's upper limit
        "rail_3v3": 3.3,
        "buzzer_ma": 4.25 / 1 + 10,  # R13 (1 kOhm) and the piezo's own charge current
        "lever_ma": 3.3 / 10,  # a lever's 10 kOhm pull-up
        "key_ma": 3.3 / 50,  # the RP2040's pull-up, 50 kOhm at its lowest
        "led_ma": (5.25 - 1.8) / 1,  # D2 through R15 (1 kOhm) from VBUS
        "opto_ma": 3.3 / 10,  # the jig's opto across a lever's pull-up
        "resistor_mw": 4.25**2,  # the worst: R13, VSYS across 1 kOhm (mW)
    }


# The battery board (#22, hardware/battery-board.md): its worst cases, each
# from a figure named beside it. Its energy budget is the simulator's model
# (host/qizhong/sim/energy.py, docs/power.md), not power.csv.
CELLS_V = 3.2  # two fresh alkaline cells in series (battery-board.md, Energizer E91)
TPS63900_SWITCH_MA = 400  # TPS63900 switch current (TI, KiCad's TPS63900 symbol): bounds its input


def battery_stresses():
    """The battery board's worst case for each part (names used in hardware/battery-parts.csv)."""
    vsys = 5.25  # USB's upper limit; VSYS is VBUS through the Pico's diode, or the cells
    buzzer_ma = vsys / 1 + 10  # R23 (1 kOhm) across VSYS and the piezo's charge current
    return {
        "vsys_v": vsys,
        "rail_3v3": 3.3,
        "cell_ma": TPS63900_SWITCH_MA + buzzer_ma,  # the FETs, holder and leads in the cells' path
        "buzzer_ma": buzzer_ma,
        "lever_ma": 3.3 / 50 + 3.3 / 1000,  # the RP2040's pull-up at its lowest, and R1/R2 (1 MOhm)
        "key_ma": max(3.3 / 50, CELLS_V / 100 + CELLS_V / 1000),  # a key; the power key: R16, R15
        "schottky_v": vsys,  # D1-D3 reversed: EN from USB against an open key
        "resistor_mw": vsys**2 / 1,  # the worst: R23, VSYS across 1 kOhm (mW)
        "speaker_w": 3.3**2 / (2 * 8),  # a full-scale sine from a 3.3 V bridge into 8 Ohm
    }


# The speech gain cap (#29, firmware/boards/speech.py): the loudest speech the
# TPS63900 can carry from the cells at their end.
CELLS_END_V = 2.0  # two alkaline cells at 1.0 V each, open circuit: where spice.py takes them
CELLS_R = 0.5  # their internal resistance near the end, about 0.25 Ohm a cell (an estimate)
PATH_R = 2 * 0.15  # Q3 and Q4 (DMG2305UX) at VGS about -1.8 V (spice.py's model gives 0.14)
TPS63900_EFF = 0.85  # at 100-400 mA (SLVSET3D typical efficiency curves): an estimate
AMP_EFF = 0.85  # MAX98357A: 92 % at 1 W into 8 Ohm (its datasheet), less at speech's levels
RAIL_BUSY_MA = 20 + 2.4  # the RP2040 awake (power.csv's estimate) and the amplifier's quiescent


def speech_rail_w(gain):
    """The 3.3 V rail's power (W) while speech plays at ``gain`` (/256): the
    amplifier's output goes as the gain squared (a full-scale sine from its 3.3 V
    bridge into 8 Ohm, ``battery_stresses``' speaker_w), plus the rest awake."""
    out_w = battery_stresses()["speaker_w"] * (gain / 256) ** 2 / AMP_EFF
    return out_w + 3.3 * RAIL_BUSY_MA / 1000


def speech_input_ma(gain):
    """The current (mA) from the cells at their end for speech at ``gain``: the
    converter's input power I x (CELLS_END_V - I x (CELLS_R + PATH_R))."""
    p_in = speech_rail_w(gain) / TPS63900_EFF
    r = CELLS_R + PATH_R
    disc = CELLS_END_V**2 - 4 * r * p_in
    if disc < 0:
        return float("inf")  # more than the cells can give at any current
    return 1000 * (CELLS_END_V - disc**0.5) / (2 * r)


TPS63900_VIN_MIN = 1.8  # its input's minimum (SLVSET3D 6.3)


def speech_vin(gain):
    """The TPS63900's input (V) while speech plays at ``gain`` from the cells' end."""
    return CELLS_END_V - speech_input_ma(gain) / 1000 * (CELLS_R + PATH_R)


def speech_gain_cap():
    """The largest voice gain (/256) whose speech, from the cells at their end,
    keeps the current within the TPS63900's switch current and its input above
    its minimum (the cells' and the FETs' resistance between)."""
    gain = 256
    while gain > 0 and (
        speech_input_ma(gain) > TPS63900_SWITCH_MA or speech_vin(gain) < TPS63900_VIN_MIN
    ):
        gain -= 1
    return gain


def lowest_ok_threshold(ma):
    """The lowest LOW_MV (50 mV steps) still leaving REQUIRED_H x MARGIN."""
    mv = 4000
    while mv > 2800 and life(ma, mv - 50)[1] >= REQUIRED_H * MARGIN:
        mv -= 50
    return mv


def check(rows, low_mv):
    """The rule's failures (empty: it holds)."""
    ma, _, _ = budget(rows, "worst")
    after = life(ma, low_mv)[1]
    if after < REQUIRED_H * MARGIN:
        return [
            "%.1f h after the warning at LOW_MV %d (worst case); want %d h x %.1f"
            % (after, low_mv, REQUIRED_H, MARGIN)
        ]
    return []


def render(rows, low_mv, ok_mv):
    out = [
        "<!-- SPDX-License-Identifier: GPL-3.0-or-later -->",
        "<!-- Generated by hardware/power.py from hardware/power.csv: do not edit. -->",
        "# Power budget and battery life",
        "",
        "Estimates, not measurements: each line says where its number comes from.",
        "The 3V3 rail is the Pico's buck-boost regulator (%d %% efficient);"
        " the cell feeds VSYS through a P-FET (tens of mV: taken as none)." % (SMPS_EFF * 100),
        "",
        "| Part | Refs | Rail | mA | Typical duty | Worst duty | mW typical | mW worst | Basis |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    _, _, typ = budget(rows, "typical")
    _, _, worst = budget(rows, "worst")
    for (r, _, mw_t), (_, _, mw_w) in zip(typ, worst, strict=True):
        out.append(
            "| %s | %s | %s | %g | %g | %g | %.1f | %.1f | %s |"
            % (
                r["part"],
                r["refs"],
                r["rail"],
                r["ma"],
                r["duty_typical"],
                r["duty_worst"],
                mw_t,
                mw_w,
                r["basis"],
            )
        )
    out += ["", "| | Typical game | Worst case (counting) |", "|---|---|---|"]
    res = {}
    for case in ("typical", "worst"):
        ma, mw, _ = budget(rows, case)
        total_h, after_h, warn_v = life(ma, low_mv)
        res[case] = (ma, mw, total_h, after_h)
    t, w = res["typical"], res["worst"]
    out.append("| Power | %.0f mW | %.0f mW |" % (t[1], w[1]))
    out.append("| Cell current | %.0f mA | %.0f mA |" % (t[0], w[0]))
    out.append("| Full cell to empty | %.0f h | %.0f h |" % (t[2], w[2]))
    out.append("| After the low-battery warning | %.0f h | %.0f h |" % (t[3], w[3]))
    warn_v = low_mv / 1000
    st = stresses(rows)
    out += [
        "",
        "## The cell and the warning",
        "",
        "- Cell: 18650 Li-ion, %d mAh (Samsung INR18650-35E), %d %% of it usable:"
        " %d mAh." % (CELL_MAH, DERATE * 100, CELL_MAH * DERATE),
        "- The firmware reads the cell on GP26, warns below `LOW_MV` = %d mV and clears"
        " above `OK_MV` = %d mV (firmware/boards/oled.py): the warning comes when about"
        " %.0f %% of its charge is left, after about %.0f h of the worst case."
        % (low_mv, ok_mv, 100 * left_at(warn_v), w[2] - w[3]),
        "- FIDE asks for at least %d h of running after the warning. The worst case"
        " leaves %.0f h; the check asks for %d h x %.1f for the estimates' uncertainty."
        % (REQUIRED_H, w[3], REQUIRED_H, MARGIN),
        "- The lowest `LOW_MV` that still meets it (50 mV steps, worst case): %d mV."
        % lowest_ok_threshold(w[0]),
        "- The displays run at contrast 0x3F (boards/ssd1306.py `LEVEL`): at 0x7F they"
        " would draw twice as much, and the cell would not leave 15 h after any warning.",
        "",
        "## On USB",
        "",
        "- The MCP73831 charges at %.0f mA (`R14` and the PTC `RT1` against the cell, which"
        " cuts the charge as the cell heats past 45 C); with the clock running the port gives"
        " %.0f mA, under USB 2.0's %d mA." % (st["charge_ma"], st["usb_ma"], USB_MA),
        "- From the warning to full: about %.0f h (%.0f %% of %d mAh at %.0f mA, and the"
        " constant-voltage tail); from empty, about %.0f h."
        % (
            (1 - left_at(warn_v)) * CELL_MAH / st["charge_ma"] + 1.5,
            100 * (1 - left_at(warn_v)),
            CELL_MAH,
            st["charge_ma"],
            CELL_MAH / st["charge_ma"] + 1.5,
        ),
        "- The charger's die at the start of a charge from empty: about %.0f C (%d C/W,"
        " %.1f V across it, %d C around it); its thermal regulation then cuts the"
        " current, so a charge from empty starts slower. The bring-up checklist"
        " measures it." % (st["charger_die_c"], CHARGER_THETA, VBUS_V - CURVE[-1][0], AMBIENT_C),
        "",
        "Discharge curve used (a typical NMC cell at 0.2 C, loaded volts to charge left):",
        "",
        "| Cell V | " + " | ".join("%.2f" % v for v, _ in CURVE) + " |",
        "|---" * (len(CURVE) + 1) + "|",
        "| Left | " + " | ".join("%d %%" % (f * 100) for _, f in CURVE) + " |",
    ]
    return "\n".join(out) + "\n"


def main(argv):
    rows = read_parts()
    low, ok = firmware_thresholds()
    text = render(rows, low, ok)
    problems = check(rows, low)
    for p in problems:
        print("power: " + p, file=sys.stderr)
    if "--check" in argv:
        with open(DOC, encoding="utf-8") as f:
            if f.read() != text:
                print("hardware/power.md is stale: run python hardware/power.py", file=sys.stderr)
                return 1
    else:
        with open(DOC, "w", encoding="utf-8") as f:
            f.write(text)
        print("wrote hardware/power.md")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
