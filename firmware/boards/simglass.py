# SPDX-License-Identifier: GPL-3.0-or-later
"""The simulated battery board's glasses (#22, docs/segment-face.md): loaded
by boards/sim.py only for QIZHONG_BOARD=battery (the OLED board's heap stays
as it was). The app draws into each glass's RAM (``segface``); ``texts``
puts the glass on the picture the host gets and says what it shows."""

from qizhong import segface

FRAME = 1 + 4 + 20  # one PCF85176 frame on the bus: address, 4 command bytes, the RAM


def setup(board):
    board.ram = (bytearray(segface.RAM_BYTES), bytearray(segface.RAM_BYTES))
    board.fb = (segface.SegText(board.ram[0], 0), segface.SegText(board.ram[1], 1))
    board.faces = (segface.SegFace(board.ram[0]), segface.SegFace(board.ram[1]))


def texts(board, i):
    """Draw glass ``i`` on its picture; its words as (x, y, text): a text
    screen's two lines, or a face's status row at the OLED face's places
    (moves at 2, overtime at 30, state at 72) for the terminal."""
    ram = board.ram[i]
    segface.raster(ram, board._glass[i])
    t = board.fb[i]
    shown = bytes(ram)
    if t.texts and t.shown == shown:
        out = [(0, 8, segface.status_line(shown)), (0, 24, segface.decode(shown)[3])]
    else:
        moves, ot, state, _, marks = segface.decode(shown)
        out = [(2, 1, moves), (30, 1, ot), (72, 1, state)]
        out += [(112 + 8 * k, 1, " " + m) for k, m in enumerate(marks) if m != "RUN"]
    return ["%d,%d,%s" % (x, y, s.encode().hex()) for x, y, s in out if s]
