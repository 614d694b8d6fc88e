# SPDX-License-Identifier: GPL-3.0-or-later
"""The clock's and the test jig's schematics as code (SKiDL), with ERC and KiCad netlists.

    python hardware/schematic.py           run ERC, write hardware/qizhong.net and jig.net
    python hardware/schematic.py --check   exit 1 on an ERC error or a stale netlist

Pin assignments are read, never typed: the clock's Pico from
hardware/pinout.csv, the jig's from jig/pins.py. A net on a Pico GPIO is named
after its signal in those files. Every part is defined here (no KiCad symbol
libraries needed); ``bom`` names the hardware/bom.csv line of each.

The clock (qizhong.net)
    U1 Raspberry Pi Pico. Levers: a microswitch to GND, 10 kOhm pull-up, 1 kOhm
    + 100 nF low-pass into the GPIO (Schmitt input): 0.1 ms to press, 1 ms to
    release, bounce shorter than that filtered in hardware, the rest by the
    firmware's 20 ms rule. Keys and tilt: a switch to GND on the internal
    pull-up, through 1 kOhm with 100 nF at the pin (the parts players touch).
    JP1 opens the tilt switch's ground while the jig drives the tilt line.
    Displays: two Waveshare 2.42in SSD1309 modules set for I2C (DC low: address
    0x3C), 100 nF + 10 uF at each connector, both RES on GP22 with a 10 kOhm
    pull-down, 4.7 kOhm pull-ups per bus. Sound: the MAX98357A breakout's 7-pin
    header from VSYS (100 uF beside it), SD pulled down by 10 kOhm, the speaker
    on the breakout's own terminal; a TDK PS1240 piezo switched by an NPN from
    VSYS. Power: an 18650 cell guarded by a DW01A + FS8205A (over-charge,
    over-discharge, short), a 1.0 A PTC and a P-FET against a reversed cell;
    an MCP73831 charger from VBUS at 213 mA; a panel toggle switch; a P-FET
    into VSYS that VBUS turns off (the Pico datasheet's battery circuit). GP26
    reads the cell through 100k/100k after the switch. J2, a keyed 2x8 box
    header, is the test header the jig plugs into.

The jig (jig.net)
    U101, a second Pico. Each output lights one LTV-847 optocoupler channel
    through 330 Ohm; its transistor sits across the clock's switch (collector
    on the clock's line, emitter on GND). The clock's buzzer, amplifier enable
    and I2S lines come back through 1 kOhm and a 74LVC244A on the jig's 3V3,
    whose inputs are safe while the jig is unpowered. J101 mates with J2.
"""

import csv
import os
import re
import sys
import tempfile

# SKiDL opens SCRIPT.log beside the caller on import, then we remove it: in a
# private folder, so two processes importing at once never share that file.
_here = os.getcwd()
with tempfile.TemporaryDirectory() as _private:
    os.chdir(_private)
    try:
        from skidl import Circuit, Net, Part, Pin
        from skidl.logger import stop_log_file_output

        stop_log_file_output()
    finally:
        os.chdir(_here)

SKIDL = "skidl"  # the tool name of parts defined here (skidl.SKIDL)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PINOUT = os.path.join(HERE, "pinout.csv")
JIG_PINS = os.path.join(ROOT, "jig", "pins.py")
PIN_TABLES = os.path.join(HERE, "pintables.csv")
NETLISTS = {
    "qizhong": os.path.join(HERE, "qizhong.net"),
    "jig": os.path.join(HERE, "jig.net"),
    "battery": os.path.join(HERE, "battery.net"),
}
TOOL = "kicad8"  # KiCad's eeschema netlist (export (version "D")), read by Pcbnew 5 to 9

P = Pin.types
# The Pico's 40 header pins: number -> name.
PICO_PINS = {
    3: "GND",
    8: "GND",
    13: "GND",
    18: "GND",
    23: "GND",
    28: "GND",
    38: "GND",
    30: "RUN",
    33: "AGND",
    35: "ADC_VREF",
    36: "3V3",
    37: "3V3_EN",
    39: "VSYS",
    40: "VBUS",
}
_HEADER = (1, 2, 4, 5, 6, 7, 9, 10, 11, 12, 14, 15, 16, 17, 19, 20, 21, 22, 24, 25, 26, 27, 29)
# GPn -> header pin (0: not on the header: GP23..GP25 and GP29 are inside the Pico)
GP_PINS = dict(zip(range(29), (*_HEADER, 0, 0, 0, 31, 32, 34), strict=True))
for _gp, _pin in GP_PINS.items():
    if _pin:
        PICO_PINS[_pin] = "GP%d" % _gp
INTERNAL = (29,)  # GP29: VSYS/3 through the Pico's own divider, not on the header

# The jig's header (J101) and the clock's test header (J2): pin k+1 carries HARNESS[k].
# A 16-way ribbon: ground on pin 1 and on both sides of the I2S bit clock, the
# fastest edge on it (256 kHz), so it couples into no neighbour.
HARNESS = (
    "GND",
    "lever_left",
    "lever_right",
    "key_start",
    "key_menu",
    "key_plus",
    "key_minus",
    "key_ok",
    "tilt",
    "buzzer",
    "amp_sd",
    "i2s_din",
    "GND",
    "i2s_bclk",
    "GND",
    "i2s_lrclk",
)

FP = {
    # Raspberry Pi Ltd's own footprint for the Pico (its KiCad design files),
    # not KiCad's standard library; every other name is KiCad's standard library's.
    "pico": "MCU_RaspberryPi_and_Boards:RPi_Pico_SMD_TH",
    "r": "Resistor_THT:R_Axial_DIN0207_L6.3mm_D2.5mm_P7.62mm_Horizontal",
    "c": "Capacitor_THT:C_Disc_D5.0mm_W2.5mm_P2.50mm",
    "c_bulk": "Capacitor_THT:C_Disc_D7.5mm_W5.0mm_P5.00mm",
    "cp": "Capacitor_THT:CP_Radial_D6.3mm_P2.50mm",
    "xh2": "Connector_JST:JST_XH_B2B-XH-A_1x02_P2.50mm_Vertical",
    "oled": "Connector_PinSocket_2.54mm:PinSocket_1x07_P2.54mm_Vertical",
    "amp": "Connector_PinSocket_2.54mm:PinSocket_1x07_P2.54mm_Vertical",
    "test": "Connector_IDC:IDC-Header_2x08_P2.54mm_Vertical",
    "jumper": "Connector_PinHeader_2.54mm:PinHeader_1x02_P2.54mm_Vertical",
    "to92": "Package_TO_SOT_THT:TO-92_Inline",
    "led": "LED_THT:LED_D3.0mm",
    "sot23": "Package_TO_SOT_SMD:SOT-23",
    "sot23_5": "Package_TO_SOT_SMD:SOT-23-5",
    "sot23_6": "Package_TO_SOT_SMD:SOT-23-6",
    "tssop8": "Package_SO:TSSOP-8_4.4x3mm_P0.65mm",
    "ptc": "Fuse:Fuse_BelFuse_0ZRE0100FF_L18.7mm_W5.1mm",
    "bat": "Battery:BatteryHolder_Keystone_1043_1x18650",
    "buzzer": "Buzzer_Beeper:Buzzer_TDK_PS1240P02BT_D12.2mm_H6.5mm",
    "dip16": "Package_DIP:DIP-16_W7.62mm",
    "dip20": "Package_DIP:DIP-20_W7.62mm",
    # the battery board's
    "tssop56": "Package_SO:TSSOP-56_6.1x14mm_P0.5mm",
    "wson10": "Package_SON:WSON-10-1EP_2.5x2.5mm_P0.5mm_EP1.2x2mm",
    "xfl4020": "Inductor_SMD:L_Coilcraft_XxL4020",
    "bat2aa": "Battery:BatteryHolder_Keystone_2462_2xAA",
    # A custom glass's Zebra pads: drawn from the glass maker's drawing once it is
    # quoted (hardware/battery-board.md); no library has it.
    "glass": "qizhong:LCD_Glass_Zebra_1x44",
    # #29: the TVS diodes, the TPS63900's SMD capacitors, the USB feed's rectifier,
    # the charger's PTC
    "d0402": "Diode_SMD:D_0402_1005Metric",
    "c0805": "Capacitor_SMD:C_0805_2012Metric",
    "do41": "Diode_THT:D_DO-41_SOD81_P10.16mm_Horizontal",
    "r0603": "Resistor_SMD:R_0603_1608Metric",
}

# The battery board's pins beyond hardware/pinout.csv (firmware/boards/pico.py
# PWR_HOLD, AMP_PWR, BAT_MEAS), and the pin-map signals it leaves unused.
BATTERY_PINS = {"pwr_hold": 10, "amp_pwr": 11, "key_power": 12, "bat_meas": 13}
BATTERY_UNUSED = ("i2c1_sda", "i2c1_scl", "oled_res")


def read_pinout(path=None):
    """signal -> GPIO number, from hardware/pinout.csv (the one pin map)."""
    with open(path or PINOUT, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    out = {}
    for r in rows:
        m = re.fullmatch(r"GP(\d+)", r["gpio"].strip())
        if not m:
            raise ValueError("pinout.csv: %s: bad gpio %r" % (r["signal"], r["gpio"]))
        out[r["signal"].strip()] = int(m.group(1))
    return out


def read_jig_pins(path=None):
    """The jig's pin map: the constants of jig/pins.py."""
    ns = {}
    path = path or JIG_PINS
    with open(path, encoding="utf-8") as f:
        exec(compile(f.read(), path, "exec"), ns)
    return ns


class Sheet:
    """One circuit being drawn: parts get fixed refs and tags, so netlists are stable."""

    def __init__(self):
        self.c = Circuit()
        self.c.no_files = True
        self.c.track_src = False
        self.nets = {}
        self.bom = {}  # ref -> BOM part name
        self.fp = {}  # ref -> footprint
        self.pin_count = {}  # ref -> number of pins
        self.pins = {}  # ref -> ((number, name), ...)
        self.values = {}  # ref -> value
        self.table = {}  # ref -> its pin table in hardware/pintables.csv (battery board)

    def net(self, name):
        if name not in self.nets:
            self.nets[name] = Net(name, circuit=self.c)
        return self.nets[name]

    def part(self, ref, bom, value, fp, pins, desc="", table=None):
        """``pins``: (number, name, type) for each pin; ``table``: the part's pin
        table in hardware/pintables.csv, which the tests hold these pins to."""
        p = Part(
            tool=SKIDL,
            name=bom,
            ref=ref,
            tag=ref,
            value=value,
            footprint=FP[fp],
            description=desc,
            circuit=self.c,
            pins=[Pin(num=str(n), name=nm, func=f) for n, nm, f in pins],
        )
        self.bom[ref] = bom
        self.fp[ref] = FP[fp]
        self.pin_count[ref] = len(pins)
        self.pins[ref] = tuple((str(n), nm) for n, nm, _ in pins)
        self.values[ref] = value
        if table:
            self.table[ref] = table
        return p

    def r(self, ref, value, a, b, bom=None, table=None):
        p = self.part(ref, bom or "Resistor " + value, value, "r", _two(P.PASSIVE), table=table)
        self.net(a).connect(p[1])
        self.net(b).connect(p[2])
        return p

    def cap(self, ref, value, a, b, fp="c", table=None):
        p = self.part(ref, "Capacitor " + value, value, fp, _two(P.PASSIVE), table=table)
        self.net(a).connect(p[1])
        self.net(b).connect(p[2])
        return p

    def pico(self, ref, gpio_nets, rails=("3V3", "VSYS", "VBUS"), fed=(), tied=None, table=None):
        """A Pico; ``gpio_nets``: GPIO number -> net name. Unused pins are no-connects,
        and so are the supply pins not in ``rails`` (the jig's Pico, powered by its
        USB, lends only its 3V3). ``fed``: rails the board feeds (the battery board
        drives 3V3 itself); ``tied``: pin name -> net (3V3_EN to GND)."""
        tied = tied or {}
        pins = []
        for n in range(1, 41):
            name = PICO_PINS[n]
            if name.startswith("GP"):
                kind = P.BIDIR
            elif name in ("GND", "AGND"):
                kind = P.PWRIN
            elif name in fed:
                kind = P.PWRIN
            elif name in ("3V3", "VBUS"):
                kind = P.PWROUT
            elif name == "VSYS":
                kind = P.PWRIN
            else:
                kind = P.INPUT
            pins.append((n, name, kind))
        u = self.part(ref, "Raspberry Pi Pico", "Pico", "pico", pins, "RP2040 board", table=table)
        for n in range(1, 41):
            name = PICO_PINS[n]
            if name in tied:
                self.net(tied[name]).connect(u[n])
            elif name in ("GND", "AGND"):
                self.net("GND").connect(u[n])
            elif name.startswith("GP") and int(name[2:]) in gpio_nets:
                self.net(gpio_nets[int(name[2:])]).connect(u[n])
            elif name in rails:
                self.net({"3V3": "+3V3", "VSYS": "VSYS", "VBUS": "VBUS"}[name]).connect(u[n])
            else:
                self.c.NC.connect(u[n])  # RUN, ADC_VREF, 3V3_EN, spare GPIOs
        return u

    def power(self, *names):
        for name in names:
            self.net(name).drive = 8  # skidl POWER: a supply rail

    def erc(self):
        """(errors, warnings) of SKiDL's electrical rules check."""
        from skidl import erc_logger

        self.c.ERC()
        return erc_logger.error.count, erc_logger.warning.count

    def netlist(self):
        """The KiCad netlist, with the date fixed so that it regenerates byte for byte."""
        text = str(self.c.generate_netlist(tool=TOOL))
        text = re.sub(r'\(date "[^"]*"\)', '(date "")', text)
        return re.sub(r'\(source "[^"]*"\)', '(source "hardware/schematic.py")', text)


def _two(kind):
    return [(1, "1", kind), (2, "2", kind)]


# #29: a TVS at each lead a player touches (TI TPD1E10B06: bidirectional, IEC
# 61000-4-2 level 4), between the lead and GND, before the series resistor.
TVS = "TPD1E10B06"


def tvs(s, refs, nets, table=None):
    for ref, net in zip(refs, nets, strict=True):
        p = s.part(ref, "TVS diode", TVS, "d0402", _two(P.PASSIVE), "ESD at " + net, table=table)
        s.net(net).connect(p[1])
        s.net("GND").connect(p[2])


def hinge_ground(s, ref, table=None):
    """#29: the levers' steel hinge rods on a lead to GND, so a touch discharge
    to a lever goes to ground, not through the switch into its pin."""
    p = s.part(ref, "Hinge ground lead", "hinges", "xh2", _two(P.PASSIVE), "both rods", table=table)
    s.net("GND").connect(p[1], p[2])


def clock():
    """The clock's circuit."""
    pin = read_pinout()
    s = Sheet()
    s.pico("U1", {gp: sig for sig, gp in pin.items() if gp not in INTERNAL}, table="Pico")
    s.power("GND", "+3V3", "VSYS", "VBUS")

    # Levers: switch, pull-up, RC into the Schmitt input.
    for i, side in enumerate(("left", "right")):
        sig, sw = "lever_" + side, "lever_%s_sw" % side
        p = s.part(
            "SW%d" % (i + 1),
            "Lever microswitch",
            "D2F-01L",
            "xh2",
            [(1, "COM", P.PASSIVE), (2, "NO", P.PASSIVE)],
            "on a 2-wire lead: COM and NO",
        )
        s.net("GND").connect(p[1])
        s.net(sw).connect(p[2])
        s.r("R%d" % (1 + i), "10k", "+3V3", sw)
        s.r("R%d" % (3 + i), "1k", sw, sig)
        s.cap("C%d" % (1 + i), "100n", sig, "GND")

    # Arbiter keys on the internal pull-ups, each through 1 kOhm with 100 nF at
    # the pin: a discharge from a player's hand meets the resistor and the
    # capacitor before the RP2040's clamp diodes.
    for i, key in enumerate(("key_start", "key_menu", "key_plus", "key_minus", "key_ok")):
        p = s.part(
            "SW%d" % (3 + i),
            "Arbiter key",
            key[4:],
            "xh2",
            [(1, "1", P.PASSIVE), (2, "2", P.PASSIVE)],
            "12 mm tactile switch on the front panel",
        )
        s.net(key + "_sw").connect(p[1])
        s.net("GND").connect(p[2])
        s.r("R%d" % (16 + i), "1k", key, key + "_sw")
        s.cap("C%d" % (11 + i), "100n", key, "GND")

    # Tilt: ball switch (closed upright) through 1 kOhm and JP1 to GND.
    p = s.part("SW8", "Tilt switch", "SW-520D", "xh2", _two(P.PASSIVE), "closed when upright")
    s.r("R21", "1k", "tilt", "tilt_sw")
    s.net("tilt_sw").connect(p[1])
    s.net("tilt_jp").connect(p[2])
    p = s.part("JP1", "Jumper", "tilt", "jumper", _two(P.PASSIVE), "open while the jig drives tilt")
    s.net("tilt_jp").connect(p[1])
    s.net("GND").connect(p[2])
    s.cap("C3", "100n", "tilt", "GND")

    # Displays: Waveshare 2.42in SSD1309 modules set for I2C (their DC pin is the
    # address bit: low, 0x3C; CS unused). Pin order as on the module's header.
    # Both RES pins on one GPIO, pulled low (R26) so the panels stay in reset
    # until the firmware starts them, and reset again by any brown-out.
    for i in (0, 1):
        ref = "DS%d" % (i + 1)
        pins = [
            (1, "VCC", P.PWRIN),
            (2, "GND", P.PWRIN),
            (3, "DIN", P.BIDIR),
            (4, "CLK", P.INPUT),
            (5, "CS", P.NOCONNECT),
            (6, "DC", P.INPUT),
            (7, "RES", P.INPUT),
        ]
        d = s.part(ref, "OLED 2.42in SSD1309", "128x64", "oled", pins, ("left", "right")[i])
        bus = "i2c%d" % i
        s.net("GND").connect(d["GND"], d["DC"])
        s.c.NC.connect(d["CS"])
        s.net("+3V3").connect(d["VCC"])
        s.net(bus + "_scl").connect(d["CLK"])
        s.net(bus + "_sda").connect(d["DIN"])
        s.net("oled_res").connect(d["RES"])
        s.r("R%d" % (5 + 2 * i), "4k7", "+3V3", bus + "_scl")
        s.r("R%d" % (6 + 2 * i), "4k7", "+3V3", bus + "_sda")
        s.cap("C%d" % (8 + i), "100n", "+3V3", "GND")  # at the connector
        s.cap("C%d" % (4 + i), "10u", "+3V3", "GND", fp="c_bulk")  # the module's boost
    s.r("R26", "10k", "oled_res", "GND")

    # Voice: the MAX98357A breakout's 7-pin header. The speaker is wired to the
    # breakout's own 2-pin terminal on its far edge, not to this board.
    pins = [
        (1, "LRC", P.INPUT),
        (2, "BCLK", P.INPUT),
        (3, "DIN", P.INPUT),
        (4, "GAIN", P.NOCONNECT),
        (5, "SD", P.INPUT),
        (6, "GND", P.PWRIN),
        (7, "VIN", P.PWRIN),
    ]
    a = s.part(
        "U2",
        "MAX98357A breakout",
        "MAX98357A",
        "amp",
        pins,
        "GAIN open: 9 dB",
        table="Adafruit3006",
    )
    s.net("i2s_lrclk").connect(a["LRC"])
    s.net("i2s_bclk").connect(a["BCLK"])
    s.net("i2s_din").connect(a["DIN"])
    s.net("amp_sd").connect(a["SD"])
    s.net("GND").connect(a["GND"])
    s.net("VSYS").connect(a["VIN"])
    s.c.NC.connect(a["GAIN"])
    # SD: the breakout pulls it up with 1 MOhm, the chip down with 100 kOhm; 10 kOhm
    # keeps it below the 0.16 V shutdown threshold while the GPIO floats in reset.
    s.r("R9", "10k", "amp_sd", "GND")
    s.cap("C10", "100u", "VSYS", "GND", fp="cp")  # the amplifier's peaks

    # Buzzer: piezo from VSYS, switched by an NPN.
    q = s.part(
        "Q1",
        "NPN transistor",
        "2N3904",
        "to92",
        [(1, "E", P.PASSIVE), (2, "B", P.PASSIVE), (3, "C", P.PASSIVE)],
        table="2N3904",
    )
    s.r("R11", "1k", "buzzer", "buzzer_base")
    s.r("R12", "10k", "buzzer_base", "GND")
    s.net("buzzer_base").connect(q["B"])
    s.net("GND").connect(q["E"])
    s.net("buzzer_drive").connect(q["C"])
    bz = s.part("BZ1", "Piezo buzzer", "PS1240", "buzzer", _two(P.PASSIVE))
    s.net("VSYS").connect(bz[1])
    s.net("buzzer_drive").connect(bz[2])
    s.r("R13", "1k", "VSYS", "buzzer_drive")  # discharges the piezo

    # The cell: 18650 in a holder, with its own protection (DW01A + FS8205A on
    # its negative side: over-charge, over-discharge, short), a PTC fuse, and a
    # P-FET that conducts only when the cell is the right way round.
    bt = s.part(
        "BT1", "Li-ion cell 18650", "3.6V", "bat", [(1, "+", P.PWROUT), (2, "-", P.PASSIVE)]
    )
    s.net("BAT_P").connect(bt["+"])
    s.net("BAT_N").connect(bt["-"])
    pins = [
        (1, "OD", P.OUTPUT),
        (2, "CS", P.INPUT),
        (3, "OC", P.OUTPUT),
        (4, "TD", P.NOCONNECT),
        (5, "VCC", P.PWRIN),
        (6, "GND", P.PWRIN),
    ]
    u = s.part(
        "U4", "Li-ion protection", "DW01A", "sot23_6", pins, "the cell's guard", table="DW01A"
    )
    s.power("prot_vcc", "BAT_N")  # the cell is this chip's supply
    # #29: fed after the reverse guard (Q3), so a reversed cell drives no current
    # through its substrate diode (30 mA by R24 when it sat before the guard)
    s.r("R24", "100", "VBAT", "prot_vcc")
    s.cap("C17", "100n", "prot_vcc", "BAT_N")
    s.net("prot_vcc").connect(u["VCC"])
    s.net("BAT_N").connect(u["GND"])
    s.r("R25", "1k", "prot_cs", "GND")
    s.net("prot_cs").connect(u["CS"])
    s.c.NC.connect(u["TD"])
    pins = [
        (1, "D1", P.PASSIVE),
        (2, "S1a", P.PASSIVE),
        (3, "S1b", P.PASSIVE),
        (4, "G1", P.INPUT),
        (5, "G2", P.INPUT),
        (6, "S2a", P.PASSIVE),
        (7, "S2b", P.PASSIVE),
        (8, "D2", P.PASSIVE),
    ]
    m = s.part("Q2", "Dual N-MOSFET", "FS8205A", "tssop8", pins, "discharge and charge switches")
    s.net("BAT_N").connect(m["S1a"], m["S1b"])
    s.net("GND").connect(m["S2a"], m["S2b"])
    s.net("prot_d").connect(m["D1"], m["D2"])
    s.net("prot_od").connect(u["OD"], m["G1"])
    s.net("prot_oc").connect(u["OC"], m["G2"])
    f = s.part("F1", "PTC fuse", "1.0A", "ptc", _two(P.PASSIVE), "resettable, in the cell's lead")
    s.net("BAT_P").connect(f[1])
    s.net("BAT_F").connect(f[2])
    fet = [(1, "G", P.INPUT), (2, "S", P.PASSIVE), (3, "D", P.PASSIVE)]
    q = s.part("Q3", "P-MOSFET", "DMG2305UX", "sot23", fet, "reverse-cell guard", table="DMG2305UX")
    s.net("BAT_F").connect(q["D"])
    s.net("VBAT").connect(q["S"])
    s.net("GND").connect(q["G"])

    # Charger from VBUS at 193 mA (PROG 4.7 kOhm + RT1): with the clock running it
    # keeps the USB draw under 500 mA, and the SOT-23-5 below its heat limit.
    # #29: RT1, a PTC thermistor against the cell, is in PROG's path: above its
    # 45 C switch point its resistance climbs a decade in about 15 C, and the
    # charge current (1000 V / R_PROG) falls with it: no charge into a hot cell.
    pins = [
        (1, "STAT", P.OPENCOLL),
        (2, "VSS", P.PWRIN),
        (3, "VBAT", P.PASSIVE),
        (4, "VDD", P.PWRIN),
        (5, "PROG", P.PASSIVE),
    ]
    u = s.part(
        "U3",
        "Li-ion charger",
        "MCP73831-2",
        "sot23_5",
        pins,
        "213 mA (PROG 4.7 kOhm)",
        table="MCP73831",
    )
    s.net("charge_led").connect(u["STAT"])
    s.net("GND").connect(u["VSS"])
    s.net("VBAT").connect(u["VBAT"])
    s.net("VBUS").connect(u["VDD"])
    s.net("charge_prog").connect(u["PROG"])
    s.r("R14", "4k7", "charge_prog", "charge_ptc")
    ptc = s.part("RT1", "PTC thermistor", "470", "r0603", _two(P.PASSIVE), "against the cell")
    s.net("charge_ptc").connect(ptc[1])
    s.net("GND").connect(ptc[2])
    s.cap("C6", "4u7", "VBUS", "GND", fp="c_bulk")
    s.cap("C7", "4u7", "VBAT", "GND", fp="c_bulk")
    s.r("R15", "1k", "VBUS", "charge_led_a")
    led = s.part("D2", "LED", "red", "led", [(1, "K", P.PASSIVE), (2, "A", P.PASSIVE)], "charging")
    s.net("charge_led_a").connect(led["A"])
    s.net("charge_led").connect(led["K"])

    # The power switch: a panel-mount toggle on the side (enclosure.md), on a lead.
    sw = s.part(
        "SW9", "Toggle switch", "power", "xh2", _two(P.PASSIVE), "side panel; on a 2-wire lead"
    )
    s.net("VBAT").connect(sw[1])
    s.net("VBAT_SW").connect(sw[2])

    # Into VSYS by a P-FET, as the Pico datasheet shows: off while VBUS is there
    # (the Pico's own diode feeds VSYS from USB), on from the cell without the
    # Schottky's 0.3 V.
    q = s.part("Q4", "P-MOSFET", "DMG2305UX", "sot23", fet, "cell into VSYS", table="DMG2305UX")
    s.net("VBAT_SW").connect(q["D"])
    s.net("VSYS").connect(q["S"])
    s.net("VBUS").connect(q["G"])
    s.r("R10", "100k", "VBUS", "GND")  # the gate low when no USB

    # The cell, read on GP26 after the switch (no drain while switched off).
    s.r("R22", "100k", "VBAT_SW", "bat_sense")
    s.r("R23", "100k", "bat_sense", "GND")
    s.cap("C16", "100n", "bat_sense", "GND")

    # #29: ESD at the leads players touch and at USB; the hinge rods grounded.
    leads = ["lever_left_sw", "lever_right_sw"]
    leads += [k + "_sw" for k in ("key_start", "key_menu", "key_plus", "key_minus", "key_ok")]
    tvs(s, ["D%d" % (3 + k) for k in range(len(leads) + 1)], [*leads, "VBUS"])
    hinge_ground(s, "J3")

    # J2: the test header for the jig (keyed, shrouded).
    pins = [(k + 1, name, P.PASSIVE) for k, name in enumerate(HARNESS)]
    j = s.part("J2", "Box header 2x8", "test", "test", pins, "the jig's harness", table="Header2x8")
    for k, name in enumerate(HARNESS):
        s.net(name).connect(j[k + 1])
    return s


def jig():
    """The test jig's circuit."""
    jp = read_jig_pins()
    channels, opto = jp["CHANNELS"], jp["OPTO"]
    listen = dict(jp["LISTEN"])
    gpio = {n: "jig_opto%d" % k for k, n in enumerate(opto)}
    gpio.update({n: "jig_" + name for name, n in listen.items()})
    s = Sheet()
    s.pico("U101", gpio, rails=("3V3",))
    s.power("GND", "+3V3")
    for u in range(len(channels) // 4):
        pins = []
        for k in range(4):  # LTV-847: LEDs on pins 1..8, transistors on 9..16
            pins += [
                (2 * k + 1, "A%d" % (k + 1), P.PASSIVE),
                (2 * k + 2, "K%d" % (k + 1), P.PASSIVE),
            ]
            pins += [
                (16 - 2 * k, "C%d" % (k + 1), P.OPENCOLL),
                (15 - 2 * k, "E%d" % (k + 1), P.PASSIVE),
            ]
        oc = s.part("U%d" % (102 + u), "Optocoupler x4", "LTV-847", "dip16", pins)
        for k in range(4):
            ch = 4 * u + k
            s.r("R%d" % (101 + ch), "330", "jig_opto%d" % ch, "jig_led%d" % ch)
            s.net("jig_led%d" % ch).connect(oc["A%d" % (k + 1)])
            s.net("GND").connect(oc["K%d" % (k + 1)], oc["E%d" % (k + 1)])
            s.net(channels[ch]).connect(oc["C%d" % (k + 1)])
    # The listening lines: 1 kOhm from the clock, then a 74LVC244A buffer on the
    # jig's 3V3. Its inputs take the clock's 3.3 V while the jig is unpowered
    # (Ioff, partial power-down), so the clock never back-powers the jig's Pico.
    pins = [(1, "1OE", P.INPUT), (10, "GND", P.PWRIN), (19, "2OE", P.INPUT), (20, "VCC", P.PWRIN)]
    ins = (2, 4, 6, 8, 11, 13, 15, 17)  # 1A1..1A4, 2A1..2A4
    outs = (18, 16, 14, 12, 9, 7, 5, 3)  # 1Y1..1Y4, 2Y1..2Y4
    for k in range(8):
        pins += [(ins[k], "A%d" % k, P.INPUT), (outs[k], "Y%d" % k, P.OUTPUT)]
    buf = s.part("U104", "Buffer x8", "74LVC244A", "dip20", pins, "Ioff: safe unpowered")
    s.net("GND").connect(buf["1OE"], buf["2OE"], buf["GND"])
    s.net("+3V3").connect(buf["VCC"])
    s.cap("C101", "100n", "+3V3", "GND")
    for k, (name, _) in enumerate(jp["LISTEN"]):
        s.r("R%d" % (111 + k), "1k", name, "jig_in_" + name)
        s.net("jig_in_" + name).connect(buf["A%d" % k])
        s.net("jig_" + name).connect(buf["Y%d" % k])
    for k in range(len(jp["LISTEN"]), 8):  # unused inputs held low, outputs open
        s.net("GND").connect(buf["A%d" % k])
        s.c.NC.connect(buf["Y%d" % k])
    pins = [(k + 1, name, P.PASSIVE) for k, name in enumerate(HARNESS)]
    j = s.part("J101", "Box header 2x8", "harness", "test", pins, "to the clock's J2")
    for k, name in enumerate(HARNESS):
        s.net(name).connect(j[k + 1])
    return s


def read_pin_tables(path=None):
    """hardware/pintables.csv: part -> {pin number: row} (name, type, rail, source)."""
    with open(path or PIN_TABLES, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    out = {}
    for r in rows:
        pins = out.setdefault(r["part"], {})
        if r["pin"] in pins:
            raise ValueError("pintables.csv: %s pin %s twice" % (r["part"], r["pin"]))
        if not r["source"].strip():
            raise ValueError("pintables.csv: %s pin %s has no source" % (r["part"], r["pin"]))
        pins[r["pin"]] = r
    return out


def battery():
    """The battery board's circuit (#22, hardware/battery-board.md): two AA cells,
    a TPS63900 buck-boost feeding the Pico's 3V3 (its own regulator off), two
    PCF85176 segment-glass drivers, the amplifier behind a load switch, a soft
    power switch. Each active part's pins are those of its table in
    hardware/pintables.csv, where every pin number has its source."""
    pin = {sig: gp for sig, gp in read_pinout().items() if sig not in BATTERY_UNUSED}
    pin.update(BATTERY_PINS)
    s = Sheet()
    # #29: the Pico's VSYS is left to the Pico (its own diode from VBUS; here it
    # only feeds EN through R29): the cells feed the TPS63900 on a node of its own
    # (VIN), so on cells VSYS is at 0 V and the Pico's 3V3_EN pull-up and VSYS
    # divider draw nothing, on or off.
    s.pico(
        "U1",
        {gp: sig for sig, gp in pin.items() if gp not in INTERNAL},
        fed=("3V3",),
        tied={"3V3_EN": "GND"},  # the Pico's RT6150 off: the TPS63900 feeds 3V3
        table="Pico",
    )
    s.power("GND", "+3V3", "VSYS", "VIN", "VBUS", "CELLS_IN", "CELLS")
    two = "2-terminal"

    # Levers: 1 MOhm pull-ups (3.3 uA while held), 1 kOhm + 100 pF into the pin.
    for i, side in enumerate(("left", "right")):
        sig, sw = "lever_" + side, "lever_%s_sw" % side
        p = s.part(
            "SW%d" % (i + 1),
            "Lever microswitch",
            "D2F-01L",
            "xh2",
            [(1, "COM", P.PASSIVE), (2, "NO", P.PASSIVE)],
            "on a 2-wire lead: COM and NO",
            table="D2F-lead",
        )
        s.net("GND").connect(p[1])
        s.net(sw).connect(p[2])
        s.r("R%d" % (1 + i), "1M", "+3V3", sw, table=two)
        s.r("R%d" % (3 + i), "1k", sw, sig, table=two)
        s.cap("C%d" % (1 + i), "100p", sig, "GND", table=two)

    # Arbiter keys on the internal pull-ups, 1 kOhm and 100 nF at the pin.
    for i, key in enumerate(("key_start", "key_menu", "key_plus", "key_minus", "key_ok")):
        p = s.part(
            "SW%d" % (3 + i),
            "Arbiter key",
            key[4:],
            "xh2",
            _two(P.PASSIVE),
            "12 mm tactile switch on the front panel",
            table=two,
        )
        s.net(key + "_sw").connect(p[1])
        s.net("GND").connect(p[2])
        s.r("R%d" % (5 + i), "1k", key, key + "_sw", table=two)
        s.cap("C%d" % (3 + i), "100n", key, "GND", table=two)

    # Tilt: mounted open while the clock stands, so it draws nothing at rest.
    p = s.part("SW8", "Tilt switch", "SW-520D", "xh2", _two(P.PASSIVE), "open upright", table=two)
    s.r("R10", "1k", "tilt", "tilt_sw", table=two)
    s.net("tilt_sw").connect(p[1])
    s.net("tilt_jp").connect(p[2])
    p = s.part(
        "JP1",
        "Jumper",
        "tilt",
        "jumper",
        _two(P.PASSIVE),
        "open while the jig drives tilt",
        table=two,
    )
    s.net("tilt_jp").connect(p[1])
    s.net("GND").connect(p[2])
    s.cap("C8", "100n", "tilt", "GND", table=two)

    # The cells, a P-FET against a reversed pair, and a P-FET into VIN that
    # VBUS turns off (the Pico datasheet's battery circuit); on USB, VIN comes
    # from VBUS through D4, a silicon rectifier: its reverse leakage from the
    # cells is nA where a Schottky's is uA (#29, the off-state current).
    pins = [(1, "+", P.PWROUT), (2, "-", P.PASSIVE)]
    bt = s.part(
        "BT1",
        "Battery holder 2xAA",
        "2xAA",
        "bat2aa",
        pins,
        "two alkaline cells in series",
        table="Keystone2462",
    )
    s.net("CELLS_IN").connect(bt["+"])
    s.net("GND").connect(bt["-"])
    fet = [(1, "G", P.INPUT), (2, "S", P.PASSIVE), (3, "D", P.PASSIVE)]
    q = s.part("Q3", "P-MOSFET", "DMG2305UX", "sot23", fet, "reverse-cell guard", table="DMG2305UX")
    s.net("CELLS_IN").connect(q["D"])
    s.net("CELLS").connect(q["S"])
    s.net("GND").connect(q["G"])
    q = s.part("Q4", "P-MOSFET", "DMG2305UX", "sot23", fet, "cells into VIN", table="DMG2305UX")
    s.net("CELLS").connect(q["D"])
    s.net("VIN").connect(q["S"])
    s.net("VBUS").connect(q["G"])
    s.r("R11", "100k", "VBUS", "GND", table=two)  # the gate low when no USB
    d = s.part("D4", "Rectifier", "1N4001", "do41", _two(P.PASSIVE), "USB into VIN", table=two)
    s.net("VIN").connect(d[1])  # K (KiCad's diode pads: 1 K, 2 A)
    s.net("VBUS").connect(d[2])

    # 3.3 V: the TPS63900 from VIN. SEL low: VOUT(1). CFG resistors (TI SLVSET3D,
    # 7.3.6, Table 7-2): CFG3 16.2 kOhm, VOUT(1) 3.3 V; CFG1 36.5 kOhm, VOUT(2)
    # 3.3 V as well; CFG2 0 Ohm, no input current limit (1-100 mA starves the
    # amplifier and the start-up).
    pins = [
        (1, "EN", P.INPUT),
        (2, "SEL", P.INPUT),
        (3, "CFG1", P.INPUT),
        (4, "CFG2", P.INPUT),
        (5, "CFG3", P.INPUT),
        (6, "VOUT", P.PWROUT),
        (7, "LX2", P.PASSIVE),
        (8, "GND", P.PWRIN),
        (9, "LX1", P.PASSIVE),
        (10, "VIN", P.PWRIN),
        (11, "EP", P.PWRIN),
    ]
    u = s.part(
        "U2", "Buck-boost 3.3 V", "TPS63900", "wson10", pins, "75 nA quiescent", table="TPS63900"
    )
    s.net("VIN").connect(u["VIN"])
    s.net("+3V3").connect(u["VOUT"])
    s.net("GND").connect(u["GND"], u["EP"], u["SEL"])
    s.net("tps_en").connect(u["EN"])
    s.net("tps_lx1").connect(u["LX1"])
    s.net("tps_lx2").connect(u["LX2"])
    for k, value in ((1, "36.5k"), (2, "0"), (3, "16.2k")):
        s.net("tps_cfg%d" % k).connect(u["CFG%d" % k])
        bom = "Resistor %s 1 %%" % value if value != "0" else "Resistor 0 Ohm"
        s.r("R%d" % (11 + k), value, "tps_cfg%d" % k, "GND", bom=bom, table=two)
    ind = s.part("L1", "Inductor 2.2 uH", "2.2u", "xfl4020", _two(P.PASSIVE), "TPS63900", table=two)
    s.net("tps_lx1").connect(ind[1])
    s.net("tps_lx2").connect(ind[2])
    # X7R 0805 at the pins: 10 uF in, 2 x 10 uF out (SLVSET3D 8.2.2.3-4)
    s.cap("C9", "10u", "VIN", "GND", fp="c0805", table=two)
    s.cap("C10", "10u", "+3V3", "GND", fp="c0805", table=two)
    s.cap("C15", "10u", "+3V3", "GND", fp="c0805", table=two)

    npn = [(1, "E", P.PASSIVE), (2, "B", P.PASSIVE), (3, "C", P.PASSIVE)]

    # Soft power: EN high through a Schottky from the power key (cells), from
    # pwr_hold (the firmware holds itself on) or from VBUS; 1 MOhm pulls it low.
    # #29: pwr_hold and USB each through a resistor against R15, so EN stays
    # below VIN + 0.3 V on any supply (USB: about 2.3 V; pwr_hold: about 1.8 V).
    # USB's from the Pico's VSYS (VBUS through its own diode), at 0 V on cells.
    s.r("R29", "1M", "VSYS", "en_usb", table=two)
    s.r("R30", "680k", "pwr_hold", "en_hold", table=two)
    d = [(1, "A", P.PASSIVE), (2, "NC", P.NOCONNECT), (3, "K", P.PASSIVE)]
    for k, src in enumerate(("key_pwr_sw", "en_hold", "en_usb")):
        dd = s.part(
            "D%d" % (1 + k),
            "Schottky diode",
            "BAT54",
            "sot23",
            d,
            "to the TPS63900's EN",
            table="BAT54",
        )
        s.net(src).connect(dd["A"])
        s.net("tps_en").connect(dd["K"])
        s.c.NC.connect(dd["NC"])
    s.r("R15", "1M", "tps_en", "GND", table=two)
    p = s.part("SW9", "Arbiter key", "power", "xh2", _two(P.PASSIVE), "the power key", table=two)
    s.net("CELLS").connect(p[1])
    s.net("key_pwr_sw").connect(p[2])
    # #29: read through an NPN (Q6), not a divider: two spent cells (2.0 V) are
    # below the RP2040's 2.0 V input high, so GP12 is pulled up (the firmware's
    # PULL_UP) and Q6 pulls it low while the key is down, from any cell voltage.
    s.r("R16", "100k", "key_pwr_sw", "key_pwr_base", table=two)
    s.r("R31", "1M", "key_pwr_base", "GND", table=two)
    q = s.part("Q6", "NPN transistor", "2N3904", "to92", npn, "reads the power key", table="2N3904")
    s.net("key_power").connect(q["C"])
    s.net("key_pwr_base").connect(q["B"])
    s.net("GND").connect(q["E"])

    # Segment glasses: one PCF85176 each, both on I2C0, SA0 low (0x38) and high
    # (0x39); internal oscillator (OSC to VSS), not cascaded (SYNC, CLK open),
    # subaddress 0 (A0-A2 to VSS), VLCD = VDD = 3.3 V.
    names = {1: "BP2", 2: "BP1", 3: "BP3", 56: "BP0"}
    names.update({4 + k: "S%d" % k for k in range(40)})
    ctl = ("SDA", "SCL", "SYNC", "CLK", "VDD", "OSC", "A0", "A1", "A2", "SA0", "VSS", "VLCD")
    names.update(zip(range(44, 56), ctl, strict=True))
    kinds = {"SDA": P.BIDIR, "SYNC": P.NOCONNECT, "CLK": P.NOCONNECT}
    kinds.update({"VDD": P.PWRIN, "VSS": P.PWRIN, "VLCD": P.PWRIN})
    for i in (0, 1):
        pins = []
        for n in range(1, 57):
            nm = names[n]
            out = re.fullmatch(r"BP\d|S\d+", nm)
            pins.append((n, nm, kinds.get(nm, P.OUTPUT if out else P.INPUT)))
        ref = "U%d" % (3 + i)
        u = s.part(
            ref, "LCD driver", "PCF85176", "tssop56", pins, ("left", "right")[i], table="PCF85176T"
        )
        s.net("+3V3").connect(u["VDD"], u["VLCD"])
        s.net("GND").connect(u["VSS"], u["OSC"], u["A0"], u["A1"], u["A2"])
        s.net(("GND", "+3V3")[i]).connect(u["SA0"])
        s.net("i2c0_sda").connect(u["SDA"])
        s.net("i2c0_scl").connect(u["SCL"])
        s.c.NC.connect(u["SYNC"], u["CLK"])
        s.cap("C%d" % (11 + i), "100n", "+3V3", "GND", table=two)
        glass = [(1 + k, "COM%d" % k, P.PASSIVE) for k in range(4)]
        glass += [(5 + k, "SEG%d" % k, P.PASSIVE) for k in range(40)]
        side = ("left", "right")[i]
        g = s.part(
            "DS%d" % (1 + i), "Segment LCD glass", "4x40", "glass", glass, side, table="Glass44"
        )
        for k in range(4):
            s.net("ds%d_com%d" % (1 + i, k)).connect(u["BP%d" % k], g["COM%d" % k])
        for k in range(40):
            s.net("ds%d_seg%d" % (1 + i, k)).connect(u["S%d" % k], g["SEG%d" % k])
    s.r("R17", "4k7", "+3V3", "i2c0_scl", table=two)
    s.r("R18", "4k7", "+3V3", "i2c0_sda", table=two)

    # Voice: the amplifier's supply through a TPS22917 on amp_pwr (ON pulled
    # low, never floating), QOD to VOUT (the rail discharged when off), CT open
    # (fastest turn-on); the breakout's 7-pin header as on the OLED board.
    pins = [
        (1, "VIN", P.PWRIN),
        (2, "GND", P.PWRIN),
        (3, "ON", P.INPUT),
        (4, "CT", P.NOCONNECT),
        (5, "QOD", P.PASSIVE),
        (6, "VOUT", P.PWROUT),
    ]
    u = s.part(
        "U5", "Load switch", "TPS22917", "sot23_6", pins, "the amplifier's supply", table="TPS22917"
    )
    s.net("+3V3").connect(u["VIN"])
    s.net("GND").connect(u["GND"])
    s.net("amp_pwr").connect(u["ON"])
    s.net("amp_vin").connect(u["VOUT"], u["QOD"])
    s.c.NC.connect(u["CT"])
    s.r("R19", "100k", "amp_pwr", "GND", table=two)
    pins = [
        (1, "LRC", P.INPUT),
        (2, "BCLK", P.INPUT),
        (3, "DIN", P.INPUT),
        (4, "GAIN", P.NOCONNECT),
        (5, "SD", P.INPUT),
        (6, "GND", P.PWRIN),
        (7, "VIN", P.PWRIN),
    ]
    a = s.part(
        "U6",
        "MAX98357A breakout",
        "MAX98357A",
        "amp",
        pins,
        "GAIN open: 9 dB",
        table="Adafruit3006",
    )
    s.net("i2s_lrclk").connect(a["LRC"])
    s.net("i2s_bclk").connect(a["BCLK"])
    s.net("i2s_din").connect(a["DIN"])
    s.net("amp_sd").connect(a["SD"])
    s.net("GND").connect(a["GND"])
    s.net("amp_vin").connect(a["VIN"])
    s.c.NC.connect(a["GAIN"])
    s.r("R20", "10k", "amp_sd", "GND", table=two)
    s.cap("C13", "10u", "amp_vin", "GND", fp="c_bulk", table=two)

    # Buzzer: as the OLED board, from VIN.
    q = s.part("Q1", "NPN transistor", "2N3904", "to92", npn, table="2N3904")
    s.r("R21", "1k", "buzzer", "buzzer_base", table=two)
    s.r("R22", "10k", "buzzer_base", "GND", table=two)
    s.net("buzzer_base").connect(q["B"])
    s.net("GND").connect(q["E"])
    s.net("buzzer_drive").connect(q["C"])
    bz = s.part("BZ1", "Piezo buzzer", "PS1240", "buzzer", _two(P.PASSIVE), table=two)
    s.net("VIN").connect(bz[1])
    s.net("buzzer_drive").connect(bz[2])
    s.r("R23", "1k", "VIN", "buzzer_drive", table=two)

    # The cells read on GP26 through 1M/1M, switched on by bat_meas: an NPN
    # pulls the P-FET's gate low; at rest the divider and the gate draw nothing.
    q = s.part(
        "Q5", "P-MOSFET", "DMG2305UX", "sot23", fet, "the divider's switch", table="DMG2305UX"
    )
    s.net("CELLS").connect(q["S"])
    s.net("bat_div").connect(q["D"])
    s.net("bat_gate").connect(q["G"])
    s.r("R24", "1M", "CELLS", "bat_gate", table=two)
    q = s.part(
        "Q2", "NPN transistor", "2N3904", "to92", npn, "drives Q5 on bat_meas", table="2N3904"
    )
    s.net("bat_gate").connect(q["C"])
    s.net("GND").connect(q["E"])
    s.net("bat_base").connect(q["B"])
    s.r("R25", "100k", "bat_meas", "bat_base", table=two)
    s.r("R26", "1M", "bat_base", "GND", table=two)
    s.r("R27", "1M", "bat_div", "bat_sense", table=two)
    s.r("R28", "1M", "bat_sense", "GND", table=two)
    s.cap("C14", "100n", "bat_sense", "GND", table=two)

    # #29: ESD at the leads players touch (the power key's reaches EN) and at USB;
    # the hinge rods grounded.
    leads = ["lever_left_sw", "lever_right_sw"]
    leads += [k + "_sw" for k in ("key_start", "key_menu", "key_plus", "key_minus", "key_ok")]
    leads += ["key_pwr_sw", "VBUS"]
    tvs(s, ["D%d" % (5 + k) for k in range(len(leads))], leads, table=two)
    hinge_ground(s, "J3", table=two)

    # J2: the jig's test header, as on the OLED board.
    pins = [(k + 1, name, P.PASSIVE) for k, name in enumerate(HARNESS)]
    j = s.part("J2", "Box header 2x8", "test", "test", pins, "the jig's harness", table="Header2x8")
    for k, name in enumerate(HARNESS):
        s.net(name).connect(j[k + 1])
    return s


SHEETS = {"qizhong": clock, "jig": jig, "battery": battery}


def main(argv):
    failed = False
    for name, make in SHEETS.items():
        sheet = make()
        errors, warnings = sheet.erc()
        print("%s: ERC %d errors, %d warnings" % (name, errors, warnings))
        text = sheet.netlist()
        if "--check" in argv:
            with open(NETLISTS[name], encoding="utf-8") as f:
                if f.read() != text:
                    print("%s is stale: run python hardware/schematic.py" % NETLISTS[name])
                    failed = True
        else:
            with open(NETLISTS[name], "w", encoding="utf-8") as f:
                f.write(text)
            print("wrote " + os.path.relpath(NETLISTS[name], ROOT))
        failed = failed or errors > 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
