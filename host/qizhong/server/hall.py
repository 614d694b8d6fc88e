# SPDX-License-Identifier: GPL-3.0-or-later
"""The hall server's state (``Hall``): the store, one worker per clock, the
pages' sockets, the arbiter's logins, and every board's session.

The HTTP API around it is app.py's (and rounds.py's); this module imports
neither, so the layers go one way: store, board, feed, session, hall,
actions, rounds, app.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

from aiohttp import web

from qizhong.server import validate
from qizhong.server.board import BoardState, Worker, same_news
from qizhong.server.feed import Feed
from qizhong.server.logins import Logins, Tokens, client
from qizhong.server.password import Password
from qizhong.server.session import Sessions
from qizhong.server.store import Store
from qizhong.server.viewers import Viewer

COOKIE = "qizhong_arbiter"
MAX_REMOTE = 2000  # other servers' boards shown here
REMOTE_S = 0.5  # other servers' boards go to the pages this often ...
REMOTE_BATCH = 100  # ... at most this many at a time (200 a second)


class Hall:
    """The server's state: the store, one worker per port, the open WebSockets."""

    def __init__(
        self,
        store: Store,
        password: str | Password,
        tournament: str = "hall",
        beat_s: float = 5.0,
        trusted: frozenset[str] = frozenset(),
    ) -> None:
        self.store = store
        self.trusted = trusted  # reverse proxies whose X-Forwarded-For is believed
        self.beat_s = beat_s  # a ``beat`` to every page this often: silence means a lost server
        self.password = password if isinstance(password, Password) else Password(password)
        self.tournament = tournament
        self.states: dict[int, BoardState] = {}
        self.workers: list[Worker] = []
        self.sockets: weakref.WeakSet[web.WebSocketResponse] = weakref.WeakSet()
        self.viewers: set[Viewer] = set()
        self.boards_made: dict[bool, tuple[float, bytes]] = {}  # /api/boards, as last made
        self.logins = Logins()
        self.tokens = Tokens(store)  # the arbiter's logins (cookies), kept across a restart
        self._tasks: set[asyncio.Future[None]] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.remote: dict[str, dict[str, Any]] = {}  # other servers' boards (MQTT), by clock id
        self._remote_lock = threading.Lock()  # paho's thread writes, the loop reads
        self._remote_keys: dict[str, str] = {}  # a remote board's key -> the clock id showing it
        self._remote_json: dict[str, str] = {}  # each one's JSON, made once per state
        self._dirty: dict[str, str] = {}  # other servers' boards not yet sent: key -> JSON
        self._flushing = False  # a flush of ``_dirty`` is due on the loop
        self.remote_made: tuple[float, bytes] | None = None  # /api/boards?all=1's remote part
        self.listeners: list[Callable[[int, dict[str, Any], dict[str, Any] | None], None]] = []
        self.acked: set[int] = set()
        self.shown: dict[int, dict[str, Any]] = {}  # each board's last view told (#32)
        self.in_flight: dict[str, asyncio.Event] = {}  # idempotency keys being acted on
        self.started_ms = time.time_ns() // 1_000_000  # a page tells a restart by it
        self.interrupted = store.interrupted()  # none stays pending across a restart
        self._restore()
        self.feed = Feed(store, self.states)  # the records, built as moves arrive
        self.listeners.append(self.feed.on_change)
        self.games = Sessions(self)
        self.bridge: Any = None  # the broker bridge (mqtt.Bridge), with --mqtt
        self.rounds: Any = None  # the tournament's rounds (rounds.py), once the app has them
        self.problems = self.games.restore()  # every board's game again, from the store

    def _restore(self) -> None:
        """Every board's state again from the store (after a restart)."""
        acked = self.acked = self.store.acked()
        for b in self.store.boards():
            self.states[b.no] = BoardState(b, link="connecting")
        moves: dict[int, list[tuple[int, int, str]]] = {}
        for a in self.store.actions():
            if a["verb"] == "move" and a["outcome"] == "ok":
                args: Any = a["args"]
                board: Any = a["board"]
                aid: Any = a["id"]
                moves.setdefault(int(board), []).append(
                    (int(aid), int(args["game"]), str(args["text"]))
                )
        for st in self.store.events():
            if st.board in self.states:
                self.states[st.board].apply(st, acked)
        for no, kept in moves.items():
            if no in self.states:
                s = self.states[no]
                s.played = [text for _, game, text in sorted(kept) if game == s.game_no]

    def add_port(self, port: str, game: str = "xiangqi", spec: str = "") -> Worker:
        w = Worker(port, self.store, self.notify, game, spec, self.states)
        w.on_event = self.games.on_event
        w.after_events = self.games.after_events
        w.on_connect = self.games.connected
        self.workers.append(w)
        w.start()
        return w

    def worker(self, no: int) -> Worker:
        for w in self.workers:
            if w.st is not None and w.st.board.no == no:
                return w
        raise web.HTTPNotFound(text="no clock connected for board %d" % no)

    # -- news to the pages (from the workers' threads) ---------------------------------------

    def notify(self, no: int, view: dict[str, Any], event: dict[str, Any] | None) -> None:
        """A board changed: its listeners and every page hear of it. A state
        that shows nothing new (a heartbeat's ``status``: ``same_news``) is
        told to no one."""
        if event is None and same_news(self.shown.get(no), view):
            return
        self.shown[no] = view
        if event is not None:
            self.boards_made.clear()
        for fn in list(self.listeners):
            fn(no, view, event)
        if self.loop is not None and not self.loop.is_closed():
            msg = validate.dumps({"type": "board", "board": view, "event": event})
            # A state replaces the board's older one not yet sent; an event is never dropped.
            key = str(view["key"]) if event is None else "event-%s" % event.get("id")
            self.loop.call_soon_threadsafe(self._send_all, key, msg)

    def remote_board(self, view: dict[str, Any]) -> None:
        """Another server's board, as the broker brought it (read-only here),
        already checked (``validate.remote_view``). A board's key (server and
        number) belongs to the first clock that showed it, until that one is
        down: a fake board cannot take another's card."""
        cid, key = str(view["clock_id"]), str(view["key"])
        with self._remote_lock:
            owner = self._remote_keys.get(key)
            if owner is not None and owner != cid and self.remote[owner]["link"] != "down":
                return
            if cid not in self.remote and len(self.remote) >= MAX_REMOTE:
                return
            if owner is not None and owner != cid:  # a down clock's card, taken
                del self.remote[owner], self._remote_json[owner]
            was = self.remote.get(cid)
            if was is not None and self._remote_keys.get(was["key"]) == cid:
                del self._remote_keys[was["key"]]  # the clock moved to another card
            self._remote_keys[key] = cid
            self._set_remote(cid, view)

    def remote_gone(self, clock_id: str) -> None:
        """A board's retained state was cleared on the broker: shown ``down``."""
        with self._remote_lock:
            view = self.remote.get(clock_id)
            if view is None or view["link"] == "down":
                return
            self._set_remote(clock_id, dict(view, link="down", link_text="gone from the broker"))

    def server_down(self, server: str) -> None:
        """Another server stopped (or died: its last will): its boards ``down``."""
        with self._remote_lock:
            gone = [
                c for c, v in self.remote.items() if v["server"] == server and v["link"] != "down"
            ]
            for c in gone:
                view = dict(self.remote[c], link="down", link_text="its server is gone")
                self._set_remote(c, view)

    def _set_remote(self, cid: str, view: dict[str, Any]) -> None:
        """Another server's board changed (``_remote_lock`` held): its JSON is
        made once, for the pages and ``/api/boards?all=1`` alike. The pages
        get it in batches (``REMOTE_S``, at most ``REMOTE_BATCH`` boards
        each, the newest state of each): what the broker brings, a flood
        included, is bounded before the pages, and costs the loop one wake
        a batch, not one a message."""
        self.remote[cid] = view
        text = self._remote_json[cid] = validate.dumps(view)
        key = str(view["key"])
        self._dirty.pop(key, None)  # re-inserted at the end: boards go out in order of change
        self._dirty[key] = text
        if not self._flushing and self.loop is not None and not self.loop.is_closed():
            self._flushing = True
            self.loop.call_soon_threadsafe(self.loop.call_later, REMOTE_S, self._flush_remote)

    def _flush_remote(self) -> None:
        with self._remote_lock:
            keys = list(itertools.islice(self._dirty, REMOTE_BATCH))
            batch = [(key, self._dirty.pop(key)) for key in keys]
            again = bool(self._dirty) and self.loop is not None and not self.loop.is_closed()
            self._flushing = again
        for key, text in batch:
            self._send_all(key, '{"type": "board", "board": %s, "event": null}' % text, False)
        if again and self.loop is not None:
            self.loop.call_later(REMOTE_S, self._flush_remote)

    def remote_views(self) -> list[dict[str, Any]]:
        """Other servers' boards (MQTT), by clock id."""
        with self._remote_lock:
            return [v for _, v in sorted(self.remote.items())]

    def remote_text(self) -> str:
        """``remote_views`` as JSON, from each board's JSON as made once."""
        with self._remote_lock:
            return "[%s]" % ", ".join(t for _, t in sorted(self._remote_json.items()))

    def views(self) -> list[dict[str, Any]]:
        """Every board of the hall: this server's, then the others' (MQTT)."""
        return [s.view() for _, s in sorted(self.states.items())] + self.remote_views()

    def _send_all(self, key: str, msg: str, first: bool = True) -> None:
        """To every page: at most one waiting message per board each (viewers.py)."""
        for v in list(self.viewers):
            v.offer(key, msg, first)

    def stop(self) -> None:
        for w in self.workers:
            w.stop()
        for w in self.workers:
            w.join(timeout=5)
        self.feed.stop()

    # -- the arbiter ------------------------------------------------------------------------

    def is_arbiter(self, request: web.Request) -> bool:
        auth = request.headers.get("Authorization", "")
        if auth.startswith("Bearer "):  # a script's password: rate-limited as the login is
            address = client(request, self.trusted)
            self.logins.check(address)
            ok = self.password.check(auth[7:])
            if not ok:
                self.logins.failed(address)
            return ok
        return self.tokens.valid(request.cookies.get(COOKIE, ""))
