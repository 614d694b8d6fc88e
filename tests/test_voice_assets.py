# SPDX-License-Identifier: GPL-3.0-or-later
"""The committed voice cues (firmware/assets/voice/LANG/cues.bin) against the schedules.

Runs without espeak-ng: only the generated files, the firmware's IMA ADPCM
decoder and the pure-Python helpers of tools/make_voice.py are used. Every
duration here is measured from the decoded samples, not read from an index.
"""

import importlib.util
import math
import os
from array import array

import pytest

from conftest import ROOT
from qizhong.core import adpcm, cuenames, voice
from qizhong.core.voice import MARK_IN, PER
from qizhong.sim import audio

VOICE_DIR = os.path.join(ROOT, "firmware", "assets", "voice")
RATE = 8000
MAX_LEFT = 10  # the periods and minutes left are recorded for 1..10
DIGIT_MAX_MS = 700
PHRASE_MAX_MS = 1000
RMS_FLOOR = 1000  # about -30 dBFS: clearly audible after peak normalisation
EDGE_MS = 30  # sound must start / end this close to the file's ends
FASTEST_MS = 1000  # the count's fastest: one cue a second
COUNTS = [p * 1000 for p in range(1, 61)]
PERIODS = [p * 1000 for p in range(1, 601)]  # every period the menu allows, and more
BLOCKS = (20000, 30000, 600000)


def _make_voice():
    path = os.path.join(ROOT, "tools", "make_voice.py")
    spec = importlib.util.spec_from_file_location("make_voice", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _index(lang):
    header, entries = [], {}
    with open(os.path.join(VOICE_DIR, lang, "index.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                header.append(line)
            elif line.strip():
                stem, size, ms, text = line.split("\t")
                assert stem not in entries, "duplicate %s" % stem
                entries[stem] = (int(size), int(ms), text)
    return header, entries


BANKS = {lang: audio.read_bank(os.path.join(VOICE_DIR, lang, voice.BANK)) for lang in voice.LANGS}
SAMPLES = {
    (lang, stem): audio.decode(BANKS[lang][i])
    for lang in voice.LANGS
    for i, stem in enumerate(cuenames.stems())
    if BANKS[lang][i]  # a slot the language never says is empty
}
CUES = sorted(SAMPLES)


CHUNK_MS = 64  # boards/pico.py plays whole chunks of 1024 bytes, then one of silence


def ms(lang, cue):
    """How long the clock's player is busy with ``cue`` in ``lang``: its
    measured samples in whole 64 ms chunks, and the chunk of silence after."""
    n = len(SAMPLES[lang, cuenames.stems()[voice.cue_slot(cue)]])
    return (2 * n + 1023) // 1024 * CHUNK_MS + CHUNK_MS


def _longest(lang, cue, period):
    """``ms``; for a periods-left entry (filled in when spoken) the longest it can be."""
    if cue >= MARK_IN:
        said = {voice.fill(cue, k, period) for k in range(1, 100)}
        return max(ms(lang, c) for c in said if (lang, cuenames.cue_asset(c)) in SAMPLES)
    return ms(lang, cue)


def _tables(lg, st):
    """Every schedule of one language and style, with its period and what
    follows its last cue: the next table (a fresh byo-yomi period), or None (a
    count, the last period, a block: the next cue may come a second later)."""
    out = [(voice.count_table(p, lg, st), p, None) for p in COUNTS]
    for p in PERIODS:
        last = voice.byoyomi_table(p, True, lg, st)
        ahead = voice.byoyomi_table(p, False, lg, st)
        out.append((ahead, p, ahead))  # another period that is not the last
        out.append((ahead, p, last))
        out.append((last, p, None))
    out += [(voice.canadian_table(b, lg, st), b, None) for b in BLOCKS]
    return out


def _said(lg):
    """Every cue id the language's schedules say, periods left filled in (1..99)."""
    cues = set()
    for st in range(len(voice.STYLES)):
        for table, period, _next in _tables(lg, st):
            for _due, cue in table:
                if cue < MARK_IN:
                    cues.add(cue)
                else:  # the periods left, filled in when spoken: 1 to 99
                    cues.update(voice.fill(cue, k, period) for k in range(1, 100))
    return cues


@pytest.mark.parametrize("lg", range(len(voice.LANGS)), ids=voice.LANGS)
def test_every_cue_said_is_recorded_and_nothing_else(lg):
    # The periods and minutes left past 10 are not recorded (silence, never a wrong word).
    lang = voice.LANGS[lg]
    said = {c for c in _said(lg) if voice.cue_slot(c) >= 0}
    warn = {voice.MIN1, *(voice.SEC + s for s in (10, 20, 30, 40, 50, 55, 58))}  # TC-15
    recorded = {stem for la, stem in SAMPLES if la == lang}
    assert recorded == {cuenames.cue_asset(c) for c in said | warn}
    unrecorded = {c for c in _said(lg) if voice.cue_slot(c) < 0}
    past = [(voice.LEFT + MAX_LEFT, voice.LEFT + 1000), (PER + MAX_LEFT, PER + 1000)]
    assert all(any(a < c < b for a, b in past) for c in unrecorded), unrecorded
    assert voice.cue_slot(voice.LEFT + 11) == voice.cue_slot(voice.SEC + 15) == -1  # no sample


@pytest.mark.parametrize("lang", voice.LANGS)
def test_the_bank_and_its_index_agree(lang):
    header, index = _index(lang)
    assert "# format: ima_adpcm mono %d Hz, in %s" % (RATE, voice.BANK) in header
    assert list(index) == [stem for stem in cuenames.stems() if (lang, stem) in SAMPLES]
    for i, stem in enumerate(cuenames.stems()):
        if stem not in index:
            assert not BANKS[lang][i], stem  # not said: not recorded
            continue
        size, dur, _text = index[stem]
        assert len(BANKS[lang][i]) == size, stem
        assert dur == round(len(SAMPLES[lang, stem]) * 1000 / RATE), stem


def test_a_bank_that_is_cut_short_is_refused(tmp_path):
    with open(os.path.join(VOICE_DIR, "ja", voice.BANK), "rb") as f:
        data = f.read()
    (tmp_path / "short.bin").write_bytes(data[:-1])
    with pytest.raises(ValueError, match="slot 62 ends beyond the file"):
        audio.read_bank(str(tmp_path / "short.bin"))
    (tmp_path / "other.bin").write_bytes(b"RIFF" + data[4:])
    with pytest.raises(ValueError, match="is not a cue bank"):
        audio.read_bank(str(tmp_path / "other.bin"))


@pytest.mark.parametrize("lang", voice.LANGS)
def test_the_languages_say_their_own_words(lang):
    _header, index = _index(lang)
    text = {stem: t for stem, (_s, _d, t) in index.items()}
    want = {
        "cmn": ("一", "十", "三十秒", "两分", "还剩两分", "时间到"),
        "yue": ("一", "十", "三十秒", "兩分", "還剩兩分", "時間到"),
        "ja": (
            "いち",
            "じゅう",
            "さんじゅうびょう",
            "にふん",
            "のこりあとにふんです",
            "じかんぎれです",
        ),
        "ko": ("하나", "열", "삼십초", "이분", None, "시간 초과"),
        "en": ("one", "ten", "thirty seconds", "two minutes", "two minutes left", "time is up"),
    }[lang]
    got = (text["n1"], text["n10"], text["s30"], text["m2"], text.get("l2"), text["f"])
    assert got == want
    if lang == "ja":  # the fast count: よん and なな, never し or しち; periods in 回
        assert (text["n4"], text["n7"], text["p2"]) == ("よん", "なな", "のこりにかい")
    if lang == "ko":  # native numerals
        assert [text["n%d" % k] for k in range(1, 11)] == [
            "하나", "둘", "셋", "넷", "다섯", "여섯", "일곱", "여덟", "아홉", "열",
        ]  # fmt: skip
        assert (text["p1"], text["p2"]) == ("마지막 초읽기", "이회 남음")
    if lang == "en":  # British Go Journal 106: the last period starts with "no time left"
        assert (text["p1"], text["s55"], text["b40"]) == ("no time left", "fifty-five", "forty")


def test_the_same_cue_differs_between_languages():
    for stem in cuenames.stems():
        sounds = [bytes(SAMPLES[lang, stem]) for lang in voice.LANGS if (lang, stem) in SAMPLES]
        assert len(set(sounds)) == len(sounds), stem


@pytest.mark.parametrize("lang, stem", CUES, ids=["%s-%s" % c for c in CUES])
def test_cue_duration_audibility_and_trim(lang, stem):
    a = SAMPLES[lang, stem]
    limit = DIGIT_MAX_MS if stem[0] in "nb" else 1900 if stem[0] == "l" else PHRASE_MAX_MS
    assert len(a) * 1000 / RATE <= limit, "%s/%s lasts %d ms" % (lang, stem, len(a) // 8)
    peak = max(abs(x) for x in a)
    rms = math.sqrt(sum(x * x for x in a) / len(a))
    assert rms >= RMS_FLOOR, "%s/%s too quiet: rms %d" % (lang, stem, rms)
    assert peak < 32767, "%s/%s reaches full scale" % (lang, stem)
    near_peak = sum(1 for x in a if abs(x) >= 0.98 * peak)
    assert near_peak <= len(a) // 100, "%s/%s is flat-topped" % (lang, stem)
    loud = [
        i for i, x in enumerate(a) if abs(x) >= 0.01 * peak
    ]  # make_voice.THRESHOLD: "th" counts
    edge = RATE * EDGE_MS // 1000
    assert loud[0] < edge, "%s/%s: %d ms of leading silence" % (lang, stem, loud[0] // 8)
    assert len(a) - 1 - loud[-1] < edge, "%s/%s: trailing silence" % (lang, stem)
    assert abs(a[0]) < 0.02 * peak and abs(a[-1]) < 0.02 * peak  # faded: no click


@pytest.mark.parametrize("style", range(len(voice.STYLES)), ids=voice.STYLES)
@pytest.mark.parametrize("lg", range(len(voice.LANGS)), ids=voice.LANGS)
def test_every_cue_ends_before_the_next_one_starts(lg, style):
    # Cues due at one instant play back to back ("1分", then "还剩 2 分"); the
    # group, as the clock plays it (``ms``), must end before the next cue's
    # instant. After a table's last cue the next may come a second later (the
    # count's fastest), or, at the end of a byo-yomi period that is not the
    # last, at the next period's first.
    lang = voice.LANGS[lg]
    worst = []
    for table, period, nxt in _tables(lg, style):
        i = 0
        while i < len(table):
            due = table[i][0]
            j = i
            while j < len(table) and table[j][0] == due:
                j += 1
            group = [c for _d, c in table[i:j]]  # due at one instant
            if j < len(table):
                gap = abs(table[j][0] - due)  # (a Canadian table is by time left: descending)
            elif nxt is not None:
                gap = period - due + nxt[0][0]
            else:
                gap = FASTEST_MS
            took = sum(_longest(lang, c, period) for c in group)
            worst.append((gap - took, period, due, group))
            i = j
    margin, period, due, group = min(worst, key=lambda w: w[0])
    assert margin >= 0, "%s %s: %r at %d ms of a %d ms period overlaps the next cue by %d ms" % (
        lang,
        voice.STYLES[style],
        group,
        due,
        period,
        -margin,
    )


def test_the_longest_periods_left_phrase_fits_a_second():
    # "k periods left" (any k) may end a 10 s period whose successor counts
    # from its first second (Korean; or counting down, "9" at 1 s).
    for lang in voice.LANGS:
        said = [ms(lang, PER + k) for k in range(1, MAX_LEFT + 1) if (lang, "p%d" % k) in SAMPLES]
        assert max(said, default=0) <= FASTEST_MS, lang


# -- IMA ADPCM -----------------------------------------------------------------------


def test_adpcm_decodes_a_known_byte():
    # Low nibble 7 from state (0, 0): step 7 gives 7/8 + 7 + 7/2 + 7/4 -> 0+7+3+1 = 11,
    # index 0 + 8; then high nibble 0: step 16 gives 16 >> 3 = 2 -> 13, index 7.
    out = bytearray(4)
    d = adpcm.Decoder()
    assert d.decode_into(b"\x07", 1, out) == 4
    assert array("h", bytes(out)).tolist() == [11, 13]
    assert (d.pred, d.index) == (13, 7)


def test_adpcm_round_trip_keeps_a_tone():
    mv = _make_voice()
    tone = array("h", (round(20000 * math.sin(2 * math.pi * 400 * i / RATE)) for i in range(4001)))
    data = mv.encode(tone)
    assert len(data) == 2001  # 4 bits a sample; the odd one padded
    back = mv.decode(data)
    err = sum((a - b) ** 2 for a, b in zip(tone, back, strict=False)) / len(tone)
    snr = 10 * math.log10(sum(x * x for x in tone) / len(tone) / err)
    assert snr > 20, snr


def test_adpcm_decoding_in_chunks_equals_decoding_at_once():
    data = BANKS["ko"][voice.cue_slot(voice.FLAG)]
    whole = bytearray(4 * len(data))
    adpcm.Decoder().decode_into(data, len(data), whole)
    d = adpcm.Decoder()
    parts = bytearray()
    for i in range(0, len(data), 256):  # as boards/pico.py reads CHUNK // 4 at a time
        chunk = data[i : i + 256]
        out = bytearray(1024)
        n = d.decode_into(chunk, len(chunk), out)
        parts += out[:n]
    assert parts == whole


# -- tools/make_voice.py ---------------------------------------------------------------


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


def test_fill_pauses_leaves_no_silent_run_inside_a_cue():
    mv = _make_voice()
    out = mv.fill_pauses(array("h", [0] * 5 + [900] + [0] * 600 + [-900] + [0] * 5))
    assert list(out[:5]) == [0] * 5 and list(out[-5:]) == [0] * 5  # the ends stay silent
    assert all(abs(x) == mv.FILL for x in out[6:606])


def test_make_voice_records_what_each_language_says():
    mv = _make_voice()
    for lang in mv.LANGS:
        stems = [stem for _name, _limit, group in mv.groups(lang) for stem, _t, _s in group]
        assert sorted(stems) == sorted(stem for la, stem in SAMPLES if la == lang), lang
