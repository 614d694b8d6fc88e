# SPDX-License-Identifier: GPL-3.0-or-later
"""The setup menu's settings after the stages (docs/menu.md): the overtime,
each side's own time, the handicap, the cap, the warning, the recording
threshold, the flag and the slot. Apart from ``menulist`` so that each
compiles on its own: the menu then opens after a game in a smaller heap."""

from . import tcspec
from .menuitems import (
    HANDICAPS,
    OVERTIMES,
    RECORDS,
    SIDES,
    SLOTS,
    UPCOUNT,
    WARNS,
    Item,
    _cycle,
    _plain,
    _set,
    base_step,
)
from .timecontrol import FISCHER

FLAGS = (None, True, False)  # after a flag: the mode's default, both clocks stop, play goes on
FLAG_NAMES = ("auto", "freeze", "run")


def items():
    """The settings after the stages, a new list."""
    d_ = tcspec.fmt_ms

    def side_base(i):
        attr = ("first", "second")[i]

        def f(m, d):
            v = max(1000, base_step(getattr(m.d, attr) or m.d.stages[0][1], d))
            setattr(m.d, attr, 0 if v == m.d.stages[0][1] else v)  # 0: the stage's own

        return Item(
            lambda m: SIDES[m.game][i],
            lambda m: d_(getattr(m.d, attr), False) if getattr(m.d, attr) else "same",
            f,
            lambda m: _plain(m) and m.d.stages[0][2] != UPCOUNT,
        )

    def handicap_step(m, d):
        m.d.handicap = _cycle(HANDICAPS, m.d.handicap, d)

    def cap_step(m, d):
        base = max(m.d.stages[0][1], m.d.first, m.d.second)
        m.d.cap = 0 if d < 0 and m.d.cap <= base else max(base, base_step(m.d.cap or base - 1, d))

    def warn_step(m, d):
        m.d.warn = _cycle(WARNS, m.d.warn, d)
        if tcspec.warn_cue(m.d.warn) < 0:
            m.d.voice = False

    def voice_step(m, d):
        m.d.voice = not m.d.voice

    def ot_step(m, d):
        m.d.ot = (m.d.ot + d) % len(OVERTIMES)

    def fischer_inc(m):
        return _plain(m) and any(s[2] == FISCHER and s[3] for s in m.d.stages)

    def record_step(m, d):  # TC-9
        m.d.record = _cycle(RECORDS, m.d.record, d)

    def flag_step(m, d):  # None (the mode's default), freeze, run
        m.d.freeze = _cycle(FLAGS, m.d.freeze, d)

    def keys_step(m, d):  # lock: once applied the keys do nothing (docs/menu.md)
        m.lock = not m.lock

    def save_step(m, d):
        m.save = (m.save + d) % (SLOTS + 1)

    return [
        Item("overtime", lambda m: OVERTIMES[m.d.ot], ot_step, _plain),
        Item("count", lambda m: d_(m.d.count), _set("count", 1000, 60000, 1000),
             lambda m: _plain(m) and m.d.ot == 1),
        Item("grace", lambda m: d_(m.d.grace), _set("grace", 0, 5000, 100),
             lambda m: _plain(m) and m.d.ot == 1),
        Item("periods", lambda m: "%d" % m.d.periods, _set("periods", 1, 99, 1),
             lambda m: _plain(m) and m.d.ot == 2),
        Item("period", lambda m: d_(m.d.period), _set("period", 5000, 600000, 5000),
             lambda m: _plain(m) and m.d.ot == 2),
        Item("moves", lambda m: "%d" % m.d.block_moves, _set("block_moves", 1, 99, 1),
             lambda m: _plain(m) and 3 <= m.d.ot <= 4),
        Item("block", lambda m: d_(m.d.block, False), _set("block", 60000, 3600000, 60000),
             lambda m: _plain(m) and 3 <= m.d.ot <= 4),
        side_base(0),
        side_base(1),
        Item("handicap", lambda m: ("%+d%%" % m.d.handicap) if m.d.handicap else "off",
             handicap_step, lambda m: _plain(m) and m.d.stages[0][2] != UPCOUNT),
        Item("cap", lambda m: d_(m.d.cap, False) if m.d.cap else "off", cap_step, fischer_inc),
        Item("warn", lambda m: d_(m.d.warn, False) if m.d.warn else "off", warn_step,
             lambda m: m.d.stages[0][2] != UPCOUNT),
        Item("sound", lambda m: "voice" if m.d.voice else "beep", voice_step,
             lambda m: m.d.warn and tcspec.warn_cue(m.d.warn) >= 0),
        Item("record", lambda m: d_(m.d.record, False) if m.d.record else "off", record_step,
             lambda m: m.d.stages[0][2] != UPCOUNT),
        Item("flag", lambda m: FLAG_NAMES[FLAGS.index(m.d.freeze)], flag_step),
        Item("keys", lambda m: "lock" if m.lock else "open", keys_step),
        Item("save", lambda m: "slot %d" % m.save if m.save else "no", save_step),
    ]  # fmt: skip
