# SPDX-License-Identifier: GPL-3.0-or-later
"""The pages' WebSockets: every viewer gets the news, none can make the server hoard it.

Each viewer has one sender task and at most one state waiting per board
(``Viewer.offer``): a newer state of a board replaces the older one not yet
sent, so a slow or idle page costs at most one state per board, never a
queue that grows with every change (a clock's event is never merged away;
past ``MAX_WAITING`` messages the page is dropped). This server's own
boards go out before other servers' (which come from the broker, and may be
a flood). A send that does not finish within ``SEND_S`` (a page that
stopped reading) closes that viewer; its page reconnects and gets a fresh
``hello``. What waits goes out in one batch under one timer (#32: not a
timer per message), and only what changed reaches it: a board's state that
shows nothing new is not offered at all (``Hall.notify``).
"""

from __future__ import annotations

import asyncio
import contextlib

from aiohttp import web

SEND_S = 10.0
MAX_WAITING = 5000  # messages waiting for one page (the clocks' events are never merged)


class Viewer:
    """One page's socket and what waits to be sent to it."""

    def __init__(self, ws: web.WebSocketResponse, transport: asyncio.BaseTransport | None) -> None:
        self.ws = ws
        self.transport = transport
        self.waiting: dict[str, str] = {}  # board key -> its newest message not yet sent
        self.first: dict[str, str] = {}  # the same for this server's own boards: sent first
        self.wake = asyncio.Event()
        self.dropped = False
        self.stuck = False
        self._sent_at = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self.task = asyncio.ensure_future(self._run())

    def offer(self, key: str, msg: str, first: bool = True) -> None:
        """Queue ``msg`` for this page, replacing the board's older one.
        ``first``: this server's own board (its clock's events, the hello),
        sent before any other server's (which the broker may flood)."""
        if self.dropped:
            return
        queue = self.first if first else self.waiting
        queue.pop(key, None)  # re-inserted at the end: boards go out in order of change
        queue[key] = msg
        if len(queue) > MAX_WAITING:  # events piling up for a page that does not read
            self.dropped = True
            self.waiting.clear()  # the sender closes the page
            self.first.clear()
        self.wake.set()

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while not self.ws.closed:
            await self.wake.wait()
            self.wake.clear()
            if self.dropped:
                await self.drop()
                return
            # One timer for the whole batch, not one per message (#32): it
            # fires SEND_S after the last send that finished, if another hangs.
            self._sent_at = loop.time()
            timer = loop.call_later(SEND_S, self._check)
            try:
                while (self.first or self.waiting) and not self.ws.closed:
                    mine = bool(self.first)
                    queue = self.first if mine else self.waiting
                    msg = queue.pop(next(iter(queue)))
                    try:
                        await self.ws.send_str(msg)
                        if not mine:
                            # A send into a socket with room does not yield: without
                            # this a batch of other servers' boards to every page held
                            # the loop while this server's own news waited (#34).
                            await asyncio.sleep(0)
                    except asyncio.CancelledError:
                        if not self.stuck:
                            raise  # stop(): the page closed
                        await self.drop()
                        return
                    except (ConnectionError, RuntimeError):
                        await self.drop()
                        return
                    self._sent_at = loop.time()
            finally:
                timer.cancel()
                if self._timer is not None:
                    self._timer.cancel()
                    self._timer = None

    def _check(self) -> None:
        """The batch's timer: stuck if no send finished for SEND_S, else later."""
        loop = asyncio.get_running_loop()
        late = self._sent_at + SEND_S - loop.time()
        if late > 0:
            self._timer = loop.call_later(late, self._check)
        else:
            self._stuck()

    def _stuck(self) -> None:
        """A send that did not finish within SEND_S: the page is not reading."""
        self.stuck = True
        self.task.cancel()

    async def drop(self) -> None:
        """Close a page that does not read: it reconnects for a fresh hello."""
        self.dropped = True
        self.waiting.clear()
        self.first.clear()
        if isinstance(self.transport, asyncio.WriteTransport):
            self.transport.abort()  # not a close handshake: the page is not reading
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(), 1.0)

    def stop(self) -> None:
        self.task.cancel()
