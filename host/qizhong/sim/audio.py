# SPDX-License-Identifier: GPL-3.0-or-later
"""What the clock's speaker plays, as a WAV file.

The voice cues (firmware/assets/voice, 8 kHz 16-bit mono PCM) are laid on a
timeline at their exact instants, as the I2S amplifier would start them. A
cue that would still be playing when the next starts is cut, as the player
on the clock does.
"""

from __future__ import annotations

import array
import os
import wave

from qizhong.core import voice
from qizhong.sim.simulator import repo_root

RATE = 8000  # Hz, the assets' rate


def assets_dir() -> str:
    return os.path.join(repo_root(), "firmware", "assets", "voice")


def load_cue(cue: int, folder: str | None = None) -> array.array:
    """The samples of one cue (signed 16-bit)."""
    path = os.path.join(folder or assets_dir(), voice.cue_asset(cue) + ".pcm")
    samples = array.array("h")
    with open(path, "rb") as f:
        samples.frombytes(f.read())
    return samples


def render(cues: list[tuple[int, int]], until_ms: int | None = None) -> array.array:
    """The speaker's samples for ``(t_ms, cue)`` pairs, from t = 0."""
    cues = sorted(cues)
    end = until_ms if until_ms is not None else (cues[-1][0] + 1000 if cues else 0)
    out = array.array("h", bytes(2 * (end * RATE // 1000)))
    for i, (t, cue) in enumerate(cues):
        start = t * RATE // 1000
        stop = cues[i + 1][0] * RATE // 1000 if i + 1 < len(cues) else len(out)
        samples = load_cue(cue)
        n = max(0, min(len(samples), stop - start, len(out) - start))
        out[start : start + n] = samples[:n]
    return out


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
