# SPDX-License-Identifier: GPL-3.0-or-later
"""The console's journal: a game that survives the console stopping (#13).

Next to the record (``round3.pgn`` gets ``round3.pgn.journal``) the console
keeps, one JSON line each, made durable as it is written (write, flush,
fsync):

- a header: the game, its options, the clock (id and boot), the record file;
- every line the arbiter typed, before it runs (``{"in": ["handle", "炮二平五"]}``);
- every answer the clock gave the session while it ran (``{"c": "status",
  "r": {...}}``: the events it reported, its status, a refusal);
- what the console printed (``{"out": [...]}``, for people; not replayed).

A console that stopped (Ctrl-C, a closed terminal, ``kill -9``, a power cut
of the laptop) is resumed by running the same session code again on the
journal: each typed line is handled once more, and the clock's answers come
from the journal instead of the clock, so the session ends up exactly where
it was (moves, presses paired, fouls, claims, rulings) without sending the
clock anything. From the end of the journal on it talks to the clock again,
which then sends the events it kept since the last one journaled (the
presses made while no console watched; the clock keeps 256).

A journal line cut short by the stop is dropped. If the stop came inside an
action (between a typed line and its last answer from the clock), the rest
of that action runs again on resume; a command the clock took in the last
few milliseconds before the stop and whose reply was not yet written is then
sent again (docs/arbiter.md, Limits).
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import IO, Any

from qizhong.clocks.driver import Clock, Status
from qizhong.clocks.link import CommandError, Event
from qizhong.records import files

__all__ = ["Journal", "JournalError", "Tape", "journal_path", "last_event", "parse", "read"]

VERSION = 1


class JournalError(ValueError):
    """A journal that cannot be read, or that this session does not replay."""


def journal_path(record: str) -> str:
    """The journal kept next to ``record``."""
    return record + ".journal"


# -- the clock's answers as JSON ----------------------------------------------------------


def _encode(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, Status):
        return dataclasses.asdict(value)
    if isinstance(value, list) and all(isinstance(v, Event) for v in value):
        return [[e.seq, e.t, e.name, e.side, e.arg, e.left[0], e.left[1]] for e in value]
    raise TypeError("the journal cannot keep a %s" % type(value).__name__)


def _decode(name: str, value: Any) -> Any:
    if name == "status":
        d = dict(value)
        for key in ("left", "moves", "periods"):
            d[key] = tuple(d[key])
        return Status(**d)
    if name in ("events", "since"):
        return [Event(s, t, n, side, arg, (l0, l1)) for s, t, n, side, arg, l0, l1 in value]
    return value


class Tape:
    """A ``Clock`` as the session sees it: every answer the clock gives inside
    an action is written to the journal; on resume the answers are played
    back from it until it ends, and the clock is used again from there."""

    def __init__(self, clock: Clock, write: Callable[[dict[str, Any]], None]) -> None:
        self.clock = clock
        self._write = write
        self.recording = False  # inside an action
        self.queue: deque[dict[str, Any]] = deque()  # answers still to play back
        self.last_seq = 0  # the last clock event the session was given
        self.went_live = False  # a call went to the clock (not played back)

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.clock, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kw: Any) -> Any:
            if self.queue:
                entry = self.queue.popleft()
                if entry.get("c") != name:
                    raise JournalError(
                        "the journal has %r where the session asks %r: not replayable"
                        % (entry.get("c"), name)
                    )
                try:
                    if "x" in entry:
                        err = CommandError(*entry["x"])
                    else:
                        result = _decode(name, entry["r"])
                except (KeyError, TypeError, ValueError) as e:  # edited by hand, or not ours
                    raise JournalError("the journal's %r answer is damaged (%s): not "
                                       "replayable" % (name, e)) from None  # fmt: skip
                if "x" in entry:
                    raise err
                self._seen(name, result)
                return result
            self.went_live = True
            try:
                result = attr(*args, **kw)
            except CommandError as e:
                if self.recording:
                    self._write({"c": name, "x": [e.verb, e.code, e.message]})
                raise
            if self.recording:
                self._write({"c": name, "r": _encode(result)})
            self._seen(name, result)
            return result

        return call

    def _seen(self, name: str, result: Any) -> None:
        if name in ("events", "since") and result:
            self.last_seq = max(self.last_seq, max(e.seq for e in result))


def read(path: str) -> tuple[dict[str, Any], list[tuple[list[Any], list[dict[str, Any]]]], int]:
    """A journal: its header, its actions (each typed line with the clock's
    answers), and the length of its whole lines (a torn last line is left out).
    The header's ``late`` lists the spans of events each resume found had come
    while no console watched (``Journal.late``)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise JournalError("cannot read %s: %s" % (path, e.strerror)) from None
    header: dict[str, Any] | None = None
    actions: list[tuple[list[Any], list[dict[str, Any]]]] = []
    good = 0
    pos = 0
    while True:
        end = data.find(b"\n", pos)
        if end < 0:
            break  # a last line without its newline was cut short
        try:
            entry = json.loads(data[pos:end].decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            if end + 1 < len(data):  # a stop tears only the last line: this is damage
                raise JournalError(
                    "%s: line %d is damaged, and lines follow it: not "
                    "replayable" % (path, data.count(b"\n", 0, pos) + 1)
                ) from None
            break  # torn by the stop: what follows cannot be trusted
        pos = end + 1
        good = pos
        where = "%s: line %d" % (path, data.count(b"\n", 0, end) + 1)
        header = _take(entry, header, actions, where, path)
    if header is None:
        raise JournalError("%s is empty" % path)
    return header, actions, good


def _take(
    entry: Any,
    header: dict[str, Any] | None,
    actions: list[tuple[list[Any], list[dict[str, Any]]]],
    where: str,
    name: str,
) -> dict[str, Any]:
    """One journal entry read (``where`` names it in errors): the header, a
    typed action, or a clock answer; returns the header."""
    if not isinstance(entry, dict):
        raise JournalError("%s is not a journal entry" % where)
    if header is None:
        if entry.get("journal") != VERSION or not (
            isinstance(entry.get("args"), dict) and isinstance(entry.get("clock"), dict)
            and isinstance(entry.get("record"), str)
        ):  # fmt: skip
            raise JournalError("%s is not a qizhong journal (version %d)" % (name, VERSION))
        return entry
    if "in" in entry:
        typed = entry["in"]
        if not (isinstance(typed, list) and typed and typed[0] in ("new", "handle", "poll")
                and all(isinstance(t, str) for t in typed)):  # fmt: skip
            raise JournalError("%s is not a journal entry" % where)
        actions.append((list(typed), []))
    elif "late" in entry:  # a resume: the events (after, upto] came while nobody watched
        span = entry["late"]
        if not (isinstance(span, list) and len(span) == 2
                and all(isinstance(v, int) and v >= 0 for v in span)):  # fmt: skip
            raise JournalError("%s is not a journal entry" % where)
        header.setdefault("late", []).append((span[0], span[1]))
    elif "c" in entry:
        if not actions:
            raise JournalError("%s: a clock answer before any action" % name)
        actions[-1][1].append(entry)
    return header


def parse(
    entries: Iterable[Any], name: str
) -> tuple[dict[str, Any], list[tuple[list[Any], list[dict[str, Any]]]]]:
    """A journal kept elsewhere than in a file (the hall server's store: one
    entry a row): its header and actions, as ``read`` gives them."""
    header: dict[str, Any] | None = None
    actions: list[tuple[list[Any], list[dict[str, Any]]]] = []
    for i, entry in enumerate(entries, 1):
        header = _take(entry, header, actions, "%s: entry %d" % (name, i), name)
    if header is None:
        raise JournalError("%s is empty" % name)
    return header, actions


def last_event(actions: list[tuple[list[Any], list[dict[str, Any]]]]) -> int:
    """The last clock event a journal's session knew of: the clock's last when
    the game began, or the last event the clock reported to it since."""
    last = 0
    try:
        for typed, answers in actions:
            for entry in answers:
                if typed == ["new"] and entry.get("c") == "status" and "r" in entry and not last:
                    last = int(entry["r"]["seq"])
                if entry.get("c") in ("events", "since") and entry.get("r"):
                    last = max(last, max(int(ev[0]) for ev in entry["r"]))
    except (KeyError, TypeError, ValueError, IndexError) as e:  # edited by hand, or not ours
        raise JournalError("a clock answer in the journal is damaged (%s)" % e) from None
    return last


class Journal:
    """The journal of one game, and the ``Tape`` between the session and the clock.

    Where its entries go is the backend: a file of JSON lines (the console's
    own, ``create``/``reopen``), or any ``sink`` that keeps each entry durably
    before it returns (``on``: the hall server's store, one row an entry).
    The session, and how it is replayed, are the same for both."""

    def __init__(
        self,
        path: str,
        clock: Clock,
        f: IO[bytes] | None,
        sink: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.path = path
        self.tape = Tape(clock, self._entry)
        self._f = f
        self._sink = sink
        self._held: list[dict[str, Any]] | None = None  # a poll's answers, until one matters
        self.broken = False  # an action was cut short: nothing more is written

    @classmethod
    def create(cls, path: str, clock: Clock, header: dict[str, Any]) -> Journal:
        """A new journal (a taken path is refused)."""
        try:
            f = open(path, "xb")
        except FileExistsError:
            raise JournalError("%s exists: another game's journal" % path) from None
        except OSError as e:
            raise JournalError("cannot write %s: %s" % (path, e.strerror)) from None
        j = cls(path, clock, f)
        j._line({"journal": VERSION, **header})
        files.sync_folder(path)  # the new file's name is durable too, not only its lines (#26)
        return j

    @classmethod
    def on(cls, name: str, clock: Clock, sink: Callable[[dict[str, Any]], None]) -> Journal:
        """A journal whose entries go to ``sink`` (its header is written by the
        caller); ``name`` names it in messages."""
        return cls(name, clock, None, sink)

    @classmethod
    def reopen(cls, path: str, clock: Clock, good: int) -> Journal:
        """Go on writing a journal after its last whole line (``read`` gives it)."""
        f = open(path, "r+b")
        f.truncate(good)
        f.seek(good)
        return cls(path, clock, f)

    def late(self, after: int, upto: int) -> None:
        """A resume: the clock's events ``after`` < seq <= ``upto`` came while no
        console watched. Written before the journal is replayed, so that a
        resume stopped in its turn is replayed with the same span."""
        if upto > after:
            self._line({"late": [after, upto]})

    def close(self) -> None:
        if self._f is None:
            return
        try:
            self._f.close()
        except OSError:  # what it could not write was reported (``_line``) and is not needed
            if not self.broken:
                raise

    def _line(self, entry: dict[str, Any]) -> None:
        if self.broken:
            return
        if self._sink is not None:
            try:
                self._sink(entry)
            except Exception as e:  # the store could not keep it: nothing more is written
                self.broken = True
                raise JournalError("cannot keep %s (%s)" % (self.path, e)) from None
            return
        assert self._f is not None
        try:
            self._f.write(json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode())
            self._f.write(b"\n")
            self._f.flush()
            os.fsync(self._f.fileno())
        except OSError as e:  # a full disk, a removed stick: stop here, resumable from what is kept
            self.broken = True
            raise JournalError(
                "cannot write %s (%s): the console stops; the clock runs on, and `qizhong "
                "arbiter` resumes the game once the journal can be written"
                % (self.path, e.strerror or e)
            ) from None

    def _entry(self, entry: dict[str, Any]) -> None:
        if self._held is not None:
            if entry.get("c") == "events" and entry.get("r") == []:
                self._held.append(entry)  # nothing happened yet
                return
            held, self._held = self._held, None
            for e in held:
                self._line(e)
        self._line(entry)

    @contextmanager
    def action(self, *typed: Any, key: str = "") -> Iterator[None]:
        """An action: ``typed`` is written first, then the clock's answers.
        A poll that the clock answered with nothing is not written at all.
        ``key``: the action's idempotency key, kept with it."""
        entry: dict[str, Any] = {"in": list(typed)}
        if key:
            entry["key"] = key
        if typed and typed[0] == "poll":
            self._held = [entry]
        else:
            self._line(entry)
        tape = self.tape
        tape.recording = True
        try:
            yield
        except BaseException:
            # Cut short (Ctrl-C, the clock gone): the journal ends here, so that
            # this action is its last and runs on from where it stopped on resume.
            self.broken = True
            raise
        finally:
            tape.recording = False
            self._held = None

    @contextmanager
    def replaying(self, answers: list[dict[str, Any]], last: bool) -> Iterator[None]:
        """An action of the journal run again, the clock's answers from it.
        Only the ``last`` action may run past them (it was cut short by the
        stop: the rest of it talks to the clock, and is written)."""
        tape = self.tape
        tape.queue = deque(answers)
        tape.recording = True
        tape.went_live = False
        try:
            yield
            if tape.queue:
                raise JournalError(
                    "%s: an action asked the clock less than the journal has: not replayable"
                    % self.path
                )
        finally:
            tape.recording = False
            tape.queue = deque()
        if not last and tape.went_live:
            raise JournalError(
                "%s: an action asked the clock more than the journal has: not replayable"
                % self.path
            )

    def said(self, lines: list[str]) -> None:
        """What the console printed for the last action (for people reading it)."""
        if lines and self._held is None:
            self._line({"out": lines})
