# SPDX-License-Identifier: GPL-3.0-or-later
"""Write docs/img/*.png: both faces of every state in tests/mp/face_check.py.

    .venv/bin/python tools/screenshots.py [OUTDIR]

The frames come from the real framebuf on the MicroPython unix port; Red
(side 0) is on the left, as in docs/display.md.
"""

from __future__ import annotations

import os
import subprocess
import sys

from qizhong.sim.png import side_by_side

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def frames(micropython: str) -> dict[str, dict[int, bytes]]:
    """{label: {side: framebuffer}} from face_check.py's "frame" lines."""
    script = os.path.join(ROOT, "tests", "mp", "face_check.py")
    out = subprocess.run([micropython, script], capture_output=True, text=True, check=True).stdout
    shots: dict[str, dict[int, bytes]] = {}
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] == "frame":
            shots.setdefault(parts[1], {})[int(parts[2])] = bytes.fromhex(parts[4])
    return shots


def main(argv: list[str]) -> int:
    dest = argv[1] if len(argv) > 1 else os.path.join(ROOT, "docs", "img")
    os.makedirs(dest, exist_ok=True)
    micropython = os.path.join(os.path.dirname(sys.executable), "micropython")
    for label, sides in frames(micropython).items():
        path = os.path.join(dest, "face-%s.png" % label)
        with open(path, "wb") as f:
            f.write(side_by_side(sides[0], sides[1], scale=3))
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
