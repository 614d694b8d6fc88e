# SPDX-License-Identifier: GPL-3.0-or-later
"""The firmware on the simulated board: heap, allocation, speed (numbers only).

    .venv/bin/python benchmarks/firmware.py

- heap in use after boot (from source, and compiled with mpy-cross);
- bytes allocated per virtual second while a clock runs (no presses), and per
  press, GC held off during the measurement; the sim board's own line
  parsing is included, so these are upper bounds for the Pico;
- wall time of a 2-hour game in virtual time, through the pty and the world link;
- the lowest heap (``micropython -X heapsize=``) it boots and plays in with
  the journal on, from source and compiled (tests/test_heap_boot.py checks
  the README's figure);
- a scan over heap sizes and install-path lengths, from source: at each, does
  it boot and play, and does the setup menu open and set the clock after each
  of three games (tests/test_menu.py checks the README's heap at three lengths).
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "host"))

from qizhong.clocks.link import PortBusy  # noqa: E402
from qizhong.sim import Sim, SimError, micropython_path  # noqa: E402


def mpy_firmware(dest):
    """firmware/ with every module but main.py compiled by mpy-cross."""
    cross = os.path.join(os.path.dirname(micropython_path()), "mpy-cross")
    src = os.path.join(ROOT, "firmware")
    for folder, _, files in os.walk(src):
        rel = os.path.relpath(folder, src)
        os.makedirs(os.path.join(dest, rel), exist_ok=True)
        for name in files:
            path = os.path.join(folder, name)
            if name.endswith(".py") and name != "main.py":
                out = os.path.join(dest, rel, name[:-3] + ".mpy")
                subprocess.run([cross, "-o", out, path], check=True)
            elif name == "main.py":
                shutil.copy(path, os.path.join(dest, rel, name))
    return dest


def mem(sim, how=""):
    return int(sim.command(("mem " + how).strip()).split()[2])


def boot_heap(firmware=None):
    with Sim(firmware=firmware) as sim:
        return mem(sim, "collect")


def steady_allocation():
    with Sim() as sim:
        sim.command("config 90m+30s")
        sim.key("start", 0)
        sim.run_to(1000)
        mem(sim, "collect")
        mem(sim, "hold")
        a0 = mem(sim)
        base = mem(sim) - a0  # what one mem command itself costs
        sim.at(61000)  # one minute of running, one world step
        a1 = mem(sim)
        per_minute = a1 - a0 - base
        t = 61000
        p0 = mem(sim)
        for i in range(10):
            t += 5000
            sim.press(i % 2, t)
        sim.run_to(t + 100)
        p1 = mem(sim)
        mem(sim, "release")
        return per_minute / 60.0, (p1 - p0 - base) / 10.0


def two_hour_game():
    start = time.perf_counter()
    with Sim() as sim:
        sim.command("config 50m byoyomi 5x60s")
        sim.key("start", 0)
        t = 0
        for i in range(120):
            t += 59000 + (i * 7919) % 2000
            sim.press(i % 2, t)
        sim.run_to(2 * 3600 * 1000)
        cues = len(sim.cues)
    return time.perf_counter() - start, cues


def plays(size_k, firmware=None, journal=True):
    """True if the firmware boots and plays a 40-move game (journal on: a
    flash image, a commit at every press) in ``-X heapsize=SIZE_K``k."""
    with tempfile.TemporaryDirectory() as d:
        image = os.path.join(d, "flash.img") if journal else None
        try:
            with Sim(
                firmware=firmware, flash=image, options=("-X", "heapsize=%dk" % size_k)
            ) as sim:
                sim.command("config 15m+10s")
                sim.key("start", 0)
                for i in range(40):
                    sim.press(i % 2, 1000 * (i + 1))
                return sim.status()["state"] == "running"
        except SimError:
            return False


def lowest_heap(firmware=None, start=96, stop=320, step=8, above=4):
    """The lowest heap (KB, in ``step``s) from which it plays at every size up
    to ``above`` steps higher: fragmentation makes single sizes unreliable."""
    ok = [k for k in range(start, stop, step) if plays(k, firmware)]
    for k in ok:
        if all(k + i * step in ok for i in range(above + 1)):
            return k
    return -1


def menu_after_games(size_k, path_len, games=3):
    """How many of ``games`` flagged games were followed by a setup menu that
    opened and set the clock, with the firmware from source installed at a
    path ``path_len`` characters long to ``firmware/``; -1: it did not boot
    or died."""
    with tempfile.TemporaryDirectory(prefix="q", dir="/tmp", ignore_cleanup_errors=True) as base:
        pad = path_len - len(base) - len("/p/firmware") + 1
        if pad < 1:
            raise ValueError("path length %d: the shortest here is %d" % (path_len, len(base) + 11))
        fw = os.path.join(base, "p" * pad, "firmware")
        shutil.copytree(
            os.path.join(ROOT, "firmware"), fw, ignore=shutil.ignore_patterns("__pycache__")
        )
        opened = 0
        try:
            with Sim(
                firmware=fw,
                flash=os.path.join(base, "flash.img"),
                options=("-X", "heapsize=%dk" % size_k),
            ) as sim:
                t = 0
                for _ in range(games):
                    sim.command("config 1m+1s")
                    sim.key("start", t)
                    for i in range(40):
                        sim.press(i % 2, t + 1000 * (i + 1))
                    t += 400000  # both flagged long before
                    for key in ("menu", "plus", "start"):  # the next game's first preset
                        t += 100
                        sim.key(key, t)
                    opened += sim.command("tc") != "ok tc 1m+1s"
                    t += 1000
        except SimError:
            return -1
        return opened


def _retrying(f, *args):
    """``f(*args)``, tried again while another program holds the pty just
    handed out (a stale lock of a killed simulator's port; qizhong.clocks.link)."""
    for _ in range(30):
        try:
            return f(*args)
        except PortBusy:
            time.sleep(1)
    return f(*args)


def heap_scan(sizes=range(200, 221, 4), lengths=range(28, 95, 6), games=3):
    """Print a table: a row a heap size, a column an install-path length;
    each cell the games after which the menu opened (of ``games``), X: it did
    not boot, or died."""
    print("setup menu after %d games, from source: opened of %d, X died" % (games, games))
    print("heap  path: " + " ".join("%3d" % n for n in lengths))
    for k in sizes:
        cells = []
        for n in lengths:
            r = _retrying(menu_after_games, k, n, games)
            cells.append("  X" if r < 0 else "%3d" % r)
        print("%3dk       " % k + " ".join(cells), flush=True)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        compiled = mpy_firmware(tmp)
        print("heap in use after boot, from source:      %6d bytes" % boot_heap())
        print("heap in use after boot, mpy-cross build:  %6d bytes" % boot_heap(compiled))
        per_s, per_press = steady_allocation()
        print("allocated per second, clock running:      %8.1f bytes (GC held)" % per_s)
        print("allocated per press (event line + sim):   %8.1f bytes" % per_press)
        wall, cues = two_hour_game()
        print("2-hour byo-yomi game, 120 moves, %d cues:  %.2f s wall" % (cues, wall))
        print(
            "lowest heap, journal on, boots and plays:  %d KB from source, %d KB mpy-cross build"
            " (64-bit unix port)" % (lowest_heap(None), lowest_heap(compiled))
        )
    heap_scan()


if __name__ == "__main__":
    main()
