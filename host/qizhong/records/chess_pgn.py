# SPDX-License-Identifier: GPL-3.0-or-later
"""Chess game records as PGN with clock times, written and read by python-chess.

    >>> import chess
    >>> from qizhong.records import chess_pgn
    >>> board = chess.Board()
    >>> board.push_san("e4")
    Move.from_uci('e2e4')
    >>> game = chess_pgn.build(board, clocks=[599_000], emts=[3_000], time_control="10m+5s",
    ...                        White="Anderssen", Black="Kieseritzky")
    >>> print(chess_pgn.write(game))  # doctest: +NORMALIZE_WHITESPACE
    [Event "?"]
    [Site "?"]
    [Date "????.??.??"]
    [Round "?"]
    [White "Anderssen"]
    [Black "Kieseritzky"]
    [Result "*"]
    [TimeControl "600+5"]
    <BLANKLINE>
    1. e4 { [%clk 0:09:59] [%emt 0:00:03] } *
    >>> chess_pgn.clocks_ms(chess_pgn.read(chess_pgn.write(game)))
    [599000]

The movetext is English SAN, as the PGN standard requires (the arbiter's
console may show another language's letters). Each move's comment carries
``[%clk h:mm:ss]``, the mover's time left after the move (the press event's
own time), and with ``emts`` also ``[%emt h:mm:ss]``, the time the move used.
Times that are not whole seconds keep their milliseconds (``0:09:59.25``), so
reading back gives the same integer ms.

``TimeControl`` is the PGN standard's value from the spec
(``qizhong.timecontrol.to_pgn``: ``600+5``, ``40/5400+30:1800+30``, ``*180``);
a control PGN cannot say (a delay, overtime, Armageddon's unequal times) is
written ``?`` and the clock's own spec goes into a ``ClockSpec`` tag.
``Termination`` is one of PGN's words (normal, time forfeit, rules
infraction, adjudication...). A game from a FEN or Chess960 gets ``SetUp``,
``FEN`` and ``Variant`` from python-chess.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import chess
import chess.pgn

from qizhong import timecontrol
from qizhong.core.timecontrol import UPCOUNT

__all__ = ["RESULTS", "build", "clocks_ms", "emts_ms", "read", "write"]

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


def build(
    board: chess.Board,
    clocks: Sequence[int | None] = (),
    emts: Sequence[int | None] | None = None,
    time_control: timecontrol.TimeControl | str | None = None,
    result: str = "*",
    termination: str = "",
    comments: dict[int, str] | None = None,
    **headers: str,
) -> chess.pgn.Game:
    """The game ``board`` played (its move stack, from its starting position).

    ``clocks[i]`` and ``emts[i]``: ms after move ``i`` (None: unknown);
    ``comments``: ply (1 = the first move, 0 = before it) to text;
    ``headers``: more PGN tags (Event, Site, Date, Round, White, Black...).
    """
    if result not in RESULTS:
        raise ValueError("a PGN result is one of %s, not %r" % (", ".join(RESULTS), result))
    game = chess.pgn.Game.from_board(board)
    for k, v in headers.items():
        if v:
            game.headers[k] = tag_text(v)
    game.headers["Result"] = result
    if time_control is not None:
        tc = timecontrol.parse(time_control) if isinstance(time_control, str) else time_control
        try:
            pgn = timecontrol.to_pgn(tc)
            game.headers["TimeControl"] = pgn
            if timecontrol.spec_of(timecontrol.from_pgn(pgn)) != timecontrol.spec_of(tc):
                game.headers["ClockSpec"] = timecontrol.spec_of(tc)  # e.g. flag run: PGN can't say
        except ValueError:  # PGN's "-" is no time control: an upcount (TC-13)
            game.headers["TimeControl"] = "-" if tc.timing == UPCOUNT else "?"
            game.headers["ClockSpec"] = timecontrol.spec_of(tc)
    if termination:
        game.headers["Termination"] = termination
    notes = comments or {}
    if notes.get(0):
        game.comment = notes[0]
    for ply, node in enumerate(game.mainline(), start=1):
        if notes.get(ply):
            node.comment = notes[ply]
        ms = clocks[ply - 1] if ply <= len(clocks) else None
        if ms is not None:
            node.set_clock(ms / 1000)
        if emts is not None and ply <= len(emts):
            used = emts[ply - 1]
            if used is not None:
                node.set_emt(used / 1000)
    return game


def tag_text(value: str) -> str:
    """A tag value PGN can hold on its one line: every control character
    (a newline would end the tag, and start a fake game) becomes a space.
    python-chess writes and reads the rest as it is."""
    return "".join(" " if ord(c) < 32 or ord(c) == 127 else c for c in value)


def write(game: chess.pgn.Game) -> str:
    """The game as PGN text (python-chess's exporter), ending in a newline."""
    exporter = chess.pgn.StringExporter(headers=True, variations=True, comments=True)
    return game.accept(exporter) + "\n"


def read(text: str) -> chess.pgn.Game:
    """The first game in ``text``; ``ValueError`` if there is none or it has errors."""
    game = chess.pgn.read_game(io.StringIO(text))
    if game is None:
        raise ValueError("no game in the PGN text")
    if game.errors:
        raise ValueError("the PGN has errors: %s" % "; ".join(str(e) for e in game.errors))
    return game


def _ms(seconds: float | None) -> int | None:
    return None if seconds is None else round(seconds * 1000)


def clocks_ms(game: chess.pgn.Game) -> list[int | None]:
    """Each main-line move's ``[%clk]`` in integer ms (None where there is none)."""
    return [_ms(node.clock()) for node in game.mainline()]


def emts_ms(game: chess.pgn.Game) -> list[int | None]:
    """Each main-line move's ``[%emt]`` in integer ms (None where there is none)."""
    return [_ms(node.emt()) for node in game.mainline()]
