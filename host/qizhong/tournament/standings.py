# SPDX-License-Identifier: GPL-3.0-or-later
"""Standings after any round, with the tie-breaks each game's events use.

Every player's rounds are ``Result`` values coded as TRF-16 codes them (from
the player's side: ``1 = 0`` a game, ``+ -`` a forfeit, ``W D L`` under one
move, ``H F U Z`` byes); points are the game's own scale:

- chess and Go: 1 for a win, ½ for a draw (a Go jigo), 0 for a loss; a
  full-point or pairing-allocated bye 1, a half-point bye ½, a zero-point bye 0
  (TRF-16's bye codes);
- Xiangqi: 2, 1 and 0 (the CXA's 胜2分, 和1分, 负0分), byes as chess's doubled.

The tie-breaks, each by its rule's own name (docs/tournament.md cites them):

Chess, FIDE Tie-Break Regulations (Handbook C.07, 2023):
  BH  Buchholz: the opponents' points, summed. A round the player did not
      play (a bye, a forfeit either way, none at all) counts as a game against a dummy
      opponent with the player's own points (C.07 2023, unplayed rounds).
  BH-C1  Buchholz Cut-1: BH without its lowest contribution.
  BH-M1  Buchholz Median-1: without its highest and its lowest.
  SB  Sonneborn-Berger: each opponent's points times the points scored against
      them (the dummy opponent as in BH).
  DE  Direct encounter: the points scored in the games among the players still
      tied, when every one of them has met every other (else it separates none).
  WIN rounds won, with or without play (a forfeit win, a full-point or
      pairing-allocated bye); WON games won over the board; BPG games played
      with Black; BWG games won with Black; PS progressive score (the running
      total after each round, summed); ARO the opponents' average rating.
Go (the EGF's and the AGA's McMahon practice):
  SOS the opponents' scores summed (their McMahon scores where the event uses
      them); SOSOS the opponents' SOS summed; SODOS the scores of the opponents
      beaten (a jigo's opponent half). A round without a game adds nothing.
  MMS McMahon score: the player's starting McMahon score plus points; when
      any player has a starting score, the standings rank by it first.
Xiangqi, the CXA's rules for Swiss events (中国象棋协会《象棋竞赛规则》):
  OPP 对手分, the opponents' points summed; PROG 累进分, the running total after
      each of the player's rounds summed; WIN 胜局数, games won; BWG 后胜局数, games
      won as Black.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction

HALF = Fraction(1, 2)
SCORE: dict[str, int | Fraction] = {
    "1": 1,
    "+": 1,
    "W": 1,
    "F": 1,
    "U": 1,
    "=": HALF,
    "D": HALF,
    "H": HALF,
}
PLAYED = "1=0WDL"  # a game over the board (W D L: under one move, still a game)
WINS = "1+WFU"

DEFAULTS = {
    "chess": ("BH-C1", "BH", "SB", "DE", "WIN", "BPG"),
    "go": ("SOS", "SOSOS", "SODOS"),
    "xiangqi": ("OPP", "PROG", "WIN", "BWG"),
}
NAMES = {
    "BH": "Buchholz", "BH-C1": "Buchholz Cut-1", "BH-M1": "Buchholz Median-1",
    "SB": "Sonneborn-Berger", "DE": "Direct encounter", "WIN": "Rounds won",
    "WON": "Games won", "BPG": "Games with Black", "BWG": "Wins with Black",
    "PS": "Progressive score", "ARO": "Opponents' average rating",
    "SOS": "SOS", "SOSOS": "SOSOS", "SODOS": "SODOS",
    "OPP": "对手分 (opponents' points)", "PROG": "累进分 (cumulative score)",
}  # fmt: skip
RULES = {
    "BH": "FIDE C.07 (2023): Buchholz; an unplayed round: a dummy opponent with one's own points",
    "BH-C1": "FIDE C.07 (2023): Buchholz, Cut-1 modifier",
    "BH-M1": "FIDE C.07 (2023): Buchholz, Median-1 modifier",
    "SB": "FIDE C.07 (2023): Sonneborn-Berger",
    "DE": "FIDE C.07 (2023): Direct Encounter",
    "WIN": "FIDE C.07 (2023): Number of Wins (rounds won, played or not)",
    "WON": "FIDE C.07 (2023): Number of Games Won (over the board)",
    "BPG": "FIDE C.07 (2023): Number of Games played with Black",
    "BWG": "FIDE C.07 (2023): Number of Games Won with Black",
    "PS": "FIDE C.07 (2023): Progressive Scores",
    "ARO": "FIDE C.07 (2023): Average Rating of Opponents",
    "SOS": "EGF/AGA McMahon: sum of opponents' scores",
    "SOSOS": "EGF/AGA McMahon: sum of opponents' SOS",
    "SODOS": "EGF/AGA McMahon: sum of defeated opponents' scores",
    "OPP": "CXA 象棋竞赛规则, 积分编排制: 对手分",
    "PROG": "CXA 象棋竞赛规则, 积分编排制: 累进分",
}  # fmt: skip
RULES["WIN/xiangqi"] = "CXA 象棋竞赛规则, 积分编排制: 胜局数"
RULES["BWG/xiangqi"] = "CXA 象棋竞赛规则, 积分编排制: 后胜局数"


@dataclass(frozen=True)
class Result:
    """One player's round: the opponent (0: none), whether the player moved
    first (White, Red; Black in Go), and the TRF-16 code from the player's side
    ('' while the game goes on: no points yet)."""

    round: int
    opponent: int
    first: bool
    code: str


@dataclass
class Row:
    """A player's line in the standings."""

    no: int
    name: str
    rating: int = 0
    fed: str = ""
    points: Fraction = Fraction(0)
    games: int = 0  # games played over the board
    tb: dict[str, Fraction] = field(default_factory=dict)
    rank: int = 0


def scale(game: str) -> int:
    return 2 if game == "xiangqi" else 1


def points_of(code: str, game: str) -> Fraction:
    return Fraction(SCORE.get(code.upper(), 0)) * scale(game)


def standings(
    players: dict[int, tuple[str, int, str]],
    results: dict[int, list[Result]],
    game: str,
    tiebreaks: Iterable[str] | None = None,
    upto: int | None = None,
    mcmahon: dict[int, int] | None = None,
    rounds: Iterable[int] | None = None,
) -> list[Row]:
    """The standings of ``players`` (number to name, rating, federation or
    club) from ``results`` of rounds up to ``upto`` (default all): each ranked
    by points (McMahon score where ``mcmahon`` gives starting scores), then by
    ``tiebreaks`` in order (default: the game's, ``DEFAULTS``). ``rounds``: the
    rounds played; a player with nothing in one of them (absent, withdrawn) was
    not paired: a zero-point bye (TRF-16's blank, Z), an unplayed round."""
    order = tuple(tiebreaks if tiebreaks is not None else DEFAULTS.get(game, ()))
    for key in order:
        if key not in NAMES:
            raise ValueError("no tie-break %r (%s)" % (key, ", ".join(NAMES)))
    mms = mcmahon if mcmahon and any(mcmahon.values()) else None
    counted = sorted(n for n in (rounds or ()) if upto is None or n <= upto)
    res = {}
    for no in players:
        rs = [r for r in results.get(no, []) if upto is None or r.round <= upto]
        have = {r.round for r in rs}
        rs += [Result(n, 0, False, "Z") for n in counted if n not in have]
        res[no] = sorted(rs, key=lambda r: r.round)
    pts = {no: sum((points_of(r.code, game) for r in rs), Fraction(0)) for no, rs in res.items()}
    score = {no: pts[no] + (mms.get(no, 0) if mms else 0) for no in players}
    unit = scale(game)

    def got(r: Result) -> Fraction:
        return points_of(r.code, game) / unit  # 1, ½, 0 in every game

    def opp_score(no: int) -> Fraction:
        return score.get(no, Fraction(0))

    def contributions(no: int) -> list[Fraction]:  # Buchholz: per round, the dummy for unplayed
        return [opp_score(r.opponent) if _played(r) else pts[no] for r in res[no] if r.code]

    def sos(no: int) -> Fraction:
        return sum((opp_score(r.opponent) for r in res[no] if _played(r)), Fraction(0))

    rows = {}
    for no, (name, rating, fed) in players.items():
        rs = [r for r in res[no] if r.code]
        row = Row(no, name, rating, fed, score[no], sum(1 for r in rs if _played(r)))
        bh = contributions(no)
        for key in order:
            if key == "BH":
                v = sum(bh, Fraction(0))
            elif key == "BH-C1":
                v = sum(sorted(bh)[1:], Fraction(0))
            elif key == "BH-M1":
                v = sum(sorted(bh)[1:-1], Fraction(0))
            elif key == "SB":
                v = sum(((opp_score(r.opponent) if _played(r) else pts[no]) * got(r) for r in rs),
                        Fraction(0))  # fmt: skip
            elif key == "WIN":
                v = Fraction(sum(1 for r in rs if r.code.upper() in WINS))
            elif key == "WON":
                v = Fraction(sum(1 for r in rs if r.code.upper() in "1W"))
            elif key == "BPG":
                v = Fraction(sum(1 for r in rs if _played(r) and not r.first))
            elif key == "BWG":
                v = Fraction(sum(1 for r in rs if r.code.upper() in "1W" and not r.first))
            elif key in ("PS", "PROG"):
                run, v = Fraction(0), Fraction(0)
                for r in rs:
                    run += points_of(r.code, game)
                    v += run
            elif key == "ARO":
                rated = [
                    players[r.opponent][1]
                    for r in rs
                    if _played(r) and r.opponent in players and players[r.opponent][1]
                ]
                v = Fraction(round(sum(rated) / len(rated))) if rated else Fraction(0)
            elif key in ("SOS", "OPP"):
                v = sos(no)
            elif key == "SOSOS":
                v = sum((sos(r.opponent) for r in rs if _played(r) and r.opponent in players),
                        Fraction(0))  # fmt: skip
            elif key == "SODOS":
                v = sum((opp_score(r.opponent) * got(r) for r in rs if _played(r)), Fraction(0))
            else:  # DE: among the players still tied, in rank()
                v = Fraction(0)
            row.tb[key] = v
        rows[no] = row
    ranked = _rank(list(rows.values()), order, res, game)
    return ranked


def _played(r: Result) -> bool:
    return bool(r.opponent) and r.code.upper() in PLAYED


def _rank(
    rows: list[Row], order: tuple[str, ...], res: dict[int, list[Result]], game: str
) -> list[Row]:
    """Points first, then each tie-break in turn among the players still tied;
    players tied after all of them share a rank (listed by number)."""
    out: list[Row] = []

    def split(group: list[Row], keys: tuple[str, ...], first: int) -> None:
        if len(group) == 1 or not keys:
            for r in sorted(group, key=lambda r: r.no):
                r.rank = first
                out.append(r)
            return
        key, rest = keys[0], keys[1:]
        value: Callable[[Row], Fraction]
        if key == "DE":
            de = _direct(group, res, game)
            for r in group:
                r.tb["DE"] = de[r.no]
            value = lambda r: de[r.no]  # noqa: E731
        else:
            value = lambda r: r.tb[key]  # noqa: E731
        at = first
        for v in sorted({value(r) for r in group}, reverse=True):
            sub = [r for r in group if value(r) == v]
            split(sub, rest, at)
            at += len(sub)

    by_points: dict[Fraction, list[Row]] = {}
    for r in rows:
        by_points.setdefault(r.points, []).append(r)
    at = 1
    for p in sorted(by_points, reverse=True):
        split(by_points[p], order, at)
        at += len(by_points[p])
    return out


def _direct(group: list[Row], res: dict[int, list[Result]], game: str) -> dict[int, Fraction]:
    """DE: each one's points against the others of ``group``, if all have met."""
    nos = {r.no for r in group}
    met = {(no, r.opponent) for no in nos for r in res[no] if r.opponent in nos and r.code}
    if any((a, b) not in met for a in nos for b in nos if a != b):
        return {no: Fraction(0) for no in nos}
    return {
        no: sum((points_of(r.code, game) for r in res[no] if r.opponent in nos and r.code),
                Fraction(0))
        for no in nos
    }  # fmt: skip


def show(v: Fraction) -> str:
    """A points or tie-break value as printed: 6, 6.5, 2.25."""
    if v.denominator == 1:
        return str(v.numerator)
    return ("%.2f" % float(v)).rstrip("0").rstrip(".")
