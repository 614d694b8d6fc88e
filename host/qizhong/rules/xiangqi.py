# SPDX-License-Identifier: GPL-3.0-or-later
"""Xiangqi (象棋): moves, 记谱 notation and results, for the arbiter's record.

    >>> from qizhong.rules import xiangqi
    >>> board = xiangqi.Board()
    >>> move = board.parse_notation("炮二平五")
    >>> move
    Move.from_iccs('h2e2')
    >>> board.push(move)
    >>> board.notation(board.parse_notation("H9-G7"))
    '马8进7'
    >>> board.notation(board.parse_notation("h9g7"), style="wxf")
    'H8+7'

The shape is python-chess's: a ``Board`` with ``push``, ``pop``, ``legal_moves``,
``fen()`` and ``outcome()``; small value types ``Move``, ``Piece``, ``Outcome``;
enums for colours, piece types and terminations. Legal moves come from
Fairy-Stockfish (``pyffish``, variant ``xiangqi``). pyffish can take the whole
interpreter down on a bad FEN or move, so nothing reaches it that this module has
not checked: FENs are parsed and validated here first (piece counts, every piece
on a point it can reach, generals not facing, the side not to move not in
check), and pyffish only ever sees FENs written by this module and moves from its
own legal-move lists.

Squares are ints ``rank * 9 + file``: file 0-8 is a-i from Red's left, rank 0-9
from Red's back rank, as in ICCS (``h2e2``). pyffish writes ranks 1-10
(``h3e3``); ``Move.uci()`` and ``Move.from_uci()`` speak that.

Notation (docs/rules.md, NT): ``notation(move, style)`` writes

- ``"chinese"`` (the default): 记谱, ``炮二平五`` / ``马8进7``; Red's files and
  counts in Chinese numerals, Black's in digits. Two like pieces on one file are
  前/后 (never for advisors and elephants: 进/退 tells them apart). Pawns as
  the NT rules say: on one file, two are 前/后, three 前/中/后, four or five
  一二三四五 from the front; when several files each hold two or more, the file
  number stays, after 前/中/后 on that file (``前兵三进一``, ``后卒7平6``).
- ``"traditional"``: the same in traditional glyphs, Black's digits full-width
  as traditional texts write them (``馬８進７``).
- ``"xqbase"``: the chinese style, but pawns in xqbase's single series: the pawns
  on every file holding two or more are ordered from the mover's right, front
  to back on each file, and numbered 一二三四五 across files (``二兵平四``).
- ``"wxf"``: the WXF notation (``C2.5``, ``H8+7``, ``R+.3``; tandem pawns as
  WXF prescribes: ``P+``/``P3``/``P-``, ``++``/``--`` for four or five on a
  file, ``3+``/``33``/``3-`` when two files hold tandem pawns).
- ``"iccs"``: coordinates, ``H2-E2``.

``parse_notation`` reads all of these, and more of what is found in the wild:
traditional and variant glyphs (車 馬 進 後 帥 將 俥 傌 砲 包 …), 上/下 for 进/退,
full-width digits, digits for Red or numerals for Black, the older pawn forms
(``前兵九平八``, ``前九平八``, ``二卒7平6``), WXF with ``=`` for ``.`` and the
letters B/N/G/M, and ICCS as ``h2e2``, ``H2-E2`` or ``h2-e2``. Every move it
returns is legal; text that fits no legal move, or more than one, is refused
with a ``NotationError`` that says which.

Results (docs/rules.md): ``outcome()`` ends the game on checkmate and on
stalemate (困毙, a loss: XQ-R15), and on the third occurrence of a position:
perpetual check (长将) loses (XQ-R15), a perpetual chase as Fairy-Stockfish
judges it under the AXF rules loses, anything else is a draw (不变作和, XQ-R16).
``natural_move_limit()`` checks a natural-move-limit claim (XQ-R16, R20),
``has_mating_material()`` and ``flag_outcome()`` a draw claim on a flag (XQ-R16),
``drawn_knockout_winner()`` the tie-break of XQ-R22/R23. docs/xiangqi.md says
where these differ from pyffish's and the AXF's rules.
"""

from __future__ import annotations

import dataclasses
import enum
import re
import unicodedata
from collections.abc import Iterable, Sequence

import pyffish

__all__ = [
    "NOTATION_GLYPHS",
    "STARTING_FEN",
    "Color",
    "FenError",
    "IllegalMoveError",
    "Move",
    "NaturalLimit",
    "NotationError",
    "Outcome",
    "Piece",
    "PieceType",
    "Repetition",
    "Termination",
    "XiangqiError",
    "drawn_knockout_winner",
    "perft",
    "square",
    "square_name",
    "written_for",
]

VARIANT = "xiangqi"
STARTING_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
FILE_NAMES = "abcdefghi"
NATURAL_LIMIT_MOVES = 30  # XQ-R16: 30 moves each without a capture
NATURAL_LIMIT_CHECKS = 5  # XQ-R16: at most 5 checks of the claimant count

STYLES = ("chinese", "traditional", "xqbase", "wxf", "iccs")


class XiangqiError(ValueError):
    """Bad input to the Xiangqi engine; the board is left as it was."""


class FenError(XiangqiError):
    """A FEN that is malformed or describes an impossible position."""


class IllegalMoveError(XiangqiError):
    """A move that is not legal in the position."""


class NotationError(XiangqiError):
    """Move text that cannot be read, or fits no legal move, or more than one."""


class Color(enum.Enum):
    """The two sides. Red moves first."""

    RED = 0
    BLACK = 1

    @property
    def other(self) -> Color:
        return Color.BLACK if self is Color.RED else Color.RED

    @property
    def chinese(self) -> str:
        return "红" if self is Color.RED else "黑"

    def __str__(self) -> str:
        return self.name.capitalize()


class PieceType(enum.Enum):
    """The seven kinds of piece; the value is the FEN letter."""

    KING = "k"
    ADVISOR = "a"
    ELEPHANT = "b"
    HORSE = "n"
    ROOK = "r"
    CANNON = "c"
    PAWN = "p"


K, A, B, N, R, C, P = (
    PieceType.KING,
    PieceType.ADVISOR,
    PieceType.ELEPHANT,
    PieceType.HORSE,
    PieceType.ROOK,
    PieceType.CANNON,
    PieceType.PAWN,
)
_STRAIGHT = frozenset((K, R, C, P))
_GLYPHS = {
    Color.RED: {K: "帅", A: "仕", B: "相", N: "马", R: "车", C: "炮", P: "兵"},
    Color.BLACK: {K: "将", A: "士", B: "象", N: "马", R: "车", C: "炮", P: "卒"},
}
_GLYPHS_TRAD = {
    Color.RED: {K: "帥", A: "仕", B: "相", N: "馬", R: "車", C: "炮", P: "兵"},
    Color.BLACK: {K: "將", A: "士", B: "象", N: "馬", R: "車", C: "炮", P: "卒"},
}
_WXF_LETTER = {K: "K", A: "A", B: "E", N: "H", R: "R", C: "C", P: "P"}
_NAMES = {K: "general", A: "advisor", B: "elephant", N: "horse", R: "rook", C: "cannon", P: "pawn"}


@dataclasses.dataclass(frozen=True)
class Piece:
    """A piece of one colour, e.g. ``Piece(PieceType.ROOK, Color.RED)``."""

    piece_type: PieceType
    color: Color

    def symbol(self) -> str:
        """The FEN letter: upper case for Red (``R``), lower case for Black."""
        s = self.piece_type.value
        return s.upper() if self.color is Color.RED else s

    def chinese(self, traditional: bool = False) -> str:
        table = _GLYPHS_TRAD if traditional else _GLYPHS
        return table[self.color][self.piece_type]

    @classmethod
    def from_symbol(cls, symbol: str) -> Piece:
        """A FEN letter; ``E``/``H`` are read as ``B``/``N`` (elephant, horse)."""
        low = {"e": "b", "h": "n"}.get(symbol.lower(), symbol.lower())
        try:
            pt = PieceType(low)
        except ValueError:
            raise FenError("not a piece letter: %r" % symbol) from None
        return cls(pt, Color.RED if symbol.isupper() else Color.BLACK)


def square(file: int, rank: int) -> int:
    """The square of ``file`` 0-8 (a-i) and ``rank`` 0-9 (from Red's side)."""
    if not (0 <= file <= 8 and 0 <= rank <= 9):
        raise XiangqiError("no square at file %d, rank %d" % (file, rank))
    return rank * 9 + file


def square_name(sq: int) -> str:
    """ICCS name of a square: ``square_name(square(7, 2)) == 'h2'``."""
    return FILE_NAMES[sq % 9] + str(sq // 9)


@dataclasses.dataclass(frozen=True)
class Move:
    """A move from one square to another (squares as ints, see ``square``)."""

    from_square: int
    to_square: int

    def iccs(self) -> str:
        """ICCS coordinates, lower case: ``'h2e2'``."""
        return square_name(self.from_square) + square_name(self.to_square)

    def uci(self) -> str:
        """pyffish's coordinates, ranks 1-10: ``'h3e3'``."""
        f, t = self.from_square, self.to_square
        return "%s%d%s%d" % (FILE_NAMES[f % 9], f // 9 + 1, FILE_NAMES[t % 9], t // 9 + 1)

    @classmethod
    def from_iccs(cls, text: str) -> Move:
        """``'h2e2'``, ``'H2-E2'`` or ``'h2-e2'``."""
        m = _ICCS_RE.match(text.strip())
        if not m:
            raise NotationError("not an ICCS move: %r" % text)
        a, b, c, d = m.groups()
        return cls(square(FILE_NAMES.index(a.lower()), int(b)),
                   square(FILE_NAMES.index(c.lower()), int(d)))  # fmt: skip

    @classmethod
    def from_uci(cls, text: str) -> Move:
        """pyffish's form, ranks 1-10: ``'h3e3'``, ``'b3b10'``."""
        move = _UCI_CACHE.get(text)
        if move is None:
            m = _UCI_RE.match(text)
            if not m or not (1 <= int(m.group(2)) <= 10 and 1 <= int(m.group(4)) <= 10):
                raise NotationError("not a pyffish move: %r" % text)
            a, b, c, d = m.groups()
            move = cls(square(FILE_NAMES.index(a), int(b) - 1),
                       square(FILE_NAMES.index(c), int(d) - 1))  # fmt: skip
            _UCI_CACHE[text] = move
        return move

    def __str__(self) -> str:
        return self.iccs()

    def __repr__(self) -> str:
        return "Move.from_iccs(%r)" % self.iccs()


_ICCS_RE = re.compile(r"^([a-iA-I])([0-9])-?([a-iA-I])([0-9])$")
_UCI_RE = re.compile(r"^([a-i])(10|[1-9])([a-i])(10|[1-9])$")
_UCI_CACHE: dict[str, Move] = {}


class Termination(enum.Enum):
    """How a game ended (XQ-R15, XQ-R16)."""

    CHECKMATE = "checkmate"
    STALEMATE = "stalemate"  # 困毙: the side without a move loses
    PERPETUAL_CHECK = "perpetual check"  # 长将 loses
    PERPETUAL_CHASE = "perpetual chase"  # 长捉 (docs/repetition.md)
    PERPETUAL_MATE_THREAT = "perpetual mate threat"  # 长杀, forbidden by the Chinese rules
    FORBIDDEN_REPETITION = "forbidden repetition"  # 一将一捉, 一将一杀, 一杀一捉
    REPETITION = "repetition"  # 不变作和
    NATURAL_MOVE_LIMIT = "natural move limit"  # a true claim
    INSUFFICIENT_MATERIAL = "insufficient material"  # a draw claimed on a flag
    TIME_FORFEIT = "time forfeit"


@dataclasses.dataclass(frozen=True)
class Outcome:
    """The end of a game: how, who won (``None`` for a draw), and why in words."""

    termination: Termination
    winner: Color | None
    reason: str = ""

    def result(self) -> str:
        """PGN result: ``1-0`` (Red won), ``0-1`` or ``1/2-1/2``."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner is Color.RED else "0-1"


@dataclasses.dataclass(frozen=True)
class NaturalLimit:
    """The check of a natural-move-limit claim (XQ-R16, XQ-R20).

    ``window_start`` is the ply after the last capture: claims with the same
    ``window_start`` are within the same limit (a second false one loses, R20).
    """

    claimant: Color
    valid: bool
    claimant_moves: int  # the claimant's moves that count (checks beyond 5 do not)
    opponent_moves: int
    claimant_checks: int  # all the claimant's checking moves in the window
    window_start: int

    @property
    def needed(self) -> int:
        """Moves still missing before the claim would be true."""
        return max(0, NATURAL_LIMIT_MOVES - min(self.claimant_moves, self.opponent_moves))


@dataclasses.dataclass(frozen=True)
class Repetition:
    """The current position and its earlier occurrences, with the same side to move.

    ``start`` is the ply of the occurrence two before the current one (the window
    a three-fold repetition is judged on); the counts cover the moves from there.
    ``verdict`` is pyffish's AXF verdict for the side to move (1 win, -1 loss,
    0 draw) when the position has occurred three times, else ``None``.
    """

    count: int
    start: int
    red_moves: int
    black_moves: int
    red_checks: int
    black_checks: int
    verdict: int | None


class _Node:
    """One position of the game: what was played to reach it, and lazy caches."""

    __slots__ = ("captured", "check", "fen", "fmn", "groups", "hmc", "key", "legal",
                 "legal_set", "move", "pieces", "rulings", "turn")  # fmt: skip

    def __init__(self, move: Move | None, captured: str, turn: Color, hmc: int, fmn: int):
        self.move = move
        self.captured = captured
        self.turn = turn
        self.hmc = hmc
        self.fmn = fmn
        self.key = ""
        self.fen = ""
        self.legal: tuple[Move, ...] | None = None
        self.legal_set: frozenset[Move] | None = None
        self.check: bool | None = None
        self.pieces: dict[str, list[int]] | None = None
        self.groups: dict[str, dict[int, list[int]]] = {}
        self.rulings: dict[str, object] | None = None  # xiangqi_repetition's, by rule set


# Points each piece can ever stand on (Red's side; Black's mirror the ranks).
_PALACE = frozenset(square(f, r) for f in (3, 4, 5) for r in (0, 1, 2))
_ADVISOR_POINTS = frozenset((square(3, 0), square(5, 0), square(4, 1), square(3, 2), square(5, 2)))
_ELEPHANT_POINTS = frozenset(square(f, r) for f, r in
                             ((2, 0), (6, 0), (0, 2), (4, 2), (8, 2), (2, 4), (6, 4)))  # fmt: skip


def _mirror(sq: int) -> int:
    return (9 - sq // 9) * 9 + sq % 9


def _legal_point(symbol: str, sq: int) -> bool:
    red = symbol.isupper()
    rsq = sq if red else _mirror(sq)
    pt = symbol.lower()
    if pt == "k":
        return rsq in _PALACE
    if pt == "a":
        return rsq in _ADVISOR_POINTS
    if pt == "b":
        return rsq in _ELEPHANT_POINTS
    if pt == "p":
        rank, file = rsq // 9, rsq % 9
        return rank >= 5 or (rank in (3, 4) and file % 2 == 0)
    return True


_MAX_COUNT = {"k": 1, "a": 2, "b": 2, "n": 2, "r": 2, "c": 2, "p": 5}


def _parse_fen(fen: str) -> tuple[list[str], Color, int, int]:
    if not isinstance(fen, str):
        raise FenError("a FEN is text, not %s" % type(fen).__name__)
    fields = fen.split()
    if not 1 <= len(fields) <= 6:
        raise FenError("a FEN has 1 to 6 fields, this one %d: %r" % (len(fields), fen))
    ranks = fields[0].split("/")
    if len(ranks) != 10:
        raise FenError("the board needs 10 ranks separated by '/', not %d" % len(ranks))
    squares = [""] * 90
    counts: dict[str, int] = {}
    for i, row in enumerate(ranks):
        rank = 9 - i
        file = 0
        for ch in row:
            if ch in "123456789":
                file += int(ch)
            elif ch.lower() in "kabnrcpeh":
                if file > 8:
                    raise FenError("rank %d (%r) covers more than 9 files" % (rank, row))
                sym = Piece.from_symbol(ch).symbol()
                if not _legal_point(sym, rank * 9 + file):
                    raise FenError("a %s %s cannot stand on %s"
                                   % (str(Piece.from_symbol(sym).color).lower(),
                                      _NAMES[PieceType(sym.lower())],
                                      square_name(rank * 9 + file)))  # fmt: skip
                squares[rank * 9 + file] = sym
                counts[sym] = counts.get(sym, 0) + 1
                file += 1
            else:
                raise FenError("not a piece letter or digit in the board: %r" % ch)
        if file != 9:
            raise FenError("rank %d (%r) covers %d files, not 9" % (rank, row, file))
    for sym in "KABNRCPkabnrcp":
        n, most = counts.get(sym, 0), _MAX_COUNT[sym.lower()]
        side = "red" if sym.isupper() else "black"
        name = _NAMES[PieceType(sym.lower())]
        if sym.lower() == "k" and n != 1:
            raise FenError("there must be one %s general, not %d" % (side, n))
        if n > most:
            raise FenError("at most %d %s %ss, not %d" % (most, side, name, n))
    side = fields[1].lower() if len(fields) > 1 else "w"
    if side not in ("w", "r", "b"):
        raise FenError("the side to move is 'w' (or 'r') or 'b', not %r" % fields[1])
    turn = Color.BLACK if side == "b" else Color.RED
    for extra in fields[2:4]:
        if extra != "-":
            raise FenError("Xiangqi has no castling or en passant: %r must be '-'" % extra)
    try:
        hmc = int(fields[4]) if len(fields) > 4 else 0
        fmn = int(fields[5]) if len(fields) > 5 else 1
    except ValueError:
        raise FenError("the move counters must be numbers: %r" % " ".join(fields[4:])) from None
    if not (0 <= hmc <= 9999 and 1 <= fmn <= 9999):
        raise FenError("move counters out of range: %d %d" % (hmc, fmn))
    kr, kb = squares.index("K"), squares.index("k")
    if kr % 9 == kb % 9 and not any(squares[s] for s in range(kr + 9, kb, 9)):
        raise FenError("the generals face each other on file %s" % FILE_NAMES[kr % 9])
    return squares, turn, hmc, fmn


def _board_fen(squares: Sequence[str]) -> str:
    rows = []
    for rank in range(9, -1, -1):
        row, empty = "", 0
        for sq in range(rank * 9, rank * 9 + 9):
            s = squares[sq]
            if s:
                if empty:
                    row += str(empty)
                    empty = 0
                row += s
            else:
                empty += 1
        if empty:
            row += str(empty)
        rows.append(row)
    return "/".join(rows)


def _ff_legal(fen: str) -> tuple[Move, ...]:
    return tuple(Move.from_uci(u) for u in pyffish.legal_moves(VARIANT, fen, []))


def _ff_in_check(fen: str) -> bool:
    return bool(pyffish.gives_check(VARIANT, fen, []))


# Notation vocabulary. Directions and positions are small ints.
FWD, BACK, SIDE = 1, -1, 0
FRONT, MID, REAR = "front", "middle", "rear"
_CN_NUM = "一二三四五六七八九"
_CN_DIR = {FWD: "进", BACK: "退", SIDE: "平"}
_CN_DIR_TRAD = {FWD: "進", BACK: "退", SIDE: "平"}
_CN_POS = {FRONT: "前", MID: "中", REAR: "后"}
_CN_POS_TRAD = {FRONT: "前", MID: "中", REAR: "後"}
_WXF_DIR = {FWD: "+", BACK: "-", SIDE: "."}

_READ_PIECE: dict[str, PieceType] = {}
for _pt, _chars in (
    (K, "帅帥将將"),
    (A, "仕士"),
    (B, "相象"),
    (N, "马馬傌"),
    (R, "车車俥伡"),
    (C, "炮砲包"),
    (P, "兵卒"),
):
    for _ch in _chars:
        _READ_PIECE[_ch] = _pt
_READ_LETTER = {"K": K, "A": A, "G": A, "S": A, "E": B, "B": B, "M": B, "H": N, "N": N,
                "R": R, "C": C, "P": P}  # fmt: skip
_READ_DIGIT: dict[str, int] = {}
for _i, _chars in enumerate(("一壹1", "二贰貳2", "三叁參3", "四肆4", "五伍5", "六陆陸6",
                             "七柒7", "八捌8", "九玖9")):  # fmt: skip
    for _ch in _chars:
        _READ_DIGIT[_ch] = _i + 1
_READ_DIR = {"进": FWD, "進": FWD, "上": FWD, "+": FWD, "退": BACK, "下": BACK, "-": BACK,
             "平": SIDE, ".": SIDE, "=": SIDE}  # fmt: skip
_READ_POS = {"前": FRONT, "中": MID, "后": REAR, "後": REAR}
_TRAILING = "!?#"
# Every non-ASCII character a move may contain (for telling text encodings apart).
NOTATION_GLYPHS = frozenset(
    ch
    for table in (_READ_PIECE, _READ_DIGIT, _READ_DIR, _READ_POS)
    for ch in table
    if ord(ch) > 127
)


def written_for(text: str) -> Color | None:
    """The side a 记谱 move is written for, by its numbers: Chinese (炮二平五) for
    Red, digits (马８进７) for Black; None when the text does not say (ICCS, WXF,
    mixed, unreadable). Text found in the wild mixes them, and ``parse_notation``
    reads it for the side to move; the arbiter's session refuses a move written
    for the other side (#30: an entry for the wrong side passed unnoticed). An
    ordinal (二卒7平6's 二) says nothing."""
    s = "".join(unicodedata.normalize("NFKC", text).split()) if isinstance(text, str) else ""
    while len(s) > 4 and s[-1] in _TRAILING:
        s = s[:-1]
    if not s or s.isascii():
        return None
    kinds = []
    for ch in s:
        if ch in _READ_PIECE or ch.upper() in _READ_LETTER:
            kinds.append("P")
        elif ch in _READ_POS:
            kinds.append("Q")
        elif ch in _READ_DIGIT:
            kinds.append("N")
        elif ch in _READ_DIR:
            kinds.append("D")
        else:
            return None
    form = "".join(kinds)
    if form[-2:] != "DN":
        return None
    head = form[:-2]
    digits = [ch.isascii() for ch in [s[-1]] + ([s[len(head) - 1]] if head.endswith("N") else [])]
    if all(digits):
        return Color.BLACK
    return None if any(digits) else Color.RED


class Board:
    """A Xiangqi position and the moves that led to it.

    ``Board()`` is the starting position; ``Board(fen)`` any legal position
    (``w`` or ``r`` for Red to move, ``b`` for Black). A bad FEN raises
    ``FenError``.
    """

    def __init__(self, fen: str | None = None):
        squares, turn, hmc, fmn = _parse_fen(STARTING_FEN if fen is None else fen)
        self._sq = squares
        root = _Node(None, "", turn, hmc, fmn)
        self._nodes = [root]
        self._fill(root)
        # The side not to move must not be in check: ask pyffish with the turn flipped.
        flipped = "%s %s - - 0 1" % (_board_fen(squares), "b" if turn is Color.RED else "w")
        if pyffish.validate_fen(root.fen, VARIANT) != 1:
            raise FenError("pyffish refuses this position: %r" % root.fen)
        if _ff_in_check(flipped):
            raise FenError("%s is in check but it is %s's turn" % (turn.other, turn))
        self._root_fen = root.fen

    # State ---------------------------------------------------------------

    def _fill(self, node: _Node) -> None:
        board = _board_fen(self._sq)
        node.key = board + (" w" if node.turn is Color.RED else " b")
        node.fen = "%s - - %d %d" % (node.key, node.hmc, node.fmn)

    @property
    def turn(self) -> Color:
        """The side to move."""
        return self._nodes[-1].turn

    @property
    def halfmove_clock(self) -> int:
        """Plies since the last capture (the FEN's fifth field)."""
        return self._nodes[-1].hmc

    @property
    def fullmove_number(self) -> int:
        return self._nodes[-1].fmn

    @property
    def move_stack(self) -> list[Move]:
        """The moves played since the board was set up, oldest first (a copy)."""
        return [n.move for n in self._nodes[1:] if n.move is not None]

    @property
    def ply(self) -> int:
        """Moves played since the board was set up."""
        return len(self._nodes) - 1

    @property
    def starting_fen(self) -> str:
        """The FEN the board was set up from (normalised)."""
        return self._root_fen

    def fen(self) -> str:
        """The position as FEN, as pyffish writes it: ``… w - - 0 1``."""
        return self._nodes[-1].fen

    def board_fen(self) -> str:
        return self._nodes[-1].key[:-2]

    def piece_at(self, sq: int) -> Piece | None:
        s = self._sq[sq]
        return Piece.from_symbol(s) if s else None

    def pieces(self, piece_type: PieceType, color: Color) -> list[int]:
        """Squares of ``color``'s pieces of ``piece_type``, in square order."""
        return list(self._squares_of(_symbol(piece_type, color)))

    def _squares_of(self, symbol: str) -> list[int]:
        node = self._nodes[-1]
        if node.pieces is None:
            table: dict[str, list[int]] = {}
            for sq, s in enumerate(self._sq):
                if s:
                    table.setdefault(s, []).append(sq)
            node.pieces = table
        return node.pieces.get(symbol, [])

    def copy(self) -> Board:
        """An independent board with the same position and history."""
        other = Board.__new__(Board)
        other._sq = list(self._sq)
        other._nodes = list(self._nodes)
        other._root_fen = self._root_fen
        return other

    def __repr__(self) -> str:
        return "Board(%r)" % self.fen()

    def __str__(self) -> str:
        lines = []
        for rank in range(9, -1, -1):
            row = [self._sq[rank * 9 + f] or "." for f in range(9)]
            lines.append("%d %s" % (rank, " ".join(row)))
        lines.append("  " + " ".join(FILE_NAMES))
        return "\n".join(lines)

    # Moves ---------------------------------------------------------------

    @property
    def legal_moves(self) -> tuple[Move, ...]:
        """Every legal move in the position (from pyffish)."""
        node = self._nodes[-1]
        if node.legal is None:
            node.legal = _ff_legal(node.fen)
            node.legal_set = frozenset(node.legal)
        return node.legal

    def is_legal(self, move: Move) -> bool:
        node = self._nodes[-1]
        if node.legal_set is None:
            node.legal = _ff_legal(node.fen)
            node.legal_set = frozenset(node.legal)
        return move in node.legal_set

    def push(self, move: Move) -> None:
        """Play ``move``; an illegal one raises ``IllegalMoveError``."""
        if not isinstance(move, Move):
            raise IllegalMoveError("not a Move: %r" % (move,))
        if not self.is_legal(move):
            raise IllegalMoveError("%s is not legal in %s" % (move.iccs(), self.fen()))
        prev = self._nodes[-1]
        f, t = move.from_square, move.to_square
        captured = self._sq[t]
        self._sq[t] = self._sq[f]
        self._sq[f] = ""
        node = _Node(move, captured, prev.turn.other, 0 if captured else prev.hmc + 1,
                     prev.fmn + (prev.turn is Color.BLACK))  # fmt: skip
        self._fill(node)
        self._nodes.append(node)

    def pop(self) -> Move:
        """Take back the last move and return it."""
        if len(self._nodes) == 1:
            raise IllegalMoveError("no move to take back")
        node = self._nodes.pop()
        assert node.move is not None
        f, t = node.move.from_square, node.move.to_square
        self._sq[f] = self._sq[t]
        self._sq[t] = node.captured
        return node.move

    def peek(self) -> Move | None:
        """The last move played, or ``None``."""
        return self._nodes[-1].move

    def push_notation(self, text: str) -> Move:
        """Read ``text`` (any notation) and play it."""
        move = self.parse_notation(text)
        self.push(move)
        return move

    def is_capture(self, move: Move) -> bool:
        return bool(self._sq[move.to_square])

    def is_check(self) -> bool:
        """Whether the side to move is in check."""
        return self._node_check(len(self._nodes) - 1)

    def _node_check(self, i: int) -> bool:
        node = self._nodes[i]
        if node.check is None:
            node.check = _ff_in_check(node.fen)
        return node.check

    def gives_check(self, move: Move) -> bool:
        self.push(move)
        try:
            return self.is_check()
        finally:
            self.pop()

    # Results -------------------------------------------------------------

    def is_checkmate(self) -> bool:
        return not self.legal_moves and self.is_check()

    def is_stalemate(self) -> bool:
        """No legal move and not in check: 困毙, a loss (XQ-R15)."""
        return not self.legal_moves and not self.is_check()

    def repetition(self) -> Repetition | None:
        """The current position's repetition, or ``None`` if it is new."""
        nodes = self._nodes
        cur = len(nodes) - 1
        key = nodes[cur].key
        hits = []
        # Positions cannot repeat across a capture; same side to move: step 2.
        for i in range(cur - 2, self._last_capture_index(cur) - 1, -2):
            if nodes[i].key == key:
                hits.append(i)
        if not hits:
            return None
        count = len(hits) + 1
        start = hits[1] if count >= 3 else hits[0]
        moves = {Color.RED: 0, Color.BLACK: 0}
        checks = {Color.RED: 0, Color.BLACK: 0}
        for i in range(start + 1, cur + 1):
            mover = nodes[i - 1].turn
            moves[mover] += 1
            if self._node_check(i):
                checks[mover] += 1
        verdict = None
        if count >= 3:
            verdict = self._axf_verdict(start)
        return Repetition(count, start, moves[Color.RED], moves[Color.BLACK],
                          checks[Color.RED], checks[Color.BLACK], verdict)  # fmt: skip

    def _last_capture_index(self, cur: int) -> int:
        """The node reached by the last capture in the record (0: none)."""
        return max(0, cur - self._nodes[cur].hmc)

    def _axf_verdict(self, start: int) -> int:
        # pyffish judges the window from `start` (fed as its root, with the move
        # counter at 0 so its own 50-move rule cannot answer instead).
        root = self._nodes[start]
        fen = "%s - - 0 %d" % (root.key, root.fmn)
        moves = [n.move.uci() for n in self._nodes[start + 1 :] if n.move is not None]
        ended, value = pyffish.is_optional_game_end(VARIANT, fen, moves)
        if not ended:
            return 0
        return 1 if value > 0 else -1 if value < 0 else 0

    def is_repetition(self, count: int = 3) -> bool:
        rep = self.repetition()
        return rep is not None and rep.count >= count

    def outcome(self, repetition: str = "cxa") -> Outcome | None:
        """The result if the rules end the game here, else ``None``.

        Checkmate and stalemate (困毙) lose (XQ-R15). On the third occurrence of
        a position, the repetition rules decide (XQ-R15, XQ-R16):
        ``repetition="cxa"`` (the default) the Chinese competition rules'
        棋例, as ``xiangqi_repetition.adjudicate`` rules them (docs/repetition.md);
        ``"axf"`` the AXF rules as pyffish judges them. Claims (natural move
        limit, material on a flag) and the arbiter's decisions are not here.
        """
        turn = self.turn
        if not self.legal_moves:
            if self.is_check():
                return Outcome(Termination.CHECKMATE, turn.other,
                               "%s is checkmated (将死)" % turn)  # fmt: skip
            return Outcome(Termination.STALEMATE, turn.other,
                           "%s has no legal move (困毙), a loss" % turn)  # fmt: skip
        if repetition == "cxa":
            if not self.is_repetition(3):
                return None
            from qizhong.rules import xiangqi_repetition

            ruling = xiangqi_repetition.adjudicate(self, "cxa")
            return None if ruling is None else ruling.outcome()
        if repetition != "axf":
            raise XiangqiError("repetition rules are cxa or axf, not %r" % (repetition,))
        return self._axf_outcome()

    def _axf_outcome(self) -> Outcome | None:
        """The AXF repetition verdict: perpetual check by one side loses, checks
        by both draw; otherwise pyffish's verdict decides: a perpetual chase
        loses, anything else draws."""
        turn = self.turn
        rep = self.repetition()
        if rep is None or rep.count < 3:
            return None
        moves = {Color.RED: rep.red_moves, Color.BLACK: rep.black_moves}
        checks = {Color.RED: rep.red_checks, Color.BLACK: rep.black_checks}
        perpetual = [c for c in Color if checks[c] == moves[c]]
        if len(perpetual) == 1:
            loser = perpetual[0]
            return Outcome(Termination.PERPETUAL_CHECK, loser.other,
                           "%s checked on every move of a threefold repetition (长将)"
                           % loser)  # fmt: skip
        if len(perpetual) == 2:
            return Outcome(Termination.REPETITION, None,
                           "threefold repetition, both sides checking every move")  # fmt: skip
        if rep.verdict:
            loser = turn if rep.verdict < 0 else turn.other
            return Outcome(Termination.PERPETUAL_CHASE, loser.other,
                           "%s chased on every move of a threefold repetition (长捉, "
                           "as Fairy-Stockfish judges it under the AXF rules)" % loser)  # fmt: skip
        return Outcome(Termination.REPETITION, None,
                       "threefold repetition (不变作和, AXF)")  # fmt: skip

    def is_game_over(self) -> bool:
        return self.outcome() is not None

    def natural_move_limit(self, claimant: Color) -> NaturalLimit:
        """Check ``claimant``'s natural-move-limit claim (XQ-R16, XQ-R20).

        True when, since the last capture in the record, both sides have made 30
        moves, where the claimant's checking moves count at most 5 times. Only
        the recorded moves count (XQ-R24: the arbiter's record decides), not a
        FEN's move counter.
        """
        nodes = self._nodes
        cur = len(nodes) - 1
        start = self._last_capture_index(cur)
        mine = theirs = checks = 0
        for i in range(start + 1, cur + 1):
            mover = nodes[i - 1].turn
            if mover is claimant:
                mine += 1
                if self._node_check(i):
                    checks += 1
            else:
                theirs += 1
        counted = mine - max(0, checks - NATURAL_LIMIT_CHECKS)
        valid = counted >= NATURAL_LIMIT_MOVES and theirs >= NATURAL_LIMIT_MOVES
        return NaturalLimit(claimant, valid, counted, theirs, checks, start + 1)

    def natural_limit_outcome(self, claimant: Color) -> Outcome | None:
        """The draw a true claim earns (XQ-R16), or ``None`` for a false one."""
        claim = self.natural_move_limit(claimant)
        if not claim.valid:
            return None
        return Outcome(Termination.NATURAL_MOVE_LIMIT, None,
                       "%s claimed the natural move limit: %d and %d moves without a capture"
                       % (claimant, claim.claimant_moves, claim.opponent_moves))  # fmt: skip

    def has_mating_material(self, color: Color) -> bool:
        """Whether ``color`` has pieces that could ever mate (XQ-R16).

        A rook, horse or pawn can; advisors and elephants never cross the river;
        a cannon can only when some other piece besides the two generals is on
        the board to serve as its screen.
        """
        for pt in (R, N, P):
            if self._squares_of(_symbol(pt, color)):
                return True
        if self._squares_of(_symbol(C, color)):
            others = sum(1 for s in self._sq if s and s not in "Kk")
            return others >= 2
        return False

    def flag_outcome(self, flagged: Color, claim_draw: bool = True) -> Outcome:
        """The result when ``flagged``'s time runs out (XQ-R16).

        The flagged side loses unless it claims a draw and the opponent has no
        material able to mate (the arbiter confirms the claim at the board).
        """
        winner = flagged.other
        if claim_draw and not self.has_mating_material(winner):
            return Outcome(Termination.INSUFFICIENT_MATERIAL, None,
                           "%s's flag fell, but %s has nothing that can mate"
                           % (flagged, winner))  # fmt: skip
        return Outcome(Termination.TIME_FORFEIT, winner, "%s's flag fell" % flagged)

    # Notation ------------------------------------------------------------

    def notation(self, move: Move, style: str = "chinese") -> str:
        """``move`` written in ``style``: chinese, traditional, wxf or iccs."""
        if style not in STYLES:
            raise NotationError("style is one of %s, not %r" % (", ".join(STYLES), style))
        if not self.is_legal(move):
            raise IllegalMoveError("%s is not legal in %s" % (move.iccs(), self.fen()))
        if style == "iccs":
            return "%s-%s" % (square_name(move.from_square).upper(),
                              square_name(move.to_square).upper())  # fmt: skip
        sym = self._sq[move.from_square]
        piece = Piece.from_symbol(sym)
        color, pt = piece.color, piece.piece_type
        r = move.from_square // 9
        tf, tr = move.to_square % 9, move.to_square // 9
        fwd = 1 if color is Color.RED else -1
        dr = (tr - r) * fwd
        direction = SIDE if dr == 0 else FWD if dr > 0 else BACK
        arg = abs(tr - r) if pt in _STRAIGHT and direction != SIDE else _file_number(color, tf)
        if style == "wxf":
            return self._wxf_origin(move.from_square, pt, color) + _WXF_DIR[direction] + str(arg)
        trad = style == "traditional"
        glyph = (_GLYPHS_TRAD if trad else _GLYPHS)[color][pt]
        dir_ch = (_CN_DIR_TRAD if trad else _CN_DIR)[direction]
        kind, value = self._cn_origin(move.from_square, pt, color, style == "xqbase")
        positions = _CN_POS_TRAD if trad else _CN_POS
        if kind == "file":
            head = glyph + _number(color, int(value), trad)
        elif kind == "pos":
            head = positions[str(value)] + glyph
        elif kind == "posfile":  # 前兵三: several files hold tandem pawns (NT)
            pos, fn = str(value).split(":")
            head = positions[pos] + glyph + _number(color, int(fn), trad)
        else:
            head = _CN_NUM[int(value) - 1] + glyph
        return head + dir_ch + _number(color, arg, trad)

    def _file_groups(self, symbol: str, color: Color) -> dict[int, list[int]]:
        """Pieces of ``symbol`` by the mover's file number, front to back (cached)."""
        cache = self._nodes[-1].groups
        groups = cache.get(symbol)
        if groups is None:
            groups = {}
            for sq in self._squares_of(symbol):
                groups.setdefault(_file_number(color, sq % 9), []).append(sq)
            for lst in groups.values():
                lst.sort(key=lambda s: -(s // 9) if color is Color.RED else s // 9)
            cache[symbol] = groups
        return groups

    def _tandem(self, symbol: str, color: Color) -> list[int]:
        """xqbase's order: pieces on files holding two or more, right to left, front first."""
        groups = self._file_groups(symbol, color)
        return [sq for fn in sorted(groups) if len(groups[fn]) > 1 for sq in groups[fn]]

    def _cn_origin(self, sq: int, pt: PieceType, color: Color,
                   xqbase: bool = False) -> tuple[str, int | str]:  # fmt: skip
        fn = _file_number(color, sq % 9)
        if pt in (K, A, B):
            return "file", fn
        tandem = self._tandem(_symbol(pt, color), color)
        if sq not in tandem:
            return "file", fn
        if not xqbase:
            groups = self._file_groups(_symbol(pt, color), color)
            if sum(1 for g in groups.values() if len(g) > 1) > 1:
                # NT: several files each with two or more pawns: the file stays,
                # with 前/中/后 on it (at most three, five pawns in all).
                line = groups[fn]
                j = line.index(sq)
                pos = FRONT if j == 0 else REAR if j == len(line) - 1 else MID
                return "posfile", "%s:%d" % (pos, fn)
        i, n = tandem.index(sq), len(tandem)
        if n == 2:
            return "pos", FRONT if i == 0 else REAR
        if n == 3:
            return "pos", (FRONT, MID, REAR)[i]
        return "ord", i + 1

    def _wxf_origin(self, sq: int, pt: PieceType, color: Color) -> str:
        fn = _file_number(color, sq % 9)
        letter = _WXF_LETTER[pt]
        if pt in (K, A, B):
            return letter + str(fn)
        groups = self._file_groups(_symbol(pt, color), color)
        line = groups[fn]
        if len(line) == 1:
            return letter + str(fn)
        j, k = line.index(sq), len(line)
        if pt is not P:
            return letter + ("+" if j == 0 else "-")
        if sum(1 for g in groups.values() if len(g) > 1) > 1:
            return str(fn) + ("+" if j == 0 else "-" if j == k - 1 else str(fn))
        table = {
            2: ("P+", "P-"),
            3: ("P+", "P%d" % fn, "P-"),
            4: ("++", "P+", "P-", "--"),
            5: ("++", "P+", "P%d" % fn, "P-", "--"),
        }
        return table[k][j]

    def parse_notation(self, text: str) -> Move:
        """The legal move ``text`` names, in 记谱 (simplified or traditional), WXF or ICCS.

        Raises ``NotationError`` when the text cannot be read, names no legal
        move, or could be more than one.
        """
        if not isinstance(text, str):
            raise NotationError("move text must be a string, not %r" % (text,))
        s = unicodedata.normalize("NFKC", text).strip()
        s = "".join(s.split())
        while len(s) > 4 and s[-1] in _TRAILING:
            s = s[:-1]
        if not s:
            raise NotationError("empty move text")
        if _ICCS_RE.match(s):
            move = Move.from_iccs(s)
            if not self.is_legal(move):
                raise NotationError("%s: not a legal move here" % text.strip())
            return move
        if all(ord(ch) < 128 for ch in s):
            origins, pt, direction, arg = self._read_wxf(s, text)
        else:
            origins, pt, direction, arg = self._read_chinese(s, text)
        return self._resolve(text, origins, pt, direction, arg)

    def _resolve(self, text: str, origins: Iterable[int], pt: PieceType, direction: int,
                 arg: int) -> Move:  # fmt: skip
        color = self.turn
        found = []
        for sq in origins:
            to = _destination(sq, pt, color, direction, arg)
            if to is not None:
                move = Move(sq, to)
                if self.is_legal(move) and move not in found:
                    found.append(move)
        if len(found) == 1:
            return found[0]
        if not found:
            raise NotationError("%s: no legal %s move fits" % (text.strip(), str(color).lower()))
        names = ", ".join(self.notation(m) for m in found)
        raise NotationError("%s is ambiguous: %s" % (text.strip(), names))

    def _read_chinese(self, s: str, text: str) -> tuple[list[int], PieceType, int, int]:
        kinds = []
        values: list[object] = []
        for i, ch in enumerate(s):
            if ch in _READ_PIECE or ch.upper() in _READ_LETTER:
                kinds.append("P")
                values.append(_READ_PIECE.get(ch) or _READ_LETTER[ch.upper()])
            elif ch in _READ_POS:
                kinds.append("Q")
                values.append(_READ_POS[ch])
            elif ch in _READ_DIGIT:
                kinds.append("N")
                values.append(_READ_DIGIT[ch])
            elif ch in _READ_DIR:
                kinds.append("D")
                values.append(_READ_DIR[ch])
            else:
                raise NotationError("%s: %r (character %d) is not part of a move"
                                    % (text.strip(), ch, i + 1))  # fmt: skip
        form = "".join(kinds)
        if form[-2:] != "DN":
            raise NotationError("%s: a move ends with 进/退/平 and a number" % text.strip())
        direction, arg = int(str(values[-2])), int(str(values[-1]))
        color = self.turn
        head, hv = form[:-2], values[:-2]
        if head == "PN":  # 炮二平五
            pt = _as_type(hv[0])
            return self._on_file(pt, color, int(str(hv[1]))), pt, direction, arg
        if head in ("QP", "PQ"):  # 前车进一, 车前平三
            pt = _as_type(hv[0] if head == "PQ" else hv[1])
            pos = str(hv[1] if head == "PQ" else hv[0])
            return self._by_position(pt, color, pos, text), pt, direction, arg
        if head == "NP":  # 二兵平四 (xqbase's ordinal over all tandem pawns)
            pt = _as_type(hv[1])
            k = int(str(hv[0]))
            tandem = self._tandem(_symbol(pt, color), color)
            if not 1 <= k <= len(tandem):
                raise NotationError("%s: there is no %s %s of that number on a shared file"
                                    % (text.strip(), str(color).lower(), _NAMES[pt]))  # fmt: skip
            return [tandem[k - 1]], pt, direction, arg
        if head in ("QPN", "NPN", "QN", "NN"):  # 前兵九平八, 二卒7平6, 前九平八, 二7平6
            pt = _as_type(hv[1]) if len(head) == 3 else P
            line = self._file_groups(_symbol(pt, color), color).get(int(str(hv[-1])), [])
            return _pick(line, hv[0], text), pt, direction, arg
        raise NotationError("%s: not a move in 记谱 notation" % text.strip())

    def _read_wxf(self, s: str, text: str) -> tuple[list[int], PieceType, int, int]:
        u = s.upper()
        if len(u) != 4 or u[2] not in _READ_DIR or u[3] not in "123456789":
            raise NotationError("%s: not a move in WXF notation (e.g. C2.5, H8+7)"
                                % text.strip())  # fmt: skip
        direction, arg = _READ_DIR[u[2]], int(u[3])
        c0, c1 = u[0], u[1]
        color = self.turn
        if c0 in _READ_LETTER and (c1.isdigit() or c1 in "+-."):
            pt = _READ_LETTER[c0]
            if c1.isdigit():
                fn = int(c1)
                line = self._file_groups(_symbol(pt, color), color).get(fn, [])
                if pt is P and len(line) in (3, 5):
                    return [line[len(line) // 2]], pt, direction, arg  # WXF: the middle pawn
                return self._on_file(pt, color, fn), pt, direction, arg
            if c1 in "+-":
                return self._wxf_tandem(pt, color, c1), pt, direction, arg
            if c1 == ".":
                return self._by_position(pt, color, MID, text), pt, direction, arg
        elif c0 in "+-" and c1 == c0:  # ++ / --: foremost or rearmost pawn
            groups = self._file_groups(_symbol(P, color), color)
            lines = [g for g in groups.values() if len(g) > 1]
            return [g[0] if c0 == "+" else g[-1] for g in lines], P, direction, arg
        elif c0 in "+-" and c1 in _READ_LETTER:  # +C.5, as some programs write it
            pt = _READ_LETTER[c1]
            pos = FRONT if c0 == "+" else REAR
            return self._by_position(pt, color, pos, text), pt, direction, arg
        elif c0.isdigit() and c0 != "0":  # 3+.4 / 33.4 / 3-.4: tandem pawns on two files
            line = self._file_groups(_symbol(P, color), color).get(int(c0), [])
            if len(line) > 1:
                if c1 == "+":
                    return [line[0]], P, direction, arg
                if c1 == "-":
                    return [line[-1]], P, direction, arg
                if c1 == c0 and len(line) % 2:
                    return [line[len(line) // 2]], P, direction, arg
        elif c0 in _READ_LETTER and c1 in "ABCDE":  # xqbase's ordinals: Pa+1
            pt = _READ_LETTER[c0]
            tandem = self._tandem(_symbol(pt, color), color)
            k = "ABCDE".index(c1)
            if k < len(tandem):
                return [tandem[k]], pt, direction, arg
        raise NotationError("%s: no piece fits in WXF notation" % text.strip())

    def _wxf_tandem(self, pt: PieceType, color: Color, sign: str) -> list[int]:
        groups = self._file_groups(_symbol(pt, color), color)
        out = []
        for line in groups.values():
            k = len(line)
            if k < 2:
                continue
            if pt is P and k >= 4:
                out.append(line[1] if sign == "+" else line[k - 2])
            else:
                out.append(line[0] if sign == "+" else line[-1])
        return out

    def _on_file(self, pt: PieceType, color: Color, fn: int) -> list[int]:
        return self._file_groups(_symbol(pt, color), color).get(fn, [])

    def _by_position(self, pt: PieceType, color: Color, pos: str, text: str) -> list[int]:
        tandem = self._tandem(_symbol(pt, color), color)
        n = len(tandem)
        if n == 0:
            raise NotationError("%s: no two %s %ss share a file"
                                % (text.strip(), str(color).lower(), _NAMES[pt]))  # fmt: skip
        if n == 2:
            if pos == MID:
                raise NotationError("%s: only two %ss share a file: 前 or 后"
                                    % (text.strip(), _NAMES[pt]))  # fmt: skip
            return [tandem[0] if pos == FRONT else tandem[1]]
        if n == 3:
            return [tandem[(FRONT, MID, REAR).index(pos)]]
        # Four or five on shared files: the front/middle/rear of each file, if one fits.
        out = []
        for line in self._file_groups(_symbol(pt, color), color).values():
            if len(line) < 2:
                continue
            if pos == FRONT:
                out.append(line[0])
            elif pos == REAR:
                out.append(line[-1])
            elif len(line) % 2:
                out.append(line[len(line) // 2])
        return out


def _symbol(pt: PieceType, color: Color) -> str:
    return pt.value.upper() if color is Color.RED else pt.value


def _as_type(value: object) -> PieceType:
    if not isinstance(value, PieceType):
        raise NotationError("expected a piece, found %r" % (value,))
    return value


def _pick(line: list[int], which: object, text: str) -> list[int]:
    if not line:
        raise NotationError("%s: no such pieces on that file" % text.strip())
    if which == FRONT:
        return [line[0]]
    if which == REAR:
        return [line[-1]]
    if which == MID:
        if len(line) % 2 == 0:
            raise NotationError("%s: no middle piece among %d" % (text.strip(), len(line)))
        return [line[len(line) // 2]]
    k = int(str(which))
    if not 1 <= k <= len(line):
        raise NotationError("%s: only %d such pieces on that file" % (text.strip(), len(line)))
    return [line[k - 1]]


def _file_number(color: Color, file: int) -> int:
    """Files 1-9 from the mover's right: Red's 一 is file i, Black's 1 is file a."""
    return 9 - file if color is Color.RED else file + 1


def _file_index(color: Color, number: int) -> int:
    return 9 - number if color is Color.RED else number - 1


def _number(color: Color, n: int, full_width: bool = False) -> str:
    """Red writes Chinese numerals, Black digits (NT); traditional texts write
    Black's digits full-width (``馬８進７``)."""
    if color is Color.RED:
        return _CN_NUM[n - 1]
    return chr(0xFF10 + n) if full_width else str(n)


def _destination(sq: int, pt: PieceType, color: Color, direction: int, arg: int) -> int | None:
    f, r = sq % 9, sq // 9
    fwd = 1 if color is Color.RED else -1
    if pt in _STRAIGHT:
        if direction == SIDE:
            tf = _file_index(color, arg)
            return r * 9 + tf if tf != f else None
        nr = r + fwd * direction * arg
        return nr * 9 + f if 0 <= nr <= 9 else None
    if direction == SIDE:
        return None
    tf = _file_index(color, arg)
    df = abs(tf - f)
    if pt is A:
        dr = 1 if df == 1 else 0
    elif pt is B:
        dr = 2 if df == 2 else 0
    else:
        dr = 3 - df if df in (1, 2) else 0
    if not dr:
        return None
    nr = r + fwd * direction * dr
    return nr * 9 + tf if 0 <= nr <= 9 else None


def perft(board: Board, depth: int) -> int:
    """Leaf count of the legal-move tree ``depth`` plies deep (44, 1920, 79666, …)."""
    if depth <= 0:
        return 1
    moves = board.legal_moves
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        board.push(move)
        total += perft(board, depth - 1)
        board.pop()
    return total


def drawn_knockout_winner(red_fouls: int, black_fouls: int,
                          black_time_compensation: bool = False) -> Color | None:  # fmt: skip
    """Who goes through when a single-game knock-out is drawn (XQ-R22, XQ-R23).

    XQ-R22 (**Interpretation** in docs/rules.md): the side with more fouls on record
    loses; equal fouls leave the draw. Then XQ-R23: in a game where Black had
    time compensation (TC-4), the draw goes to Red. Returns ``None`` for a draw
    that stands. Fouls are applied first: this module's reading, since R22 rules
    on conduct and R23 only on the drawn result.
    """
    if red_fouls < 0 or black_fouls < 0:
        raise XiangqiError("foul counts cannot be negative")
    if red_fouls != black_fouls:
        return Color.RED if red_fouls < black_fouls else Color.BLACK
    if black_time_compensation:
        return Color.RED
    return None
