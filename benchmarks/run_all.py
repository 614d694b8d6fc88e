# SPDX-License-Identifier: GPL-3.0-or-later
"""`make bench`: every benchmark, numbers printed, nothing judged."""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.dirname(sys.executable)


def run(cmd):
    print("$ " + " ".join(os.path.relpath(c) if os.path.exists(c) else c for c in cmd))
    sys.stdout.flush()
    subprocess.run(cmd, check=True)


def main():
    game = os.path.join(HERE, "core_game.py")
    run([sys.executable, game])
    run([os.path.join(BIN, "micropython"), game])
    # every other benchmark, on CPython (``_NAME.py``: what they share, not one)
    for name in sorted(os.listdir(HERE)):
        if (
            name.endswith(".py")
            and not name.startswith("_")
            and name not in ("core_game.py", "run_all.py")
        ):
            run([sys.executable, os.path.join(HERE, name)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
