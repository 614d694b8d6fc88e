# SPDX-License-Identifier: GPL-3.0-or-later
"""Where a board's game begins: the usual start, or the position its session set up.

A session made with ``fen`` (Xiangqi, chess), ``chess960``, or a Go ``size``,
``komi`` and ``handicap`` starts its game elsewhere than the rules' usual
start; the board keeps that start (``BoardState.start``) beside its moves, so
every record of the game (``/boards/N.pgn``, ``/live.pgn``, a past game's
record) replays the moves from it and says it (PGN ``SetUp``/``FEN``, SGF
``SZ``/``KM``/``AB``/``AW``/``PL``/``HA``).

    >>> from qizhong.server.start import Start
    >>> Start().usual
    True
    >>> Start(fen="4k4/9/9/9/9/9/9/9/4A4/4K4 b - - 0 1").usual
    False
"""

from __future__ import annotations

from dataclasses import astuple, dataclass
from typing import Any


@dataclass(frozen=True)
class Start:
    """A game's start: every field at its default is the usual one."""

    fen: str = ""  # Xiangqi or chess: the position ("": the rules' initial one)
    chess960: bool = False  # chess: castling as Chess960 has it (the FEN's rooks)
    size: int = 19  # Go: the board
    komi: str = ""  # Go: in points, as SGF's KM writes it ("": the rules' 7.5)
    black: tuple[str, ...] = ()  # Go: stones set up before the first move (GTP vertices)
    white: tuple[str, ...] = ()
    white_first: bool = False  # Go: White moves first (a handicap game)
    handicap: int = 0  # Go: SGF's HA (the stones are in ``black``)

    @property
    def usual(self) -> bool:
        return self == USUAL

    def words(self) -> list[Any]:
        """Its fields as JSON keeps them (a record's lasting key)."""
        return [list(v) if isinstance(v, tuple) else v for v in astuple(self)]

    @classmethod
    def from_words(cls, words: Any) -> Start:
        """``words()`` read back; ValueError if they are not a start's."""
        if not isinstance(words, list) or len(words) != 8:
            raise ValueError("not a start: %r" % (words,))
        fen, c960, size, komi, black, white, wfirst, ha = words
        ok = (
            isinstance(fen, str)
            and isinstance(c960, bool)
            and type(size) is int
            and isinstance(komi, str)
            and all(
                isinstance(p, list) and all(isinstance(v, str) for v in p) for p in (black, white)
            )
            and isinstance(wfirst, bool)
            and type(ha) is int
        )
        if not ok:
            raise ValueError("not a start: %r" % (words,))
        return cls(fen, c960, size, komi, tuple(black), tuple(white), wfirst, ha)


USUAL = Start()


def of_session(session: Any) -> Start:
    """The start of an arbiter session's game (``qizhong.arbiter``'s sessions)."""
    from qizhong.arbiter.chess import ChessSession
    from qizhong.arbiter.go import GoSession
    from qizhong.arbiter.xiangqi import XiangqiSession
    from qizhong.rules import go, xiangqi

    if isinstance(session, XiangqiSession):
        fen = session.board.starting_fen
        return Start(fen=fen if fen != xiangqi.STARTING_FEN else "")
    if isinstance(session, ChessSession):
        import chess

        board = session.board
        fen = board.root().fen()
        c960 = bool(board.chess960)
        return Start(fen=fen if fen != chess.STARTING_FEN or c960 else "", chess960=c960)
    if isinstance(session, GoSession):
        b = session.board
        black, white = b.setup
        komi = go._decimal(b.komi)
        ha = session.properties.get("HA", "")
        return Start(
            size=b.size,
            komi="" if b.komi == go.KOMI else komi,
            black=tuple(p.gtp() for p in sorted(black)),
            white=tuple(p.gtp() for p in sorted(white)),
            white_first=b.first is go.WHITE,
            handicap=int(ha) if ha.isdigit() else 0,
        )
    return USUAL
