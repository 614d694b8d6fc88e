# SPDX-License-Identifier: GPL-3.0-or-later
"""#34 items 8, 9 and 10: what an arbiter types or uploads is checked whole.

- A pairings cell over 131,072 characters (an unclosed quote) raised
  ``csv.Error``: a 500. Now a 400 naming the line, for the round's CSV and
  the player list alike.
- One player on two boards of a round was taken. Now refused with both lines.
- ``POST /api/boards/N/players`` kept U+202E, U+2028 and U+0085 in names,
  the PGN tag and the CSV, though the round import refused them."""

import pytest
from hallserver import PASSWORD

from qizhong.server import validate
from qizhong.server.rounds import RoundError, parse_round
from qizhong.server.tournament import players_from_csv

BOARDS = {1: ("xiangqi", "xq-rapid"), 2: ("xiangqi", "xq-rapid"), 3: ("go", "go-byoyomi")}
HALL_SERVER = {"n": 1, "up": True}


def test_an_unclosed_quote_is_a_clear_error_naming_its_line():
    huge = 'board,first,second\n1,A,B\n2,"C' + "x" * 140_000 + ",D\n"
    with pytest.raises(RoundError, match=r"line 3: .*unclosed quote"):
        parse_round(huge, BOARDS)
    with pytest.raises(RoundError, match=r"line 2: .*unclosed quote"):
        players_from_csv('name,rating\n"Li' + "x" * 140_000 + ",1800\n")


def test_one_player_is_in_one_place_a_round():
    with pytest.raises(RoundError, match="line 3: li is on line 2 too"):
        parse_round("board,first,second\n1,Li,Wang\n2,Zhao,li\n", BOARDS)  # another case
    with pytest.raises(RoundError, match="line 3: Li is on line 2 too"):
        parse_round("board,first,second\n1,Li,Wang\nbye,Li,half\n", BOARDS)
    with pytest.raises(RoundError, match="cannot play themself"):
        parse_round("1,Li,LI\n", BOARDS)
    pairings, byes = parse_round("1,Li,Wang\n2,Zhao,Qian\nbye,Sun,full\n", BOARDS)
    assert [(p.first, p.second) for p in pairings] == [("Li", "Wang"), ("Zhao", "Qian")]
    assert byes == [("Sun", "full")]


@pytest.mark.parametrize("char", ["\u202e", "\u2028", "\u2029", "\u0085", "\u200f", "\x07"])
def test_a_name_with_a_control_or_format_character_is_refused(char):
    with pytest.raises(validate.Invalid):
        validate.player("Li" + char + "Wang")
    with pytest.raises(RoundError):
        parse_round("1,Li%sWang,Zhao\n" % char, BOARDS)
    assert validate.player("  Lǚ Qīn 吕钦 ") == "Lǚ Qīn 吕钦"


def test_the_boards_players_refuse_what_the_round_import_refuses(server):
    for bad in ("Evil\u202eLi", "Li\u2028Wang", "Li\u0085Wang"):
        code = server.status_of("/api/boards/1/players", {"first": bad, "second": "B"}, PASSWORD)
        assert code == 400, bad
    server.post("/api/boards/1/players", {"first": "Hu", "second": "Xu"})
    assert server.get("/api/boards/1")["players"] == ["Hu", "Xu"]
