# SPDX-License-Identifier: GPL-3.0-or-later
"""Xiangqi PGN records: real games, encodings, clock times, every notation (XQ-R24)."""

from __future__ import annotations

import doctest
import os

import pytest

from qizhong import timecontrol
from qizhong.records import xiangqi_pgn as pgn
from qizhong.records.xiangqi_pgn import Game, PgnError
from qizhong.rules.xiangqi import STARTING_FEN, Board, Color, IllegalMoveError, Move

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "xiangqi")
FINAL_1982 = "3akc3/9/4ba3/r7p/P1bC5/9/8P/3AB1N2/4K1nR1/2B6 b - - 16 63"

# file: (Red, plies, result, the final position published with the record or None)
REAL_GAMES = {
    "2004_lu-qin_xu-yinchuan.pgn": ("吕钦", 143, "1-0", None),
    "1982_liu-dahua_yang-guanlin.pgn": ("柳大华", 125, "1/2-1/2", FINAL_1982),
    "1982_liu-dahua_yang-guanlin_iccs.pgn": ("柳大华", 125, "1/2-1/2", FINAL_1982),
    "1959_li-yiting_wang-jialiang.pgn": (
        "李義庭", 85, "1/2-1/2", "2b2a3/3ka4/4b4/N8/8p/P5p2/4p4/9/4A4/4KAB2 b - - 0 43"),
    "1999_xu-yinchuan_nie-weiping.pgn": (
        "许银川", 75, "1-0", "2R6/5k2C/n8/p1p5p/6b2/6p2/9/9/9/4K4 b - - 0 38"),
}  # fmt: skip


def read(name: str) -> bytes:
    with open(os.path.join(DATA, name), "rb") as f:
        return f.read()


@pytest.mark.parametrize("name", sorted(REAL_GAMES))
def test_real_games_replay_legally_with_their_results(name):
    red, plies, result, final = REAL_GAMES[name]
    games = pgn.read_games(read(name))
    assert len(games) == 1
    game = games[0]
    assert game.headers["Red"] == red and len(game.moves) == plies
    assert game.result == result
    end = game.end()
    if final is not None:
        assert end.fen() == final
    # None of these ended by a rule (resignation, agreement): the engine must
    # not find a mate or a repetition verdict contradicting the record.
    out = end.outcome()
    assert out is None or out.result() == result


def test_the_same_game_in_chinese_and_in_iccs():
    chinese = pgn.read_game(read("1982_liu-dahua_yang-guanlin.pgn"))
    iccs = pgn.read_game(read("1982_liu-dahua_yang-guanlin_iccs.pgn"))
    assert chinese.moves == iccs.moves


def test_encodings_are_told_apart():
    big5 = read("1959_li-yiting_wang-jialiang.pgn")
    gbk = read("1982_liu-dahua_yang-guanlin.pgn")
    with pytest.raises(UnicodeDecodeError):
        big5.decode("utf-8")
    assert "第一屆全運會象棋決賽" in pgn.decode(big5)
    assert "杨官璘" in pgn.decode(gbk)
    assert pgn.decode(read("1999_xu-yinchuan_nie-weiping.pgn")).startswith("[Game")  # BOM gone
    # An explicit encoding is obeyed, and a wrong one is a clear error.
    assert pgn.read_game(gbk, encoding="gbk").headers["Black"] == "杨官璘"
    with pytest.raises(PgnError, match="cannot decode"):
        pgn.read_game(big5, encoding="utf-8")
    with pytest.raises(PgnError, match="not UTF-8, GBK or Big5"):
        pgn.decode(b'[Event "\xff\xff\xff\xff"]')


def test_several_games_in_one_file():
    data = (
        read("2004_lu-qin_xu-yinchuan.pgn") + b"\n" + read("1982_liu-dahua_yang-guanlin_iccs.pgn")
    )
    games = pgn.read_games(data)
    assert [g.headers["Red"] for g in games] == ["吕钦", "柳大华"]
    assert pgn.read_game(data).headers["Black"] == "许银川"


def sample_game() -> Game:
    board = Board()
    game = Game(headers={"Event": "测试", "Red": 'A "quoted" \\ name', "Black": "乙",
                         "Date": "2026.11.22", "Round": "1"})  # fmt: skip
    clocks = [895_000, 893_250, 880_000, None, 3_723_004]
    texts = ("炮二平五", "马8进7", "马二进三", "车9平8", "车一平二")
    for text, clock in zip(texts, clocks, strict=True):
        game.add_move(board.push_notation(text), clock_ms=clock)
    game.comments[1] = "屏风马"
    game.headers["Result"] = "*"
    return game


@pytest.mark.parametrize("style", ["chinese", "traditional", "xqbase", "wxf", "iccs"])
def test_write_and_read_back_in_every_style(style):
    # XQ-R24: the host's record is the arbiter's record: what is written is read
    # back whole: moves, clock times to the ms, comments, tags.
    game = sample_game()
    text = pgn.write_game(game, style)
    back = pgn.read_game(text)
    assert back.moves == game.moves
    assert back.clocks == game.clocks
    assert back.comments == game.comments
    assert back.headers["Red"] == game.headers["Red"]
    assert back.headers["Format"] == {"wxf": "WXF", "iccs": "ICCS"}.get(style, "Chinese")
    assert back.result == "*"


def test_the_written_record():
    text = pgn.write_game(sample_game())
    head, body = text.split("\n\n")
    assert head.splitlines()[:8] == [
        '[Game "Chinese Chess"]',
        '[Event "测试"]',
        '[Site "?"]',
        '[Date "2026.11.22"]',
        '[Round "1"]',
        '[Red "A \\"quoted\\" \\\\ name"]',
        '[Black "乙"]',
        '[Result "*"]',
    ]
    assert "FEN" not in head  # the initial position needs none
    assert body.split() == [
        "1.", "炮二平五", "{[%clk", "0:14:55]}",
        "1...", "马8进7", "{屏风马", "[%clk", "0:14:53.250]}",
        "2.", "马二进三", "{[%clk", "0:14:40]}",
        "2...", "车9平8",
        "3.", "车一平二", "{[%clk", "1:02:03.004]}", "*",
    ]  # fmt: skip


def test_clock_times():
    assert pgn.format_clock(0) == "0:00:00"
    assert pgn.format_clock(895_000) == "0:14:55"
    assert pgn.format_clock(3_723_250) == "1:02:03.250"
    assert pgn.parse_clock("{[%clk 0:14:55]}") == 895_000
    assert pgn.parse_clock("[%clk 1:02:03.25]") == 3_723_250
    assert pgn.parse_clock("[%clk 14:55]") == 895_000
    for bad in (-1, 1.5, True, "0:10:00"):
        with pytest.raises(PgnError):
            pgn.format_clock(bad)  # type: ignore[arg-type]
    with pytest.raises(PgnError):
        Game().add_move(Move.from_iccs("h2e2"), clock_ms=-5)


def test_a_game_from_a_set_position_carries_its_fen():
    board = Board("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1")
    board.push_notation("马8进7")
    board.push_notation("马二进三")
    game = Game.from_board(board, clocks=[600_000, 590_000], Red="甲", Black="乙")
    text = pgn.write_game(game)
    assert '[FEN "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"]' in text
    assert "1... 马8进7" in text and "2. 马二进三" in text
    back = pgn.read_game(text)
    assert back.moves == board.move_stack and back.end().fen() == board.fen()
    assert back.clocks == [600_000, 590_000]
    with pytest.raises(PgnError, match="clock times"):
        Game.from_board(board, clocks=[1])


def test_from_board_takes_the_result_from_the_rules():
    board = Board("3k5/1R7/R8/9/9/9/9/9/9/5K3 w - - 0 1")
    board.push(Move.from_iccs("a7a6"))
    assert Game.from_board(board).result == "*"
    board.pop()
    board.push(Move.from_iccs("a7a9"))  # mate
    assert Game.from_board(board).result == "1-0"
    assert Game.from_board(board, Result="*").result == "*"  # the arbiter's word stands


def test_time_control_tag_uses_the_project_syntax():
    game = Game()
    game.set_time_control("15m+10s")
    assert game.headers["TimeControl"] == "900+10"  # PGN's own form says it all
    game.set_time_control("20m count 10s")  # PGN cannot say the count: the spec
    assert game.headers["TimeControl"] == "20m count 10s"
    tc = game.time_control
    assert tc is not None and tc.overtime is not None and tc.overtime.kind == "count"
    game.set_time_control("10m+5s red -40%")
    assert game.headers["TimeControl"] == "10m+5s red -40%"
    back = pgn.read_game(pgn.write_game(game))
    assert back.headers["TimeControl"] == "10m+5s red -40%"
    assert back.time_control is not None
    assert timecontrol.spec_of(back.time_control) == "10m+5s red -40%"
    game.headers["TimeControl"] = "?"
    assert game.time_control is None


def test_movetext_found_in_the_wild():
    text = """[Event "x"]
[Red "甲"]

; a line comment
{开局前的评注}
1.炮二平五 $1 马８进７ (1... 炮8平5 {顺炮} 2. 马二进三) 2. 马二进三!? 車９平８
3. 兵七进一 {进兵} 3. ... 卒３进１ 4.车一平二 ½-½
"""
    game = pgn.read_game(text)
    assert game.intro == "a line comment\n开局前的评注"
    played = "h2e2 h9g7 h0g2 i9h9 c3c4 c6c5 i0h0".split()
    assert [m.iccs() for m in game.moves] == played
    assert game.result == "1/2-1/2"  # from the movetext when there is no tag


def test_bad_records_name_the_game_and_the_move():
    good = pgn.write_game(sample_game())
    bad = good.replace("马二进三", "马二进四")
    with pytest.raises(PgnError, match=r"game 1, move 3 \(马二进四\)"):
        pgn.read_game(bad)
    with pytest.raises(PgnError, match="game 2"):
        pgn.read_games(good + "\n" + bad)
    with pytest.raises(PgnError, match="bad FEN"):
        pgn.read_game('[FEN "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1"]\n\n*')
    with pytest.raises(PgnError, match="not closed"):
        pgn.read_game("1. 炮二平五 {no end")
    with pytest.raises(PgnError, match="tag"):
        pgn.read_game("[Event unquoted]\n1. 炮二平五")
    with pytest.raises(PgnError, match="no game"):
        pgn.read_game("   ")
    with pytest.raises(PgnError, match="style"):
        pgn.write_game(sample_game(), "san")
    game = sample_game()
    game.headers["Result"] = "2-0"
    with pytest.raises(PgnError, match="Result"):
        pgn.write_game(game)


def test_adding_an_illegal_move_leaves_the_game_as_it_was():
    game = sample_game()
    with pytest.raises(IllegalMoveError):
        game.add_move(Move.from_iccs("h2e2"))
    assert len(game.moves) == len(game.clocks) == len(game.comments) == 5
    assert game.end().turn is Color.BLACK
    assert game.board().fen() == STARTING_FEN


def test_the_docstring_examples_hold():
    assert doctest.testmod(pgn).failed == 0
