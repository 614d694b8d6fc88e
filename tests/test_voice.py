# SPDX-License-Identifier: GPL-3.0-or-later
"""Voice schedules: TC-5 count, TC-6a and TC-6b readings."""

import pytest

from qizhong.core import cuenames, voice
from qizhong.core.voice import FLAG, LEFT, MARK_EX, MARK_IN, MARK_PER, MIN, MIN1, NUM, PER, SEC


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
        (60000, MARK_IN),  # 还剩 k 分: k filled in when spoken (voice.fill)
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
        (LEFT + 3, "还剩 3 分", "l3"),
        (MIN + 2, "2分", "m2"),
        (NUM + 40, "40", "b40"),
        (PER + 2, "2 periods", "p2"),
    ],
)
def test_cue_names(cue, text, asset):
    assert cuenames.cue_text(cue) == text
    assert cuenames.cue_asset(cue) == asset


# -- languages and styles (docs/voice.md) ----------------------------------------------

CMN, YUE, JA, KO, EN = range(5)
UP, DOWN = 0, 1


@pytest.fixture
def restore_voice():
    yield
    voice.use(0, 0)


def test_the_default_is_mandarin_counting_up():
    assert (voice.LANGS[voice.lang], voice.STYLES[voice.style]) == ("cmn", "up")
    assert voice.count_table(10000) == voice.count_table(10000, CMN, UP)


def test_counting_down_says_the_seconds_left():
    assert voice.count_table(10000, JA, DOWN) == tuple((k * 1000, 10 - k) for k in range(1, 10))
    table = voice.byoyomi_table(60000, False, EN, DOWN)
    assert table[:3] == ((30000, SEC + 30), (40000, SEC + 20), (50000, 10))
    assert table[3:12] == tuple((50000 + k * 1000, 10 - k) for k in range(1, 10))
    assert table[12:] == ((60000, MARK_EX),)
    assert voice.byoyomi_table(60000, True, EN, DOWN)[-1] == (60000, FLAG)
    # A 10 s period: "10" would fall on the move's start; the count starts at 9.
    assert voice.byoyomi_table(10000, True, KO, DOWN)[0] == (1000, 9)


def test_korean_counts_in_every_period():
    table = voice.byoyomi_table(60000, False, KO, UP)
    assert (55000, SEC + 55) not in table and (60000, MIN1) not in table
    assert table[3:] == (*tuple((50000 + k * 1000, k) for k in range(1, 10)), (60000, MARK_PER))
    assert voice.byoyomi_table(60000, True, KO, UP)[-1] == (60000, 10)


def test_japanese_counts_only_in_the_last_period():
    # Nihon Ki-in / NHK: "50秒、55秒、58秒" while time in reserve remains, 1..9 only after.
    table = voice.byoyomi_table(60000, False, JA, UP)
    assert table[3:] == ((55000, SEC + 55), (58000, SEC + 58), (60000, MIN1), (60000, MARK_EX))
    assert voice.byoyomi_table(60000, True, JA, UP)[-1] == (60000, 10)
    assert voice.byoyomi_table(30000, False, JA, UP) == (
        (10000, SEC + 10), (20000, SEC + 20), (25000, SEC + 25), (28000, SEC + 28),
        (30000, MARK_PER),
    )  # fmt: skip


def test_mandarin_cantonese_and_english_read_55_and_58():
    for lg in (CMN, YUE, EN):
        table = voice.byoyomi_table(60000, False, lg, UP)
        assert table[:6] == voice.byoyomi_table(60000, False)[:6]


def test_periods_left_after_a_short_period_only_where_the_phrase_counts_periods():
    # 还剩 k 分 counts minutes: Mandarin and Cantonese keep TC-6b's "10".
    assert voice.byoyomi_table(30000, False, CMN, UP)[-1] == (30000, 10)
    assert voice.byoyomi_table(30000, False, JA, UP)[-1] == (30000, MARK_PER)
    assert voice.byoyomi_table(30000, False, YUE, DOWN)[-1] == (29000, 1)


def test_long_periods_read_minutes_and_never_collide():
    # #31: 2x170s said "1分" at 100 s and "时间到" at 150 s (SEC + 100 was MIN1,
    # SEC + 150 was FLAG). Now: the minutes, then the last 30 s as in a minute.
    table = voice.byoyomi_table(170000, False, CMN, UP)
    assert table[:5] == (
        (60000, MIN1), (120000, MIN + 2),
        (140000, SEC + 20), (150000, SEC + 30), (160000, SEC + 40),
    )  # fmt: skip
    assert table[5:] == (*((160000 + k * 1000, k) for k in range(1, 10)), (170000, 10))
    assert voice.byoyomi_table(170000, False, JA, UP)[5:] == (
        (165000, NUM + 40), (165000, 5), (168000, NUM + 40), (168000, 8), (170000, MARK_PER),
    )  # fmt: skip
    ids = {c for lg in range(5) for st in (0, 1) for p in range(1, 601) for last in (0, 1)
           for _t, c in voice.byoyomi_table(p * 1000, last, lg, st)}  # fmt: skip
    assert all(voice.cue_slot(c) >= 0 or c in (MARK_IN, MARK_EX, MARK_PER) for c in ids)


def test_the_periods_left_are_filled_in_when_spoken():
    assert voice.fill(MARK_IN, 2, 60000) == LEFT + 2  # 还剩两分
    assert voice.fill(MARK_IN, 2, 120000) == LEFT + 4  # two periods of 2 min: 4 minutes
    assert voice.fill(MARK_EX, 3, 60000) == LEFT + 2  # のこりあと にふんです
    assert voice.fill(MARK_EX, 1, 60000) == PER + 1  # no time left
    assert voice.fill(MARK_PER, 4, 30000) == PER + 4
    assert voice.fill(MARK_IN, 99, 600000) == LEFT + 990  # no sample: silence
    assert voice.fill(MARK_IN, 99, 900000) == LEFT + 999  # capped: no collision with NUM
    assert voice.fill(SEC + 30, 5, 60000) == SEC + 30


def test_canadian_cues_by_time_left():
    assert voice.canadian_table(600000, CMN, UP) == tuple(
        [((10 - k) * 1000, k) for k in range(1, 10)] + [(0, 10)]
    )
    down = [(30000, SEC + 30), (20000, SEC + 20), *[(k * 1000, k) for k in range(10, 0, -1)]]
    assert voice.canadian_table(600000, KO, DOWN) == (*down, (0, FLAG))
    assert voice.canadian_table(25000, EN, DOWN)[0] == (20000, SEC + 20)  # no 30 s in 25 s


def test_a_bad_voice_is_refused_and_changes_nothing(restore_voice):
    for bad in ((5, 0), (0, 2), (-1, 0)):
        with pytest.raises(ValueError):
            voice.use(*bad)
    assert (voice.lang, voice.style) == (0, 0)


def test_a_time_control_takes_the_voice_when_retabled(restore_voice):
    from qizhong.core import tcspec

    tc = tcspec.parse("10m byoyomi 3x60s")
    before = tc.overtime.table
    voice.use(JA, DOWN)
    assert tc.overtime.table is before  # built once: nothing changes in play
    tc.overtime.retable()
    assert tc.overtime.table == voice.byoyomi_table(60000, False, JA, DOWN)
    assert tcspec.parse("10m count 10s").overtime.table == voice.count_table(10000, JA, DOWN)


def test_a_canadian_block_skips_readings_it_has_passed(restore_voice):
    from qizhong.core import tcspec
    from qizhong.core.timecontrol import SideTime

    voice.use(CMN, DOWN)
    tc = tcspec.parse("0 canadian 3/30s")
    s = SideTime()
    tc.reset(s, 0)
    tc.enter_overtime(s)
    assert tc.cue_in(s) == 10000  # "20秒" when 20 s are left
    tc.adjust(s, -15000)  # a penalty: 15 s left, past "20秒"
    assert tc.cue_in(s) == 5000 and tc.cue_id(s) == 10  # "10" next, never "20秒" late


def test_the_clock_never_loads_the_cue_names():
    # cuenames (stems, words) is for the host: no firmware module imports it,
    # so its bytecode stays out of the Pico's heap (voice.cue_slot plays the cues).
    import os

    from conftest import ROOT

    firmware = os.path.join(ROOT, "firmware")
    for folder, _dirs, files in os.walk(firmware):
        for name in files:
            if name.endswith(".py") and name != "cuenames.py":
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    imports = [ln for ln in f if ln.lstrip().startswith(("import ", "from "))]
                assert not [ln for ln in imports if "cuenames" in ln], name
