# SPDX-License-Identifier: GPL-3.0-or-later
"""Lever debouncing: charged at the first edge, bounce never switches twice."""

from qizhong.core.lever import DOWN, NONE, UP, Lever


def test_first_edge_is_the_press_and_bounce_is_ignored():
    lv = Lever()
    got = [lv.edge(p, t) for p, t in [(1, 1000), (0, 1003), (1, 1006), (0, 1012), (1, 1019)]]
    assert got == [DOWN, NONE, NONE, NONE, NONE]
    assert lv.edge(0, 1150) == UP
    assert lv.edge(1, 1160) == NONE  # still inside the release's bounce window
    assert lv.edge(1, 1171) == DOWN


def test_a_level_repeated_is_not_an_edge():
    lv = Lever()
    assert lv.edge(0, 5000) == NONE
    assert lv.edge(1, 5000) == DOWN
    assert lv.edge(1, 6000) == NONE
