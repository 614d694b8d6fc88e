# SPDX-License-Identifier: GPL-3.0-or-later
"""A board's moves as the arbiter entered them: the position, and the records.

Each move is checked by the game's rules engine when it is entered
(``qizhong.rules``) and kept in the store as an arbiter action; the n-th move
of the game is paired with the n-th press of the clock, whose time left
after it is the move's clock time. Xiangqi games are PGN with ``[%clk]``
after every move (``qizhong.records.xiangqi_pgn``; ``/live.pgn`` is every
board's current game, as a lichess-style broadcast polls it); Go games are
SGF with ``BL``/``WL`` (``qizhong.records.go_sgf``); chess games are PGN in
English SAN with ``[%clk]`` and the ``TimeControl`` tag, written by
python-chess (``qizhong.records.chess_pgn``), and drawn by python-chess's SVG
(``qizhong.rules.chess.svg``).

These functions build from scratch, for one-off use; the server keeps every
board's game as it grows and serves it off the event loop
(``qizhong.server.feed``), with the same code.
"""

from __future__ import annotations

from typing import Any

from qizhong.server.board import BoardState
from qizhong.server.feed import Game, Info, Live


def _live(st: BoardState) -> Live:
    live = Live(st.board.game, st.start)
    live.sync(st.played)
    return live


def _game(st: BoardState) -> Game:
    clocks = [st.presses[i]["left"] if i < len(st.presses) else None for i in range(len(st.played))]
    flag = (st.flag[0], st.flag[1])
    return Game(Info.of(st.board), list(st.played), clocks, st.result, flag, start=st.start)


def check_move(st: BoardState, text: str) -> str:
    """``text`` as a move after the board's moves so far, in the game's
    notation; ValueError (the rules engine's) if it is not legal there."""
    return _live(st).check(text)


def position(st: BoardState) -> dict[str, Any]:
    """The position for the page's drawing (``kind`` picks its renderer)."""
    return _live(st).position()


def pgn(st: BoardState) -> str:
    """The board's current Xiangqi or chess game as PGN, ``[%clk]`` after every timed move."""
    return _live(st).record(_game(st)).decode()


def sgf(st: BoardState) -> bytes:
    """The board's current Go game as SGF, each move with its mover's time left."""
    return _live(st).record(_game(st))
