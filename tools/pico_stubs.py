# SPDX-License-Identifier: GPL-3.0-or-later
"""Link the Pico stub modules into one folder for mypy's MYPYPATH.

The stub package installs bare ``machine.pyi``-style files into site-packages,
which mypy does not search, and site-packages itself may not be on MYPYPATH.
Usage: python tools/pico_stubs.py DEST  (prints the typeshed dir to use).
"""

import os
import sys
from importlib import metadata


def main(dest: str) -> int:
    os.makedirs(dest, exist_ok=True)
    files = []
    for name in ("micropython-rp2-rpi-pico-stubs", "micropython-stdlib-stubs"):
        files += metadata.distribution(name).files or []
    for f in files:
        if not str(f).endswith(".pyi") or str(f).startswith("stdlib/"):
            continue
        src = os.path.abspath(str(f.locate()))
        out = os.path.join(dest, str(f))
        os.makedirs(os.path.dirname(out), exist_ok=True)
        if not os.path.lexists(out):
            os.symlink(src, out)
    stdlib = metadata.distribution("micropython-stdlib-stubs")
    print(os.path.abspath(str(stdlib.locate_file(""))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
