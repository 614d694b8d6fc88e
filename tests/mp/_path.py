# SPDX-License-Identifier: GPL-3.0-or-later
"""Put firmware/ and tests/cases on the MicroPython path (no os.path there)."""

import os
import sys


def setup(script):
    """QIZHONG_FIRMWARE names another firmware folder (e.g. one of .mpy files)."""
    here = script.rsplit("/", 1)[0] if "/" in script else "."
    root = here + "/../.."
    sys.path.insert(0, root + "/tests/cases")
    sys.path.insert(0, os.getenv("QIZHONG_FIRMWARE") or root + "/firmware")
