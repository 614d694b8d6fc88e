# SPDX-License-Identifier: GPL-3.0-or-later
"""The voice cues' names: each bank slot's stem and each cue's words, for the
host (records, the simulator's sound, the arbiter's log, tools/make_voice.py).

Pure like the rest of the core, but not loaded by the clock: the Pico plays
cues by ``voice.cue_slot`` and keeps these out of its heap.
"""

from .voice import _WHOLE, FLAG, LEFT, MIN, NUM, PER, SEC


def stems():
    """Each slot's stem, in bank order: n1..n10, s10..s58, b11..b50, m1..m10,
    f, l1..l10, p1..p10. A language leaves the slots it never says empty;
    ``voice.cue_slot`` gives a cue's."""
    return (
        ["n%d" % k for k in range(1, 11)]
        + ["s%d" % s for s in _WHOLE]
        + ["b%d" % n for n in (11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 30, 40, 50)]
        + ["m%d" % m for m in range(1, 11)]
        + ["f"]
        + ["l%d" % x for x in range(1, 11)]
        + ["p%d" % k for k in range(1, 11)]
    )


def cue_text(cue):
    """What the cue says, language-neutral: "1", "30秒", "四十", "2分", "还剩 4 分",
    "3 periods", "时间到" (each language's words: its bank's index.txt)."""
    if cue >= PER:
        return "%d periods" % (cue - PER)
    if cue >= NUM:
        return str(cue - NUM)
    if cue >= LEFT:
        return "还剩 %d 分" % (cue - LEFT)
    if cue == FLAG:
        return "时间到"
    if cue > MIN:
        return "%d分" % (cue - MIN)
    if cue >= SEC:
        return "%d秒" % (cue - SEC)
    return str(cue)


def cue_asset(cue):
    """The sample's stem: n1, s30, b40, m2, f, l3, p2 (there may be no sample: l11)."""
    if cue >= PER:
        return "p%d" % (cue - PER)
    if cue >= NUM:
        return "b%d" % (cue - NUM)
    if cue >= LEFT:
        return "l%d" % (cue - LEFT)
    if cue == FLAG:
        return "f"
    if cue > MIN:
        return "m%d" % (cue - MIN)
    if cue >= SEC:
        return "s%d" % (cue - SEC)
    return "n%d" % cue
