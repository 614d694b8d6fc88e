# SPDX-License-Identifier: GPL-3.0-or-later
"""Voice announcements: cue ids and their schedules (RULES TC-5, TC-6a, TC-6b).

A schedule is a tuple of ``(due_ms, cue)`` pairs, ``due_ms`` counted from the
start of the count or byo-yomi period. Tables are built once per time control,
so the steady-state path only indexes them.

Cue ids are small ints:
  1..10       the count digits "1" ... "10"
  SEC + s     "s秒" (s = 10, 20, 30, 40, 50, 55, 58)
  MIN1        "1分"
  LEFT + k    "还剩 k 分" (k periods left)
"""

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):  # type: ignore
        return x


SEC = const(100)
MIN1 = const(200)
LEFT = const(300)

_S = const(1000)


def _count(period_ms, window):
    # Count "1".."window" over the last `window` seconds of the period.
    start = period_ms - window * _S
    return [(start + k * _S, k) for k in range(1, window + 1)]


def count_table(period_ms):
    """TC-5 Xiangqi count: "1".."10" at each whole elapsed second.

    Interpretation for P > 10 s: the digits count the last 10 s of the period.
    """
    return tuple(_count(period_ms, min(10, period_ms // _S)))


def byoyomi_table(period_ms, last):
    """Readings within one byo-yomi period; ``last`` for the final period.

    TC-6a for 60 s periods; TC-6b (every 10 s while more than 10 s remain,
    then "1".."10" over the last 10 s) for any other length.
    """
    if period_ms == 60 * _S:
        if last:  # TC-6a: 30, 40, 50 s, then 1..10 at 51..60 s
            return tuple([(s * _S, SEC + s) for s in (30, 40, 50)] + _count(period_ms, 10))
        return tuple(
            [(s * _S, SEC + s) for s in (30, 40, 50, 55, 58)]
            + [(period_ms, MIN1), (period_ms, LEFT)]  # LEFT gets k added when spoken
        )
    window = min(10, period_ms // _S)
    calls = []
    s = 10
    while period_ms - s * _S > 10 * _S:  # TC-6b: only while more than 10 s remain
        calls.append((s * _S, SEC + s))
        s += 10
    return tuple(calls + _count(period_ms, window))


def cue_text(cue):
    """What the speaker says, as text: "1", "30秒", "1分", "还剩 2 分"."""
    if cue >= LEFT:
        return "还剩 %d 分" % (cue - LEFT)
    if cue == MIN1:
        return "1分"
    if cue >= SEC:
        return "%d秒" % (cue - SEC)
    return str(cue)


def cue_asset(cue):
    """The sample's file stem: n1..n10, s30, m1, r3."""
    if cue >= LEFT:
        return "r%d" % (cue - LEFT)
    if cue == MIN1:
        return "m1"
    if cue >= SEC:
        return "s%d" % (cue - SEC)
    return "n%d" % cue
