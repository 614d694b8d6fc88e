# SPDX-License-Identifier: GPL-3.0-or-later
"""Voice announcements: cue ids and their schedules (RULES TC-5, TC-6a, TC-6b, TC-7).

The clock speaks one of five languages (``LANGS``) in one of two styles
(``STYLES``): counting up, as a timekeeper reads the time used, or counting
down, as the Citizen DIT-40 reads the time left. docs/voice.md gives each
language's convention and its source; the tables here follow it.

A schedule is a tuple of ``(due_ms, cue)`` pairs, ``due_ms`` counted from the
start of the count or byo-yomi period; cues due at one instant are said one
after the other ("2分", then "还剩 4 分"). A Canadian schedule is a tuple of
``(left_ms, cue)`` pairs instead: the cue is due when the block's time left
falls to ``left_ms``. Tables are built once per time control (and again when
the language or style changes, never in play), so the steady-state path only
indexes them (``fill`` does integer sums).

Cue ids are small ints, the same in every language; each range is its own
(the ids of the first cue set are kept: 1分 is 200, 还剩 k 分 is 300 + k):
  1..10       the count digits "1" ... "10"
  SEC + s     "s秒" (s = 10, 20, 30, 40, 50 and the sourced 25, 28, 55, 58)
  MIN + m     "m分": m minutes (m = 1..10; MIN1 = MIN + 1)
  FLAG        the time is up (down style, last period)
  LEFT + x    x minutes left (还剩 x 分, のこりあと x ふんです, x minutes left)
  NUM + n     n said as a bare number: 11..19, 20, 30, 40, 50 ("四十" "三": 43)
  PER + k     k periods (のこり k かい, k회 남음; English "k - 1 left"; 1: the last)
"""

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):  # type: ignore
        return x


SEC = const(100)
MIN = const(199)
MIN1 = const(200)  # "1分"
FLAG = const(250)
LEFT = const(300)  # to 1299
NUM = const(2000)
PER = const(3000)  # to 3999
# Table entries filled in when spoken (``fill``), by the periods left:
MARK_IN = const(5000)  # LEFT + the minutes left, this period included (还剩 k 分)
MARK_EX = const(5001)  # LEFT + the minutes left after this period; none: PER + 1
MARK_PER = const(5002)  # PER + the periods left, this one included
MAX_MIN = const(10)  # "m分" and the "left" phrases are recorded up to 10

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
_WHOLE = (10, 20, 30, 40, 50, 25, 28, 55, 58)  # "s秒" recorded whole


def use(lang_i, style_i):
    """Speak language ``LANGS[lang_i]`` in style ``STYLES[style_i]`` from now on.
    Time controls built before keep their tables until ``Overtime.retable``."""
    global lang, style
    if not 0 <= lang_i < len(LANGS) or not 0 <= style_i < len(STYLES):
        raise ValueError("voice %s, style %s" % (lang_i, style_i))
    lang = lang_i
    style = style_i


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

    Up (time used, docs/voice.md): "m分" at each whole minute; every 10 s the
    seconds of the minute ("30秒"), from 10 s (periods under a minute) or
    over the last 30 s; then either the count "1".."9" and at the end "10"
    (the last period; Korean always; Chinese unless the period is whole
    minutes) or, as the Japanese timekeeper reads while time in reserve
    remains, the seconds 5 s and 2 s before the end ("55" "58"; "四十" "三"
    for 43) and at the end "m分" and the minutes or periods left.

    Down (DIT-40): "m分" left at each whole minute, "30秒" "20秒" left, then
    "10" .. "1"; at the end the periods left, or in the last period the flag word.
    """
    lg = lang if lg is None else lg
    st = style if st is None else st
    p = period_ms // _S  # whole seconds (tcspec)
    w = p if p < 10 else 10
    cn = lg == _CMN or lg == _YUE
    whole = p % 60 == 0
    # The periods-left phrase (voice.fill) at the end of a period that is not the last.
    end = (MARK_IN if whole else 0) if cn else MARK_EX if whole and lg != _KO else MARK_PER
    out = []  # type: list
    if st == _DOWN:
        for t in range(1, p):
            r = p - t  # left
            if r % 60 == 0 and r <= 60 * MAX_MIN:
                out.append((t * _S, MIN + r // 60))
            elif r == 30 or r == 20:
                out.append((t * _S, SEC + r))
            elif r <= w:
                out.append((t * _S, r))
        if last or end:
            out.append((period_ms, FLAG if last else end))
        return tuple(out)
    count = last or lg == _KO or (cn and not whole)
    lo = 10 if p < 60 else p - 30
    hi = p - 11 if p < 60 and (cn or lg == _KO) else p - 10  # TC-6b: more than 10 s remain
    for t in range(1, p):
        if count and t > p - w:
            out.append((t * _S, t - p + w))  # the count
            continue
        m, s = divmod(t, 60)
        if count or t <= p - 5:
            if not ((s == 0 and 0 < m <= MAX_MIN) or (t % 10 == 0 and lo <= t <= hi) or t == p - 5):
                continue
        elif t != p - 2:
            continue  # the last seconds: "58" only
        if s == 0:
            if m <= MAX_MIN:
                out.append((t * _S, MIN + m))
        elif s in _WHOLE:
            out.append((t * _S, SEC + s))
        elif s < 10:
            out.append((t * _S, s))  # a bare digit
        else:  # a bare number: "十三", or "四十" "三"
            out.append((t * _S, NUM + (s if s < 20 else s - s % 10)))
            if s > 20 and s % 10:
                out.append((t * _S, s % 10))
    if count:
        out.append((period_ms, w if last or cn else end))
    else:
        if whole and p <= 60 * MAX_MIN:
            out.append((period_ms, MIN + p // 60))
        out.append((period_ms, end))
    return tuple(out)


def fill(cue, k, period_ms):
    """The cue to say for table entry ``cue`` with ``k`` periods left, the
    new one included (``MARK_*``: the periods-left phrase). Allocates nothing."""
    if cue < MARK_IN:
        return cue
    if cue == MARK_PER:
        return PER + (k if k < 999 else 999)
    x = period_ms // _MIN * (k if cue == MARK_IN else k - 1)
    if x <= 0:
        return PER + 1  # the last period's word
    return LEFT + (x if x < 999 else 999)


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


SLOTS = const(63)  # the slots of a bank, in cuenames.stems() order


# A language's cue bank, ``<lang>/cues.bin``: magic, the number of slots (u16)
# and a u16 0; then per slot (``stems()`` order) the offset and the length of its
# IMA ADPCM bytes (u32 each, little-endian; 0: not recorded); then the data.
# The cues' names and words (stems, cue_text): ``cuenames``, which the clock never loads.
BANK = "cues.bin"
MAGIC = b"QZV2"
BANK_HEAD = const(8)


def cue_slot(cue):
    """The cue's slot in a bank (its index in ``cuenames.stems()``), -1 if none.
    Allocates nothing."""
    if 1 <= cue <= 10:
        return cue - 1
    if PER < cue <= PER + 10:
        return 52 + cue - PER
    if LEFT < cue <= LEFT + 10:
        return 42 + cue - LEFT
    if MIN < cue <= MIN + 10:
        return 31 + cue - MIN
    if cue == FLAG:
        return 42
    if NUM + 11 <= cue <= NUM + 19:
        return 19 + cue - NUM - 11
    if NUM + 20 <= cue <= NUM + 50 and cue % 10 == 0:
        return 26 + (cue - NUM) // 10
    if SEC < cue < MIN:
        for i in range(9):
            if _WHOLE[i] == cue - SEC:
                return 10 + i
    return -1
