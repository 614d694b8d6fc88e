# SPDX-License-Identifier: GPL-3.0-or-later
"""Boot: build the board (the Pico's, or the simulator's), then run the clock."""

import sys

if sys.platform != "rp2":  # the unix port runs this file from the repository
    here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
    sys.path.insert(0, here)

import asyncio

from qizhong import tcspec
from qizhong.app import App

DEFAULT = "xq-rapid"  # what a clock switched on with no settings plays


def board():
    if sys.platform == "rp2":
        from boards.pico import Board
    else:
        from boards.sim import Board
    return Board()


def main():
    b = board()
    try:
        asyncio.run(App(b, tcspec.parse(DEFAULT)).run())
    except KeyboardInterrupt:  # Ctrl-C (mpremote): the REPL, with the watchdog fed a while
        b.keep_alive()
        raise


main()
