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
import hashlib
import json
import os
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import WSMsgType, web

from qizhong import timecontrol
from qizhong.clocks.driver import CommandError
from qizhong.clocks.link import LinkError
from qizhong.core import auth as core_auth
from qizhong.server import rounds, tournament, validate
from qizhong.server.actions import (
    CLOCK_ACTIONS,
    WEB,
    action,
    configured,
    fresh_session,
    int_field,
    json_body,
    side_field,
)
from qizhong.server.board import BoardState
from qizhong.server.hall import COOKIE, Hall
from qizhong.server.logins import client
from qizhong.server.store import StoreError
from qizhong.server.viewers import Viewer

__all__ = ["Hall", "action", "make_app"]

BOARDS_S = 0.25  # /api/boards is made again at most this often
EVENTS_PAGE = 1000  # /api/events: a page's events unless ?limit= says
EVENTS_MAX = 5000  # ... and at most

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


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
    tournament.add_routes(app, hall)

    def page(name: str) -> Handler:
        async def h(request: web.Request) -> web.StreamResponse:
            return web.FileResponse(os.path.join(WEB, name))

        return h

    made = hall.boards_made

    async def boards(request: web.Request) -> web.Response:
        """Every board's state: made again at most every ``BOARDS_S`` between
        changes (a flood of requests costs one JSON text per interval, not
        one each); a clock's event or an arbiter's action makes it anew."""
        now = asyncio.get_running_loop().time()
        hit = made.get(False)
        if hit is None or now - hit[0] >= BOARDS_S:
            views = [s.view() for _, s in sorted(hall.states.items())]
            hit = made[False] = (now, validate.dumps(views).encode())
        body = hit[1]
        if request.query.get("all"):  # other servers' boards too: made again on its own time
            far = hall.remote_made  # (a clock's event here does not make it anew)
            if far is None or now - far[0] >= BOARDS_S:
                far = hall.remote_made = (now, hall.remote_text().encode())
            if far[1] != b"[]":
                body = far[1] if body == b"[]" else body[:-1] + b", " + far[1][1:]
        return web.Response(body=body, content_type="application/json")

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
        if view["session"].get("position") and st.board.game == "go":
            view["position"] = view["session"]["position"]  # the session's size and handicap
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
        from qizhong.server.board import _event_json

        return _paged(request, lambda a, n: [_event_json(s) for s in hall.store.events(no, a, n)])

    async def actions(request: web.Request) -> web.Response:
        """The arbiter's actions, paged as the events are (``?after=&limit=``)."""
        return _paged(request, lambda a, n: hall.store.actions(None, a, n))

    async def board_actions(request: web.Request) -> web.Response:
        """Board N's arbiter actions, oldest first (the board page's log), paged."""
        st = state_of(request)
        return _paged(request, lambda a, n: hall.store.actions(st.board.no, a, n))

    async def relays(request: web.Request) -> web.Response:
        """What came from the broker and was not kept: changes each board's clock
        refused (counted, their rows gone), requests dropped over the bridge's
        bounds, messages refused, and other servers' states read or replaced
        by a newer one before they were read."""
        bridge = hall.bridge
        return web.json_response(
            {
                "refused": hall.store.relay_refusals(),
                "flooded": bridge.flooded if bridge is not None else 0,
                "dropped": bridge.dropped if bridge is not None else 0,
                "states_read": bridge.read if bridge is not None else 0,
                "states_replaced": bridge.replaced if bridge is not None else 0,
            }
        )

    async def me(request: web.Request) -> web.Response:
        return web.json_response({"arbiter": hall.is_arbiter(request)})

    async def login(request: web.Request) -> web.Response:
        body = await json_body(request)
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
        body = await json_body(request)
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
        except BaseException as e:  # never an action left pending
            if aid:
                hall.store.action_done(aid, "failed: %s" % (e or type(e).__name__))
            raise
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
        body = await json_body(request)
        key = _key(request, body)
        if key and verb in ("ack", "players"):  # the clock's own verbs check below
            kept = hall.store.answer(key)
            if kept is not None:
                return web.json_response(dict(kept[1], repeated=True))
        if verb == "ack":
            event = int_field(body, "event")
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
            with hall.store.acting(no, verb, dict(fields), "arbiter"):
                hall.store.set_board(no, **fields)
                st.board = next(b for b in hall.store.boards() if b.no == no)
                if "first" in fields or "second" in fields:
                    await _renamed(hall, no, st.game_no, fields.get("first"), fields.get("second"))
                if "game" in fields:
                    await _on_thread(hall, no, lambda: hall.games.regame(no))
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
                line = (
                    "draw"
                    if r in (2, "draw")
                    else "win %d" % side_field({"side": r}, st.board.game)
                )
                kept = hall.store.answer(key) if key else None
                if kept is not None:  # a retry: the first send's answer (one action in the log)
                    return web.json_response(dict(kept[1], repeated=True))
                with hall.store.acting(no, verb, body, "arbiter") as act:
                    got = await _session(hall, no, line, _key(request, body))
                    if not got["ok"]:
                        act.outcome = "refused: %s" % _why(got["lines"])
                        raise web.HTTPConflict(text=_why(got["lines"]))
                return web.json_response({"ok": True, "action": act.id, "lines": got["lines"]})
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
        except BaseException as e:  # never an action left pending (a cancel too)
            hall.store.action_done(aid, "failed: %s" % (e or type(e).__name__))
            raise
        hall.store.action_done(aid, "ok")
        if verb == "config":
            configured(hall, st, str(body.get("spec", "")))
        if verb in ("config", "new"):  # the new game's session takes the clock as it is now
            try:
                await asyncio.wrap_future(worker.call(lambda c: fresh_session(hall, no)))
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
        body = await json_body(request)
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
        body = await json_body(request)
        opts = body.get("options", {})
        if not isinstance(opts, dict):
            raise web.HTTPBadRequest(text="options: a JSON object")
        from qizhong.arbiter.session import ArbiterError
        from qizhong.server.session import OptionError, SessionError

        worker = hall.worker(no)
        configure = body.get("configure", False)
        if not isinstance(configure, bool):
            raise web.HTTPBadRequest(text="configure: true or false")
        key = _key(request, body)
        if key and hall.store.answer(key) is not None:  # made already: the same session
            return web.json_response({"ok": True, "repeated": True, "session": hall.games.view(no)})
        try:
            await asyncio.wrap_future(worker.call(lambda c: hall.games.create(no, opts, configure)))
        except OptionError as e:
            raise web.HTTPBadRequest(text=str(e)) from None
        except (ArbiterError, SessionError) as e:
            raise web.HTTPConflict(text=str(e)) from None
        except LinkError as e:
            raise web.HTTPServiceUnavailable(text=str(e)) from None
        if configure:  # the control the session loaded is the board's (its page, its record)
            configured(hall, st, str(hall.games.view(no).get("spec", "")))
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
            # the pages' notice after a restart: when it started, and what it could not rebuild
            "started_ms": hall.started_ms,
            "problems": hall.problems[-20:],
            "interrupted": hall.interrupted,  # actions the stop left unfinished: failed
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
    app.router.add_get("/watch", page("watch.html"))  # the spectators' page: no arbiter's controls
    app.router.add_static("/static/", WEB)
    app.router.add_get("/api/boards", boards)
    app.router.add_get("/api/boards/{no:\\d+}", board)
    app.router.add_get("/api/boards/{no:\\d+}/events", events)
    app.router.add_get("/api/events", events)
    app.router.add_get("/api/actions", actions)
    app.router.add_get("/api/relays", relays)
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


def _paged(request: web.Request, fetch: Callable[[int, int], list[Any]]) -> web.Response:
    """A page of the list ``fetch(after, n)`` gives, as ``?after=&limit=`` ask
    (one row past ``limit`` is fetched); when more follow, a
    ``Link: <...>; rel="next"`` header gives the next page."""
    after, limit = _page(request)
    rows = fetch(after, limit + 1)
    headers = {}
    if len(rows) > limit:
        rows = rows[:limit]
        headers["Link"] = '<%s?after=%d&limit=%d>; rel="next"' % (
            request.path,
            int(rows[-1]["id"]),
            limit,
        )
    return web.json_response(rows, headers=headers)


def _fingerprint(request: web.Request, body: dict[str, Any]) -> str:
    """A request's board, kind and body, the key aside: what its key is bound to."""
    rest = {k: v for k, v in body.items() if k != "key"}
    text = "%s %s\n%s" % (request.method, request.path, json.dumps(rest, sort_keys=True))
    return hashlib.sha256(text.encode()).hexdigest()


async def _one_at_a_time(
    hall: Hall, request: web.Request, handler: Callable[[web.Request], Awaitable[web.Response]]
) -> web.Response:
    """``handler``, after any action with the same idempotency key still being
    acted on (a retry sent while the first send waits for the clock): the retry
    then finds the first one's answer kept, and is not applied again. A key is
    bound to its request (method, path: the board and kind; and the body): the
    same key with another request is 409, and nothing is done (#34 item 5)."""
    try:
        body = await json_body(request) if request.can_read_body else {}
        key = _key(request, body)
    except web.HTTPException:
        key = ""  # the handler says what is wrong with the request
    if not key:
        return await handler(request)
    while key in hall.in_flight:
        await hall.in_flight[key].wait()
    if not hall.store.bind_key(key, _fingerprint(request, body)):
        raise web.HTTPConflict(
            text="key: already used for another request (board, action or values): a new"
            " request takes a new key"
        )
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
    await _on_thread(hall, no, lambda: hall.games.rename(no, first, second))


async def _on_thread(hall: Hall, no: int, fn: Callable[[], None]) -> None:
    """``fn`` on board ``no``'s thread, as every session action (here if its clock is away:
    nothing else touches its session then)."""
    worker = hall.games.fed_worker(no)
    try:
        if worker is None:
            raise LinkError("board %d: no clock" % no)
        await asyncio.wrap_future(worker.call(lambda c: fn()))
    except LinkError:
        fn()


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
