# SPDX-License-Identifier: GPL-3.0-or-later
"""Voice schedules: TC-5 count, TC-6a and TC-6b readings."""

import pytest

from qizhong.core import voice
from qizhong.core.voice import LEFT, MIN1, SEC


def test_tc5_count_speaks_each_whole_second():
    assert voice.count_table(10000) == tuple((k * 1000, k) for k in range(1, 11))


def test_tc5_short_count_counts_its_seconds():
    assert voice.count_table(5000) == tuple((k * 1000, k) for k in range(1, 6))


def test_tc5_long_count_counts_the_last_ten_seconds():
    # Interpretation (documented): for P > 10 s the digits count the last 10 s.
    assert voice.count_table(30000) == tuple((20000 + k * 1000, k) for k in range(1, 11))


def test_tc6a_readings_before_the_last_period():
    table = voice.byoyomi_table(60000, last=False)
    assert table == (
        (30000, SEC + 30),
        (40000, SEC + 40),
        (50000, SEC + 50),
        (55000, SEC + 55),
        (58000, SEC + 58),
        (60000, MIN1),
        (60000, LEFT),
    )


def test_tc6a_readings_in_the_last_period():
    table = voice.byoyomi_table(60000, last=True)
    assert table[:3] == ((30000, SEC + 30), (40000, SEC + 40), (50000, SEC + 50))
    assert table[3:] == tuple((50000 + k * 1000, k) for k in range(1, 11))


@pytest.mark.parametrize(
    "period, calls, count_from",
    [
        (30000, [(10000, SEC + 10)], 20000),  # TC-6b: 10 s said (20 s remain), then 1..10
        (20000, [], 10000),  # at 10 s only 10 remain: count only
        (10000, [], 0),  # "for P = 10: only the count"
        (45000, [(10000, SEC + 10), (20000, SEC + 20), (30000, SEC + 30)], 35000),
    ],
)
def test_tc6b_short_periods(period, calls, count_from):
    for last in (False, True):
        table = voice.byoyomi_table(period, last)
        assert list(table[: len(calls)]) == calls
        assert table[len(calls) :] == tuple((count_from + k * 1000, k) for k in range(1, 11))


def test_tables_are_sorted_and_within_the_period():
    for period in (10000, 20000, 30000, 60000, 90000):
        for last in (False, True):
            dues = [d for d, _ in voice.byoyomi_table(period, last)]
            assert dues == sorted(dues) and dues[-1] == period and dues[0] > 0


@pytest.mark.parametrize(
    "cue, text, asset",
    [
        (1, "1", "n1"),
        (10, "10", "n10"),
        (SEC + 30, "30秒", "s30"),
        (SEC + 58, "58秒", "s58"),
        (MIN1, "1分", "m1"),
        (LEFT + 3, "还剩 3 分", "r3"),
    ],
)
def test_cue_names(cue, text, asset):
    assert voice.cue_text(cue) == text
    assert voice.cue_asset(cue) == asset
