# SPDX-License-Identifier: GPL-3.0-or-later
"""The firmware boots and plays, journal on, in the heap the README states (#12).

The README gives the heap (``micropython -X heapsize=``) at which the
firmware runs, and 8k above it, from source with the power-loss journal on,
whatever the path it is installed at. Before #12 it said 192k while the firmware died
at boot there (MemoryError loading the journal into a fragmented heap) and
needed 224k. This boots it at the README's figure, with a flash image, and
plays a game with a commit at every press.
"""

import os
import re

import pytest

from conftest import ROOT
from qizhong.sim import Sim


def readme_heap_k():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        m = re.search(r"journal on, at `micropython -X heapsize=(\d+)k`", f.read())
    assert m, "the README states no heap figure"
    return int(m.group(1))


@pytest.mark.parametrize("more", [0, 8])
def test_boots_and_plays_with_the_journal_in_the_readme_heap(tmp_path, more):
    k = readme_heap_k() + more  # the README's two sizes
    # 208k until #31 (its keys, per-side increments and upcount stage): the menu's
    # test after a game then failed at 208k in 3 of 5 runs at one path (README)
    assert k - more <= 212, "the heap went up: bring it down, or say so"
    with Sim(flash=str(tmp_path / "flash.img"), options=("-X", "heapsize=%dk" % k)) as sim:
        sim.command("config 15m+10s")
        sim.key("start", 0)
        for i in range(40):
            sim.press(i % 2, 1000 * (i + 1))
        st = sim.status()
        assert st["state"] == "running" and st["moves0"] + st["moves1"] == 40
        assert "commits=" in sim.command("journal")
        sim.power_cut()  # and it comes back in that heap, from the journal
        assert sim.status()["state"] == "paused"
