# SPDX-License-Identifier: GPL-3.0-or-later
"""A console always resumes (#26 items 1 and 2): after an XQ-R19 foul, after a
result taken back, and after a SIGKILL at any instant, in every game
(benchmarks/console_kills.py; ``make bench`` runs many more seeds). The real
firmware on the simulated board, in virtual time."""

import os
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import console_kills as ck

from qizhong.sim import Sim


def test_an_xq_r19_foul_is_replayed_by_every_later_console(tmp_path):
    """XQ-R19 puts the clock back (``load``); a resumed console used to take
    every journaled press as one made while nobody watched, so the replay
    skipped the ruling and stopped: 'the journal has status where the session
    asks events'. A new --out resumed the same way."""
    with Sim(open_link=False) as sim:
        run = ck.Run("xiangqi", str(tmp_path), sim)
        clock, con, _ = run.open("--out", run.out)
        for kind, arg in ck.steps(["start", ("炮二平五", 0), ("press", 1), ("马8进7", 1)]):
            run.step(con, kind, arg)
        assert con.session.fouls == [0, 1], run.said
        want = ck.state(con)
        con.handle("quit")
        con.close()
        clock.close()
        for argv in ((), ("--out", str(tmp_path / "new.pgn"))):
            clock, con, lines = run.open(*argv)
            assert lines[0].startswith("   resumed from %s.journal: 2 moves, fouls 0-1" % run.out)
            assert ck.state(con) == want
            con.close()
            clock.close()


def test_a_draw_taken_back_is_resumed_by_a_bare_console(tmp_path):
    """`draw` then `unrule`: the game is paused, to go on. The next console
    said 'the clock is in a game (paused): finish that game first'."""
    with Sim(open_link=False) as sim:
        run = ck.Run("xiangqi", str(tmp_path), sim)
        clock, con, _ = run.open("--out", run.out)
        for kind, arg in ck.steps(["start", ("炮二平五", 0), "draw", "unrule"]):
            run.step(con, kind, arg)
        assert not con.session.over, run.said
        con.close()
        clock.close()
        clock, con, lines = run.open()
        assert lines == ["   resumed from %s.journal: 1 moves" % run.out]
        assert not con.session.over and con.handle("resume")[-1].startswith("   play resumes")
        con.close()
        clock.close()


@pytest.mark.parametrize("game", sorted(ck.GAMES))
def test_a_console_killed_at_random_instants_always_resumes(game, tmp_path, monkeypatch):
    """Every action an arbiter takes in the game (ck.XIANGQI, ck.CHESS, ck.GO),
    the console killed 6 times at random bytes of its journal: each bare
    console resumes the session as it stood before the action it died in or
    after it, and the game ends with the script's moves and result."""
    monkeypatch.chdir(tmp_path)
    kills, _, end = ck.one(game, 26, 6, str(tmp_path), mean=600)
    assert kills == 6
    assert end == ck.expected(game)
