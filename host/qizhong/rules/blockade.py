# SPDX-License-Identifier: GPL-3.0-or-later
"""Locked pawns: a proof without search that a side cannot mate (FIDE 5.2.2, 6.9).

A pawn wall can make a position dead with pawns and bishops on the board:
the kings cannot cross it, and a bishop cannot get through or take a pawn.
``unwinnable(board, color)`` proves such a case, or returns None. It is the
idea of the semi-static step of Ambrona's Chess Unwinnability Analyzer
(CHA), in our own, narrower form:

1. Every pawn is assumed to stay where it is for ever (each has a pawn
   right in front of it, so it can never be pushed).
2. Under that assumption, each other piece can only ever reach the squares
   of its *region*: a flood over the squares not held by a pawn, by the
   piece's own steps (a slider's move is a run of single steps over empty
   squares; a king never steps onto a square a pawn attacks).
3. The assumption holds if no pawn can ever capture or be captured: no pawn
   attacks a pawn or a square in an enemy piece's region, no piece attacks
   a pawn from its region (a king only an unprotected one), and there is no
   en passant capture now. Then, by induction over any series of moves,
   every pawn stays and every piece stays in its region.
4. A mate needs the losing king on a square of its region with a piece of
   ``color`` (not a king, and not a pawn, whose attacks the king's region
   leaves out) attacking it. None can: the side cannot mate.
5. Else, for each square k where the king could be checked: each square next
   to k on its rank or file, in the king's region and attacked by no piece
   of ``color`` from its region, must be blocked by a piece of the losing
   side, or attacked by the winning king (which, two squares away, covers at
   most one such square). If at every such k there are more of these
   squares than pieces able to block them plus one for that king, no mate
   can come. (This is what lets a bishop of one colour never mate behind a
   wall: the squares next to the king on its rank and file are of the other
   colour.)

Steps 4 and 5 are necessary conditions of a mate, so a True answer is sound;
what they cannot prove is left to the search (``qizhong.rules.unwinnable``).
"""

from __future__ import annotations

import chess

__all__ = ["Regions", "regions", "unwinnable"]

_ALL = chess.BB_ALL
_A, _B = chess.BB_FILE_A, chess.BB_FILE_B
_G, _H = chess.BB_FILE_G, chess.BB_FILE_H


def _diag(b: int) -> int:
    return (((b << 9) & ~_A) | ((b << 7) & ~_H) | ((b >> 7) & ~_A) | ((b >> 9) & ~_H)) & _ALL


def _orth(b: int) -> int:
    return ((b << 8) | (b >> 8) | ((b << 1) & ~_A) | ((b >> 1) & ~_H)) & _ALL


def _king(b: int) -> int:
    return _diag(b) | _orth(b)


def _knight(b: int) -> int:
    ab, gh = _A | _B, _G | _H
    return (
        ((b << 17) & ~_A) | ((b << 15) & ~_H) | ((b << 10) & ~ab) | ((b << 6) & ~gh)
        | ((b >> 6) & ~ab) | ((b >> 10) & ~gh) | ((b >> 15) & ~_A) | ((b >> 17) & ~_H)
    ) & _ALL  # fmt: skip


def pawn_attacks(pawns: int, color: chess.Color) -> int:
    """The squares ``color``'s pawns on ``pawns`` attack."""
    if color == chess.WHITE:
        return (((pawns << 9) & ~_A) | ((pawns << 7) & ~_H)) & _ALL
    return ((pawns >> 7) & ~_A) | ((pawns >> 9) & ~_H)


# A piece's single step (for its region) and what it attacks from a region.
_STEP = {
    chess.KNIGHT: _knight,
    chess.BISHOP: _diag,
    chess.ROOK: _orth,
    chess.QUEEN: _king,
    chess.KING: _king,
}


def _flood(start: int, step, allowed: int) -> int:
    region = start
    while True:
        more = region | (step(region) & allowed)
        if more == region:
            return region
        region = more


class Regions:
    """The pieces' regions with every pawn fixed (steps 1-3 above)."""

    def __init__(self, board: chess.Board) -> None:
        self.board = board
        pawns = board.pawns
        self.pawn_att = {c: pawn_attacks(pawns & board.occupied_co[c], c) for c in chess.COLORS}
        # square -> (color, piece type, region, attacks), kings included
        self.pieces: dict[int, tuple[chess.Color, int, int, int]] = {}
        for sq in chess.scan_forward(board.occupied & ~pawns):
            color = bool(board.occupied_co[chess.WHITE] & chess.BB_SQUARES[sq])
            pt = board.piece_type_at(sq)
            assert pt is not None
            allowed = ~pawns & _ALL
            if pt == chess.KING:
                allowed &= ~self.pawn_att[not color]
            step = _STEP[pt]
            region = _flood(chess.BB_SQUARES[sq], step, allowed)
            self.pieces[sq] = (color, pt, region, step(region))

    def king_region(self, color: chess.Color) -> int:
        return next(r for c, pt, r, _ in self.pieces.values() if c == color and pt == chess.KING)

    def attacks(self, color: chess.Color) -> int:
        """What ``color``'s pieces other than the king can ever attack."""
        out = 0
        for c, pt, _, att in self.pieces.values():
            if c == color and pt != chess.KING:
                out |= att
        return out


def regions(board: chess.Board) -> Regions | None:
    """The regions, if every pawn is provably fixed for ever; else None."""
    b = board
    pawns = b.pawns
    if not pawns:
        return None
    white, black = pawns & b.occupied_co[chess.WHITE], pawns & b.occupied_co[chess.BLACK]
    # every pawn has a pawn right in front of it: no push, ever
    if (white << 8) & ~pawns & _ALL or (black >> 8) & ~pawns:
        return None
    if b.ep_square is not None and b.has_legal_en_passant():
        return None
    r = Regions(b)
    for color, own in ((chess.WHITE, white), (chess.BLACK, black)):
        enemy_pawns = black if color == chess.WHITE else white
        if r.pawn_att[color] & enemy_pawns:
            return None  # a pawn can take a pawn
        for c, pt, region, att in r.pieces.values():
            if c == color:
                continue
            if pt != chess.KING and r.pawn_att[color] & region:
                return None  # a pawn can take a piece
            if pt == chess.KING:
                if att & own & ~r.pawn_att[color]:
                    return None  # the king can take an unprotected pawn
            elif att & own:
                return None  # a piece can take a pawn
    return r


def unwinnable(board: chess.Board, color: chess.Color) -> str | None:
    """Why ``color`` can never mate in this blockade (steps 4, 5), or None."""
    r = regions(board)
    if r is None:
        return None
    loser = not color
    home = r.king_region(loser)
    att = r.attacks(color)
    checks = home & att
    if not checks:
        return (
            "no piece of %s can ever attack a square the other king can reach"
            % (chess.COLOR_NAMES[color])
        )
    winner_king = r.king_region(color)
    blockers = [reg for c, pt, reg, _ in r.pieces.values() if c == loser and pt != chess.KING]
    for k in chess.scan_forward(checks):
        kb = chess.BB_SQUARES[k]
        free = _orth(kb) & home & ~att  # squares next to k only a block or the king can shut
        if not free:
            return None
        near = _king(_king(kb)) & ~_king(kb) & ~kb
        king_help = 1 if winner_king & near else 0
        can_block = sum(1 for reg in blockers if reg & free)
        if chess.popcount(free) <= king_help + can_block:
            return None
    return (
        "the pawns are locked, and wherever %s could check the other king it has "
        "a square beside it on its rank or file no piece can shut" % chess.COLOR_NAMES[color]
    )
