# SPDX-License-Identifier: GPL-3.0-or-later
"""IMA ADPCM: the voice cues' 4-bit format, decoded as they play.

Each byte holds two samples, the low nibble first; a cue starts from
predictor 0 and step index 0 (the cues begin with silence), so its file has
no header. ``Decoder.decode_into`` turns ``n`` bytes into ``4 n`` bytes of
signed 16-bit little-endian PCM in a caller's buffer. It is plain Python on
small ints: it allocates nothing and needs no native code, so the same .mpy
runs on the Pico and on the host (the simulator's WAV, the tests).
"""

STEPS = (
    7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 19, 21, 23, 25, 28, 31, 34, 37, 41, 45,
    50, 55, 60, 66, 73, 80, 88, 97, 107, 118, 130, 143, 157, 173, 190, 209, 230,
    253, 279, 307, 337, 371, 408, 449, 494, 544, 598, 658, 724, 796, 876, 963,
    1060, 1166, 1282, 1411, 1552, 1707, 1878, 2066, 2272, 2499, 2749, 3024, 3327,
    3660, 4026, 4428, 4871, 5358, 5894, 6484, 7132, 7845, 8630, 9493, 10442,
    11487, 12635, 13899, 15289, 16818, 18500, 20350, 22385, 24623, 27086, 29794,
    32767,
)  # fmt: skip
INDEX = (-1, -1, -1, -1, 2, 4, 6, 8)


def step(pred, index, code):
    """One sample: the new ``(pred, index)`` after 4-bit ``code`` (for tools and tests)."""
    s = STEPS[index]
    d = s >> 3
    if code & 4:
        d += s
    if code & 2:
        d += s >> 1
    if code & 1:
        d += s >> 2
    pred = pred - d if code & 8 else pred + d
    pred = -32768 if pred < -32768 else 32767 if pred > 32767 else pred
    index += INDEX[code & 7]
    return pred, 0 if index < 0 else 88 if index > 88 else index


class Decoder:
    """The state of one cue's decoding; ``reset`` before each cue."""

    def __init__(self):
        self.pred = 0
        self.index = 0

    def reset(self):
        self.pred = 0
        self.index = 0

    def decode_into(self, src, n, dst):
        """Decode ``src[:n]`` into ``dst[:4 n]`` (s16le); returns ``4 n``."""
        pred = self.pred
        index = self.index
        steps = STEPS
        adj = INDEX
        j = 0
        for i in range(n):
            b = src[i]
            for half in range(2):  # the low nibble, then the high one
                code = b >> 4 if half else b & 15
                s = steps[index]
                d = s >> 3
                if code & 4:
                    d += s
                if code & 2:
                    d += s >> 1
                if code & 1:
                    d += s >> 2
                if code & 8:
                    pred -= d
                    if pred < -32768:
                        pred = -32768
                else:
                    pred += d
                    if pred > 32767:
                        pred = 32767
                index += adj[code & 7]
                if index < 0:
                    index = 0
                elif index > 88:
                    index = 88
                dst[j] = pred & 0xFF
                dst[j + 1] = (pred >> 8) & 0xFF
                j += 2
        self.pred = pred
        self.index = index
        return j
