# SPDX-License-Identifier: GPL-3.0-or-later
"""Every time control can be written in both records and read back exactly.

SGF (go_sgf): the nearest standard TM/OT, and the exact spec in our own
QZTC property when TM/OT cannot say it all. PGN (xiangqi_pgn): the
TimeControl tag, PGN's own value or the spec. TC-1..TC-7 and the rest of
docs/timecontrol.md.
"""

from hypothesis import given, settings
from sgfmill import sgf
from test_tcspec import time_controls

from qizhong import timecontrol
from qizhong.arbiter.go import GoSession
from qizhong.clocks.driver import Clock
from qizhong.core import tcspec
from qizhong.records import go_sgf, xiangqi_pgn
from qizhong.rules import go
from qizhong.sim import Sim


def _sgf_round_trip(tc):
    board = go.Board(9)
    board.push_gtp("E5")
    data = go_sgf.write(go_sgf.GoRecord(board, time_control=tc))
    return data, go_sgf.read(data)


@settings(max_examples=200, deadline=None)
@given(time_controls())
def test_every_control_is_saved_as_sgf_and_pgn_and_read_back_exactly(tc):
    spec = tcspec.format(tc)
    control = timecontrol.parse(spec)  # what `qizhong tc` accepts
    _, back = _sgf_round_trip(control)
    assert back.time_control is not None and tcspec.format(back.time_control) == spec
    game = xiangqi_pgn.Game()
    game.set_time_control(control)
    again = xiangqi_pgn.read_game(xiangqi_pgn.write_game(game))
    assert again.time_control is not None and tcspec.format(again.time_control) == spec


def _root(data):
    return sgf.Sgf_game.from_bytes(data).get_root()


def test_delay_writes_the_nearest_tm_and_the_exact_spec():
    data, back = _sgf_round_trip(timecontrol.parse("5m delay 5s"))
    root = _root(data)
    assert root.get_raw("TM") == b"300" and not root.has_property("OT")
    assert root.get_raw("QZTC") == b"5m delay 5s"
    assert tcspec.format(back.time_control) == "5m delay 5s"


def test_a_sub_second_increment_keeps_its_exact_value():
    data, back = _sgf_round_trip(timecontrol.parse("90s+2500ms"))
    root = _root(data)
    assert root.get_raw("OT") == b"2 fischer"  # the nearest a foreign program reads
    assert back.time_control.stages[0].inc == 2500


def test_the_tc5_count_is_one_byoyomi_period_for_other_programs():
    data, back = _sgf_round_trip(timecontrol.parse("20m count 10s"))
    root = _root(data)
    assert root.get_raw("OT") == b"1x10 byo-yomi" and root.has_property("QZTC")
    assert back.time_control.overtime.kind == "count"
    # A plain control needs no property of ours; a foreign reader's view of the count:
    data, _ = _sgf_round_trip(timecontrol.parse("60m byoyomi 3x60s"))
    assert not _root(data).has_property("QZTC")
    foreign = go_sgf.read(b"(;GM[1]FF[4]SZ[9]TM[1200]OT[1x10 byo-yomi];B[ee])")
    assert tcspec.format(foreign.time_control) == "20m byoyomi 1x10s"
    old = go_sgf.read(b"(;GM[1]FF[4]SZ[9]TM[1200]OT[10 count];B[ee])")  # older files
    assert old.time_control.overtime.kind == "count"


def test_a_go_game_under_delay_is_saved_when_it_ends(tmp_path):
    with Sim() as sim:
        clock = Clock(sim.link)
        game = GoSession(clock, "5m delay 5s", size=9)
        game.start()
        game.resign("black")
        path = game.save(str(tmp_path / "g.sgf"))
    back = go_sgf.read(open(path, "rb").read())
    assert tcspec.format(back.time_control) == "5m delay 5s" and back.result == "W+R"


def test_an_upcount_is_no_time_control_in_pgn_and_no_tm_in_sgf():
    # TC-13: PGN's "-" is no time control; SGF has no TM; the exact spec beside.
    from qizhong.records import chess_pgn

    data, back = _sgf_round_trip(timecontrol.parse("upcount"))
    root = _root(data)
    assert not root.has_property("TM") and root.get_raw("QZTC") == b"upcount"
    assert tcspec.format(back.time_control) == "upcount"
    import chess

    game = chess_pgn.build(chess.Board(), time_control="upcount")
    assert (game.headers["TimeControl"], game.headers["ClockSpec"]) == ("-", "upcount")


def test_the_new_modes_keep_their_exact_spec_in_both_records():
    # TC-10, TC-11, TC-12, TC-14, TC-16: TM/OT say what they can, QZTC the rest.
    for spec, tm, ot in (
        ("75m:15m", b"4500", None),
        ("60m canadian 25/10m reset", b"3600", b"25/600 Canadian"),
        ("10m+10s cap 10m", b"600", b"10 fischer"),
        ("5m+2s second 4m", b"300", b"2 fischer"),
    ):
        data, back = _sgf_round_trip(timecontrol.parse(spec))
        root = _root(data)
        assert root.get_raw("TM") == tm and root.get_raw("QZTC") == spec.encode()
        assert (root.get_raw("OT") if root.has_property("OT") else None) == ot
        assert tcspec.format(back.time_control) == spec


def test_the_flag_behaviour_is_kept_in_every_record():
    # An arbiter's `flag run` or `flag freeze` (set on the clock's menu too): chess
    # PGN keeps the standard TimeControl and adds the exact spec in ClockSpec, as
    # it does for what PGN cannot say; SGF keeps it in QZTC; Xiangqi PGN writes
    # the spec itself.
    import chess

    from qizhong.records import chess_pgn

    for spec in ("15m+10s flag run", "40/90m+30s:30m+30s flag freeze"):
        game = chess_pgn.build(chess.Board(), time_control=spec)
        tc = timecontrol.parse(spec)
        assert game.headers["TimeControl"] == timecontrol.to_pgn(tc)
        assert game.headers["ClockSpec"] == spec
        data, back = _sgf_round_trip(tc)
        assert tcspec.format(back.time_control) == spec
        assert _root(data).get_raw("QZTC") == spec.encode()
    plain = chess_pgn.build(chess.Board(), time_control="15m+10s")
    assert "ClockSpec" not in plain.headers  # the TimeControl says all of it
