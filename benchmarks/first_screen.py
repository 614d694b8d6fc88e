# SPDX-License-Identifier: GPL-3.0-or-later
"""`make sim` on a fresh clone: seconds until its first screen, and the venv's size.

A fresh clone of this repository in a temporary folder, `make sim` on a pty
with pip's cache off (PIP_NO_CACHE_DIR=1: every package comes from the
index), timed until the clock's first screen is drawn. Printed: wall time,
the CPU time of the set-up (which the machine's load does not stretch), the
load average, and the size of .venv. Nothing judged.
"""

import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIMIT_S = 600.0


def main() -> int:
    tmp = tempfile.mkdtemp(prefix="qizhong-fresh-")
    try:
        clone = os.path.join(tmp, "qizhong")
        subprocess.run(["git", "clone", "-q", ROOT, clone], check=True)
        env = dict(os.environ, PIP_NO_CACHE_DIR="1")
        env.pop("VIRTUAL_ENV", None)
        master, slave = os.openpty()
        t0 = time.monotonic()
        before = os.times()
        proc = subprocess.Popen(
            ["make", "sim"], cwd=clone, stdin=slave, stdout=slave, stderr=slave, env=env
        )
        os.close(slave)
        out = b""
        while b"IDLE" not in out and time.monotonic() - t0 < LIMIT_S:
            r, _, _ = select.select([master], [], [], 1.0)
            if r:
                try:
                    out += os.read(master, 65536)
                except OSError:
                    break
        wall = time.monotonic() - t0
        os.write(master, b"q")
        proc.wait(timeout=60)
        after = os.times()
        os.close(master)
        cpu = (after.children_user - before.children_user) + (
            after.children_system - before.children_system
        )
        size = subprocess.run(
            ["du", "-sm", os.path.join(clone, ".venv")], capture_output=True, text=True
        ).stdout.split()[0]
        shown = b"IDLE" in out
        print(
            "make sim, fresh clone, no pip cache: first screen %s after %.1f s wall "
            "(set-up and run: %.1f s CPU; load average %.1f); .venv %s MB"
            % ("shown" if shown else "NOT shown", wall, cpu, os.getloadavg()[0], size)
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
