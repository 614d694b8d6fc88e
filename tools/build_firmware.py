# SPDX-License-Identifier: GPL-3.0-or-later
"""Build the Pico's flash bundle (`make firmware`), and optionally upload it (`make flash`).

    python tools/build_firmware.py [--out DIR] [--port PORT]

Without --port: build into build/firmware/ and print the sizes. With --port:
build, then copy it onto the Pico with mpremote (host/qizhong/clocks/flash.py).
Exit 0 done, 1 failed (does not build, does not fit, upload failed, or the
Pico board's I2C_HZ cannot carry both displays' frames: boards/i2crate.py).
"""

import argparse
import importlib.util
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "host"))

from qizhong.clocks import flash  # noqa: E402


def i2c_problem(firmware=""):
    """Why the bundle's I2C_HZ (boards/pico.py) cannot drive the displays, or ""."""
    firmware = firmware or os.path.join(ROOT, "firmware")
    with open(os.path.join(firmware, "boards", "pico.py"), encoding="utf-8") as f:
        m = re.search(r"^I2C_HZ = const\(([0-9_]+)\)", f.read(), re.M)
    if m is None:
        return "boards/pico.py: no I2C_HZ = const(N) line"
    spec = importlib.util.spec_from_file_location(
        "i2crate", os.path.join(firmware, "boards", "i2crate.py")
    )
    rate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rate)
    return rate.check(int(m.group(1).replace("_", "")))


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=os.path.join(ROOT, "build", "firmware"))
    p.add_argument("--port", default="", help="upload to this serial port, e.g. /dev/ttyACM0")
    args = p.parse_args(argv)
    why = i2c_problem()
    if why:
        print("build_firmware: refused: %s (boards/pico.py)" % why, file=sys.stderr)
        return 1
    return flash.main_flash(args.port or None, build_only=not args.port, out_dir=args.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
