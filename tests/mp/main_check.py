# SPDX-License-Identifier: GPL-3.0-or-later
"""main.py on MicroPython's unix port as the Pico would run it (#12).

    micropython tests/mp/main_check.py

Fake ``micropython``, ``machine`` and ``boards.find`` modules go into
``sys.modules`` (this process only; the firmware has no fakes): kbd_intr,
the key pins, the watchdog, reset and the board are recorded in ``LOG``.
Checks: Ctrl-C is off before anything else is imported or built; menu and ok
held at power-on (every sample) give service mode: Ctrl-C back on, SERVICE
on the displays, no board, no watchdog, no reset, main returns (the REPL);
one key, a brushed key or none give play; in play, a crash, a
KeyboardInterrupt or the loop ending reset the Pico and never return to the
REPL. Prints "main: N passed, M failed"; exit 1 on failure.
"""

import sys

import _path

_path.setup(__file__)

LOG = []
HELD = {}  # pin -> list of readings (0 pressed), the last one repeats
TEXT = []  # what the displays were given


class Reset(BaseException):
    """machine.reset(): never returns on the Pico."""


class FakeMicropython:
    @staticmethod
    def kbd_intr(c):
        LOG.append(("kbd", c))

    @staticmethod
    def const(x):
        return x


class FakePin:
    IN = 0
    OUT = 1
    PULL_UP = 1

    def __init__(self, n, mode=0, pull=0, value=None):
        self.n = n

    def value(self, v=None):
        r = HELD.get(self.n, [1])
        LOG.append(("pin", self.n))
        return r.pop(0) if len(r) > 1 else r[0]


class FakeI2C:
    def __init__(self, n, scl=None, sda=None, freq=0):
        LOG.append(("i2c", n))

    def writeto(self, addr, buf, stop=True):
        if len(buf) > 1000:  # a frame, not a command
            TEXT.append(bytes(buf))
        return len(buf)

    def writevto(self, addr, vector, stop=True):
        TEXT.append(bytes(vector[-1]))
        return 1


class FakeMachine:
    Pin = FakePin
    I2C = FakeI2C

    @staticmethod
    def reset():
        LOG.append(("reset",))
        raise Reset()

    @staticmethod
    def WDT(timeout=0):
        LOG.append(("wdt",))


class FakeBoard:
    """Enough of a board for App (boards.find.board() builds it): what happens is in MODE."""

    NAME = "pico"
    MODE = ["crash"]  # noqa: RUF012 - the test sets it

    def __init__(self):
        import framebuf

        LOG.append(("board",))
        if self.MODE[0] == "crash-at-build":
            raise MemoryError("no heap")
        self.left_side = 0
        self.low_battery = False
        self.live_display = False
        self.stopped = False
        self.state_dir = None
        self.board_id = "fake"
        self.fb = tuple(
            framebuf.FrameBuffer(bytearray(1024), 128, 64, framebuf.MONO_VLSB) for _ in (0, 1)
        )
        self.in_arg = self.in_t = 0

    def boot_id(self):
        return "00000000"

    def now(self):
        return 0

    def write_n(self, buf, n):
        return True

    def write(self, data):
        return True

    def feed(self):
        LOG.append(("feed",))

    def pop_input(self):
        return 0

    def start_serial(self, app):
        LOG.append(("serial",))
        mode = self.MODE[0]
        if mode == "crash":
            raise ValueError("a bug")
        if mode == "ctrl-c":
            raise KeyboardInterrupt()
        if mode == "stop":
            self.stopped = True

    async def wait(self, deadline):
        LOG.append(("wait",))
        if self.MODE[0] == "crash-in-loop" and sum(1 for e in LOG if e[0] == "wait") == 3:
            raise ValueError("a bug in the third pass")


class FakeFind:
    @staticmethod
    def board():
        return FakeBoard()


sys.modules["micropython"] = FakeMicropython
sys.modules["machine"] = FakeMachine
sys.modules["boards.find"] = FakeFind

passed = 0
failed = 0


def check(what, ok):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL", what, LOG)


import main  # noqa: E402 - the fakes first

check("kbd_intr(-1) is the first thing main.py does", LOG[:1] == [("kbd", -1)])
check("import builds nothing and runs nothing", LOG == [("kbd", -1)])

from boards import pins  # noqa: E402

MENU = pins.KEY_MENU
OK = pins.KEY_OK


def boot(held, mode="stop"):
    """Power on with ``held`` pin readings; the log of what main() did."""
    del LOG[:]
    del TEXT[:]
    HELD.clear()
    HELD.update(held)
    FakeBoard.MODE[0] = mode
    out = "returned"
    try:
        main.main("rp2")
    except Reset:
        out = "reset"
    except BaseException as e:
        out = "raised %r" % e
    return out, [e[0] for e in LOG if e[0] != "pin"]


# Service mode: both keys held at every sample.
out, log = boot({MENU: [0], OK: [0]})
check("service mode returns to the REPL", out == "returned")
check("service mode: Ctrl-C on again, no board, no watchdog, no reset",
      log == ["kbd", "i2c", "i2c"] and ("kbd", 3) in LOG)  # fmt: skip
drawn = [f for f in TEXT if any(b for b in f[1:])]
check("service mode says SERVICE on both displays", len(drawn) == 2)
check("service mode sampled the keys more than once", sum(1 for e in LOG if e[0] == "pin") >= 10)

# Not service mode: play, and in play never the REPL.
for held, what in (
    ({}, "no key"),
    ({MENU: [0]}, "menu alone"),
    ({OK: [0]}, "ok alone"),
    ({MENU: [0, 0, 1], OK: [0]}, "menu let go while sampled"),
    ({MENU: [0], OK: [0, 0, 0, 0, 1]}, "ok let go at the last sample"),
):
    out, log = boot(held)
    check(what + ": play, the loop ended: reset", out == "reset" and "board" in log)
    check(what + ": Ctrl-C stays off", ("kbd", 3) not in LOG and "kbd" not in log)

for mode in ("crash", "ctrl-c", "crash-at-build"):
    out, log = boot({}, mode)
    check(mode + " in play: reset, never the REPL", out == "reset" and log[-1] == "reset")
    check(mode + ": Ctrl-C stays off", "kbd" not in log)

out, log = boot({}, "crash")
check("a crash before the loop: reset, the watchdog never fed", out == "reset"
      and log[:2] == ["board", "serial"] and "feed" not in log)  # fmt: skip

# #26: the watchdog is fed after every whole pass of the loop, and only then.
out, log = boot({}, "crash-in-loop")
passes = log[log.index("serial") + 1 : -1]
check("the loop fed the watchdog after each pass, then the crash reset it",
      out == "reset" and passes == ["feed", "wait"] * 3 and log[-1] == "reset")  # fmt: skip

print("main: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
