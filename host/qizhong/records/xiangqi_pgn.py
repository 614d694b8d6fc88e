# SPDX-License-Identifier: GPL-3.0-or-later
"""Xiangqi game records as PGN, in 记谱 notation, with clock times (XQ-R24).

    >>> from qizhong.rules import xiangqi
    >>> from qizhong.records import xiangqi_pgn
    >>> board = xiangqi.Board()
    >>> game = xiangqi_pgn.Game(headers={"Red": "吕钦", "Black": "许银川"})
    >>> game.add_move(board.parse_notation("炮二平五"), clock_ms=895_000)
    >>> print(xiangqi_pgn.write_game(game))  # doctest: +NORMALIZE_WHITESPACE
    [Game "Chinese Chess"]
    [Event "?"]
    [Site "?"]
    [Date "????.??.??"]
    [Round "?"]
    [Red "吕钦"]
    [Black "许银川"]
    [Result "*"]
    [Format "Chinese"]
    <BLANKLINE>
    1. 炮二平五 {[%clk 0:14:55]} *

Writing follows xqbase's PGN for Chinese chess: the seven tags of the PGN
standard with ``Red``/``Black`` for White/Black, ``[Game "Chinese Chess"]``
first, ``SetUp "1"`` and ``FEN`` when the game does not start from the initial
position (as the PGN standard's section 9.7 has them),
``Format`` naming the notation, and ``TimeControl`` in this project's syntax
(``qizhong.timecontrol``: the PGN standard's own value when it can say the
control, else the spec, e.g. ``20m count 10s``). A move's clock time (the mover's
time left after the move, in integer ms) is a ``{[%clk h:mm:ss]}`` comment, with
``.mmm`` added only when the time is not in whole seconds, so nothing is lost.

Reading takes what is found in the wild: UTF-8 (with or without a BOM), GBK
(read as GB18030) or Big5 files, simplified or traditional glyphs, full-width
digits, 记谱/WXF/ICCS movetext, several games in one file, comments, NAGs and
variations (skipped: only the main line is kept). Every move is checked against
the rules as it is read; a bad record raises ``PgnError`` naming the game and
the move.
"""

from __future__ import annotations

import codecs
import dataclasses
import re
import unicodedata
import warnings

from qizhong import timecontrol
from qizhong.rules.xiangqi import (
    NOTATION_GLYPHS,
    STARTING_FEN,
    STYLES,
    Board,
    Move,
    XiangqiError,
)

__all__ = ["RESULTS", "Game", "PgnError", "decode", "read_game", "read_games", "write_game"]

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
SEVEN_TAGS = ("Event", "Site", "Date", "Round", "Red", "Black", "Result")
_DEFAULTS = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?", "Result": "*"}
_FORMAT = {"chinese": "Chinese", "traditional": "Chinese", "xqbase": "Chinese", "wxf": "WXF",
           "iccs": "ICCS"}  # fmt: skip
_CLK_RE = re.compile(r"\[%clk\s+(?:(\d+):)?(\d{1,2}):(\d{1,2})(?:\.(\d{1,3}))?\s*\]")
_TAG_RE = re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]')
_NUMBER_RE = re.compile(r"^(\d+)\.+(?!\d)(.*)$")
# A tag whose value holds unescaped quotes, as real files have it: the value runs
# to the last '"]' on the line.
_LOOSE_TAG_RE = re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"(.*)"\s*\][ \t]*(?=\r?\n|$)')
_WRAP = 80


class PgnError(ValueError):
    """A record that cannot be read: the message names the game and the move."""


class PgnWarning(UserWarning):
    """Something in a record read past (a tag with unescaped quotes); also in
    ``Game.warnings``."""


@dataclasses.dataclass
class Game:
    """One game: tags, the main line, and per move the clock time and a comment.

    ``clocks[i]`` is the mover's time left after ``moves[i]`` in ms, or ``None``.
    """

    headers: dict[str, str] = dataclasses.field(default_factory=dict)
    moves: list[Move] = dataclasses.field(default_factory=list)
    clocks: list[int | None] = dataclasses.field(default_factory=list)
    comments: list[str] = dataclasses.field(default_factory=list)
    intro: str = ""
    warnings: list[str] = dataclasses.field(default_factory=list, compare=False)
    _end: Board | None = dataclasses.field(default=None, repr=False, compare=False)
    # Each move added by ``add_move`` as written in Chinese notation then, so
    # ``write_game`` need not replay the game through the rules engine.
    _written: list[tuple[Move, str]] = dataclasses.field(
        default_factory=list, repr=False, compare=False
    )

    @property
    def starting_fen(self) -> str:
        return self.headers.get("FEN") or STARTING_FEN

    def board(self) -> Board:
        """The starting position."""
        return Board(self.starting_fen)

    def end(self) -> Board:
        """The position after the last move (a fresh copy each call)."""
        if self._end is None or self._end.ply != len(self.moves):
            board = self.board()
            for move in self.moves:
                board.push(move)
            self._end = board
        return self._end.copy()

    def add_move(self, move: Move, clock_ms: int | None = None, comment: str = "") -> None:
        """Append a legal ``move``, with the mover's time left in ms if known."""
        _check_clock(clock_ms)
        board = self.end()
        text = board.notation(move)  # IllegalMoveError leaves the game as it was
        board.push(move)
        if len(self._written) == len(self.moves):
            self._written.append((move, text))
        self.moves.append(move)
        self.clocks.append(clock_ms)
        self.comments.append(comment)
        self._end = board

    @property
    def result(self) -> str:
        return self.headers.get("Result", "*")

    @property
    def time_control(self) -> timecontrol.TimeControl | None:
        """The ``TimeControl`` tag as a control (``None`` if absent or ``?``/``-``)."""
        text = self.headers.get("TimeControl", "").strip()
        if text in ("", "?", "-"):
            return None
        return timecontrol.parse_tag(text)

    def set_time_control(self, tc: timecontrol.TimeControl | str) -> None:
        """Set ``TimeControl``: PGN's own value if it says all of ``tc``, else the spec."""
        control = timecontrol.parse(tc) if isinstance(tc, str) else tc
        spec = timecontrol.spec_of(control)
        try:
            value = timecontrol.to_pgn(control)
            if timecontrol.spec_of(timecontrol.parse_tag(value)) != spec:
                value = spec
        except ValueError:
            value = spec
        self.headers["TimeControl"] = value

    @classmethod
    def from_board(cls, board: Board, clocks: list[int | None] | None = None,
                   **headers: str) -> Game:  # fmt: skip
        """The record of ``board``'s moves; ``Result`` from its outcome if not given."""
        moves = board.move_stack
        clocks = list(clocks) if clocks is not None else [None] * len(moves)
        if len(clocks) != len(moves):
            raise PgnError("%d clock times for %d moves" % (len(clocks), len(moves)))
        for c in clocks:
            _check_clock(c)
        hdr = dict(headers)
        if board.starting_fen != STARTING_FEN:
            hdr.setdefault("FEN", board.starting_fen)
        if "Result" not in hdr:
            out = board.outcome()
            hdr["Result"] = out.result() if out else "*"
        game = cls(hdr, moves, clocks, [""] * len(moves))
        game._end = board.copy()
        return game

    def __str__(self) -> str:
        return write_game(self)


def _check_clock(ms: int | None) -> None:
    if ms is not None and (not isinstance(ms, int) or isinstance(ms, bool) or ms < 0):
        raise PgnError("a clock time is a whole number of ms, 0 or more: %r" % (ms,))


def format_clock(ms: int) -> str:
    """``h:mm:ss`` (``.mmm`` only when not whole seconds): 895000 -> ``0:14:55``."""
    _check_clock(ms)
    s, frac = divmod(ms, 1000)
    text = "%d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60)
    return text + (".%03d" % frac if frac else "")


def parse_clock(text: str) -> int:
    """``[%clk 0:14:55]`` (or ``0:14:55.250``) to ms."""
    m = _CLK_RE.search(text)
    if not m:
        raise PgnError("no [%%clk h:mm:ss] in %r" % text)
    h, mm, ss, frac = m.groups()
    ms = ((int(h or 0) * 60 + int(mm)) * 60 + int(ss)) * 1000
    return ms + (int(frac.ljust(3, "0")) if frac else 0)


def _quote(value: str) -> str:
    """A tag's value: quotes and backslashes escaped, and every control
    character (a newline would end the tag) a space."""
    value = "".join(" " if ord(c) < 32 or ord(c) == 127 else c for c in value)
    return '"%s"' % value.replace("\\", "\\\\").replace('"', '\\"')


def write_game(game: Game, style: str = "chinese") -> str:
    """The game as PGN text, its moves written in ``style`` (see ``Board.notation``)."""
    if style not in STYLES:
        raise PgnError("style is one of %s, not %r" % (", ".join(STYLES), style))
    headers = dict(game.headers)
    result = headers.get("Result", "*")
    if result not in RESULTS:
        raise PgnError("Result is one of %s, not %r" % (", ".join(RESULTS), result))
    lines = ['[Game "Chinese Chess"]']
    for tag in SEVEN_TAGS:
        lines.append("[%s %s]" % (tag, _quote(headers.get(tag, _DEFAULTS.get(tag, "?")))))
    start = not game.moves and "FEN" not in headers  # no board to build (pyffish: ms each)
    written = [] if start else _written(game, style)
    board = game.board() if written is None else None
    if start:
        fen = STARTING_FEN
    else:
        fen = board.fen() if board is not None else game._end.starting_fen  # type: ignore[union-attr]
    if "TimeControl" in headers:
        lines.append("[TimeControl %s]" % _quote(headers["TimeControl"]))
    if fen != STARTING_FEN or "FEN" in headers:  # PGN's setup: SetUp "1", then the FEN
        lines.append('[SetUp "1"]')
        lines.append("[FEN %s]" % _quote(fen))
    lines.append("[Format %s]" % _quote(_FORMAT[style]))
    skip = {"Game", "TimeControl", "SetUp", "FEN", "Format", *SEVEN_TAGS}
    for tag, value in headers.items():
        if tag not in skip:
            if not re.fullmatch(r"[A-Za-z0-9_]+", tag):
                raise PgnError("a tag name is letters, digits and _: %r" % tag)
            lines.append("[%s %s]" % (tag, _quote(value)))
    tokens: list[str] = []
    if game.intro:
        tokens.append(_comment(game.intro))
    after_comment = False
    fields = fen.split()
    red, fullmove = fields[1] in "wr", int(fields[5])
    for i, move in enumerate(game.moves):
        number = ""
        if red:
            number = "%d. " % fullmove
        elif i == 0 or after_comment:
            number = "%d... " % fullmove
        if board is None:
            assert written is not None
            tokens.append(number + written[i])
        else:
            tokens.append(number + board.notation(move, style))
            board.push(move)
        fullmove += not red
        red = not red
        parts = []
        text = game.comments[i] if i < len(game.comments) else ""
        if text:
            parts.append(text)
        clock = game.clocks[i] if i < len(game.clocks) else None
        if clock is not None:
            parts.append("[%%clk %s]" % format_clock(clock))
        after_comment = bool(parts)
        if parts:
            tokens.append(_comment(" ".join(parts)))
    tokens.append(result)
    out, line = [], ""
    for tok in tokens:
        if line and _width(line) + 1 + _width(tok) > _WRAP:
            out.append(line)
            line = tok
        else:
            line = line + " " + tok if line else tok
    out.append(line)
    return "\n".join(lines) + "\n\n" + "\n".join(out) + "\n"


def _written(game: Game, style: str) -> list[str] | None:
    """The moves as ``add_move`` wrote them, if that is all of them in ``style``."""
    if style != "chinese" or game._end is None or game._end.ply != len(game.moves):
        return None
    if len(game._written) != len(game.moves):
        return None
    if any(w[0] != m for w, m in zip(game._written, game.moves, strict=True)):
        return None
    return [w[1] for w in game._written]


def _width(text: str) -> int:
    """Columns on a terminal: CJK glyphs take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _comment(text: str) -> str:
    return "{%s}" % text.replace("}", ")")


# Reading --------------------------------------------------------------------

_VOCAB = NOTATION_GLYPHS | frozenset("红紅黑胜勝负負和先局赛賽")


def decode(data: bytes) -> str:
    """Text of a PGN file: UTF-8 (BOM or not), else GBK (as GB18030) or Big5.

    GBK and Big5 overlap byte for byte, so when both decode, the one that reads
    as more Xiangqi (piece, numeral and direction glyphs) wins.
    """
    if data.startswith(codecs.BOM_UTF8):
        return data[len(codecs.BOM_UTF8) :].decode("utf-8", errors="strict")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    best: tuple[int, str] | None = None
    for enc in ("gb18030", "big5hkscs"):
        try:
            text = data.decode(enc)
        except UnicodeDecodeError:
            continue
        score = sum(1 for ch in text if ch in _VOCAB)
        if best is None or score > best[0]:
            best = (score, text)
    if best is None:
        raise PgnError("cannot read the file: not UTF-8, GBK or Big5 text")
    return best[1]


def read_games(data: str | bytes, encoding: str | None = None) -> list[Game]:
    """Every game in a PGN file (bytes are decoded with ``decode`` unless told)."""
    text = _text(data, encoding)
    return [_build(i + 1, tags, toks) for i, (tags, toks) in enumerate(_split(text))]


def read_game(data: str | bytes, encoding: str | None = None) -> Game:
    """The first game in a PGN file."""
    text = _text(data, encoding)
    games = _split(text)
    if not games:
        raise PgnError("no game in the text")
    tags, toks = games[0]
    return _build(1, tags, toks)


def _text(data: str | bytes, encoding: str | None) -> str:
    if isinstance(data, bytes):
        if encoding:
            try:
                return data.decode(encoding)
            except (UnicodeDecodeError, LookupError) as e:
                raise PgnError("cannot decode as %s: %s" % (encoding, e)) from None
        return decode(data)
    if not isinstance(data, str):
        raise PgnError("PGN is text or bytes, not %s" % type(data).__name__)
    return data.lstrip("\ufeff")


_Token = tuple[str, str]  # (kind, text): tag, comment, open, close, word


def _split(text: str) -> list[tuple[list[tuple[str, str]], list[_Token]]]:
    """Games as (tags, movetext tokens); a tag after movetext starts a new game."""
    games: list[tuple[list[tuple[str, str]], list[_Token]]] = []
    tags: list[tuple[str, str]] = []
    toks: list[_Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch == "[":
            m = _TAG_RE.match(text, i)
            loose = None
            if not m or not _tag_line_ends(text, m.end()):
                loose = _LOOSE_TAG_RE.match(text, i)
                if loose is None and m is None:
                    line = text.count("\n", 0, i) + 1
                    raise PgnError('line %d: a tag is [Name "value"]' % line)
            if toks:
                games.append((tags, toks))
                tags, toks = [], []
            if loose is not None:
                line = text.count("\n", 0, i) + 1
                name, value = loose.group(1), loose.group(2)
                note = "line %d: the %s tag's value holds unescaped quotes" % (line, name)
                note += ": read to the closing '\"]'"
                warnings.warn(note, PgnWarning, stacklevel=4)
                tags.append(("\x00warning", note))
                tags.append((name, value))
                i = loose.end()
                continue
            assert m is not None
            value = re.sub(r"\\(.)", r"\1", m.group(2))
            tags.append((m.group(1), value))
            i = m.end()
        elif ch == "{":
            j = text.find("}", i)
            if j < 0:
                raise PgnError("line %d: a comment is not closed" % (text.count("\n", 0, i) + 1))
            toks.append(("comment", text[i + 1 : j]))
            i = j + 1
        elif ch == ";":
            j = text.find("\n", i)
            j = n if j < 0 else j
            toks.append(("comment", text[i + 1 : j]))
            i = j
        elif ch == "%" and (i == 0 or text[i - 1] == "\n"):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif ch in "()":
            toks.append(("open" if ch == "(" else "close", ch))
            i += 1
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in "{}();[":
                j += 1
            toks.append(("word", text[i:j]))
            i = j
    if tags or toks:
        games.append((tags, toks))
    return games


def _tag_line_ends(text: str, j: int) -> bool:
    """Whether only blanks, or another tag, follow a tag on its line."""
    while j < len(text) and text[j] in " \t":
        j += 1
    return j >= len(text) or text[j] in "\r\n["


def _build(index: int, tags: list[tuple[str, str]], toks: list[_Token]) -> Game:
    notes = [v for k, v in tags if k == "\x00warning"]
    game = Game(headers={k: v for k, v in tags if k != "\x00warning"}, warnings=notes)
    try:
        board = game.board()
    except XiangqiError as e:
        raise PgnError("game %d: bad FEN tag: %s" % (index, e)) from None
    depth = 0
    result = None
    for kind, text in toks:
        if kind == "open":
            depth += 1
            continue
        if kind == "close":
            depth = max(0, depth - 1)
            continue
        if depth:
            continue
        if kind == "comment":
            _attach(game, text)
            continue
        for word in _words(text):
            if word in RESULTS:
                result = word
                continue
            try:
                move = board.parse_notation(word)
                board.push(move)
            except XiangqiError as e:
                raise PgnError("game %d, move %d (%s): %s"
                               % (index, len(game.moves) + 1, word, e)) from None  # fmt: skip
            game.moves.append(move)
            game.clocks.append(None)
            game.comments.append("")
    if "Result" not in game.headers:
        game.headers["Result"] = result or "*"
    game._end = board
    return game


def _words(text: str) -> list[str]:
    """Move words of one whitespace-free chunk: numbers, dots and NAGs dropped."""
    w = unicodedata.normalize("NFKC", text).replace("1\u20442", "1/2")  # ½ becomes 1⁄2
    out = []
    while w:
        if w.startswith("$") or set(w) <= set(".…"):
            break
        if w in RESULTS:
            out.append(w)
            break
        m = _NUMBER_RE.match(w)
        if m:
            w = m.group(2).lstrip(".…")
            continue
        out.append(w)
        break
    return out


def _attach(game: Game, text: str) -> None:
    m = _CLK_RE.search(text)
    rest = _CLK_RE.sub("", text).strip()
    if not game.moves:
        game.intro = (game.intro + "\n" + rest).strip() if rest else game.intro
        return
    if m:
        game.clocks[-1] = parse_clock(m.group(0))
    if rest:
        prev = game.comments[-1]
        game.comments[-1] = (prev + " " + rest).strip() if prev else rest
