# SPDX-License-Identifier: GPL-3.0-or-later
"""#21 item 12: a player's name can hold anything a keyboard (or a script)
types; no record writer lets it break the record's syntax. Each record is
read back by its reader: python-chess, sgfmill, and ours."""

import io

import chess
import chess.pgn
import pytest
from sgfmill import sgf  # type: ignore[import-untyped]

from qizhong.records import chess_pgn, go_sgf, xiangqi_pgn
from qizhong.rules import go, xiangqi

NASTY = [
    'Li\n[Result "1-0"]\n\n1. e4 1-0\n',  # a newline ends a PGN tag: a fake game after it
    'Wang "the wall" \\ Jr.',
    "Zhao]\\;PB[Fake",  # SGF's ] and \
    "Chen\r\tQian\x00\x7f",
    "} { [%clk 9:59:59]",
]


def one_line(text):
    return "".join(" " if ord(c) < 32 or ord(c) == 127 else c for c in text)


@pytest.mark.parametrize("name", NASTY)
def test_a_chess_pgn_with_any_name_reads_back_as_one_game(name):
    board = chess.Board()
    for san in ("e4", "e5"):
        board.push_san(san)
    text = chess_pgn.write(chess_pgn.build(board, [60000, 59000], White=name, Black="B"))
    games = []
    f = io.StringIO(text)
    while (g := chess.pgn.read_game(f)) is not None:
        games.append(g)
    assert len(games) == 1 and not games[0].errors
    assert games[0].headers["White"] == one_line(name)
    assert games[0].headers["Result"] == "*"
    assert [m.uci() for m in games[0].mainline_moves()] == ["e2e4", "e7e5"]
    assert chess_pgn.clocks_ms(games[0]) == [60000, 59000]


@pytest.mark.parametrize("name", NASTY)
def test_a_xiangqi_pgn_with_any_name_reads_back_as_one_game(name):
    board = xiangqi.Board()
    game = xiangqi_pgn.Game(headers={"Red": name, "Black": "B", "Result": "*"})
    move = board.parse_notation("炮二平五")
    game.add_move(move, clock_ms=60000)
    games = xiangqi_pgn.read_games(xiangqi_pgn.write_game(game))
    assert len(games) == 1
    assert games[0].headers["Red"] == one_line(name)
    assert games[0].result == "*" and games[0].moves == [move] and games[0].clocks == [60000]


@pytest.mark.parametrize("name", NASTY)
def test_a_go_sgf_with_any_name_reads_back_as_one_game(name):
    board = go.Board(9)
    board.push_gtp("E5")
    data = go_sgf.write(
        go_sgf.GoRecord(board, black=name, white="W", times=[go_sgf.MoveTime(5000)])
    )
    root = sgf.Sgf_game.from_bytes(data).get_root()
    assert root.get("PW") == "W" and not root.has_property("PL")
    ours = go_sgf.read(data)
    assert ours.black == root.get("PB") and ours.white == "W"
    assert "".join(ours.black.split()) == "".join(name.split())  # SGF: whitespace is a space
    assert [m.gtp() for m in ours.board.move_stack] == ["E5"]
