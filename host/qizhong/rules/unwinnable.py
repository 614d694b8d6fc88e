# SPDX-License-Identifier: GPL-3.0-or-later
"""Can a side still mate? Articles 6.9 and 5.2.2 of the FIDE Laws, decided.

Article 6.9: a flag is a draw if the opponent "cannot checkmate the player's
king by any possible series of legal moves"; 5.2.2: a position where
neither side can is dead, and the game ends. ``analyse(board, color)``
answers for ``color`` with a ``Verdict``: ``winnable`` (a series exists),
``unwinnable`` (none can) or, rarely, ``undecided``, each with its reason.
It follows the published method of Ambrona's Chess Unwinnability Analyzer
(CHA), in our own code on python-chess, in these steps, each sound:

1. The board: a mate or a stalemate now decides.
2. Material: python-chess's insufficient material (a lone king, a lone
   knight against a king and queens, bishops of one colour with no pawns
   or knights on the board) cannot mate; any other material against a lone
   king can, the king helping (the classic result).
3. A locked pawn structure: ``qizhong.rules.blockade`` proves without
   search that ``color`` can never check the king, or never shut its
   escape squares (the kings cannot cross the wall, the bishops are of one
   colour and cannot take a pawn).
4. A helpmate search, both sides helping ``color``, as CHA does it: depth
   first, deepened iteratively, each position once at each depth (a
   transposition table). The moves that bring a mate nearer cost no depth
   (captures by ``color``, pawns pushed on, the kings and knights going to
   the mating corner, the other side's pieces coming to block beside its
   king, or, when ``color`` has only a knight or bishops of one colour,
   the other side's pawns going to promote); the other side's captures
   cost three. A line stops where ``color`` cannot mate any more (its
   material is insufficient), and succeeds at a mate or where the other
   side is left with a lone king against material that can mate. If a pass
   ends without reaching its depth anywhere, every reachable position was
   seen and none is a mate: ``unwinnable``.
5. With the rest of the bound, a best-first helpmate search toward the same
   mating corner (``_Goal``: the corner's colour chosen for the blockers,
   a rook's pawn shutting the square in front of its king), each position
   once; a move that may give check is tried for a mate at once. If every
   reachable position is taken and none is a mate: ``unwinnable``.

What the search cannot settle within ``nodes`` positions is ``undecided``,
and the arbiter rules (docs/chess.md). The searches ignore the 50- and
75-move counters and repetitions, as the Law's "any series" does.
"""

from __future__ import annotations

import dataclasses
import heapq
from collections import deque

import chess

from qizhong.rules import blockade

__all__ = ["NODES", "Verdict", "analyse", "can_mate", "dead", "mating_series"]

NODES = 2000  # positions the search may look at (benchmarks/unwinnable.py: under 100 ms at p99)
WINNABLE, UNWINNABLE, UNDECIDED = "winnable", "unwinnable", "undecided"


@dataclasses.dataclass(frozen=True)
class Verdict:
    """Whether ``color`` can mate: ``result`` is ``winnable``, ``unwinnable``
    or ``undecided``; ``reason`` says why in words; ``series`` the moves of a
    mate (or of the way to a lone king) the search found; ``nodes`` the
    positions it looked at."""

    result: str
    reason: str
    series: tuple[chess.Move, ...] = ()
    nodes: int = 0

    @property
    def can_mate(self) -> bool | None:
        return {WINNABLE: True, UNWINNABLE: False}.get(self.result)


def _key(b: chess.Board) -> tuple[int, ...]:
    return (
        b.pawns, b.knights, b.bishops, b.rooks, b.queens, b.kings,
        b.occupied_co[chess.WHITE], int(b.turn), b.castling_rights,
        b.ep_square if b.ep_square is not None else -1,
    )  # fmt: skip


def _knight_table() -> list[list[int]]:
    """Knight distance between any two squares (a breadth-first walk)."""
    table = []
    for start in chess.SQUARES:
        dist = [-1] * 64
        dist[start] = 0
        queue = deque([start])
        while queue:
            sq = queue.popleft()
            for to in chess.scan_forward(chess.BB_KNIGHT_ATTACKS[sq]):
                if dist[to] < 0:
                    dist[to] = dist[sq] + 1
                    queue.append(to)
        table.append(dist)
    return table


_KNIGHT = _knight_table()
_DIST = [[chess.square_distance(a, b) for b in chess.SQUARES] for a in chess.SQUARES]


def _lone(b: chess.Board, color: bool) -> bool:
    """The other side has a lone king and ``color`` material that can mate."""
    other = b.occupied_co[not color]
    return other == b.kings & other and not b.has_insufficient_material(color)


def _needs_promotion(b: chess.Board, color: bool) -> bool:
    """``color`` mates only if the other side first promotes a pawn (to a
    piece that can block): a lone knight against no minor piece or rook, or
    bishops of one colour against no knight and no bishop of the other."""
    own = b.occupied_co[color]
    other = b.occupied_co[not color]
    if own == b.kings & own | b.knights & own and chess.popcount(b.knights & own) == 1:
        return not other & (b.knights | b.bishops | b.rooks)
    bishops = b.bishops & own
    if bishops and own == b.kings & own | bishops:
        shade = chess.BB_DARK_SQUARES if bishops & chess.BB_DARK_SQUARES else chess.BB_LIGHT_SQUARES
        return not (b.bishops & ~shade) and not other & b.knights
    return False


class _Deepening:
    """The first helpmate search of step 4, CHA's: depth first, deepened
    one ply a pass, each position once a pass (a transposition table). A
    move that brings the mate nearer costs no depth, and neither does the
    reply to one; the loser's captures cost three. Each pass stops after
    ``per_pass`` positions, the whole after ``limit``."""

    REWARD, NORMAL, PUNISH = 0, 1, 3  # the depth a move costs
    MAX_PLY = 200

    def __init__(self, color: bool, limit: int, per_pass: int) -> None:
        self.color = color
        self.limit = limit
        self.per_pass = per_pass
        self.nodes = 0
        self.stop = 0
        self.tt: dict[tuple[int, ...], int] = {}
        self.cut = False  # a line reached the pass's depth, or the pass its bound
        self.line: list[chess.Move] = []
        self.lone = False

    def _cost(self, b: chess.Board, m: chess.Move, goal: _Goal, promote: bool) -> int:
        pt = b.piece_type_at(m.from_square)
        winner_turn = b.turn == self.color
        if winner_turn:
            if b.is_capture(m):
                return self.REWARD
            if pt == chess.PAWN:
                return self.REWARD if _to_promote(self.color, m.from_square) <= 3 else self.NORMAL
            target = goal.king_sq if pt == chess.KING else goal.corner
        else:
            if promote and pt == chess.PAWN:
                return self.PUNISH if m.promotion in (chess.QUEEN, chess.ROOK) else self.REWARD
            target = goal.corner if pt == chess.KING else goal.block
        if pt == chess.KING or (pt == chess.BISHOP and not winner_turn):
            if _DIST[m.to_square][target] < _DIST[m.from_square][target]:
                return self.REWARD
        elif pt == chess.KNIGHT:
            if _KNIGHT[m.to_square][target] < _KNIGHT[m.from_square][target]:
                return self.REWARD
        if not winner_turn and (promote or b.is_capture(m)):
            return self.PUNISH
        return self.NORMAL

    def dfs(self, b: chess.Board, left: int, progress: bool, goal: _Goal) -> bool:
        color = self.color
        if len(self.line) >= self.MAX_PLY:
            self.cut = True
            return False
        key = _key(b)
        if self.tt.get(key, -1) >= left:
            return False
        if b.has_insufficient_material(color):
            return False
        mover_is_winner = b.turn == color
        if left <= 0 and (mover_is_winner or not b.is_check()):
            self.cut = True  # a frontier position that cannot be a mate
            return False
        moves = list(b.generate_legal_moves())
        if not moves:
            return not mover_is_winner and b.is_check()
        if _lone(b, color):
            self.lone = True
            return True
        if left <= 0:
            self.cut = True
            return False
        self.tt[key] = left
        promote = _needs_promotion(b, color)
        ranked = sorted(((self._cost(b, m, goal, promote), i, m) for i, m in enumerate(moves)))
        deep = len(self.line) > self.MAX_PLY // 2  # no free moves this deep
        for cost, _, m in ranked:
            if self.nodes >= self.stop:
                self.cut = True
                return False
            self.nodes += 1
            if deep and cost == self.REWARD:
                cost = self.NORMAL
            elif cost == self.NORMAL and progress:
                cost = self.REWARD
            b.push(m)
            self.line.append(m)
            found = self.dfs(b, left - cost, cost == self.REWARD, goal)
            b.pop()
            if found:
                return True
            self.line.pop()
        return False

    def run(self, board: chess.Board) -> bool | None:
        """True (a series in ``line``), False (none, all seen) or None."""
        b = board.copy(stack=False)
        goal = _Goal(b, self.color)
        for depth in range(2, 400):
            self.tt.clear()
            self.cut = False
            self.line = []
            self.stop = min(self.limit, self.nodes + self.per_pass)
            if self.dfs(b, depth, False, goal):
                return True
            if not self.cut:
                return False
            if self.nodes >= self.limit:
                return None
        return None


class _Search:
    """The helpmate search of step 4: best first, both sides helping.

    Positions are taken nearest a mate first (``_Goal.score``), each once (a
    transposition table); a move that gives check is tried for a mate at
    once. If every position reachable is taken and none is a mate, none can
    come (``run`` returns False)."""

    def __init__(self, color: bool, limit: int, lone_ok: bool) -> None:
        self.color = color
        self.limit = limit
        self.lone_ok = lone_ok  # a lone king against mating material is a success
        self.nodes = 0
        self.seen = 0
        self.line: list[chess.Move] = []
        self.lone = False

    def run(self, board: chess.Board) -> bool | None:
        """True (a series in ``line``), False (none, all seen) or None."""
        color = self.color
        root = board.copy(stack=False)
        goal = _Goal(root, color)
        # node: (board, parent index, move); the heap holds unexpanded children
        boards: list[tuple[chess.Board | None, int, chess.Move | None]] = [(root, -1, None)]
        goals = [goal]  # a capture or a promotion sets a new goal for what follows
        seen = {_key(root)}
        heap: list[tuple[int, int, int, chess.Move | None]] = [(goal.score(root), 0, -1, None)]
        n = 0
        while heap:
            if self.nodes >= self.limit:
                return None
            base, _, parent, move = heapq.heappop(heap)  # base: the score, kept by delta
            if move is None:
                b, index = root, 0
            else:
                pb = boards[parent][0]
                assert pb is not None
                goal = goals[parent]
                fresh = move.promotion or pb.is_capture(move)
                b = pb.copy(stack=False)
                b.push(move)
                k = _key(b)
                if k in seen:
                    continue
                seen.add(k)
                index = len(boards)
                boards.append((b, parent, move))
                goals.append(_Goal(b, color) if fresh else goal)
                goal = goals[index]
            self.nodes += 1
            if b.has_insufficient_material(color):
                continue
            if self.lone_ok and _lone(b, color) and any(b.generate_legal_moves()):
                self.lone = True
                self.line = _path(boards, index)
                return True
            winner = b.turn == color
            lk = b.king(not color)
            moves = list(b.generate_legal_moves())
            if not moves and not winner and b.is_check():  # a mate _may_check let by
                self.line = _path(boards, index)
                return True
            for m in moves:
                if winner and lk is not None and _may_check(b, m, lk):
                    b.push(m)
                    mate = b.is_check() and not any(b.generate_legal_moves())
                    b.pop()
                    if mate:
                        self.line = [*_path(boards, index), m]
                        return True
                n += 1
                heapq.heappush(heap, (base + goal.delta(b, m), n, index, m))
        self.seen = len(seen)
        return False


def _path(boards: list, index: int) -> list[chess.Move]:
    out = []
    while index > 0:
        _, index, move = boards[index]
        out.append(move)
    return out[::-1]


def _may_check(b: chess.Board, m: chess.Move, king: int) -> bool:
    """A cheap filter before a move is tried for a mate: it promotes, the
    piece lands where its kind of move reaches ``king``'s square, or it
    leaves a line from one of its side's sliders to the king."""
    if m.promotion:
        return True
    to, frm = m.to_square, m.from_square
    kb = chess.BB_SQUARES[king]
    pt = b.piece_type_at(frm)
    ray = chess.BB_RAYS[to][king]
    straight = chess.square_file(to) == chess.square_file(king) or (
        chess.square_rank(to) == chess.square_rank(king))  # fmt: skip
    hit = (
        (pt == chess.KNIGHT and chess.BB_KNIGHT_ATTACKS[to] & kb)
        or (pt == chess.PAWN and chess.BB_PAWN_ATTACKS[b.turn][to] & kb)
        or (pt == chess.QUEEN and ray)
        or (pt == chess.ROOK and ray and straight)
        or (pt == chess.BISHOP and ray and not straight)
    )
    sliders = (b.queens | b.rooks | b.bishops) & b.occupied_co[b.turn]
    return bool(hit or chess.BB_RAYS[frm][king] & sliders)


class _Goal:
    """How far a position is from a mate by ``color`` in the mating corner,
    CHA's idea of a target for each piece: the losing king in the corner
    nearest it (of the winning bishops' colour), the winning king two
    squares off, the winning knights and pawns coming, and, when the winner
    cannot mate without the loser's help (a lone knight, bishops of one
    colour), the loser's pieces blocking beside their king and its pawns
    going to promote; else the loser's pieces are there to be taken. With
    only kings, pawns and bishops on the board, each king goes for the other
    side's unguarded pawns instead (a locked wall is broken by a capture).
    The search sets a new goal after each capture or promotion."""

    def __init__(self, b: chess.Board, color: bool) -> None:
        self.color = color
        own = b.occupied_co[color]
        bishops = b.bishops & own
        lk = b.king(not color)
        corners = [chess.A1, chess.H1, chess.A8, chess.H8]
        theirs = b.bishops & b.occupied_co[not color]
        light = [chess.A8, chess.H1]
        if bishops and not bishops & chess.BB_DARK_SQUARES:
            corners = light
        elif bishops and not bishops & chess.BB_LIGHT_SQUARES:
            corners = [chess.A1, chess.H8]
        elif not bishops and theirs and not theirs & chess.BB_LIGHT_SQUARES:
            corners = light  # a dark bishop blocks beside a light corner's king
        elif not bishops and theirs and not theirs & chess.BB_DARK_SQUARES:
            corners = [chess.A1, chess.H8]
        minors = own & ~b.kings
        one_shade = not minors & b.knights and (
            not bishops & chess.BB_DARK_SQUARES or not bishops & chess.BB_LIGHT_SQUARES
        )
        self.helped = not (minors & (b.queens | b.rooks | b.pawns)) and (
            chess.popcount(minors) == 1 or one_shade
        )
        other = b.occupied_co[not color]
        # Helped by pawns alone: a rook's pawn can shut the square in front
        # of its king in the corner (else a pawn promotes to a blocker).
        home = lk if lk is not None else chess.A1
        rook_pawn = [sq for sq in corners if self._front_pawn(b, color, sq)]
        self.pawn_help = bool(self.helped and not other & ~b.kings & ~b.pawns and rook_pawn)
        c = min(rook_pawn if self.pawn_help else corners, key=lambda sq: _DIST[sq][home])
        self.corner = c
        f, r = chess.square_file(c), chess.square_rank(c)
        inward = 1 if r == 0 else -1
        side = 1 if f == 0 else -1
        self.king_sq = chess.square(f, r + 2 * inward)
        self.block = chess.square(f + side, r)
        self.pawn_block = chess.square(f, r + inward)
        if self.pawn_help:
            self.king_sq = chess.square(f + 2 * side, r)
        # Only king, pawns and bishops: the king goes for the other pawns.
        self.raid = not self.helped and not minors & (b.queens | b.rooks | b.knights)
        self.targets = other & b.pawns
        own_pawns = own & b.pawns
        self.prey = own_pawns & ~blockade.pawn_attacks(own_pawns, color)

    @staticmethod
    def _front_pawn(b: chess.Board, color: bool, corner: int) -> bool:
        pawns = b.pawns & b.occupied_co[not color]
        return any(_pawn_block_cost(not color, sq, corner) < 20 for sq in chess.scan_forward(pawns))

    def term(self, color: bool, pt: int, sq: int) -> int:
        """A piece's share of the score (lower: nearer the mate)."""
        c = self.corner
        if color == self.color:
            if pt == chess.KING:
                if self.raid and self.targets:
                    return min(_DIST[sq][t] for t in chess.scan_forward(self.targets))
                return max(0, _DIST[sq][self.king_sq] - 1)
            if pt == chess.KNIGHT:
                return 2 * _KNIGHT[sq][c]
            if pt == chess.PAWN:
                return 3 * _to_promote(color, sq)
            if pt == chess.BISHOP:  # on a diagonal through the corner
                return 0 if chess.BB_DIAG_MASKS[c] & chess.BB_SQUARES[sq] else 1
            return 0
        if pt == chess.KING:
            if self.raid and self.prey:  # the wall broken by either king
                return min(_DIST[sq][t] for t in chess.scan_forward(self.prey))
            return 4 * _DIST[sq][c]
        if not self.helped:
            return 12  # to be taken
        if pt == chess.PAWN:  # a blocker as it is, or promoted
            far = chess.square(chess.square_file(sq), 7 if color == chess.WHITE else 0)
            promoted = 3 * _to_promote(color, sq) + 2 * _DIST[far][self.block] + 4
            if self.pawn_help:
                return min(_pawn_block_cost(color, sq, self.corner), promoted) + 2
            return promoted + 2
        if pt == chess.QUEEN:
            return 2 * _DIST[sq][self.block] + 10  # a queen can never shut the last square
        if pt == chess.KNIGHT:
            return 2 * _KNIGHT[sq][self.block] + 2
        return 2 * _DIST[sq][self.block] + 2

    def score(self, b: chess.Board) -> int:
        s = 0
        for sq in chess.scan_forward(b.occupied):
            pc = b.piece_at(sq)
            assert pc is not None
            s += self.term(pc.color, pc.piece_type, sq)
        return s

    def delta(self, b: chess.Board, m: chess.Move) -> int:
        """The change of ``score`` the move makes (castling's rook ignored)."""
        mover = b.turn
        pt = b.piece_type_at(m.from_square)
        assert pt is not None
        d = self.term(mover, m.promotion or pt, m.to_square) - self.term(mover, pt, m.from_square)
        victim = b.piece_type_at(m.to_square)
        if victim is not None:
            d -= self.term(not mover, victim, m.to_square)
            if mover != self.color and not (self.raid and victim == chess.PAWN):
                d += 20  # the winner's material lost
        return d


def _pawn_block_cost(color: bool, sq: int, corner: int) -> int:
    """How far ``color``'s pawn on ``sq`` is from shutting the square in front
    of a king in ``corner``, walking there on its file (20: it cannot)."""
    f, r = chess.square_file(corner), chess.square_rank(corner)
    front = chess.square(f, r + (1 if r == 0 else -1))
    ahead = chess.square_rank(front) - chess.square_rank(sq)
    if chess.square_file(sq) == f and (ahead >= 0 if color == chess.WHITE else ahead <= 0):
        return 2 * abs(ahead)
    return 20  # it cannot


def _to_promote(color: bool, sq: int) -> int:
    rank = chess.square_rank(sq)
    return 7 - rank if color == chess.WHITE else rank


def _shade(sq: int) -> bool:
    return bool(chess.BB_DARK_SQUARES & chess.BB_SQUARES[sq])


def analyse(board: chess.Board, color: chess.Color, nodes: int = NODES) -> Verdict:
    """Whether ``color`` can mate from ``board`` by some series of legal moves
    (6.9), by the steps above, the search looking at up to ``nodes``
    positions."""
    name = chess.COLOR_NAMES[color]
    if board.is_checkmate():
        if board.turn != color:
            return Verdict(WINNABLE, "%s has mated" % name)
        return Verdict(UNWINNABLE, "%s is mated" % name)
    if board.is_stalemate():
        return Verdict(UNWINNABLE, "stalemate: the game is over")
    if board.has_insufficient_material(color):
        return Verdict(UNWINNABLE, "%s has not the material to mate" % name)
    if _lone(board, color):
        return Verdict(WINNABLE, "a lone king against material that can mate")
    why = blockade.unwinnable(board, color)
    if why is not None:
        return Verdict(UNWINNABLE, why)
    first = _Deepening(color, nodes // 3, nodes // 5)  # then best first with the rest
    found = first.run(board)
    if found is not None:
        search: _Deepening | _Search = first
    else:
        search = _Search(color, nodes - first.nodes, lone_ok=True)
        found = search.run(board)
    used = first.nodes + (search.nodes if search is not first else 0)
    if found:
        series = tuple(search.line)
        if search.lone:
            return Verdict(WINNABLE, "a series of %d moves leaves a lone king against "
                           "material that can mate" % len(series), series, used)  # fmt: skip
        return Verdict(WINNABLE, "a mate in a series of %d moves" % len(series), series, used)
    if found is False:
        return Verdict(UNWINNABLE, "every position reachable was searched: none is a mate",
                       (), used)  # fmt: skip
    return Verdict(UNDECIDED, "no mate by %s found in %d positions, and no proof that none "
                   "exists" % (name, nodes), (), used)  # fmt: skip


def can_mate(board: chess.Board, color: chess.Color, nodes: int = NODES) -> bool | None:
    """Whether ``color`` can mate by some series of legal moves from ``board``:
    True (it can), False (it cannot), None (not decided; ``analyse`` says why)."""
    return analyse(board, color, nodes).can_mate


def mating_series(board: chess.Board, color: chess.Color, nodes: int = 20 * NODES
                  ) -> list[chess.Move] | None:  # fmt: skip
    """The moves of a mate by ``color`` from ``board``, to the mate itself,
    that the search finds within ``nodes`` positions, or None."""
    search = _Search(color, nodes, lone_ok=False)
    return list(search.line) if search.run(board) else None


def dead(board: chess.Board, nodes: int = NODES) -> bool:
    """5.2.2: True only if it is certain that neither side can mate. Only
    locked positions are analysed (every pawn blocked by a pawn, or no pawn
    can move and only kings, pawns and bishops are left), so an open game
    costs nothing."""
    if board.has_insufficient_material(chess.WHITE) and board.has_insufficient_material(
        chess.BLACK
    ):
        return True
    if not _locked(board):
        return False
    return all(analyse(board, c, nodes).result == UNWINNABLE for c in chess.COLORS)


def _locked(board: chess.Board) -> bool:
    """Every pawn has a pawn in front of it, or no pawn can move and only
    kings, pawns and bishops are on the board."""
    pawns = board.pawns
    if not pawns:
        return False
    white, black = pawns & board.occupied_co[chess.WHITE], pawns & board.occupied_co[chess.BLACK]
    if not ((white << 8) & ~pawns & chess.BB_ALL or (black >> 8) & ~pawns):
        return True
    if board.queens | board.rooks | board.knights:
        return False
    return not any(board.piece_type_at(m.from_square) == chess.PAWN
                   for m in board.generate_legal_moves())  # fmt: skip
