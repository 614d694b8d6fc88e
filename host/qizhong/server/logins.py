# SPDX-License-Identifier: GPL-3.0-or-later
"""The arbiter's login: rate-limited per client address and in all
(``Logins``), and the logins it gives (``Sessions``); docs/security.md.

``FREE`` wrong passwords from one address cost nothing; after them each
wrong one makes that address wait before its next try: 1 s, then twice as
long each time, at most ``MAX_WAIT_S``. A try while it must wait answers 429
with ``Retry-After`` and is not even compared, so the right password does
not help then either. A right password clears the address's count. At
most ``MAX_ADDRESSES`` addresses are remembered (the oldest go first).

Beside each address's count, one for all of them: at most ``GLOBAL_FAILS``
wrong passwords in ``GLOBAL_WINDOW_S`` from every address together (many
addresses, one guesser); past it every try waits for the window to move,
while an arbiter already logged in goes on (a cookie is not a try).

Behind a reverse proxy (docs/security.md's TLS) every request comes from
the proxy's address: ``client`` takes the address the proxy gives in
``X-Forwarded-For`` when, and only when, the request came from a proxy the
server was told to trust (``qizhong serve --trusted-proxy ADDR``).
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import TYPE_CHECKING

from aiohttp import web

if TYPE_CHECKING:
    from qizhong.server.store import Store


def client(request: web.Request, trusted: frozenset[str]) -> str:
    """The client's address: the peer's, or behind a trusted proxy the last
    address in ``X-Forwarded-For`` that is not itself a trusted proxy."""
    peer = request.remote or "?"
    if peer not in trusted:
        return peer
    hops = [h.strip() for h in request.headers.get("X-Forwarded-For", "").split(",")]
    for hop in reversed(hops):
        try:
            addr = str(ipaddress.ip_address(hop))
        except ValueError:
            return peer  # a header the proxy did not write as it should: the proxy's own
        if addr not in trusted:
            return addr
    return peer


class Logins:
    FREE = 5
    FIRST_WAIT_S = 1.0
    MAX_WAIT_S = 300.0
    MAX_ADDRESSES = 10000
    GLOBAL_FAILS = 30  # wrong passwords from all addresses together ...
    GLOBAL_WINDOW_S = 60.0  # ... in this long

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._seen: OrderedDict[str, tuple[int, float]] = OrderedDict()  # fails, not before
        self._recent: deque[float] = deque()  # when the last wrong passwords came, any address

    def wait_s(self, address: str) -> float:
        """How long ``address`` must still wait before its next try (0: it may)."""
        until = self._seen.get(address, (0, 0.0))[1]
        now = self.clock()
        while self._recent and self._recent[0] <= now - self.GLOBAL_WINDOW_S:
            self._recent.popleft()
        every = 0.0
        if len(self._recent) >= self.GLOBAL_FAILS:
            every = self._recent[0] + self.GLOBAL_WINDOW_S - now
        return max(0.0, until - now, every)

    def check(self, address: str) -> None:
        left = self.wait_s(address)
        if left > 0:
            raise web.HTTPTooManyRequests(
                text="too many wrong passwords from %s: try again in %d s"
                % (address, math.ceil(left)),
                headers={"Retry-After": str(math.ceil(left))},
            )

    def failed(self, address: str) -> None:
        self._recent.append(self.clock())
        fails = self._seen.pop(address, (0, 0.0))[0] + 1
        wait = 0.0
        if fails >= self.FREE:
            wait = min(self.MAX_WAIT_S, self.FIRST_WAIT_S * 2 ** min(fails - self.FREE, 20))
        self._seen[address] = (fails, self.clock() + wait)
        while len(self._seen) > self.MAX_ADDRESSES:
            self._seen.popitem(last=False)

    def passed(self, address: str) -> None:
        self._seen.pop(address, None)


class Tokens:
    """The logins the right password gave: a cookie's token, kept as its
    SHA-256 in the store so a restart keeps the arbiter logged in. A login
    ends at logout, after ``IDLE_S`` unused, or when the server starts with
    another password (``Store.drop_logins``, in ``qizhong serve``)."""

    IDLE_S = 12 * 3600  # a tournament day with the page left open over lunch
    TOUCH_S = 60  # a login's last use is written at most this often

    def __init__(self, store: Store, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock
        self._used = {d: ms / 1000 for d, ms in store.logins().items()}  # digest -> last used
        self._kept = dict(self._used)  # digest -> the last use the store has

    @staticmethod
    def digest(token: str) -> str:
        return hashlib.sha256(token.encode()).hexdigest()

    def add(self, token: str) -> None:
        d = self.digest(token)
        self._used[d] = self._kept[d] = self.clock()
        self.store.add_login(d)
        self.store.touch_login(d, int(self._used[d] * 1000))

    def drop(self, token: str) -> None:
        d = self.digest(token)
        self._used.pop(d, None)
        self._kept.pop(d, None)
        self.store.drop_login(d)

    def valid(self, token: str) -> bool:
        """``token`` is a live login; using it keeps it alive."""
        if not token:
            return False
        d = self.digest(token)
        used = self._used.get(d)
        if used is None:
            return False
        now = self.clock()
        if now - used > self.IDLE_S:
            self.drop(token)
            return False
        self._used[d] = now
        if now - self._kept.get(d, 0.0) >= self.TOUCH_S:
            self._kept[d] = now
            self.store.touch_login(d, int(now * 1000))
        return True
