# SPDX-License-Identifier: GPL-3.0-or-later
"""#22: the battery board's energy record and model (docs/power.md).

The real firmware runs on the simulated battery board in virtual time,
stepping deadline by deadline as its loop sleeps; the model of
host/qizhong/sim/energy.py turns its record into hours on 2xAA alkaline.
The 4-hour day without counting must stay at 2,000 h or more
(``make bench``: benchmarks/energy.py plays the whole days)."""

import pytest

from qizhong.sim import energy as E

GOAL_H = 2000


@pytest.fixture
def sim(tmp_path):
    with E.battery_sim(str(tmp_path / "flash.img")) as s:
        yield s


def test_a_rapid_game_without_counting_keeps_the_goal(sim):
    # Running play is the dearest part of the no-counting day (no pauses
    # between games here), so this bounds the day from below.
    n = len(sim.sleeps)
    u = E.measure(sim, [("15m+10s", [25_000] * 24)])
    assert u.ms >= 600_000 and u.cues == 0
    assert u.wakes * 1000 // u.ms <= 2  # about one wake a second: the digits, the journal
    assert u.frames and u.bus_bytes == u.frames * 25  # segment frames, only those that changed
    assert u.flash_progs  # the journal's saves are charged
    woke = sim.sleeps[n:]
    assert len(woke) == u.wakes  # every wake, with its sleep, is on the record
    assert sum(ms for _, ms in woke) == u.ms  # and virtual time is all sleep
    assert E.MODEL.hours(u) >= GOAL_H, E.MODEL.average_ua(u)


def test_a_paused_clock_sleeps_until_its_cell_reading(sim):
    sim.command("start")
    sim.command("pause")
    since, t0 = sim.power(), sim.now
    sim.run_to(t0 + 10 * 60_000)
    u = E.Usage.of(sim, since, t0, len(sim.cues), len(sim.beeps))
    assert u.wakes <= 21  # two a minute for the cells (divider on, read), nothing else
    assert u.frames == 0
    assert E.MODEL.average_ua(u) < E.MODEL.floor_ua + 10


def test_counting_is_charged_by_its_cues(sim):
    quiet = E.measure(sim, [("1m count 10s", [30_000] * 2 + [2_000] * 10)])
    loud = E.measure(sim, [("1m count 10s", [30_000] * 2 + [7_000] * 10)])
    assert quiet.cues < loud.cues  # TC-5: "1" ... "7" each move
    assert loud.cue_ms >= loud.cues * 200
    assert E.MODEL.average_ua(loud) > E.MODEL.average_ua(quiet)


def test_the_oled_board_would_miss_the_goal():
    # The model is not built to pass: the same record with OLED frames on the
    # bus and tenths refreshed 10 times a second is far below it.
    u = E.Usage(ms=600_000, wakes=6000, frames=1200, bus_bytes=1200 * 1026)
    assert E.MODEL.hours(u) < GOAL_H
