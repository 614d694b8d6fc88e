# SPDX-License-Identifier: GPL-3.0-or-later
"""Every board's game, run by the server: the console's own session (#20).

A board of the hall runs the same ``qizhong.arbiter`` session as ``qizhong
arbiter`` at the table (Xiangqi, Go or chess), through the same line
interpreter (``qizhong.arbiter.console.Console``): a move in the game's notation,
``foul red``, ``claim red rep``, ``confirm``, ``dead D4``... Its journal is
the console's (``qizhong.arbiter.journal``), with the server's store as its
backend: each entry is a row, committed before the action is answered. A
restarted server replays every board's journal exactly as a console resumes
a game (``qizhong.arbiter.console.replay``), then feeds it the clock events the
store kept after the last one the session had seen.

The session runs on its board's worker thread (the one thread that talks to
that clock): its clock is a ``FedClock``, whose events are the ones the
worker kept in the store, and whose commands go to the real clock.

A foul, a press without a move (XQ-R19, CH-1) and the engine's proposal are
alerts of the board, as a knock is, until the arbiter acknowledges them.
"""

from __future__ import annotations

import argparse
import datetime
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, cast

from qizhong.clocks.link import LinkError
from qizhong.server import start, validate
from qizhong.server.store import Stored

if TYPE_CHECKING:
    from qizhong.arbiter.console import Console
    from qizhong.arbiter.journal import Journal
    from qizhong.clocks.driver import Clock
    from qizhong.server.board import BoardState, Worker
    from qizhong.server.feed import Feed
    from qizhong.server.store import Store

# Commands a page or a remote console may not send the server's console
# (they write files on the server, or leave it).
BARRED = ("save", "board", "quit", "late")
LINE_MAX = 500  # characters of one typed line
ALERT_BASE = 1_000_000  # a session alert's id: -(session * ALERT_BASE + its notice's index)
SPECS = {"xiangqi": "xq-rapid", "go": "go-byoyomi", "chess": "rapid"}


class Hall(Protocol):
    """What the sessions use of the hall (server/hall.py's ``Hall``, which holds them)."""

    store: Store
    states: dict[int, BoardState]
    workers: list[Worker]
    acked: set[int]
    problems: list[str]
    feed: Feed

    def notify(self, no: int, view: dict[str, Any], event: dict[str, Any] | None) -> None: ...


class OptionError(ValueError):
    """A new session's option that is not one (400: nothing was touched)."""


class SessionError(ValueError):
    """A session request the server refuses (bad input; nothing changed)."""


_CALLS = ("status", "configure", "levers", "start", "pause", "resume", "new_game", "finish",
          "penalty", "knock", "set", "load")  # fmt: skip


class FedClock:
    """The ``Clock`` a server session sees: events as the board's worker kept
    them, every command to the real clock (on the worker's thread)."""

    def __init__(self, hall: Hall, no: int) -> None:
        self.hall = hall
        self.no = no
        self.queue: deque[Stored] = deque()
        self.floor: tuple[str, int] = ("", -1)  # (boot, seq): events up to it are not the game's
        self.row = 0  # the store row of the last event handed to the session

    def _worker(self) -> Worker:
        for w in self.hall.workers:
            if w.st is not None and w.st.board.no == self.no and w.clock is not None:
                return w
        raise LinkError("board %d: the clock is not connected" % self.no)

    def _clock(self) -> Clock:
        w = self._worker()
        if w.st is None or w.st.link != "up" or w.clock is None:
            raise LinkError("board %d: the clock is not connected" % self.no)
        return w.clock

    def feed(self, stored: Stored) -> None:
        if stored.boot != "host":
            self.queue.append(stored)

    def events(self, timeout: float = 0.0) -> list[Any]:
        try:
            self._worker().pull()  # what the clock said since the worker last read it
        except LinkError:
            pass
        out = []
        while self.queue:
            s = self.queue.popleft()
            self.row = s.id
            if s.boot == self.floor[0] and s.event.seq <= self.floor[1]:
                continue
            out.append(s.event)
        return out

    def since(self, seq: int) -> list[Any]:
        """Events after ``seq`` come by ``events`` (those kept before are not the game's)."""
        clock = self._clock()
        self.floor = (clock.link.boot, seq)
        return []

    @property
    def hello(self) -> Any:
        return self._clock().hello


def _delegate(name: str) -> Callable[..., Any]:
    def call(self: FedClock, *args: Any, **kw: Any) -> Any:
        return getattr(self._clock(), name)(*args, **kw)

    call.__name__ = name
    return call


for _name in _CALLS:
    setattr(FedClock, _name, _delegate(_name))


@dataclass
class Game:
    """One board's session: its console, journal and clock."""

    no: int
    session: int  # the board's session number in the store
    console: Console
    journal: Journal
    fed: FedClock
    keys: set[str] = field(default_factory=set)  # idempotency keys in its journal
    seen: int = 0  # notices of the session's log looked at for alerts
    alerts: list[dict[str, Any]] = field(default_factory=list)
    view: dict[str, Any] = field(default_factory=dict)
    broken: str = ""  # why the session must be rebuilt from the store before it goes on
    acting: bool = False  # inside one of its actions
    game_no: int = 0  # the board's game it records (0: a session from before it was kept)


class Sessions:
    """The hall's sessions, one per board with a game."""

    def __init__(self, hall: Hall) -> None:
        self.hall = hall
        self.games: dict[int, Game] = {}
        self.late_entry = True  # the hall's sessions take moves entered after their presses

    # -- the worker's hooks (its thread) ---------------------------------------------------

    def on_event(self, no: int, stored: Stored) -> None:
        g = self.games.get(no)
        if g is None:
            return
        own = g.acting  # a control the session itself loads (chess III.4) keeps its game
        if (
            stored.event.name == "config"
            and stored.boot != "host"
            and g.fed.floor[1] >= 0
            and not own
        ):
            if not (stored.boot == g.fed.floor[0] and stored.event.seq <= g.fed.floor[1]):
                self.close(no, "a new game on the clock")  # the hall set the clock up again
                return
        g.fed.feed(stored)

    def after_events(self, no: int) -> None:
        g = self.games.get(no)
        if g is None or not g.fed.queue or g.broken:
            return
        try:
            g.console.poll()
        except Exception as e:  # the store or the clock failed inside: rebuilt before it goes on
            g.broken = str(e)
        self._settle(g)

    def connected(self, no: int) -> None:
        """The clock is (back) up: the board shows the control the clock runs
        (a board's kept spec can be another's after a clock was set up
        elsewhere), and a session the restart could not rebuild is tried again."""
        from qizhong import timecontrol

        st = self.hall.states.get(no)
        w = self.fed_worker(no)
        if st is None or w is None or w.clock is None:
            return
        running = w.clock.time_control()
        try:
            canon = [timecontrol.spec_of(timecontrol.parse(x)) for x in (running, st.board.spec)]
            same = canon[0] == canon[1]
        except ValueError:
            same = False
        if not same:
            self.hall.store.set_board(no, spec=running)
            st.board = next(b for b in self.hall.store.boards() if b.no == no)
            self.hall.notify(no, st.view(), None)
        if no not in self.games:
            try:
                self.load(no)
            except Exception as e:  # damaged: reported, the board goes on without it
                self.hall.problems.append("board %d: the session was not rebuilt: %s" % (no, e))
        g = self.games.get(no)
        if g is not None and not g.broken and not g.console.session.over:
            # What the clock did while nobody listened waits for its moves (never XQ-R19).
            g.journal.said(self._act(g, "late %d" % w.clock.status().seq))
            self._settle(g)

    def fed_worker(self, no: int) -> Worker | None:
        for w in self.hall.workers:
            if w.st is not None and w.st.board.no == no:
                return w
        return None

    # -- making and ending sessions (the worker's thread) ---------------------------------

    def create(self, no: int, opts: dict[str, Any], configure: bool = False) -> Game:
        """A new session on board ``no``: ``opts`` are ``qizhong arbiter``'s
        options (spec, names, ...). ``configure``: the session sets the clock up
        (it must be between games); else it takes the game the clock has."""
        from qizhong.arbiter.console import KEPT_ARGS, Console, make_session
        from qizhong.arbiter.journal import VERSION, Journal
        from qizhong.arbiter.session import ArbiterError

        st = self.hall.states[no]
        args = _args(opts, st.board, self.late_entry)  # every option checked before anything
        n = self.hall.store.last_session(no) + 1
        fed = FedClock(self.hall, no)
        fed.row = self._last_row(no)
        clock = fed._clock()
        header: dict[str, Any] = {
            "journal": VERSION,
            "args": {**{k: args.get(k) for k in KEPT_ARGS}, "configure": configure},
            "clock": {"id": clock.hello.id, "boot": clock.hello.boot},
            "record": "",
            "game_no": st.game_no,  # the board's game it records (a round's game's record)
        }
        journal = Journal.on("board %d session %d" % (no, n), cast("Clock", fed),
                             self._sink(no, n, fed))  # fmt: skip
        journal._line(header)
        try:
            with journal.action("new"):
                session = make_session(
                    argparse.Namespace(**header["args"]), cast("Clock", journal.tape)
                )
        except (ArbiterError, ValueError) as e:  # refused: the game in play goes on
            self.hall.store.drop_session(no, n)
            if isinstance(e, ArbiterError):
                raise
            raise SessionError(str(e)) from None
        g = Game(no, n, Console(session, journal=journal), journal, fed, game_no=st.game_no)
        if no in self.games:
            self.close(no, "a new session")
        self.games[no] = g
        self._settle(g)
        return g

    def close(self, no: int, why: str) -> None:
        g = self.games.pop(no, None)
        if g is not None:
            self.hall.store.add_entry(no, g.session, g.fed.row, {"close": why})
            self._to_board(g, closed=True)

    def regame(self, no: int) -> None:
        """The board's game changed (``players``, between games): its open session
        of the old game, with no move yet, is closed; the next line makes one of
        the board's game (its moves went to a board of another game: 500 at every
        address of the board)."""
        from qizhong.arbiter.chess import ChessSession
        from qizhong.arbiter.go import GoSession

        g = self.games.get(no)
        st = self.hall.states.get(no)
        if g is None or st is None:
            return
        s = g.console.session
        kind = "go" if isinstance(s, GoSession) else "chess" if isinstance(s, ChessSession) else (
            "xiangqi")  # fmt: skip
        if kind != st.board.game and not s.played:
            st.start = start.USUAL  # its FEN is no start of the board's game
            self.close(no, "the board's game is now %s" % st.board.game)

    def rename(self, no: int, first: str | None, second: str | None) -> None:
        """The board's players changed (``players``): its open session's record
        names them from now on, and so does the session rebuilt after a restart
        (a ``names`` entry in its journal). None: that name stays."""
        g = self.games.get(no)
        if g is None:  # one not rebuilt yet (its clock away): its journal has them for then
            n = self.hall.store.last_session(no)
            rows = self.hall.store.entries(no, n) if n else []
            if rows and "close" not in rows[-1][2]:
                self.hall.store.add_entry(no, n, rows[-1][1], {"names": [first, second]})
            return
        self.hall.store.add_entry(no, g.session, g.fed.row, {"names": [first, second]})
        _set_names(g.console.session, first, second)
        self._settle(g)

    def _sink(self, no: int, n: int, fed: FedClock) -> Callable[[dict[str, Any]], None]:
        store = self.hall.store

        def sink(entry: dict[str, Any]) -> None:
            store.add_entry(no, n, fed.row, entry)

        return sink

    def _last_row(self, no: int) -> int:
        rows = self.hall.store._read("SELECT MAX(id) FROM events WHERE board=?", (no,))
        return int(rows[0][0] or 0)  # type: ignore[call-overload]

    # -- a restart: every session again from the store --------------------------------

    def restore(self) -> list[str]:
        """Rebuild every board's open session from its journal in the store;
        what could not be rebuilt, one line each."""
        problems = []
        for no in sorted(self.hall.states):
            try:
                self.load(no)
            except Exception as e:  # one board's damaged journal stops no other board
                problems.append("board %d: the session was not rebuilt: %s" % (no, e))
        return problems

    def load(self, no: int) -> Game | None:
        from qizhong.arbiter import journal as jr
        from qizhong.arbiter.console import replay

        n = self.hall.store.last_session(no)
        if not n:
            return None
        rows = self.hall.store.entries(no, n)
        if not rows or "close" in rows[-1][2]:
            self.games.pop(no, None)
            return None
        header, actions = jr.parse([e for _, _, e in rows], "board %d session %d" % (no, n))
        fed = FedClock(self.hall, no)
        fed.row = max(r for _, r, _ in rows)
        journal = jr.Journal.on("board %d session %d" % (no, n), cast("Clock", fed),
                                self._sink(no, n, fed))  # fmt: skip
        # events up to the last status its "new" action had were before the game
        first = actions[0][1] if actions else []
        for entry in first:
            if entry.get("c") == "status" and "r" in entry:
                fed.floor = (str(header["clock"].get("boot", "")), int(entry["r"]["seq"]))
        console = replay(header, actions, journal)
        for _, _, e in rows:  # the players named since the session began
            names = e.get("names")
            if isinstance(names, list) and len(names) == 2:
                _set_names(console.session, *(x if isinstance(x, str) else None for x in names))
        g = Game(no, n, console, journal, fed, game_no=int(header.get("game_no") or 0))
        g.keys = {str(e["key"]) for _, _, e in rows if "key" in e}
        for s in self.hall.store.events(no, fed.row):  # kept after the session last looked
            fed.feed(s)
        self.games[no] = g
        self._settle(g)
        return g

    # -- actions (the worker's thread) --------------------------------------------------

    def handle(
        self, no: int, line: str, key: str = "", opts: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """One typed line on board ``no``'s session, made first if there is none."""
        if key:
            kept = self.hall.store.answer(key)
            if kept is not None:
                return dict(kept[1], repeated=True)
        g = self.games.get(no)
        if g is None or g.broken:  # one the restart could not rebuild, or cut short: again
            self.games.pop(no, None)
            g = self.load(no)
        if key and g is not None and key in g.keys:  # in the journal: applied before a stop
            return {"ok": True, "lines": ["(applied before: %s)" % line], "repeated": True}
        if g is None:
            g = self.create(no, opts or {}, configure=False)
        lines = self._act(g, line, key)
        if key:
            g.keys.add(key)
        g.journal.said(lines)
        self._settle(g)
        answer = {"ok": not any(x.startswith("?") for x in lines), "lines": lines}
        if key:
            self.hall.store.put_answer(key, no, answer)
        return answer

    def _act(self, g: Game, line: str, key: str = "") -> list[str]:
        """``line`` on ``g``'s console, journaled."""
        g.acting = True
        try:
            with g.journal.action("handle", line, key=key):
                return g.console._handle(line)
        except Exception as e:  # cut short (the clock lost mid-action): replayed from the store
            g.broken = str(e)
            raise
        finally:
            g.acting = False

    # -- what the hall shows -------------------------------------------------------------

    def _settle(self, g: Game) -> None:
        """After an action or events: the board's moves, alerts and session view."""
        s = g.console.session
        log = s.log
        for i in range(g.seen, len(log)):
            kind = _alert_kind(log[i].kind, log[i].text, log[i].rule)
            if kind:
                g.alerts.append({"id": -(g.session * ALERT_BASE + i), "kind": kind, "side": -1,
                                 "text": str(log[i]), "rule": log[i].rule})  # fmt: skip
        g.seen = len(log)
        g.view = _view(g)
        self._to_board(g)

    def _to_board(self, g: Game, closed: bool = False) -> None:
        st = self.hall.states.get(g.no)
        if st is None:
            return
        if not closed:
            played = g.console.session.played
            st.played = [p.text for p in played]
            st.played_clocks = [p.clock_ms for p in played]  # a press ruled on is no move's
            st.start = start.of_session(g.console.session)  # a FEN, a Go setup: every record's
            self._counted(g, st.game_no)
        acked = self.hall.acked
        known = {a["id"] for a in st.alerts}
        for a in g.alerts:
            if a["id"] not in known and a["id"] not in acked:
                st.alerts.append(dict(a, t=st.t, host_ms=0, game=st.game_no))
                known.add(a["id"])
        g.alerts = []
        st.session_rev += 1
        self.hall.notify(g.no, st.view(), None)

    def _counted(self, g: Game, game_no: int) -> None:
        """A Go game the session ended by its count: the score is the game's (its
        SGF ``RE``, the round's results), kept as ``qizhong round score`` keeps one;
        a score the arbiter entered stands."""
        from qizhong.arbiter.go import GoSession

        s = g.console.session
        out = getattr(s, "outcome", None)
        if not (isinstance(s, GoSession) and s.over and out is not None and out.score is not None):
            return
        feed = self.hall.feed
        if (g.no, game_no) in feed.scores:
            return
        score = out.sgf()
        args: dict[str, object] = {"game": game_no, "score": score}
        aid = self.hall.store.add_action(g.no, "score", args, "session")
        self.hall.store.action_done(aid, "ok")
        feed.scores[(g.no, game_no)] = score

    def game_record(self, no: int, game_no: int, tags: Any = None) -> tuple[str, str] | None:
        """The record of board ``no``'s game ``game_no`` as its session kept it
        (moves, times, rulings, the engine's proposals, the result and why), with
        ``tags`` (the round's ``Info``: event, site, date, round, board, names) over
        its own; None if no session recorded that game. The open session's on the
        worker's thread; a closed one's is its journal run again, offline."""
        g = self.games.get(no)
        if g is not None and g.game_no == game_no:
            return _tagged(g.console.session, tags)
        from qizhong.arbiter import journal as jr
        from qizhong.arbiter.console import replay

        for n in range(self.hall.store.last_session(no), 0, -1):
            rows = self.hall.store.entries(no, n)
            if not rows or rows[0][2].get("game_no") != game_no:
                continue
            try:
                header, acts = jr.parse([e for _, _, e in rows], "board %d session %d" % (no, n))
                journal = jr.Journal.on("board %d session %d" % (no, n),
                                        cast("Clock", _Offline()), lambda e: None)  # fmt: skip
                console = replay(header, acts, journal)
            except Exception:  # a journal that does not replay offline: the feed's record then
                return None
            for _, _, e in rows:
                names = e.get("names")
                if isinstance(names, list) and len(names) == 2:
                    _set_names(console.session, *(x if isinstance(x, str) else None for x in names))
            return _tagged(console.session, tags)
        return None

    def record(self, no: int) -> tuple[str, str]:
        """The board's session record (PGN or SGF text) and its suffix (the worker's thread)."""
        g = self.games.get(no)
        if g is None:
            raise SessionError("board %d has no session" % no)
        info = getattr(self.hall, "rounds", None)
        tags = info.info(no, g.game_no) if info is not None and g.game_no else None
        return _tagged(g.console.session, tags)

    def view(self, no: int) -> dict[str, Any]:
        g = self.games.get(no)
        return g.view if g is not None else {"active": False}


def _args(opts: dict[str, Any], board: Any, late: bool = True) -> dict[str, Any]:
    """``qizhong arbiter``'s options for a session on ``board``, from ``opts``,
    each checked (``SessionError`` names the first bad one): a new session is
    refused before the board's game is touched (#34 item 1)."""
    from qizhong import timecontrol

    known = {"first", "second", "red", "black", "white", "configure", *KEPT_OPTS}
    for k in opts:
        if k not in known:
            raise OptionError("%s: no such option" % str(k)[:40])
    game = str(opts.get("game") or board.game)
    if game not in SPECS:
        raise OptionError("game: xiangqi, go or chess")
    if game != board.game:  # its records, page and rounds are the board's game's
        raise OptionError("game: board %d plays %s; its game is set first (players), between "
                          "games" % (board.no, board.game))  # fmt: skip
    first_word, second_word = {"xiangqi": ("red", "black"), "go": ("black", "white"),
                               "chess": ("white", "black")}[game]  # fmt: skip
    out: dict[str, Any] = {
        "game": game, "spec": _text(opts, "spec") or board.spec or SPECS[game],
        "left": _choice(opts, "left", ("red", "black", "white")), "red": None, "black": None,
        "white": None, "event": _text(opts, "event"), "site": _text(opts, "site"),
        "round": _text(opts, "round"),
        "date": _text(opts, "date") or datetime.date.today().isoformat(),
        "fen": _text(opts, "fen"), "knockout": _flag(opts, "knockout", False),
        "late_entry": _flag(opts, "late_entry", late),
        "size": _whole(opts, "size", 19, (9, 13, 19)), "komi": _text(opts, "komi") or "7.5",
        "lang": _text(opts, "lang") or "en", "chess960": opts.get("chess960"),
        "emt": _flag(opts, "emt", False),
        "repetition": _choice(opts, "repetition", ("cxa", "axf")) or "cxa",
        "board": _text(opts, "board"), "handicap": _whole(opts, "handicap", 0, range(10)),
    }  # fmt: skip
    out[first_word] = _text(opts, first_word) or _text(opts, "first") or board.first or ""
    out[second_word] = _text(opts, second_word) or _text(opts, "second") or board.second or ""
    try:
        timecontrol.parse(out["spec"])
    except ValueError as e:
        raise OptionError("spec: %s" % e) from None
    try:
        datetime.date.fromisoformat(out["date"].replace(".", "-"))
    except ValueError:
        raise OptionError("date: YYYY-MM-DD") from None
    try:
        komi = float(out["komi"])
    except ValueError:
        raise OptionError("komi: a number of points, as 7.5") from None
    if not -100 <= komi <= 100 or komi * 2 != int(komi * 2):
        raise OptionError("komi: a number of points from -100 to 100, whole or half")
    if out["chess960"] is not None and not (
        isinstance(out["chess960"], bool)
        or (isinstance(out["chess960"], int) and 0 <= out["chess960"] <= 959)
    ):
        raise OptionError("chess960: true, false or a position number 0-959")
    if out["handicap"] == 1:
        raise OptionError("handicap: 0, or 2 to 9 stones")
    if out["left"] is not None and out["left"] not in (first_word, second_word):
        raise OptionError("left: %s or %s" % (first_word, second_word))
    _start_checked(game, out)
    return out


def _start_checked(game: str, out: dict[str, Any]) -> None:
    """The game's start from ``out`` (a FEN, Chess960, a Go handicap) checked by
    the game's rules, as its session will set it up: ``OptionError`` naming the
    option (a 400) rather than the session's refusal after it (a 409)."""
    fen = out["fen"]
    if game != "chess" and out["chess960"] not in (None, False):
        raise OptionError("chess960: chess only")
    if game == "xiangqi" and fen is not None:
        from qizhong.rules import xiangqi

        try:
            over = xiangqi.Board(fen).outcome()
        except xiangqi.XiangqiError as e:
            raise OptionError("fen: %s" % e) from None
        if over is not None:  # a game that could not begin (its session waited for ever)
            raise OptionError("fen: the game is over in this position: %s" % over.reason)
    elif game == "chess":
        from qizhong.rules import chess

        c960 = out["chess960"]
        if out["lang"] not in chess.LANGUAGES:
            raise OptionError("lang: one of %s" % ", ".join(chess.LANGUAGES))
        if fen is not None and c960 is not None and not isinstance(c960, bool):
            raise OptionError("chess960: a start position's number or a fen, not both")
        if fen is not None:
            try:
                board = chess.Board(fen, chess960=bool(c960))
            except ValueError as e:
                raise OptionError("fen: %s" % e) from None
            if not board.is_valid():
                raise OptionError("fen: not a position chess can reach: %s" % board.status().name)
            ending = board.ending()
            if ending is not None:
                raise OptionError("fen: the game is over in this position: %s" % ending.reason)
    elif game == "go":
        if fen is not None:
            raise OptionError("fen: Xiangqi and chess only (a Go game starts from size, komi and "
                              "handicap)")  # fmt: skip
        size, most = out["size"], 5 if out["size"] == 9 else 9
        if out["handicap"] > most:
            raise OptionError("handicap: 2 to %d stones on %dx%d" % (most, size, size))


class _Offline:
    """The clock of a finished game's session run again from its journal: every
    answer comes from the journal; a call past it fails (the game is not replayable)."""

    def __getattr__(self, name: str) -> Any:
        def call(*args: Any, **kw: Any) -> Any:
            raise LinkError("a finished game's session does not reach the clock")

        return call


def _tagged(session: Any, tags: Any) -> tuple[str, str]:
    """``session``'s record text (and suffix) with a round's tags over its own."""
    from qizhong.arbiter.go import GoSession

    if tags is not None:
        if isinstance(session, GoSession):
            props = {"EV": tags.event, "RO": tags.round, "PC": tags.site,
                     "GN": "board %d" % tags.board if tags.board else ""}  # fmt: skip
            session.properties.update({k: v for k, v in props.items() if v})
            if tags.date:
                session.date = tags.date
        else:
            heads = {"Event": tags.event, "Site": tags.site, "Round": tags.round,
                     "Board": str(tags.board) if tags.board else "",
                     "Date": tags.date.replace("-", ".") if tags.date else ""}  # fmt: skip
            session.headers.update({k: v for k, v in heads.items() if v})
        _set_names(session, tags.first or None, tags.second or None)
    return session.record_text(), session.suffix()


KEPT_OPTS = ("game", "spec", "left", "event", "site", "round", "date", "fen", "knockout",
             "late_entry", "size", "komi", "lang", "chess960", "emt", "repetition", "board",
             "handicap")  # fmt: skip


def _text(opts: dict[str, Any], key: str) -> str | None:
    v = opts.get(key)
    if v is None or v == "":
        return None
    if isinstance(v, bool) or not isinstance(v, str | int | float):
        raise OptionError("%s: a text" % key)
    v = str(v)
    if len(v) > LINE_MAX or validate.unprintable(v):
        raise OptionError("%s: at most %d characters, no control characters" % (key, LINE_MAX))
    return v


def _flag(opts: dict[str, Any], key: str, default: bool) -> bool:
    v = opts.get(key, default)
    if not isinstance(v, bool):
        raise OptionError("%s: true or false" % key)
    return v


def _whole(opts: dict[str, Any], key: str, default: int, allowed: Any) -> int:
    v = opts.get(key)
    if v is None or v == "":
        return default
    if isinstance(v, str) and v.isascii() and v.isdigit() and len(v) < 4:
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int) or v not in allowed:
        raise OptionError("%s: one of %s" % (key, ", ".join(str(a) for a in allowed)))
    return v


def _choice(opts: dict[str, Any], key: str, allowed: tuple[str, ...]) -> str | None:
    v = opts.get(key)
    if v is None or v == "":
        return None
    if v not in allowed:
        raise OptionError("%s: one of %s" % (key, ", ".join(allowed)))
    return str(v)


def _set_names(session: Any, first: str | None, second: str | None) -> None:
    """The players' names in ``session``'s record (PGN tags, SGF PB/PW)."""
    from qizhong.arbiter.chess import ChessSession
    from qizhong.arbiter.go import GoSession

    if isinstance(session, GoSession):
        if first is not None:
            session.black = first
        if second is not None:
            session.white = second
        return
    tags = ("White", "Black") if isinstance(session, ChessSession) else ("Red", "Black")
    for tag, name in zip(tags, (first, second), strict=True):
        if name:
            session.headers[tag] = name
        elif name is not None:
            session.headers.pop(tag, None)


def _alert_kind(kind: str, text: str, rule: str) -> str:
    if kind == "foul":
        return "nomove" if rule in ("XQ-R19", "CH-1 7.5.3") or "without" in text else "foul"
    if kind == "warn" and text.startswith("the engine proposes"):
        return "proposal"
    return ""


def _go_position(board: Any) -> dict[str, Any]:
    """A Go session's board for the page's drawing (the feed's shape: [col, row from
    the top], colour): a 9x9 or 13x13 game, and handicap stones, as the session has them."""
    from qizhong.rules import go

    n = board.size
    stones = []
    for x in range(n):
        for y in range(n):
            c = board.color_at(go.Point(x, y))
            if c is not None:
                stones.append([[x, n - 1 - y], "black" if c == go.Color.BLACK else "white"])
    return {"kind": "go", "size": n, "stones": stones}


def check_line(line: str) -> str:
    """A typed line as the server takes it (bounded; no command that writes
    files on the server or leaves it)."""
    if not isinstance(line, str) or not line.strip():
        raise SessionError("line: a move or a command is needed")
    if len(line) > LINE_MAX or any(ord(c) < 32 for c in line):
        raise SessionError("line: one line of at most %d characters" % LINE_MAX)
    verb = line.split()[0].lower()
    if verb in BARRED and (verb != "board" or len(line.split()) > 1):
        raise SessionError("%s is the console's own (the server keeps the record)" % verb)
    return line.strip()


def _ends(result: Any, sides: tuple[str, str]) -> str:
    """What confirming a proposal does, in plain words: "Black wins", "a draw", or
    "" (play goes on)."""
    if result is None:
        return ""
    return "a draw" if result.winner is None else "%s wins" % sides[result.winner]


def _view(g: Game) -> dict[str, Any]:
    """The session as the board page shows it."""
    from qizhong.arbiter.chess import ChessSession
    from qizhong.arbiter.go import GoSession
    from qizhong.arbiter.xiangqi import XiangqiSession

    s = g.console.session
    out: dict[str, Any] = {
        "active": True,
        "session": g.session,
        "game": "xiangqi"
        if isinstance(s, XiangqiSession)
        else "go"
        if isinstance(s, GoSession)
        else "chess",
        "spec": s.spec,
        "sides": list(s.SIDES),
        "moves": [
            {"ply": p.ply, "side": p.side, "text": p.text, "left": p.clock_ms, "used": p.used_ms}
            for p in s.played
        ],
        "waiting": [p.side for p in s._open],
        "fouls": list(s.fouls),
        "over": s.over,
        "result": s.result_text() if s.over else "",
        "log": [{"kind": n.kind, "text": str(n)} for n in s.log[-200:]],
        "log_n": len(s.log),  # the log's whole length (``log`` is its end)
        "proposal": None,
        "strict": bool(getattr(s, "strict", False)),
        "commands": sorted(c for c in g.console.commands if c not in BARRED and c != "?"),
    }
    if isinstance(s, XiangqiSession):
        out["kind"] = "xiangqi"
        p = s.proposal
        if p is not None:
            out["proposal"] = {"what": p.what, "verdict": p.verdict, "rule": p.rule,
                               "reasons": [r.strip() for r in p.reasons],
                               "ends": _ends(p.result, s.SIDES)}  # fmt: skip
        out["offer"] = s.offer_by
    elif isinstance(s, GoSession):
        out["kind"] = "go"
        out["dead"] = sorted(pt.gtp() for pt in s.dead_stones)
        out["position"] = _go_position(s.board)  # its size and handicap stones, as played
        out["play_over"] = s.board.is_game_over()
        if out["play_over"]:
            sc = s.score()
            out["score"] = "%s (%s)" % (sc.chinese(), sc.sgf())
    elif isinstance(s, ChessSession):
        out["kind"] = "chess"
        out["fen"] = s.board.fen()
        out["offer"] = getattr(s, "offer_by", -1)
        out["illegal"] = list(s.illegal_moves)  # 7.5.5: the page says what the next one does
    return out
