# SPDX-License-Identifier: GPL-3.0-or-later
"""boards/i2cbus.py on MicroPython's unix port, against a fake bus (#29).

    micropython tests/mp/bus_check.py FAKE_DIR

The fake ``machine`` (written into FAKE_DIR, first on sys.path for this
process only) models the two wires of an I2C bus as open-drain lines with
pull-ups: a line is low while anyone drives it low. A stuck device holds SDA
low until it has seen a number of SCL clocks (rising edges), or forever. The
checks run ``i2cbus.clear`` against it and read the wires' history: how many
clocks it gave, whether it ended with a STOP (SDA rising while SCL is high)
and both lines released. Prints "bus: N passed, M failed"; exit 1 on failure.
"""

import sys

import _path

_path.setup(__file__)

FAKE_MACHINE = '''
"""Fake machine for tests/mp/bus_check.py: open-drain wires and a stuck device."""

SCL, SDA = 1, 0
LOW = {SCL: False, SDA: False}  # the master's drive of each wire
DEVICE = {"clocks": 0, "hold": 0}  # SDA held low until this many SCL rises (-1: forever)
HISTORY = []  # (scl, sda) after every change


def level(n):
    if LOW[n]:
        return 0
    hold = DEVICE["hold"]
    if n == SDA and hold != 0 and (hold < 0 or DEVICE["clocks"] < hold):
        return 0
    return 1


def stuck(clocks):
    DEVICE["clocks"] = 0
    DEVICE["hold"] = clocks
    LOW[SCL] = LOW[SDA] = False
    HISTORY.clear()


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2

    def __init__(self, id, mode=-1, pull=-1, value=None):
        assert mode == Pin.OPEN_DRAIN, "the bus is driven open-drain only"
        self.id = id
        if value is not None:
            self.value(value)

    def value(self, v=None):
        if v is None:
            return level(self.id)
        before = level(SCL)
        LOW[self.id] = not v
        if self.id == SCL and not before and level(SCL):
            DEVICE["clocks"] += 1
        HISTORY.append((level(SCL), level(SDA)))
'''


def install(folder):
    with open(folder + "/machine.py", "w") as f:
        f.write(FAKE_MACHINE)
    sys.path.insert(0, folder)


def clocks(history):
    """SCL rising edges in a wire history."""
    n = 0
    for k in range(1, len(history)):
        if history[k][0] and not history[k - 1][0]:
            n += 1
    return n


def ends_with_stop(history):
    """The last change is SDA rising while SCL is high, and both are high."""
    a, b = history[-2], history[-1]
    return a == (1, 0) and b == (1, 1)


def check_a_free_bus_gets_only_a_stop():
    import machine
    from boards import i2cbus

    machine.stuck(0)
    assert i2cbus.clear(machine.SCL, machine.SDA)
    assert clocks(machine.HISTORY) == 1  # the STOP's own SCL rise, no recovery clocks
    assert ends_with_stop(machine.HISTORY)


def check_a_device_stuck_mid_byte_is_clocked_free():
    import machine
    from boards import i2cbus

    for hold in range(1, 10):  # the device wants 1 to 9 more clocks
        machine.stuck(hold)
        assert i2cbus.clear(machine.SCL, machine.SDA), hold
        assert clocks(machine.HISTORY) == hold + 1, (hold, clocks(machine.HISTORY))
        assert ends_with_stop(machine.HISTORY), hold


def check_a_device_stuck_for_good_gets_nine_clocks_and_is_reported():
    import machine
    from boards import i2cbus

    machine.stuck(-1)
    assert not i2cbus.clear(machine.SCL, machine.SDA)
    assert clocks(machine.HISTORY) == 9 + 1  # nine (UM10204 3.1.16), then the STOP's
    assert machine.HISTORY[-1][0] == 1 and not machine.LOW[machine.SDA]  # the master let go


def check_watch_resets_after_repeated_failures():
    from boards import i2cbus

    w = i2cbus.Watch()
    hold = i2cbus.RESET_MS
    assert not w.failed(0, 0) and not w.failed(0, 10), "never answered: absent, not hung"
    w.ok(0)
    w.ok(1)
    got = [w.failed(0, t) for t in (0, 10, hold + 20, hold + 30)]
    assert got == [False, True, False, True], got
    assert w.resets == 2
    # failures in a row, but within RESET_MS of the last reset: no reset yet
    assert not w.failed(1, hold + 40) and not w.failed(1, hold + 50)
    assert w.failed(1, 2 * hold + 30)
    w.ok(1)
    w.ok(0)
    assert w.fails == [0, 0]


CHECKS = [
    check_a_free_bus_gets_only_a_stop,
    check_a_device_stuck_mid_byte_is_clocked_free,
    check_a_device_stuck_for_good_gets_nine_clocks_and_is_reported,
    check_watch_resets_after_repeated_failures,
]


def main():
    install(sys.argv[1] if len(sys.argv) > 1 else "/tmp/qizhong-bus-fake")
    passed = failed = 0
    for check in CHECKS:
        try:
            check()
            passed += 1
        except Exception as e:
            failed += 1
            print("FAIL %s: %s %r" % (check.__name__, type(e).__name__, e))
    print("bus: %d passed, %d failed" % (passed, failed))
    if failed:
        sys.exit(1)


main()
