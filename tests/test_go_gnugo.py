# SPDX-License-Identifier: GPL-3.0-or-later
"""An independent check of the Go engine against GNU Go (Debian's gnugo) over GTP.

The comparison is benchmarks/go_gnugo.py's (its docstring says exactly what is
compared and why); here on a few seeded games, with larger runs there. GNU Go
must be installed: CI installs it in .ci/run, and a missing gnugo fails here.
"""

from __future__ import annotations

import os
import sys

import pytest

from qizhong.rules import go

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

import go_gnugo  # noqa: E402


@pytest.fixture(scope="module")
def gnugo() -> str:
    exe = go_gnugo.find_gnugo()
    if exe is None:
        pytest.fail(go_gnugo.GNUGO_MISSING)
    return exe


def test_gtp_and_score_plumbing(gnugo):
    """A position counted by hand, so the comparison below cannot agree vacuously."""
    moves = [m for r in range(1, 10) for m in ("D%d" % r, "E%d" % r)] + ["pass", "pass"]
    gtp = go_gnugo.Gtp(gnugo, 9, go.KOMI)
    try:
        for k, m in enumerate(moves):
            gtp.ask("play %s %s" % ("BW"[k % 2], m))
        # Black walls off A-D (36 points), White E-J (45): 36 - 45 - 7.5.
        assert gtp.ask("final_status_list dead") == ""
        assert gtp.ask("final_score") == "W+16.5"
        assert gtp.ask("is_legal B D5") == "0"
        with pytest.raises(go_gnugo.GtpError):
            gtp.ask("play B D5")
    finally:
        gtp.close()
    b = go.Board(9)
    for m in moves:
        b.push_gtp(m)
    assert b.score().sgf() == "W+16.5"


def test_agrees_with_gnugo_on_random_9x9_games(gnugo):
    rep = go_gnugo.compare(20, size=9, seed=21, exe=gnugo)
    assert rep.disagreements == []
    # The games exercised every rule compared: captures, suicide, ko and longer cycles.
    assert rep.games == 20 and rep.captures > 500 and rep.checked > 50000
    assert rep.refused["SUICIDE"] > 0
    assert rep.refused["SUPERKO (simple ko)"] > 0
    assert rep.refused["SUPERKO (longer cycle)"] > 0
    assert rep.scored >= 15  # the rest had stones GNU Go calls dead: not compared


def test_agrees_with_gnugo_on_13x13(gnugo):
    rep = go_gnugo.compare(2, size=13, seed=1, exe=gnugo)
    assert rep.disagreements == [] and rep.moves > 300 and rep.scored >= 1
