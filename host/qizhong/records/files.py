# SPDX-License-Identifier: GPL-3.0-or-later
"""Record files that are never lost: claimed before the game, kept whole on disk.

    from qizhong.records import files

    files.claim("round3.pgn", first)     # refuses a taken path, before the game
    files.replace("round3.pgn", later)   # after every move: the old or the new, never half

``replace`` writes a new private temporary file in the same folder, flushes it, ``fsync``s
it and renames it over the record (an atomic step on POSIX), then ``fsync``s
the folder so the rename itself survives a power cut. A reader, or a
program killed at any instant, sees the previous record or the new one.
"""

from __future__ import annotations

import os
import tempfile

__all__ = ["RecordFileError", "claim", "replace"]


class RecordFileError(OSError):
    """A record path that cannot be used (taken, or not writable); nothing was written."""


def sync_folder(path: str) -> None:
    """fsync the folder holding ``path``, so a new or renamed file's name is durable."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # a folder that cannot be opened (some platforms): the rename stands
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def claim(path: str, data: bytes) -> None:
    """Create ``path`` with ``data``; refuse (``RecordFileError``) if it exists."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        raise RecordFileError("%s exists: records are never written over another file"
                              % path) from None  # fmt: skip
    except OSError as e:
        raise RecordFileError("cannot write %s: %s" % (path, e.strerror)) from None
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    sync_folder(path)


def replace(path: str, data: bytes, mode: int = 0o644) -> None:
    """Put ``data`` in ``path`` in one step: write, flush, fsync, rename.

    The temporary file is a new one (``mkstemp``: ``O_EXCL``, a random name,
    mode 0600 until written), so a link planted at a guessable name beside
    the record is never followed; a link at ``path`` itself is replaced, not
    written through. ``mode``: the file's permissions once whole (0600 for a
    private one). Every file the project writes goes through here (#34)."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".%s." % os.path.basename(path)[:40], dir=folder)
    except OSError as e:
        raise RecordFileError("cannot write %s: %s" % (path, e.strerror)) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fchmod(f.fileno(), mode)
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise RecordFileError("cannot write %s: %s" % (path, e.strerror)) from None
    sync_folder(path)
