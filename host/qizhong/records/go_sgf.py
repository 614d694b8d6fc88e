# SPDX-License-Identifier: GPL-3.0-or-later
"""Go game records as SGF FF[4], through sgfmill, with the clock's times.

    >>> from qizhong.rules import go
    >>> from qizhong.records import go_sgf
    >>> board = go.Board(9)
    >>> _ = board.push_gtp("E5")
    >>> rec = go_sgf.GoRecord(board, black="Li", white="Wang",
    ...                       times=[go_sgf.MoveTime(3597250)])
    >>> data = go_sgf.write(rec)
    >>> go_sgf.read(data).times
    [MoveTime(left_ms=3597250, overtime=None)]

Root properties written: ``GM[1] FF[4] CA[UTF-8] AP SZ KM RU[Chinese]`` and,
when known, ``PB PW DT TM OT RE``, the setup stones ``AB AW PL`` and any
other root property in ``GoRecord.properties``. Each move node carries
``B``/``W`` (a pass is empty) and the mover's clock after the move:
``BL``/``WL`` in seconds (written exactly from integer ms: ``12.345``) and, in
overtime, ``OB``/``OW`` (byo-yomi periods left, or Canadian moves left in the
block), as KGS writes them.

Every time control can be written. ``TM``/``OT`` say what they can, the
nearest standard form (``time_properties``); when that would not read back
as the same control (delay, Bronstein, stages, an hourglass, a handicap,
sub-second increments, the TC-5 count's grace, the ``record`` and ``flag``
settings), the exact spec goes in ``QZTC[...]``, our own root property, which
``read`` prefers. The TC-5 count (every move within P seconds after main
time, the period never used up) is written ``OT[1xP byo-yomi]``: one period
that restarts with every move, which is how other programs can read it.

``read`` takes any SGF Go game, KGS's included (``KM[6.50]``, ``tt`` passes,
``RE[W+Resign]``, ``OT[5x30 byo-yomi]``), replays it through the rules engine,
and raises ``SgfError`` with the move number for anything it cannot take.
Comments and variations are not kept; other root properties are, as raw SGF
text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from sgfmill import sgf  # type: ignore[import-untyped]

from qizhong.core import VERSION, tcformats, tcspec
from qizhong.core.timecontrol import FISCHER, UPCOUNT, TimeControl
from qizhong.rules import go

# Root properties this module reads and writes itself.
_OWN = frozenset("GM FF CA AP SZ KM RU PB PW DT TM OT RE AB AW AE PL QZTC".split())
# Our own root property: the exact time-control spec, when TM/OT cannot say it all.
SPEC_PROPERTY = "QZTC"


class SgfError(go.GoError):
    """An SGF file or record this module cannot take; nothing was changed."""


@dataclass(frozen=True)
class MoveTime:
    """The mover's clock just after a move: ``left_ms`` shown (main time, or
    the byo-yomi period, or the Canadian block) and, in overtime, ``overtime``:
    byo-yomi periods left or Canadian moves left in the block (SGF OB/OW)."""

    left_ms: int
    overtime: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.left_ms, int) or self.left_ms < 0:
            raise SgfError("time left must be whole ms, not negative: %r" % (self.left_ms,))
        if self.overtime is not None and (not isinstance(self.overtime, int) or self.overtime < 0):
            raise SgfError("overtime count must be a whole number: %r" % (self.overtime,))


def clock_reading(clock: Any, side: int) -> MoveTime:
    """``side``'s time on a core ``Clock`` between its moves (after its press)."""
    s = clock.sides[side]
    left = clock.tc.left_ms(s, 0)
    ot = clock.tc.overtime
    count = None
    if s.ot and ot is not None:
        if ot.kind == "byoyomi":
            count = s.periods
        elif ot.kind == "canadian":
            count = s.left
    return MoveTime(int(left), count)


def seconds(ms: int) -> str:
    """SGF Real seconds from integer ms, exact: 12345 -> ``12.345``, 60000 -> ``60``."""
    if not isinstance(ms, int) or ms < 0:
        raise SgfError("time must be whole ms, not negative: %r" % (ms,))
    whole, frac = divmod(ms, 1000)
    return str(whole) if not frac else ("%d.%03d" % (whole, frac)).rstrip("0")


def parse_seconds(text: str) -> int:
    """Integer ms from SGF Real seconds (``1781.379``); finer digits round to the ms."""
    try:
        d = Decimal(text.strip())
    except InvalidOperation:
        raise SgfError("%r is not a number of seconds" % (text,))
    if not d.is_finite() or d < 0:
        raise SgfError("%r is not a time" % (text,))
    return int((d * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))


@dataclass
class GoRecord:
    """A game: the board (its moves and setup) and what the record says about it.

    ``times`` has one entry per move of ``board.move_stack`` (or fewer), None
    where the clock's time is unknown. ``properties`` holds other root
    properties as raw SGF text (``EV``, ``PC``, ``BR``, ...).
    """

    board: go.Board
    black: str = ""
    white: str = ""
    date: str = ""
    time_control: TimeControl | None = None
    times: list[MoveTime | None] = field(default_factory=list)
    result: str = ""
    rules: str = "Chinese"
    properties: dict[str, str] = field(default_factory=dict)


def _raw(text: str) -> bytes:
    return text.replace("\\", "\\\\").replace("]", "\\]").encode("utf-8")


def write(record: GoRecord) -> bytes:
    """The record as SGF FF[4] bytes (UTF-8)."""
    board = record.board
    moves = board.move_stack
    if len(record.times) > len(moves):
        raise SgfError("%d times for %d moves" % (len(record.times), len(moves)))
    free = {"TM", "OT", SPEC_PROPERTY} if record.time_control is None else set()  # as read
    for ident in record.properties:
        if (ident in _OWN and ident not in free) or not ident.isalpha() or not ident.isupper():
            raise SgfError("property %r cannot be set through properties" % (ident,))
    game = sgf.Sgf_game(board.size)
    root = game.get_root()
    root.set_raw("AP", _raw("qizhong:%s" % VERSION))
    root.set_raw("KM", go._decimal(board.komi).encode())
    if record.rules:
        root.set_raw("RU", _raw(record.rules))
    for ident, value in (("PB", record.black), ("PW", record.white), ("DT", record.date)):
        if value:
            root.set_raw(ident, _raw(value))
    if record.time_control is not None:
        tm, ot = time_properties(record.time_control)
        if tm:  # an upcount (TC-13) has no time limit: no TM
            root.set_raw("TM", tm.encode())
        if ot:
            root.set_raw("OT", _raw(ot))
        if not _says_all(record.time_control, tm, ot):
            root.set_raw(SPEC_PROPERTY, _raw(tcspec.format(record.time_control)))
    if record.result:
        root.set_raw("RE", _raw(record.result))
    black, white = board.setup
    if black:
        root.set_raw_list("AB", [p.sgf(board.size).encode() for p in sorted(black)])
    if white:
        root.set_raw_list("AW", [p.sgf(board.size).encode() for p in sorted(white)])
    if (black or white) and board.first is go.WHITE:
        root.set_raw("PL", b"W")
    for ident, value in sorted(record.properties.items()):
        try:
            root.set_raw(ident, value.encode("utf-8"))
        except ValueError:
            raise SgfError("%s[%s] is not a valid raw SGF value" % (ident, value))
    color = board.first
    for k, move in enumerate(moves):
        node = game.extend_main_sequence()
        node.set_raw(color.letter, move.sgf(board.size).encode())
        t = record.times[k] if k < len(record.times) else None
        if t is not None:
            node.set_raw(color.letter + "L", seconds(t.left_ms).encode())
            if t.overtime is not None:
                node.set_raw("O" + color.letter, str(t.overtime).encode())
        color = color.other
    return bytes(game.serialise())


def time_properties(tc: TimeControl) -> tuple[str, str]:
    """The nearest standard SGF ``(TM, OT)`` for any control.

    TM is the first stage's base (for Red/Black alike: a TC-4 handicap is in
    the spec only); OT the overtime (the TC-5 count as one byo-yomi period),
    or else the increment in whole seconds (``fischer``); delays and the
    hourglass have no OT form.
    """
    if tc.timing == UPCOUNT:
        return "", ""
    st = tc.stages[0]
    tm = seconds(st.base)
    ot = tc.overtime
    if ot is not None:
        if ot.kind == "byoyomi":
            return tm, "%dx%s byo-yomi" % (ot.count, seconds(ot.period))
        if ot.kind == "canadian":
            return tm, "%d/%s Canadian" % (ot.moves, seconds(ot.period))
        if ot.kind == "upcount":  # no SGF form: the exact spec is in QZTC
            return tm, ""
        return tm, "1x%s byo-yomi" % seconds(ot.period)  # TC-5: a period that never runs out
    if tc.timing == FISCHER and st.inc:
        return tm, "%d fischer" % (st.inc // 1000)
    return tm, ""


def _says_all(tc: TimeControl, tm: str, ot: str) -> bool:
    try:
        back = _from_time_properties(tm, ot)
    except ValueError:
        return False
    return bool(tcspec.format(back) == tcspec.format(tc))


def _from_time_properties(tm: str, ot: str) -> TimeControl:
    """A control from SGF TM/OT: ``tcspec.from_sgf``, with fractional seconds."""
    words = ot.strip().split()
    if len(words) == 2 and words[1].lower().replace("-", "") == "byoyomi" and "x" in words[0]:
        n, _, period = words[0].partition("x")
        return tcspec.parse("%dms byoyomi %sx%dms" % (parse_seconds(tm or "0"), n.strip(),
                                                     parse_seconds(period)))  # fmt: skip
    if len(words) == 2 and words[1].lower() == "canadian" and "/" in words[0]:
        n, _, period = words[0].partition("/")
        return tcspec.parse("%dms canadian %s/%dms" % (parse_seconds(tm or "0"), n.strip(),
                                                      parse_seconds(period)))  # fmt: skip
    return tcformats.from_sgf(tm, ot)


def _text(node: Any, ident: str) -> str:
    if not node.has_property(ident):
        return ""
    try:
        return str(node.get(ident))
    except ValueError:
        raise SgfError("%s is not text" % ident)


def _apply_result(board: go.Board, result: str) -> None:
    """Resignation and time from ``RE`` (``B+R``, ``W+Resign``, ``B+T``) end the board too."""
    head, _, tail = result.strip().partition("+")
    if head not in ("B", "W") or board.is_game_over():
        return
    loser = go.WHITE if head == "B" else go.BLACK
    tail = tail.strip().lower()
    if tail in ("r", "resign"):
        board.resign(loser)
    elif tail in ("t", "time"):
        board.lose_on_time(loser)


def read(data: bytes) -> GoRecord:
    """A record from SGF bytes; the moves are replayed and checked (GO-1..GO-5)."""
    try:
        game = sgf.Sgf_game.from_bytes(data)
    except ValueError as e:
        raise SgfError("not an SGF game: %s" % e)
    root = game.get_root()
    if root.has_property("GM") and root.get_raw("GM").strip() != b"1":
        raise SgfError("not a Go game (GM[%s])" % root.get_raw("GM").decode("ascii", "replace"))
    size = game.get_size()
    komi: str | int = 0
    if root.has_property("KM"):
        komi = root.get_raw("KM").decode("ascii", "replace").strip() or "0"
    try:
        nodes = game.get_main_sequence()
    except ValueError as e:
        raise SgfError("bad SGF: %s" % e)
    first: go.Color | None = None
    for node in nodes:
        c, _ = node.get_raw_move()
        if c is not None:
            first = go.BLACK if c == "b" else go.WHITE
            break
    if root.has_property("PL"):
        pl = root.get_raw("PL").strip().upper()
        if pl not in (b"B", b"W"):
            raise SgfError("PL must be B or W")
        first = go.BLACK if pl == b"B" else go.WHITE
    try:
        ab, aw, _ = root.get_setup_stones()
    except ValueError as e:
        raise SgfError("bad setup stones: %s" % e)
    try:
        board = go.Board.from_setup(
            size,
            [go.Point(col, row) for row, col in ab],
            [go.Point(col, row) for row, col in aw],
            turn=first or go.BLACK,
            komi=komi,
        )
    except go.GoError as e:
        raise SgfError(str(e))
    rec = GoRecord(board, rules=_text(root, "RU"))
    rec.black, rec.white, rec.date = _text(root, "PB"), _text(root, "PW"), _text(root, "DT")
    rec.result = _text(root, "RE")
    tm = root.get_raw("TM").decode("ascii", "replace") if root.has_property("TM") else ""
    ot = _text(root, "OT")
    exact = _text(root, SPEC_PROPERTY)
    if exact:
        try:
            rec.time_control = tcspec.parse(exact)
        except ValueError:  # kept as text: nothing lost
            rec.properties[SPEC_PROPERTY] = exact
    if (tm or ot) and rec.time_control is None:
        try:
            rec.time_control = _from_time_properties(tm, ot)
        except (ValueError, SgfError):  # kept as text: nothing lost
            rec.properties["TM"] = tm
            if ot:
                rec.properties["OT"] = ot
    for ident in root.properties():
        if ident not in _OWN:
            rec.properties[ident] = root.get_raw(ident).decode(root.get_encoding(), "replace")
    for n, node in enumerate(nodes):
        if n and node.has_setup_stones():
            raise SgfError("node %d: setup stones after the start are not supported" % n)
        c, raw = node.get_raw_move()
        if c is None:
            continue
        color = go.BLACK if c == "b" else go.WHITE
        number = len(board.move_stack) + 1
        if color is not board.turn:
            raise SgfError(
                "move %d is %s but %s is to play" % (number, color.letter, board.turn.letter)
            )
        try:
            move = board.parse_sgf(raw.decode("ascii"))
            board.push(move)
        except (go.GoError, UnicodeDecodeError) as e:
            raise SgfError("move %d: %s" % (number, e))
        rec.times.append(_move_time(node, color, number))
    while rec.times and rec.times[-1] is None:
        rec.times.pop()
    _apply_result(board, rec.result)
    return rec


def _move_time(node: Any, color: go.Color, number: int) -> MoveTime | None:
    left, count = color.letter + "L", "O" + color.letter
    if not node.has_property(left):
        return None
    try:
        ms = parse_seconds(node.get_raw(left).decode("ascii"))
        over = None
        if node.has_property(count):
            over = int(node.get_raw(count).decode("ascii").strip())
        return MoveTime(ms, over)
    except (ValueError, UnicodeDecodeError) as e:
        raise SgfError("move %d: bad %s/%s: %s" % (number, left, count, e))
