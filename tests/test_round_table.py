# SPDX-License-Identifier: GPL-3.0-or-later
"""``qizhong round results``'s table in a terminal (#30, page defect 11): names in
Chinese take two columns a character, and the columns still line up."""

from __future__ import annotations

from qizhong.cli.rounds import results_lines, width


def test_the_results_table_lines_up_for_chinese_names():
    rows = [
        {"board": 1, "first": "吕钦", "second": "许银川", "game": "xiangqi", "result": "1-0",
         "score": ""},
        {"board": 12, "first": "Conor O'Neill", "second": "Wang", "game": "go", "result": "",
         "score": "W+7.5"},
        {"board": 3, "first": "Li", "second": "王天一", "game": "chess", "result": "½-½",
         "score": ""},
    ]  # fmt: skip
    lines = results_lines(rows)
    assert width("吕钦") == 4 and width("Conor") == 5
    # Each cell starts at the same terminal column on every line.
    for cell in ("second", "game"):
        starts = []
        for line, r in zip(lines, rows, strict=True):
            at = line.index(str(r[cell]))
            starts.append(width(line[:at]))
        assert len(set(starts)) == 1, (cell, starts, lines)
    assert lines[1].split() == ["12", "Conor", "O'Neill", "Wang", "go", "-", "W+7.5"]
