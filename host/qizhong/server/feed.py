# SPDX-License-Identifier: GPL-3.0-or-later
"""The records as moves arrive: a feed that never stalls the hall.

Each board's current game is kept as it grows: the rules engine's position
and the record (a ``xiangqi_pgn.Game``, a python-chess board, a Go board),
each new move applied once, on top of the last (``Live.sync``). A record's
text is made only when something in it changed (a move, a press's time, the
result, the names, the round's tags) and kept, as bytes, until the next
change; ``/live.pgn`` is the kept texts joined, itself kept until a board
changes. Everything that touches the rules engine or writes a record runs
on the feed's own thread (``Feed.executor``), never on the event loop: a
request finds what changed by comparing each board's small key (board
fields, game number, counts of moves and presses, result), and an unchanged
hall is answered from memory.

Why it was slow before: every request replayed every board's game from
the first move, through pyffish (a few ms a call) three times over per move
(parsing the notation, ``Game.add_move``'s legality check, and the writer
writing the notation again), on the event loop. ``xiangqi_pgn.Game.add_move``
now keeps each move's notation, so the writer does not replay the game.

Every change of a board's record (the hall's listener ``on_change``: a
move, a result; not a press with no move yet, nor a status) has it made
again at once on the feed's thread, so a poll finds it made; nothing is made
at start (#32: a record is made when first asked for); made
records are kept in the store's file too (``feed_records``, a cache checked
against the game before it is served), so a restarted server has them. A
game that is over (after ``new``) is built once from the store (its events,
and its moves: the ``move`` actions, else its last made record's) and kept:
``Feed.past``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from qizhong import timecontrol
from qizhong.records import chess_pgn, go_sgf, xiangqi_pgn
from qizhong.rules import chess, go
from qizhong.server.board import BoardState
from qizhong.server.start import USUAL, Start
from qizhong.server.store import Board, Store

FORMAT = "2"  # the kept records' format: a new writer, a new number (2: the game's start)
CACHE = """CREATE TABLE IF NOT EXISTS feed_records (
  board INTEGER NOT NULL, game_no INTEGER NOT NULL, key TEXT NOT NULL, data BLOB NOT NULL,
  moves TEXT NOT NULL DEFAULT '[]', PRIMARY KEY (board, game_no))"""
RESULTS = {0: ("1-0", "B+"), 1: ("0-1", "W+"), 2: ("1/2-1/2", "0")}
KINDS = ("xiangqi", "chess", "go")


@dataclass(frozen=True)
class Info:
    """What a record says about its game besides the moves: the players, the
    game, the control, and the tournament's and round's tags."""

    game: str
    first: str = ""
    second: str = ""
    spec: str = ""
    event: str = "qizhong hall"
    site: str = ""
    date: str = ""  # YYYY-MM-DD
    round: str = ""
    board: int = 0

    @classmethod
    def of(cls, board: Board) -> Info:
        return cls(board.game, board.first, board.second, board.spec, board=board.no)


@dataclass
class Game:
    """One game's facts as the record needs them."""

    info: Info
    played: list[str]
    clocks: list[int | None]
    result: int = -1  # 0, 1: that side won; 2: a draw; -1: none yet
    flag: tuple[bool, bool] = (False, False)
    score: str = ""  # a Go score as the arbiter entered it (``B+3.5``)
    start: Start = USUAL  # where it began (a session's FEN, Go setup)


class Live:
    """One game's position and record, built one move at a time from ``start``."""

    def __init__(self, kind: str, start: Start = USUAL) -> None:
        self.kind = kind
        self.start = start
        self._reset()

    def _reset(self) -> None:
        self.played: list[str] = []
        self._xq: xiangqi_pgn.Game | None = None  # each made when first used: a hall of
        self._cb: chess.Board | None = None  # 1,000 boards makes one of the three each
        self._gb: go.Board | None = None

    @property
    def xq(self) -> xiangqi_pgn.Game:
        if self._xq is None:
            self._xq = xiangqi_pgn.Game(headers=_fen(self.start))
        return self._xq

    @property
    def cb(self) -> chess.Board:
        if self._cb is None:
            s = self.start
            self._cb = chess.Board(s.fen or chess.STARTING_FEN, chess960=s.chess960)
        return self._cb

    @property
    def gb(self) -> go.Board:
        if self._gb is None:
            s = self.start
            at = [[go.Point.from_gtp(p, s.size) for p in ps] for ps in (s.black, s.white)]
            turn = go.WHITE if s.white_first else go.BLACK
            self._gb = go.Board.from_setup(s.size, *at, turn=turn, komi=s.komi or go.KOMI)
        return self._gb

    def sync(self, played: list[str]) -> None:
        """Apply the moves of ``played`` not yet applied (all again if it is another game)."""
        n = len(self.played)
        if played[:n] != self.played:
            self._reset()
            n = 0
        for text in played[n:]:
            if self.kind == "xiangqi":
                self.xq.add_move(self.xq.end().parse_notation(text))
            elif self.kind == "chess":
                self.cb.push_move(text)
            elif self.kind == "go":
                self.gb.push_gtp(text)
            self.played.append(text)

    def check(self, text: str) -> str:
        """``text`` as the next move, in the game's notation; ValueError if illegal."""
        if self.kind == "xiangqi":
            end = self.xq.end()
            return end.notation(end.parse_notation(text))
        if self.kind == "go":
            return self.gb.copy().push_gtp(text).gtp()
        if self.kind == "chess":  # SAN, LAN or UCI in; kept as SAN (CH-1)
            return self.cb.notation(self.cb.parse_move(text))
        raise ValueError("moves of %s are not kept here yet" % self.kind)

    def position(self) -> dict[str, Any]:
        """The position for the page's drawing (``kind`` picks its renderer)."""
        if self.kind == "xiangqi":
            return {"kind": "xiangqi", "fen": self.xq.end().fen()}
        if self.kind == "go":
            n = self.gb.size
            stones = []
            for x in range(n):
                for y in range(n):
                    c = self.gb.color_at(go.Point(x, y))
                    if c is not None:
                        colour = "black" if c == go.Color.BLACK else "white"
                        stones.append([[x, n - 1 - y], colour])
            return {"kind": "go", "size": n, "stones": stones}
        if self.kind == "chess":
            return {"kind": "chess", "fen": self.cb.fen(), "svg": chess.svg(self.cb)}
        return {"kind": self.kind}

    def record(self, g: Game) -> bytes:
        """The record: PGN (Xiangqi, chess) or SGF (Go), UTF-8."""
        if self.kind == "xiangqi":
            return _xiangqi(self, g).encode()
        if self.kind == "chess":
            return _chess(self, g).encode()
        if self.kind == "go":
            return _go(self, g)
        raise ValueError("no record for %s" % self.kind)


def pgn_date(date: str) -> str:
    """``2026-11-25`` as PGN's ``2026.11.25`` (unknown: ``????.??.??``)."""
    return date.replace("-", ".") if date else "????.??.??"


def _tags(g: Game) -> dict[str, str]:
    i = g.info
    tags = {"Event": i.event or "?", "Site": i.site or "?", "Date": pgn_date(i.date)}
    tags["Round"] = i.round or "-"
    tags["Board"] = str(i.board)
    return tags


def _spec(spec: str) -> str | None:
    try:
        timecontrol.parse(spec)
    except ValueError:
        return None  # a spec the host cannot read: no TimeControl rather than no record
    return spec or None


def _fen(start: Start) -> dict[str, str]:
    """A Xiangqi record's tags for its start (PGN's SetUp and FEN, written by the writer)."""
    return {"FEN": start.fen} if start.fen else {}


def _xiangqi(live: Live, g: Game) -> str:
    game = live.xq
    game.clocks[:] = [g.clocks[i] if i < len(g.clocks) else None for i in range(len(game.moves))]
    game.headers = dict(_tags(g), **_fen(live.start))
    game.headers["Red"] = g.info.first or "?"
    game.headers["Black"] = g.info.second or "?"
    game.headers["Result"] = RESULTS.get(g.result, ("*", ""))[0]
    spec = _spec(g.info.spec)
    if spec:
        game.set_time_control(spec)
    return xiangqi_pgn.write_game(game)


def _chess(live: Live, g: Game) -> str:
    tags = _tags(g)
    game = chess_pgn.build(
        live.cb,
        clocks=g.clocks,
        time_control=_spec(g.info.spec),
        result=RESULTS.get(g.result, ("*", ""))[0],
        Event=tags["Event"],
        Site=tags["Site"],
        Date=tags["Date"],
        Round=tags["Round"],
        Board=tags["Board"],
        White=g.info.first or "?",
        Black=g.info.second or "?",
    )
    return chess_pgn.write(game)


def go_result(g: Game) -> str:
    """SGF's RE: the score entered; else a flag's ``B+T``; after two passes
    with no score entered, ``B+`` (SGF's win with the score not given); else
    the result the arbiter gave a game not played out: ``B+R``."""
    if g.score:
        return g.score
    if g.result in (0, 1):
        if g.flag[1 - g.result]:
            return RESULTS[g.result][1] + "T"
        counted = g.played[-2:] == ["pass", "pass"]
        return RESULTS[g.result][1] + ("" if counted else "R")
    return "0" if g.result == 2 else ""


def _go(live: Live, g: Game) -> bytes:
    times = [go_sgf.MoveTime(ms) if ms is not None else None for ms in g.clocks]
    props = {}
    if live.start.handicap:
        props["HA"] = str(live.start.handicap)
    if g.info.event:
        props["EV"] = g.info.event
    if g.info.round:
        props["RO"] = g.info.round
    if g.info.site:
        props["PC"] = g.info.site
    tc = None
    if _spec(g.info.spec):
        tc = timecontrol.parse(g.info.spec)
    return go_sgf.write(
        go_sgf.GoRecord(
            live.gb,
            black=g.info.first,
            white=g.info.second,
            date=g.info.date,
            time_control=tc,
            times=times[: len(live.gb.move_stack)],
            result=go_result(g),
            properties={k: _sgf_text(v) for k, v in props.items()},
        )
    )


def _sgf_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


# -- the feed ------------------------------------------------------------------------------


@dataclass
class _Kept:
    key: tuple[Any, ...] = ()
    live: Live | None = None
    record: bytes = b""
    record_key: tuple[Any, ...] | None = None
    position: dict[str, Any] = field(default_factory=dict)
    position_key: tuple[Any, ...] | None = None


class Feed:
    """Every board's records, kept as they grow (see the module's text).

    ``info(no, game_no)`` gives a game's ``Info`` (the rounds'), None for the
    board's own fields; ``version`` is bumped when what it says changes.
    """

    def __init__(self, store: Store, states: dict[int, BoardState]) -> None:
        self.store = store
        self.states = states
        self.executor = ThreadPoolExecutor(1, thread_name_prefix="feed")
        self.info: Callable[[int, int], Info | None] = lambda no, game_no: None
        self.version = 0
        self._kept: dict[int, _Kept] = {}
        self._live: dict[str, tuple[tuple[Any, ...], bytes]] = {}
        self._past: dict[tuple[int, int], tuple[tuple[Any, ...], Game]] = {}
        self._past_text: dict[tuple[int, int], tuple[tuple[Any, ...], bytes]] = {}
        self._lock = threading.Lock()
        self._locks: dict[int, asyncio.Lock] = {}
        self._cache: sqlite3.Connection | None = None
        self._pending: set[int] = set()
        self.scores: dict[tuple[int, int], str] = {}
        for a in store.actions():
            args: Any = a["args"]
            if a["verb"] == "score" and a["outcome"] == "ok":
                self.scores[(int(str(a["board"])), int(args["game"]))] = str(args["score"])

    def lock(self, no: int) -> asyncio.Lock:
        """Board ``no``'s lock, for a check and its keeping in one step."""
        return self._locks.setdefault(no, asyncio.Lock())

    def changed(self) -> None:
        """The tournament or a round changed: every record's tags may have."""
        with self._lock:
            self.version += 1

    def stop(self) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)
        if self._cache is not None:
            self._cache.close()

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` on the feed's thread."""
        return await asyncio.get_running_loop().run_in_executor(self.executor, fn, *args)

    # -- keys: what a text depends on (cheap, on the loop) ---------------------------------

    def key(self, st: BoardState) -> tuple[Any, ...]:
        no = st.board.no
        return (
            st.board,
            st.game_no,
            len(st.played),
            st.played[-1] if st.played else "",
            min(len(st.presses), len(st.played)),  # a press with no move yet is in no record
            tuple(st.played_clocks or ()),
            st.result,
            tuple(st.flag),
            self.version,
            self.scores.get((no, st.game_no), ""),
            st.start,
        )

    def game_of(self, st: BoardState) -> Game:
        info = self.info(st.board.no, st.game_no) or Info.of(st.board)
        presses = list(st.presses)
        clocks = [presses[i]["left"] if i < len(presses) else None for i in range(len(st.played))]
        if st.played_clocks is not None and len(st.played_clocks) == len(st.played):
            clocks = list(st.played_clocks)  # as the board's session paired them
        return Game(
            info,
            list(st.played),
            clocks,
            st.result,
            (st.flag[0], st.flag[1]),
            self.scores.get((st.board.no, st.game_no), ""),
            st.start,
        )

    # -- on the feed's thread --------------------------------------------------------------

    def _live_of(self, st: BoardState, info: Info) -> Live:
        kept = self._kept.setdefault(st.board.no, _Kept())
        gk = (st.game_no, info.game, st.start)
        if kept.live is None or kept.key != gk:
            kept.live, kept.key = Live(info.game, st.start), gk
            kept.record_key = kept.position_key = None
        kept.live.sync(st.played)
        return kept.live

    def record_now(self, st: BoardState) -> bytes:
        """The board's current game's record (kept until it changes)."""
        key = self.key(st)
        kept = self._kept.get(st.board.no)
        if kept is not None and kept.record_key == key:
            return kept.record
        g = self.game_of(st)
        lasting = self._lasting_key(st, g)
        if kept is None or kept.live is None:  # after a restart: made before?
            data = self._kept_record(st.board.no, st.game_no, lasting)
            if data is not None:
                kept = self._kept.setdefault(st.board.no, _Kept())
                kept.record, kept.record_key = data, key
                return data
        live = self._live_of(st, g.info)
        kept = self._kept[st.board.no]
        kept.record, kept.record_key = live.record(g), key
        self._keep_record(st.board.no, st.game_no, lasting, kept.record, g.played)
        return kept.record

    # -- the records as made, kept in the store's file for a restart -------------------------

    def _lasting_key(self, st: BoardState, g: Game) -> str:
        """What a record depends on, in words that outlast the process."""
        fields = dataclasses.astuple(st.board)
        played = "\n".join(g.played)
        return json.dumps([FORMAT, fields, st.game_no, played, g.clocks, g.result, g.flag,
                           g.score, dataclasses.astuple(g.info), g.start.words()],
                          ensure_ascii=False)  # fmt: skip

    def _db(self) -> sqlite3.Connection:
        """The feed's own connection (on its thread): a cache, so no fsync per write."""
        if self._cache is None:
            db = sqlite3.connect(self.store.path, check_same_thread=False, isolation_level=None,
                                 timeout=10)  # fmt: skip
            db.execute("PRAGMA synchronous=OFF")
            db.execute(CACHE)
            self._cache = db
        return self._cache

    def _kept_record(self, no: int, game_no: int, key: str) -> bytes | None:
        try:
            sql = "SELECT key, data FROM feed_records WHERE board=? AND game_no=?"
            rows = list(self._db().execute(sql, (no, game_no)))
        except sqlite3.Error:
            return None
        return bytes(rows[0][1]) if rows and rows[0][0] == key else None

    def _keep_record(self, no: int, game_no: int, key: str, data: bytes, moves: list[str]) -> None:
        try:
            self._db().execute(
                "INSERT OR REPLACE INTO feed_records (board, game_no, key, data, moves)"
                " VALUES (?,?,?,?,?)",
                (no, game_no, key, data, json.dumps(moves, ensure_ascii=False)),
            )
        except sqlite3.Error:  # a cache: a record not kept is made again when asked for
            pass

    def position_now(self, st: BoardState) -> dict[str, Any]:
        key = (st.board.game, st.game_no, len(st.played), st.played[-1] if st.played else "",
               st.start)  # fmt: skip
        kept = self._kept.get(st.board.no)
        if kept is not None and kept.position_key == key:
            return kept.position
        live = self._live_of(st, self.game_of(st).info)
        kept = self._kept[st.board.no]
        kept.position, kept.position_key = live.position(), key
        return kept.position

    def check_now(self, st: BoardState, text: str) -> str:
        live = self._live_of(st, self.game_of(st).info)
        return live.check(text)

    def live_now(self, sts: list[BoardState]) -> bytes:
        out = []
        for s in sts:
            try:
                out.append(self.record_now(s))
            except ValueError:  # one board's record that cannot be made stops no broadcast
                continue
        return b"\n".join(out)

    # -- on the loop -----------------------------------------------------------------------

    async def record(self, st: BoardState) -> bytes:
        kept = self._kept.get(st.board.no)
        if kept is not None and kept.record_key == self.key(st):
            return kept.record
        data: bytes = await self.run(self.record_now, st)
        return data

    async def position(self, st: BoardState) -> dict[str, Any]:
        kept = self._kept.get(st.board.no)
        last = st.played[-1] if st.played else ""
        if kept is not None and kept.position_key == (
            st.board.game,
            st.game_no,
            len(st.played),
            last,
            st.start,
        ):
            return kept.position
        pos: dict[str, Any] = await self.run(self.position_now, st)
        return pos

    def warm(self) -> None:
        """Nothing at start (#32): a record is made when it is first asked for
        (from the store's cache when it was made before a restart) or when its
        game changes, not every game through the rules engine before the
        server serves."""

    async def check_move(self, st: BoardState, text: str) -> str:
        """``text`` checked by the rules engine after the board's moves (ValueError)."""
        out: str = await self.run(self.check_now, st, text)
        return out

    async def live(self, kinds: tuple[str, ...]) -> bytes:
        """``/live.pgn``: every board of ``kinds``' current game, joined."""
        sts = [s for _, s in sorted(self.states.items()) if s.board.game in kinds]
        keys = tuple(self.key(s) for s in sts)
        name = ",".join(kinds)
        kept = self._live.get(name)
        if kept is not None and kept[0] == keys:
            return kept[1]
        data: bytes = await self.run(self.live_now, sts)
        self._live[name] = (keys, data)
        return data

    # -- games that are over -----------------------------------------------------------------

    async def past(self, no: int, game_no: int) -> bytes:
        """Board ``no``'s game ``game_no`` (its current one, or one that is over)."""
        st = self.states.get(no)
        if st is None:
            raise KeyError("no board %d" % no)
        if game_no == st.game_no:
            return await self.record(st)
        key = (self.version, self.scores.get((no, game_no), ""))
        kept = self._past_text.get((no, game_no))
        if kept is not None and kept[0] == key:
            return kept[1]
        data: bytes = await self.run(self._past_now, no, game_no, key)
        return data

    def _past_now(self, no: int, game_no: int, key: tuple[Any, ...]) -> bytes:
        st = self.states[no]
        g = self.replay(no, game_no, st.board)
        live = Live(g.info.game, g.start)
        live.sync(g.played)
        data = live.record(g)
        self._past_text[(no, game_no)] = (key, data)
        return data

    def moves_of(self, no: int, game_no: int) -> list[str]:
        """A game's moves as kept: the ``move`` actions of the page's move entry,
        else those its last made record had (a session's moves, kept elsewhere)."""
        played = [
            str(a["args"]["text"])  # type: ignore[index]
            for a in self.store.actions(no)
            if a["verb"] == "move" and a["outcome"] == "ok" and a["args"]["game"] == game_no  # type: ignore[index]
        ]
        if played:
            return played
        try:
            sql = "SELECT moves FROM feed_records WHERE board=? AND game_no=?"
            rows = list(self._db().execute(sql, (no, game_no)))
        except sqlite3.Error:
            return []
        return [str(m) for m in json.loads(rows[0][0])] if rows else []

    def clocks_of(self, no: int, game_no: int, played: list[str]) -> list[int | None] | None:
        """The moves' clock times as the last made record of the game had them
        (its session's pairing, in the record's key), if it had these moves."""
        try:
            sql = "SELECT key, moves FROM feed_records WHERE board=? AND game_no=?"
            rows = list(self._db().execute(sql, (no, game_no)))
            if not rows or json.loads(rows[0][1]) != played:
                return None
            clocks = json.loads(rows[0][0])[4]
        except (sqlite3.Error, ValueError, IndexError, TypeError):
            return None
        ok = isinstance(clocks, list) and len(clocks) == len(played)
        return clocks if ok and all(c is None or type(c) is int for c in clocks) else None

    def start_of(self, no: int, game_no: int) -> Start:
        """Where a game began, as its last made record had it (the usual start if
        none was made, or one made before starts were kept)."""
        try:
            sql = "SELECT key FROM feed_records WHERE board=? AND game_no=?"
            rows = list(self._db().execute(sql, (no, game_no)))
            return Start.from_words(json.loads(rows[0][0])[9]) if rows else USUAL
        except (sqlite3.Error, ValueError, IndexError, TypeError):
            return USUAL

    # -- made as moves arrive ------------------------------------------------------------------

    def on_change(self, no: int, view: dict[str, Any], event: dict[str, Any] | None) -> None:
        """A board changed (the hall's listener, from any thread): its record is
        made again on the feed's thread, once for a burst of changes."""
        st = self.states.get(no)
        kept = self._kept.get(no)
        if (
            st is None
            or (kept is None and not st.played)
            or (kept is not None and kept.record_key == self.key(st))
        ):
            return  # nothing the record says changed (a press, a status): made when asked
        with self._lock:
            if no in self._pending:
                return
            self._pending.add(no)
        try:
            self.executor.submit(self._made, no)
        except RuntimeError:  # stopping
            pass

    def _made(self, no: int) -> None:
        with self._lock:
            self._pending.discard(no)
        st = self.states.get(no)
        if st is None or st.board.game not in KINDS:
            return
        try:
            self.record_now(st)
        except Exception:  # a record that cannot be made says so when it is asked for
            pass

    def replay(self, no: int, game_no: int, board: Board) -> Game:
        """Game ``game_no`` of board ``no`` from the store: its presses and
        result from the events (as the board's state counts games), its moves
        from the arbiter's kept ``move`` actions."""
        if not 0 < game_no:
            raise KeyError("no game %d" % game_no)
        key = (self.version, self.scores.get((no, game_no), ""), board.game)
        kept = self._past.get((no, game_no))
        if kept is not None and kept[0] == key and game_no < self.states[no].game_no:
            return kept[1]  # a game that is over changes no more (but for its tags, score)
        replayed = BoardState(board)
        snap: tuple[list[dict[str, int]], int, list[bool]] | None = None
        for ev in self.store.events(no):
            replayed.apply(ev)
            if replayed.game_no == game_no:
                snap = (replayed.presses, replayed.result, replayed.flag)
            elif replayed.game_no > game_no:
                break
        if snap is None:
            raise KeyError("board %d has no game %d" % (no, game_no))
        played = self.moves_of(no, game_no)
        info = self.info(no, game_no) or Info.of(board)
        presses, result, flag = snap
        clocks = [presses[i]["left"] if i < len(presses) else None for i in range(len(played))]
        paired = self.clocks_of(no, game_no, played)
        if paired is not None:
            clocks = paired  # as the board's session paired them (a press ruled on is no move's)
        score = self.scores.get((no, game_no), "")
        g = Game(
            info, played, clocks, result, (flag[0], flag[1]), score, self.start_of(no, game_no)
        )
        self._past[(no, game_no)] = (key, g)
        return g
