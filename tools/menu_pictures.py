# SPDX-License-Identifier: GPL-3.0-or-later
"""Write docs/img/menu-*.png: the setup menu as the clock shows it (docs/menu.md).

    .venv/bin/python tools/menu_pictures.py [OUTDIR]

Each picture is both displays of the real firmware on the simulated board,
after the keys named in SHOTS, pressed on a fresh clock.
"""

from __future__ import annotations

import os
import sys

from qizhong.sim import Sim

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name: the keys from a fresh clock
SHOTS = {
    "game": ["menu"],
    "preset": ["menu", "minus", "ok"],
    "stage": ["menu", "minus", "ok", "ok", "ok", "ok", "ok", "ok"],
    "overtime": ["menu", "plus", "ok"] + ["ok"] * 6,
    "error": ["menu"] + ["ok"] * 10 + ["plus", "ok", "ok", "plus", "start"],
}


# the battery board's segment glasses (#31): name: the keys from a fresh clock
GLASS_SHOTS = {
    "glass-game": ["menu"],
    "glass-base": ["menu", "minus", "ok", "plus", "ok", "ok", "ok"],
    "glass-how": ["menu", "minus", "ok", "plus", "ok", "ok", "ok", "ok"],
    "glass-error": SHOTS["error"],
}


def main(argv: list[str]) -> int:
    dest = argv[1] if len(argv) > 1 else os.path.join(ROOT, "docs", "img")
    os.makedirs(dest, exist_ok=True)
    shots = [(n, k, "oled") for n, k in SHOTS.items()]
    shots += [(n, k, "battery") for n, k in GLASS_SHOTS.items()]
    for name, keys, board in shots:
        with Sim(board=board) as sim:
            for i, key in enumerate(keys):
                sim.key(key, 100 * (i + 1))
            path = os.path.join(dest, "menu-%s.png" % name)
            sim.png(path, scale=3)
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
