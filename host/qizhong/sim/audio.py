# SPDX-License-Identifier: GPL-3.0-or-later
"""What the clock's speaker plays, as a WAV file.

The voice cues (firmware/assets/voice, 8 kHz 16-bit mono PCM) are laid on a
timeline at their exact instants, as the I2S amplifier would start them. A
cue that would still be playing when the next starts is cut, as the player
on the clock does.
"""

from __future__ import annotations

import array
import math
import os
import wave

from qizhong.core import voice
from qizhong.sim.simulator import repo_root

RATE = 8000  # Hz, the assets' rate
BUZZER_HZ = 4000  # the piezo's PWM (boards/pico.py BEEP_HZ)
# An 8 kHz file cannot carry 4 kHz (every sample would fall on a zero of the
# sine): the WAV sounds the buzzer at 3 kHz, the highest pitch it holds clearly.
TONE_HZ = min(BUZZER_HZ, RATE * 3 // 8)
BUZZER_AMP = 8000  # of 32767: under the voice, and clear of clipping when both sound


def assets_dir() -> str:
    return os.path.join(repo_root(), "firmware", "assets", "voice")


def load_cue(cue: int, folder: str | None = None) -> array.array:
    """The samples of one cue (signed 16-bit)."""
    path = os.path.join(folder or assets_dir(), voice.cue_asset(cue) + ".pcm")
    samples = array.array("h")
    with open(path, "rb") as f:
        samples.frombytes(f.read())
    return samples


def render(
    cues: list[tuple[int, int]],
    until_ms: int | None = None,
    beeps: list[tuple[int, int]] | None = None,
) -> array.array:
    """The speaker's samples for ``(t_ms, cue)`` pairs, from t = 0, with the
    buzzer's tone mixed in between each ``(t_ms, 1)`` and the next ``(t_ms, 0)``
    of ``beeps`` (a buzzer still on at the end sounds to the end)."""
    cues = sorted(cues)
    beeps = beeps or []
    last = max([t for t, _ in cues] + [t for t, _ in beeps] + [-1000])
    end = until_ms if until_ms is not None else last + 1000
    out = array.array("h", bytes(2 * (end * RATE // 1000)))
    for i, (t, cue) in enumerate(cues):
        start = t * RATE // 1000
        stop = cues[i + 1][0] * RATE // 1000 if i + 1 < len(cues) else len(out)
        samples = load_cue(cue)
        n = max(0, min(len(samples), stop - start, len(out) - start))
        out[start : start + n] = samples[:n]
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
        v = out[i] + int(BUZZER_AMP * math.sin(2 * math.pi * TONE_HZ * i / RATE))
        out[i] = max(-32768, min(32767, v))


def write_wav(path: str, samples: array.array) -> None:
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(samples.tobytes())


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
