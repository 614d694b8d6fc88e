# SPDX-License-Identifier: GPL-3.0-or-later
"""Boot: build the board that is there (boards/find.py), then run the clock.

#12, docs/security.md: in play the USB port carries the protocol and nothing
else. Ctrl-C is switched off before anything else runs, and whatever ends the
clock's loop on the Pico resets it (the journal brings the game back paused)
rather than fall through to the REPL. Service mode (boards/service.py: menu
and ok held at power-on) leaves the REPL to USB, for developers and `make
flash`, and never starts the clock or its watchdog.
"""

import micropython

micropython.kbd_intr(-1)  # first: from here on a 0x03 on USB is data, not Ctrl-C

import sys  # noqa: E402 - after kbd_intr on purpose

if sys.platform != "rp2":  # the unix port runs this file from the repository
    here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
    sys.path.insert(0, here)

DEFAULT = "xq-rapid"  # what a clock switched on with no settings plays


def board():
    from boards import find  # the board that is there: battery, OLED, or the simulator's

    return find.board()


def main(platform=sys.platform):
    if platform == "rp2":
        import machine  # before anything can fail: the way out of play is a reset
        from boards import service

        if service.requested():
            service.enter()
            return  # to the REPL: service mode
    try:  # everything, imports included: a MemoryError at boot resets too
        import asyncio
        import gc

        b = board()  # first: its module compiles on an unfragmented heap
        gc.collect()  # the compiler's leftovers go before the next module needs a block
        from qizhong import tcspec

        gc.collect()
        from qizhong.app import App

        asyncio.run(App(b, tcspec.parse(DEFAULT)).run())
    except BaseException as e:  # nothing may reach the REPL in play
        if platform != "rp2":
            raise  # the simulator: the traceback on stderr, the process ends
        try:
            sys.print_exception(e)  # type: ignore[attr-defined]
        except BaseException:  # the reset below matters, not this
            pass
    if platform == "rp2":  # the loop never ends on the Pico; if it did: no REPL either
        machine.reset()


if __name__ == "__main__":  # MicroPython runs /main.py as __main__
    main()
