# SPDX-License-Identifier: GPL-3.0-or-later
"""Can a side still mate? Articles 6.9 and 5.2.2 of the FIDE Laws, by search.

Article 6.9: a flag is a draw if the opponent "cannot checkmate the player's
king by any possible series of legal moves"; 5.2.2: a position where
neither side can is dead, and the game ends. Material alone does not decide
that (a locked pawn wall the kings can never cross is dead with pawns on the
board), so ``can_mate`` searches, in the spirit of the published
unwinnability work (Ambrona's Chess Unwinnability Analyzer): both players
cooperate, and the question is whether any series of legal moves reaches a
mate by ``color``. Three steps, each sound:

1. python-chess's insufficient material: a lone king, or material that no
   arrangement lets mate, cannot mate (False); any other material against
   a lone king can, the king helping (True).
2. Every position reachable from here, breadth first, each once (a
   transposition table). If they are all seen, up to ``nodes``, and none is
   mate by ``color``, no series can mate (False): a blocked position has few.
3. A helpmate search, best first: the positions nearest a mate by
   ``color`` (the other king in a corner, ``color``'s pieces close to it,
   its pawns close to promotion) are tried first, each once. A mate found
   is a series of legal moves (True).

Within the bound neither may decide: then ``None``, and the arbiter rules
(the console proposes; docs/chess.md). The searches ignore the 50- and
75-move counters and repetitions, as the Law's "any series" does.
"""

from __future__ import annotations

import heapq
from collections import deque

import chess

__all__ = ["NODES", "can_mate", "dead", "mating_series"]

NODES = 5000  # positions looked at, for each of steps 2 and 3


def _key(b: chess.Board) -> tuple[int, ...]:
    return (
        b.pawns, b.knights, b.bishops, b.rooks, b.queens, b.kings,
        b.occupied_co[chess.WHITE], b.occupied_co[chess.BLACK],
        int(b.turn), b.castling_rights, b.ep_square if b.ep_square is not None else -1,
    )  # fmt: skip


def _reachable(board: chess.Board, colors: set[bool], nodes: int) -> tuple[set[bool], bool]:
    """Breadth first over the positions reachable from ``board``: the colors
    of ``colors`` seen to mate, and whether every position was seen."""
    root = board.copy(stack=False)
    seen = {_key(root)}
    queue = deque([root])
    mates: set[bool] = set()
    while queue:
        b = queue.popleft()
        for mv in list(b.legal_moves):
            b.push(mv)
            if b.is_checkmate():
                mates.add(not b.turn)
                if colors <= mates:
                    return mates, False
            else:
                k = _key(b)
                if k not in seen:
                    if len(seen) >= nodes:
                        return mates, False
                    seen.add(k)
                    queue.append(b.copy(stack=False))
            b.pop()
    return mates, True


def _corner_distance(sq: int) -> int:
    f, r = chess.square_file(sq), chess.square_rank(sq)
    return min(f, 7 - f) + min(r, 7 - r)


def _score(b: chess.Board, color: bool) -> int:
    """Lower is nearer a mate by ``color``, both sides helping: the other
    king in a corner, boxed in, ``color``'s pieces and king close to it,
    its pawns close to promotion."""
    king = b.king(not color)
    if king is None:
        return 0
    s = 4 * _corner_distance(king)
    for sq in b.pieces(chess.PAWN, color):
        s += 2 * (7 - chess.square_rank(sq) if color == chess.WHITE else chess.square_rank(sq))
    for pt in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING):
        for sq in b.pieces(pt, color):
            s += chess.square_distance(sq, king)
    return s - 3 * len(b.pieces(chess.QUEEN, color))


def _lone(b: chess.Board, color: bool) -> bool:
    """``color`` has mating material and the other side a lone king: a
    mate follows, the king helping (the classic result)."""
    other = b.occupied_co[not color]
    return other == b.kings & other and not b.has_insufficient_material(color)


def _best_first(board: chess.Board, color: bool, nodes: int) -> list[chess.Move] | None:
    """A mate by ``color`` found by expanding the most promising positions
    first (``_score``), each once, up to ``nodes`` positions: its moves."""
    root = board.copy(stack=False)
    seen: dict[tuple[int, ...], tuple[tuple[int, ...], chess.Move] | None] = {_key(root): None}
    heap = [(_score(root, color), 0, root)]
    n = 0
    while heap and len(seen) < nodes:
        _, _, b = heapq.heappop(heap)
        here = _key(b)
        for mv in list(b.legal_moves):
            b.push(mv)
            if b.is_checkmate():
                if b.turn != color:
                    series = [mv]
                    back = seen[here]
                    while back is not None:
                        series.append(back[1])
                        back = seen[back[0]]
                    return series[::-1]
            else:
                k = _key(b)
                if k not in seen:
                    seen[k] = (here, mv)
                    n += 1
                    heapq.heappush(heap, (_score(b, color), n, b.copy(stack=False)))
            b.pop()
    return None


def mating_series(board: chess.Board, color: bool, nodes: int = NODES) -> list[chess.Move] | None:
    """The moves of a mate by ``color`` from ``board`` the helpmate search
    finds within ``nodes`` positions, or None."""
    return _best_first(board, color, nodes)


def can_mate(board: chess.Board, color: bool, nodes: int = NODES) -> bool | None:
    """Whether ``color`` can mate by some series of legal moves from ``board``:
    True (a series found), False (none can), None (not decided within
    ``nodes`` positions for each search)."""
    if board.has_insufficient_material(color):
        return False
    if board.is_checkmate():
        return board.turn != color
    if _lone(board, color):
        return True
    mates, complete = _reachable(board, {color}, nodes)
    if color in mates:
        return True
    if complete:
        return False
    return True if _best_first(board, color, nodes) is not None else None


def _locked(board: chess.Board) -> bool:
    """Only kings, pawns and bishops, and no pawn can move: the positions a
    blockade may make dead (the rest is left to play on, at no cost)."""
    if board.queens | board.rooks | board.knights:
        return False
    occ = board.occupied
    for color in (chess.WHITE, chess.BLACK):
        step = 8 if color == chess.WHITE else -8
        for sq in board.pieces(chess.PAWN, color):
            ahead = sq + step
            if 0 <= ahead < 64 and not occ & chess.BB_SQUARES[ahead]:
                return False
            if board.attacks_mask(sq) & board.occupied_co[not color]:
                return False
    return True


def dead(board: chess.Board, nodes: int = 3000) -> bool:
    """5.2.2: True only if it is certain that neither side can mate. Searched
    only for a locked position (``_locked``): any other is left to play on."""
    if board.has_insufficient_material(chess.WHITE) and board.has_insufficient_material(
        chess.BLACK
    ):
        return True
    if not _locked(board):
        return False
    mates, complete = _reachable(board, {chess.WHITE, chess.BLACK}, nodes)
    return complete and not mates
