# SPDX-License-Identifier: GPL-3.0-or-later
"""The arbiter's clock actions, as the API and the rounds run them: each
checked here, then run on its board's worker thread (docs/server.md)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from aiohttp import web

from qizhong import timecontrol
from qizhong.clocks.driver import DRAW, Clock, side_index
from qizhong.server import validate
from qizhong.server.board import BoardState
from qizhong.server.hall import Hall

WEB = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "web")


def int_field(body: dict[str, Any], key: str) -> int:
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


def side_field(body: dict[str, Any], game: str) -> int:
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
        side = side_field(body, game)
        return lambda c: c.start(side)
    if verb == "pause":
        return lambda c: c.pause()
    if verb == "resume":
        return lambda c: c.resume()
    if verb == "new":
        override = bool(body.get("override", False))
        return lambda c: c.new_game(override)
    if verb == "penalty":
        side, ms = side_field(body, game), int_field(body, "ms")
        return lambda c: c.penalty(side, ms)
    if verb == "knock":  # the ruling after a tilt: who knocked the clock (EQ-5)
        side = side_field(body, game)
        return lambda c: c.knock(side)
    if verb == "set":  # EQ-7
        side, ms = side_field(body, game), int_field(body, "ms")
        moves = int_field(body, "moves") if "moves" in body else None
        periods = int_field(body, "periods") if "periods" in body else None
        return lambda c: c.set(side, ms, moves, periods)
    if verb == "finish":
        r = body.get("result")
        result = None if r is None else DRAW if r in (2, "draw") else side_field({"side": r}, game)
        return lambda c: c.finish(result)
    raise web.HTTPNotFound(text="no action %r" % verb)


CLOCK_ACTIONS = ("config", "start", "pause", "resume", "new", "penalty", "knock", "set", "finish")


def configured(hall: Hall, st: BoardState, spec: str) -> None:
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


def fresh_session(hall: Hall, no: int, opts: dict[str, Any] | None = None) -> None:
    """After a new time control or game on the clock: the board's new session
    (``opts``: a round's tags for its record, as ``qizhong arbiter`` takes them)."""
    w = hall.worker(no)
    w.pull()  # its config event ends the last game's session
    hall.games.create(no, opts or {}, configure=False)


async def json_body(request: web.Request) -> dict[str, Any]:
    if request.content_type != "application/json":  # a form from another site cannot send it
        raise web.HTTPUnsupportedMediaType(text="send application/json")
    try:
        body = await request.json()
    except ValueError:
        raise web.HTTPBadRequest(text="not JSON") from None
    if not isinstance(body, dict):
        raise web.HTTPBadRequest(text="a JSON object is needed")
    return body
