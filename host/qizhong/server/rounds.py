# SPDX-License-Identifier: GPL-3.0-or-later
"""A tournament's rounds: pairings from a CSV, a whole round set up and
started in one action, live results, and every game's record kept.

A tournament (name, site, dates) has rounds; a round is a list of
pairings, one per board: the players (``first`` moves first: Red in
Xiangqi, Black in Go, White in chess), the game and the control. The
pairings come from a CSV file with a header, or from lines pasted from a
spreadsheet (tab-separated, header optional), in this order::

    board,first,second,game,control
    1,吕钦,许银川,xiangqi,xq-rapid
    2,Li,Wang,go,15m byoyomi 3x30s

``game`` and ``control`` may be left empty: the board's own. Every row is
checked before anything is kept; a bad one is refused with its line.

Setting a round up gives each board its players and game, and loads the
control on its clock (a new game, EQ-6's override: the arbiter's call);
the board's game then is the round's (its game number is kept with the
pairing, so the record of every round stays downloadable after the next).
Starting a round sets up any board not yet set up and starts every clock.
A board whose game is still going (running, paused, knocked) is refused
unless ``force`` is given. Everything is kept in the server's SQLite file.
"""

from __future__ import annotations

import asyncio
import csv
import dataclasses
import datetime
import io
import re
import unicodedata
import zipfile
from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any

from aiohttp import web

from qizhong import timecontrol
from qizhong.server import actions, validate
from qizhong.server.feed import RESULTS, Game, Info, go_result

SCHEMA = """
CREATE TABLE IF NOT EXISTS tournament (
  id INTEGER PRIMARY KEY CHECK (id = 1), name TEXT NOT NULL, site TEXT NOT NULL,
  start TEXT NOT NULL, end TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rounds (
  no INTEGER PRIMARY KEY, date TEXT NOT NULL, host_ms INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS pairings (
  round INTEGER NOT NULL, board INTEGER NOT NULL, first TEXT NOT NULL, second TEXT NOT NULL,
  game TEXT NOT NULL, spec TEXT NOT NULL, game_no INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (round, board));
CREATE TABLE IF NOT EXISTS players (
  no INTEGER PRIMARY KEY, name TEXT NOT NULL, rating INTEGER NOT NULL DEFAULT 0,
  fed TEXT NOT NULL DEFAULT '', ident TEXT NOT NULL DEFAULT '', sex TEXT NOT NULL DEFAULT '',
  title TEXT NOT NULL DEFAULT '', birth TEXT NOT NULL DEFAULT '', game TEXT NOT NULL DEFAULT '',
  mms0 INTEGER NOT NULL DEFAULT 0, withdrawn INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS byes (
  round INTEGER NOT NULL, player INTEGER NOT NULL, kind TEXT NOT NULL, game TEXT NOT NULL,
  PRIMARY KEY (round, player));
"""
# Columns a pairing gained after the first stores were made (added to an older file on open).
LATER = (("first_no", "INTEGER NOT NULL DEFAULT 0"), ("second_no", "INTEGER NOT NULL DEFAULT 0"),
         ("size", "INTEGER NOT NULL DEFAULT 0"), ("komi", "TEXT NOT NULL DEFAULT ''"),
         ("handicap", "INTEGER NOT NULL DEFAULT 0"), ("forfeit", "TEXT NOT NULL DEFAULT ''"),
         ("late", "TEXT NOT NULL DEFAULT ''"), ("result", "TEXT NOT NULL DEFAULT ''"))  # fmt: skip
COLUMNS = ("board, first, second, game, spec, game_no, first_no, second_no, size, komi,"
           " handicap, forfeit, late, result")  # fmt: skip

HEADER = ("board", "first", "second", "game", "control", "size", "komi", "handicap")
BYES = {"full": "F", "half": "H", "zero": "Z", "pab": "U"}  # TRF-16's codes
HAND = ("1-0", "0-1", "1/2-1/2", "0-0")  # results entered by hand (0-0: both lose)
GAMES = ("xiangqi", "go", "chess")
MAX_ROWS = 1000
MAX_NAME = 100
IN_GAME = ("running", "paused", "knocked")
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
SCORE_RE = re.compile(r"^(?:[BW]\+(?:\d{1,3}(?:\.5)?|R|T|F)|0|Void)$")


class RoundError(ValueError):
    """Pairings or a request that cannot be taken; the message says why (and where)."""


@dataclass(frozen=True)
class Pairing:
    board: int
    first: str
    second: str
    game: str = ""
    spec: str = ""
    game_no: int = 0  # the board's game number for this round, once set up
    first_no: int = 0  # the players' numbers in the player list
    second_no: int = 0
    size: int = 0  # Go: the board's size (0: 19), komi ('': 7.5), handicap stones
    komi: str = ""
    handicap: int = 0
    forfeit: str = ""  # '', 'first', 'second' or 'both': who did not come (FIDE 6.7)
    late: str = ""  # a late arrival within the default time: 'first 12' (side, minutes)
    result: str = ""  # a result entered by hand (HAND), over the game's own


@dataclass(frozen=True)
class Bye:
    """A player without a game in a round: ``kind`` full, half, zero (TRF-16's
    F, H, Z) or pab (U, the pairing-allocated bye)."""

    player: int
    kind: str
    game: str = ""


def clean_text(value: str, what: str, limit: int = MAX_NAME) -> str:
    """A name or title: trimmed, NFC, no control characters, at most ``limit`` characters."""
    text = unicodedata.normalize("NFC", value).strip()
    if len(text) > limit:
        raise RoundError("%s: at most %d characters" % (what, limit))
    if validate.unprintable(text):
        raise RoundError("%s: no control characters" % what)
    return text


def csv_rows(text: str, delimiter: str) -> list[list[str]]:
    """CSV text's rows; a file the reader cannot take (a cell past its
    131,072 characters: an unclosed quote) is a ``RoundError`` naming the line."""
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    try:
        return list(reader)
    except csv.Error as e:
        raise RoundError("line %d: %s (an unclosed quote?)" % (reader.line_num, e)) from None


def check_date(value: str, what: str = "date") -> str:
    """``YYYY-MM-DD``, a real day (or empty: unknown)."""
    value = value.strip()
    if value:
        try:
            if not DATE_RE.match(value):
                raise ValueError
            datetime.date.fromisoformat(value)
        except ValueError:
            raise RoundError("%s: YYYY-MM-DD, not %r" % (what, value[:20])) from None
    return value


def parse_pairings(text: str, boards: dict[int, tuple[str, str]]) -> list[Pairing]:
    """Pairings from CSV text (with the header) or pasted tab-separated lines.

    ``boards``: the hall's boards, number to (game, control), for the
    defaults and to refuse a board the hall does not have."""
    return parse_round(text, boards)[0]


def parse_round(
    text: str, boards: dict[int, tuple[str, str]]
) -> tuple[list[Pairing], list[tuple[str, str]]]:
    """A round's CSV: its pairings, and its byes as (name, kind): a line whose
    board is ``bye`` gives ``first`` a bye of kind ``second`` (full, half,
    zero; empty: full)."""
    byes: list[tuple[str, str]] = []
    lines = [ln for ln in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    if not any(ln.strip() for ln in lines):
        raise RoundError("no pairings")
    delimiter = "\t" if "\t" in text else ","
    rows = csv_rows("\n".join(lines), delimiter)
    out: list[Pairing] = []
    errors: list[str] = []
    seen: set[int] = set()
    placed: dict[str, int] = {}  # a player's name (case folded): the line that placed them
    for n, row in enumerate(rows, start=1):
        cells = [c.strip() for c in row]
        if not any(cells):
            continue
        if n == 1 and cells[0].lstrip("\ufeff").lower() == "board":
            names = [c.lstrip("\ufeff").lower() for c in cells]
            if tuple(names[: len(HEADER)]) != HEADER[: len(names)] or len(names) < 3:
                raise RoundError("line 1: the header is %s" % ",".join(HEADER))
            continue
        if len(out) >= MAX_ROWS:
            raise RoundError("at most %d pairings" % MAX_ROWS)
        cells += [""] * (len(HEADER) - len(cells))
        if len(cells) > len(HEADER) and any(cells[len(HEADER) :]):
            errors.append("line %d: more than %d columns" % (n, len(HEADER)))
            continue
        try:
            if cells[0].lower() == "bye":
                name = clean_text(cells[1], "first")
                kind = cells[2].lower() or "full"
                if not name or kind not in BYES or kind == "pab":
                    raise RoundError("bye,NAME,full|half|zero")
                _place(placed, name, n)
                byes.append((name, kind))
            else:
                p = _pairing(cells, boards, seen)
                if p.first.casefold() == p.second.casefold():
                    raise RoundError("%s cannot play themself" % p.first)
                for name in (p.first, p.second):
                    _place(placed, name, n)
                out.append(p)
        except RoundError as e:
            errors.append("line %d: %s" % (n, e))
    if errors:
        raise RoundError("; ".join(errors[:20]))
    if not out and not byes:
        raise RoundError("no pairings")
    return out, byes


def _place(placed: dict[str, int], name: str, line: int) -> None:
    """One player in one place a round (#34 item 9: one name on two boards was taken)."""
    at = placed.setdefault(name.casefold(), line)
    if at != line:
        raise RoundError("%s is on line %d too: one board or bye a round" % (name, at))


def _pairing(cells: list[str], boards: dict[int, tuple[str, str]], seen: set[int]) -> Pairing:
    board_s, first, second, game, spec, size_s, komi, handicap_s = cells[: len(HEADER)]
    if not board_s.isdigit() or len(board_s) > 6:
        raise RoundError("board: a board number, not %r" % board_s[:20])
    board = int(board_s)
    if board not in boards:
        raise RoundError("no board %d in this hall" % board)
    if board in seen:
        raise RoundError("board %d is paired twice" % board)
    first = clean_text(first, "first")
    second = clean_text(second, "second")
    if not first or not second:
        raise RoundError("both players' names are needed")
    game = game.lower() or boards[board][0]
    if game not in GAMES:
        raise RoundError("game: xiangqi, go or chess, not %r" % game[:20])
    spec = spec or boards[board][1]
    if spec:
        if len(spec) > 200:
            raise RoundError("control: too long")
        try:
            timecontrol.parse(spec)
        except ValueError as e:
            raise RoundError("control %r: %s" % (spec[:40], e)) from None
    size, handicap = 0, 0
    if size_s or komi or handicap_s:
        if game != "go":
            raise RoundError("size, komi and handicap are Go's")
        if size_s and size_s not in ("9", "13", "19"):
            raise RoundError("size: 9, 13 or 19, not %r" % size_s[:10])
        size = int(size_s or 0)
        if handicap_s and (not handicap_s.isdigit() or not 0 <= int(handicap_s) <= 9):
            raise RoundError("handicap: 0 to 9 stones, not %r" % handicap_s[:10])
        handicap = int(handicap_s or 0)
        if handicap and size == 9 and handicap > 5:
            raise RoundError("handicap: at most 5 stones on 9x9")
        if komi:
            try:
                k = Fraction(komi)
            except (ValueError, ZeroDivisionError):
                raise RoundError("komi: a number such as 6.5, not %r" % komi[:10]) from None
            if k.denominator not in (1, 2) or abs(k) > 100:
                raise RoundError("komi: whole or half points, at most 100")
    seen.add(board)
    return Pairing(board, first, second, game, spec, size=size, komi=komi, handicap=handicap)


def parse_result(text: str) -> str:
    """A Go score as SGF writes it: ``B+3.5``, ``W+R``, ``0`` (jigo)..."""
    text = text.strip()
    if not SCORE_RE.match(text):
        raise RoundError("score: B+3.5, W+R, B+T, 0 or Void, not %r" % text[:20])
    return text


# A result from the first player's side: each side's points, and TRF-16's codes.
OUTCOMES = {
    "1-0": (("1", "0"), ("1", "0")), "0-1": (("0", "1"), ("0", "1")),
    "1/2-1/2": (("1/2", "1/2"), ("=", "=")), "0-0": (("0", "0"), ("0", "0")),
    "+-": (("1", "0"), ("+", "-")), "-+": (("0", "1"), ("-", "+")), "--": (("0", "0"), ("-", "-")),
}  # fmt: skip
FORFEITS = {"first": "-+", "second": "+-", "both": "--"}


def points(result: str) -> tuple[str, str]:
    """Each side's points from a PGN-style result (first, second); a forfeit's
    ``+-`` (the second did not come), ``-+`` or ``--``."""
    return OUTCOMES.get(result, (("", ""), ("", "")))[0]


def codes(result: str) -> tuple[str, str]:
    """Each side's TRF-16 result code ('' while the game goes on)."""
    return OUTCOMES.get(result, (("", ""), ("", "")))[1]


def score_result(score: str) -> str:
    """A Go score as a result from the first (Black's) side."""
    if score.startswith("B+"):
        return "1-0"
    if score.startswith("W+"):
        return "0-1"
    if score == "0":
        return "1/2-1/2"
    return ""


class Rounds:
    """The tournament and its rounds, in the hall's store (see the module's text)."""

    def __init__(self, hall: Any) -> None:
        self.hall = hall
        self.store = hall.store
        with self.store._lock:
            self.store._db.executescript(SCHEMA)
            have = {str(r[1]) for r in self.store._db.execute("PRAGMA table_info(pairings)")}
            for name, kind in LATER:  # an older file: its pairings gain the new columns
                if name not in have:
                    self.store._db.execute("ALTER TABLE pairings ADD COLUMN %s %s" % (name, kind))
        self._games: dict[tuple[int, int], tuple[int, Pairing]] = {}
        self._reload()
        hall.feed.info = self.info

    # -- the store --------------------------------------------------------------------------

    def _reload(self) -> None:
        games = {}
        for r in self.store._read("SELECT round, %s FROM pairings" % COLUMNS):
            p = Pairing(*r[1:])  # type: ignore[arg-type]
            if p.game_no:
                games[(p.board, p.game_no)] = (int(r[0]), p)  # type: ignore[call-overload]
        self._games = games
        rows = self.store._read("SELECT name, site, start, end FROM tournament")
        t = rows[0] if rows else ("", "", "", "")
        self._tournament = dict(zip(("name", "site", "start", "end"), map(str, t), strict=True))
        rows = self.store._read("SELECT no, date FROM rounds")
        self._dates = {int(str(n)): str(d) for n, d in rows}
        self.hall.feed.changed()

    def tournament(self) -> dict[str, str]:
        return dict(self._tournament)

    def set_tournament(self, body: dict[str, Any]) -> dict[str, str]:
        t = self.tournament()
        for key in ("name", "site"):
            if key in body:
                t[key] = clean_text(str(body[key]), key, 200)
        for key in ("start", "end"):
            if key in body:
                t[key] = check_date(str(body[key]), key)
        self.store._write(
            "INSERT OR REPLACE INTO tournament (id, name, site, start, end) VALUES (1,?,?,?,?)",
            (t["name"], t["site"], t["start"], t["end"]),
        )
        self._reload()
        return t

    def numbers(self) -> list[int]:
        return sorted(self._dates)

    def date(self, no: int) -> str:
        if no not in self._dates:
            raise KeyError("no round %d" % no)
        return self._dates[no]

    def pairings(self, no: int) -> list[Pairing]:
        self.date(no)
        rows = self.store._read(
            "SELECT %s FROM pairings WHERE round=? ORDER BY board" % COLUMNS, (no,)
        )
        return [Pairing(*r) for r in rows]  # type: ignore[arg-type]

    def byes(self, no: int) -> list[Bye]:
        rows = self.store._read(
            "SELECT player, kind, game FROM byes WHERE round=? ORDER BY player", (no,)
        )
        return [Bye(int(str(a)), str(b), str(c)) for a, b, c in rows]

    def add(self, text: str, no: int | None = None, date: str = "") -> int:
        """Keep a round's pairings from a CSV (round ``no``, default the next);
        a round with a board set up already cannot be replaced."""
        boards = {n: (s.board.game, s.board.spec) for n, s in self.hall.states.items()}
        pairs, byes = parse_round(text, boards)
        return self.keep(pairs, [(name, kind, "") for name, kind in byes], no, date)

    def keep(
        self,
        pairs: list[Pairing],
        byes: list[tuple[str | int, str, str]],
        no: int | None = None,
        date: str = "",
        source: str = "csv",
    ) -> int:
        """Keep round ``no``'s pairings and byes ((player's name or number, kind,
        game) each): every player found in the player list by number or name,
        or added to it; a withdrawn player is refused, and so is one paired twice."""
        date = check_date(date)
        if no is None:
            no = max(self.numbers(), default=0) + 1
        if not 0 < no < 1000:
            raise RoundError("round: 1 to 999")
        if no in self.numbers() and any(p.game_no for p in self.pairings(no)):
            raise RoundError("round %d is set up already: its pairings stay" % no)
        from qizhong.server.store import host_ms

        known = {p["no"]: p for p in self.players()}
        by_name = {str(p["name"]): int(p["no"]) for p in known.values()}
        added: list[tuple[int, str, str]] = []

        def number(who: str | int, game: str) -> int:
            if isinstance(who, int):
                if who not in known:
                    raise RoundError("no player %d in the player list" % who)
                return who
            if who not in by_name:
                n = max([*known, *(a[0] for a in added)], default=0) + 1
                added.append((n, who, game))
                by_name[who] = n
            return by_name[who]

        linked = []
        seen: dict[int, str] = {}
        for p in pairs:
            a, b = number(p.first, p.game), number(p.second, p.game)
            linked.append(dataclasses.replace(p, first_no=a, second_no=b))
        kept_byes = [(number(who, game), kind, game) for who, kind, game in byes]
        for p in linked:
            for n in (p.first_no, p.second_no):
                if n in seen:
                    raise RoundError("player %d is paired twice (%s)" % (n, seen[n]))
                seen[n] = "board %d" % p.board
        for n, _, _ in kept_byes:
            if n in seen:
                raise RoundError("player %d has a bye and %s" % (n, seen[n]))
            seen[n] = "a bye"
        absent = {p.first_no for p in linked if p.forfeit in ("first", "both")}
        absent |= {p.second_no for p in linked if p.forfeit in ("second", "both")}
        for n in seen:
            w = int(known[n]["withdrawn"]) if n in known and n not in absent else 0
            if w and w <= no:
                raise RoundError("player %d (%s) withdrew from round %d"
                                 % (n, known[n]["name"], w))  # fmt: skip
        args = {"round": no, "pairings": len(linked), "byes": len(kept_byes), "from": source}
        with self.store.acting(0, "round", args, "arbiter"):
            self.store._write_all(
                ("DELETE FROM pairings WHERE round=?", (no,)),
                ("DELETE FROM byes WHERE round=?", (no,)),
                (
                    "INSERT OR REPLACE INTO rounds (no, date, host_ms) VALUES (?,?,?)",
                    (no, date, host_ms()),
                ),
                *(
                    ("INSERT INTO players (no, name, game) VALUES (?,?,?)", (n, name, game))
                    for n, name, game in added
                ),
                *(
                    (
                        "INSERT INTO pairings (round, board, first, second, game, spec,"
                        " first_no, second_no, size, komi, handicap, forfeit) VALUES"
                        " (?,?,?,?,?,?,?,?,?,?,?,?)",
                        (
                            no,
                            p.board,
                            p.first,
                            p.second,
                            p.game,
                            p.spec,
                            p.first_no,
                            p.second_no,
                            p.size,
                            p.komi,
                            p.handicap,
                            p.forfeit,
                        ),
                    )
                    for p in linked
                ),
                *(
                    (
                        "INSERT INTO byes (round, player, kind, game) VALUES (?,?,?,?)",
                        (no, n, kind, game),
                    )
                    for n, kind, game in kept_byes
                ),
            )
        self._reload()
        return no

    # -- the player list --------------------------------------------------------------------

    def players(self) -> list[dict[str, Any]]:
        keys = ("no", "name", "rating", "fed", "id", "sex", "title", "birth", "game", "mms0",
                "withdrawn")  # fmt: skip
        rows = self.store._read(
            "SELECT no, name, rating, fed, ident, sex, title, birth, game, mms0, withdrawn"
            " FROM players ORDER BY no"
        )
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def set_players(self, rows: list[dict[str, Any]], source: str) -> int:
        """The player list replaced (a CSV or a TRF): refused once a round names players."""
        if self.store._read("SELECT 1 FROM pairings WHERE first_no > 0 LIMIT 1"):
            used = {p["no"]: p for p in self.players()}
            for r in rows:  # numbers already paired keep their players
                old = used.get(r["no"])
                if old is not None and old["name"] != r["name"]:
                    raise RoundError("player %d is %s in the rounds kept: not %s"
                                     % (r["no"], old["name"], r["name"]))  # fmt: skip
        with self.store.acting(0, "players", {"players": len(rows), "from": source}, "arbiter"):
            self.store._write_all(
                (
                    "DELETE FROM players WHERE no NOT IN (SELECT first_no FROM pairings UNION"
                    " SELECT second_no FROM pairings UNION SELECT player FROM byes)",
                    (),
                ),
                *(
                    (
                        "INSERT OR REPLACE INTO players (no, name, rating, fed, ident, sex, title,"
                        " birth, game, mms0, withdrawn) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                        (
                            r["no"],
                            r["name"],
                            r["rating"],
                            r["fed"],
                            r["id"],
                            r["sex"],
                            r["title"],
                            r["birth"],
                            r["game"],
                            r["mms0"],
                            r.get("withdrawn", 0),
                        ),
                    )
                    for r in rows
                ),
            )
        return len(rows)

    def withdraw(self, player: int, rnd: int) -> None:
        """Player ``player`` withdraws from round ``rnd`` on: a later round kept
        already, not yet set up, gives the opponent a forfeit win (FIDE C.05:
        a withdrawn player's remaining games are forfeited)."""
        if player not in {p["no"] for p in self.players()}:
            raise RoundError("no player %d" % player)
        if not 0 < rnd < 1000:
            raise RoundError("round: 1 to 999")
        with self.store.acting(0, "withdraw", {"player": player, "round": rnd}, "arbiter"):
            self.store._write_all(
                ("UPDATE players SET withdrawn=? WHERE no=?", (rnd, player)),
                ("UPDATE pairings SET forfeit='first' WHERE round>=? AND first_no=? AND"
                 " game_no=0 AND forfeit=''", (rnd, player)),
                ("UPDATE pairings SET forfeit='second' WHERE round>=? AND second_no=? AND"
                 " game_no=0 AND forfeit=''", (rnd, player)),
                ("DELETE FROM byes WHERE round>=? AND player=?", (rnd, player)),
            )  # fmt: skip
        self._reload()

    def setting(self, key: str, default: str = "") -> str:
        """A tournament setting (the store's settings, as ``tournament.KEY``)."""
        got = self.store.setting("tournament." + key)
        return default if got is None else got

    # -- a round's incidents ------------------------------------------------------------------

    def pairing(self, no: int, board: int) -> Pairing:
        p = next((p for p in self.pairings(no) if p.board == board), None)
        if p is None:
            raise RoundError("round %d has no game on board %d" % (no, board))
        return p

    def _update(self, no: int, board: int, verb: str, args: dict[str, Any], **fields: Any) -> None:
        sets = ", ".join("%s=?" % k for k in fields)
        with self.store.acting(board, verb, dict(args, round=no), "arbiter"):
            self.store._write("UPDATE pairings SET %s WHERE round=? AND board=?" % sets,
                              (*fields.values(), no, board))  # fmt: skip
        self._reload()

    def bye(self, no: int, player: int, kind: str) -> None:
        """A bye in round ``no``: full, half or zero points (TRF-16 F, H, Z)."""
        self.date(no)
        if kind not in BYES:
            raise RoundError("kind: full, half, zero or pab")
        known = {p["no"]: p for p in self.players()}
        if player not in known:
            raise RoundError("no player %d" % player)
        if any(player in (p.first_no, p.second_no) for p in self.pairings(no)):
            raise RoundError("player %d is paired in round %d" % (player, no))
        game = str(known[player]["game"])
        with self.store.acting(0, "bye", {"round": no, "player": player, "kind": kind}, "arbiter"):
            self.store._write("INSERT OR REPLACE INTO byes (round, player, kind, game) VALUES"
                              " (?,?,?,?)", (no, player, kind, game))  # fmt: skip

    def forfeit(self, no: int, board: int, side: str) -> None:
        """Who did not come to board ``board`` (first, second, both; '' undoes it):
        the other wins by forfeit (TRF-16 + and -)."""
        if side not in ("", "first", "second", "both"):
            raise RoundError("side: first, second or both")
        self.pairing(no, board)
        self._update(no, board, "forfeit", {"board": board, "side": side}, forfeit=side)

    def late(self, no: int, board: int, side: str, minutes: int) -> str:
        """A player came ``minutes`` after the start: within the default time
        (the tournament's ``default_minutes``; FIDE 6.7.1: 0 unless the event's
        rules say) the game goes on and the lateness is kept with the pairing (the
        results table, the pairing sheet); after it, a forfeit."""
        if side not in ("first", "second"):
            raise RoundError("side: first or second")
        if not 0 <= minutes <= 24 * 60:
            raise RoundError("minutes: 0 to 1440")
        self.pairing(no, board)
        default = int(self.setting("default_minutes", "0") or 0)
        if minutes > default:
            self._update(no, board, "late", {"board": board, "side": side, "minutes": minutes},
                         forfeit=side, late="%s %d" % (side, minutes))  # fmt: skip
            return "forfeit: %d min is after the default time (%d min)" % (minutes, default)
        self._update(no, board, "late", {"board": board, "side": side, "minutes": minutes},
                     late="%s %d" % (side, minutes))  # fmt: skip
        return "ok: within the default time (%d min): the game goes on" % default

    def set_result(self, no: int, board: int, result: str) -> None:
        """A result entered by hand (a game played without a clock, a ruling);
        '' gives the game's own back."""
        if result not in ("", *HAND):
            raise RoundError("result: 1-0, 0-1, 1/2-1/2, 0-0 or '' (the game's own)")
        self.pairing(no, board)
        self._update(no, board, "result", {"board": board, "result": result}, result=result)

    def rename(self, board: int, game_no: int, first: str | None, second: str | None) -> None:
        """The players of a round's game changed on its board (``players``): its
        record and the results table name the new ones."""
        got = self._games.get((board, game_no))
        if got is None:
            return
        rnd, p = got
        self.store._write(
            "UPDATE pairings SET first=?, second=? WHERE round=? AND board=? AND game_no=?",
            (p.first if first is None else first, p.second if second is None else second,
             rnd, board, game_no),
        )  # fmt: skip
        self._reload()

    def info(self, board: int, game_no: int) -> Info | None:
        """A game's tags (the feed's ``info``): a round's game's from its pairing;
        a game of no round gets the tournament's name and site (else None)."""
        got = self._games.get((board, game_no))
        t = self.tournament()
        if got is None:
            st = self.hall.states.get(board)
            if st is None or not (t["name"] or t["site"]):
                return None
            return dataclasses.replace(
                Info.of(st.board), event=t["name"] or "qizhong hall", site=t["site"]
            )
        rnd, p = got
        return Info(
            p.game,
            p.first,
            p.second,
            p.spec,
            t["name"] or "qizhong hall",
            t["site"],
            self.date(rnd) or t["start"],
            str(rnd),
            board,
        )

    # -- actions ----------------------------------------------------------------------------

    async def setup(
        self, no: int, force: bool = False, start: bool = False
    ) -> list[dict[str, Any]]:
        """Set every board of round ``no`` up (and with ``start``, start it);
        each board's outcome, ``ok`` or why not."""
        out = []
        pairs = self.pairings(no)
        busy = [
            p.board
            for p in pairs
            if self.hall.states[p.board].state in IN_GAME
            and self.hall.states[p.board].game_no != p.game_no
        ]
        if busy and not force:
            raise RoundError(
                "boards %s are still playing: finish those games first (or force)"
                % ", ".join(map(str, busy))
            )
        results = await asyncio.gather(*(self._board(no, p, start) for p in pairs))
        for p, why in zip(pairs, results, strict=True):
            out.append({"board": p.board, "outcome": why})
        self._reload()
        return out

    async def _board(self, no: int, p: Pairing, start: bool) -> str:
        from qizhong.clocks.link import LinkError

        hall = self.hall
        st = hall.states[p.board]
        if p.forfeit:
            return "forfeit (%s): not set up" % p.forfeit
        try:
            if not p.game_no:
                seen = self._wait_event(p.board, "config")  # a new game on the clock first
                await self._clock(p.board, "config", {"spec": p.spec, "override": True})
                try:
                    await asyncio.wait_for(seen, 10)
                except TimeoutError:
                    return "the clock took the control but did not say so"
                fields = {"first": p.first, "second": p.second, "game": p.game, "spec": p.spec}
                with hall.store.acting(p.board, "players", dict(fields), "arbiter"):
                    hall.store.set_board(p.board, **fields)
                    st.board = next(b for b in hall.store.boards() if b.no == p.board)
                    self.store._write(
                        "UPDATE pairings SET game_no=? WHERE round=? AND board=?",
                        (st.game_no, no, p.board),
                    )
                hall.notify(p.board, st.view(), None)
                t = self.tournament()
                tags = {"event": t["name"] or "qizhong hall", "site": t["site"] or None,
                        "round": str(no), "date": self.date(no) or t["start"] or None,
                        "board": p.board, "size": p.size or None, "komi": p.komi or None,
                        "handicap": p.handicap}  # fmt: skip
                try:  # the round's game gets its session, as a control loaded from the page does
                    await asyncio.wrap_future(
                        hall.worker(p.board).call(
                            lambda c: actions.fresh_session(hall, p.board, tags)
                        )
                    )
                except (LinkError, ValueError) as e:
                    return "set up, but no session for its game: %s" % e
            if start:
                if st.state == "idle":
                    seen = self._wait_event(p.board, "start")
                    # Black's time first; with handicap stones White's (GO-1)
                    first = 1 if p.game == "go" and p.handicap else 0
                    await self._clock(p.board, "start", {"side": first})
                    try:  # the answer comes once the board shows it running
                        await asyncio.wait_for(seen, 10)
                    except TimeoutError:
                        return "the clock started but did not say so"
                else:
                    return "set up; not started: the clock is %s" % st.state
        except web.HTTPException as e:
            return "refused: %s" % e.text
        return "ok"

    def _wait_event(self, board: int, name: str) -> asyncio.Future[None]:
        """Done when board ``board``'s clock event ``name`` is kept and applied."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()

        def done() -> None:
            if not fut.done():
                fut.set_result(None)

        def listen(no: int, view: dict[str, Any], event: dict[str, Any] | None) -> None:
            if no == board and event is not None and event.get("name") == name:
                loop.call_soon_threadsafe(done)

        self.hall.listeners.append(listen)
        fut.add_done_callback(lambda _: self.hall.listeners.remove(listen))
        return fut

    async def _clock(self, no: int, verb: str, body: dict[str, Any]) -> None:
        """One clock action, kept as the page's actions are (app.py's ``act``)."""
        from qizhong.clocks.driver import CommandError
        from qizhong.clocks.link import LinkError

        hall = self.hall
        st = hall.states[no]
        call = actions.action(verb, body, st.board.game)
        worker = hall.worker(no)
        aid = hall.store.add_action(no, verb, body, "arbiter")
        try:
            await asyncio.wrap_future(worker.call(call))
        except CommandError as e:
            hall.store.action_done(aid, "refused: %s" % e)
            raise web.HTTPConflict(text=str(e)) from None
        except LinkError as e:
            hall.store.action_done(aid, "no clock: %s" % e)
            raise web.HTTPServiceUnavailable(text=str(e)) from None
        except BaseException as e:  # never an action left pending
            hall.store.action_done(aid, "failed: %s" % (e or type(e).__name__))
            raise
        hall.store.action_done(aid, "ok")
        if verb == "config":
            actions.configured(hall, st, str(body.get("spec", "")))

    def score(self, board: int, score: str, game_no: int | None = None) -> int:
        """Enter a Go game's score (its current game by default); kept as an action."""
        st = self.hall.states[board]
        game = st.game_no if game_no is None else game_no
        score = parse_result(score)
        aid = self.store.add_action(board, "score", {"game": game, "score": score}, "arbiter")
        self.store.action_done(aid, "ok")
        self.hall.feed.scores[(board, game)] = score
        return game

    # -- results and records -------------------------------------------------------------------

    def game(self, p: Pairing) -> Game | None:
        """The round's game on a board as it stands (None before it is set up)."""
        if not p.game_no:
            return None
        st = self.hall.states[p.board]
        feed = self.hall.feed
        if st.game_no == p.game_no:
            return feed.game_of(st)  # type: ignore[no-any-return]
        return feed.replay(p.board, p.game_no, st.board)  # type: ignore[no-any-return]

    def results_now(self, no: int) -> list[dict[str, Any]]:
        """Round ``no``'s table: per board the players, game, result and state
        (on the feed's thread: a game that is over is read from the store)."""
        rows = []
        for p in self.pairings(no):
            st = self.hall.states[p.board]
            g = self.game(p)
            result, score, state, moves = "", "", "not set up", 0
            if g is not None:
                moves = len(g.played)
                state = st.state if st.game_no == p.game_no else "over"
                if p.game == "go":
                    score = go_result(g)
                    result = score_result(score) if score else ""
                else:
                    result = RESULTS.get(g.result, ("", ""))[0]
                if not result:
                    result = "*"
            if p.result:  # entered by hand: over the game's own
                result = p.result
            elif p.forfeit:
                result, state = FORFEITS[p.forfeit], "forfeit"
            ext = "sgf" if p.game == "go" else "pgn"
            row = asdict(p)
            row.update(
                round=no,
                result=result,
                score=score,
                points=list(points(result)),
                codes=list(codes(result)),
                state=state,
                moves=moves,
                record="/rounds/%d/%d.%s" % (no, p.board, ext) if p.game_no else "",
            )
            rows.append(row)
        return rows

    async def results(self, no: int) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = await self.hall.feed.run(self.results_now, no)
        return rows

    @staticmethod
    def results_csv(rows: list[dict[str, Any]]) -> str:
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\r\n")
        w.writerow(["round", "board", "first", "second", "game", "control", "result", "score",
                    "first_points", "second_points", "moves"])  # fmt: skip
        for r in rows:
            w.writerow([r["round"], r["board"], _cell(r["first"]), _cell(r["second"]), r["game"],
                        r["spec"], r["result"], r["score"], r["points"][0], r["points"][1],
                        r["moves"]])  # fmt: skip
        return out.getvalue()

    async def record(self, no: int, board: int) -> tuple[str, bytes]:
        """Round ``no``'s game on ``board``: one record, the board's session's (its
        moves, times, rulings, proposals, result and why) with the round's tags; the
        feed's record (moves and times) only for a game no session recorded."""
        p = next((p for p in self.pairings(no) if p.board == board), None)
        if p is None or not p.game_no:
            raise KeyError("round %d has no game on board %d" % (no, board))
        return await self.game_record(board, p.game_no, "sgf" if p.game == "go" else "pgn")

    async def game_record(self, board: int, game_no: int, ext: str) -> tuple[str, bytes]:
        """Board ``board``'s game ``game_no``: its one record (see ``record``)."""
        p = Pairing(board, "", "", game_no=game_no)
        tags = self.info(board, p.game_no)
        from qizhong.clocks.link import LinkError

        games = self.hall.games
        got = None
        try:
            live = games.games.get(board)
            if live is not None and live.game_no == p.game_no:  # on the board's thread
                got = await asyncio.wrap_future(
                    self.hall.worker(board).call(
                        lambda c: games.game_record(board, p.game_no, tags)
                    )
                )
            else:
                got = await self.hall.feed.run(games.game_record, board, p.game_no, tags)
        except (web.HTTPException, LinkError, LookupError, OSError, ValueError):
            got = None  # the clock away: the feed's record below
        if got is not None and got[1].lstrip(".") == ext:
            score = self.hall.feed.scores.get((board, p.game_no), "")
            if ext == "sgf" and score:  # the score the arbiter entered is the game's result
                from qizhong.records.go_sgf import sgf as sgfmill_sgf

                sgf = sgfmill_sgf.Sgf_game.from_string(got[0])
                sgf.get_root().set_raw("RE", score.encode())
                return ext, sgf.serialise()
            return ext, got[0].encode()
        data: bytes = await self.hall.feed.past(board, p.game_no)
        return ext, data

    async def zip(self, no: int) -> bytes:
        files = []
        for p in self.pairings(no):
            if p.game_no:
                ext, data = await self.record(no, p.board)
                files.append(("round%d-board%d.%s" % (no, p.board, ext), data))
        rows = await self.results(no)
        files.append(("round%d-results.csv" % no, self.results_csv(rows).encode()))

        def pack() -> bytes:
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
                for name, data in files:
                    z.writestr(name, data)
            return buf.getvalue()

        packed: bytes = await self.hall.feed.run(pack)
        return packed


def _cell(text: str) -> str:
    """A name as a spreadsheet cell: a leading = + - @ would be a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def add_routes(app: Any, hall: Any) -> None:
    """The rounds' API and pages (docs/server.md), on the hall's app."""
    rounds = Rounds(hall)
    hall.rounds = rounds

    def arbiter(request: web.Request) -> None:
        if not hall.is_arbiter(request):
            raise web.HTTPUnauthorized(text="arbiter's login needed")

    def number(request: web.Request, key: str = "round") -> int:
        text = request.match_info[key]
        if len(text) > 6:
            raise web.HTTPNotFound(text="no such %s" % key)
        return int(text)

    def known(no: int) -> None:
        if no not in rounds.numbers():
            raise web.HTTPNotFound(text="no round %d" % no)

    async def page(request: web.Request) -> web.StreamResponse:
        return web.FileResponse(actions.WEB + "/rounds.html")

    async def get_tournament(request: web.Request) -> web.Response:
        return web.json_response(rounds.tournament())

    async def post_tournament(request: web.Request) -> web.Response:
        arbiter(request)
        body = await actions.json_body(request)
        try:
            return web.json_response(rounds.set_tournament(body))
        except RoundError as e:
            raise web.HTTPBadRequest(text=str(e)) from None

    async def list_rounds(request: web.Request) -> web.Response:
        out = []
        for no in rounds.numbers():
            pairs = rounds.pairings(no)
            out.append({"round": no, "date": rounds.date(no), "boards": len(pairs),
                        "set_up": sum(1 for p in pairs if p.game_no)})  # fmt: skip
        return web.json_response({"tournament": rounds.tournament(), "rounds": out})

    async def add_round(request: web.Request) -> web.Response:
        arbiter(request)
        body = await actions.json_body(request)
        text = body.get("pairings", "")
        no = body.get("round")
        if not isinstance(text, str) or (no is not None and not isinstance(no, int)):
            raise web.HTTPBadRequest(text="pairings: the CSV text; round: a number")
        if isinstance(no, bool):
            raise web.HTTPBadRequest(text="round: a number")
        try:
            got = rounds.add(text, no, str(body.get("date", "")))
        except RoundError as e:
            raise web.HTTPBadRequest(text=str(e)) from None
        return web.json_response({"round": got, "pairings": len(rounds.pairings(got))})

    async def get_round(request: web.Request) -> web.Response:
        no = number(request)
        known(no)
        rows = await rounds.results(no)
        names = {int(p["no"]): str(p["name"]) for p in rounds.players()}
        byes = [{"player": b.player, "name": names.get(b.player, ""), "kind": b.kind}
                for b in rounds.byes(no)]  # fmt: skip
        return web.json_response(
            {"round": no, "date": rounds.date(no), "boards": rows, "byes": byes}
        )

    async def act(request: web.Request) -> web.Response:
        arbiter(request)
        no = number(request)
        known(no)
        body = await actions.json_body(request)
        verb = request.match_info["verb"]
        if verb not in ("setup", "start"):
            raise web.HTTPNotFound(text="no round action %r" % verb)
        try:
            out = await rounds.setup(no, bool(body.get("force", False)), verb == "start")
        except RoundError as e:
            raise web.HTTPConflict(text=str(e)) from None
        return web.json_response({"round": no, "boards": out})

    async def score(request: web.Request) -> web.Response:
        arbiter(request)
        board = number(request, "no")
        if board not in hall.states:
            raise web.HTTPNotFound(text="no board %d" % board)
        if hall.states[board].board.game != "go":
            raise web.HTTPBadRequest(text="board %d does not play Go" % board)
        body = await actions.json_body(request)
        game = body.get("game")
        if game is not None and (
            isinstance(game, bool)
            or not isinstance(game, int)
            or not 0 < game <= hall.states[board].game_no
        ):
            raise web.HTTPBadRequest(text="game: one of the board's game numbers")
        try:
            got = rounds.score(board, str(body.get("score", "")), game)
        except RoundError as e:
            raise web.HTTPBadRequest(text=str(e)) from None
        st = hall.states[board]
        hall.notify(board, st.view(), None)
        return web.json_response({"ok": True, "game": got})

    async def results_csv(request: web.Request) -> web.Response:
        no = number(request)
        known(no)
        text = rounds.results_csv(await rounds.results(no))
        return web.Response(
            text=text,
            content_type="text/csv",
            charset="utf-8",
            headers={"Content-Disposition": 'attachment; filename="round%d-results.csv"' % no},
        )

    async def record(request: web.Request) -> web.Response:
        no, board = number(request), number(request, "no")
        known(no)
        try:
            ext, data = await rounds.record(no, board)
        except KeyError as e:
            raise web.HTTPNotFound(text=str(e.args[0])) from None
        if ext != request.match_info["ext"]:
            raise web.HTTPNotFound(text="round %d, board %d: a .%s record" % (no, board, ext))
        kind = "application/x-go-sgf" if ext == "sgf" else "application/x-chess-pgn"
        name = "round%d-board%d.%s" % (no, board, ext)
        return web.Response(
            body=data,
            content_type=kind,
            charset="utf-8",
            headers={"Content-Disposition": 'attachment; filename="%s"' % name},
        )

    async def board_game(request: web.Request) -> web.Response:
        """Any game a board has had, by its number (``game_no``), in a round or not."""
        no, game = number(request, "no"), number(request, "game")
        st = hall.states.get(no)
        if st is None:
            raise web.HTTPNotFound(text="no board %d" % no)
        info = rounds.info(no, game) or Info.of(st.board)
        ext = "sgf" if info.game == "go" else "pgn"
        if ext != request.match_info["ext"]:
            raise web.HTTPNotFound(text="board %d, game %d: a .%s record" % (no, game, ext))
        try:
            data = (await rounds.game_record(no, game, ext))[1]
        except KeyError as e:
            raise web.HTTPNotFound(text=str(e.args[0])) from None
        except ValueError as e:  # a game of no round, played as another game than the board's now
            raise web.HTTPConflict(text="board %d, game %d: %s" % (no, game, e)) from None
        kind = "application/x-go-sgf" if ext == "sgf" else "application/x-chess-pgn"
        return web.Response(body=data, content_type=kind, charset="utf-8")

    async def round_zip(request: web.Request) -> web.Response:
        no = number(request)
        known(no)
        return web.Response(
            body=await rounds.zip(no),
            content_type="application/zip",
            headers={"Content-Disposition": 'attachment; filename="round%d.zip"' % no},
        )

    r = app.router
    r.add_get("/rounds", page)
    r.add_get("/api/tournament", get_tournament)
    r.add_post("/api/tournament", post_tournament)
    r.add_get("/api/rounds", list_rounds)
    r.add_post("/api/rounds", add_round)
    r.add_get("/api/rounds/{round:\\d+}", get_round)
    r.add_post("/api/rounds/{round:\\d+}/{verb:setup|start}", act)
    r.add_post("/api/boards/{no:\\d+}/score", score)
    r.add_get("/rounds/{round:\\d+}/results.csv", results_csv)
    r.add_get("/rounds/{round:\\d+}/{no:\\d+}.{ext:pgn|sgf}", record)
    r.add_get("/rounds/{round:\\d+}.zip", round_zip)
    r.add_get("/boards/{no:\\d+}/games/{game:\\d+}.{ext:pgn|sgf}", board_game)
