# SPDX-License-Identifier: GPL-3.0-or-later
"""Clock behaviour that the rule table cannot express: the event ring, late stamps."""

from qizhong.core import clock, tcspec


def drain(c):
    out = []
    while k := c.pop_event():
        out.append((clock.EVENT_NAMES[k], c.ev_side, c.ev_t, c.ev_arg))
    return out


def test_a_long_tick_stops_at_a_full_ring_and_loses_nothing():
    # 10 min of byo-yomi readings in one call: far more events than the ring holds.
    c = clock.Clock(tcspec.parse("1s byoyomi 10x60s"))
    c.start(0)
    drain(c)
    got = []
    calls = 0
    while True:
        calls += 1
        n = c.tick(700000)
        assert n <= clock.Clock.EVENTS
        got += drain(c)
        if n < clock.Clock.EVENTS:
            break
    assert calls > 2 and c.lost == 0
    # The same game ticked deadline by deadline gives the same events.
    ref = clock.Clock(tcspec.parse("1s byoyomi 10x60s"))
    ref.start(0)
    drain(ref)
    want = []
    while 0 <= (d := ref.next_deadline()) <= 700000:
        ref.tick(d)
        want += drain(ref)
    assert got == want
    assert [e for e in got if e[0] == "flag"] == [("flag", 0, 601000, 1)]


def test_an_action_runs_to_its_instant_even_with_a_full_ring():
    c = clock.Clock(tcspec.parse("1s byoyomi 10x60s"))
    c.start(0)
    c.tick(700000)  # stops early, ring full
    c.press(0, 700000)  # the press still runs the rules up to its instant
    assert c.state == clock.FLAGGED and c.lost > 0
    assert c.first_flag == 0


def test_a_stamp_earlier_than_one_seen_is_charged_at_the_latest_instant():
    # The board stamps presses in the IRQ; if a stamp ever arrives out of
    # order the clock never runs backwards, and counts it.
    c = clock.Clock(tcspec.parse("5m"))
    c.start(0)
    c.tick(10000)
    c.press(0, 9000)
    assert c.late == 1
    assert c.left(0, 10000) == 290000
