# SPDX-License-Identifier: GPL-3.0-or-later
"""Draw the battery board's segment glass (firmware/qizhong/segface.py's
``GLASS``) as an SVG for docs/segment-face.md.

    .venv/bin/python tools/segment_drawing.py docs/img/segment-face.svg

Every segment is drawn in its field's colour, with the field names and the
segment numbers of each field (the PCF85176's RAM order) beside the glass.
"""

from __future__ import annotations

import sys

from qizhong.core import segface as S

SCALE = 6
FIELDS = (  # name, first segment, count, colour
    ("moves", S.MOVES, 42, "#4e79a7"),
    ("overtime", S.OT, 28, "#f28e2b"),
    ("state", S.STATE, 42, "#59a14f"),
    ("RUN REC BAT", S.RUN, 3, "#e15759"),
    ("time", S.TIME, 38, "#76b7b2"),
)


def svg() -> str:
    w, h = 128 * SCALE, 64 * SCALE
    legend = 20 * len(FIELDS) + 30
    out = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
        'viewBox="0 0 %d %d" font-family="sans-serif" font-size="14">'
        % (w, h + legend, w, h + legend),
        '<rect width="%d" height="%d" fill="#c8ccc0" rx="12"/>' % (w, h),
    ]
    for name, first, n, colour in FIELDS:
        for seg in range(first, first + n):
            for x, y, rw, rh in S.GLASS[seg]:
                box = (x * SCALE, y * SCALE, rw * SCALE, rh * SCALE, colour, name, seg)
                out.append(
                    '<rect x="%d" y="%d" width="%d" height="%d" fill="%s">'
                    "<title>%s %d</title></rect>" % box
                )
    y = h + 24
    out.append(
        '<text x="8" y="%d">%d of 160 segments, one PCF85176 (40 x 4), per player:</text>'
        % (y, S.USED)
    )
    for name, first, n, colour in FIELDS:
        y += 20
        out.append('<rect x="8" y="%d" width="14" height="14" fill="%s"/>' % (y - 12, colour))
        out.append(
            '<text x="30" y="%d">%s: segments %d-%d</text>' % (y, name, first, first + n - 1)
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


class Mono:
    """A 128x64 MONO_VLSB buffer with framebuf's ``fill`` and ``fill_rect`` (CPython)."""

    def __init__(self) -> None:
        self.buf = bytearray(1024)

    def fill(self, c: int) -> None:
        self.buf[:] = bytes([0xFF if c else 0]) * 1024

    def fill_rect(self, x: int, y: int, w: int, h: int, c: int) -> None:
        for px in range(x, x + w):
            for py in range(y, y + h):
                if c:
                    self.buf[(py >> 3) * 128 + px] |= 1 << (py & 7)


def png_all_lit() -> bytes:
    """The glass with every segment lit, as the simulator draws it."""
    from qizhong.sim import png

    fb = Mono()
    S.raster(bytes([0xFF] * S.RAM_BYTES), fb)
    return png.mono_vlsb_to_png(bytes(fb.buf), 128, 64, scale=4)


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not argv[0].endswith(".svg"):
        print("usage: segment_drawing.py OUT.svg (OUT.png beside it: every segment lit)",
              file=sys.stderr)  # fmt: skip
        return 2
    with open(argv[0], "w") as f:
        f.write(svg())
    with open(argv[0][:-4] + ".png", "wb") as f:
        f.write(png_all_lit())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
