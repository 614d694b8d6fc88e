# SPDX-License-Identifier: GPL-3.0-or-later
"""The arbiter's login, rate-limited per client address (docs/server.md).

``FREE`` wrong passwords from one address cost nothing; after them each
wrong one makes that address wait before its next try: 1 s, then twice as
long each time, at most ``MAX_WAIT_S``. A try while it must wait answers 429
with ``Retry-After`` and is not even compared, so the right password does
not help then either. A right password clears the address's count. At
most ``MAX_ADDRESSES`` addresses are remembered (the oldest go first).
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable

from aiohttp import web


class Logins:
    FREE = 5
    FIRST_WAIT_S = 1.0
    MAX_WAIT_S = 300.0
    MAX_ADDRESSES = 10000

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._seen: OrderedDict[str, tuple[int, float]] = OrderedDict()  # fails, not before

    def wait_s(self, address: str) -> float:
        """How long ``address`` must still wait before its next try (0: it may)."""
        until = self._seen.get(address, (0, 0.0))[1]
        return max(0.0, until - self.clock())

    def check(self, address: str) -> None:
        left = self.wait_s(address)
        if left > 0:
            raise web.HTTPTooManyRequests(
                text="too many wrong passwords from %s: try again in %d s"
                % (address, math.ceil(left)),
                headers={"Retry-After": str(math.ceil(left))},
            )

    def failed(self, address: str) -> None:
        fails = self._seen.pop(address, (0, 0.0))[0] + 1
        wait = 0.0
        if fails >= self.FREE:
            wait = min(self.MAX_WAIT_S, self.FIRST_WAIT_S * 2 ** min(fails - self.FREE, 20))
        self._seen[address] = (fails, self.clock() + wait)
        while len(self._seen) > self.MAX_ADDRESSES:
            self._seen.popitem(last=False)

    def passed(self, address: str) -> None:
        self._seen.pop(address, None)
