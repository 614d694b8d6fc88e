# SPDX-License-Identifier: GPL-3.0-or-later
"""The setup menu on the displays, and its user slots in flash (docs/menu.md)."""

from . import tcspec
from .menuitems import GAMES, SLOTS


def format_lines(tc, width=16):
    """The canonical spec as display lines of at most ``width`` characters
    (#24: a long control is never cut): a stage a line (the second on
    prefixed ``:``, as the spec writes it), then each clause. A longer part
    breaks at a space, before a ``+`` or after a ``/``."""
    out = []
    for part in tcspec._parts(tc, True):
        pieces = []  # (text, space before it)
        word = ""
        for ch in part:
            if ch == " ":
                pieces.append((word, False))
                word = ""
                pieces.append(("", True))
            elif ch == "+" and word:
                pieces.append((word, False))
                word = "+"
            else:
                word += ch
                if ch == "/":
                    pieces.append((word, False))
                    word = ""
        pieces.append((word, False))
        line = ""
        space = False
        for text, sep in pieces:
            if sep:
                space = True
                continue
            if not text:
                continue
            add = (" " if space and line else "") + text
            if line and len(line) + len(add) > width:
                out.append(line)
                line = text
            else:
                line += add
            space = False
        out.append(line)
    return tuple(out)


def draw(m, board):
    """The rows, as text on each of the board's displays."""
    glass = getattr(board.fb[0], "menu_rows", None)  # segface.SegText: the battery board
    for i in (0, 1):
        fb = board.fb[i]
        fb.fill(0)
        rows = glass(m, i) if glass else m.lines(i)
        gap = 16 if len(rows) <= 3 else 9  # a long control: a stage a row, never cut
        for row, text in enumerate(rows):
            fb.text(text, 0, (8 if gap == 16 else 0) + gap * row, 1)
        board.show(i)


def current(m):
    """The item shown, as (label, value)."""
    it = m.items[m.i]
    return it.label(m), it.value(m)


def lines(m, display):
    """Display 0: SETUP, the game and the control a stage a row (never
    cut); display 1: the item being set and the next ones, or the error."""
    if display == 0:
        try:
            rows = format_lines(tcspec.parse(m.d.spec()))
        except tcspec.SpecError:
            rows = ("(not valid)",)
        return ("SETUP " + GAMES[m.game],) + rows
    if m.error:  # the reason, word-wrapped
        out = []
        line = "!"
        for w in m.error.split(" "):
            if len(line) + 1 + len(w) > 16:
                out.append(line)
                line = w[:16]
            else:
                line += " " + w
        out.append(line)
        return tuple(out[:7])
    vis = m.visible()
    at = vis.index(m.i) if m.i in vis else 0
    out = []
    for k in vis[at : at + 3]:
        it = m.items[k]
        label, value = it.label(m), it.value(m)
        mark = "> " if k == m.i else "  "
        if len(label) + 1 + len(value) <= 14:
            out.append(mark + label + " " + value)
        elif k == m.i:  # never cut: the value on a row of its own
            out.append(mark + label)
            out.append(("  " + value)[-16:] if len(value) <= 14 else value)
        else:
            out.append(mark + label)
    return tuple(out[:4])


# -- the user slots, in flash (#24) ----------------------------------------------


def load_slots(folder):
    """The user slots from ``folder/slots`` (a spec a line; empty: none). A
    line that does not parse is an empty slot, never trusted."""
    slots = [""] * SLOTS
    if not folder:
        return slots  # no flash: the slots last until the power goes
    try:
        with open(folder + "/slots") as f:
            lines = f.read().split("\n")
    except OSError:
        return slots
    for i in range(SLOTS):
        text = lines[i].strip() if i < len(lines) else ""
        try:
            slots[i] = tcspec.format(tcspec.parse(text)) if text else ""
        except tcspec.SpecError:
            pass
    return slots
