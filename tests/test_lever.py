# SPDX-License-Identifier: GPL-3.0-or-later
"""Lever debouncing: charged at the first edge, bounce never switches twice."""

from qizhong.core.lever import DOWN, NONE, UP, Lever


def test_first_edge_is_the_press_and_bounce_is_ignored():
    lv = Lever()
    got = [lv.edge(p, t) for p, t in [(1, 1000), (0, 1003), (1, 1006), (0, 1012), (1, 1019)]]
    assert got == [DOWN, NONE, NONE, NONE, NONE]
    assert lv.t == 1000
    assert lv.settle_at() == -1  # it ended down: nothing hidden
    assert lv.edge(0, 1150) == UP
    assert lv.edge(1, 1160) == NONE  # still inside the release's bounce window
    assert lv.settle_at() == 1170
    assert lv.settle(1169) == NONE
    assert lv.settle(1170) == DOWN and lv.t == 1160  # stamped at its edge
    assert lv.edge(1, 1171) == NONE


def test_a_release_inside_the_window_is_not_lost():
    lv = Lever()
    assert lv.edge(1, 1000) == DOWN
    assert lv.edge(0, 1010) == NONE  # a 10 ms tap
    assert lv.settle_at() == 1020
    assert lv.settle(1020) == UP and lv.t == 1010
    assert not lv.down and lv.settle_at() == -1


def test_a_level_repeated_is_not_an_edge():
    lv = Lever()
    assert lv.edge(0, 5000) == NONE
    assert lv.edge(1, 5000) == DOWN
    assert lv.edge(1, 6000) == NONE
