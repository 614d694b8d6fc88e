# SPDX-License-Identifier: GPL-3.0-or-later
"""What the clock's speaker plays, as a WAV file.

The voice cues (firmware/assets/voice/LANG/cues.bin, IMA ADPCM of 8 kHz
16-bit mono, decoded by the firmware's own ``qizhong.adpcm``) are laid on a
timeline at their instants. Cues queue, as on the clock (boards/pico.py):
one due while another plays starts when that one ends ("1分" then "还剩 2 分").
"""

from __future__ import annotations

import array
import io
import math
import os
import struct
import sys
import wave

from qizhong.core import adpcm, cuenames, voice
from qizhong.records import files
from qizhong.sim.simulator import repo_root

RATE = 8000  # Hz, the assets' rate
BUZZER_HZ = 4000  # the piezo's PWM (boards/pico.py BEEP_HZ)
BUZZER_AMP = 8000  # of 32767: under the voice, and clear of clipping when both sound


def assets_dir() -> str:
    return os.path.join(repo_root(), "firmware", "assets", "voice")


def read_bank(path: str) -> list[bytes]:
    """The IMA ADPCM bytes of each slot (``cuenames.stems()`` order) of a cue bank;
    ValueError if the file is not a whole bank."""
    with open(path, "rb") as f:
        data = f.read()
    if data[: len(voice.MAGIC)] != voice.MAGIC or len(data) < voice.BANK_HEAD:
        raise ValueError("%s is not a cue bank" % path)
    (n,) = struct.unpack_from("<H", data, 4)
    if n != voice.SLOTS or len(data) < voice.BANK_HEAD + 8 * n:
        raise ValueError("%s has %d slots, not %d" % (path, n, voice.SLOTS))
    out = []
    for i in range(n):
        at, size = struct.unpack_from("<II", data, voice.BANK_HEAD + 8 * i)
        if at + size > len(data):
            raise ValueError("%s: slot %d ends beyond the file" % (path, i))
        out.append(data[at : at + size])
    return out


def decode(data: bytes) -> array.array:
    """The samples of one cue's IMA ADPCM bytes."""
    pcm = bytearray(4 * len(data))
    adpcm.Decoder().decode_into(data, len(data), pcm)
    out = array.array("h")
    out.frombytes(bytes(pcm))
    if sys.byteorder == "big":
        out.byteswap()
    return out


_BANKS: dict[str, list[bytes]] = {}
_WORDS: dict[str, dict[str, str]] = {}


def cue_words(cue: int, lang: str = "cmn") -> str:
    """What the cue says in ``lang``, from its index.txt ("さんじゅうびょう");
    ``cuenames.cue_text`` for a cue with no sample, or without the index."""
    if lang not in _WORDS:
        words = {}
        try:
            with open(os.path.join(assets_dir(), lang, "index.txt"), encoding="utf-8") as f:
                for line in f:
                    cols = line.rstrip("\n").split("\t")
                    if not line.startswith("#") and len(cols) == 4:
                        words[cols[0]] = cols[3]
        except OSError:
            pass
        _WORDS[lang] = words
    return _WORDS[lang].get(cuenames.cue_asset(cue), cuenames.cue_text(cue))


def load_cue(cue: int, lang: str = "cmn", folder: str | None = None) -> array.array:
    """The samples of one cue (signed 16-bit) in ``lang``; empty if it has none."""
    path = os.path.join(folder or assets_dir(), lang, voice.BANK)
    if path not in _BANKS:
        _BANKS[path] = read_bank(path)
    slot = voice.cue_slot(cue)
    return decode(_BANKS[path][slot]) if slot >= 0 else array.array("h")


def render(
    cues: list[tuple[int, int]],
    until_ms: int | None = None,
    beeps: list[tuple[int, int]] | None = None,
    voices: list[tuple[int, str]] | None = None,
) -> array.array:
    """The speaker's samples for ``(t_ms, cue)`` pairs, from t = 0, with the
    buzzer's tone mixed in between each ``(t_ms, 1)`` and the next ``(t_ms, 0)``
    of ``beeps`` (a buzzer still on at the end sounds to the end). ``voices``:
    ``(t_ms, lang)`` as the clock changed its language (Mandarin before)."""
    cues = sorted(cues)
    beeps = beeps or []
    voices = sorted(voices or [])
    last = max([t for t, _ in cues] + [t for t, _ in beeps] + [-1000])
    end = until_ms if until_ms is not None else last + 1000
    out = array.array("h", bytes(2 * (end * RATE // 1000)))
    free = 0  # the sample where the player is free again
    for t, cue in cues:
        lang = "cmn"
        for vt, v in voices:
            if vt <= t:
                lang = v
        start = max(t * RATE // 1000, free)
        samples = load_cue(cue, lang)
        n = max(0, min(len(samples), len(out) - start))
        out[start : start + n] = samples[:n]
        free = start + len(samples)
    on = -1
    for t, state in [*sorted(beeps), (end, 0)]:
        if state and on < 0:
            on = t
        elif not state and on >= 0:
            _buzz(out, on * RATE // 1000, min(t, end) * RATE // 1000)
            on = -1
    return out


def _buzz(out: array.array, start: int, stop: int) -> None:
    """Mix the buzzer's tone into ``out[start:stop]``, clipped to 16 bits."""
    for i in range(max(0, start), min(stop, len(out))):
        # cos, not sin: at 4 kHz (the Nyquist rate of 8 kHz) a sine samples to zeros
        v = out[i] + int(BUZZER_AMP * math.cos(2 * math.pi * BUZZER_HZ * i / RATE))
        out[i] = max(-32768, min(32767, v))


def write_wav(path: str, samples: array.array) -> None:
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(samples.tobytes())
    files.replace(path, buf.getvalue())


def onsets(samples: array.array, threshold: int = 1000, gap_ms: int = 150) -> list[int]:
    """Start times (ms) of sounds: the first sample over ``threshold`` after
    at least ``gap_ms`` of quiet."""
    gap = gap_ms * RATE // 1000
    out: list[int] = []
    quiet = gap
    for i, v in enumerate(samples):
        if abs(v) >= threshold:
            if quiet >= gap:
                out.append(i * 1000 // RATE)
            quiet = 0
        else:
            quiet += 1
    return out
