# SPDX-License-Identifier: GPL-3.0-or-later
"""The hall server's HTTP and WebSocket API (aiohttp), documented in docs/server.md.

Reading is public: the hall page, every board's state, its events, the live
records. Acting (time control, start, pause, penalty, knock ruling, set
times, result, players, acknowledging an alert) needs the arbiter: the
password given at start, sent once to ``/api/login`` for an HttpOnly,
SameSite=Strict cookie, or as ``Authorization: Bearer PASSWORD`` by a script.
Both are compared in constant time.

An action is written to the store before it is sent to the clock, and its
outcome after; the answer comes once both are on disk. The clock's own event
(a ``penalty`` with its new times, say) reaches every page over the WebSocket
when the clock reports it, after it too is on disk.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import threading
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import WSMsgType, web

from qizhong import timecontrol
from qizhong.clocks.driver import DRAW, Clock, CommandError, side_index
from qizhong.clocks.link import LinkError
from qizhong.core import auth as core_auth
from qizhong.server import rounds, validate
from qizhong.server.board import BoardState, Worker
from qizhong.server.feed import Feed
from qizhong.server.logins import Logins, Tokens, client
from qizhong.server.password import Password
from qizhong.server.store import Store, StoreError
from qizhong.server.viewers import Viewer

WEB = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "web")
COOKIE = "qizhong_arbiter"
MAX_REMOTE = 2000  # other servers' boards shown here
BOARDS_S = 0.25  # /api/boards is made again at most this often
REMOTE_S = 0.5  # other servers' boards go to the pages this often ...
REMOTE_BATCH = 100  # ... at most this many at a time (200 a second)
EVENTS_PAGE = 1000  # /api/events: a page's events unless ?limit= says
EVENTS_MAX = 5000  # ... and at most

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


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
        self._dirty: dict[str, str] = {}  # other servers' boards not yet sent to the pages
        self._flushing = False
        self.listeners: list[Callable[[int, dict[str, Any], dict[str, Any] | None], None]] = []
        self.acked: set[int] = set()
        self.in_flight: dict[str, asyncio.Event] = {}  # idempotency keys being acted on
        self._restore()
        self.feed = Feed(store, self.states)  # the records, built as moves arrive
        self.listeners.append(self.feed.on_change)
        from qizhong.server.session import Sessions

        self.games = Sessions(self)
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
            owner = next((c for c, v in self.remote.items() if v["key"] == key), None)
            if owner is not None and owner != cid and self.remote[owner]["link"] != "down":
                return
            if cid not in self.remote and len(self.remote) >= MAX_REMOTE:
                return
            if owner is not None and owner != cid:
                del self.remote[owner]
            self.remote[cid] = view
        self._publish_remote(view)

    def remote_gone(self, clock_id: str) -> None:
        """A board's retained state was cleared on the broker: shown ``down``."""
        with self._remote_lock:
            view = self.remote.get(clock_id)
            if view is None or view["link"] == "down":
                return
            view = self.remote[clock_id] = dict(view, link="down", link_text="gone from the broker")
        self._publish_remote(view)

    def server_down(self, server: str) -> None:
        """Another server stopped (or died: its last will): its boards ``down``."""
        with self._remote_lock:
            gone = [
                c for c, v in self.remote.items() if v["server"] == server and v["link"] != "down"
            ]
            views = []
            for c in gone:
                views.append(dict(self.remote[c], link="down", link_text="its server is gone"))
                self.remote[c] = views[-1]
        for view in views:
            self._publish_remote(view)

    def _publish_remote(self, view: dict[str, Any]) -> None:
        if self.loop is not None and not self.loop.is_closed():
            msg = validate.dumps({"type": "board", "board": view, "event": None})
            self.loop.call_soon_threadsafe(self._remote_changed, str(view["key"]), msg)

    def _remote_changed(self, key: str, msg: str) -> None:
        """Other servers' boards reach the pages in batches (``REMOTE_S``, at
        most ``REMOTE_BATCH`` boards each, the newest state of each): what
        the broker brings, a flood included, is bounded before the pages."""
        self._dirty.pop(key, None)
        self._dirty[key] = msg
        if not self._flushing and self.loop is not None:
            self._flushing = True
            self.loop.call_later(REMOTE_S, self._flush_remote)

    def _flush_remote(self) -> None:
        for _ in range(min(REMOTE_BATCH, len(self._dirty))):
            key = next(iter(self._dirty))
            self._send_all(key, self._dirty.pop(key), False)
        self._flushing = bool(self._dirty) and self.loop is not None and not self.loop.is_closed()
        if self._flushing and self.loop is not None:
            self.loop.call_later(REMOTE_S, self._flush_remote)

    def views(self) -> list[dict[str, Any]]:
        """Every board of the hall: this server's, then the others' (MQTT)."""
        mine = [s.view() for _, s in sorted(self.states.items())]
        with self._remote_lock:
            return mine + [v for _, v in sorted(self.remote.items())]

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


def _int(body: dict[str, Any], key: str) -> int:
    v = body.get(key)
    if isinstance(v, bool) or not isinstance(v, int | str):
        raise web.HTTPBadRequest(text="%s: an integer is needed" % key)
    try:
        n = int(v)
    except ValueError:
        raise web.HTTPBadRequest(text="%s: an integer is needed, not %r" % (key, v)) from None
    if not -validate.MAX_INT <= n <= validate.MAX_INT:
        raise web.HTTPBadRequest(text="%s: out of range" % key)
    return n


def _page(request: web.Request) -> tuple[int, int]:
    """``?after=ID&limit=N`` of a paged list, checked (400 with the reason)."""
    for k in request.query:
        if k not in ("after", "limit"):
            raise web.HTTPBadRequest(text="%s: no such parameter (after, limit)" % k[:40])
    after = validate.query_int(request.query.get("after", "0"), "after")
    limit = request.query.get("limit", str(EVENTS_PAGE))
    ok = limit.isascii() and limit.isdigit() and len(limit) <= 15
    if not ok or not 1 <= int(limit) <= EVENTS_MAX:
        raise web.HTTPBadRequest(text="limit: an integer from 1 to %d" % EVENTS_MAX)
    return after, int(limit)


def _players(body: dict[str, Any], st: BoardState) -> dict[str, str]:
    """The fields of ``players``, checked: names are short text without control
    characters; ``spec`` must be readable and the control the clock runs (a
    new control is ``config``'s, which loads it on the clock)."""
    fields: dict[str, str] = {}
    try:
        for k in ("first", "second"):
            if k in body:
                fields[k] = validate.player(body[k], k)
        if "game" in body:
            fields["game"] = str(body["game"])
        if "spec" in body:
            spec = validate.control(body["spec"])
            running = st.board.spec
            try:
                same = bool(running) and timecontrol.parse(running) == timecontrol.parse(spec)
            except ValueError:
                same = False
            if not same:
                raise web.HTTPConflict(
                    text="spec: %s is not the clock's control (%s): load it with config"
                    % (spec, running or "none")
                )
            fields["spec"] = spec
    except validate.Invalid as e:
        raise web.HTTPBadRequest(text=str(e)) from None
    return fields


def _side(body: dict[str, Any], game: str) -> int:
    try:
        return side_index(body.get("side", 0), game)
    except ValueError as e:
        raise web.HTTPBadRequest(text=str(e)) from None


def action(verb: str, body: dict[str, Any], game: str) -> Callable[[Clock], Any]:
    """The clock call for one arbiter action (checked here, run on the board's thread)."""
    if verb == "config":
        spec = body.get("spec", "")
        if not isinstance(spec, str) or not spec.isascii() or not spec.isprintable():
            raise web.HTTPBadRequest(text="spec: printable ASCII (docs/timecontrol.md)")
        if len(spec) > validate.MAX_TEXT:
            raise web.HTTPBadRequest(text="spec: at most %d bytes" % validate.MAX_TEXT)
        override = bool(body.get("override", False))
        return lambda c: c.configure(spec, override)
    if verb == "start":
        side = _side(body, game)
        return lambda c: c.start(side)
    if verb == "pause":
        return lambda c: c.pause()
    if verb == "resume":
        return lambda c: c.resume()
    if verb == "new":
        override = bool(body.get("override", False))
        return lambda c: c.new_game(override)
    if verb == "penalty":
        side, ms = _side(body, game), _int(body, "ms")
        return lambda c: c.penalty(side, ms)
    if verb == "knock":  # the ruling after a tilt: who knocked the clock (EQ-5)
        side = _side(body, game)
        return lambda c: c.knock(side)
    if verb == "set":  # EQ-7
        side, ms = _side(body, game), _int(body, "ms")
        moves = _int(body, "moves") if "moves" in body else None
        periods = _int(body, "periods") if "periods" in body else None
        return lambda c: c.set(side, ms, moves, periods)
    if verb == "finish":
        r = body.get("result")
        result = None if r is None else DRAW if r in (2, "draw") else _side({"side": r}, game)
        return lambda c: c.finish(result)
    raise web.HTTPNotFound(text="no action %r" % verb)


CLOCK_ACTIONS = ("config", "start", "pause", "resume", "new", "penalty", "knock", "set", "finish")


def make_app(hall: Hall) -> web.Application:
    app = web.Application(middlewares=[_errors])
    app["hall"] = hall
    beats: list[asyncio.Future[None]] = []

    async def on_startup(app: web.Application) -> None:
        hall.loop = asyncio.get_running_loop()
        hall.feed.warm()
        beats.append(asyncio.ensure_future(_beat(hall)))

    async def on_cleanup(app: web.Application) -> None:
        for task in beats:
            task.cancel()

    async def on_shutdown(app: web.Application) -> None:
        for ws in list(hall.sockets):
            await ws.close()

    app.on_startup.append(on_startup)
    app.on_shutdown.append(on_shutdown)
    app.on_cleanup.append(on_cleanup)
    rounds.add_routes(app, hall)  # before /api/boards/N/{verb}: it has .../score

    def page(name: str) -> Handler:
        async def h(request: web.Request) -> web.StreamResponse:
            return web.FileResponse(os.path.join(WEB, name))

        return h

    made = hall.boards_made

    async def boards(request: web.Request) -> web.Response:
        """Every board's state: made again at most every ``BOARDS_S`` between
        changes (a flood of requests costs one JSON text per interval, not
        one each); a clock's event or an arbiter's action makes it anew."""
        everyone = bool(request.query.get("all"))
        now = asyncio.get_running_loop().time()
        hit = made.get(everyone)
        if hit is None or now - hit[0] >= BOARDS_S:
            views = hall.views() if everyone else [s.view() for _, s in sorted(hall.states.items())]
            hit = made[everyone] = (now, validate.dumps(views).encode())
        return web.Response(body=hit[1], content_type="application/json")

    def state_of(request: web.Request) -> BoardState:
        no = validate.query_int(request.match_info["no"], "board")
        if no not in hall.states:
            raise web.HTTPNotFound(text="no board %d" % no)
        return hall.states[no]

    async def board(request: web.Request) -> web.Response:
        st = state_of(request)
        view = st.view()
        view["presses"] = st.presses
        view["position"] = await hall.feed.position(st)
        view["played_moves"] = st.played
        view["session"] = hall.games.view(st.board.no)
        view["record"] = (
            "/boards/%d.pgn" % st.board.no
            if st.board.game in ("xiangqi", "chess")
            else "/boards/%d.sgf" % st.board.no
            if st.board.game == "go"
            else ""
        )
        return web.json_response(view)

    async def events(request: web.Request) -> web.Response:
        """Kept events after row ``after``, a page of at most ``limit``
        (``EVENTS_PAGE`` unless given, ``EVENTS_MAX`` at most); when more
        follow, a ``Link: <...>; rel="next"`` header gives the next page."""
        no = (
            validate.query_int(request.match_info["no"], "board")
            if "no" in request.match_info
            else None
        )
        after, limit = _page(request)
        from qizhong.server.board import _event_json

        rows = [_event_json(s) for s in hall.store.events(no, after, limit + 1)]
        headers = {}
        if len(rows) > limit:
            rows = rows[:limit]
            headers["Link"] = '<%s?after=%d&limit=%d>; rel="next"' % (
                request.path,
                rows[-1]["id"],
                limit,
            )
        return web.json_response(rows, headers=headers)

    async def actions(request: web.Request) -> web.Response:
        return web.json_response(hall.store.actions())

    async def board_actions(request: web.Request) -> web.Response:
        """Board N's arbiter actions, oldest first (the board page's log)."""
        st = state_of(request)
        try:
            after = int(request.query.get("after", "0"))
        except ValueError:
            raise web.HTTPBadRequest(text="after: an action's id (an integer)") from None
        rows = [a for a in hall.store.actions(st.board.no) if int(str(a["id"])) > after]
        return web.json_response(rows)

    async def me(request: web.Request) -> web.Response:
        return web.json_response({"arbiter": hall.is_arbiter(request)})

    async def login(request: web.Request) -> web.Response:
        body = await _json(request)
        address = client(request, hall.trusted)
        hall.logins.check(address)  # 429 while this address (or every one) must wait
        given = str(body.get("password", ""))
        if not hall.password.check(given):
            hall.logins.failed(address)
            raise web.HTTPForbidden(text="wrong password")
        hall.logins.passed(address)
        token = secrets.token_urlsafe(32)
        hall.tokens.add(token)  # kept (hashed) for after a restart
        resp = web.json_response({"arbiter": True})
        resp.set_cookie(COOKIE, token, httponly=True, samesite="Strict", path="/")
        return resp

    async def logout(request: web.Request) -> web.Response:
        token = request.cookies.get(COOKIE, "")
        if token:
            hall.tokens.drop(token)
        resp = web.json_response({"arbiter": False})
        resp.del_cookie(COOKIE, path="/")
        return resp

    async def relay(request: web.Request) -> web.Response:
        """A request text for the clock, exactly as a ``qizhong`` command made
        it (server/client.py): queries for all, changes for the arbiter."""
        st = state_of(request)
        body = await _json(request)
        text = str(body.get("text", ""))
        words = text.split(" ")
        verb, rest = (words[1], " ".join(words[2:])) if len(words) > 1 else ("", "")
        if verb == "since":
            raise web.HTTPBadRequest(text="since: read /api/boards/N/events (the record)")
        if not core_auth.is_open(verb, rest) and not hall.is_arbiter(request):
            raise web.HTTPUnauthorized(text="arbiter's login needed")
        no = st.board.no
        worker = hall.worker(no)
        aid = 0
        if not core_auth.is_open(verb, rest):
            aid = hall.store.add_action(no, "request", {"text": text}, "arbiter")
        try:
            ok, answer = await asyncio.wrap_future(worker.call(lambda c: c.link.request_text(text)))
        except ValueError as e:
            if aid:
                hall.store.action_done(aid, "refused: %s" % e)
            raise web.HTTPBadRequest(text=str(e)) from None
        except LinkError as e:
            if aid:
                hall.store.action_done(aid, "no clock: %s" % e)
            raise web.HTTPServiceUnavailable(text=str(e)) from None
        if aid:
            hall.store.action_done(aid, "ok" if ok else "refused: %s" % answer)
        return web.json_response({"ok": ok, "text": answer})

    async def act(request: web.Request) -> web.Response:
        try:
            return await _one_at_a_time(hall, request, _act)
        finally:
            hall.boards_made.clear()  # what the action changed shows at once

    async def _act(request: web.Request) -> web.Response:
        if not hall.is_arbiter(request):
            raise web.HTTPUnauthorized(text="arbiter's login needed")
        st = state_of(request)
        no, verb = st.board.no, request.match_info["verb"]
        body = await _json(request)
        key = _key(request, body)
        if key and verb in ("ack", "players"):  # the clock's own verbs check below
            kept = hall.store.answer(key)
            if kept is not None:
                return web.json_response(dict(kept[1], repeated=True))
        if verb == "ack":
            event = _int(body, "event")
            if not any(a["id"] == event for a in st.alerts):  # this board's own alert
                raise web.HTTPNotFound(text="board %d has no alert %d to acknowledge" % (no, event))
            hall.store.ack(no, event)  # on disk before the answer
            hall.acked.add(event)
            st.ack(event)
            hall.notify(no, st.view(), None)
            if key:
                hall.store.put_answer(key, no, {"ok": True})
            return web.json_response({"ok": True})
        if verb == "move":  # the board's session takes it (checked by its rules engine)
            text = str(body.get("text", ""))
            if len(text) > validate.MAX_TEXT:
                raise web.HTTPBadRequest(text="move: at most %d characters" % validate.MAX_TEXT)
            words = text.split()
            if not words or len(words) > 2 or words[0].lower() in _COMMAND_WORDS or "?" in text:
                raise web.HTTPBadRequest(text="move: %r is not a move" % text[:40])
            got = await _session(hall, no, text, _key(request, body))
            if not got["ok"]:
                raise web.HTTPBadRequest(text="move: %s" % _why(got["lines"]))
            moves = hall.games.view(no).get("moves") or [{"text": text}]
            return web.json_response({"ok": True, "move": moves[-1]["text"], "lines": got["lines"]})
        if verb == "players":
            fields = _players(body, st)
            if fields.get("game", st.board.game) not in ("xiangqi", "go", "chess"):
                raise web.HTTPBadRequest(text="game: xiangqi, go or chess")
            if fields.get("game", st.board.game) != st.board.game and st.played:
                raise web.HTTPConflict(text="moves of this game are kept: a new game first")
            aid = hall.store.add_action(no, verb, dict(fields), "arbiter")
            hall.store.set_board(no, **fields)
            hall.store.action_done(aid, "ok")
            st.board = next(b for b in hall.store.boards() if b.no == no)
            if "first" in fields or "second" in fields:
                await _renamed(hall, no, st.game_no, fields.get("first"), fields.get("second"))
            hall.notify(no, st.view(), None)
            if key:
                hall.store.put_answer(key, no, {"ok": True})
            return web.json_response({"ok": True})
        if verb not in CLOCK_ACTIONS:
            raise web.HTTPNotFound(text="no action %r" % verb)
        call = action(verb, body, st.board.game)
        view = hall.games.view(no)
        if verb == "finish" and view.get("active") and not view.get("over"):
            # the board's game ends in its session (the record's result and why), then the clock
            r = body.get("result")
            if r is not None:
                line = "draw" if r in (2, "draw") else "win %d" % _side({"side": r}, st.board.game)
                kept = hall.store.answer(key) if key else None
                if kept is not None:  # a retry: the first send's answer (one action in the log)
                    return web.json_response(dict(kept[1], repeated=True))
                aid = hall.store.add_action(no, verb, body, "arbiter")
                got = await _session(hall, no, line, _key(request, body))
                hall.store.action_done(
                    aid, "ok" if got["ok"] else "refused: %s" % _why(got["lines"])
                )
                if not got["ok"]:
                    raise web.HTTPConflict(text=_why(got["lines"]))
                return web.json_response({"ok": True, "action": aid, "lines": got["lines"]})
        worker = hall.worker(no)
        if key:  # a retry (the answer lost, the server restarted): applied once
            kept = hall.store.answer(key)
            if kept is not None:
                return web.json_response(dict(kept[1], repeated=True))
        aid = hall.store.add_action(no, verb, body, "arbiter")  # kept before it is sent
        try:
            await asyncio.wrap_future(worker.call(call))
        except CommandError as e:
            hall.store.action_done(aid, "refused: %s" % e)
            raise web.HTTPConflict(text=str(e)) from None
        except LinkError as e:
            hall.store.action_done(aid, "no clock: %s" % e)
            raise web.HTTPServiceUnavailable(text=str(e)) from None
        except ValueError as e:  # input the link refuses before it is sent
            hall.store.action_done(aid, "refused: %s" % e)
            raise web.HTTPBadRequest(text="%s: %s" % (verb, e)) from None
        except Exception as e:  # never an action left pending
            hall.store.action_done(aid, "error: %s" % e)
            raise
        hall.store.action_done(aid, "ok")
        if verb == "config":
            _configured(hall, st, str(body.get("spec", "")))
        if verb in ("config", "new"):  # the new game's session takes the clock as it is now
            try:
                await asyncio.wrap_future(worker.call(lambda c: _fresh(hall, no)))
            except (LinkError, ValueError) as e:
                hall.problems.append("board %d: no session for the new game: %s" % (no, e))
        answer: dict[str, object] = {"ok": True, "action": aid}
        if key:
            hall.store.put_answer(key, no, answer)
        return web.json_response(answer)

    async def session_line(request: web.Request) -> web.Response:
        """A typed line for the board's session, as at ``qizhong arbiter``."""
        if not hall.is_arbiter(request):
            raise web.HTTPUnauthorized(text="arbiter's login needed")
        st = state_of(request)
        body = await _json(request)
        from qizhong.server.session import SessionError, check_line

        try:
            line = check_line(body.get("line", ""))
        except SessionError as e:
            raise web.HTTPBadRequest(text=str(e)) from None
        got = await _session(hall, st.board.no, line, _key(request, body))
        return web.json_response(dict(got, session=hall.games.view(st.board.no)))

    async def session_new(request: web.Request) -> web.Response:
        """A new session on the board: the console's options; ``configure``:
        it sets the clock up (between games), else it takes the game as it is."""
        if not hall.is_arbiter(request):
            raise web.HTTPUnauthorized(text="arbiter's login needed")
        st = state_of(request)
        no = st.board.no
        body = await _json(request)
        opts = body.get("options", {})
        if not isinstance(opts, dict):
            raise web.HTTPBadRequest(text="options: a JSON object")
        from qizhong.arbiter.session import ArbiterError
        from qizhong.server.session import SessionError

        worker = hall.worker(no)
        configure = bool(body.get("configure", False))
        key = _key(request, body)
        if key and hall.store.answer(key) is not None:  # made already: the same session
            return web.json_response({"ok": True, "repeated": True, "session": hall.games.view(no)})
        try:
            await asyncio.wrap_future(worker.call(lambda c: hall.games.create(no, opts, configure)))
        except (ArbiterError, SessionError) as e:
            raise web.HTTPConflict(text=str(e)) from None
        except LinkError as e:
            raise web.HTTPServiceUnavailable(text=str(e)) from None
        if configure:  # the control the session loaded is the board's (its page, its record)
            _configured(hall, st, str(hall.games.view(no).get("spec", "")))
        if key:
            hall.store.put_answer(key, no, {"ok": True})
        return web.json_response({"ok": True, "session": hall.games.view(no)})

    async def session_record(request: web.Request) -> web.Response:
        """The session's own record (its rulings as comments, the result and why)."""
        st = state_of(request)
        no = st.board.no
        if not hall.games.view(no).get("active"):
            raise web.HTTPNotFound(text="board %d has no session" % no)
        try:
            text, suffix = await asyncio.wrap_future(
                hall.worker(no).call(lambda c: hall.games.record(no))
            )
        except LinkError as e:
            raise web.HTTPServiceUnavailable(text=str(e)) from None
        kind = "application/x-go-sgf" if suffix == ".sgf" else "application/x-chess-pgn"
        return web.Response(text=text, content_type=kind, charset="utf-8")

    async def session_view(request: web.Request) -> web.Response:
        st = state_of(request)
        return web.json_response(hall.games.view(st.board.no))

    async def ws(request: web.Request) -> web.WebSocketResponse:
        # No per-message deflate: with hundreds of pages, compressing every state
        # for each page costs the server more than the hall's network saves.
        sock = web.WebSocketResponse(heartbeat=20, max_msg_size=4096, compress=False)
        await sock.prepare(request)
        hall.sockets.add(sock)
        viewer = Viewer(sock, request.transport)
        hello = {
            "type": "hello",
            "boards": hall.views(),
            "arbiter": hall.is_arbiter(request),
            "beat_ms": int(hall.beat_s * 1000),
        }
        viewer.offer("", validate.dumps(hello))  # first; then each board's newest
        hall.viewers.add(viewer)
        try:
            async for msg in sock:  # nothing is taken from a page's socket: acting is POST
                if msg.type == WSMsgType.ERROR:
                    break
        finally:
            hall.viewers.discard(viewer)
            hall.sockets.discard(sock)
            viewer.stop()
        return sock

    app.router.add_get("/", page("index.html"))
    app.router.add_get("/board/{no:\\d+}", page("board.html"))
    app.router.add_static("/static/", WEB)
    app.router.add_get("/api/boards", boards)
    app.router.add_get("/api/boards/{no:\\d+}", board)
    app.router.add_get("/api/boards/{no:\\d+}/events", events)
    app.router.add_get("/api/events", events)
    app.router.add_get("/api/actions", actions)
    app.router.add_get("/api/boards/{no:\\d+}/actions", board_actions)
    app.router.add_get("/api/me", me)
    app.router.add_post("/api/login", login)
    app.router.add_post("/api/logout", logout)
    app.router.add_post("/api/boards/{no:\\d+}/request", relay)
    app.router.add_get("/api/boards/{no:\\d+}/session", session_view)
    app.router.add_get("/api/boards/{no:\\d+}/session/record", session_record)
    app.router.add_post(
        "/api/boards/{no:\\d+}/session", lambda r: _one_at_a_time(hall, r, session_line)
    )
    app.router.add_post(
        "/api/boards/{no:\\d+}/session/new", lambda r: _one_at_a_time(hall, r, session_new)
    )
    app.router.add_post("/api/boards/{no:\\d+}/{verb}", act)
    app.router.add_get("/ws", ws)

    async def live_pgn(request: web.Request) -> web.Response:
        """Every Xiangqi and chess board's current game; ``?game=chess`` (or
        ``xiangqi``) only that game's, for a reader that knows one game."""
        want = request.query.get("game", "")
        if want not in ("", "xiangqi", "chess"):
            raise web.HTTPBadRequest(text="game: xiangqi or chess")
        data = await hall.feed.live((want,) if want else ("xiangqi", "chess"))
        return web.Response(
            body=data,
            content_type="application/x-chess-pgn",
            charset="utf-8",
            headers={"Cache-Control": "no-cache"},
        )

    async def board_pgn(request: web.Request) -> web.Response:
        st = state_of(request)
        if st.board.game not in ("xiangqi", "chess"):
            raise web.HTTPNotFound(text="board %d plays %s" % (st.board.no, st.board.game))
        return web.Response(
            body=await hall.feed.record(st),
            content_type="application/x-chess-pgn",
            charset="utf-8",
        )

    async def board_sgf(request: web.Request) -> web.Response:
        st = state_of(request)
        if st.board.game != "go":
            raise web.HTTPNotFound(text="board %d plays %s" % (st.board.no, st.board.game))
        return web.Response(
            body=await hall.feed.record(st), content_type="application/x-go-sgf", charset="utf-8"
        )

    app.router.add_get("/live.pgn", live_pgn)
    app.router.add_get("/boards/{no:\\d+}.pgn", board_pgn)
    app.router.add_get("/boards/{no:\\d+}.sgf", board_sgf)
    return app


def _configured(hall: Hall, st: BoardState, spec: str) -> None:
    """After the clock took a time control: it is the board's (the record's
    ``TimeControl``), and a control that tells its game (a delay: chess; byo-yomi
    or Canadian overtime: Go) sets the board's game while no move is kept."""
    try:
        tc = timecontrol.parse(spec)
    except ValueError:
        return
    fields = {"spec": spec}
    game = timecontrol.game_of(tc)
    if game != "xiangqi" and game != st.board.game and not st.played:
        fields["game"] = game
    hall.store.set_board(st.board.no, **fields)
    st.board = next(b for b in hall.store.boards() if b.no == st.board.no)
    hall.notify(st.board.no, st.view(), None)


async def _beat(hall: Hall) -> None:
    """A ``beat`` to every page every ``hall.beat_s``: a page that hears
    nothing for a few beats marks its times stale (docs/server.md)."""
    while True:
        await asyncio.sleep(hall.beat_s)
        hall._send_all("beat", validate.dumps({"type": "beat"}))  # one waiting a page at most


_COMMAND_WORDS = ("help", "start", "pause", "resume", "foul", "penalty", "knock", "draw", "win",
                  "undo", "moves", "status", "save", "quit", "resign", "nomove", "claim",
                  "offer", "accept", "decline", "phone", "confirm", "overrule", "unrule", "dead",
                  "score", "count", "agree", "illegal", "adjust", "quickplay", "board")  # fmt: skip


def _key(request: web.Request, body: dict[str, Any]) -> str:
    """An action's idempotency key (header ``Idempotency-Key``, or ``key``)."""
    key = request.headers.get("Idempotency-Key", "") or body.get("key", "")
    if not isinstance(key, str) or len(key) > 100:
        raise web.HTTPBadRequest(text="key: a text of at most 100 characters")
    return key


async def _one_at_a_time(
    hall: Hall, request: web.Request, handler: Callable[[web.Request], Awaitable[web.Response]]
) -> web.Response:
    """``handler``, after any action with the same idempotency key still being
    acted on (a retry sent while the first send waits for the clock): the retry
    then finds the first one's answer kept, and is not applied again."""
    try:
        key = _key(request, await _json(request)) if request.can_read_body else ""
    except web.HTTPException:
        key = ""  # the handler says what is wrong with the request
    if not key:
        return await handler(request)
    while key in hall.in_flight:
        await hall.in_flight[key].wait()
    done = hall.in_flight[key] = asyncio.Event()
    try:
        return await handler(request)
    finally:
        del hall.in_flight[key]
        done.set()


async def _renamed(
    hall: Hall, no: int, game_no: int, first: str | None, second: str | None
) -> None:
    """New players on board ``no``: its session's record and its round's game name them."""
    rename = getattr(getattr(hall, "rounds", None), "rename", None)
    if rename is not None:
        rename(no, game_no, first, second)
    worker = hall.games.fed_worker(no)
    try:  # on the board's thread, as every session action
        if worker is None:
            raise LinkError("board %d: no clock" % no)
        await asyncio.wrap_future(worker.call(lambda c: hall.games.rename(no, first, second)))
    except LinkError:  # the clock is away: nothing else touches its session now
        hall.games.rename(no, first, second)


def _why(lines: list[str]) -> str:
    bad = [x[1:].strip() for x in lines if x.startswith("?")]
    return "; ".join(bad) or "refused"


async def _session(hall: Hall, no: int, line: str, key: str) -> dict[str, Any]:
    """``line`` on board ``no``'s session, on its worker's thread."""
    from qizhong.arbiter.journal import JournalError

    worker = hall.worker(no)
    try:
        return await asyncio.wrap_future(worker.call(lambda c: hall.games.handle(no, line, key)))
    except LinkError as e:
        raise web.HTTPServiceUnavailable(text=str(e)) from None
    except (JournalError, CommandError) as e:
        raise web.HTTPConflict(text=str(e)) from None


def _fresh(hall: Hall, no: int, opts: dict[str, Any] | None = None) -> None:
    """After a new time control or game on the clock: the board's new session
    (``opts``: a round's tags for its record, as ``qizhong arbiter`` takes them)."""
    w = hall.worker(no)
    w.pull()  # its config event ends the last game's session
    hall.games.create(no, opts or {}, configure=False)


async def _json(request: web.Request) -> dict[str, Any]:
    if request.content_type != "application/json":  # a form from another site cannot send it
        raise web.HTTPUnsupportedMediaType(text="send application/json")
    try:
        body = await request.json()
    except ValueError:
        raise web.HTTPBadRequest(text="not JSON") from None
    if not isinstance(body, dict):
        raise web.HTTPBadRequest(text="a JSON object is needed")
    return body


@web.middleware
async def _errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except web.HTTPException as e:
        if e.status >= 400 and request.path.startswith("/api/"):
            return web.json_response(
                {"error": e.text or e.reason},
                status=e.status,
                headers={k: v for k, v in e.headers.items() if k == "Retry-After"},
            )
        raise
    except validate.Invalid as e:
        if request.path.startswith("/api/"):
            return web.json_response({"error": str(e)}, status=400)
        raise web.HTTPBadRequest(text=str(e)) from None
    except StoreError as e:  # the record cannot be written (a full disk): nothing was done
        return web.json_response({"error": "the record cannot be written: %s" % e}, status=503)
