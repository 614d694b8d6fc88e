# SPDX-License-Identifier: GPL-3.0-or-later
"""Repetition rulings (棋例) for Xiangqi: what each move of a repeated cycle does, and the verdict.

    >>> from qizhong.rules import xiangqi, xiangqi_repetition
    >>> board = xiangqi.Board("R3k4/9/9/9/9/9/9/9/9/3K5 b - - 0 1")
    >>> for m in ["e9e8", "a9a8", "e8e9", "a8a9"] * 2:
    ...     board.push(xiangqi.Move.from_iccs(m))
    >>> ruling = xiangqi_repetition.adjudicate(board)
    >>> ruling.winner, ruling.pattern(xiangqi.Color.RED).name
    (<Color.BLACK: 1>, '长将')

``adjudicate(board, rules)`` rules on the position's third occurrence (the moves
since its first occurrence: two turns of the cycle). ``rules="cxa"`` (the
default) is the Chinese Xiangqi Association's competition rules, 中国象棋竞赛规则
(2011), chapter 棋例, which the rapid-play rules send repetition to (XQ-R15,
XQ-R16). ``rules="axf"`` is the Asian Xiangqi Federation's rules as
Fairy-Stockfish (pyffish) judges them. Every ruling carries its reasons: each
move with what it does (将 check, 杀 mate threat, 捉 chase, 闲 idle), each side's
pattern (长将, 长捉, 一将一捉, ...), the verdict and the articles it rests on.
docs/repetition.md is the manual: every rule below, and what the arbiter still
judges at the board.

How each move is classed (Art. 24; a move with several effects takes the
heaviest, 将 > 杀 > 捉 > 闲):

- 将 (24.1): the opponent is in check after it.
- 杀 (24.2): were the opponent to pass, the mover would checkmate at once.
- 捉 (24.3): a capture the mover could not make before the move and can now
  (by the moved piece or one it uncovered) that wins material and does not
  leave the mover checkmated at once. A capture wins material when the piece
  taken has no legal recapture (无根子, 24.15), or is worth more than the
  taker (a horse or cannon on a protected rook), or the chasing side has
  more pieces to take on its square than the other has to take back, the
  general's help counted (少根子 24.15, joint capture 24.3, 借帅之力): both
  taking in turn, the chaser takes last. Not chases (棋例通则): the
  general taking by itself; a pawn taking by itself, unless both sides attack
  on every move (相互长打); a pawn on its own side of the river, which is no
  material; a capture already on before the move (从捉到捉).
- 闲 (24.8): anything else; 兑 (24.4, an offer to exchange like for like) is
  named in the reasons, and is idle too.

The verdict (棋例总则): 长将 alone is never allowed; a side whose every move
attacks (长将, 长杀, 长捉, 一将一杀, 一将一捉, 一杀一捉: 24.13) plays forbidden
moves; one forbidden side against an allowed one must vary, or loses; both
allowed, or both forbidden (neither alone 长将), the repetition is drawn
(不变作和).
"""

from __future__ import annotations

import dataclasses
import enum
import re
from collections.abc import Sequence

from qizhong.rules import xiangqi as xq

__all__ = [
    "RULES",
    "MoveClass",
    "MoveKind",
    "Pattern",
    "Ruling",
    "adjudicate",
    "classify",
]

RULES = ("cxa", "axf")

# Material value for judging a capture (24.3, 24.15): a rook is two horses or
# two cannons; horse = cannon; advisor = elephant = a pawn across the river.
_VALUE = {"r": 4, "n": 2, "c": 2, "a": 1, "b": 1, "p": 1, "k": 100}


class MoveKind(enum.Enum):
    """What a move of the cycle does (Art. 24), heaviest first."""

    CHECK = "将"
    MATE_THREAT = "杀"
    CHASE = "捉"
    IDLE = "闲"

    @property
    def english(self) -> str:
        return _KIND_EN[self]


_KIND_EN = {
    MoveKind.CHECK: "check",
    MoveKind.MATE_THREAT: "mate threat",
    MoveKind.CHASE: "chase",
    MoveKind.IDLE: "idle",
}
_PATTERN_ART = {"长将": "24.9", "长杀": "24.10", "长捉": "24.11"}
_KIND_ART = {
    MoveKind.CHECK: "24.1",
    MoveKind.MATE_THREAT: "24.2",
    MoveKind.CHASE: "24.3",
    MoveKind.IDLE: "24.8",
}


@dataclasses.dataclass(frozen=True)
class MoveClass:
    """One move of the cycle: ``ply`` counts from the board's first move (1)."""

    ply: int
    color: xq.Color
    notation: str
    kind: MoveKind
    detail: str  # the reason in words: which piece checks, chases what...
    targets: tuple[str, ...] = ()  # the pieces chased, e.g. ('black cannon a2',)

    def __str__(self) -> str:
        return "%d. %s %s: %s (%s) - %s" % (self.ply, self.color, self.notation,
                                          self.kind.value, self.kind.english,
                                          self.detail)  # fmt: skip


@dataclasses.dataclass(frozen=True)
class Pattern:
    """A side's moves over the cycle: ``name`` is 长将, 长捉, 一将一捉, 闲...."""

    color: xq.Color
    kinds: tuple[MoveKind, ...]
    name: str
    forbidden: bool  # 禁止着法 (24.13)
    perpetual_check: bool  # 长将: every move a check

    def __str__(self) -> str:
        word = "forbidden (禁止着法, 24.13)" if self.forbidden else "allowed (允许着法, 24.14)"
        return "%s: %s, %s" % (self.color, self.name, word)


@dataclasses.dataclass(frozen=True)
class Ruling:
    """The verdict on a threefold repetition, with its reasons.

    ``winner`` is the side the rules give the game if the position repeats
    unchanged (``None``: a draw). ``must_vary`` is the side that breaks a rule
    and must change its move (it loses if it does not), or ``None``.
    """

    rules: str
    termination: xq.Termination
    winner: xq.Color | None
    must_vary: xq.Color | None
    verdict: str  # one line
    articles: tuple[str, ...]
    moves: tuple[MoveClass, ...]
    patterns: tuple[Pattern, ...]

    def pattern(self, color: xq.Color) -> Pattern:
        return self.patterns[color.value]

    @property
    def clauses(self) -> frozenset[str]:
        """Every article the ruling rests on, down to each move: its kind's
        (24.1-24.8), those its reasons cite (24.3, 24.4, 24.15), each side's
        pattern's (长将 24.9, 长杀 24.10, 长捉 24.11, 长兑 24.12) and the verdict's."""
        out = set(self.articles)
        for m in self.moves:
            out.add(_KIND_ART[m.kind])
            out.update(re.findall(r"\b2[45]\.\d+", m.detail))
        for p in self.patterns:
            mine = [m for m in self.moves if m.color is p.color]
            if p.name in _PATTERN_ART:
                out.add(_PATTERN_ART[p.name])
            elif mine and all("兑" in m.detail for m in mine):
                out.add("24.12")  # 长兑: every move an offer to exchange
        return frozenset(out)

    def outcome(self) -> xq.Outcome:
        return xq.Outcome(self.termination, self.winner, self.verdict)

    def result(self) -> str:
        return self.outcome().result()

    def lines(self) -> list[str]:
        """The reasons, one a line: the moves, each side's pattern, the verdict."""
        head = "Chinese rules (中国象棋竞赛规则 2011, 棋例)" if self.rules == "cxa" else (
            "AXF rules, as Fairy-Stockfish judges them")  # fmt: skip
        out = ["repetition ruling under the %s:" % head]
        out += ["  %s" % m for m in self.moves]
        if self.rules == "axf":
            out += ["  %s: %s (the moves as the Chinese rules class them)" % (p.color, p.name)
                    for p in self.patterns]  # fmt: skip
            out.append("  => %s [%s]" % (self.verdict, "; ".join(self.articles)))
        else:
            out += ["  %s" % p for p in self.patterns]
            arts = ", ".join("Art. " + a for a in self.articles)
            out.append("  => %s [%s]" % (self.verdict, arts))
        return out

    def text(self) -> str:
        return "\n".join(self.lines())


# -- positions as square lists --------------------------------------------------------


def _squares(key: str) -> list[str]:
    sq = [""] * 90
    for i, row in enumerate(key.split()[0].split("/")):
        rank, file = 9 - i, 0
        for ch in row:
            if ch.isdigit():
                file += int(ch)
            else:
                sq[rank * 9 + file] = ch
                file += 1
    return sq


def _fen(sq: Sequence[str], color: xq.Color) -> str:
    return "%s %s - - 0 1" % (xq._board_fen(sq), "w" if color is xq.Color.RED else "b")


# A small move generator of our own for the many what-if positions a ruling
# looks at (pyffish takes milliseconds a call; a ruling asks thousands of
# questions). tests/test_repetition.py checks it against pyffish move for move.

_ORTHO = ((1, 0), (-1, 0), (0, 1), (0, -1))
_DIAG = ((1, 1), (1, -1), (-1, 1), (-1, -1))
_HORSE = ((1, 2, 0, 1), (-1, 2, 0, 1), (1, -2, 0, -1), (-1, -2, 0, -1),
          (2, 1, 1, 0), (2, -1, 1, 0), (-2, 1, -1, 0), (-2, -1, -1, 0))  # fmt: skip


def _in_palace(red: bool, f: int, r: int) -> bool:
    return 3 <= f <= 5 and (0 <= r <= 2 if red else 7 <= r <= 9)


def _pseudo(sq: Sequence[str], red: bool) -> list[tuple[int, int]]:
    """Every move of the side (``red``) by the pieces' rules, ignoring checks."""
    out = []
    for s, p in enumerate(sq):
        if not p or p.isupper() != red:
            continue
        f, r = s % 9, s // 9
        kind = p.lower()

        def add(nf: int, nr: int, s: int = s) -> None:
            if 0 <= nf <= 8 and 0 <= nr <= 9:
                q = sq[nr * 9 + nf]
                if not q or q.isupper() != red:
                    out.append((s, nr * 9 + nf))

        if kind in "rc":
            for df, dr in _ORTHO:
                nf, nr, screen = f + df, r + dr, False
                while 0 <= nf <= 8 and 0 <= nr <= 9:
                    q = sq[nr * 9 + nf]
                    if not screen:
                        if not q:
                            out.append((s, nr * 9 + nf))
                        elif kind == "r":
                            if q.isupper() != red:
                                out.append((s, nr * 9 + nf))
                            break
                        else:
                            screen = True
                    elif q:
                        if q.isupper() != red:
                            out.append((s, nr * 9 + nf))
                        break
                    nf, nr = nf + df, nr + dr
        elif kind == "n":
            for df, dr, lf, lr in _HORSE:
                if 0 <= f + lf <= 8 and 0 <= r + lr <= 9 and not sq[(r + lr) * 9 + f + lf]:
                    add(f + df, r + dr)
        elif kind == "b":
            for df, dr in _DIAG:
                nf, nr = f + 2 * df, r + 2 * dr
                own = 0 <= nr <= 4 if red else 5 <= nr <= 9
                if own and 0 <= nf <= 8 and not sq[(r + dr) * 9 + f + df]:
                    add(nf, nr)
        elif kind == "a":
            for df, dr in _DIAG:
                if _in_palace(red, f + df, r + dr):
                    add(f + df, r + dr)
        elif kind == "k":
            for df, dr in _ORTHO:
                if _in_palace(red, f + df, r + dr):
                    add(f + df, r + dr)
        else:  # pawn: forward, and sideways once across the river
            fwd = 1 if red else -1
            add(f, r + fwd)
            if (r >= 5) if red else (r <= 4):
                add(f - 1, r)
                add(f + 1, r)
    return out


def _attacked_general(sq: Sequence[str], red: bool) -> bool:
    """Whether the side's general is attacked, or faces the other general."""
    king = "K" if red else "k"
    try:
        ks = sq.index(king)
    except ValueError:
        return True
    f, r = ks % 9, ks // 9
    rook, cannon, horse, pawn, other = "rcnpk" if red else "RCNPK"
    for df, dr in _ORTHO:  # rooks, cannons and the facing general on the lines
        nf, nr, seen = f + df, r + dr, 0
        while 0 <= nf <= 8 and 0 <= nr <= 9:
            q = sq[nr * 9 + nf]
            if q:
                if seen == 0 and (q == rook or (q == other and df == 0)):
                    return True
                if seen == 1:
                    if q == cannon:
                        return True
                    break
                seen += 1
            nf, nr = nf + df, nr + dr
    for df, dr, lf, lr in _HORSE:  # a horse at ks - (df, dr), its leg beside it
        hf, hr = f - df, r - dr
        if 0 <= hf <= 8 and 0 <= hr <= 9 and sq[hr * 9 + hf] == horse:
            if not sq[(hr + lr) * 9 + hf + lf]:
                return True
    back = -1 if red else 1  # an enemy pawn one step in front, or beside
    for pf, pr in ((f, r - back), (f - 1, r), (f + 1, r)):
        if 0 <= pf <= 8 and 0 <= pr <= 9 and sq[pr * 9 + pf] == pawn:
            return True
    return False


def _play(sq: Sequence[str], move: tuple[int, int]) -> list[str]:
    out = list(sq)
    out[move[1]] = out[move[0]]
    out[move[0]] = ""
    return out


def _legal(sq: Sequence[str], color: xq.Color) -> list[tuple[int, int]]:
    """The legal moves of ``color`` (to move in ``sq``) as (from, to) squares."""
    red = color is xq.Color.RED
    return [m for m in _pseudo(sq, red) if not _attacked_general(_play(sq, m), red)]


def _in_check(sq: Sequence[str], color: xq.Color) -> bool:
    return _attacked_general(sq, color is xq.Color.RED)


def _color(symbol: str) -> xq.Color:
    return xq.Color.RED if symbol.isupper() else xq.Color.BLACK


def _crossed(symbol: str, sq: int) -> bool:
    """A pawn across the river (Red's ranks 5-9, Black's 0-4)."""
    return sq // 9 >= 5 if symbol.isupper() else sq // 9 <= 4


def _describe(symbol: str, sq: int) -> str:
    return "%s %s %s" % (str(_color(symbol)).lower(), xq._NAMES[xq.PieceType(symbol.lower())],
                         xq.square_name(sq))  # fmt: skip


def _mates(sq: Sequence[str], move: tuple[int, int], mover: xq.Color) -> bool:
    """Whether ``move`` checkmates (24.2: 将死; a move that leaves no legal
    move without check, 困毙, is no 杀 threat here)."""
    after = _play(sq, move)
    return _in_check(after, mover.other) and not _legal(after, mover.other)


def _chases(sq: Sequence[str], mover: xq.Color, pawns: bool, in_check: bool = False,
            rejected: dict[int, str] | None = None) -> dict[int, str]:  # fmt: skip
    """Captures ``mover`` (to move in ``sq``) could make that win material (24.3).

    Keys are target squares; values say who takes what and why it counts.
    ``in_check``: the mover is in check in ``sq`` (the position before a move
    that answers a check): its attacks count as they stand, though the check
    keeps them from being legal just then, so that an attack already there is
    not taken for a new one.
    """
    out: dict[int, str] = {}
    moves = _pseudo(sq, mover is xq.Color.RED) if in_check else _legal(sq, mover)
    for mv in moves:
        frm, to = mv
        target, taker = sq[to], sq[frm]
        if not target or to in out:
            continue
        tp, ap = target.lower(), taker.lower()
        if tp == "k":
            continue
        if tp == "p" and not _crossed(target, to):
            continue  # a pawn on its own side of the river is no material (通则)
        if ap == "k":
            continue  # the general taking by itself is idle (通则)
        if ap == "p" and not pawns:
            continue  # a pawn taking by itself is idle (通则), unless 相互长打
        after = _play(sq, mv)
        replies = _legal(after, mover.other)
        protected = any(t == to for _, t in replies)
        outnumbered = protected and _last_taker(after, to, mover.other) is mover
        if protected and _VALUE[tp] <= _VALUE[ap] and not outnumbered:
            if rejected is not None:  # a protected piece taken by one worth as much or more
                rejected[to] = "%s attacks %s, protected (有根子, 24.15): no chase" % (
                    _describe(taker, frm),
                    _describe(target, to),
                )
            continue
        if not in_check and any(_mates(after, r, mover.other) for r in replies):
            continue  # winning it would be mated at once (24.3)
        why = (
            "unprotected" if not protected
            else "protected, but worth more than the taker" if _VALUE[tp] > _VALUE[ap]
            else "more attackers than protectors (少根子, 24.15)"
        )  # fmt: skip
        out[to] = "%s can take %s (%s)" % (_describe(taker, frm), _describe(target, to), why)
    return out


def _last_taker(sq: Sequence[str], to: int, side: xq.Color) -> xq.Color | None:
    """Who takes last on ``to`` when both sides take there in turn, ``side``
    first, each with its least valuable piece that legally can (the general
    too: 借帅之力), until one cannot. The attackers outnumber the protectors
    (少根子, 24.15; a joint capture, 24.3) when the chasing side is the last."""
    last = None
    while True:
        takes = [(f, t) for f, t in _legal(sq, side) if t == to]
        if not takes:
            return last
        frm = min(takes, key=lambda m: _VALUE[sq[m[0]].lower()])[0]
        sq = _play(sq, (frm, to))
        last = side
        side = side.other


def _mate_threat(sq: Sequence[str], mover: xq.Color) -> str:
    """A move that would checkmate at once if the opponent passed, or ''."""
    for mv in _legal(sq, mover):
        if _mates(sq, mv, mover):
            return "threatens mate: %s to %s" % (_describe(sq[mv[0]], mv[0]),
                                                 xq.square_name(mv[1]))  # fmt: skip
    return ""


def _checker(sq: Sequence[str], mover: xq.Color) -> str:
    """The mover's pieces giving check (by removing each and asking again)."""
    opp = mover.other
    names = []
    for s, p in enumerate(sq):
        if p and _color(p) is mover and p.lower() != "k":
            trial = list(sq)
            trial[s] = ""
            if not _in_check(trial, opp):
                names.append(_describe(p, s))
    return " and ".join(names) or "the general"


def _exchange(sq: Sequence[str], to: int, mover: xq.Color) -> str:
    """兑 (24.4): the moved piece can be taken by a like piece of the opponent."""
    piece = sq[to]
    for frm, t in _legal(sq, mover.other):
        if t == to and sq[frm].lower() == piece.lower():
            return "offers an exchange (兑, 24.4) with %s" % _describe(sq[frm], frm)
    return ""


# -- classifying the cycle ------------------------------------------------------------


def _window(board: xq.Board) -> int | None:
    rep = board.repetition()
    if rep is None or rep.count < 3:
        return None
    return rep.start


def classify(board: xq.Board, start: int, pawns: frozenset[xq.Color] = frozenset()
             ) -> list[MoveClass]:  # fmt: skip
    """Each move from node ``start`` to the end of the board's record, classed.

    ``pawns``: the sides whose pawns' own captures count as chases (相互长打).
    """
    nodes = board._nodes
    texts = {}
    back = board.copy()  # shares the positions' cached legal moves
    for i in range(len(nodes) - 1, start, -1):
        move = back.pop()
        texts[i] = back.notation(move)
    out = []
    for i in range(start + 1, len(nodes)):
        before, node = nodes[i - 1], nodes[i]
        assert node.move is not None
        mover = before.turn
        text = texts[i]
        pre, post = _squares(before.key), _squares(node.key)
        if board._node_check(i):
            out.append(MoveClass(i, mover, text, MoveKind.CHECK,
                                 "%s checks" % _checker(post, mover)))  # fmt: skip
            continue
        threat = _mate_threat(post, mover)
        if threat:
            out.append(MoveClass(i, mover, text, MoveKind.MATE_THREAT, threat))
            continue
        counts = mover in pawns
        rejected: dict[int, str] = {}
        new = _chases(post, mover, counts, rejected=rejected)
        old = _chases(pre, mover, counts, board._node_check(i - 1))
        fresh = {t: why for t, why in new.items() if t not in old}
        if fresh:
            targets = tuple(_describe(post[t], t) for t in sorted(fresh))
            out.append(MoveClass(i, mover, text, MoveKind.CHASE,
                                 "; ".join(fresh[t] for t in sorted(fresh)), targets))  # fmt: skip
            continue
        why = _exchange(post, node.move.to_square, mover)
        if not why and new:
            why = "no new chase: %s already before the move (从捉到捉, 24.3)" % "; ".join(
                new.values()
            )
        if not why and rejected:
            why = "; ".join(rejected[t] for t in sorted(rejected))
        out.append(MoveClass(i, mover, text, MoveKind.IDLE, why or "no check, threat or chase"))
    return out


_ATTACKS = (MoveKind.CHECK, MoveKind.MATE_THREAT, MoveKind.CHASE)


def _pattern(color: xq.Color, kinds: tuple[MoveKind, ...]) -> Pattern:
    kset = set(kinds)
    if kset == {MoveKind.CHECK}:
        return Pattern(color, kinds, "长将", True, True)
    if kset and kset <= set(_ATTACKS):
        names = {
            frozenset({MoveKind.MATE_THREAT}): "长杀",
            frozenset({MoveKind.CHASE}): "长捉",
            frozenset({MoveKind.CHECK, MoveKind.MATE_THREAT}): "一将一杀",
            frozenset({MoveKind.CHECK, MoveKind.CHASE}): "一将一捉",
            frozenset({MoveKind.MATE_THREAT, MoveKind.CHASE}): "一杀一捉",
        }
        return Pattern(color, kinds, names.get(frozenset(kset), "将杀捉交替"), True, False)
    counts = [(k, kinds.count(k)) for k in MoveKind if k in kset]
    if kset == {MoveKind.IDLE}:
        name = "闲"
    else:
        name = "+".join("%d %s" % (n, k.value) for k, n in counts)
    return Pattern(color, kinds, name, False, False)


def _patterns(moves: Sequence[MoveClass]) -> tuple[Pattern, Pattern]:
    red = _pattern(xq.Color.RED, tuple(m.kind for m in moves if m.color is xq.Color.RED))
    black = _pattern(xq.Color.BLACK, tuple(m.kind for m in moves if m.color is xq.Color.BLACK))
    return red, black


def adjudicate(board: xq.Board, rules: str = "cxa") -> Ruling | None:
    """The ruling on the board's threefold repetition, or ``None`` if there is none."""
    if rules not in RULES:
        raise xq.XiangqiError("repetition rules are %s, not %r" % (" or ".join(RULES), rules))
    start = _window(board)
    if start is None:
        return None
    node = board._nodes[-1]
    cached = node.rulings.get(rules) if node.rulings else None
    if isinstance(cached, Ruling):
        return cached
    ruling = _adjudicate(board, start, rules)
    if node.rulings is None:
        node.rulings = {}
    node.rulings[rules] = ruling
    return ruling


def _adjudicate(board: xq.Board, start: int, rules: str) -> Ruling:
    moves = classify(board, start)
    patterns = _patterns(moves)
    # 相互长打 (通则): when both sides attack on every move, a pawn's own
    # captures count as chases too.
    pawn_sides = frozenset(c for c in xq.Color if patterns[c.other.value].forbidden)
    if pawn_sides:
        again = classify(board, start, pawn_sides)
        if _patterns(again) != patterns:
            moves = again
            patterns = _patterns(moves)
    if rules == "axf":
        return _axf(board, moves, patterns)
    return _cxa(moves, patterns)


def _cxa(moves: list[MoveClass], patterns: tuple[Pattern, Pattern]) -> Ruling:
    red, black = patterns
    T = xq.Termination
    if not red.forbidden and not black.forbidden:
        return Ruling("cxa", T.REPETITION, None, None,
                      "both sides play allowed moves (Red %s, Black %s): draw (不变作和)"
                      % (red.name, black.name),
                      ("24.14", "25.2"), tuple(moves), patterns)  # fmt: skip
    if red.forbidden and black.forbidden:
        checkers = [p for p in patterns if p.perpetual_check]
        if len(checkers) == 1:
            bad = checkers[0]
            other = patterns[bad.color.other.value]
            return Ruling("cxa", T.PERPETUAL_CHECK, bad.color.other, bad.color,
                          "%s checks perpetually (长将) against %s's %s: perpetual check alone "
                          "is never allowed, %s must vary or loses"
                          % (bad.color, other.color, other.name, bad.color),
                          ("24.9", "25.1", "25.3"), tuple(moves), patterns)  # fmt: skip
        return Ruling("cxa", T.REPETITION, None, None,
                      "both sides play forbidden moves (%s %s, %s %s): draw (不变作和)"
                      % (red.color, red.name, black.color, black.name),
                      ("24.13", "25.3"), tuple(moves), patterns)  # fmt: skip
    bad = red if red.forbidden else black
    other = black if bad is red else red
    term = {"长将": T.PERPETUAL_CHECK, "长捉": T.PERPETUAL_CHASE,
            "长杀": T.PERPETUAL_MATE_THREAT}.get(bad.name, T.FORBIDDEN_REPETITION)  # fmt: skip
    arts = {"长将": ("24.9", "25.1"), "长杀": ("24.10", "24.13", "25.4"),
            "长捉": ("24.11", "24.13", "25.4")}.get(bad.name, ("24.13", "25.4"))  # fmt: skip
    return Ruling("cxa", term, other.color, bad.color,
                  "%s plays %s, forbidden, against %s's allowed %s: %s must vary or loses"
                  % (bad.color, bad.name, other.color, other.name, bad.color),
                  arts, tuple(moves), patterns)  # fmt: skip


def _axf(board: xq.Board, moves: list[MoveClass], patterns: tuple[Pattern, Pattern]) -> Ruling:
    out = board.outcome(repetition="axf")
    assert out is not None
    T = xq.Termination
    loser = None if out.winner is None else out.winner.other
    if out.termination is T.PERPETUAL_CHECK:
        verdict = "%s checks on every move (perpetual check): %s loses" % (loser, loser)
        arts: tuple[str, ...] = ("AXF rules: perpetual check loses",)
    elif out.termination is T.PERPETUAL_CHASE:
        verdict = ("Fairy-Stockfish finds a perpetual chase by %s under the AXF rules: "
                   "%s loses" % (loser, loser))  # fmt: skip
        arts = ("AXF rules: perpetual chase loses, as pyffish finds it",)
    else:
        verdict = "no side breaks the AXF rules as Fairy-Stockfish judges them: draw"
        arts = ("AXF rules: otherwise a draw",)
    return Ruling("axf", out.termination, out.winner, loser, verdict, arts, tuple(moves),
                  patterns)  # fmt: skip
