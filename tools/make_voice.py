#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Generate the Mandarin voice cues (RULES TC-5, TC-6a, TC-6b) with eSpeak NG.

Usage: python tools/make_voice.py OUTDIR  (``make voice`` writes firmware/assets/voice)

Every cue becomes ``OUTDIR/<stem>.pcm``: raw PCM, signed 16-bit little-endian,
mono, 8000 Hz, leading and trailing silence trimmed, peak-normalised to -1 dBFS,
with a few ms of fade at both ends (no click on the I2S amplifier). The stems are
those of ``qizhong.voice.cue_asset``: n1..n10, s10..s58, m1, r1..r10.
``OUTDIR/index.txt`` lists stem, bytes, duration_ms and text.

Needs ``espeak-ng`` and ``sox`` on PATH (Debian: apt-get install espeak-ng sox);
only this tool needs them, the generated files are committed. Standard library only.

Voice: espeak-ng 1.51's ``cmn`` voice reads Latin text as English, and its own
pinyin too, so "一" comes out as "yi one" (espeak-ng issues #1028, #1236). The
``cmn-latn-pinyin`` voice reads the same characters correctly, so it is preferred;
the tool refuses any voice whose phoneme output switches to English.

Speed: each group (digits, seconds readings, minute announcement) uses one speed,
the slowest from BASE_WPM up that makes every sample in the group fit its budget:
a digit must fit well inside the one second of the count, a phrase under 0.9 s.
"""

import argparse
import os
import subprocess
import sys
import tempfile
from array import array

RATE = 8000  # Hz; the I2S amplifier (MAX98357A) accepts 8 kHz
PEAK = 29204  # -1 dBFS: headroom, so no sample reaches full scale
THRESHOLD = 0.01  # of the peak (-40 dB): quieter edges count as silence
PAD_MS = 10  # silence kept either side of the sound
FADE_MS = 4  # linear fade-in/out at the very ends

DIGIT_MAX_MS = 600
PHRASE_MAX_MS = 850  # the hard limit (tests) is 900
BASE_WPM = 175  # espeak-ng's default speed, clear
MAX_WPM = 260  # beyond this it stops being clear: fail instead
STEP_WPM = 5

VOICES = ("cmn-latn-pinyin", "cmn")  # first one espeak-ng lists wins

NUMERALS = ("一", "二", "三", "四", "五", "六", "七", "八", "九", "十")


def _number(n: int) -> str:
    """Chinese numeral for 1..99 (十, 三十, 五十八)."""
    tens, ones = divmod(n, 10)
    text = ""
    if tens:
        text = ("" if tens == 1 else NUMERALS[tens - 1]) + "十"
    if ones:
        text += NUMERALS[ones - 1]
    return text


def groups() -> list[tuple[str, int, list[tuple[str, str, str]]]]:
    """(name, budget_ms, cues): each cue is (stem, text, what espeak-ng is given).

    One speed per group: the count digits; the seconds readings; the minute
    announcement "一分" + "还剩 k 分", spoken back to back at the end of a period.
    The spoken form differs from the text only where espeak-ng misses a tone
    sandhi: 一 before a first tone (一分) is yì. Two minutes are 两分, not 二分.
    """
    digits = [("n%d" % k, _number(k), _number(k)) for k in range(1, 11)]
    seconds = [
        ("s%d" % s, _number(s) + "秒", _number(s) + "秒") for s in (10, 20, 30, 40, 50, 55, 58)
    ]
    minutes = [("m1", "一分", "yi4 fen1")]
    for k in range(1, 11):
        text = "还剩%s分" % ("两" if k == 2 else _number(k))
        say = "hai2 sheng4 yi4 fen1" if k == 1 else text
        minutes.append(("r%d" % k, text, say))
    return [
        ("digits", DIGIT_MAX_MS, digits),
        ("seconds", PHRASE_MAX_MS, seconds),
        ("minutes", PHRASE_MAX_MS, minutes),
    ]


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


def process(samples: array) -> array:
    """Raw 8 kHz synthesis to the finished cue: trim, normalise, fade."""
    top = max((abs(x) for x in samples), default=0)
    pad = RATE * PAD_MS // 1000
    trimmed = trim_silence(samples, max(1, round(top * THRESHOLD)), pad)
    return fade(normalise(trimmed), RATE * FADE_MS // 1000)


def duration_ms(samples: array) -> int:
    return round(len(samples) * 1000 / RATE)


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, check=True, capture_output=True, **kw)
    except FileNotFoundError:
        sys.exit("make_voice: %s not found (apt-get install espeak-ng sox)" % cmd[0])
    except subprocess.CalledProcessError as e:
        sys.exit("make_voice: %s failed: %s" % (" ".join(cmd), e.stderr.decode(errors="replace")))


def pick_voice() -> str:
    listed = _run(["espeak-ng", "--voices=zh"]).stdout.decode()
    names = {line.split()[1] for line in listed.splitlines()[1:] if line.split()}
    for v in VOICES:
        if v in names:
            return v
    sys.exit("make_voice: no Mandarin voice in espeak-ng --voices=zh")


def check_phonemes(voice: str, say: str) -> None:
    """Fail if espeak-ng would read part of ``say`` as English (the cmn bug)."""
    ph = _run(["espeak-ng", "-v", voice, "-q", "-x", say]).stdout.decode()
    if "(en)" in ph:
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    args = ap.parse_args(argv)
    voice = pick_voice()
    cues = [cue for _name, _limit, group in groups() for cue in group]
    for _stem, _text, say in cues:
        check_phonemes(voice, say)
    samples: dict[str, array] = {}
    speeds = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, limit, group in groups():
            wpm, out = fit(voice, group, limit, tmp)
            samples.update(out)
            speeds.append("%s %d wpm" % (name, wpm))
    os.makedirs(args.outdir, exist_ok=True)
    for name in sorted(os.listdir(args.outdir)):
        if name.endswith(".pcm") and name[:-4] not in samples:
            os.remove(os.path.join(args.outdir, name))  # a stale cue
            print("removed", name)
    lines = [
        "# Mandarin voice cues of qizhong, generated by tools/make_voice.py (make voice).",
        "# format: pcm_s16le mono %d Hz" % RATE,
        "# espeak-ng %s, voice %s; %s" % (version(), voice, ", ".join(speeds)),
        "# stem\tbytes\tduration_ms\ttext",
    ]
    for stem, text, _say in cues:
        s = array("h", samples[stem])
        if sys.byteorder == "big":
            s.byteswap()
        data = s.tobytes()
        with open(os.path.join(args.outdir, stem + ".pcm"), "wb") as f:
            f.write(data)
        lines.append("%s\t%d\t%d\t%s" % (stem, len(data), duration_ms(samples[stem]), text))
    with open(os.path.join(args.outdir, "index.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    total = sum(2 * len(s) for s in samples.values())
    print("%d cues, %d bytes; voice %s; %s" % (len(samples), total, voice, ", ".join(speeds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
