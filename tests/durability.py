# SPDX-License-Identifier: GPL-3.0-or-later
"""A disk that keeps only what was made durable: the crash states of a folder.

``Disk(folder)`` watches what a writer does to the files of ``folder``
through the OS (``open``, ``os.open``, ``os.replace``, ``os.rename``,
``os.unlink``, ``os.fsync``; the real files are written as usual) and
after each step lists what a power cut at that instant could leave:

- a file's bytes are those of its last ``fsync``, or, since then, the bytes
  it holds now or none at all (a truncation that reached the disk before the
  data did);
- the folder's names are those of its last ``fsync`` plus any prefix of
  the creations, renames and removals made since (the disk may keep some of
  them, in order, and not the rest).

``states`` after the run holds every such state (a dict name -> bytes), each
with the index of the step it follows; a checker then says which are
allowed. It is pessimistic on purpose: what POSIX does not promise, it
drops (#26 item 10).
"""

from __future__ import annotations

import builtins
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_real_open = builtins.open
_real_os_open = os.open
_real_replace = os.replace
_real_rename = os.rename
_real_unlink = os.unlink
_real_fsync = os.fsync


class Disk:
    def __init__(self, folder: str) -> None:
        self.folder = os.path.realpath(folder)
        self.durable_names: dict[str, int] = {}  # name -> inode, at the folder's last fsync
        self.durable_data: dict[int, bytes] = {}  # inode -> bytes, at the file's last fsync
        # ("create", name, inode) | ("rename", old, new) | ("unlink", name, "")
        self.pending: list[tuple[str, str, str]] = []
        self.states: list[tuple[int, dict[str, bytes]]] = []
        self.steps: list[str] = []
        for name in os.listdir(self.folder):
            st = os.stat(os.path.join(self.folder, name))
            self.durable_names[name] = st.st_ino
            with _real_open(os.path.join(self.folder, name), "rb") as f:
                self.durable_data[st.st_ino] = f.read()

    # -- what the writer does --------------------------------------------------------

    def _ours(self, path: Any) -> str | None:
        if not isinstance(path, str | bytes | os.PathLike):
            return None
        p = os.path.realpath(os.fsdecode(path))
        return os.path.basename(p) if os.path.dirname(p) == self.folder else None

    def _step(self, what: str) -> None:
        self.steps.append(what)
        for state in self._crash_states():
            self.states.append((len(self.steps), state))

    @contextmanager
    def watching(self) -> Iterator[Disk]:
        disk = self

        def fake_open(file: Any, mode: str = "r", *a: Any, **kw: Any) -> Any:
            name = disk._ours(file)
            new = name is not None and any(c in mode for c in "wxa") and not os.path.exists(file)
            f = _real_open(file, mode, *a, **kw)
            if new:
                disk.pending.append(("create", str(name), str(os.fstat(f.fileno()).st_ino)))
                disk._step("create %s" % name)
            elif name is not None and "w" in mode:
                disk._step("truncate %s" % name)
            return f

        def fake_os_open(path: Any, flags: int, mode: int = 0o777, *a: Any, **kw: Any) -> int:
            name = disk._ours(path)
            new = name is not None and flags & os.O_CREAT and not os.path.exists(path)
            fd = _real_os_open(path, flags, mode, *a, **kw)
            if new:
                disk.pending.append(("create", str(name), str(os.fstat(fd).st_ino)))
                disk._step("create %s" % name)
            return fd

        def fake_rename(real: Any) -> Any:
            def rename(src: Any, dst: Any, *a: Any, **kw: Any) -> None:
                s, d = disk._ours(src), disk._ours(dst)
                real(src, dst, *a, **kw)
                if s is not None and d is not None:
                    disk.pending.append(("rename", s, d))
                    disk._step("rename %s %s" % (s, d))

            return rename

        def fake_unlink(path: Any, *a: Any, **kw: Any) -> None:
            name = disk._ours(path)
            _real_unlink(path, *a, **kw)
            if name is not None:
                disk.pending.append(("unlink", name, ""))
                disk._step("unlink %s" % name)

        def fake_fsync(fd: Any) -> None:
            _real_fsync(fd)
            n = fd if isinstance(fd, int) else fd.fileno()
            st = os.fstat(n)
            if stat.S_ISDIR(st.st_mode):
                if os.path.realpath("/proc/self/fd/%d" % n) == disk.folder:
                    disk.durable_names = disk._names_now()
                    disk.pending = []
                    disk._step("fsync the folder")
            else:
                with _real_open("/proc/self/fd/%d" % n, "rb") as f:
                    disk.durable_data[st.st_ino] = f.read()
                disk._step("fsync inode %d" % st.st_ino)

        saved = (builtins.open, os.open, os.replace, os.rename, os.unlink, os.fsync)
        builtins.open = fake_open
        os.open = fake_os_open  # type: ignore[assignment]
        os.replace = fake_rename(_real_replace)
        os.rename = fake_rename(_real_rename)
        os.unlink = fake_unlink
        os.fsync = fake_fsync
        try:
            yield self
        finally:
            builtins.open, os.open, os.replace, os.rename, os.unlink, os.fsync = saved
            self._step("end")

    # -- what a power cut leaves ------------------------------------------------------

    def _names_now(self) -> dict[str, int]:
        return {n: os.stat(os.path.join(self.folder, n)).st_ino for n in os.listdir(self.folder)}

    def _now(self, ino: int) -> bytes | None:
        for n in os.listdir(self.folder):
            p = os.path.join(self.folder, n)
            if os.stat(p).st_ino == ino:
                with _real_open(p, "rb") as f:
                    return f.read()
        return None

    def _crash_states(self) -> Iterator[dict[str, bytes]]:
        for k in range(len(self.pending) + 1):
            names = dict(self.durable_names)
            for op, a, b in self.pending[:k]:
                if op == "create":
                    names[a] = int(b)
                elif op == "rename" and a in names:
                    names[b] = names.pop(a)
                elif op == "unlink":
                    names.pop(a, None)
            choices: list[dict[str, bytes]] = [{}]
            for name, ino in names.items():
                kept = self.durable_data.get(ino, b"")
                cur = self._now(ino)
                options = {kept} if cur in (None, kept) else {kept, b"", cur}
                choices = [dict(c, **{name: o}) for c in choices for o in options]
            yield from choices
