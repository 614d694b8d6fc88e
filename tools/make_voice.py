#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Generate the voice cues (RULES TC-5, TC-6a, TC-6b, TC-7) with eSpeak NG, in five languages.

Usage: python tools/make_voice.py OUTDIR  (``make voice`` writes firmware/assets/voice)

Every cue of every language (``LANGS``: cmn, yue, ja, ko, en; docs/voice.md)
becomes ``OUTDIR/<lang>/<stem>.ima``: IMA ADPCM (``qizhong.adpcm``) of mono
8000 Hz audio, leading and trailing silence trimmed, peak-normalised to -1
dBFS, with a few ms of fade at both ends (no click on the I2S amplifier). The
stems are those of ``qizhong.cuenames.cue_asset`` (n1..n10, s10..s58, b11..b50,
m1..m10, f, l1..l10, p1..p10), each language only those its tables say
(``used``); ``OUTDIR/<lang>/index.txt`` lists stem, bytes, duration_ms and text.

Needs ``espeak-ng`` and ``sox`` on PATH (Debian: apt-get install espeak-ng sox);
only this tool needs them, the generated files are committed. Standard library
and the firmware's own ``qizhong.adpcm`` only.

Voices: espeak-ng 1.51's ``cmn`` voice reads Latin text as English, and its own
pinyin too, so "一" comes out as "yi one" (espeak-ng issues #1028, #1236). The
``cmn-latn-pinyin`` voice reads the same characters correctly, so it is preferred;
the tool refuses any voice whose phoneme output switches to English (outside
English). Japanese is given in kana: espeak-ng's ``ja`` voice reads no kanji.

Speed: each group (digits, seconds readings, minute and periods-left
announcements, the flag word) uses one speed, the slowest from BASE_WPM up
that makes every sample in the group fit its budget: a digit must fit well
inside the one second of the count, a phrase under 0.9 s.
"""

import argparse
import os
import struct
import subprocess
import sys
import tempfile
from array import array

RATE = 8000  # Hz; the I2S amplifier (MAX98357A) accepts 8 kHz
PEAK = 26028  # -2 dBFS: headroom, so no decoded sample (ADPCM overshoots) reaches full scale
THRESHOLD = 0.01  # of the peak (-40 dB): quieter edges count as silence
PAD_MS = 10  # silence kept either side of the sound
FADE_MS = 4  # linear fade-in/out at the very ends
FILL = 2  # what exact zeros inside a cue become (fill_pauses)

DIGIT_MAX_MS = 600
PHRASE_MAX_MS = 850  # the hard limit (tests) is 900
# "k periods left": the next cue may come 1 s later (a 10 s period). The clock
# plays whole 64 ms chunks and 64 ms of silence after a cue: 14 chunks fit.
LEFT_MAX_MS = 890
MINUTES_LEFT_MAX_MS = 1800
BASE_WPM = 175  # espeak-ng's default speed, clear
MAX_WPM = 260  # beyond this it stops being clear: fail instead
STEP_WPM = 5

try:  # the host package: its core is the firmware's qizhong
    from qizhong.core import adpcm, cuenames, tcspec, voice
except ImportError:  # without it installed: the firmware's own folder
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "firmware"))
    from qizhong import adpcm, cuenames, tcspec, voice  # type: ignore[no-redef]

NUMERALS = ("一", "二", "三", "四", "五", "六", "七", "八", "九", "十")
SECONDS = (10, 20, 30, 40, 50, 25, 28, 55, 58)  # voice._WHOLE: "s秒" recorded whole
BARE = (11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 30, 40, 50)  # said as bare numbers
UPTO = range(1, 11)  # "m分", "x minutes left", "k periods" are recorded for 1..10


def _number(n: int) -> str:
    """Chinese numeral for 1..99 (十, 三十, 五十八)."""
    tens, ones = divmod(n, 10)
    text = ""
    if tens:
        text = ("" if tens == 1 else NUMERALS[tens - 1]) + "十"
    if ones:
        text += NUMERALS[ones - 1]
    return text


# Japanese in kana (docs/voice.md): よん and なな in the count.
JA_DIGITS = ("いち", "に", "さん", "よん", "ご", "ろく", "なな", "はち", "きゅう", "じゅう")
JA_FUN = ("いっぷん", "にふん", "さんぷん", "よんぷん", "ごふん", "ろっぷん", "ななふん",
          "はっぷん", "きゅうふん", "じゅっぷん")  # fmt: skip
JA_KAI = ("いっかい", "にかい", "さんかい", "よんかい", "ごかい", "ろっかい", "ななかい",
          "はちかい", "きゅうかい", "じゅっかい")  # fmt: skip
# Korean: native numerals for the count, Sino-Korean for seconds, minutes and periods.
KO_NATIVE = ("하나", "둘", "셋", "넷", "다섯", "여섯", "일곱", "여덟", "아홉", "열")
KO_SINO = ("일", "이", "삼", "사", "오", "육", "칠", "팔", "구", "십")
EN_DIGITS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
EN_TEENS = ("eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
            "eighteen", "nineteen")  # fmt: skip
EN_TENS = {10: "ten", 20: "twenty", 30: "thirty", 40: "forty", 50: "fifty"}


def _ko_number(n: int) -> str:
    tens, ones = divmod(n, 10)
    text = ("" if tens == 1 else KO_SINO[tens - 1]) + "십" if tens else ""
    return text + (KO_SINO[ones - 1] if ones else "")


def _ja_number(n: int) -> str:
    tens, ones = divmod(n, 10)
    text = ("" if tens == 1 else JA_DIGITS[tens - 1]) + "じゅう" if tens else ""
    return text + (JA_DIGITS[ones - 1] if ones else "")


def _en_number(n: int) -> str:
    if n <= 10:
        return EN_DIGITS[n - 1]
    if n < 20:
        return EN_TEENS[n - 11]
    tens, ones = divmod(n, 10)
    return EN_TENS[10 * tens] + ("-" + EN_DIGITS[ones - 1] if ones else "")


Cue = tuple[str, str, str]  # stem, text, what espeak-ng is given


def texts(lang: str) -> dict[str, tuple[str, str]]:
    """stem: (text, what espeak-ng is given), for every stem the language has
    words for (docs/voice.md's tables). ``used`` picks the ones it says."""
    out: dict[str, tuple[str, str]] = {}

    def put(stem: str, text: str, say: str = "") -> None:
        out[stem] = (text, say or text)

    if lang in ("cmn", "yue"):
        two = "两" if lang == "cmn" else "兩"
        remain = "还剩" if lang == "cmn" else "還剩"
        for k in UPTO:
            put("n%d" % k, _number(k))
            put("m%d" % k, (two if k == 2 else _number(k)) + "分")
            put("l%d" % k, remain + (two if k == 2 else _number(k)) + "分")
        for s in SECONDS:
            put("s%d" % s, _number(s) + "秒")
        for n in BARE:
            put("b%d" % n, _number(n))
        if lang == "cmn":
            # espeak-ng (cmn) misses one tone sandhi: 一 before a first tone (一分) is yì.
            put("m1", "一分", "yi4 fen1")
            put("l1", "还剩一分", "hai2 sheng4 yi4 fen1")
        put("f", "时间到" if lang == "cmn" else "時間到")
    elif lang == "ja":
        for k in UPTO:
            put("n%d" % k, JA_DIGITS[k - 1])
            put("m%d" % k, JA_FUN[k - 1])
            put("l%d" % k, "のこりあと%sです" % JA_FUN[k - 1], "のこりあと %s です" % JA_FUN[k - 1])
            put("p%d" % k, "のこり%s" % JA_KAI[k - 1], "のこり %s" % JA_KAI[k - 1])
        for s in SECONDS:
            put("s%d" % s, _ja_number(s) + "びょう")
        for n in BARE:
            put("b%d" % n, _ja_number(n))
        put("f", "じかんぎれです")
    elif lang == "ko":
        for k in UPTO:
            put("n%d" % k, KO_NATIVE[k - 1])
            put("m%d" % k, _ko_number(k) + "분")
            put("p%d" % k, "마지막 초읽기" if k == 1 else "%s회 남음" % _ko_number(k))
        for s in SECONDS:
            put("s%d" % s, _ko_number(s) + "초")
        for n in BARE:
            put("b%d" % n, _ko_number(n))
        put("f", "시간 초과")
    else:
        for k in UPTO:
            put("n%d" % k, EN_DIGITS[k - 1])
            put("m%d" % k, "one minute" if k == 1 else "%s minutes" % EN_DIGITS[k - 1])
            put("l%d" % k, "one minute left" if k == 1 else "%s minutes left" % EN_DIGITS[k - 1])
            # British Go Journal 106: "no time left" as the last minute starts.
            put("p%d" % k, "no time left" if k == 1 else "%s left" % EN_DIGITS[k - 2])
        for s in SECONDS:
            put("s%d" % s, _en_number(s) + (" seconds" if s % 10 == 0 else ""))
        for n in BARE:
            put("b%d" % n, _en_number(n))
        put("f", "time is up")
    return out


def used(lang: str) -> list[str]:
    """The stems ``lang`` ever says, in bank order: every table ``qizhong.voice``
    builds (counts of 1..60 s, byo-yomi periods of 1..600 s with 1..99
    periods left, Canadian blocks, both styles) and the TC-15 spoken warnings."""
    lg = voice.LANGS.index(lang)
    cues = {tcspec.warn_cue(ms) for ms in [60000] + [1000 * s for s in range(10, 60)]}
    for st in (0, 1):
        for s in range(1, 61):
            cues.update(c for _t, c in voice.count_table(1000 * s, lg, st))
        for b in (1000, 5000, 15000, 25000, 35000, 600000):
            cues.update(c for _t, c in voice.canadian_table(b, lg, st))
        for s in range(1, 601):
            for last in (False, True):
                for _t, c in voice.byoyomi_table(1000 * s, last, lg, st):
                    if c < voice.MARK_IN:
                        cues.add(c)
                    else:  # the periods left, filled in when spoken: 1 to 99
                        cues.update(voice.fill(c, k, 1000 * s) for k in range(1, 100))
    slots = {voice.cue_slot(c) for c in cues} - {-1}
    return [stem for i, stem in enumerate(cuenames.stems()) if i in slots]


# lang: (espeak-ng voices, the first one listed wins)
VOICES = {
    "cmn": ("cmn-latn-pinyin", "cmn"),
    "yue": ("yue",),
    "ja": ("ja",),
    "ko": ("ko",),
    "en": ("en-gb", "en"),
}
LANGS = tuple(VOICES)

# (group, budget_ms, stem prefix): one speed per group. The budgets: a digit
# or a bare number fits well inside the count's second (two make "43" within
# the 2 s before the period ends); a reading under 0.9 s; "k periods" too (the
# next period's count, or its "9" counting down, may come 1 s later); "x
# minutes left" ends a whole-minute period, 30 s or more before the next reading.
GROUPS = (
    ("digits", DIGIT_MAX_MS, "n"),
    ("numbers", DIGIT_MAX_MS, "b"),
    ("seconds", PHRASE_MAX_MS, "s"),
    ("minutes", PHRASE_MAX_MS, "m"),
    ("periods", LEFT_MAX_MS, "p"),
    ("minutes left", MINUTES_LEFT_MAX_MS, "l"),
    ("flag", PHRASE_MAX_MS, "f"),
)


def groups(lang: str = "cmn") -> list[tuple[str, int, list[Cue]]]:
    """(name, budget_ms, cues): each cue is (stem, text, what espeak-ng is given),
    the stems ``lang`` says (``used``) only."""
    words = texts(lang)
    stems = used(lang)
    missing = [stem for stem in stems if stem not in words]
    if missing:
        sys.exit("make_voice: no %s words for %s" % (lang, " ".join(missing)))
    out = []
    for name, budget, prefix in GROUPS:
        cues = [(st, *words[st]) for st in stems if st.rstrip("0123456789") == prefix]
        if cues:
            out.append((name, budget, cues))
    return out


def encode(samples: array) -> bytes:
    """IMA ADPCM of ``samples``, two per byte, low nibble first, from state (0, 0);
    an odd count gets one silent sample more. ``qizhong.adpcm`` decodes it."""
    pred, index = 0, 0
    out = bytearray((len(samples) + 1) // 2)
    for i in range(2 * len(out)):
        x = samples[i] if i < len(samples) else 0
        st = adpcm.STEPS[index]
        diff = x - pred
        code = 0
        if diff < 0:
            code, diff = 8, -diff
        if diff >= st:
            code |= 4
            diff -= st
        if diff >= st >> 1:
            code |= 2
            diff -= st >> 1
        if diff >= st >> 2:
            code |= 1
        pred, index = adpcm.step(pred, index, code)
        out[i >> 1] |= code << (4 * (i & 1))
    return bytes(out)


def decode(data: bytes) -> array:
    """The samples of an .ima cue (through the firmware's own decoder)."""
    pcm = bytearray(4 * len(data))
    adpcm.Decoder().decode_into(data, len(data), pcm)
    out = array("h")
    out.frombytes(bytes(pcm))
    if sys.byteorder == "big":
        out.byteswap()
    return out


def trim_silence(samples: array, threshold: int, pad: int = 0) -> array:
    """Drop leading and trailing samples quieter than ``threshold``, keeping ``pad``.

    A sample is sound when its magnitude reaches ``threshold``; up to ``pad``
    samples before the first and after the last such sample are kept. All
    silence gives an empty array.
    """
    loud = [i for i, x in enumerate(samples) if abs(x) >= threshold]
    if not loud:
        return array("h")
    start = max(0, loud[0] - pad)
    stop = min(len(samples), loud[-1] + 1 + pad)
    return samples[start:stop]


def normalise(samples: array, peak: int = PEAK) -> array:
    """Scale so that the largest magnitude is ``peak``."""
    top = max((abs(x) for x in samples), default=0)
    if not top:
        return array("h", samples)
    gain = peak / top
    return array("h", (round(x * gain) for x in samples))


def fade(samples: array, n: int) -> array:
    """Linear fade-in over the first ``n`` samples and fade-out over the last ``n``."""
    out = array("h", samples)
    n = min(n, len(out) // 2)
    for i in range(n):
        g = i / n
        out[i] = round(out[i] * g)
        out[-1 - i] = round(out[-1 - i] * g)
    return out


def fill_pauses(samples: array, level: int = FILL) -> array:
    """Exact zeros inside the sound become +-``level`` in turn (-84 dBFS, at
    4 kHz: inaudible). The test jig ends a cue at a run of zeros (jig/jigcore.py
    GAP); espeak-ng's Cantonese has such runs between syllables."""
    out = array("h", samples)
    nz = [i for i, x in enumerate(out) if x]
    if nz:
        for i in range(nz[0], nz[-1]):
            if not out[i]:
                out[i] = level if i & 1 else -level
    return out


def process(samples: array) -> array:
    """Raw 8 kHz synthesis to the finished cue: trim, normalise, fade, fill pauses."""
    top = max((abs(x) for x in samples), default=0)
    pad = RATE * PAD_MS // 1000
    trimmed = trim_silence(samples, max(1, round(top * THRESHOLD)), pad)
    return fill_pauses(fade(normalise(trimmed), RATE * FADE_MS // 1000))


def duration_ms(samples: array) -> int:
    return round(len(samples) * 1000 / RATE)


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, check=True, capture_output=True, **kw)
    except FileNotFoundError:
        sys.exit("make_voice: %s not found (apt-get install espeak-ng sox)" % cmd[0])
    except subprocess.CalledProcessError as e:
        sys.exit("make_voice: %s failed: %s" % (" ".join(cmd), e.stderr.decode(errors="replace")))


def pick_voice(lang: str) -> str:
    listed = _run(["espeak-ng", "--voices"]).stdout.decode()
    names = {line.split()[1] for line in listed.splitlines()[1:] if line.split()}
    for v in VOICES[lang]:
        if v in names:
            return v
    sys.exit("make_voice: no %s voice in espeak-ng --voices" % lang)


def check_phonemes(voice: str, say: str) -> None:
    """Fail if espeak-ng would read part of ``say`` as English (the cmn bug)."""
    ph = _run(["espeak-ng", "-v", voice, "-q", "-x", say]).stdout.decode()
    if not voice.startswith("en") and "(en)" in ph:
        sys.exit("make_voice: voice %s reads %r as English: %s" % (voice, say, ph.strip()))


def synth(voice: str, wpm: int, say: str, tmp: str) -> array:
    """eSpeak NG to a WAV file, sox to 8 kHz s16le mono raw, then ``process``."""
    wav = os.path.join(tmp, "say.wav")
    _run(["espeak-ng", "-v", voice, "-s", str(wpm), "-w", wav, say])
    # -D: no dither (it would fill the silence with noise), -R: repeatable output.
    fmt = ["-t", "raw", "-e", "signed-integer", "-b", "16", "-c", "1", "-L"]
    raw = _run(["sox", "-D", "-R", wav, *fmt, "-", "rate", "-h", str(RATE)]).stdout
    samples = array("h")
    samples.frombytes(raw)
    if sys.byteorder == "big":
        samples.byteswap()
    return process(samples)


def fit(
    voice: str, group: list[tuple[str, str, str]], limit_ms: int, tmp: str
) -> tuple[int, dict[str, array]]:
    """The slowest speed at which every sample of the group lasts at most limit_ms."""
    for wpm in range(BASE_WPM, MAX_WPM + 1, STEP_WPM):
        out = {stem: synth(voice, wpm, say, tmp) for stem, _text, say in group}
        if all(duration_ms(s) <= limit_ms for s in out.values()):
            return wpm, out
    longest = max(out, key=lambda stem: len(out[stem]))
    sys.exit(
        "make_voice: %s lasts %d ms even at %d wpm" % (longest, duration_ms(out[longest]), wpm)
    )


def version() -> str:
    out = _run(["espeak-ng", "--version"]).stdout.decode().split()
    return out[out.index("text-to-speech:") + 1] if "text-to-speech:" in out else "?"


def bank(cues: list[bytes]) -> bytes:
    """A cue bank (``qizhong.voice.BANK``): the header, the slot table, the data."""
    head = bytearray(voice.MAGIC + struct.pack("<HH", len(cues), 0))
    at = len(head) + 8 * len(cues)
    for c in cues:
        head += struct.pack("<II", at, len(c))
        at += len(c)
    return bytes(head) + b"".join(cues)


def read_bank(data: bytes) -> list[bytes]:
    """The cues of a bank, in slot order (ValueError if it is not one)."""
    if data[:4] != voice.MAGIC:
        raise ValueError("not a cue bank")
    (n,) = struct.unpack_from("<H", data, 4)
    out = []
    for i in range(n):
        at, size = struct.unpack_from("<II", data, voice.BANK_HEAD + 8 * i)
        if at + size > len(data):
            raise ValueError("slot %d beyond the end" % i)
        out.append(data[at : at + size])
    return out


def make(lang: str, outdir: str, tmp: str) -> int:
    """Write one language's cues and index into ``outdir``; returns their bytes."""
    espeak = pick_voice(lang)
    cues = [cue for _name, _limit, group in groups(lang) for cue in group]
    for _stem, _text, say in cues:
        check_phonemes(espeak, say)
    samples: dict[str, array] = {}
    speeds = []
    for name, limit, group in groups(lang):
        wpm, out = fit(espeak, group, limit, tmp)
        samples.update(out)
        speeds.append("%s %d wpm" % (name, wpm))
    os.makedirs(outdir, exist_ok=True)
    for name in sorted(os.listdir(outdir)):
        if name.endswith(".ima"):  # the older layout: one file a cue
            os.remove(os.path.join(outdir, name))
    lines = [
        "# %s voice cues of qizhong, generated by tools/make_voice.py (make voice)." % lang,
        "# format: ima_adpcm mono %d Hz, in %s" % (RATE, voice.BANK),
        "# espeak-ng %s, voice %s; %s" % (version(), espeak, ", ".join(speeds)),
        "# stem\tbytes\tduration_ms\ttext",
    ]
    words = {stem: text for stem, text, _say in cues}
    data = {stem: encode(samples[stem]) for stem in words}
    for stem in cuenames.stems():
        if stem in data:
            lines.append(
                "%s\t%d\t%d\t%s"
                % (stem, len(data[stem]), duration_ms(decode(data[stem])), words[stem])
            )
    with open(os.path.join(outdir, voice.BANK), "wb") as f:
        f.write(bank([data.get(stem, b"") for stem in cuenames.stems()]))
    total = sum(len(d) for d in data.values())
    with open(os.path.join(outdir, "index.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(
        "%s: %d cues, %d bytes; voice %s; %s" % (lang, len(cues), total, espeak, ", ".join(speeds))
    )
    return total


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--lang", action="append", choices=LANGS, help="only these (default: all)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        for lang in args.lang or LANGS:
            make(lang, os.path.join(args.outdir, lang), tmp)
    for name in sorted(os.listdir(args.outdir)):
        if name.endswith(".pcm") or name == "index.txt":  # the old flat, PCM layout
            os.remove(os.path.join(args.outdir, name))
            print("removed", name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
