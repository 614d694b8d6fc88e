# SPDX-License-Identifier: GPL-3.0-or-later
"""Voice announcements: cue ids and their schedules (RULES TC-5, TC-6a, TC-6b, TC-7).

The clock speaks one of five languages (``LANGS``) in one of two styles
(``STYLES``): counting up, as a timekeeper reads the time used, or counting
down, as the Citizen DIT-40 reads the time left. docs/voice.md gives each
language's convention and its source; the tables here follow it.

A schedule is a tuple of ``(due_ms, cue)`` pairs, ``due_ms`` counted from the
start of the count or byo-yomi period. A Canadian schedule is a tuple of
``(left_ms, cue)`` pairs instead: the cue is due when the block's time left
falls to ``left_ms``. Tables are built once per time control (and again when
the language or style changes, never in play), so the steady-state path only
indexes them.

Cue ids are small ints, the same in every language:
  1..10       the count digits "1" ... "10"
  SEC + s     "s秒" (s = 10, 20, 30, 40, 50, 55, 58)
  MIN1        "1分": a 60 s period used
  FLAG        the time is up ("no time left")
  LEFT + k    "还剩 k 分": k periods left
"""

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):  # type: ignore
        return x


SEC = const(100)
MIN1 = const(200)
FLAG = const(250)
LEFT = const(300)

LANGS = ("cmn", "yue", "ja", "ko", "en")
STYLES = ("up", "down")
_CMN = const(0)
_YUE = const(1)
_JA = const(2)
_KO = const(3)
_EN = const(4)
_DOWN = const(1)  # STYLES' index; 0 is up

# The voice in use (``use``): what tables are built for and which cue set plays.
lang = 0
style = 0

_S = const(1000)
_MIN = const(60000)


def use(lang_i, style_i):
    """Speak language ``LANGS[lang_i]`` in style ``STYLES[style_i]`` from now on.
    Time controls built before keep their tables until ``Overtime.retable``."""
    global lang, style
    if not 0 <= lang_i < len(LANGS) or not 0 <= style_i < len(STYLES):
        raise ValueError("voice %s, style %s" % (lang_i, style_i))
    lang = lang_i
    style = style_i


def _fine(lg):
    # The Chinese rules' readings: 55 s and 58 s, then "1分", in every period but the last.
    return lg in (_CMN, _YUE, _EN)


def _left_any(lg):
    # "k periods left" fits a period of any length (回, 회, periods); 还剩 k 分 only 60 s.
    return lg in (_JA, _KO, _EN)


def count_table(period_ms, lg=None, st=None):
    """TC-5 Xiangqi count over the last ``min(10, P)`` seconds of the period.

    Up: "1".."10" at each whole elapsed second ("10" at the period's end,
    still in time: the flag falls after the grace). Down: "9".."1" for the
    seconds left, nothing at the end (a digit at the move's start would be
    said over the press). Every language reads its own digits.
    """
    st = style if st is None else st
    window = min(10, period_ms // _S)
    start = period_ms - window * _S
    if st == _DOWN:
        return tuple((start + k * _S, window - k) for k in range(1, window))
    return tuple((start + k * _S, k) for k in range(1, window + 1))


def byoyomi_table(period_ms, last, lg=None, st=None):
    """Readings within one byo-yomi period; ``last`` for the final period.

    Up, a 60 s period (TC-6a): "30秒" "40秒" "50秒", then Mandarin, Cantonese
    and English add "55秒" "58秒" and at 60 s "1分" and "k periods left"
    (``LEFT``, k added when spoken); Japanese and Korean count "1".."9" over
    the last ten seconds and say the periods left at 60 s. In the last period
    every language counts "1".."9" and says "10" at 60 s: the loss. Other
    periods (TC-6b): every 10 s while more than 10 s remain, then the count.

    Down (DIT-40): "30秒" "20秒" left, then "10" .. "1"; at the end the
    periods left, or in the last period the flag word.
    """
    lg = lang if lg is None else lg
    st = style if st is None else st
    window = min(10, period_ms // _S)
    start = period_ms - window * _S
    out = []
    if st == _DOWN:
        for r in (30, 20):
            if 10 < r and r * _S < period_ms:
                out.append((period_ms - r * _S, SEC + r))
        out += [(start + k * _S, window - k) for k in range(window) if start + k * _S > 0]
        if last:
            out.append((period_ms, FLAG))
        elif period_ms == _MIN or _left_any(lg):
            out.append((period_ms, LEFT))
        return tuple(out)
    if period_ms == _MIN:  # TC-6a
        out = [(30 * _S, SEC + 30), (40 * _S, SEC + 40), (50 * _S, SEC + 50)]
    s = 10
    while period_ms != _MIN and period_ms - s * _S > 10 * _S:  # TC-6b: more than 10 s remain
        out.append((s * _S, SEC + s))
        s += 10
    digits = [(start + k * _S, k) for k in range(1, window)]
    if last:
        return tuple(out + digits + [(period_ms, window)])
    if period_ms == _MIN and _fine(lg):
        out += [(55 * _S, SEC + 55), (58 * _S, SEC + 58), (period_ms, MIN1)]
        return tuple(out + [(period_ms, LEFT)])
    if period_ms == _MIN or _left_any(lg):
        return tuple(out + digits + [(period_ms, LEFT)])
    return tuple(out + digits + [(period_ms, window)])  # TC-6b, Chinese: "10" ends it


def canadian_table(period_ms, lg=None, st=None):
    """TC-7 Canadian: cues by the block's time left, as ``(left_ms, cue)``.

    Up: "1".."9" over the block's last ten seconds, then "10" as it runs
    out. Down: "30秒" and "20秒" left, "10".."1", and the flag word at 0.
    """
    lg = lang if lg is None else lg
    st = style if st is None else st
    if st == _DOWN:
        out = [(r * _S, SEC + r) for r in (30, 20) if r * _S < period_ms]
        out += [(k * _S, k) for k in range(10, 0, -1) if k * _S < period_ms]
        return tuple(out + [(0, FLAG)])
    out = [((10 - k) * _S, k) for k in range(1, 10) if (10 - k) * _S < period_ms]
    return tuple(out + [(0, 10)])


def cue_text(cue):
    """What the speaker says, as text: "1", "30秒", "1分", "还剩 2 分", "时间到"."""
    if cue >= LEFT:
        return "还剩 %d 分" % (cue - LEFT)
    if cue == FLAG:
        return "时间到"
    if cue == MIN1:
        return "1分"
    if cue >= SEC:
        return "%d秒" % (cue - SEC)
    return str(cue)


_SECS = (10, 20, 30, 40, 50, 55, 58)
SLOTS = const(29)  # the cues of a language: 10 digits, 7 seconds, 1分, the flag, 10 left


def stems():
    """Each slot's stem, in bank order: n1..n10, s10..s58, m1, f, r1..r10."""
    return (
        ["n%d" % k for k in range(1, 11)]
        + ["s%d" % s for s in _SECS]
        + ["m1", "f"]
        + ["r%d" % k for k in range(1, 11)]
    )


# A language's cue bank, ``<lang>/cues.bin``: magic, the number of slots (u16)
# and a u16 0; then per slot (``stems()`` order) the offset and the length of its
# IMA ADPCM bytes (u32 each, little-endian); then the data.
BANK = "cues.bin"
MAGIC = b"QZV1"
BANK_HEAD = const(8)


def cue_slot(cue):
    """The cue's slot in a bank (its index in ``stems()``), -1 if none. Allocates nothing."""
    if 1 <= cue <= 10:
        return cue - 1
    if LEFT < cue <= LEFT + 10:
        return 18 + cue - LEFT
    if cue == FLAG:
        return 18
    if cue == MIN1:
        return 17
    if SEC < cue < MIN1:
        for i in range(7):
            if _SECS[i] == cue - SEC:
                return 10 + i
    return -1


def cue_asset(cue):
    """The sample's stem: n1..n10, s30, m1, f, r3 (there may be no sample: r11)."""
    if cue >= LEFT:
        return "r%d" % (cue - LEFT)
    if cue == FLAG:
        return "f"
    if cue == MIN1:
        return "m1"
    if cue >= SEC:
        return "s%d" % (cue - SEC)
    return "n%d" % cue
