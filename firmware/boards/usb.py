# SPDX-License-Identifier: GPL-3.0-or-later
"""The serial link: USB CDC on the Pico, the pty on the unix port.

Both are the process's stdin and stdout. Bytes in go to ``app.serial_in``
one at a time (the app's decoder finds the frames), at most ``BUDGET`` per
loop turn, so a flood of input delays the loop by one budget, not forever.
Frames out are written only when the link can take them at once: the clock
never waits for a host. An event that does not fit is dropped and counted in
``dropped``; it stays in the app's log, and the host asks for it again. A
reply that does not fit waits (``app.unsent``), and no further request is
read until it has gone: every request gets its reply (docs/protocol.md).
"""

import asyncio
import select
import sys


class Serial:
    RETRY_MS = 20  # a closed link (no host, pty not open) is tried again this often
    BUDGET = 256  # bytes taken per loop turn: a flood of input cannot starve the loop (#12)

    def __init__(self):
        self._out = sys.stdout.buffer
        self._in = sys.stdin.buffer
        self._poll = select.poll()
        self._poll.register(sys.stdout, select.POLLOUT)
        self._ipoll = select.poll()
        self._ipoll.register(sys.stdin, select.POLLIN)
        self._one = bytearray(1)
        self.dropped = 0
        self.task = None

    def start(self, app, wake=None):
        """Read in a task (the simulated board); ``wake()`` runs after each
        turn's bytes. The Pico's loop calls ``pump`` itself instead."""
        self.task = asyncio.create_task(self._read(app, wake))

    def pump(self, app, budget=BUDGET):
        """Take at most ``budget`` of the bytes waiting now, without blocking;
        returns how many (-1: none, a reply still waits for the link, so the
        next request is not read: docs/protocol.md, "Flow")."""
        if not app.flush_reply():
            return -1
        n = 0
        one = self._one
        try:
            while n < budget and self._can_read() and self._in.readinto(one):
                app.serial_in(one[0])
                n += 1
                if app.unsent:
                    break
        except OSError:  # no host on the other end
            pass
        return n

    async def _read(self, app, wake):
        # A stream's read(n) waits for all n bytes, so: await one byte, then
        # take at most BUDGET - 1 more that poll says are there, then give the
        # loop its turn.
        reader = asyncio.StreamReader(self._in)
        while True:
            if not app.flush_reply():  # the host is not reading: read nothing more
                await asyncio.sleep_ms(self.RETRY_MS)
                continue
            try:
                data = await reader.read(1)
            except OSError:  # the pty's other end is closed: no host now
                data = b""
            if not data:
                await asyncio.sleep_ms(self.RETRY_MS)
                continue
            app.serial_in(data[0])
            if not app.unsent:
                self.pump(app, self.BUDGET - 1)
            if wake is not None:
                wake()
            await asyncio.sleep_ms(0)  # the loop's turn, even in a flood

    def _can_read(self):
        for _ in self._ipoll.ipoll(0):
            return True
        return False

    def _ready(self):
        for _ in self._poll.ipoll(0):  # allocation-free
            return True
        return False

    def write_n(self, buf, n):
        """Write ``buf[:n]`` if the link takes it now, and say so; else drop it."""
        if not self._ready():
            self.dropped += 1
            return False
        try:
            self._out.write(buf, n)
        except OSError:
            self.dropped += 1
            return False
        return True

    def write(self, data):
        return self.write_n(data, len(data))
