# SPDX-License-Identifier: GPL-3.0-or-later
"""The committed Mandarin voice cues (firmware/assets/voice) against the schedules.

Runs without espeak-ng: only the generated files and the pure-Python helpers of
tools/make_voice.py are used.
"""

import importlib.util
import math
import os
import sys
from array import array

import pytest

from conftest import ROOT
from qizhong.core import voice
from qizhong.core.voice import LEFT

VOICE_DIR = os.path.join(ROOT, "firmware", "assets", "voice")
RATE = 8000
MAX_PERIODS = 10  # "还剩 k 分" is recorded for k = 1..10
DIGIT_MAX_MS = 700
PHRASE_MAX_MS = 900
RMS_FLOOR = 1000  # about -30 dBFS: clearly audible after peak normalisation
EDGE_MS = 30  # sound must start / end this close to the file's ends
NUMERALS = "一二三四五六七八九十"


def _make_voice():
    path = os.path.join(ROOT, "tools", "make_voice.py")
    spec = importlib.util.spec_from_file_location("make_voice", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _index():
    header, entries = [], {}
    with open(os.path.join(VOICE_DIR, "index.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                header.append(line)
            elif line.strip():
                stem, size, ms, text = line.split("\t")
                assert stem not in entries, "duplicate %s" % stem
                entries[stem] = (int(size), int(ms), text)
    return header, entries


def _scheduled_cues():
    cues = set()
    for p in range(1, 61):
        cues.update(cue for _due, cue in voice.count_table(p * 1000))
    for p in (10, 20, 30, 45, 60):
        for last in (False, True):
            cues.update(cue for _due, cue in voice.byoyomi_table(p * 1000, last))
    assert LEFT in cues  # the 60 s table speaks "还剩 k 分", k added when spoken
    cues.discard(LEFT)
    cues.update(LEFT + k for k in range(1, MAX_PERIODS + 1))
    return cues


STEMS = sorted({voice.cue_asset(c) for c in _scheduled_cues()})
HEADER, INDEX = _index()


def _samples(stem):
    a = array("h")
    with open(os.path.join(VOICE_DIR, stem + ".pcm"), "rb") as f:
        a.frombytes(f.read())
    if sys.byteorder == "big":
        a.byteswap()
    return a


def test_the_schedules_need_the_expected_stems():
    expected = {"n%d" % k for k in range(1, 11)}
    expected |= {"s%d" % s for s in (10, 20, 30, 40, 50, 55, 58)}
    expected |= {"m1"} | {"r%d" % k for k in range(1, 11)}
    assert set(STEMS) == expected


@pytest.mark.parametrize("stem", STEMS)
def test_every_scheduled_cue_has_an_asset(stem):
    assert os.path.isfile(os.path.join(VOICE_DIR, stem + ".pcm"))
    assert stem in INDEX


def test_index_declares_8khz_16bit_mono():
    assert "# format: pcm_s16le mono %d Hz" % RATE in HEADER


def test_index_matches_the_files():
    files = {n[:-4] for n in os.listdir(VOICE_DIR) if n.endswith(".pcm")}
    assert files == set(INDEX)
    for stem, (size, ms, _text) in INDEX.items():
        assert os.path.getsize(os.path.join(VOICE_DIR, stem + ".pcm")) == size, stem
        assert ms == round(size / 2 * 1000 / RATE), stem


@pytest.mark.parametrize("stem", sorted(INDEX))
def test_index_text_says_the_cue(stem):
    text = INDEX[stem][2]
    kind, k = stem[0], int(stem[1:])
    if kind == "n":
        assert text == NUMERALS[k - 1]
    elif kind == "s":
        assert text.endswith("秒")
    elif kind == "m":
        assert text == "一分"
    else:
        assert text.startswith("还剩") and text.endswith("分")


@pytest.mark.parametrize("stem", sorted(INDEX))
def test_asset_shape_and_duration(stem):
    size, ms, _text = INDEX[stem]
    assert size > 0 and size % 2 == 0
    limit = DIGIT_MAX_MS if stem.startswith("n") else PHRASE_MAX_MS
    assert size / 2 * 1000 / RATE <= limit, "%s lasts %d ms" % (stem, ms)


@pytest.mark.parametrize("stem", sorted(INDEX))
def test_asset_is_audible_unclipped_and_trimmed(stem):
    a = _samples(stem)
    peak = max(abs(x) for x in a)
    rms = math.sqrt(sum(x * x for x in a) / len(a))
    assert rms >= RMS_FLOOR, "%s too quiet: rms %d" % (stem, rms)
    assert peak < 32767, "%s reaches full scale" % stem
    near_peak = sum(1 for x in a if abs(x) >= 0.98 * peak)
    assert near_peak <= len(a) // 100, "%s is flat-topped" % stem
    loud = [i for i, x in enumerate(a) if abs(x) >= 0.02 * peak]
    edge = RATE * EDGE_MS // 1000
    assert loud[0] < edge, "%s: %d ms of leading silence" % (stem, loud[0] * 1000 // RATE)
    assert len(a) - 1 - loud[-1] < edge, "%s: trailing silence" % stem
    assert abs(a[0]) < 0.02 * peak and abs(a[-1]) < 0.02 * peak  # faded: no click


def test_total_size_fits_the_flash_budget():
    assert sum(size for size, _ms, _text in INDEX.values()) < 512 * 1024


def _tone(n, amplitude):
    # A cosine, so the first and the last samples are loud.
    return [round(amplitude * math.cos(2 * math.pi * 400 * i / RATE)) for i in range(n)]


def test_trim_silence_removes_leading_and_trailing_silence():
    mv = _make_voice()
    tone = _tone(800, 10000)
    hiss = [(-1) ** i * (i % 50) for i in range(100)]  # below the threshold
    signal = array("h", [0] * 300 + hiss + tone + hiss + [0] * 300)
    out = mv.trim_silence(signal, 500, pad=8)
    assert len(out) == len(tone) + 16
    assert list(out[8:-8]) == tone
    assert list(mv.trim_silence(signal, 500)) == tone


def test_trim_silence_edge_cases():
    mv = _make_voice()
    assert len(mv.trim_silence(array("h", [0] * 100), 10, pad=5)) == 0
    loud = array("h", [1000] * 10)
    assert list(mv.trim_silence(loud, 10, pad=5)) == list(loud)  # pad clamps at the ends


def test_process_trims_normalises_and_fades():
    mv = _make_voice()
    tone = _tone(800, 3000)
    out = mv.process(array("h", [0] * 500 + tone + [0] * 700))
    pad = RATE * mv.PAD_MS // 1000
    assert len(out) <= len(tone) + 2 * pad
    assert max(abs(x) for x in out) == mv.PEAK < 32767
    assert out[0] == 0 and out[-1] == 0
