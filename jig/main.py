# SPDX-License-Identifier: GPL-3.0-or-later
"""Boot the test jig: the Pico's optocouplers, or the simulated clock's wires (unix port)."""

import sys

if sys.platform != "rp2":  # the unix port runs this file from the repository
    here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
    sys.path.insert(0, here)

import asyncio

import jigcore


def board():
    if sys.platform == "rp2":
        from boards.pico import Board
    else:
        from boards.sim import Board
    return Board()


asyncio.run(jigcore.serve(board()))
