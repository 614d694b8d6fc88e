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
"""

from __future__ import annotations

from typing import Any

from qizhong import timecontrol
from qizhong.records import chess_pgn, go_sgf, xiangqi_pgn
from qizhong.rules import chess, go, xiangqi
from qizhong.server.board import BoardState

GO_SIZE = 19
RESULTS = {0: ("1-0", "B+"), 1: ("0-1", "W+"), 2: ("1/2-1/2", "0")}


def check_move(st: BoardState, text: str) -> str:
    """``text`` as a move after the board's moves so far, in the game's
    notation; ValueError (the rules engine's) if it is not legal there."""
    game = st.board.game
    if game == "xiangqi":
        xq = _xiangqi(st)
        return xq.notation(xq.parse_notation(text))
    if game == "go":
        return _go(st).push_gtp(text).gtp()
    if game == "chess":  # SAN, LAN or UCI in; kept as SAN (CH-1: the scoresheet's notation)
        board = _chess(st)
        return board.notation(board.parse_move(text))
    raise ValueError("moves of %s are not kept here yet" % game)


def _xiangqi(st: BoardState) -> xiangqi.Board:
    board = xiangqi.Board()
    for text in st.played:
        board.push(board.parse_notation(text))
    return board


def _chess(st: BoardState) -> chess.Board:
    board = chess.Board()
    for text in st.played:
        board.push_move(text)
    return board


def _go(st: BoardState) -> go.Board:
    board = go.Board(GO_SIZE)
    for text in st.played:
        board.push_gtp(text)
    return board


def position(st: BoardState) -> dict[str, Any]:
    """The position for the page's drawing (``kind`` picks its renderer)."""
    game = st.board.game
    if game == "xiangqi":
        return {"kind": "xiangqi", "fen": _xiangqi(st).fen()}
    if game == "go":
        board = _go(st)
        stones = []
        for x in range(GO_SIZE):
            for y in range(GO_SIZE):
                c = board.color_at(go.Point(x, y))
                if c is not None:
                    stones.append(
                        [[x, GO_SIZE - 1 - y], "black" if c == go.Color.BLACK else "white"]
                    )
        return {"kind": "go", "size": GO_SIZE, "stones": stones}
    if game == "chess":
        cb = _chess(st)
        return {"kind": "chess", "fen": cb.fen(), "svg": chess.svg(cb)}
    return {"kind": game}


def _clock(st: BoardState, i: int) -> int | None:
    return st.presses[i]["left"] if i < len(st.presses) else None


def pgn(st: BoardState) -> str:
    """The board's current Xiangqi or chess game as PGN, ``[%clk]`` after every timed move."""
    b = st.board
    if b.game == "chess":
        return _chess_pgn(st)
    game = xiangqi_pgn.Game(
        headers={
            "Event": "qizhong hall",
            "Round": str(st.game_no),
            "Board": str(b.no),
            "Red": b.first or "?",
            "Black": b.second or "?",
            "Result": RESULTS.get(st.result, ("*", ""))[0],
        }
    )
    if b.spec:
        try:
            game.set_time_control(b.spec)
        except ValueError:
            pass
    board = xiangqi.Board()
    for i, text in enumerate(st.played):
        move = board.parse_notation(text)
        board.push(move)
        game.add_move(move, clock_ms=_clock(st, i))
    return xiangqi_pgn.write_game(game)


def sgf(st: BoardState) -> bytes:
    """The board's current Go game as SGF, each move with its mover's time left."""
    board = _go(st)
    times = [
        go_sgf.MoveTime(ms) if (ms := _clock(st, i)) is not None else None
        for i in range(len(st.played))
    ]
    result = ""
    if st.result in (0, 1):
        result = RESULTS[st.result][1] + "R"
    elif st.result == 2:
        result = "0"
    return go_sgf.write(
        go_sgf.GoRecord(
            board, black=st.board.first, white=st.board.second, times=times, result=result
        )
    )


def _chess_pgn(st: BoardState) -> str:
    """The board's current chess game: python-chess's PGN, English SAN, ``[%clk]``
    after every move the clock has timed, ``TimeControl`` from the board's spec."""
    b = st.board
    tc: str | None = b.spec or None
    if tc is not None:
        try:
            timecontrol.parse(tc)
        except ValueError:
            tc = None  # a spec the host cannot read: no TimeControl tag rather than no record
    game = chess_pgn.build(
        _chess(st),
        clocks=[_clock(st, i) for i in range(len(st.played))],
        time_control=tc,
        result=RESULTS.get(st.result, ("*", ""))[0],
        Event="qizhong hall",
        Round=str(st.game_no),
        Board=str(b.no),
        White=b.first or "?",
        Black=b.second or "?",
    )
    return chess_pgn.write(game)
