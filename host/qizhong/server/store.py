# SPDX-License-Identifier: GPL-3.0-or-later
"""The server's record: one SQLite file, written before anything is acknowledged.

WAL with ``synchronous=FULL``: a commit is on disk when ``add_event`` or
``add_action`` returns, so a server killed with SIGKILL right after loses
nothing it had acknowledged (an event handed to the hall, an arbiter action
answered). Every clock event is kept with its clock's boot id and sequence
number; a second copy of one (a replay after a reconnect) is ignored.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from qizhong.clocks.link import Event

SCHEMA = """
CREATE TABLE IF NOT EXISTS boards (
  no INTEGER PRIMARY KEY, clock_id TEXT UNIQUE NOT NULL, port TEXT NOT NULL,
  game TEXT NOT NULL DEFAULT 'xiangqi', first TEXT NOT NULL DEFAULT '',
  second TEXT NOT NULL DEFAULT '', spec TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS events (
  id INTEGER PRIMARY KEY, board INTEGER NOT NULL, boot TEXT NOT NULL, seq INTEGER NOT NULL,
  t INTEGER NOT NULL, name TEXT NOT NULL, side INTEGER NOT NULL, arg INTEGER NOT NULL,
  left0 INTEGER NOT NULL, left1 INTEGER NOT NULL, host_ms INTEGER NOT NULL,
  UNIQUE (board, boot, seq));
CREATE TABLE IF NOT EXISTS actions (
  id INTEGER PRIMARY KEY, board INTEGER NOT NULL, verb TEXT NOT NULL, args TEXT NOT NULL,
  who TEXT NOT NULL, host_ms INTEGER NOT NULL, outcome TEXT NOT NULL DEFAULT 'pending');
CREATE TABLE IF NOT EXISTS session_log (
  id INTEGER PRIMARY KEY, board INTEGER NOT NULL, session INTEGER NOT NULL,
  row INTEGER NOT NULL, entry TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS answers (
  key TEXT PRIMARY KEY, board INTEGER NOT NULL, answer TEXT NOT NULL, host_ms INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS answers_age ON answers (host_ms);
CREATE TABLE IF NOT EXISTS requests (
  key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, host_ms INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS relay_refusals (
  board INTEGER PRIMARY KEY, n INTEGER NOT NULL, host_ms INTEGER NOT NULL, last TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS logins (digest TEXT PRIMARY KEY, host_ms INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS acks (
  board INTEGER NOT NULL, event INTEGER NOT NULL, host_ms INTEGER NOT NULL,
  PRIMARY KEY (board, event));
"""


def host_ms() -> int:
    """Wall-clock ms, for the record's timestamps only (never for game time)."""
    return time.time_ns() // 1000000


@dataclass(frozen=True)
class Board:
    no: int
    clock_id: str
    port: str
    game: str
    first: str  # the player who moves first (Red; Black in Go; White in chess)
    second: str
    spec: str


@dataclass(frozen=True)
class Stored:
    """One clock event as kept: its row id, board and boot, and the event."""

    id: int
    board: int
    boot: str
    event: Event
    host_ms: int


# Idempotency answers kept: those of the last day, the newest ANSWERS_MAX of them. A page
# or a console retries for a minute at most (web/board.js, server/client.py); a day also
# covers a retry typed again after a restart. Older keys are applied again if sent.
ANSWERS_MS = 24 * 3600 * 1000
ANSWERS_MAX = 10000


INTERRUPTED = (
    "failed: the server stopped before its outcome was kept (the clock's events say what it did)"
)


def state_of(outcome: str) -> str:
    """An action's outcome as ``done``, ``failed`` or (while it runs) ``pending``."""
    if outcome == "pending":
        return "pending"
    return "done" if outcome == "ok" or outcome.startswith("ok:") else "failed"


def _why(e: BaseException) -> str:
    text = getattr(e, "text", None)  # an HTTP refusal's own text
    return str(text if isinstance(text, str) and text else e)


class Acting:
    """An action being acted on (``Store.acting``): its row and its outcome so far."""

    def __init__(self, row: int) -> None:
        self.id = row
        self.outcome = "ok"


class StoreError(Exception):
    """A write the file did not take (a full disk, an I/O error): nothing of it is kept."""


class StoreBusy(StoreError):
    """Another server has this file open."""


class Store:
    """The SQLite file. Safe to use from several threads (one lock).

    One server at a time: ``FILE.lock`` beside it holds an exclusive lock
    (``flock``) and the owner's pid while the store is open; a second
    server on the same file gets ``StoreBusy`` naming it, and touches nothing.
    A write that fails raises ``StoreError`` and is rolled back whole."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock_fd = _lock(path + ".lock")
        try:
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        except sqlite3.Error as e:
            os.close(self._lock_fd)
            raise StoreError("%s: %s" % (path, e)) from None
        self._lock = threading.Lock()
        self.answers_ms = ANSWERS_MS  # how long, and how many, idempotency answers are kept
        self.answers_max = ANSWERS_MAX
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()
            if self._lock_fd >= 0:
                os.close(self._lock_fd)
                self._lock_fd = -1

    def _write(self, sql: str, args: tuple[object, ...]) -> sqlite3.Cursor:
        return self._write_all((sql, args))

    def _write_all(self, *statements: tuple[str, tuple[object, ...]]) -> sqlite3.Cursor:
        """Statements in one transaction (all kept, or none); the first one's cursor."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    curs = [self._db.execute(sql, args) for sql, args in statements]
                    self._db.execute("COMMIT")
                except BaseException:
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                    raise
            except (sqlite3.Error, OverflowError) as e:
                raise StoreError("%s: %s" % (self.path, e)) from None
            return curs[0]

    def _read(self, sql: str, args: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
        with self._lock:
            return list(self._db.execute(sql, args))

    # -- boards -----------------------------------------------------------------------------

    def board_for(self, clock_id: str, port: str, game: str, spec: str) -> Board:
        """The board a clock belongs to (by its id), numbered on first sight."""
        rows = self._read("SELECT no FROM boards WHERE clock_id=?", (clock_id,))
        if rows:
            self._write("UPDATE boards SET port=? WHERE clock_id=?", (port, clock_id))
        else:
            self._write(
                "INSERT INTO boards (clock_id, port, game, spec) VALUES (?,?,?,?)",
                (clock_id, port, game, spec),
            )
        return next(b for b in self.boards() if b.clock_id == clock_id)

    def boards(self) -> list[Board]:
        rows = self._read("SELECT no, clock_id, port, game, first, second, spec FROM boards")
        return [Board(*r) for r in sorted(rows)]  # type: ignore[arg-type]

    def set_board(self, no: int, **fields: str) -> None:
        for key, value in fields.items():
            if key not in ("game", "first", "second", "spec"):
                raise ValueError("no board field %r" % key)
            self._write("UPDATE boards SET %s=? WHERE no=?" % key, (value, no))

    # -- events -----------------------------------------------------------------------------

    def add_event(self, board: int, boot: str, ev: Event) -> Stored | None:
        """Keep ``ev`` (committed on return); None if it was kept already."""
        now = host_ms()
        cur = self._write(
            "INSERT OR IGNORE INTO events (board, boot, seq, t, name, side, arg, left0, left1,"
            " host_ms) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (board, boot, ev.seq, ev.t, ev.name, ev.side, ev.arg, ev.left[0], ev.left[1], now),
        )
        if not cur.rowcount:
            return None
        return Stored(int(cur.lastrowid or 0), board, boot, ev, now)

    def events(
        self, board: int | None = None, after: int = 0, limit: int | None = None
    ) -> Iterator[Stored]:
        """Kept events after row ``after``, oldest first (at most ``limit``)."""
        sql = (
            "SELECT id, board, boot, seq, t, name, side, arg, left0, left1, host_ms FROM events"
            " WHERE id > ?"
        )
        args: tuple[object, ...] = (after,)
        if board is not None:
            sql += " AND board = ?"
            args += (board,)
        sql += " ORDER BY id"
        if limit is not None:
            sql += " LIMIT ?"
            args += (limit,)
        for r in self._read(sql, args):
            i, b, boot, seq, t, name, side, arg, l0, l1, hm = r
            ev = Event(int(seq), int(t), str(name), int(side), int(arg), (int(l0), int(l1)))  # type: ignore[call-overload]
            yield Stored(int(i), int(b), str(boot), ev, int(hm))  # type: ignore[call-overload]

    def last(self, board: int) -> tuple[str, int]:
        """The boot id and sequence number of the board's newest kept event."""
        rows = self._read(
            "SELECT boot, seq FROM events WHERE board=? ORDER BY id DESC LIMIT 1", (board,)
        )
        return (str(rows[0][0]), int(rows[0][1])) if rows else ("", 0)  # type: ignore[call-overload]

    # -- arbiter actions and acknowledged alerts -----------------------------------------------

    def add_action(self, board: int, verb: str, args: dict[str, object], who: str) -> int:
        cur = self._write(
            "INSERT INTO actions (board, verb, args, who, host_ms) VALUES (?,?,?,?,?)",
            (board, verb, json.dumps(args, sort_keys=True), who, host_ms()),
        )
        return int(cur.lastrowid or 0)

    def action_done(self, action: int, outcome: str) -> None:
        self._write("UPDATE actions SET outcome=? WHERE id=?", (outcome, action))

    @contextmanager
    def acting(self, board: int, verb: str, args: dict[str, object], who: str) -> Iterator[Acting]:
        """An action kept before its body runs, and ended whatever happens:
        ``ok`` unless the body sets ``outcome``; an exception's text if it raises.
        (An outcome the file cannot take waits for the next start's ``interrupted``.)"""
        act = Acting(self.add_action(board, verb, args, who))
        try:
            yield act
        except BaseException as e:
            if act.outcome == "ok":
                act.outcome = "failed: %s" % (_why(e) or type(e).__name__)
            self._end(act)
            raise
        self._end(act)

    def _end(self, act: Acting) -> None:
        try:
            self.action_done(act.id, act.outcome[:500])
        except StoreError:
            pass

    def interrupted(self) -> int:
        """At start: the actions a stopped server left without an outcome
        fail, with that reason (none stays pending); how many."""
        cur = self._write("UPDATE actions SET outcome=? WHERE outcome='pending'", (INTERRUPTED,))
        return int(cur.rowcount)

    def actions(
        self, board: int | None = None, after: int = 0, limit: int = -1
    ) -> list[dict[str, object]]:
        """The arbiter's actions after row ``after``, oldest first (at most
        ``limit``; -1: all), of one board or of all."""
        sql = "SELECT id, board, verb, args, who, host_ms, outcome FROM actions WHERE id > ?"
        args: tuple[int, ...] = (after,)
        if board:
            sql += " AND board=?"
            args += (board,)
        rows = self._read(sql + " ORDER BY id LIMIT ?", (*args, limit))
        keys = ("id", "board", "verb", "args", "who", "host_ms", "outcome")
        out = [dict(zip(keys, r, strict=True)) for r in rows]
        for a in out:
            a["args"] = json.loads(str(a["args"]))
            a["state"] = state_of(str(a["outcome"]))
        return out

    def relay_refused(self, action: int, board: int, why: str) -> None:
        """A change relayed from the broker that its clock refused (a wrong
        tag): counted for its board, its row gone (#34 item 3: a stranger's
        wrong tags must not fill the arbiter's record)."""
        self._write_all(
            ("DELETE FROM actions WHERE id=?", (action,)),
            (
                "INSERT INTO relay_refusals (board, n, host_ms, last) VALUES (?,1,?,?)"
                " ON CONFLICT(board) DO UPDATE SET n=n+1, host_ms=excluded.host_ms,"
                " last=excluded.last",
                (board, host_ms(), why[:200]),
            ),
        )

    def relay_refusals(self) -> list[dict[str, object]]:
        rows = self._read("SELECT board, n, host_ms, last FROM relay_refusals ORDER BY board")
        return [{"board": b, "refused": n, "host_ms": t, "last": w} for b, n, t, w in rows]

    def ack(self, board: int, event: int) -> None:
        self._write(
            "INSERT OR IGNORE INTO acks (board, event, host_ms) VALUES (?,?,?)",
            (board, event, host_ms()),
        )

    def acked(self) -> set[int]:
        return {int(r[0]) for r in self._read("SELECT event FROM acks")}  # type: ignore[call-overload]

    # -- the boards' game sessions (server/session.py) ---------------------------------------

    def add_entry(self, board: int, session: int, row: int, entry: dict[str, object]) -> int:
        """One entry of a session's journal (committed on return); ``row``: the
        last clock event (its id here) the session had been given."""
        cur = self._write(
            "INSERT INTO session_log (board, session, row, entry) VALUES (?,?,?,?)",
            (board, session, row, json.dumps(entry, ensure_ascii=False, separators=(",", ":"))),
        )
        return int(cur.lastrowid or 0)

    def drop_session(self, board: int, session: int) -> None:
        """A session refused as it was made: its journal goes, so the board's
        newest session (the game in play) is the one rebuilt after a restart."""
        self._write("DELETE FROM session_log WHERE board=? AND session=?", (board, session))

    def last_session(self, board: int) -> int:
        """The number of the board's newest session (0: none yet)."""
        rows = self._read("SELECT MAX(session) FROM session_log WHERE board=?", (board,))
        return int(rows[0][0] or 0)  # type: ignore[call-overload]

    def entries(self, board: int, session: int) -> list[tuple[int, int, dict[str, object]]]:
        """A session's journal: (id, row, entry) each, in order."""
        rows = self._read(
            "SELECT id, row, entry FROM session_log WHERE board=? AND session=? ORDER BY id",
            (board, session),
        )
        return [(int(i), int(r), json.loads(str(e))) for i, r, e in rows]  # type: ignore[call-overload]

    def put_answer(self, key: str, board: int, answer: dict[str, object]) -> None:
        """The answer an action with idempotency ``key`` got (a retry gets it again).

        Bounded: answers older than ``answers_ms`` and all but the newest
        ``answers_max`` go, in the same transaction."""
        now = host_ms()
        self._write_all(
            (
                "INSERT OR IGNORE INTO answers (key, board, answer, host_ms) VALUES (?,?,?,?)",
                (key, board, json.dumps(answer, ensure_ascii=False), now),
            ),
            ("DELETE FROM answers WHERE host_ms < ?", (now - self.answers_ms,)),
            (
                "DELETE FROM answers WHERE rowid <= (SELECT rowid FROM answers"
                " ORDER BY rowid DESC LIMIT 1 OFFSET ?)",
                (self.answers_max,),
            ),
        )

    def bind_key(self, key: str, fingerprint: str) -> bool:
        """Bind idempotency ``key`` to its request's ``fingerprint`` (its board,
        kind and body): True if it is that request's (new, or a retry), False
        if the key was used for another. Kept as long as the answers are."""
        now = host_ms()
        self._write_all(
            (
                "INSERT OR IGNORE INTO requests (key, fingerprint, host_ms) VALUES (?,?,?)",
                (key, fingerprint, now),
            ),
            ("DELETE FROM requests WHERE host_ms < ?", (now - self.answers_ms,)),
            (
                "DELETE FROM requests WHERE rowid <= (SELECT rowid FROM requests"
                " ORDER BY rowid DESC LIMIT 1 OFFSET ?)",
                (self.answers_max,),
            ),
        )
        rows = self._read("SELECT fingerprint FROM requests WHERE key=?", (key,))
        return bool(rows) and str(rows[0][0]) == fingerprint

    def answers_kept(self) -> int:
        return int(self._read("SELECT COUNT(*) FROM answers")[0][0])  # type: ignore[call-overload]

    def answer(self, key: str) -> tuple[int, dict[str, object]] | None:
        rows = self._read("SELECT board, answer FROM answers WHERE key=?", (key,))
        return (int(rows[0][0]), json.loads(str(rows[0][1]))) if rows else None  # type: ignore[call-overload]

    def setting(self, key: str) -> str | None:
        rows = self._read("SELECT value FROM settings WHERE key=?", (key,))
        return str(rows[0][0]) if rows else None

    def set_setting(self, key: str, value: str) -> None:
        self._write("INSERT OR REPLACE INTO settings (key, value) VALUES (?,?)", (key, value))

    # -- the arbiter's logins (their tokens' SHA-256: a restart keeps the arbiter logged in) ----

    def add_login(self, digest: str) -> None:
        self._write(
            "INSERT OR IGNORE INTO logins (digest, host_ms) VALUES (?,?)", (digest, host_ms())
        )

    def drop_login(self, digest: str) -> None:
        self._write("DELETE FROM logins WHERE digest=?", (digest,))

    def logins(self) -> dict[str, int]:
        """Each kept login's digest, with when it was last used (wall-clock ms)."""
        return {str(r[0]): int(r[1]) for r in self._read("SELECT digest, host_ms FROM logins")}  # type: ignore[call-overload]

    def touch_login(self, digest: str, ms: int) -> None:
        self._write("UPDATE logins SET host_ms=? WHERE digest=?", (ms, digest))

    def drop_logins(self) -> None:
        """Every login ends (the arbiter's password changed)."""
        self._write("DELETE FROM logins", ())


def _lock(path: str) -> int:
    """An exclusive lock on ``path`` (created), holding this pid; StoreBusy if held."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        owner = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "?"
        os.close(fd)
        raise StoreBusy(
            "%s is in use by another qizhong serve (pid %s): one server per file;"
            " stop that one, or give this one its own --db" % (path[: -len(".lock")], owner)
        ) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, b"%d\n" % os.getpid(), 0)
    return fd
