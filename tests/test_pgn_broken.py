# SPDX-License-Identifier: GPL-3.0-or-later
"""Real files with broken tags are read (tests/data/xiangqi/broken/).

Some real PGN files hold tag values with unescaped quotes
(``[Event ""百民杯“全國象棋精英賽"]``): the value is read to the closing
``"]`` with a warning, and the rest of the file (tags, comments, variations,
NAGs, the result) is read as usual, in every encoding the reader takes.
"""

import pathlib
import warnings

import pytest

from qizhong.records import xiangqi_pgn
from qizhong.records.xiangqi_pgn import PgnError, PgnWarning

BROKEN = pathlib.Path(__file__).parent / "data" / "xiangqi" / "broken"
FILES = sorted(BROKEN.glob("*.pgn"))


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_a_tag_with_unescaped_quotes_is_read_with_a_warning(path):
    with pytest.warns(PgnWarning) as caught:
        game = xiangqi_pgn.read_game(path.read_bytes())
    # Ours only: another test's object collected meanwhile may warn too (ResourceWarning).
    said = [str(w.message) for w in caught if issubclass(w.category, PgnWarning)]
    assert len(said) == 2 and "the Event tag's value holds unescaped quotes" in said[0]
    trad = "big5" in path.name or "utf16" in path.name
    event = game.headers["Event"]
    assert event == ('"百民杯“全國象棋精英賽' if trad else '"百民杯“全国象棋精英赛')
    assert game.headers["Opening"] == (
        '中炮對屏風馬 "急進中兵"' if trad else '中炮对屏风马 "急进中兵"'
    )
    assert game.headers["Red"] == ("胡榮華" if trad else "胡荣华")
    assert game.headers["Black"] == ("呂欽" if trad else "吕钦")
    assert len(game.warnings) == 2 and "line 2" in game.warnings[0] and "line 8" in game.warnings[1]
    assert len(game.moves) == 6  # the variation (兵七进一 卒7进1) is not in the main line
    assert game.result == "1/2-1/2"
    assert game.intro == ("開局介紹" if trad else "开局介绍")
    assert game.comments[1] == ("屏風馬" if trad else "屏风马")
    text = xiangqi_pgn.write_game(game)  # and it writes back, quotes escaped
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = xiangqi_pgn.read_game(text)
    assert again.headers["Event"] == event and again.moves == game.moves


def test_a_good_file_gives_no_warning_and_a_broken_tag_still_fails_clearly():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        game = xiangqi_pgn.read_game('[Event "a \\"b\\""]\n[Result "1-0"] 1. 炮二平五 1-0\n')
    assert game.headers["Event"] == 'a "b"' and not game.warnings and len(game.moves) == 1
    with pytest.raises(PgnError, match="line 2"):
        xiangqi_pgn.read_game('[Event "x"]\n[Site no quotes]\n1. 炮二平五\n')
