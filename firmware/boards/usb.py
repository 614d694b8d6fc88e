# SPDX-License-Identifier: GPL-3.0-or-later
"""The serial link: USB CDC on the Pico, the pty on the unix port.

Both are the process's stdin and stdout. Bytes in go to ``app.serial_in``
one at a time (the app's decoder finds the frames). Frames out are written
only when the link can take them at once: the clock never waits for a host.
A frame that does not fit is dropped and counted in ``dropped``; its events
stay in the app's log, and the host asks for them again (docs/protocol.md).
"""

import asyncio
import select
import sys


class Serial:
    RETRY_MS = 20  # a closed link (no host, pty not open) is tried again this often

    def __init__(self):
        self._out = sys.stdout.buffer
        self._poll = select.poll()
        self._poll.register(sys.stdout, select.POLLOUT)
        self._ipoll = select.poll()
        self._ipoll.register(sys.stdin, select.POLLIN)
        self._one = bytearray(1)
        self.dropped = 0
        self.task = None

    def start(self, app, wake=None):
        """Read forever in a task; ``wake()`` runs after each chunk (the Pico
        board's loop waits on a flag)."""
        self.task = asyncio.create_task(self._read(app, wake))

    async def _read(self, app, wake):
        # A stream's read(n) waits for all n bytes, so: await one byte, then
        # take one at a time while poll says more are there.
        inp = sys.stdin.buffer
        reader = asyncio.StreamReader(inp)
        one = self._one
        while True:
            try:
                data = await reader.read(1)
            except OSError:  # the pty's other end is closed: no host now
                data = b""
            if not data:
                await asyncio.sleep_ms(self.RETRY_MS)
                continue
            app.serial_in(data[0])
            try:
                while self._can_read() and inp.readinto(one):
                    app.serial_in(one[0])
            except OSError:
                pass
            if wake is not None:
                wake()

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
