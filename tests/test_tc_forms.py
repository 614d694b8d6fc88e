# SPDX-License-Identifier: GPL-3.0-or-later
"""#24: the specs people type, and `qizhong tc` explaining every form it takes."""

import subprocess

import pytest

from conftest import ROOT
from qizhong import timecontrol


def _examples():
    for texts, about in timecontrol.FORMS:
        for text in texts:
            if not text.endswith("..."):
                yield text.replace("[", "").replace("]", ""), about


@pytest.mark.parametrize("text, about", list(_examples()))
def test_every_form_qizhong_tc_lists_is_read_or_refused_as_it_says(text, about):
    words = text.split()
    if words[0] in ("record", "flag", "black"):  # clauses: after a stage
        text = "10m " + text
    elif words[0] == "20m" and "grace" not in text:
        text += " grace 500ms"
    if about.startswith("refused"):
        with pytest.raises(timecontrol.SpecError):
            timecontrol.parse(text)
    else:
        timecontrol.parse(text)


def test_qizhong_tc_without_a_spec_lists_the_forms_and_explains_a_us_one():
    out = subprocess.run(
        [".venv/bin/qizhong", "tc"], capture_output=True, text=True, cwd=ROOT, check=True
    ).stdout
    assert all(text in out for texts, _ in timecontrol.FORMS for text in texts)
    out = subprocess.run(
        [".venv/bin/qizhong", "tc", "40/90:30 delay 5"], capture_output=True, text=True, cwd=ROOT
    ).stdout
    assert out.splitlines()[:2] == [
        "40/90m:30m delay 5s",
        "  Read as US notation: bare base times are minutes, increments and delays seconds",
    ]


# -- #31: the US forms arbiters write ---------------------------------------------------

US_FORMS = (
    ("40/90, 30 d30", "40/90m:30m delay 30s"),  # a comma between stages, bare minutes
    ("40/90m, 30m", "40/90m:30m"),
    ("40/90,30 d30", "40/90m:30m delay 30s"),
    ("40/120, 30 inc30", "40/2h+30s:30m+30s"),
    ("G/5;d0", "5m"),  # d0: no delay
    ("G/30;d0", "30m"),
    ("G/5, d0", "5m"),
    ("G/60;inc0", "60m"),
    ("Game/60", "60m"),
    ("game/90 d5", "90m delay 5s"),
    ("40/120, Game/30 d5", "40/2h:30m delay 5s"),
)


@pytest.mark.parametrize("text, spec", US_FORMS)
def test_the_us_forms_are_read(text, spec):
    from qizhong.core import tcformats, tcspec

    tc = timecontrol.parse(text)
    assert tcspec.format(tc) == spec
    assert tcspec.format(tcspec.parse(spec)) == spec  # canonical, and it parses back
    if not text.endswith("m"):  # bare base times: read as US notation, and said so
        assert tcformats.reading(text) == "us"


@pytest.mark.parametrize("text, spec", US_FORMS)
def test_the_us_forms_round_trip_through_the_records(text, spec):
    import chess

    from qizhong.records import chess_pgn, go_sgf, xiangqi_pgn
    from qizhong.rules import go

    tc = timecontrol.parse(text)
    game = xiangqi_pgn.Game()
    game.set_time_control(tc)
    back = xiangqi_pgn.read_game(xiangqi_pgn.write_game(game))
    assert timecontrol.spec_of(back.time_control) == spec
    board = go.Board(9)
    board.push_gtp("E5")
    back = go_sgf.read(go_sgf.write(go_sgf.GoRecord(board, time_control=tc)))
    assert timecontrol.spec_of(back.time_control) == spec
    headers = chess_pgn.read(
        chess_pgn.write(chess_pgn.build(chess.Board(), time_control=tc))
    ).headers
    assert (
        timecontrol.spec_of(
            timecontrol.parse_tag(headers.get("ClockSpec") or headers["TimeControl"])
        )
        == spec
    )


@pytest.mark.parametrize(
    "text, error",
    [
        ("5m delay 0", "the delay must be positive"),  # our notation: no delay is no clause
        ("5m bronstein 0", "the delay must be positive"),
        ("G/5;d0 bronstein 3", "only one of bronstein, delay or hourglass"),
        ("G/5;d0;d5", "'delay' given twice"),
        ("Gam/60", "expected the base time"),
    ],
)
def test_what_the_us_forms_do_not_stretch_to(text, error):
    with pytest.raises(timecontrol.SpecError, match=error):
        timecontrol.parse(text)
