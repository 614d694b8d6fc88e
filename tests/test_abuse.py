# SPDX-License-Identifier: GPL-3.0-or-later
"""Abuse (issue #8): levers (chatter, both at once, held (EQ-3), presses while
paused, knocked (EQ-5) or flagged, floods), fuzzed frames, unplug cycles and a
virtual soak, on the real firmware on the simulated board. The long runs are
benchmarks/fuzz.py, unplug.py and soak.py; these are their short versions."""

import os
import random
import sys

import pytest

from conftest import ROOT
from qizhong.clocks.driver import Clock
from qizhong.core import clock as C
from qizhong.sim import Sim

sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

import fuzz
import soak
import unplug

RUNNING, PAUSED, KNOCKED, FLAGGED = C.RUNNING, C.PAUSED, C.KNOCKED, C.FLAGGED


def events(sim: Sim, *names: str) -> list[tuple[str, int, int, int]]:
    sim.status()
    return [e for e in sim.events if not names or e[0] in names]


def game(spec: str = "10m+5s") -> Sim:
    """Red's lever on the left; Black's press at 1000 starts Red's clock."""
    sim = Sim()
    sim.command("config " + spec)
    sim.command("levers red")
    sim.press(1, 1000)
    return sim


def edges(sim: Sim, lever: int, pattern: list[tuple[int, bool]]) -> None:
    for t, down in pattern:
        sim.run_to(t)
        sim.lever(lever, down, t)


# -- levers ---------------------------------------------------------------------------------


def test_chatter_is_one_press_at_its_first_edge():
    with game() as sim:
        bounce = [(6000, True), (6001, False), (6003, True), (6006, False), (6011, True)]
        bounce += [(6100, False), (6102, True), (6105, False)]  # the release chatters too
        edges(sim, 0, bounce)
        edges(sim, 1, [(9000, True), (9004, False), (9007, True), (9200, False)])
        sim.run_to(12000)
        got = events(sim, "press", "wrong", "start")
        assert got == [
            ("start", 0, 1000, 0),
            ("press", 0, 6000, 600000),  # 10 min - 5 s + 5 s
            ("press", 1, 9000, 602000),  # 10 min - 3 s + 5 s
        ]
        st = sim.status()
        assert (st["left0"], st["left1"]) == (600000 - 3000, 602000)


def test_both_levers_at_once_each_accounted():
    """The running side's press switches; the other lever's, in the same
    millisecond, is then its own press (it has become its turn)."""
    with game() as sim:
        sim.run_to(4000)
        sim.lever(0, True, 4000)  # Red, running
        sim.lever(1, True, 4000)  # Black, the same ms: now its move, 0 ms used
        sim.run_to(4100)
        sim.lever(0, False, 4100)
        sim.lever(1, False, 4100)
        sim.lever(1, True, 7000)  # Black's lever first, not Black's turn: wrong
        sim.lever(0, True, 7000)
        sim.run_to(7100)
        got = events(sim, "press", "wrong")
        assert got == [
            ("press", 0, 4000, 600000 - 3000 + 5000),
            ("press", 1, 4000, 600000 + 5000),
            ("wrong", 1, 7000, RUNNING),
            ("press", 0, 7000, 602000 - 3000 + 5000),
        ]


def test_a_held_lever_is_reported_once_and_charged_right():
    with game() as sim:
        sim.press(0, 5000, hold=6500)  # Red rests a finger on the lever (EQ-3)
        sim.run_to(20000)
        sim.press(1, 20000, hold=2000)  # exactly HOLD_MS: reported at the release instant
        sim.run_to(30000)
        assert events(sim, "held") == [("held", 0, 7000, 2000), ("held", 1, 22000, 2000)]
        st = sim.status()
        assert (st["left0"], st["left1"]) == (601000 - 10000, 600000 - 15000 + 5000)


@pytest.mark.parametrize("how", ["paused", "knocked", "flagged"])
def test_presses_when_not_running_change_nothing(how):
    with game("1m flag freeze" if how == "flagged" else "10m") as sim:
        sim.press(0, 3000)
        if how == "paused":
            sim.key("start", 4000)
        elif how == "knocked":
            sim.tilt(4000)
        else:
            sim.run_to(64000)  # Black flags at 3000 + 60000
        before = sim.status()
        t = 70000
        for i in range(40):
            sim.press(i % 2, t, hold=30)
            t += 37 * (i % 3) + 25
        sim.run_to(t + 1000)
        after = sim.status()
        for k in ("left0", "left1", "moves0", "moves1", "state", "run"):
            assert after[k] == before[k], k
        state = {"paused": PAUSED, "knocked": KNOCKED, "flagged": FLAGGED}[how]
        wrong = events(sim, "wrong")
        assert len(wrong) == 40 and {e[3] for e in wrong} == {state}
        if how == "flagged":
            assert events(sim, "flag") == [("flag", 1, 63000, 1)]
        if how == "knocked":  # EQ-5: the arbiter names the left player; Black gets 60 s
            sim.key("plus", t + 2000)
            sim.key("start", t + 3000)
            sim.run_to(t + 5000)
            st = sim.status()
            assert (st["left0"], st["left1"]) == (before["left0"], before["left1"] + 60000 - 2000)


def test_a_flood_of_edges_matches_the_model_and_every_press_is_accounted():
    """Thousands of random edges on both levers, many inside the bounce window
    or in the same millisecond, with keys and tilts among them."""
    rng = random.Random(5)
    with Sim() as sim:
        n = soak.Counts()
        model = soak.Model()
        d = soak.Driver(sim, Clock(sim.link), model, n)
        d.command(0, "config 3m+2s byoyomi 2x10s")
        level = [False, False]
        t = 1000
        for j in range(3000):
            if j % 20 == 0:
                d.poll()  # the host reads as it goes (the clock keeps 256 events)
            t += rng.choice((0, 0, 1, 3, 7, 15, 19, 20, 21, 45, 300, 2500))
            k = rng.random()
            if k < 0.96:
                i = rng.randrange(2)
                level[i] = not level[i]
                d.edge(i, level[i], t)
                d.to(t)
            elif k < 0.99:
                d.key(rng.choice(("start", "plus", "minus")), t)
            else:
                d.tilt(t)
        d.to(t + 5000)
        d.finish()
        assert (n.mismatched, n.lost, n.duplicated, n.drift_ms) == (0, 0, 0, 0)
        assert n.events > 1000
        lever_events = [e for e in d.got if e.name in ("press", "wrong")]
        assert len(lever_events) + model.lever_starts == model.downs > 500


# -- the serial link ----------------------------------------------------------------------------


def test_fuzzed_frames_all_answered_none_taken_and_time_exact():
    n = fuzz.fuzz(5000, seed=11)
    assert n.units == 5000 and n.frames > 1500
    assert set(n.frame_errors) == {"bad-byte", "crc", "too-long", "truncated"}
    assert n.unanswered == 0, "a frame without its answer"
    assert n.taken == 0, "a fuzzed change was run"
    assert {"err auth tag", "err auth required", "err auth replay"} <= set(n.answers)
    assert n.time_diff_ms == 0 and n.state_same
    assert n.events > 40 and n.event_diffs == 0


def test_unplug_cycles_lose_and_duplicate_no_event():
    n = unplug.cycles(100, seed=4)
    assert n.abuse["port opens"] == 101
    assert n.events > 150
    assert (n.lost, n.duplicated, n.mismatched, n.disagreed, n.drift_ms) == (0, 0, 0, 0, 0)


def test_two_hour_soak_has_no_drift_and_loses_nothing():
    n = soak.soak(hours=2, seed=7)
    assert n.virtual_ms >= 2 * 3600000
    assert n.presses > 200 and n.games >= 2 and n.unplugs >= 1
    kinds = {"chatter", "both levers", "held lever", "wrong lever", "pause", "knock", "penalty"}
    assert kinds <= set(n.abuse)
    assert (n.lost, n.duplicated, n.mismatched, n.disagreed, n.drift_ms) == (0, 0, 0, 0, 0)
