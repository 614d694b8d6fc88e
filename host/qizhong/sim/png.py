# SPDX-License-Identifier: GPL-3.0-or-later
"""Monochrome framebuffers (MONO_VLSB, as the clock's OLEDs use) to PNG.

Standard library only (zlib, struct). ``mono_vlsb_to_png`` writes one display;
``side_by_side`` writes both players' displays next to each other in a case,
as on the physical clock.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence

RGB = tuple[int, int, int]

FG: RGB = (235, 245, 255)  # a lit OLED pixel
BG: RGB = (0, 0, 0)
CASE: RGB = (48, 48, 52)  # the clock's case, around and between the displays


def mono_vlsb_pixels(buf: bytes, width: int, height: int) -> list[list[int]]:
    """Rows of 0/1 pixels: byte ``(y // 8) * width + x``, bit ``y % 8`` (bit 0 at the top)."""
    if width <= 0 or height <= 0 or height % 8:
        raise ValueError("MONO_VLSB needs a positive width and a height that is a multiple of 8")
    if len(buf) < width * height // 8:
        raise ValueError(
            "buffer holds %d bytes, %dx%d needs %d" % (len(buf), width, height, width * height // 8)
        )
    return [
        [(buf[(y >> 3) * width + x] >> (y & 7)) & 1 for x in range(width)] for y in range(height)
    ]


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def encode_rgb(rows: Sequence[bytes], width: int, height: int) -> bytes:
    """A PNG (8-bit RGB, no interlace) from ``height`` rows of ``3 * width`` bytes."""
    if len(rows) != height or any(len(r) != 3 * width for r in rows):
        raise ValueError("rows do not match %dx%d" % (width, height))
    raw = b"".join(b"\x00" + bytes(r) for r in rows)  # filter type 0 on every row
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", ihdr)
        + _chunk(b"IDAT", zlib.compress(raw, 9))
        + _chunk(b"IEND", b"")
    )


def _panel_rows(buf: bytes, width: int, height: int, scale: int, fg: RGB, bg: RGB) -> list[bytes]:
    on = bytes(fg) * scale
    off = bytes(bg) * scale
    out = []
    for row in mono_vlsb_pixels(buf, width, height):
        line = b"".join(on if p else off for p in row)
        out.extend([line] * scale)
    return out


def mono_vlsb_to_png(
    buf: bytes,
    width: int,
    height: int,
    scale: int = 4,
    fg: RGB = FG,
    bg: RGB = BG,
) -> bytes:
    """One display as a PNG, each pixel a ``scale`` x ``scale`` square."""
    if scale < 1:
        raise ValueError("scale must be 1 or more")
    rows = _panel_rows(buf, width, height, scale, fg, bg)
    return encode_rgb(rows, width * scale, height * scale)


def side_by_side(
    left: bytes,
    right: bytes,
    width: int = 128,
    height: int = 64,
    scale: int = 4,
    gap: int = 16,
    margin: int = 6,
    fg: RGB = FG,
    bg: RGB = BG,
    case: RGB = CASE,
) -> bytes:
    """Both displays in one PNG: ``gap`` display pixels of case between them and
    ``margin`` around, like the clock seen from the front."""
    if scale < 1 or gap < 0 or margin < 0:
        raise ValueError("scale must be 1 or more, gap and margin 0 or more")
    a = _panel_rows(left, width, height, scale, fg, bg)
    b = _panel_rows(right, width, height, scale, fg, bg)
    edge = bytes(case) * (margin * scale)
    mid = bytes(case) * (gap * scale)
    w = (2 * width + gap + 2 * margin) * scale
    blank = bytes(case) * w
    rows = [blank] * (margin * scale)
    rows += [edge + ra + mid + rb + edge for ra, rb in zip(a, b, strict=True)]
    rows += [blank] * (margin * scale)
    return encode_rgb(rows, w, len(rows))
