# SPDX-License-Identifier: GPL-3.0-or-later
"""The battery board's two AA alkaline cells: when to warn (#29).

``WARN_MV``: the pair's loaded millivolts (the switched divider on GP26)
at which the cells still hold 15 hours (FIDE's 10 h after a warning, times
1.5) at the dearest game day's current; ``CLEAR_MV``: the warning clears
only above this (fresh cells, not a rested pair's rebound). Both come from
the cells' discharge curve at the clock's own rate and the energy model's
dearest day (host/qizhong/sim/cell.py, benchmarks/energy.py);
tests/test_energy.py holds them to it. Pure: no hardware.
"""

from micropython import const

WARN_MV = const(1930)
CLEAR_MV = const(2080)
