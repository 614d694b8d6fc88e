# SPDX-License-Identifier: GPL-3.0-or-later
"""The voice cues' IMA ADPCM decoding (qizhong/adpcm.py) on MicroPython's unix port.

    python benchmarks/voice_decode.py

Decodes every cue of every language's bank chunk by chunk, as boards/pico.py
does (256 bytes of ADPCM into 1024 bytes of PCM: 64 ms of sound), and prints
the time a chunk takes and that as a share of the 64 ms it plays for. This
is the unix port on this machine, not the RP2040: a figure to compare
changes by, not the Pico's load.
"""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MICROPYTHON = os.path.join(os.path.dirname(sys.executable), "micropython")

SCRIPT = """
import sys, time
sys.path.insert(0, %r)
from qizhong import adpcm, voice
out = bytearray(1024)
for lang in voice.LANGS:
    with open(%r + "/" + lang + "/" + voice.BANK, "rb") as f:
        data = f.read()
    d = adpcm.Decoder()
    n = 0
    t0 = time.ticks_us()
    for at in range(voice.BANK_HEAD + 8 * voice.SLOTS, len(data), 256):
        chunk = data[at : at + 256]
        d.decode_into(chunk, len(chunk), out)
        n += 1
    us = time.ticks_diff(time.ticks_us(), t0)
    print("%%-4s %%4d chunks  %%7.1f us a chunk  %%5.2f %%%% of its 64 ms" %% (
        lang, n, us / n, us / n / 640))
"""


def main():
    firmware = os.path.join(ROOT, "firmware")
    assets = os.path.join(firmware, "assets", "voice")
    r = subprocess.run(
        [MICROPYTHON, "-c", SCRIPT % (firmware, assets)], capture_output=True, text=True
    )
    print(r.stdout + r.stderr, end="")
    return r.returncode


if __name__ == "__main__":
    sys.exit(main())
