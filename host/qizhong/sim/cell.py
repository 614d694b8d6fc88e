# SPDX-License-Identifier: GPL-3.0-or-later
"""Two AA alkaline cells at the clock's own rate, and when to warn (#29).

The battery board draws about a milliampere from its cells (0.0004 C of an
AA cell's 2.85 Ah); at that rate an alkaline cell's voltage is set by its
chemistry, not by its internal resistance (150-300 mΩ: under a millivolt at
a milliampere), and it slopes gently from 1.58 V down to the knee near
1.0 V. ``CURVE`` is that slope: the loaded voltage of one cell against the
fraction of its charge already delivered. The firmware warns
(``firmware/boards/cell.py``'s ``WARN_MV``, the pair's millivolts) when the
cells hold the promised hours at the dearest day's current (``PROMISED_H``:
FIDE's 10 h after a warning, times 1.5 for the model's uncertainty, the
rule hardware/power.py applies to the OLED board's Li-ion cell), not at a
fixed fraction of the charge.

    >>> round(volts(0.5), 2)
    1.25
    >>> round(delivered(1.25), 2)
    0.5
    >>> round(energy_wh(), 2)  # two fresh cells down to the converter's 1.8 V
    7.12
"""

from __future__ import annotations

import itertools
import os
import re

# Energizer E91 datasheet: about 2,850 mAh at low drain (its capacity chart
# rises as the drain falls; the clock's ~1 mA is below its lowest rate).
CAPACITY_MAH = 2850
CELLS = 2
# TPS63900 datasheet (SLVSET3D, 6.3 Recommended Operating Conditions): VIN
# 1.8 V at least. Two cells at 0.9 V each are the end of the clock's cells.
CUTOFF_V = 0.9
# One cell's loaded voltage at the clock's rate against the fraction of its
# charge delivered. The shape is the E91 datasheet's constant-current curves
# at their lowest drain (the Energizer alkaline handbook: "the closed circuit
# voltage declines gradually as a function of the depth of discharge"); the
# points are read as an estimate, not digitised from a curve at 1 mA: the
# first board's bring-up measures it (hardware/battery-board.md, B9).
CURVE = (
    (1.58, 0.00),  # open circuit of a fresh cell, 1.58 V (the handbook's figure)
    (1.50, 0.05),
    (1.45, 0.10),
    (1.38, 0.20),
    (1.33, 0.30),
    (1.29, 0.40),
    (1.25, 0.50),
    (1.21, 0.60),
    (1.17, 0.70),
    (1.12, 0.80),
    (1.05, 0.90),
    (1.00, 0.95),
    (0.95, 0.98),
    (0.90, 1.00),
)
REQUIRED_H = 10  # FIDE: at least 10 h of play after the low-battery warning
MARGIN = 1.5  # for the model's uncertainty, as hardware/power.py asks of the OLED board
PROMISED_H = REQUIRED_H * MARGIN
HYSTERESIS_MV = 150  # the warning clears only on fresh cells, not on a rested pair's rebound


def volts(fraction: float) -> float:
    """One cell's loaded voltage with ``fraction`` (0-1) of its charge delivered."""
    if fraction <= 0:
        return CURVE[0][0]
    for (v0, f0), (v1, f1) in itertools.pairwise(CURVE):
        if f0 <= fraction <= f1:
            return v0 + (v1 - v0) * (fraction - f0) / (f1 - f0)
    return CURVE[-1][0]


def delivered(v: float) -> float:
    """The fraction of a cell's charge delivered when it reads ``v`` volts loaded."""
    if v >= CURVE[0][0]:
        return 0.0
    for (v0, f0), (v1, f1) in itertools.pairwise(CURVE):
        if v1 <= v <= v0:
            return f0 + (f1 - f0) * (v0 - v) / (v0 - v1)
    return 1.0


def energy_wh(from_fraction: float = 0.0) -> float:
    """Wh the pair still holds when ``from_fraction`` of each cell's charge
    is delivered, down to ``CUTOFF_V`` a cell (the curve integrated)."""
    total = 0.0
    for (_, f0), (v1, f1) in itertools.pairwise(CURVE):
        lo = max(f0, from_fraction)
        if f1 <= lo:
            continue
        total += (volts(lo) + v1) / 2 * (f1 - lo)
    return CELLS * total * CAPACITY_MAH / 1000


def hours_left(pair_mv: int, load_mw: float) -> float:
    """Hours a pair reading ``pair_mv`` (loaded) runs a load of ``load_mw`` at the cells."""
    return energy_wh(delivered(pair_mv / 1000 / CELLS)) * 1000 / load_mw


def warn_mv(load_mw: float, hours: float = PROMISED_H) -> int:
    """The pair's millivolts (10 mV steps, up) at which ``hours`` remain at ``load_mw``."""
    mv = int(CUTOFF_V * CELLS * 1000)
    while hours_left(mv, load_mw) < hours:
        mv += 10
    return mv


def firmware_thresholds(path: str | None = None) -> tuple[int, int]:
    """(WARN_MV, CLEAR_MV) as the firmware has them (firmware/boards/cell.py)."""
    from qizhong.sim.simulator import repo_root

    path = path or os.path.join(repo_root(), "firmware", "boards", "cell.py")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    got = [re.search(r"^%s = const\((\d+)\)" % n, text, re.M) for n in ("WARN_MV", "CLEAR_MV")]
    if not all(got):
        raise ValueError("%s: WARN_MV / CLEAR_MV not found" % path)
    return int(got[0].group(1)), int(got[1].group(1))  # type: ignore[union-attr]
