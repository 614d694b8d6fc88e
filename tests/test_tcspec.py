# SPDX-License-Identifier: GPL-3.0-or-later
"""The time-control syntax: parse, format, presets, PGN and SGF (RULES §1)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qizhong import timecontrol as host_tc
from qizhong.core import menuview, tcformats, tcspec, timecontrol
from qizhong.core.tcspec import SpecError
from qizhong.core.timecontrol import (
    BRONSTEIN,
    DELAY,
    FISCHER,
    HOURGLASS,
    UPCOUNT,
    ByoYomi,
    Canadian,
    Count,
    Stage,
    TimeControl,
)

MIN = 60000
SEC = 1000


@pytest.mark.parametrize(
    "text, stages, timing, delay, overtime, handicap",
    [
        ("15m+10s", [Stage(15 * MIN, 10 * SEC)], FISCHER, 0, None, 0),  # TC-1
        ("5m+5s", [Stage(5 * MIN, 5 * SEC)], FISCHER, 0, None, 0),  # TC-2
        ("30m", [Stage(30 * MIN)], FISCHER, 0, None, 0),  # TC-3
        ("10m+5s red -40%", [Stage(10 * MIN, 5 * SEC)], FISCHER, 0, None, -40),  # TC-4
        ("10m+5s black +40%", [Stage(10 * MIN, 5 * SEC)], FISCHER, 0, None, 40),  # TC-4
        ("20m count 10s", [Stage(20 * MIN)], FISCHER, 0, Count(10 * SEC, 500), 0),  # TC-5
        ("60m byoyomi 3x60s", [Stage(60 * MIN)], FISCHER, 0, ByoYomi(3, 60 * SEC), 0),  # TC-6
        ("60m canadian 15/10m", [Stage(60 * MIN)], FISCHER, 0, Canadian(15, 10 * MIN), 0),  # TC-7
        (
            "40/90m+30s:30m+30s",
            [Stage(90 * MIN, 30 * SEC, 40), Stage(30 * MIN, 30 * SEC)],
            FISCHER,
            0,
            None,
            0,
        ),
        (
            "40/120, SD/30 d5",  # US notation: bare base times are minutes (#24)
            [Stage(120 * MIN, 0, 40), Stage(30 * MIN)],
            DELAY,
            5 * SEC,
            None,
            0,
        ),
        ("G/60;inc30", [Stage(60 * MIN, 30 * SEC)], FISCHER, 0, None, 0),
        ("G/90+30", [Stage(90 * MIN, 30 * SEC)], FISCHER, 0, None, 0),
        (
            "40/90:30 delay 5",
            [Stage(90 * MIN, 0, 40), Stage(30 * MIN)],
            DELAY,
            5 * SEC,
            None,
            0,
        ),
        ("5m d5s", [Stage(5 * MIN)], DELAY, 5 * SEC, None, 0),
        ("5m bronstein 3s", [Stage(5 * MIN)], BRONSTEIN, 3 * SEC, None, 0),
        ("5m delay 5s", [Stage(5 * MIN)], DELAY, 5 * SEC, None, 0),
        ("3m hourglass", [Stage(3 * MIN)], HOURGLASS, 0, None, 0),
        ("*180", [Stage(3 * MIN)], HOURGLASS, 0, None, 0),
        ("1h30m+30s", [Stage(90 * MIN, 30 * SEC)], FISCHER, 0, None, 0),
        ("  15M+10S ", [Stage(15 * MIN, 10 * SEC)], FISCHER, 0, None, 0),
        ("2500ms+250ms", [Stage(2500, 250)], FISCHER, 0, None, 0),
    ],
)
def test_parse(text, stages, timing, delay, overtime, handicap):
    tc = tcspec.parse(text)
    assert list(tc.stages) == stages
    assert (tc.timing, tc.delay, tc.overtime, tc.handicap) == (timing, delay, overtime, handicap)
    assert tcspec.parse(tcspec.format(tc)) == tc


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("G/60;inc30", "60m+30s"),
        ("40/120, SD/30 d5", "40/2h:30m delay 5s"),
        ("60m byoyomi 3x60s", "60m byoyomi 3x60s"),
        ("2h", "2h"),
        ("90s", "90s"),
        ("150s", "2m30s"),
        ("*180", "3m hourglass"),
        ("20m count 10s grace 500ms", "20m count 10s"),
        ("20m count 10s grace 1s", "20m count 10s grace 1s"),
        ("10m record off", "10m record off"),
        ("10m record 5m", "10m record 5m"),
        ("10m flag freeze", "10m flag freeze"),
    ],
)
def test_canonical_format(text, canonical):
    assert tcspec.format(tcspec.parse(text)) == canonical


def test_count_defaults_follow_tc5():
    ot = tcspec.parse("20m count 10s").overtime
    assert (ot.period, ot.grace) == (10000, 500)


def test_tc4_handicap_is_40_percent_of_the_base():
    tc = tcspec.parse("armageddon")
    assert tc.base_for(0) == 360000 and tc.base_for(1) == 600000
    tc = tcspec.parse("armageddon-black")
    assert tc.base_for(0) == 600000 and tc.base_for(1) == 840000


def test_tc9_threshold_defaults_to_3_minutes():
    assert tcspec.parse("15m+10s").record == 180000
    assert tcspec.parse("15m+10s record off").record == 0


@pytest.mark.parametrize(
    "text, message, column",
    [
        ("", "empty time control", 1),
        ("15x", "unknown time unit", 1),
        ("15min", "unknown time unit", 1),
        ("15m+", "expected the increment", 5),
        ("30m1h", "units go from large to small", 4),
        ("40/", "expected the base time", 4),
        ("0/90m", "a stage has 1 to 999 moves", 1),
        ("40/90m:30m:10m", "flag stages come first", 12),
        ("10m+5s:5m+d5s hourglass", "an increment cannot be combined with hourglass", 1),
        ("10m cap 20m", "a cap needs an increment", 1),
        ("10m+5s cap 5m", "the cap is at least the base", 1),
        ("10m+5s second 4m red -40%", "own time or handicap", 1),
        ("10m warn 500ms", "the warning threshold is 1s or more", 5),
        ("10m warn 2m voice", "no voice for that warning", 5),
        ("upcount byoyomi 3x30s", "an upcount has no more", 1),
        ("10m second 0s", "a side's base is 1s to 100h", 5),
        ("10m foo", "unknown word 'foo'", 5),
        ("10m count", "expected the count period", 10),
        ("10m count 90s", "the count period is 1s to 60s", 5),
        ("10m count 10s grace 9s", "the grace is at most 5s", 5),
        ("10m byoyomi 3/60s", "expected 'x'", 14),
        ("10m byoyomi 0x60s", "1 to 99 periods", 5),
        ("10m canadian 15x10m", "expected '/'", 16),
        ("10m count 10s byoyomi 3x60s", "only one overtime", 15),
        ("10m count 10s count 5s", "'count' given twice", 15),
        ("10m+5s delay 3s", "an increment cannot be combined with delay", 1),
        ("10m delay 3s bronstein 2s", "only one of bronstein, delay or hourglass", 14),
        ("10m delay 0s", "the delay must be positive", 5),
        ("5m+5s black -40%", "TC-4 takes time from red", 7),
        ("5m+5s red -95%", "the handicap is 1% to 90%", 7),
        ("5m red 40%", "expected red -N% or black +N%", 8),
        ("3m hourglass 40/1m", "after the stages come words", 14),
        ("40/3m hourglass", "an hourglass has one stage and no move count", 1),
        ("1m hourglass byoyomi 3x30s", "an hourglass has no overtime", 1),
        ("１５m", "expected the base time", 1),
        ("0", "a stage needs time", 1),
        ("200h", "the base time is too long", 1),
        ("10m flag stop", "expected flag freeze or flag run", 5),
        ("10m record 500ms", "the recording threshold is 1s or more, or off", 5),
        ("red -40%", "expected the base time", 1),
        ("90+30", "ambiguous: 90m+30s (minutes, as US arbiters write it) or 90s+30s", 1),
        ("40/90:30", "ambiguous: 40/90m:30m (minutes, as US arbiters write it) or 40/90s:30s", 4),
        ("40/5400+30:1800+30", "or 40/90m+30s:30m+30s (seconds, as PGN writes it)", 4),
        ("G/60;inc30+10s", "unexpected '+'", 11),
        ("G/60+10s inc 10s", "the increment is given twice", 10),
        ("5m d5s delay 5s", "'delay' given twice", 8),
    ],
)
def test_bad_specs_say_what_and_where(text, message, column):
    with pytest.raises(SpecError) as err:
        tcspec.parse(text)
    assert message in err.value.msg
    assert err.value.pos + 1 == column
    assert "(column %d)" % column in str(err.value)
    assert err.value.pointer().splitlines()[-1] == " " * (column - 1) + "^"


def test_spec_must_be_text():
    with pytest.raises(SpecError):
        tcspec.parse(None)


@pytest.mark.parametrize("name", sorted(host_tc.PRESETS))
def test_presets_parse_and_round_trip(name):
    spec, about = host_tc.PRESETS[name]
    tc = tcspec.parse(name)
    assert tc == tcspec.parse(spec)
    assert tcspec.parse(tcspec.format(tc)) == tc
    assert about


def test_presets_match_the_seeds():
    # TC-1: 15-30 min +10 s; TC-2: 5-10 min +5 s; TC-3 no increment.
    for name in ("xq-rapid", "xq-rapid-20", "xq-rapid-25", "xq-rapid-30"):
        (stage,) = tcspec.parse(name).stages
        assert 15 * MIN <= stage.base <= 30 * MIN and stage.inc == 10 * SEC
    for name in ("xq-blitz", "xq-blitz-10"):
        (stage,) = tcspec.parse(name).stages
        assert 5 * MIN <= stage.base <= 10 * MIN and stage.inc == 5 * SEC
    assert tcspec.parse("sudden-death").stages[0].inc == 0
    assert tcspec.parse("xq-count").overtime == Count(10 * SEC, 500)  # TC-5
    assert tcspec.parse("go-byoyomi").overtime == ByoYomi(3, 60 * SEC)  # TC-6
    assert tcspec.parse("go-canadian").overtime == Canadian(15, 10 * MIN)  # TC-7
    assert tcspec.parse("armageddon").handicap == -40  # TC-4


# -- round trips over generated controls -----------------------------------------

durations = st.integers(1, 5 * 3600 * 1000)
whole_s = st.integers(1, 3 * 3600).map(lambda s: s * 1000)


@st.composite
def time_controls(draw):
    timing = draw(st.sampled_from([FISCHER, BRONSTEIN, DELAY, HOURGLASS, UPCOUNT]))
    if timing == UPCOUNT:  # TC-13: nothing else to it but the display settings
        record = draw(st.sampled_from([180000, 0, 60000]))
        return TimeControl([Stage(0)], UPCOUNT, record=record)
    n = 1 if timing == HOURGLASS else draw(st.integers(1, 3))
    at_flag = n > 1 and draw(st.booleans())  # TC-10: stages to the first flag
    stages = []
    for i in range(n):
        last = 0 if timing == HOURGLASS else draw(st.sampled_from([0, 0, 40]))
        moves = 0 if at_flag and i < n - 1 else draw(st.integers(1, 999)) if i < n - 1 else last
        own = -1 if timing == HOURGLASS else draw(st.sampled_from([-1, -1, BRONSTEIN, DELAY]))
        how = timing if own < 0 else own  # TC-11: a stage's own method
        inc = draw(st.integers(0, 60000)) if how == FISCHER else 0
        own_delay = draw(st.integers(1, 30000)) if own >= 0 else 0
        stages.append(Stage(draw(durations), inc, moves, own, own_delay))
    delay = draw(st.integers(1, 30000)) if timing in (BRONSTEIN, DELAY) else 0
    overtime = draw(
        st.one_of(
            st.none(),
            st.builds(Count, st.integers(1, 60).map(lambda s: s * 1000), st.integers(0, 5000)),
            st.builds(ByoYomi, st.integers(1, 99), whole_s),
            st.builds(Canadian, st.integers(1, 999), whole_s, st.booleans()),
        )
    )
    if timing == HOURGLASS:
        overtime = None  # refused: what an hourglass gains could never be used
    handicap = draw(st.sampled_from([0, -40, 40, -1, 90]))
    record = draw(st.sampled_from([180000, 0, 60000, 1500, 1000]))
    freeze = draw(st.sampled_from([None, True, False]))
    warn = draw(st.sampled_from([0, 0, 60000, 30000, 90000]))
    voice = warn in (60000, 30000) and draw(st.booleans())
    first = second = cap = 0
    if not handicap and draw(st.booleans()):  # TC-16
        first, second = draw(st.sampled_from([(0, 240000), (360000, 0), (60000, 7200000)]))
    top = max(stages[0].base, first, second)
    if timing == FISCHER and any(s.inc for s in stages) and draw(st.booleans()):  # TC-14
        cap = top + draw(st.integers(0, 600000))
    return TimeControl(
        stages, timing, delay, overtime, handicap, record, freeze, cap, warn, voice, first, second
    )


@settings(max_examples=300, deadline=None)
@given(time_controls())
def test_format_then_parse_is_identity(tc):
    assert tcspec.parse(tcspec.format(tc)) == tc


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 100 * 3600 * 1000))
def test_durations_round_trip(ms):
    text = tcspec.fmt_ms(ms)
    assert (
        tcspec.parse("1s count " + text).overtime.period == ms
        if 1000 <= ms <= 60000 and ms % 1000 == 0
        else True
    )
    assert tcspec.parse("1s+" + text).stages[0].inc == ms


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_garbage_is_a_spec_error_or_a_control(text):
    try:
        tc = tcspec.parse(text)
    except SpecError as e:
        assert 0 <= e.pos <= len(text)
    else:
        assert isinstance(tc, TimeControl)


# -- PGN and SGF -------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec, pgn",
    [
        ("15m+10s", "900+10"),
        ("40/90m+30s:30m+30s", "40/5400+30:1800+30"),
        ("30m", "1800"),
        ("3m hourglass", "*180"),
        ("40/2h", "40/7200"),
    ],
)
def test_pgn_time_control(spec, pgn):
    tc = tcspec.parse(spec)
    assert tcformats.to_pgn(tc) == pgn
    assert tcformats.from_pgn(pgn) == tc


@pytest.mark.parametrize("spec", ["20m count 10s", "5m delay 3s", "10m+5s red -40%", "1500ms"])
def test_pgn_refuses_what_it_cannot_say(spec):
    with pytest.raises(ValueError):
        tcformats.to_pgn(tcspec.parse(spec))


def test_pgn_unknown_and_none():
    assert tcformats.from_pgn("?") is None
    assert tcformats.from_pgn("-") is None
    with pytest.raises(SpecError):
        tcformats.from_pgn("15m+10s")  # the native syntax is not PGN


@pytest.mark.parametrize(
    "spec, tm, ot",
    [
        ("60m byoyomi 3x60s", "3600", "3x60 byo-yomi"),
        ("60m canadian 15/10m", "3600", "15/600 Canadian"),
        ("30m", "1800", ""),
        ("10m+10s", "600", "10 fischer"),
        ("20m count 10s", "1200", "10 count"),
    ],
)
def test_sgf_time_properties(spec, tm, ot):
    tc = tcspec.parse(spec)
    assert tcformats.to_sgf(tc) == (tm, ot)
    assert tcformats.from_sgf(tm, ot) == tc


def test_sgf_reads_kgs_style():
    tc = tcformats.from_sgf("1800", "5x30 byo-yomi")
    assert tc.stages[0].base == 30 * MIN and tc.overtime == ByoYomi(5, 30 * SEC)
    assert tcformats.from_sgf("300.5").stages[0].base == 300500
    with pytest.raises(SpecError):
        tcformats.from_sgf("abc")
    with pytest.raises(SpecError):
        tcformats.from_sgf("600", "sudden death bonus")


def test_time_control_repr_shows_the_spec():
    assert repr(tcspec.parse("15m+10s")) == "TimeControl('15m+10s')"
    assert timecontrol.TIMING_NAMES[tcspec.parse("3m hourglass").timing] == "hourglass"


@settings(max_examples=200, deadline=None)
@given(time_controls())
def test_display_lines_are_the_whole_spec_never_cut(tc):
    # #24: the setup menu shows a control a stage a line, at most 16 characters.
    lines = menuview.format_lines(tc)
    assert "".join(lines).replace(" ", "") == tcspec.format(tc).replace(" ", "")
    assert all(0 < len(line) <= 16 for line in lines)


def test_the_fide_preset_is_shown_a_stage_a_line():
    tc = tcspec.parse("fide")
    assert menuview.format_lines(tc) == ("40/90m+30s", ":30m+30s")


@pytest.mark.parametrize(
    "pgn, canonical",
    [
        ("1200+10", "20m+10s"),
        ("40/5400+30:1800+30", "40/90m+30s:30m+30s"),
        ("*180", "3m hourglass"),
    ],
)
def test_pgn_values_are_seconds_through_from_pgn(pgn, canonical):
    # #24: our own parse refuses a bare base as ambiguous; a PGN tag is read as PGN.
    assert tcspec.format(tcformats.from_pgn(pgn)) == canonical


@pytest.mark.parametrize(
    "text, how",
    [("G/90+30", "us"), ("40/90:30 delay 5", "us"), ("*180", "pgn"), ("15m+10s", ""),
     ("5m d5s", "")],
)  # fmt: skip
def test_reading_says_which_notation(text, how):
    assert tcformats.reading(text) == how


def test_every_preset_of_the_clock_is_described_on_the_host():
    assert list(host_tc.PRESETS) == list(tcspec.PRESETS)
