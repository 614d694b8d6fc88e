# SPDX-License-Identifier: GPL-3.0-or-later
"""The wiring diagram and the enclosure drawing, as SVG (matplotlib only).

    python hardware/drawings.py           write hardware/wiring.svg and enclosure.svg

The wiring diagram reads the pin map from hardware/pinout.csv and the Pico's
header from hardware/schematic.py, so it shows what the firmware uses. The
enclosure's dimensions are ENCLOSURE below (hardware/enclosure.md lists them).
"""

import os
import sys

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import schematic  # noqa: E402

OUT = {"wiring": os.path.join(HERE, "wiring.svg"), "enclosure": os.path.join(HERE, "enclosure.svg")}

# Where each signal goes (the part it wires to), for the diagram's boxes.
PARTS = {
    "lever_left": "Left lever SW1\n10k pull-up, 1k + 100n",
    "lever_right": "Right lever SW2\n10k pull-up, 1k + 100n",
    "key_start": "Key start",
    "key_menu": "Key menu",
    "key_plus": "Key +",
    "key_minus": "Key -",
    "key_ok": "Key ok",
    "tilt": "Tilt SW8 + JP1\n100n",
    "i2c0_sda": "Left OLED DS1\nSDA",
    "i2c0_scl": "Left OLED DS1\nSCL",
    "i2c1_sda": "Right OLED DS2\nSDA",
    "i2c1_scl": "Right OLED DS2\nSCL",
    "buzzer": "1k -> 2N3904 -> piezo BZ1",
    "i2s_bclk": "MAX98357A BCLK",
    "i2s_lrclk": "MAX98357A LRC",
    "i2s_din": "MAX98357A DIN",
    "amp_sd": "MAX98357A SD (10k to GND)",
    "oled_res": "both OLED RES (10k to GND)",
    "bat_sense": "cell / 2 (100k + 100k after the switch)",
}
POWER = {
    36: "3V3 OUT -> OLED VCC, pull-ups",
    39: "VSYS <- P-FET <- switch <- DW01A/PTC <- 18650\n-> MAX98357A VIN, piezo",
    40: "VBUS -> MCP73831 charger, P-FET gate",
    38: "GND (all grounds)",
}

# Enclosure dimensions in mm (hardware/enclosure.md).
ENCLOSURE = {
    "width": 220,
    "depth": 110,
    "front_height": 80,
    "back_height": 60,
    "wall": 3,
    "window_w": 58,
    "window_h": 30,
    "window_from_side": 26,
    "window_from_bottom": 30,
    "paddle_w": 70,
    "paddle_d": 45,
    "paddle_from_side": 20,
    "paddle_rise": 8,
    "hinge_d": 4,
}


def _setup():
    plt.rcParams["svg.hashsalt"] = "qizhong"
    plt.rcParams["svg.fonttype"] = "none"
    plt.rcParams["font.size"] = 8


def wiring(path=OUT["wiring"]):
    _setup()
    pin = schematic.read_pinout()
    fig, ax = plt.subplots(figsize=(11, 8.5))
    ax.set_xlim(0, 110)
    ax.set_ylim(0, 85)
    ax.axis("off")
    px, pw, top = 45, 20, 78  # the Pico's box
    step = 3.4
    ax.add_patch(plt.Rectangle((px, top - 20.5 * step), pw, 21 * step, fill=False, lw=1.5))
    ax.text(px + pw / 2, top + 2, "Raspberry Pi Pico (top view, USB up)", ha="center")
    by_pin = {p: sig for sig, gp in pin.items() if (p := schematic.GP_PINS.get(gp))}
    for n in range(1, 41):
        left = n <= 20
        row = n - 1 if left else 40 - n
        y = top - row * step
        x = px if left else px + pw
        name = schematic.PICO_PINS[n]
        ax.plot([x - 1.5, x] if left else [x, x + 1.5], [y, y], color="k", lw=0.8)
        ax.text(
            x + (1 if left else -1),
            y,
            "%d %s" % (n, name),
            va="center",
            ha="left" if left else "right",
            fontsize=6,
        )
        sig = by_pin.get(n)
        label = PARTS.get(sig, "") if sig else POWER.get(n, "")
        if not label:
            continue
        x2 = 20 if left else 70
        ax.plot([x - 1.5, x2] if left else [x + 1.5, x2], [y, y], color="tab:blue", lw=0.8)
        ax.text(
            x2 + (-0.5 if left else 0.5),
            y,
            (sig + ": " if sig else "") + label,
            va="center",
            ha="right" if left else "left",
            fontsize=6.5,
        )
    ax.text(
        px + pw / 2,
        4,
        "GP26 reads the cell / 2: the battery sense; GP29 (inside the Pico) reads VSYS / 3.\n"
        "Switches and keys close to GND. Pin map: hardware/pinout.csv.",
        ha="center",
        fontsize=7,
    )
    fig.savefig(path, metadata={"Date": None}, bbox_inches="tight")
    plt.close(fig)


def _dim(ax, x0, y0, x1, y1, text, off=6):
    """A dimension line from (x0, y0) to (x1, y1), offset sideways by ``off``."""
    horizontal = y0 == y1
    dx, dy = (0, off) if horizontal else (off, 0)
    ax.annotate(
        "", (x0 + dx, y0 + dy), (x1 + dx, y1 + dy), arrowprops={"arrowstyle": "<->", "lw": 0.6}
    )
    ax.plot([x0, x0 + dx], [y0, y0 + dy], color="0.5", lw=0.4)
    ax.plot([x1, x1 + dx], [y1, y1 + dy], color="0.5", lw=0.4)
    ax.text(
        (x0 + x1) / 2 + dx * 1.3,
        (y0 + y1) / 2 + dy * 1.3,
        text,
        ha="center",
        va="center",
        rotation=0 if horizontal else 90,
        fontsize=7,
    )


def enclosure(path=OUT["enclosure"]):
    _setup()
    e = ENCLOSURE
    fig, (front, side) = plt.subplots(1, 2, figsize=(12, 5), gridspec_kw={"width_ratios": [2, 1]})
    for ax in (front, side):
        ax.set_aspect("equal")
        ax.axis("off")
    w, h = e["width"], e["front_height"]
    front.set_title("Front (mm)")
    front.add_patch(plt.Rectangle((0, 0), w, h, fill=False, lw=1.2))
    for x in (e["window_from_side"], w - e["window_from_side"] - e["window_w"]):
        front.add_patch(
            plt.Rectangle(
                (x, e["window_from_bottom"]), e["window_w"], e["window_h"], fill=False, lw=0.8
            )
        )
    for x in (e["paddle_from_side"], w - e["paddle_from_side"] - e["paddle_w"]):
        front.add_patch(
            plt.Rectangle((x, h), e["paddle_w"], e["paddle_rise"], hatch="//", fill=False, lw=0.8)
        )
    front.text(w / 2, h + 16, "levers (left, right)", ha="center")
    _dim(front, 0, 0, w, 0, "%d" % w, off=-8)
    _dim(front, w, 0, w, h, "%d" % h, off=8)
    x = e["window_from_side"]
    _dim(
        front,
        x,
        e["window_from_bottom"],
        x + e["window_w"],
        e["window_from_bottom"],
        "window %d x %d" % (e["window_w"], e["window_h"]),
        off=-6,
    )
    _dim(
        front,
        0,
        e["window_from_bottom"] + e["window_h"] / 2,
        x,
        e["window_from_bottom"] + e["window_h"] / 2,
        "%d" % x,
        off=0,
    )
    _dim(front, 0, 0, 0, e["window_from_bottom"], "%d" % e["window_from_bottom"], off=-8)
    px = e["paddle_from_side"]
    _dim(
        front,
        px,
        h + e["paddle_rise"],
        px + e["paddle_w"],
        h + e["paddle_rise"],
        "paddle %d" % e["paddle_w"],
        off=5,
    )
    front.set_xlim(-20, w + 20)
    front.set_ylim(-20, h + 30)

    d, hb = e["depth"], e["back_height"]
    side.set_title("Side (mm)")
    side.add_patch(plt.Polygon([(0, 0), (d, 0), (d, hb), (0, h)], fill=False, lw=1.2))
    # The paddle: hinged at the back, its front edge raised.
    side.plot([d - 8, d - 8 - e["paddle_d"]], [hb + 1, h + e["paddle_rise"] - 4], lw=2.5, color="k")
    side.add_patch(plt.Circle((d - 8, hb + 1), e["hinge_d"] / 2, fill=False))
    side.text(d - 8, hb + 8, "hinge rod %d mm" % e["hinge_d"], ha="center", fontsize=7)
    _dim(side, 0, 0, d, 0, "%d" % d, off=-8)
    _dim(side, 0, 0, 0, h, "%d" % h, off=-8)
    _dim(side, d, 0, d, hb, "%d" % hb, off=8)
    side.text(d / 2, 10, "front panel faces left", ha="center", fontsize=7)
    side.set_xlim(-25, d + 25)
    side.set_ylim(-20, h + 25)
    fig.savefig(path, metadata={"Date": None}, bbox_inches="tight")
    plt.close(fig)


def main():
    wiring()
    enclosure()
    for p in OUT.values():
        print("wrote " + os.path.relpath(p, os.path.dirname(HERE)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
