# SPDX-License-Identifier: GPL-3.0-or-later
"""Build the Pico's flash bundle (`make firmware`), and optionally upload it (`make flash`).

    python tools/build_firmware.py [--out DIR] [--port PORT]

Without --port: build into build/firmware/ and print the sizes. With --port:
build, then copy it onto the Pico with mpremote (host/qizhong/clocks/flash.py).
Exit 0 done, 1 failed (does not build, does not fit, upload failed).
"""

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "host"))

from qizhong.clocks import flash  # noqa: E402


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=os.path.join(ROOT, "build", "firmware"))
    p.add_argument("--port", default="", help="upload to this serial port, e.g. /dev/ttyACM0")
    args = p.parse_args(argv)
    return flash.main_flash(args.port or None, build_only=not args.port, out_dir=args.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
