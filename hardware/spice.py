# SPDX-License-Identifier: GPL-3.0-or-later
"""The boards' electrical check (#29): every analog net simulated in ngspice.

    python hardware/spice.py           print each check, its value and its limit
    python hardware/spice.py --check   exit 1 when one fails

ERC checks connections, not voltages. This builds a SPICE circuit from a
board's KiCad netlist, the one ``schematic.py`` writes from the skidl
description: every part of the netlist becomes a model (``MODELS``; a part
with none is refused), every net a SPICE node, so nothing is typed twice
(tests/test_hardware.py holds the committed netlists to the skidl
description byte for byte). skidl's own SPICE output needs parts from a SPICE
library, and InSpice, which skidl pulls in, does not import on Python 3.11 (a
3.12 f-string in its ngspice module), so the deck is written here and run by
Debian's ``ngspice`` in batch mode, one process per case (about 0.1 s each).

Each case sets the supplies (the cells' voltage, or reversed; USB), whether
the firmware runs (the Pico powered, its pins driven and pulled as the
firmware sets them) and the switches, at both ends of each datasheet range
that matters (the RP2040's pulls, the cells' life). Each check names its
limit and the source of the limit (``LIMITS``).

Models are the datasheets' figures (``MODELS``' comments): diodes fitted to
their forward voltage, FETs to their threshold and on-resistance, the
TPS63900 as a 3.3 V source whose input power is its output's over its
efficiency, its shutdown and quiescent currents, the Pico module's own
parts (its VBUS diode, VSYS divider and 3V3_EN pull-up) from its datasheet.
Leakage that no model carries (a FET's drain leakage, a capacitor's) is left
to bring-up check B2, which measures the off current.
"""

import dataclasses
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import power  # noqa: E402
from schematic import GP_PINS, PICO_PINS  # noqa: E402

NETLISTS = {
    "battery": os.path.join(HERE, "battery.net"),
    "qizhong": os.path.join(HERE, "qizhong.net"),
}

# -- limits, each with its source --------------------------------------------------

LIMITS = {
    # RP2040 datasheet, 5.5.3 Pin specifications (IOVDD 3.3 V)
    "vih": (2.0, "RP2040 datasheet 5.5.3: VIH min 2.0 V at IOVDD 3.3 V"),
    "vil": (0.8, "RP2040 datasheet 5.5.3: VIL max 0.8 V at IOVDD 3.3 V"),
    "adc_max": (3.3, "RP2040 datasheet 4.9: ADC input range 0 V to ADC_VREF (3.3 V on the Pico)"),
    # TI TPS63900 SLVSET3D
    "en_on": (1.2, "TPS63900 SLVSET3D 6.5: EN high threshold, at most 1.2 V"),
    "en_off": (0.4, "TPS63900 SLVSET3D 6.5: EN low threshold, at least 0.4 V"),
    "en_over_vin": (
        0.3,
        "TPS63900 SLVSET3D 6.1: EN at most VIN + 0.3 V (taken as the stricter form)",
    ),
    "vin_min": (1.8, "TPS63900 SLVSET3D 6.3: VIN 1.8 V to 5.5 V"),
    "vin_max": (5.5, "TPS63900 SLVSET3D 6.3: VIN 1.8 V to 5.5 V"),
    # this design's own budgets
    "off_ua": (1.0, "battery-board.md bring-up B2: under 1 uA from the cells when off"),
    "off_cell_ua": (
        8.5,
        "the OLED board switched off: the DW01A's 6 uA and the MCP73831's 2 uA at most"
        " (their datasheets), and under 0.5 uA for every other path",
    ),
    "asleep_ua": (
        10.0,
        "1 % of the Pico's own lightsleep floor (990 uA, MicroPython PR #8832): the board's"
        " pulls, dividers and regulators draw less than that beside it",
    ),
    "reversed_ma": (0.1, "a reversed cell drives no part: at most 0.1 mA (leakage) from it"),
    "speech_ma": (
        power.TPS63900_SWITCH_MA,
        "TPS63900 switch current, 400 mA (hardware/power.py): speech at the firmware's gain"
        " cap (firmware/boards/speech.py) within it, from the cells at their 2.0 V end",
    ),
    "charge_back_ua": (1.0, "alkaline cells must not be charged: at most 1 uA into them on USB"),
    "divider_pct": (
        3.0,
        "the cell reading (ADC x 2) within 3 % of the cells (1 % resistors, ADC load)",
    ),
    "release_ms": (1.0, "a lever's release crosses VIH within 1 ms: 1/20 of the 20 ms bounce rule"),
    "press_ms": (1.0, "a press crosses VIL within 1 ms: 1/20 of the 20 ms bounce rule"),
    "charge_hot_pct": (
        15.0,
        "MCP73831 I_REG = 1000 V / R_PROG (DS20001984G 5.3.1): with RT1 at 100 x its 25 C value"
        " (about 15 C past its switch point, Murata PRF series curves), 15 % of the charge or less",
    ),
}

# The RP2040's pull resistors: 50-80 kOhm (RP2040 datasheet 5.5.3).
PULLS = (50e3, 80e3)

# The firmware's pulls (firmware/boards/pico.py) and what each input reads
# while its switch is open (1) or closed (0). Levers on the battery board: no
# internal pull (the 1 MOhm pull-ups alone). The power key: pulled up, low
# while Q6 conducts.
KEYS = ("key_start", "key_menu", "key_plus", "key_minus", "key_ok")
FIRMWARE = {
    "battery": {
        **{k: "up" for k in KEYS},
        "lever_left": None,
        "lever_right": None,
        "tilt": "up",
        "key_power": "up",
    },
    "qizhong": {**{k: "up" for k in KEYS}, "lever_left": "up", "lever_right": "up", "tilt": "up"},
}
# Outputs the firmware drives while it runs (battery board): pin -> volts.
DRIVEN = {
    "battery": {"pwr_hold": 3.3, "amp_pwr": 0.0, "bat_meas": 0.0, "amp_sd": 0.0, "buzzer": 0.0},
    "qizhong": {"oled_res": 3.3, "amp_sd": 0.0, "buzzer": 0.0},
}
# Switches a player or the clock's position closes: (ref, the input it drives).
SWITCH_PARTS = ("Lever microswitch", "Arbiter key", "Tilt switch")

# The Pico module's own parts (Raspberry Pi Pico datasheet, 4.4 Powerchain and
# its schematic): D1 VBUS to VSYS (MBR120VLSFT1 Schottky), VSYS/3 by R5 200 kOhm
# and R6 100 kOhm on GP29, 3V3_EN pulled up to VSYS by 100 kOhm, GP24 reading
# VBUS through 5.6 kOhm with 10 kOhm to GND (as read from the schematic, not
# from a table: bring-up B10 measures GP24 on USB).
PICO = {"r5": 200e3, "r6": 100e3, "en_pullup": 100e3, "vbus_r1": 5.6e3, "vbus_r2": 10e3}

TPS_EFF = power.TPS63900_EFF  # SLVSET3D's typical efficiency curves: an estimate
# TPS63900 quiescent current, 75 nA (SLVSET3D front page); its shutdown current taken as the same
TPS_IQ = 75e-9

MODELS_SPICE = """
* BAT54 (Nexperia BAT54 Rev. 5, Table 7): VF 320 mV at 1 mA, 800 mV at 100 mA
.model BAT54 D(IS=4n N=1.0 RS=3.5 BV=30 IBV=2u CJO=10p)
* 1N4001 (onsemi 1N4001-D): VF at most 1.1 V at 1 A
.model D1N4001 D(IS=1n N=1.8 RS=0.05 BV=50 IBV=5u)
* the Pico's D1, MBR120VLSFT1 (onsemi): VF about 0.3 V at 100 mA
.model MBR120 D(IS=1u N=1.0 RS=0.1 BV=20)
* an IC pin's ESD clamp to its rail
.model CLAMP D(IS=1e-14 N=1.0)
* DMG2305UX (Diodes Inc): VGS(th) -0.45 to -0.9 V, RDS(on) 72 mOhm at -2.5 V
.model DMG2305UX PMOS(LEVEL=1 VTO=-0.9 KP=7.7 IS=1e-12)
* FS8205A (Fortune): VGS(th) 0.5-1.2 V, RDS(on) 25 mOhm at 4.5 V
.model FS8205A NMOS(LEVEL=1 VTO=1.0 KP=11.4 IS=1e-12)
* 2N3904 (onsemi 2N3903-D): hFE at least 40 at 0.1 mA, VCE(sat) 0.2 V at 10 mA
.model Q2N3904 NPN(IS=6.7f BF=40 VAF=74 BR=0.7 RB=10 RC=1)
* a red LED (Kingbright WP710A10ID): VF about 2.0 V at 20 mA
.model LED D(IS=1e-19 N=1.9 RS=5)
* a switch a PWL source opens or closes (transients)
.model SWITCH SW(VT=0.5 VH=0.1 RON=0.05 ROFF=1e12)
"""


@dataclasses.dataclass(frozen=True)
class Case:
    """One operating point: supplies, firmware, switches, datasheet corners."""

    name: str
    cells: float | None = 3.2  # volts across the cells, None: none in
    reversed: bool = False
    usb: float | None = None  # VBUS volts, None: no USB
    on: bool = False  # the firmware runs (battery board: holds pwr_hold high)
    closed: bool = False  # every switch (levers, keys, tilt, power key) closed
    pull: float = 50e3  # the RP2040's pulls, at this end of their range
    meas: bool = False  # bat_meas high: the cells' divider switched on
    ptc: float = 470.0  # the OLED board's charger PTC (RT1), ohms
    speech: int = 0  # a cue playing at this voice gain (/256): the amplifier on; 0: silent


def read_netlist(text):
    """A KiCad netlist: ({ref: (part, value)}, {net: [(ref, pin), ...]})."""
    parts = {}
    for m in re.finditer(
        r'\(comp\s+\(ref "([^"]+)"\)\s+\(value "([^"]*)"\).*?\(part "([^"]*)"\)', text, re.S
    ):
        parts[m.group(1)] = (m.group(3), m.group(2))
    nets = {}
    for block in text.split("(net\n")[1:]:
        name = re.search(r'\(name "([^"]*)"\)', block).group(1)
        nets[name] = re.findall(r'\(ref "([^"]+)"\)\s*\(pin "([^"]+)"\)', block)
    return parts, nets


def value_of(text):
    """'4k7' -> 4700.0, '1M' -> 1e6, '100n' -> 1e-7, '16.2k', '0', '10u'."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([pnumkKMR]?)(\d*)", text.strip())
    if not m:
        raise ValueError("no value in %r" % text)
    scale = {
        "": 1,
        "R": 1,
        "p": 1e-12,
        "n": 1e-9,
        "u": 1e-6,
        "m": 1e-3,
        "k": 1e3,
        "K": 1e3,
        "M": 1e6,
    }
    whole, unit, frac = m.groups()
    num = float(whole + ("." + frac if frac else ""))
    return num * scale[unit]


def node(net):
    """A SPICE node name for a net."""
    if net == "GND":
        return "0"
    return "n_" + re.sub(r"[^A-Za-z0-9_]", lambda c: "_%02x" % ord(c.group()), net)


class Deck:
    """One SPICE deck for one case of one board."""

    def __init__(self, board, parts, nets, case, pulls=None):
        self.board, self.parts, self.case = board, parts, case
        self.pulls = FIRMWARE[board] if pulls is None else pulls
        self.at = {}  # (ref, pin) -> node
        for net, nodes in nets.items():
            for ref, pin in nodes:
                self.at[(ref, pin)] = node(net)
        self.nets = {net: node(net) for net in nets}
        self.lines = []
        self.n = 0
        self.probes = []  # sources whose current ``op`` prints
        self.aliases = {}  # a part's pin by role (TPS.VIN), whatever its net's name

    def pin(self, ref, number):
        """The node on a pin; a pin on no net gets a node of its own."""
        return self.at.get((ref, str(number)), "nc_%s_%s" % (ref, number))

    def add(self, kind, *rest):
        self.n += 1
        self.lines.append("%s%d %s" % (kind, self.n, " ".join(str(x) for x in rest)))

    def net(self, name):
        return self.nets.get(name, "n_absent_" + name)

    # -- the parts ----------------------------------------------------------------

    def build(self):
        c = self.case
        for ref in sorted(self.parts):
            part, value = self.parts[ref]
            model = MODELS.get(part) or next(
                (m for k, m in MODELS.items() if k.endswith("*") and part.startswith(k[:-1])), None
            )
            if model is None:
                raise KeyError("%s (%s): no SPICE model for %r" % (ref, value, part))
            model(self, ref, value)
        if c.usb is not None:
            self.lines.append("VUSB usbsrc 0 %g" % c.usb)
            self.add("R", "usbsrc", self.net("VBUS"), 0.1)
        return self

    def text(self, analysis=".op", extra=""):
        return "\n".join(
            [
                "* %s: %s" % (self.board, self.case.name),
                *self.lines,
                MODELS_SPICE,
                ".option rshunt=1e12 gmin=1e-15",
                extra,
                ".end",
                "",
            ]
        )


def _r(d, ref, value):
    d.add("R", d.pin(ref, 1), d.pin(ref, 2), max(value_of(value), 1e-3))


def _c(d, ref, value):
    d.add("C", d.pin(ref, 1), d.pin(ref, 2), value_of(value))


def _short(ohms):
    def f(d, ref, value):
        d.add("R", d.pin(ref, 1), d.pin(ref, 2), ohms)

    return f


def _none(d, ref, value):
    """A part that carries no DC and no signal worth a model here (connectors, a
    glass, a piezo's capacitance is its only path)."""


def _switch(d, ref, value):
    if d.case.closed:
        d.add("R", d.pin(ref, 1), d.pin(ref, 2), 0.05)


def _ptc(d, ref, value):
    d.add("R", d.pin(ref, 1), d.pin(ref, 2), d.case.ptc)


def _cells(d, ref, value):
    """The cells (or the 18650): a source with its internal resistance."""
    c = d.case
    if c.cells is None:
        return
    plus, minus = d.pin(ref, 1), d.pin(ref, 2)
    if c.reversed:
        plus, minus = minus, plus
    d.lines.append("VCELL cellsrc %s %g" % (minus, c.cells))
    # two alkaline cells near their end (power.py), or an 18650's tens of mOhm
    d.add("R", "cellsrc", plus, power.CELLS_R if d.board == "battery" else 0.1)


def _diode(model, a, k):
    def f(d, ref, value):
        d.add("D", d.pin(ref, a), d.pin(ref, k), model)

    return f


def _tvs(d, ref, value):
    """TPD1E10B06: bidirectional; leakage at most 100 nA at 5.5 V (TI TPD1E10B06 datasheet):
    taken as a resistor that draws it."""
    d.add("R", d.pin(ref, 1), d.pin(ref, 2), 5.5 / 100e-9)


def _pfet(d, ref, value):  # pins G S D
    g, s, dr = d.pin(ref, 1), d.pin(ref, 2), d.pin(ref, 3)
    d.add("M", dr, g, s, s, "DMG2305UX")


def _npn(d, ref, value):  # pins E B C
    d.add("Q", d.pin(ref, 3), d.pin(ref, 2), d.pin(ref, 1), "Q2N3904")


def _dual_nfet(d, ref, value):  # FS8205A: D1 S1a S1b G1 G2 S2a S2b D2
    d.add("M", d.pin(ref, 1), d.pin(ref, 4), d.pin(ref, 2), d.pin(ref, 2), "FS8205A")
    d.add("M", d.pin(ref, 8), d.pin(ref, 5), d.pin(ref, 6), d.pin(ref, 6), "FS8205A")
    d.add("R", d.pin(ref, 2), d.pin(ref, 3), 1e-3)
    d.add("R", d.pin(ref, 6), d.pin(ref, 7), 1e-3)
    d.add("R", d.pin(ref, 1), d.pin(ref, 8), 1e-3)


def _dw01a(d, ref, value):
    """DW01A (Fortune DW01A datasheet): 3 uA typical, 6 uA at most from VCC; OD
    and OC high (at VCC) while VCC - GND is above the 2.4 V over-discharge
    threshold; its substrate diode from GND to VCC."""
    od, oc, vcc, gnd = (d.pin(ref, n) for n in (1, 3, 5, 6))
    # its 6 uA at most, whatever the cell's volts (saturating above a few tenths of a volt)
    d.add("B", vcc, gnd, "I = 6e-6 * (1 - exp(-max(V(%s,%s), 0) / 0.3))" % (vcc, gnd))
    d.add("D", gnd, vcc, "CLAMP")
    for out in (od, oc):
        d.add(
            "B",
            "drv_%s_%s" % (ref, out),
            gnd,
            "V = V(%s,%s) * u(V(%s,%s) - 2.4)" % (vcc, gnd, vcc, gnd),
        )
        d.add("R", "drv_%s_%s" % (ref, out), out, 1e3)


def _mcp73831(d, ref, value):
    """MCP73831 (Microchip DS20001984G): PROG held at 1 V, I_REG = 1000 V / R_PROG
    from VDD into VBAT while VDD is there; 2 uA at most from VBAT without it."""
    vss, vbat, vdd, prog = (d.pin(ref, n) for n in (2, 3, 4, 5))
    d.add("R", vbat, vss, 4.2 / 2e-6)
    if d.case.usb is not None:
        name = "VPROG%s" % ref
        d.lines.append("%s %s %s 1.0" % (name, prog, vss))
        d.probes.append(name)
        d.lines.append("FCHG%s %s %s %s 1000" % (ref, vdd, vbat, name))


def _tps63900(d, ref, value):
    """TPS63900 (SLVSET3D): on (the case's firmware runs, or the key is down), a
    3.3 V source whose input power is its output power / TPS_EFF; off, its
    shutdown current. Its EN decides nothing here: the checks compare EN with
    the thresholds for the state each case assumes."""
    en, vout, vin, gnd = (d.pin(ref, n) for n in (1, 6, 10, 8))
    d.aliases.update({"TPS.VIN": vin, "TPS.EN": en})
    d.add("R", en, gnd, 1e12)
    d.lines.append("ITPSQ%s %s %s %g" % (ref, vin, gnd, TPS_IQ))
    c = d.case
    if c.on:
        if c.cells is not None and c.usb is None:  # the converter's upper solution, not a collapse
            d.lines.append(".nodeset v(%s)=%g" % (vin, c.cells))
        d.lines.append("VTPS%s %s %s 3.3" % (ref, vout, gnd))
        d.lines.append(
            "BTPS%s %s %s I = -3.3 * i(VTPS%s) / (%g * max(V(%s,%s), 0.5))"
            % (ref, vin, gnd, ref, TPS_EFF, vin, gnd)
        )


def _tps22917(d, ref, value):
    """TPS22917 (SLVSDW8B): off while ON is low; 0.5 uA quiescent from VIN; on
    (a cue playing), about 0.1 Ohm from VIN to VOUT."""
    vin, gnd, vout = d.pin(ref, 1), d.pin(ref, 2), d.pin(ref, 6)
    d.lines.append("ISW%s %s %s 0.5u" % (ref, vin, gnd))
    if d.case.speech:
        d.add("R", vin, vout, 0.1)


def _pcf85176(d, ref, value):
    """PCF85176: its supply is the energy model's term (docs/power.md), not the
    board's: only its I2C pins (high impedance) are on these nets."""


def _amp(d, ref, value):
    """MAX98357A breakout (Adafruit 3006): SD pulled up to VIN by 1 MOhm on the
    breakout, down by 100 kOhm in the chip; shut down: 0.6 uA (MAX98357A ISHDN)."""
    sd, gnd, vin = d.pin(ref, 5), d.pin(ref, 6), d.pin(ref, 7)
    d.add("R", vin, sd, 1e6)
    d.add("R", sd, gnd, 100e3)
    d.add("R", vin, gnd, 3.3 / 0.6e-6)
    if d.case.speech:  # speaking: its output power / AMP_EFF and its quiescent
        full = power.battery_stresses()["speaker_w"]
        w = full * (d.case.speech / 256) ** 2 / power.AMP_EFF + 3.3 * 2.4e-3
        d.add("B", vin, gnd, "I = %g / max(V(%s,%s), 0.5)" % (w, vin, gnd))


def _oled(d, ref, value):
    """An SSD1309 module: its draw is the budget's (power.csv); here only its pins."""


def _buffer(d, ref, value):
    """74LVC244A on the jig: not on the clock's boards."""


def _pico(d, ref, value):
    """The Pico module: its own D1, VSYS divider, 3V3_EN pull-up and VBUS sense,
    the RP2040's pins (clamps, pulls, outputs) as the firmware sets them, and,
    on the OLED board, its RT6150 making 3V3 from VSYS while 3V3_EN is high."""
    c = d.case
    name_at = {name: num for num, name in PICO_PINS.items()}
    vbus, vsys, v3, en = (d.pin(ref, name_at[n]) for n in ("VBUS", "VSYS", "3V3", "3V3_EN"))
    gnd = "0"
    d.add("D", vbus, vsys, "MBR120")
    d.add("R", vsys, "pico_vsys3", PICO["r5"])
    d.add("R", "pico_vsys3", gnd, PICO["r6"])
    d.add("R", vsys, en, PICO["en_pullup"])
    d.add("R", vbus, "pico_gp24", PICO["vbus_r1"])
    d.add("R", "pico_gp24", gnd, PICO["vbus_r2"])
    d.add("D", "pico_gp24", v3, "CLAMP")
    fed = d.board == "battery"  # the battery board feeds 3V3; the OLED board's RT6150 makes it
    if not fed and c.on:
        d.lines.append("VRT6150 %s 0 3.3" % v3)
        d.lines.append(
            "BRT6150 %s 0 I = -3.3 * i(VRT6150) / (0.85 * max(V(%s), 0.5))" % (vsys, vsys)
        )
    driven = dict(DRIVEN[d.board], bat_meas=3.3 if c.meas else 0.0) if c.on else {}
    if c.on and c.speech:  # a cue: the amplifier's switch and SD on, the RP2040 awake
        driven.update(amp_pwr=3.3, amp_sd=3.3)
        d.lines.append("ICPU %s 0 %gm" % (v3, power.RAIL_BUSY_MA - 2.4))
    for num in GP_PINS.values():
        if not num:
            continue
        at = d.pin(ref, num)
        if at.startswith("nc_"):
            continue
        d.add("D", at, v3, "CLAMP")
        d.add("D", gnd, at, "CLAMP")
        sig = next((n for n, nd in d.nets.items() if nd == at), None)
        if not c.on:
            continue
        if sig in driven:
            d.add("V", "drv_" + sig, gnd, driven[sig])
            d.add("R", "drv_" + sig, at, 50)  # the pad's drive, 4 mA setting
        pull = d.pulls.get(sig)
        if pull == "up":
            d.add("R", v3, at, c.pull)
        elif pull == "down":
            d.add("R", at, gnd, c.pull)


MODELS = {
    "Resistor*": _r,
    "Capacitor*": _c,
    "Inductor 2.2 uH": _short(0.05),
    "PTC fuse": _short(0.1),
    "PTC thermistor": _ptc,
    "Jumper": _short(0.01),
    "Lever microswitch": _switch,
    "Arbiter key": _switch,
    "Tilt switch": _switch,
    "Toggle switch": lambda d, ref, v: d.add(
        "R", d.pin(ref, 1), d.pin(ref, 2), 0.01 if d.case.on else 1e12
    ),
    "Battery holder 2xAA": _cells,
    "Li-ion cell 18650": _cells,
    "Schottky diode": _diode("BAT54", 1, 3),
    "Rectifier": _diode("D1N4001", 2, 1),
    "LED": _diode("LED", 2, 1),
    "TVS diode": _tvs,
    "P-MOSFET": _pfet,
    "NPN transistor": _npn,
    "Dual N-MOSFET": _dual_nfet,
    "Li-ion protection": _dw01a,
    "Li-ion charger": _mcp73831,
    "Buck-boost 3.3 V": _tps63900,
    "Load switch": _tps22917,
    "LCD driver": _pcf85176,
    "MAX98357A breakout": _amp,
    "OLED 2.42in SSD1309": _oled,
    "Raspberry Pi Pico": _pico,
    "Piezo buzzer": _none,
    "Segment LCD glass": _none,
    "Box header 2x8": _none,
    "Hinge ground lead": _none,
}


# -- running ngspice --------------------------------------------------------------


def ngspice():
    exe = shutil.which("ngspice")
    if not exe:
        raise RuntimeError("ngspice is not installed (Debian: apt-get install ngspice)")
    return exe


def run(deck_text):
    """Run one deck in batch mode; {name: value} of its printed vectors."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "deck.cir")
        with open(path, "w", encoding="utf-8") as f:
            f.write(deck_text)
        out = subprocess.run(
            [ngspice(), "-b", path], capture_output=True, text=True, timeout=60, check=False
        )
    text = out.stdout + out.stderr
    if "rror" in text and "measure" not in text:
        bad = [ln for ln in text.splitlines() if "rror" in ln]
        raise RuntimeError("ngspice: %s" % "; ".join(bad[:5]))
    vals = {}
    for m in re.finditer(r"^\s*([\w#().:]+)\s+=\s+([-+0-9.eE]+)", text, re.M):
        vals[m.group(1).lower()] = float(m.group(2))
    return vals


def op(board, parts, nets, case, pulls=None):
    """The operating point of ``case``: {net: volts} and the cells' current (A,
    out of the cells) as ``I(cells)``, USB's as ``I(usb)``."""
    d = Deck(board, parts, nets, case, pulls).build()
    extra = ".control\nop\nprint all\n"
    if case.cells is not None:
        extra += "print i(vcell)\n"
    if case.usb is not None:
        extra += "print i(vusb)\n"
    for p in d.probes:
        extra += "print i(%s)\n" % p.lower()
    extra += ".endc"
    raw = run(d.text(extra=extra))
    out = {net: raw.get(nd.lower(), 0.0) if nd != "0" else 0.0 for net, nd in d.nets.items()}
    out["I(cells)"] = -raw.get("i(vcell)", raw.get("vcell#branch", 0.0))
    out["I(usb)"] = -raw.get("i(vusb)", raw.get("vusb#branch", 0.0))
    out["pico_vsys3"] = raw.get("pico_vsys3", 0.0)
    out["pico_gp24"] = raw.get("pico_gp24", 0.0)
    for p in d.probes:
        out["I(%s)" % p] = raw.get("i(%s)" % p.lower(), 0.0)
    for k, nd in d.aliases.items():
        out[k] = raw.get(nd.lower(), 0.0) if nd != "0" else 0.0
    return out


def edge(board, parts, nets, lever, opening, case):
    """A lever's switch opening (release) or closing (press) at 10 us: the time
    its pin takes to cross VIH (release) or VIL (press), in ms."""
    d = Deck(board, parts, nets, dataclasses.replace(case, closed=False)).build()
    ref = _switch_ref(parts, nets, lever)
    # the lever's switch is driven by a PWL source; the others stay open
    a, b = d.pin(ref, 1), d.pin(ref, 2)
    start, end = (1, 0) if opening else (0, 1)
    d.lines.append("VCTL ctl 0 PWL(0 %d 10u %d 11u %d)" % (start, start, end))
    d.lines.append("SLEV %s %s ctl 0 SWITCH" % (a, b))
    level, direction = (LIMITS["vih"][0], "rise") if opening else (LIMITS["vil"][0], "fall")
    extra = ".control\ntran 1u 6m\nmeas tran t when v(%s)=%g %s=1\nprint t\n.endc" % (
        d.net(lever),
        level,
        direction,
    )
    raw = run(d.text(extra=extra))
    if "t" not in raw:
        return float("inf")
    return (raw["t"] - 10e-6) * 1e3


def _switch_ref(parts, nets, signal):
    """The switch whose lead reaches ``signal`` through its series resistor."""
    at = {}
    for net, nodes in nets.items():
        for ref, _ in nodes:
            at.setdefault(ref, set()).add(net)
    for ref, (part, _) in parts.items():
        if part in SWITCH_PARTS:
            for net in at.get(ref, ()):
                if net in (signal + "_sw",):
                    return ref
    raise KeyError("no switch for " + signal)


# -- the checks -------------------------------------------------------------------


@dataclasses.dataclass
class Result:
    board: str
    check: str
    case: str
    value: float
    limit: float
    ok: bool
    source: str

    def __str__(self):
        return "%s %-7s %-44s %-34s %10.4g (limit %g: %s)" % (
            "ok  " if self.ok else "FAIL",
            self.board,
            self.check,
            self.case,
            self.value,
            self.limit,
            self.source,
        )


def load(board, path=None):
    with open(path or NETLISTS[board], encoding="utf-8") as f:
        return read_netlist(f.read())


class Checker:
    def __init__(self, board, parts, nets, pulls=None):
        self.board, self.parts, self.nets = board, parts, nets
        self.pulls = FIRMWARE[board] if pulls is None else pulls
        self.results = []

    def op(self, case):
        return op(self.board, self.parts, self.nets, case, self.pulls)

    def at_most(self, check, case, value, key, limit=None):
        lim, src = LIMITS[key]
        lim = lim if limit is None else limit
        self.results.append(Result(self.board, check, case.name, value, lim, value <= lim, src))

    def at_least(self, check, case, value, key, limit=None):
        lim, src = LIMITS[key]
        lim = lim if limit is None else limit
        self.results.append(Result(self.board, check, case.name, value, lim, value >= lim, src))

    def inputs(self, case):
        """Every input the firmware reads, against VIH/VIL at this case's switches."""
        v = self.op(case)
        for sig, pull in self.pulls.items():
            if sig not in self.nets:
                continue
            active_high = pull == "down"
            high = case.closed == active_high
            if high:
                self.at_least("%s reads 1" % sig, case, v[sig], "vih")
            else:
                self.at_most("%s reads 0" % sig, case, v[sig], "vil")
        return v


SECTIONS = ("inputs", "power", "usb", "reversed", "levers", "speech")


def gain_cap():
    """The firmware's speech gain cap (firmware/boards/speech.py GAIN_CAP)."""
    path = os.path.join(os.path.dirname(HERE), "firmware", "boards", "speech.py")
    with open(path, encoding="utf-8") as f:
        return int(re.search(r"^GAIN_CAP = const\((\d+)\)", f.read(), re.M).group(1))


def check_battery(parts, nets, pulls=None, sections=SECTIONS, speech_gain=None):
    """The battery board's checks (list of Result)."""
    ck = Checker("battery", parts, nets, pulls)
    if "inputs" in sections:
        for volts in (2.0, 3.2):  # the cells' end and fresh (battery-board.md, Energizer E91)
            for pull in PULLS:
                for closed in (False, True):
                    state = "closed" if closed else "open"
                    name = "cells %.1f V, pulls %dk, %s" % (volts, pull / 1e3, state)
                    ck.inputs(Case(name, cells=volts, on=True, closed=closed, pull=pull))
    # EN and VIN on cells, USB and both
    for volts in (2.0, 3.2) if "power" in sections else ():
        off = Case("off, cells %.1f V" % volts, cells=volts)
        v = ck.op(off)
        ck.at_most("EN off: nothing holds it", off, v["TPS.EN"], "en_off")
        ck.at_most("current from the cells, off (uA)", off, v["I(cells)"] * 1e6, "off_ua")
        key = Case("power key down, cells %.1f V" % volts, cells=volts, closed=True)
        v = ck.op(key)
        ck.at_least("EN on from the power key", key, v["TPS.EN"], "en_on")
        ck.at_most("EN within VIN + 0.3 V", key, v["TPS.EN"] - v["TPS.VIN"], "en_over_vin")
        on = Case("on, asleep, cells %.1f V" % volts, cells=volts, on=True)
        v = ck.op(on)
        ck.at_least("EN on from pwr_hold", on, v["TPS.EN"], "en_on")
        ck.at_most("EN within VIN + 0.3 V", on, v["TPS.EN"] - v["TPS.VIN"], "en_over_vin")
        ck.at_least("VIN on cells", on, v["TPS.VIN"], "vin_min", limit=LIMITS["vin_min"][0])
        ck.at_most(
            "board's own draw on cells, asleep (uA)",
            on,
            v["I(cells)"] * 1e6 - _rail_ua(v, on),
            "asleep_ua",
        )
        ck.at_most("USB sense reads 0 on cells", on, v["pico_gp24"], "vil")
        meas = Case("measuring, cells %.1f V" % volts, cells=volts, on=True, meas=True)
        v = ck.op(meas)
        err = abs(2 * v["bat_sense"] - volts) / volts * 100
        ck.at_most("cell reading ADC x 2 vs the cells (%)", meas, err, "divider_pct")
        ck.at_most("cell reading in the ADC's range", meas, v["bat_sense"], "adc_max")
    usb_cases = ((4.75, None), (5.25, None), (5.0, 2.0), (5.25, 3.2))
    for usb, cells in usb_cases if "usb" in sections else ():
        # USB holds EN high: the clock runs
        case = Case("USB %.2f V, cells %s" % (usb, cells), cells=cells, usb=usb, on=True)
        v = ck.op(case)
        ck.at_least("EN on from USB", case, v["TPS.EN"], "en_on")
        ck.at_most("EN within VIN + 0.3 V", case, v["TPS.EN"] - v["TPS.VIN"], "en_over_vin")
        ck.at_most("VIN within its maximum", case, v["TPS.VIN"], "vin_max")
        ck.at_least("VIN on USB", case, v["TPS.VIN"], "vin_min")
        ck.at_least("USB sense reads 1", case, v["pico_gp24"], "vih")
        if cells is not None:
            back = -v["I(cells)"] * 1e6
            ck.at_most("current into the cells on USB (uA)", case, back, "charge_back_ua")
    if "reversed" in sections:
        rev = Case("cells reversed, 3.2 V", cells=3.2, reversed=True)
        v = ck.op(rev)
        ck.at_most("current from reversed cells (mA)", rev, abs(v["I(cells)"]) * 1e3, "reversed_ma")
    if "levers" in sections:
        levers(ck, Case("levers, cells 2.0 V", cells=2.0, on=True))
    if "speech" in sections:
        gain = gain_cap() if speech_gain is None else speech_gain
        end = power.CELLS_END_V
        case = Case(
            "speech at gain %d/256, cells %.1f V" % (gain, end), cells=end, on=True, speech=gain
        )
        v = ck.op(case)
        ck.at_most("current from the cells, speaking (mA)", case, v["I(cells)"] * 1e3, "speech_ma")
        ck.at_least("VIN while speaking", case, v["TPS.VIN"], "vin_min")
    return ck.results


def _rail_ua(v, case):
    """The 3.3 V rail's loads that are not the board's own draw: none are modelled
    (the RP2040 and the glass drivers are the energy model's), so zero."""
    return 0.0


def levers(ck, case):
    for lever in ("lever_left", "lever_right"):
        t = edge(ck.board, ck.parts, ck.nets, lever, True, case)
        ck.at_most("%s release crosses VIH (ms)" % lever, case, t, "release_ms")
        t = edge(ck.board, ck.parts, ck.nets, lever, False, case)
        ck.at_most("%s press crosses VIL (ms)" % lever, case, t, "press_ms")


def check_oled(parts, nets, pulls=None):
    """The OLED board's checks."""
    ck = Checker("qizhong", parts, nets, pulls)
    for volts in (3.0, 4.2):  # the 18650's empty and full
        for pull in PULLS:
            for closed in (False, True):
                state = "closed" if closed else "open"
                name = "cell %.1f V, pulls %dk, %s" % (volts, pull / 1e3, state)
                ck.inputs(Case(name, cells=volts, on=True, closed=closed, pull=pull))
        on = Case("on, cell %.1f V" % volts, cells=volts, on=True)
        v = ck.op(on)
        ck.at_most("cell reading in the ADC's range", on, v["bat_sense"], "adc_max")
        err = abs(2 * v["bat_sense"] - volts) / volts * 100
        ck.at_most("cell reading ADC x 2 vs the cell (%)", on, err, "divider_pct")
        ck.at_most("VSYS/3 in the ADC's range", on, v["pico_vsys3"], "adc_max")
    usb = Case("USB 5.25 V, cell 4.2 V", cells=4.2, usb=5.25, on=True)
    v = ck.op(usb)
    ck.at_most("VSYS/3 in the ADC's range on USB", usb, v["pico_vsys3"], "adc_max")
    cold = Case("charging, RT1 at 25 C", cells=3.7, usb=5.0, on=True, ptc=470.0)
    hot = Case("charging, RT1 hot (47 kOhm)", cells=3.7, usb=5.0, on=True, ptc=47e3)
    i_cold = _charge_ma(ck.op(cold))
    i_hot = _charge_ma(ck.op(hot))
    ck.at_most(
        "charge current hot / at 25 C (%)", hot, 100 * i_hot / max(i_cold, 1e-9), "charge_hot_pct"
    )
    off = Case("switched off, cell 4.2 V", cells=4.2)
    ck.at_most("current from the cell, off (uA)", off, ck.op(off)["I(cells)"] * 1e6, "off_cell_ua")
    rev = Case("cell reversed, 4.2 V", cells=4.2, reversed=True)
    v = ck.op(rev)
    ck.at_most("current from a reversed cell (mA)", rev, abs(v["I(cells)"]) * 1e3, "reversed_ma")
    levers(ck, Case("levers, cell 3.0 V", cells=3.0, on=True))
    return ck.results


def _charge_ma(v):
    """MCP73831: 1000 x PROG's current."""
    return 1000 * 1000 * abs(v.get("I(VPROGU3)", 0.0))


CHECKS = {"battery": check_battery, "qizhong": check_oled}


def main(argv):
    sys.path.insert(0, HERE)
    failed = 0
    for board, fn in CHECKS.items():
        parts, nets = load(board)
        for r in fn(parts, nets):
            print(r)
            failed += not r.ok
    print("%d failed" % failed)
    return 1 if failed and "--check" in argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
