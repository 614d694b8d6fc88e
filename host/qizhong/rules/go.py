# SPDX-License-Identifier: GPL-3.0-or-later
"""Go (围棋) under the Chinese rules: moves, captures, superko, area scoring.

    >>> from qizhong.rules import go
    >>> board = go.Board(9)
    >>> board.push_gtp("E5")
    <Move E5>
    >>> board.push(go.PASS)
    >>> board.turn, board.move_stack
    (<Color.BLACK: 1>, [<Move E5>, <Move pass>])
    >>> board.is_legal(go.Move.from_gtp("E5", 9))
    False

The shape is python-chess's: a ``Board`` with ``push``, ``pop``, ``legal_moves``,
``is_game_over`` and ``outcome()``; small value types ``Point`` and ``Move``;
enums for colours, termination and the reason a move is refused. Rules (docs/rules.md):

- GO-1: boards of 9, 13 and 19; Black first; one stone a turn; passing allowed.
- GO-2: a stone takes the opponent's chains left without liberties, before
  its own liberties are looked at.
- GO-3: suicide (禁着点) is refused.
- GO-4: situational superko: a move may not recreate a whole-board position
  with the same side to move. Positions are kept as Zobrist hashes, each hit
  confirmed on the exact board, so a hash collision can never refuse a move.
- GO-5: the game ends by two passes in a row, agreement, or resignation (and,
  for the arbiter, a flag). ``push`` refuses moves after that; ``pop`` a pass,
  or ``resume()`` a declared ending, to play on.
- GO-6, GO-7: ``score()`` counts area with the arbiter's dead stones; komi is
  in points (SGF ``KM``), 7.5 by default, which is 3¾ stones (子).
- GO-8: ``nigiri()`` decides colours with an injected random source.

Points are ``Point(col, row)`` from the lower left, ``(0, 0)`` = GTP ``A1`` =
SGF ``as`` on 19x19. GTP columns skip I. Bad input raises ``GoError``
(a ``ValueError``) with a message and leaves the board as it was.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

SIZES = (9, 13, 19)
COLUMNS = "ABCDEFGHJKLMNOPQRST"  # GTP: no I
KOMI = Fraction(15, 2)  # points; GO-7: 3¾ 子
KOMI_JAPANESE = Fraction(13, 2)


class Color(enum.IntEnum):
    BLACK = 1
    WHITE = 2

    @property
    def other(self) -> Color:
        return Color.WHITE if self is Color.BLACK else Color.BLACK

    @property
    def letter(self) -> str:
        """``B`` or ``W``, as in SGF and GTP."""
        return "B" if self is Color.BLACK else "W"

    @property
    def chinese(self) -> str:
        return "黑" if self is Color.BLACK else "白"


BLACK = Color.BLACK
WHITE = Color.WHITE


class GoError(ValueError):
    """Bad input to the Go engine: the message says what, nothing was changed."""


class CoordinateError(GoError):
    """A GTP vertex or SGF point that is not on the board."""


class Reason(enum.Enum):
    """Why a move is refused."""

    OCCUPIED = "the point is occupied"
    SUICIDE = "suicide is forbidden (GO-3)"
    SUPERKO = "it repeats an earlier whole-board position (GO-4)"
    GAME_OVER = "the game is over (GO-5)"


class IllegalMoveError(GoError):
    """A move the rules refuse; ``reason`` says which rule."""

    def __init__(
        self, move: Move, color: Color, reason: Reason, repeats: int | None = None
    ) -> None:
        text = "illegal move %s %s: %s" % (color.letter, move.gtp(), reason.value)
        if repeats is not None:
            text += ", the one after move %d" % repeats if repeats else ", the starting one"
        super().__init__(text)
        self.move = move
        self.color = color
        self.reason = reason
        self.repeats = repeats  # superko: the ply whose situation the move recreates


def _check_size(size: int) -> int:
    if size not in SIZES:
        raise GoError("board size %r is not offered: 9, 13 or 19 (GO-1)" % (size,))
    return size


class Point(NamedTuple):
    """An intersection: ``col`` 0 = A, ``row`` 0 = the bottom line (GTP row 1)."""

    col: int
    row: int

    @classmethod
    def from_gtp(cls, text: str, size: int) -> Point:
        """``D4``, ``t19`` (case-blind; no column I)."""
        t = text.strip().upper()
        cols = COLUMNS[:size]
        if len(t) < 2 or t[0] not in cols or not t[1:].isdigit():
            raise CoordinateError(
                "%r is not a point on %dx%d: columns A-%s without I, rows 1-%d"
                % (text, size, size, cols[-1], size)
            )
        row = int(t[1:])
        if not 1 <= row <= size:
            raise CoordinateError("%r: row %d is off the %dx%d board" % (text, row, size, size))
        return cls(cols.index(t[0]), row - 1)

    def gtp(self) -> str:
        return "%s%d" % (COLUMNS[self.col], self.row + 1)

    @classmethod
    def from_sgf(cls, text: str, size: int) -> Point:
        """Two letters, column then line from the top: ``dd`` = D16 on 19x19."""
        if len(text) != 2 or not text.isascii() or not text.islower():
            raise CoordinateError("%r is not an SGF point" % (text,))
        col = ord(text[0]) - 97
        row = size - 1 - (ord(text[1]) - 97)
        if not (0 <= col < size and 0 <= row < size):
            raise CoordinateError("SGF point %r is off the %dx%d board" % (text, size, size))
        return cls(col, row)

    def sgf(self, size: int) -> str:
        return chr(97 + self.col) + chr(97 + size - 1 - self.row)


@dataclass(frozen=True)
class Move:
    """A stone on ``point``, or a pass (``point`` None). The colour is the board's turn."""

    point: Point | None

    @property
    def is_pass(self) -> bool:
        return self.point is None

    @classmethod
    def from_gtp(cls, text: str, size: int) -> Move:
        """A GTP vertex or ``pass``."""
        if text.strip().lower() == "pass":
            return PASS
        return cls(Point.from_gtp(text, size))

    def gtp(self) -> str:
        return "pass" if self.point is None else self.point.gtp()

    def sgf(self, size: int) -> str:
        """The SGF move value; a pass is empty (FF[4])."""
        return "" if self.point is None else self.point.sgf(size)

    def __repr__(self) -> str:
        return "<Move %s>" % self.gtp()


PASS = Move(None)


class Termination(enum.Enum):
    TWO_PASSES = "two passes"
    AGREEMENT = "agreement"
    RESIGNATION = "resignation"
    TIME_FORFEIT = "time forfeit"


def _decimal(q: Fraction) -> str:
    """Exact decimal text of a fraction whose denominator is 2^a 5^b."""
    sign = "-" if q < 0 else ""
    q = abs(q)
    whole, rest = divmod(q.numerator, q.denominator)
    if not rest:
        return "%s%d" % (sign, whole)
    digits = ""
    while rest and len(digits) < 12:
        rest *= 10
        d, rest = divmod(rest, q.denominator)
        digits += str(d)
    if rest:
        raise GoError("%s is not a finite decimal" % q)
    return "%s%d.%s" % (sign, whole, digits)


def _zi(q: Fraction) -> str:
    """Stones (子) in the seed's wording: ``3/4``, ``2又1/4``, ``5``."""
    whole, rest = divmod(q.numerator, q.denominator)
    if not rest:
        return str(whole)
    frac = "%d/%d" % (rest, q.denominator)
    return "%d又%s" % (whole, frac) if whole else frac


def parse_komi(value: Fraction | int | float | str) -> Fraction:
    """Komi in points as an exact fraction: ``7.5``, ``"6.5"``, ``Fraction(15, 2)``."""
    try:
        k = Fraction(str(value)) if isinstance(value, (float, str)) else Fraction(value)
    except (ValueError, ZeroDivisionError, TypeError):
        raise GoError("komi %r is not a number" % (value,))
    d = k.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d != 1 or abs(k) > 1000:
        raise GoError("komi %r must be a finite decimal number of points" % (value,))
    return k


@dataclass(frozen=True)
class Score:
    """An area count (数子法, GO-6) with komi (GO-7). Areas include half the dame."""

    size: int
    black: Fraction  # stones + territory + half of the neutral points
    white: Fraction
    komi: Fraction  # points, given by Black
    dame: int  # neutral points (split in half)

    @property
    def margin(self) -> Fraction:
        """Points by which Black wins (negative: White wins)."""
        return self.black - self.white - self.komi

    @property
    def winner(self) -> Color | None:
        m = self.margin
        return None if m == 0 else BLACK if m > 0 else WHITE

    @property
    def par(self) -> Fraction:
        """归本数: half the board, 180.5 on 19x19."""
        return Fraction(self.size * self.size, 2)

    def sgf(self) -> str:
        """SGF ``RE`` in points: ``B+1.5``, ``W+0.5``, ``0`` for a draw."""
        m = self.margin
        if m == 0:
            return "0"
        return "%s+%s" % ("B" if m > 0 else "W", _decimal(abs(m)))

    def chinese(self, view: Color | None = None) -> str:
        """``黑胜3/4子``; with ``view`` the result told from that side (``黑负1/4子``)."""
        m = self.margin
        if m == 0:
            return "和棋"
        side = view or (BLACK if m > 0 else WHITE)
        won = (m > 0) == (side is BLACK)
        return "%s%s%s子" % (side.chinese, "胜" if won else "负", _zi(abs(m) / 2))


@dataclass(frozen=True)
class Outcome:
    """How the game ended. ``score`` is set when it was counted."""

    termination: Termination
    winner: Color | None
    score: Score | None = None

    def sgf(self) -> str:
        """SGF ``RE``: ``B+R``, ``W+T``, ``B+1.5``, ``0``."""
        if self.score is not None:
            return self.score.sgf()
        assert self.winner is not None
        tail = "R" if self.termination is Termination.RESIGNATION else "T"
        return "%s+%s" % (self.winner.letter, tail)

    def chinese(self) -> str:
        """``黑中盘胜``, ``白胜（黑超时）``, or the count (``黑胜3/4子``)."""
        if self.score is not None:
            return self.score.chinese()
        assert self.winner is not None
        if self.termination is Termination.RESIGNATION:
            return "%s中盘胜" % self.winner.chinese
        return "%s胜（%s超时）" % (self.winner.chinese, self.winner.other.chinese)


@dataclass(frozen=True)
class Nigiri:
    """猜先 (GO-8): the holder grabs ``stones`` white stones; the guesser shows one
    black stone for odd or two for even. A right guess plays Black."""

    stones: int
    guess_odd: bool

    @property
    def guesser_black(self) -> bool:
        return (self.stones % 2 == 1) == self.guess_odd


def nigiri(rng: random.Random, guess_odd: bool | None = None, most: int = 30) -> Nigiri:
    """Draw a nigiri from ``rng`` (1 to ``most`` stones, even ``most`` keeps it fair).
    The guess is the guesser's, or drawn too when None."""
    if most < 2:
        raise GoError("a nigiri needs a handful of at least 2 stones")
    if guess_odd is None:
        guess_odd = rng.random() < 0.5
    return Nigiri(rng.randint(1, most), guess_odd)


class _Geometry:
    """Per-size tables: neighbours of each index and Zobrist keys."""

    def __init__(self, size: int) -> None:
        n = size * size
        nb: list[tuple[int, ...]] = []
        for i in range(n):
            r, c = divmod(i, size)
            adj = []
            if c > 0:
                adj.append(i - 1)
            if c < size - 1:
                adj.append(i + 1)
            if r > 0:
                adj.append(i - size)
            if r < size - 1:
                adj.append(i + size)
            nb.append(tuple(adj))
        self.neighbours = tuple(nb)
        rng = random.Random("qizhong-go-zobrist-%d" % size)
        self.keys = tuple((0, rng.getrandbits(64), rng.getrandbits(64)) for _ in range(n))
        self.white_to_move = rng.getrandbits(64)


_GEOMETRY: dict[int, _Geometry] = {}


def _geometry(size: int) -> _Geometry:
    g = _GEOMETRY.get(size)
    if g is None:
        g = _GEOMETRY[size] = _Geometry(size)
    return g


@dataclass(frozen=True)
class _Undo:
    point: int  # -1: pass
    color: Color
    captured: tuple[int, ...]
    hash: int


class LegalMoves:
    """The legal moves of a board, pass last; supports ``in``, ``len`` and iteration."""

    def __init__(self, board: Board) -> None:
        self._board = board

    def __iter__(self) -> Iterator[Move]:
        b = self._board
        if b.is_game_over():
            return
        for i in range(b.size * b.size):
            if not b._grid[i] and b._probe(i, b.turn)[0] is None:
                yield Move(b._point(i))
        yield PASS

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, move: object) -> bool:
        try:
            return isinstance(move, Move) and self._board.is_legal(move)
        except GoError:
            return False

    def __repr__(self) -> str:
        return "<LegalMoves (%s)>" % ", ".join(m.gtp() for m in self)


class Board:
    """A Go board and the game on it (GO-1..GO-7).

    ``Board(19)`` starts empty with Black to move; ``komi`` is in points (7.5 =
    3¾ 子, GO-7). ``from_diagram`` and ``from_setup`` start from a position.
    """

    def __init__(self, size: int = 19, *, komi: Fraction | int | float | str = KOMI) -> None:
        self.size = _check_size(size)
        self.komi = parse_komi(komi)
        self._geo = _geometry(size)
        self._grid = bytearray(size * size)
        self.turn = BLACK
        self.move_stack: list[Move] = []
        self._undo: list[_Undo] = []
        self._hash = 0
        self.captures = {BLACK: 0, WHITE: 0}  # stones each colour has taken
        self._ending: tuple[Termination, Color | None] | None = None
        self._setup: tuple[frozenset[Point], frozenset[Point]] = (frozenset(), frozenset())
        self._first = BLACK
        self._seen: dict[int, int] = {}
        self._seen_exact: dict[bytes, list[int]] = {}  # situation -> plies it occurred at
        self._remember()

    # -- construction ----------------------------------------------------------

    @classmethod
    def from_setup(
        cls,
        size: int,
        black: Iterable[Point] = (),
        white: Iterable[Point] = (),
        *,
        turn: Color = BLACK,
        komi: Fraction | int | float | str = KOMI,
    ) -> Board:
        """A board with stones placed (SGF ``AB``/``AW``, handicap) and ``turn`` to move."""
        board = cls(size, komi=komi)
        bs, ws = frozenset(black), frozenset(white)
        both = bs & ws
        if both:
            raise GoError("%s is set up as both colours" % min(both).gtp())
        for p in bs | ws:
            board._index(p)
        for pts, color in ((bs, BLACK), (ws, WHITE)):
            for p in pts:
                i = board._index(p)
                board._grid[i] = color
                board._hash ^= board._geo.keys[i][color]
        for i in range(size * size):
            if board._grid[i] and board._chain(i)[1] == 0:
                raise GoError("the stone on %s has no liberties" % board._point(i).gtp())
        board._setup = (bs, ws)
        board.turn = board._first = turn
        board._seen.clear()
        board._seen_exact.clear()
        board._remember()
        return board

    @classmethod
    def from_diagram(
        cls, text: str, *, turn: Color = BLACK, komi: Fraction | int | float | str = KOMI
    ) -> Board:
        """Rows from the top, ``X`` black, ``O`` white, ``.`` or ``+`` empty; spaces ignored."""
        rows = ["".join(line.split()) for line in text.strip().splitlines()]
        rows = [r for r in rows if r]
        size = _check_size(len(rows))
        black, white = [], []
        for k, line in enumerate(rows):
            if len(line) != size:
                raise GoError("diagram row %d has %d points, not %d" % (k + 1, len(line), size))
            for col, ch in enumerate(line):
                p = Point(col, size - 1 - k)
                if ch == "X":
                    black.append(p)
                elif ch == "O":
                    white.append(p)
                elif ch not in ".+":
                    raise GoError("diagram row %d: %r is not X, O, . or +" % (k + 1, ch))
        return cls.from_setup(size, black, white, turn=turn, komi=komi)

    def copy(self) -> Board:
        b = Board.__new__(Board)
        b.__dict__.update(self.__dict__)
        b._grid = bytearray(self._grid)
        b.move_stack = list(self.move_stack)
        b._undo = list(self._undo)
        b.captures = dict(self.captures)
        b._seen = dict(self._seen)
        b._seen_exact = {k: list(v) for k, v in self._seen_exact.items()}
        return b

    @property
    def setup(self) -> tuple[frozenset[Point], frozenset[Point]]:
        """The black and white stones the game started with."""
        return self._setup

    @property
    def first(self) -> Color:
        """The colour that made (or makes) the first move."""
        return self._first

    # -- points ----------------------------------------------------------------

    def _index(self, p: Point) -> int:
        if not isinstance(p, Point) or not (0 <= p.col < self.size and 0 <= p.row < self.size):
            raise CoordinateError("%r is not a point on %dx%d" % (p, self.size, self.size))
        return p.row * self.size + p.col

    def _point(self, i: int) -> Point:
        r, c = divmod(i, self.size)
        return Point(c, r)

    def parse_gtp(self, text: str) -> Move:
        """A move from a GTP vertex or ``pass`` (not checked for legality)."""
        return Move.from_gtp(text, self.size)

    def parse_sgf(self, text: str) -> Move:
        """A move from an SGF value; empty (and ``tt`` up to 19x19) is a pass."""
        if text == "" or (text == "tt" and self.size <= 19):
            return PASS
        return Move(Point.from_sgf(text, self.size))

    def color_at(self, p: Point) -> Color | None:
        v = self._grid[self._index(p)]
        return Color(v) if v else None

    def points(self, color: Color) -> frozenset[Point]:
        """Where ``color``'s stones are."""
        return frozenset(self._point(i) for i, v in enumerate(self._grid) if v == color)

    def group(self, p: Point) -> frozenset[Point]:
        """The chain of stones through ``p`` (empty if ``p`` is empty)."""
        i = self._index(p)
        if not self._grid[i]:
            return frozenset()
        return frozenset(self._point(j) for j in self._chain(i)[0])

    def liberties(self, p: Point) -> int:
        """Liberties of the chain through ``p`` (GO-2)."""
        i = self._index(p)
        if not self._grid[i]:
            raise GoError("%s is empty" % p.gtp())
        return self._chain(i)[1]

    def _chain(self, i: int) -> tuple[list[int], int]:
        """The chain through stone ``i`` and its number of liberties."""
        grid, nb = self._grid, self._geo.neighbours
        color = grid[i]
        stones = [i]
        seen = {i}
        libs: set[int] = set()
        k = 0
        while k < len(stones):
            for j in nb[stones[k]]:
                v = grid[j]
                if v == 0:
                    libs.add(j)
                elif v == color and j not in seen:
                    seen.add(j)
                    stones.append(j)
            k += 1
        return stones, len(libs)

    def _has_liberty(self, i: int) -> bool:
        grid, nb = self._grid, self._geo.neighbours
        color = grid[i]
        stack = [i]
        seen = {i}
        while stack:
            for j in nb[stack.pop()]:
                v = grid[j]
                if v == 0:
                    return True
                if v == color and j not in seen:
                    seen.add(j)
                    stack.append(j)
        return False

    # -- legality --------------------------------------------------------------

    def _key(self, h: int, to_move: Color) -> int:
        return h ^ self._geo.white_to_move if to_move is WHITE else h

    def _exact(self, to_move: Color) -> bytes:
        return bytes(self._grid) + bytes((to_move,))

    def _remember(self) -> None:
        k = self._key(self._hash, self.turn)
        self._seen[k] = self._seen.get(k, 0) + 1
        self._seen_exact.setdefault(self._exact(self.turn), []).append(len(self.move_stack))

    def _forget(self) -> None:
        k = self._key(self._hash, self.turn)
        self._seen[k] -= 1
        if not self._seen[k]:
            del self._seen[k]
        e = self._exact(self.turn)
        self._seen_exact[e].pop()
        if not self._seen_exact[e]:
            del self._seen_exact[e]

    def _probe(self, i: int, color: Color) -> tuple[Reason | None, list[int], int]:
        """Try ``color`` on empty ``i``: (refusal, captured indices, new hash or,
        for superko, the ply repeated)."""
        grid, nb, keys = self._grid, self._geo.neighbours, self._geo.keys
        opp = color.other
        grid[i] = color
        captured: list[int] = []
        try:
            for j in nb[i]:
                if grid[j] == opp and j not in captured:
                    stones, libs = self._chain(j)
                    if libs == 0:
                        captured.extend(stones)
            if not captured and not self._has_liberty(i):
                return Reason.SUICIDE, [], 0
            h = self._hash ^ keys[i][color]
            for j in captured:
                h ^= keys[j][opp]
            if self._key(h, opp) in self._seen:
                for j in captured:
                    grid[j] = 0
                exact = self._exact(opp)
                for j in captured:
                    grid[j] = opp
                plies = self._seen_exact.get(exact)
                if plies:
                    return Reason.SUPERKO, [], plies[0]
            return None, captured, h
        finally:
            grid[i] = 0

    def illegal_reason(self, move: Move) -> Reason | None:
        """Why ``move`` is refused for the side to move, or None if it is legal."""
        if self.is_game_over():
            return Reason.GAME_OVER
        if move.point is None:
            return None
        i = self._index(move.point)
        if self._grid[i]:
            return Reason.OCCUPIED
        return self._probe(i, self.turn)[0]

    def repeats(self, move: Move) -> int | None:
        """For a move refused by superko (GO-4): the ply (moves played, 0 = the
        start) whose situation it would recreate; None otherwise. A simple ko
        recapture repeats ``len(move_stack) - 1``."""
        if move.point is None or self.is_game_over():
            return None
        i = self._index(move.point)
        if self._grid[i]:
            return None
        reason, _, ply = self._probe(i, self.turn)
        return ply if reason is Reason.SUPERKO else None

    def is_legal(self, move: Move) -> bool:
        return self.illegal_reason(move) is None

    @property
    def legal_moves(self) -> LegalMoves:
        return LegalMoves(self)

    # -- moves -----------------------------------------------------------------

    def push(self, move: Move) -> None:
        """Play ``move`` for the side to move; ``IllegalMoveError`` leaves the board as it was."""
        color = self.turn
        if self.is_game_over():
            raise IllegalMoveError(move, color, Reason.GAME_OVER)
        if move.point is None:
            undo = _Undo(-1, color, (), self._hash)
        else:
            i = self._index(move.point)
            if self._grid[i]:
                raise IllegalMoveError(move, color, Reason.OCCUPIED)
            reason, captured, h = self._probe(i, color)
            if reason is not None:
                raise IllegalMoveError(move, color, reason, h if reason is Reason.SUPERKO else None)
            undo = _Undo(i, color, tuple(captured), self._hash)
            self._grid[i] = color
            for j in captured:
                self._grid[j] = 0
            self._hash = h
            self.captures[color] += len(captured)
        self._undo.append(undo)
        self.move_stack.append(move)
        self.turn = color.other
        self._remember()

    def push_gtp(self, text: str) -> Move:
        """Parse a GTP vertex (or ``pass``), play it, and return the move."""
        move = self.parse_gtp(text)
        self.push(move)
        return move

    def pop(self) -> Move:
        """Take back the last move."""
        if self._ending is not None:
            raise GoError("the game ended by %s: resume() first" % self._ending[0].value)
        if not self._undo:
            raise GoError("no move to take back")
        self._forget()
        u = self._undo.pop()
        opp = u.color.other
        if u.point >= 0:
            self._grid[u.point] = 0
            for j in u.captured:
                self._grid[j] = opp
            self.captures[u.color] -= len(u.captured)
        self._hash = u.hash
        self.turn = u.color
        return self.move_stack.pop()

    def peek(self) -> Move:
        """The last move."""
        if not self.move_stack:
            raise GoError("no move played yet")
        return self.move_stack[-1]

    def last_captured(self) -> frozenset[Point]:
        """The stones the last move took."""
        if not self._undo:
            return frozenset()
        return frozenset(self._point(j) for j in self._undo[-1].captured)

    # -- the end (GO-5) --------------------------------------------------------

    @property
    def passes(self) -> int:
        """Consecutive passes at the end of the move stack."""
        n = 0
        for m in reversed(self.move_stack):
            if not m.is_pass:
                break
            n += 1
        return n

    def _end(self, termination: Termination, winner: Color | None) -> None:
        if self.is_game_over():
            raise GoError("the game is already over (GO-5)")
        self._ending = (termination, winner)

    def resign(self, color: Color) -> None:
        """``color`` resigns (中盘认输); either side may, at any time."""
        self._end(Termination.RESIGNATION, Color(color).other)

    def agree(self) -> None:
        """Both players confirm the game is played out (GO-5); it is then counted."""
        self._end(Termination.AGREEMENT, None)

    def lose_on_time(self, color: Color) -> None:
        """``color``'s flag fell (TC-3, TC-6: the flag is a loss)."""
        self._end(Termination.TIME_FORFEIT, Color(color).other)

    def resume(self) -> None:
        """Withdraw a resignation, agreement or time forfeit (an arbiter's correction)."""
        if self._ending is None:
            raise GoError("the game was not ended by resignation, agreement or time")
        self._ending = None

    def is_game_over(self) -> bool:
        return self._ending is not None or self.passes >= 2

    def outcome(self, dead: Iterable[Point] = ()) -> Outcome | None:
        """The result, or None while play goes on. A counted ending (two passes,
        agreement) is scored with the arbiter's ``dead`` stones (GO-6)."""
        if self._ending is not None and self._ending[0] in (
            Termination.RESIGNATION,
            Termination.TIME_FORFEIT,
        ):
            return Outcome(self._ending[0], self._ending[1])
        if self._ending is not None or self.passes >= 2:
            term = self._ending[0] if self._ending else Termination.TWO_PASSES
            score = self.score(dead)
            return Outcome(term, score.winner, score)
        return None

    # -- scoring (GO-6, GO-7) --------------------------------------------------

    def score(
        self, dead: Iterable[Point] = (), komi: Fraction | int | float | str | None = None
    ) -> Score:
        """Area count: dead stones off, then each side's stones plus the empty
        regions only it borders; regions bordering both (or neither) are neutral
        and split in half (GO-6). Komi in points, the board's by default (GO-7)."""
        k = self.komi if komi is None else parse_komi(komi)
        grid = bytearray(self._grid)
        for p in dead:
            i = self._index(p)
            if not grid[i]:
                raise GoError("%s is marked dead but holds no stone" % p.gtp())
            grid[i] = 0
        nb = self._geo.neighbours
        area = [0, 0, 0]
        dame = 0
        seen = bytearray(len(grid))
        for i, v in enumerate(grid):
            if v:
                area[v] += 1
                continue
            if seen[i]:
                continue
            region = [i]
            seen[i] = 1
            borders = 0
            k2 = 0
            while k2 < len(region):
                for j in nb[region[k2]]:
                    w = grid[j]
                    if w:
                        borders |= w
                    elif not seen[j]:
                        seen[j] = 1
                        region.append(j)
                k2 += 1
            if borders in (BLACK, WHITE):
                area[borders] += len(region)
            else:
                dame += len(region)
        half = Fraction(dame, 2)
        return Score(self.size, area[BLACK] + half, area[WHITE] + half, k, dame)

    # -- text ------------------------------------------------------------------

    def __str__(self) -> str:
        chars = ".XO"
        n = self.size
        return "\n".join(
            " ".join(chars[self._grid[r * n + c]] for c in range(n)) for r in range(n - 1, -1, -1)
        )

    def __repr__(self) -> str:
        return "<Board %dx%d, %s to move, %d moves>" % (
            self.size,
            self.size,
            self.turn.name.lower(),
            len(self.move_stack),
        )
