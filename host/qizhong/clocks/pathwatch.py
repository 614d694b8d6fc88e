# SPDX-License-Identifier: GPL-3.0-or-later
"""Waiting for a lost port's path to come back, without looking at it (#34).

A clock that went away (a cable pulled, a simulator stopped) comes back as a
new name in a folder: ``/dev/ttyACM0`` made again, a link in
``/dev/serial/by-id`` made again, a new ``/dev/pts/N``. Linux says so with
inotify (``inotify(7)``): ``PathWatch`` watches the folder of each lost
port's path (and, for a link, of its target) and calls only the owners whose
name was made, moved in or had its attributes changed (udev sets a new
node's owner and mode after making it). Nothing is opened or even looked at
until then, so a thousand lost clocks cost nothing.

The standard library has no inotify and no dependency is wanted for three
calls: libc's ``inotify_init1``, ``inotify_add_watch`` and
``inotify_rm_watch`` through ctypes. Where inotify is missing or a watch is
refused (``fs.inotify.max_user_watches`` reached) ``want`` says False and the
caller looks on a timer instead. devpts (``/dev/pts``) and devtmpfs
(``/dev``) send these events (checked on Linux 6.x: a new pty is
``IN_CREATE`` in ``/dev/pts``).

A folder that is not there yet (``/dev/serial/by-id`` exists only while a USB
serial device is plugged in) is waited for in its nearest folder that is:
the owner is called when the missing folder is made, and watches again.
"""

from __future__ import annotations

import ctypes
import errno
import os
import select
import struct
import threading
import time
from collections.abc import Callable

# inotify(7)'s masks (linux/inotify.h)
IN_ATTRIB = 0x00000004
IN_MOVED_TO = 0x00000080
IN_CREATE = 0x00000100
IN_DELETE_SELF = 0x00000400
IN_MOVE_SELF = 0x00000800
IN_UNMOUNT = 0x00002000
IN_Q_OVERFLOW = 0x00004000
IN_IGNORED = 0x00008000
IN_ONLYDIR = 0x01000000
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = os.O_CLOEXEC

# A name made, moved in, or its node's owner or mode set (by udev, after the
# kernel made it); the folder itself gone. Never opens, closes or writes:
# /dev's /dev/null is opened all the time.
MASK = IN_CREATE | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR
GONE = IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT  # the folder's watch ends
_HEAD = struct.Struct("iIII")  # wd, mask, cookie, len
POLL_S = 0.05  # without inotify, a path waited for is looked at this often


class Inotify:
    """One inotify instance (a descriptor to wait on): ``OSError`` if the
    system has none."""

    def __init__(self) -> None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            self._add = libc.inotify_add_watch
            self._rm = libc.inotify_rm_watch
            init = libc.inotify_init1
        except (OSError, AttributeError):
            raise OSError(errno.ENOSYS, "inotify is not available") from None
        self._add.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32)
        self._rm.argtypes = (ctypes.c_int, ctypes.c_int)
        fd = init(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            e = ctypes.get_errno()
            raise OSError(e, "inotify_init1: %s" % os.strerror(e))
        self.fd = fd

    def fileno(self) -> int:
        return self.fd

    def add(self, folder: str) -> int:
        """Watch ``folder`` (its watch number: the same for the same folder)."""
        wd = int(self._add(self.fd, os.fsencode(folder), MASK))
        if wd < 0:
            e = ctypes.get_errno()
            raise OSError(e, "inotify_add_watch %s: %s" % (folder, os.strerror(e)))
        return wd

    def remove(self, wd: int) -> None:
        self._rm(self.fd, wd)  # EINVAL: the kernel dropped it already (folder gone)

    def read(self) -> list[tuple[int, int, str]]:
        """Every event waiting, as ``(wd, mask, name)`` (none: ``[]``)."""
        out: list[tuple[int, int, str]] = []
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return out
            i = 0
            while i + _HEAD.size <= len(data):
                wd, mask, _, n = _HEAD.unpack_from(data, i)
                name = data[i + _HEAD.size : i + _HEAD.size + n].rstrip(b"\0")
                out.append((wd, mask, os.fsdecode(name)))
                i += _HEAD.size + n

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def watch_points(path: str) -> list[tuple[str, str]]:
    """Where ``path`` coming back shows, as ``(folder, name)``: the folder of
    the path and the name in it, and for a link the same for its target (a
    link to a pty that is gone waits for that pty's number). A folder that
    is missing is replaced by its nearest one that is, with the name of the
    next folder down."""
    path = os.path.abspath(path)
    points = [_point(path)]
    if os.path.islink(path):
        target = os.path.realpath(path)
        if target != path:
            points.append(_point(target))
    return list(dict.fromkeys(points))


def _point(path: str) -> tuple[str, str]:
    folder, name = os.path.split(path)
    while folder != os.path.dirname(folder) and not os.path.isdir(folder):
        folder, name = os.path.split(folder)
    return folder, name


def until_there(path: str, seconds: float) -> bool:
    """Wait up to ``seconds`` for ``path`` to be there (True if it is): on
    inotify, watched before it is looked at; where there is none, looked at
    every ``POLL_S``. (``Link``'s reopen within one request's time.)"""
    deadline = time.monotonic() + seconds
    try:
        ino = Inotify()
    except OSError:
        ino = None
    try:
        while True:
            if ino is not None:
                try:
                    for folder, _ in watch_points(path):
                        ino.add(folder)  # again after each event: a missing folder made
                except OSError:
                    ino.close()
                    ino = None
            if os.path.exists(path):
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            if ino is None:
                time.sleep(min(POLL_S, left))
                continue
            p = select.poll()
            p.register(ino.fd, select.POLLIN)
            if p.poll(left * 1000):
                ino.read()
    finally:
        if ino is not None:
            ino.close()


class PathWatch:
    """Calls an owner's ``appeared`` once when its path may have come back
    (the module's text). One inotify descriptor for every owner: the caller
    waits on ``fileno()`` (the hall's one epoll thread) and calls ``handle``
    when it is readable. An owner is called once per ``want``: it looks at
    its path then, and wants again if it is still not there."""

    def __init__(self) -> None:
        self._ino = Inotify()  # OSError: no inotify here
        self._lock = threading.Lock()
        self._owners: dict[object, list[tuple[int, str]]] = {}  # owner -> (wd, name)
        self._by_wd: dict[int, dict[object, set[str]]] = {}  # wd -> owner -> names
        self._calls: dict[object, Callable[[], None]] = {}
        self._points: dict[object, list[tuple[str, str]]] = {}  # owner -> watch_points
        self.events = 0  # inotify events read (benchmarks, tests)
        self.called = 0  # owners called

    def fileno(self) -> int:
        return self._ino.fd

    def want(self, path: str, owner: object, call: Callable[[], None]) -> bool:
        """Call ``call`` once when ``path`` may have come back. Watch first,
        look after: a path made between the two is not missed. False if a
        folder cannot be watched (the caller must look on a timer)."""
        points = watch_points(path)
        with self._lock:
            if self._points.get(owner) == points:  # watched already (its watches live)
                self._calls[owner] = call
                return True
            self._drop(owner)
            got: list[tuple[int, str]] = []
            try:
                for folder, name in points:
                    wd = self._ino.add(folder)
                    got.append((wd, name))
                    self._by_wd.setdefault(wd, {}).setdefault(owner, set()).add(name)
            except OSError:  # a watch limit, a folder we may not read
                self._owners[owner] = got
                self._drop(owner)
                return False
            self._owners[owner] = got
            self._points[owner] = points
            self._calls[owner] = call
            return True

    def drop(self, owner: object) -> None:
        """``owner`` waits no longer (its port is back, or it stops)."""
        with self._lock:
            self._drop(owner)

    def _drop(self, owner: object) -> None:
        self._calls.pop(owner, None)
        self._points.pop(owner, None)
        for wd, _ in self._owners.pop(owner, ()):
            owners = self._by_wd.get(wd)
            if owners is None:
                continue
            owners.pop(owner, None)
            if not owners:
                del self._by_wd[wd]
                self._ino.remove(wd)

    def handle(self) -> int:
        """Read what inotify says and call the owners it concerns (each once);
        how many were called."""
        calls: list[Callable[[], None]] = []
        with self._lock:
            for wd, mask, name in self._ino.read():
                self.events += 1
                if mask & IN_Q_OVERFLOW:  # events were lost: everyone looks
                    hit = list(self._owners)
                elif mask & GONE:  # the folder went: its owners look, and watch anew
                    hit = list(self._by_wd.pop(wd, {}))
                else:
                    owners = self._by_wd.get(wd, {})
                    hit = [o for o, names in owners.items() if name in names]
                for owner in hit:
                    call = self._calls.get(owner)
                    if call is not None:
                        calls.append(call)
                    self._drop(owner)
        for call in calls:
            call()
        self.called += len(calls)
        return len(calls)

    def close(self) -> None:
        with self._lock:
            self._owners.clear()
            self._by_wd.clear()
            self._calls.clear()
            self._points.clear()
            self._ino.close()
