# SPDX-License-Identifier: GPL-3.0-or-later
"""``select`` of the simulated RP2040: a poll that waits in WFE, in virtual
time. An object with ``ioctl`` (the board's wake flag) is asked, as rp2's
poll asks a stream; sys.stdin has bytes only from a USB host, and none are
sent at their instants (rp2040sim.host_bytes); sys.stdout takes bytes while
USB is there. usb.Serial reads one byte after each poll that finds its
stdin readable, on a poll of stdin alone: such a poll's yes takes one byte."""

import sys

import rp2040sim as C

POLLIN = 1
POLLOUT = 4
POLLERR = 8
POLLHUP = 16


class poll:
    def __init__(self):
        self._objs = []
        self._flags = []

    def register(self, obj, flags=POLLIN | POLLOUT):
        if obj in self._objs:
            self._flags[self._objs.index(obj)] = flags
            return
        self._objs.append(obj)
        self._flags.append(flags)

    def modify(self, obj, flags):
        self._flags[self._objs.index(obj)] = flags

    def unregister(self, obj):
        i = self._objs.index(obj)
        self._objs.pop(i)
        self._flags.pop(i)

    def _ready(self):
        got = []
        for obj, flags in zip(self._objs, self._flags):
            if obj is sys.stdin:
                r = POLLIN if C.rx_avail > 0 else 0
            elif obj is sys.stdout:
                r = POLLOUT if C.usb else 0
            elif hasattr(obj, "ioctl"):
                r = obj.ioctl(3, flags)
            else:
                r = 0
            r &= flags | POLLERR | POLLHUP
            if r:
                got.append((obj, r))
        return got

    def ipoll(self, timeout=-1, flags=0):
        got = self._ready()
        if got and self._objs == [sys.stdin]:  # usb.Serial reads the byte next
            C.rx_avail -= 1
        if got or timeout == 0:
            return got
        C.sleep(timeout * 1000 if timeout > 0 else -1, "wfe", self._ready)
        return self._ready()

    def poll(self, timeout=-1):
        return self.ipoll(timeout)
