# SPDX-License-Identifier: GPL-3.0-or-later
"""FIDE's Tournament Report File, TRF-16 (FIDE Handbook C.04 Annex 2, "Format
of TRF (Tournament Report File)", approved Elista 2015): what Swiss-Manager,
Vega, JaVaFo and bbpPairings read and write.

A player line (``001``), by column (1-based, as the text numbers them)::

     1-3  001          10  sex (m/w)         11-13  title       15-47  name
    49-52 FIDE rating  54-56 federation       58-68  FIDE number 70-79  birth date
    81-84 points       86-89 rank
    per round r (from 1): 92-95 + 10(r-1) the opponent's starting rank (0000 or
    four blanks: none), 97 + 10(r-1) the colour (w, b, - or blank), 99 + 10(r-1)
    the result: 1 = 0 (a game); + - (forfeit); W D L (under one move, unrated);
    H F U Z (half-point, full-point, pairing-allocated, zero-point bye); blank = Z.

Every other line (the tournament section ``012`` ... ``132``, a team's ``013``,
a pairing program's own ``XXR``...) is kept as it came: a file read in and
written back is the same text (tests/test_tournament.py, on a published one).
"""

from __future__ import annotations

from dataclasses import dataclass, field

PLAYER = "001"
ROUND0 = 89  # 0-based column where round 1's block (2 blanks, id, colour, result) starts
RESULTS = "10=+-WDLHFUZ "  # the result codes, and blank
COLOURS = "wb- "
MAX_PLAYERS = 9999
MAX_ROUNDS = 200


class TrfError(ValueError):
    """A line the layout refuses; the message names the line and the column."""


@dataclass
class Round:
    """One round of one player: the opponent's starting rank (0: none; None:
    four blanks), the colour and the result code as TRF-16 writes them."""

    opponent: int | None
    colour: str = "-"
    result: str = " "

    def block(self) -> str:
        if self.opponent is None:
            opp = "    "
        else:
            opp = "%4d" % self.opponent if self.opponent else "0000"
        return "  %s %s %s" % (opp, self.colour, self.result)


@dataclass
class Player:
    """A ``001`` line's fields."""

    no: int
    name: str
    sex: str = " "
    title: str = ""
    rating: int | None = None
    fed: str = ""
    fide_id: str = ""
    birth: str = ""
    points: str = ""  # as written ("6.0"): its text, for the file to come back the same
    rank: int | None = None
    rounds: list[Round] = field(default_factory=list)

    def line(self) -> str:
        head = "%s %4d %s%3s %-33s %4s %-3s %11s %-10s %4s %4s" % (
            PLAYER, self.no, self.sex or " ", self.title, self.name,
            "" if self.rating is None else self.rating, self.fed, self.fide_id,
            self.birth, self.points, "" if self.rank is None else self.rank,
        )  # fmt: skip
        return head + "".join(r.block() for r in self.rounds)


@dataclass
class Trf:
    """A whole file: its lines in order, each a player or a kept text line."""

    lines: list[Player | str] = field(default_factory=list)
    newline: str = "\n"
    final_newline: bool = True

    @property
    def players(self) -> list[Player]:
        return [x for x in self.lines if isinstance(x, Player)]

    def header(self, code: str) -> str:
        """The text of a tournament-section line (``012``: the name ...), or ''."""
        for x in self.lines:
            if isinstance(x, str) and x[:3] == code:
                return x[4:].strip()
        return ""

    def text(self) -> str:
        out = self.newline.join(x.line() if isinstance(x, Player) else x for x in self.lines)
        return out + (self.newline if self.final_newline and self.lines else "")


def _int(text: str, n: int, col: int, what: str) -> int | None:
    t = text.strip()
    if not t:
        return None
    if not t.isdigit():
        raise TrfError("line %d, column %d: %s is a number, not %r" % (n, col, what, t))
    return int(t)


def parse_player(line: str, n: int = 1) -> Player:
    """One ``001`` line (``n``: its line number, for the message)."""
    if len(line) < 8 or line[:3] != PLAYER:
        raise TrfError("line %d: not a player line (001)" % n)
    if len(line) > ROUND0 + 10 * MAX_ROUNDS:
        raise TrfError("line %d: longer than %d rounds" % (n, MAX_ROUNDS))
    no = _int(line[4:8], n, 5, "the starting rank")
    if not no or no > MAX_PLAYERS:
        raise TrfError("line %d, column 5: a starting rank from 1 to %d" % (n, MAX_PLAYERS))
    padded = line.ljust(ROUND0)
    p = Player(
        no=no,
        sex=padded[9],
        title=padded[10:13].strip(),
        name=padded[14:47].strip(),
        rating=_int(padded[48:52], n, 49, "the rating"),
        fed=padded[53:56].strip(),
        fide_id=padded[57:68].strip(),
        birth=padded[69:79].strip(),
        points=padded[80:84].strip(),
        rank=_int(padded[85:89], n, 86, "the rank"),
    )
    rest = line[ROUND0:]
    for r in range(0, len(rest), 10):
        block = rest[r : r + 10].ljust(10)
        col = ROUND0 + r + 1
        if block[:2] != "  " or block[6] != " " or block[8] != " ":
            why = "line %d, column %d: round %d's block is misplaced"
            raise TrfError(why % (n, col, r // 10 + 1))
        colour, result = block[7], block[9]
        if colour.lower() not in COLOURS or result.upper() not in RESULTS:
            raise TrfError("line %d, column %d: round %d: colour %r, result %r" % (
                n, col + 7, r // 10 + 1, colour, result))  # fmt: skip
        p.rounds.append(Round(_int(block[2:6], n, col + 2, "the opponent"), colour, result))
    return p


def parse(text: str) -> Trf:
    """A TRF file's text (CR, LF or CRLF line ends; kept for writing back)."""
    newline = "\r\n" if "\r\n" in text else "\r" if "\r" in text and "\n" not in text else "\n"
    body = text.replace("\r\n", "\n").replace("\r", "\n")
    final = body.endswith("\n")
    rows = body[:-1].split("\n") if final else body.split("\n")
    trf = Trf(newline=newline, final_newline=final)
    seen: set[int] = set()
    for n, row in enumerate(rows, 1):
        if row[:3] == PLAYER:
            p = parse_player(row, n)
            if p.no in seen:
                raise TrfError("line %d: starting rank %d twice" % (n, p.no))
            seen.add(p.no)
            trf.lines.append(p)
        else:
            trf.lines.append(row)
    if not seen:
        raise TrfError("no player lines (001)")
    for p in trf.players:
        for i, r in enumerate(p.rounds, 1):
            if r.opponent and r.opponent not in seen:
                raise TrfError("player %d, round %d: no player %d" % (p.no, i, r.opponent))
    return trf
