# SPDX-License-Identifier: GPL-3.0-or-later
"""A hall of clocks, driven from one process and one thread.

    from qizhong.clocks.hall import Hall
    hall = Hall.discover()                 # every Pico clock on USB, by its id
    hall.broadcast("config", "xq-rapid")   # all at once; replies collected
    while True:
        for name, ev in hall.poll(1.0):    # every clock's events, each once
            print(name, ev.name, ev.t)

Clocks are named by the id they give in ``hello`` (the Pico's flash id), so
a table keeps its clock whichever USB port it lands on. One selector waits on
every port; a clock's frames are decoded by its own ``Link``, so events keep
their per-clock order and exactly-once delivery (docs/protocol.md).
"""

from __future__ import annotations

import selectors
import time
from collections.abc import Iterable

from qizhong.clocks.driver import PICO_USB, Clock, Status
from qizhong.clocks.link import CommandError, Event, Link, LinkError, PortBusy


class Hall:
    """Many clocks. ``clocks`` maps a name (by default the board id) to its driver."""

    def __init__(self, clocks: dict[str, Clock] | None = None) -> None:
        self.clocks: dict[str, Clock] = {}
        self._sel = selectors.DefaultSelector()
        self._fds: dict[str, int] = {}
        for name, clock in (clocks or {}).items():
            self.add(clock, name)

    @classmethod
    def open(cls, ports: Iterable[str], timeout: float = Link.TIMEOUT_S) -> Hall:
        """Open each port and name its clock by the id it says in ``hello``."""
        hall = cls()
        for port in ports:
            hall.add(Clock(port, timeout=timeout))
        return hall

    @classmethod
    def discover(cls, timeout: float = Link.TIMEOUT_S) -> Hall:
        """Every USB serial port with the Pico's id that answers ``hello``."""
        from serial.tools import list_ports

        hall = cls()
        for p in list_ports.comports():
            if (p.vid, p.pid) != PICO_USB:
                continue
            try:
                hall.add(Clock(p.device, timeout=timeout))
            except PortBusy:
                raise  # another program owns it: say so, do not skip a table's clock
            except LinkError:
                pass  # a Pico that is not a clock (or not answering)
        return hall

    def add(self, clock: Clock, name: str | None = None) -> str:
        name = name or clock.hello.id
        if name in self.clocks:
            raise ValueError("two clocks named %r (give names)" % name)
        self.clocks[name] = clock
        self._watch(name)
        return name

    def _watch(self, name: str) -> None:
        link = self.clocks[name].link
        old = self._fds.pop(name, None)
        if old is not None:
            self._sel.unregister(old)
        if link.is_open:
            fd = link.fileno()
            self._sel.register(fd, selectors.EVENT_READ, name)
            self._fds[name] = fd

    def close(self) -> None:
        for clock in self.clocks.values():
            clock.close()
        self._sel.close()

    def __enter__(self) -> Hall:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- events --------------------------------------------------------------------------

    def poll(self, timeout: float = 0.0) -> list[tuple[str, Event]]:
        """Wait up to ``timeout`` s for any clock's events; return the new ones."""
        out: list[tuple[str, Event]] = []
        deadline = time.monotonic() + timeout
        while True:
            left = max(0.0, deadline - time.monotonic())
            for key, _ in self._sel.select(left):
                name = key.data
                link = self.clocks[name].link
                fd = self._fds.get(name)
                link.pump(0)
                if not link.is_open or link.fileno() != fd:
                    self._watch(name)  # the port was reopened
            for name, clock in self.clocks.items():
                out.extend((name, ev) for ev in clock.link.take_events())
            if out or time.monotonic() >= deadline:
                return out

    # -- requests -------------------------------------------------------------------------

    def broadcast(
        self, verb: str, args: str = "", names: Iterable[str] | None = None
    ) -> dict[str, str | CommandError | LinkError]:
        """Send one request to many clocks at once and collect every reply:
        the reply text, or the error. A clock whose reply is late gets the
        same frame again every ``Link.RETRY_S`` (it runs it once). Events
        that arrive meanwhile are kept for ``poll``."""
        names = list(self.clocks if names is None else names)
        ids = {n: self.clocks[n].link.send(verb, args) for n in names}
        out: dict[str, str | CommandError | LinkError] = {}
        start = time.monotonic()
        deadline = start + max(self.clocks[n].link.timeout for n in names)
        sent = start
        while len(out) < len(names):
            for n in names:
                if n in out:
                    continue
                got = self.clocks[n].link.reply(ids[n])
                if got is None:
                    continue
                ok, text = got
                if not ok and text.split(" ", 1)[0] == "busy":
                    self.clocks[n].link.busy += 1  # not run: resent below (#12)
                else:
                    out[n] = text if ok else CommandError.from_reply(verb, text)
            if len(out) == len(names):
                break
            now = time.monotonic()
            if now >= deadline:
                for n in names:
                    out.setdefault(n, LinkError("%s: no reply to %r" % (n, verb)))
                break
            if now - sent >= Link.RETRY_S:  # a lost reply, or busy: the same frame again
                for n in names:
                    if n not in out:
                        self.clocks[n].link.resend(ids[n])
                sent = now
            for key, _ in self._sel.select(0.05):
                self.clocks[key.data].link.pump(0)
        return out

    def status(self) -> dict[str, Status | LinkError]:
        """Every clock's status (one at a time; a clock that fails gives its error)."""
        out: dict[str, Status | LinkError] = {}
        for name, clock in self.clocks.items():
            try:
                out[name] = clock.status()
            except LinkError as e:
                out[name] = e
        return out
