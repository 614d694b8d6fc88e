# SPDX-License-Identifier: GPL-3.0-or-later
"""One board of the hall: its clock's worker and the state the hall shows.

A ``Worker`` owns one port (``Link`` takes the exclusive lock) and is the
only thread that talks to that clock: it takes the events, runs the
arbiter's requests handed to it (``call``), and after a lost link reopens the
port and collects what it missed (``Clock.reconnect``: by boot id, #12). It
reopens only the device it had: the same device node, or after an unplug a
new node with the same USB serial number. A path that now names another
device (a pty's number reused by another program) is never opened, so no
other program's port gets our probe (#34). A lost port is not looked at on
a timer: ``Ports`` also waits on one inotify descriptor
(``qizhong.clocks.pathwatch``) watching the folders of the lost ports' paths
(and of a link's target), and wakes a worker only when its path's name is
made, moved in or has its attributes set; then ``device_at`` (a ``stat``)
decides. ``SAFETY_S`` bounds the wait all the same; where inotify is
missing or a watch is refused, the worker looks every ``RETRY_S``, as it
does while its port is there but does not answer. Every event is committed
to the ``Store`` before the hall hears of it.

A worker costs nothing while its clock says nothing (#32): it sleeps until
``Ports`` (one thread waiting on every clock's port at once, epoll) sees
bytes on its port, a request is handed to it, or its next timer is due: a
``status`` after ``QUIET_S`` of silence (the heartbeat: times, drift, and
whether the clock still answers), a link's retry; a lost port's path made
again (above). A clock that goes away
shows at once (the port's hang-up wakes the worker); one that hangs with its
port open is lost when that ``status`` gets no answer in ``TIMEOUT_S``.

``BoardState`` is what the hall shows of a board, made only from events (so
a restarted server rebuilds it from its file) and refreshed by ``status``.
"""

from __future__ import annotations

import os
import queue
import select
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from qizhong.arbiter.session import ORIGIN_STEP
from qizhong.clocks.driver import Clock, OtherClock
from qizhong.clocks.link import Device, Event, LinkError, device_at
from qizhong.clocks.pathwatch import PathWatch
from qizhong.server.start import USUAL, Start
from qizhong.server.store import Board, Store, Stored, StoreError

ALERTS = ("knock", "flag", "held", "lost")  # what an arbiter must see, until acknowledged
# Alerts of the server itself, kept in memory (the file may be what failed):
# "store" (a write failed; the board goes on, its events are fetched again
# from the clock once the file takes them) and "worker" (the board's thread
# met an error: the board is marked lost and its port opened again).
HOST_ALERTS = ("store", "worker")
HOST_ALERT_BASE = 10**12  # their ids: -(HOST_ALERT_BASE + board * 10**6 + n)

# The state names of a clock's ``state`` events (docs/protocol.md).
NOTIFY = Callable[[int, dict[str, Any], dict[str, Any] | None], None]


def mono_ms() -> int:
    return time.monotonic_ns() // 1000000


class Ports:
    """One thread that waits on every clock's port at once (epoll), and wakes
    a port's worker only when the port has something to read (or hung up).

    A port is armed once per wait (``EPOLLONESHOT``): after it fires it stays
    quiet until its worker has read and arms it again, so a port with unread
    bytes costs one wake-up, not one per pass of this loop."""

    def __init__(self) -> None:
        self._ep = select.epoll()
        self._owners: dict[int, Worker] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self.wakes = 0  # workers woken by their port (benchmarks, tests)
        self.paths: PathWatch | None = None  # lost ports' paths (made with the first)
        self._paths_fd = -1  # its inotify descriptor, in the same epoll
        self._no_paths = ""  # why there is no inotify here ("": there is, or not tried yet)

    def watch(self, fd: int, owner: Worker) -> None:
        """Wake ``owner`` once when ``fd`` is readable (again after each ``watch``)."""
        mask = select.EPOLLIN | select.EPOLLONESHOT
        with self._lock:
            self._owners[fd] = owner
            try:
                self._ep.modify(fd, mask)  # armed again: readable now fires at once
            except FileNotFoundError:
                self._ep.register(fd, mask)
            self._start()

    def await_path(self, path: str, owner: Worker) -> bool:
        """Call ``owner.appeared`` once when ``path`` may have come back
        (``PathWatch``). False: it cannot be watched (no inotify, a watch
        limit): the owner looks on its timer."""
        with self._lock:
            if self.paths is None and not self._no_paths:
                try:
                    self.paths = PathWatch()
                except OSError as e:
                    self._no_paths = str(e) or "no inotify"
                else:
                    self._paths_fd = self.paths.fileno()
                    self._ep.register(self._paths_fd, select.EPOLLIN)
                    self._start()
        if self.paths is None:
            return False
        return self.paths.want(path, owner, owner.appeared)

    def forget_path(self, owner: Worker) -> None:
        if self.paths is not None:
            self.paths.drop(owner)

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="ports", daemon=True)
            self._thread.start()

    def forget(self, fd: int, owner: Worker) -> None:
        with self._lock:
            if self._owners.get(fd) is owner:
                del self._owners[fd]
                try:
                    self._ep.unregister(fd)
                except OSError:  # closed already: the kernel dropped it
                    pass

    def _run(self) -> None:
        while True:
            try:
                ready = self._ep.poll()
            except InterruptedError:
                continue
            for fd, _ in ready:
                if fd == self._paths_fd and self.paths is not None:
                    self.paths.handle()  # wakes the workers whose path came back
                    continue
                owner = self._owners.get(fd)
                if owner is not None:
                    self.wakes += 1
                    owner.wake()


PORTS = Ports()  # the server's one port-waiting thread (started with its first port)


@dataclass
class BoardState:
    """What the hall shows of one board. ``left`` is as of the clock's ms ``t``."""

    board: Board
    link: str = "connecting"  # up, lost, connecting, busy (another program owns the port)
    link_text: str = ""
    boot: str = ""
    state: str = "idle"
    run: int = -1
    left: list[int] = field(default_factory=lambda: [0, 0])
    moves: list[int] = field(default_factory=lambda: [0, 0])
    periods: list[int] = field(default_factory=lambda: [-1, -1])
    t: int = 0  # the clock's ms when ``left`` was true
    offset: int | None = None  # the clock's ms minus this host's monotonic ms (in ``t``'s frame)
    result: int = -1
    flag: list[bool] = field(default_factory=lambda: [False, False])
    knocks: int = 0
    knocker: int = -1  # EQ-5: the side the arbiter named for the last knock, -1 not yet
    held: int = -1  # the side whose lever is held down now (EQ-3), -1 none
    game_no: int = 1
    events: int = 0
    presses: list[dict[str, int]] = field(default_factory=list)  # this game's presses
    played: list[str] = field(default_factory=list)  # this game's moves as entered (notation)
    alerts: list[dict[str, Any]] = field(default_factory=list)  # not yet acknowledged
    session_rev: int = 0  # counts the board's session changes (server/session.py)
    # each move's clock time as its session paired it (None: the n-th press is the n-th move's)
    played_clocks: list[int | None] | None = None
    start: Start = USUAL  # where the game began (its session's FEN, Go setup)
    # (boot, seq): the last status's moves count this boot's events up to seq; a press
    # among them kept later (read after the status's reply) is not counted again
    counted: tuple[str, int] = ("", 0)
    mono: Callable[[], int] = field(default=mono_ms, repr=False, compare=False)  # host's ms

    def stamp(self, boot: str, t: int) -> None:
        """The clock's ms ``t`` of ``boot`` is now ``self.t``. The clock's ms
        fall by ``ORIGIN_STEP`` every 4.66 days (docs/protocol.md): the
        offset follows ``t`` into its frame, so that ``now - t`` stays exact
        whether an event or a ``status`` crossed the fall first. A new boot
        has no offset until its first ``status``."""
        if self.offset is not None:
            if self.boot and boot != self.boot:
                self.offset = None
            else:
                d = self.mono() + self.offset - t  # ms since t, give or take a step
                self.offset -= (d + ORIGIN_STEP // 2) // ORIGIN_STEP * ORIGIN_STEP
        self.boot, self.t = boot, t

    def apply(self, st: Stored, acked: set[int] | None = None) -> None:
        """One kept event (a clock's, or the host's ``lost``/``found``)."""
        ev = st.event
        self.events += 1
        if st.boot != "host":
            self.stamp(st.boot, ev.t)
            self.left = list(ev.left)
        name = ev.name
        if name == "start":
            self.state, self.run = "running", ev.side
        elif name == "press":
            if not (st.boot == self.counted[0] and ev.seq <= self.counted[1]):
                self.moves[ev.side] += 1  # (else the last status's moves have it)
            self.run = 1 - ev.side
            self.held = -1
            self.presses.append({"side": ev.side, "t": ev.t, "left": ev.left[ev.side]})
        elif name == "pause":
            self.state = "paused"
        elif name == "resume":
            self.state = "running"
        elif name == "knock":
            self.state = "knocked"
            self.knocks += 1
            self.knocker = -1
        elif name == "penalty" and self.state == "knocked" and self.knocker < 0 and ev.arg > 0:
            self.knock_named(1 - ev.side, ev.arg)
        elif name == "held":
            self.held = ev.side
        elif name == "flag":
            self.flag[ev.side] = True
            self.state = "flagged"
        elif name == "finish":
            self.state, self.result, self.run = "finished", ev.arg, -1
        elif name == "config":
            self.new_game()
        if name in ALERTS and not (acked and st.id in acked):
            alert = {"id": st.id, "kind": name, "side": ev.side, "t": ev.t, "host_ms": st.host_ms}
            if name != "lost":  # a game's alert ends with it (a lost clock's does not)
                alert["game"] = self.game_no
            if name == "knock":  # ``side``: whose time ran; ``knocker``: named later
                alert.update(knocker=-1, bonus=0)
            self.alerts.append(alert)

    def knock_named(self, knocker: int, bonus: int) -> None:
        """EQ-5's ruling, seen as the clock makes it: while knocked over, the
        first time given (the clock's ``penalty`` event: +60 s to the
        knocker's opponent, whether named on the clock's keys or by the
        arbiter's ``knock``). The knock's alert then names the knocker. (An
        opponent whose flag fell gets no time, TC-8: that ruling goes unseen
        here, and the alert keeps asking until acknowledged.)"""
        self.knocker = knocker
        for a in reversed(self.alerts):
            if a["kind"] == "knock":
                a.update(knocker=knocker, bonus=bonus)
                break

    def new_game(self) -> None:
        if self.events > 1 and (self.presses or self.state != "idle"):
            self.game_no += 1
        self.state, self.run, self.result = "idle", -1, -1
        self.moves, self.flag, self.knocks, self.held = [0, 0], [False, False], 0, -1
        self.knocker = -1
        self.presses, self.played, self.played_clocks = [], [], None
        self.start = USUAL

    def ack(self, event: int) -> bool:
        n = len(self.alerts)
        self.alerts = [a for a in self.alerts if a["id"] != event]
        return len(self.alerts) < n

    def alert_over(self, alert: dict[str, Any]) -> bool:
        """Whether the game an alert is of has ended (a result, or a new game): the
        pages stop pinning it. A clock's or the server's own alert (no game) never is."""
        game = alert.get("game")
        if not isinstance(game, int):
            return False
        return game < self.game_no or (game == self.game_no and self.state == "finished")

    def view(self) -> dict[str, Any]:
        """The JSON the hall gets. ``now``: the clock's ms now, as this host
        reckons it, so a page can tick ``left[run]`` down from ``t``."""
        b = self.board
        now = self.mono() + self.offset if self.offset is not None else self.t
        return {
            "key": str(b.no),
            "no": b.no,
            "clock_id": b.clock_id,
            "port": b.port,
            "game": b.game,
            "players": [b.first, b.second],
            "spec": b.spec,
            "link": self.link,
            "link_text": self.link_text,
            "state": self.state,
            "run": self.run,
            "left": self.left,
            "t": self.t,
            "now": now,
            "moves": self.moves,
            "played": len(self.played),
            "periods": self.periods,
            "result": self.result,
            "flag": self.flag,
            "knocks": self.knocks,
            "knocker": self.knocker,
            "held": self.held,
            "game_no": self.game_no,
            "events": self.events,
            "alerts": [dict(a, over=self.alert_over(a)) for a in self.alerts],
            "session_rev": self.session_rev,
        }


class Worker(threading.Thread):
    """The thread that owns one clock's port: asleep until its port speaks, a
    request comes, or a timer is due (the module's text)."""

    POLL_S = 0.05  # a port without a file descriptor (loop://, socket://) is read this often
    QUIET_S = 15.0  # a clock silent this long is asked ``status`` (the heartbeat)
    STATUS_S = QUIET_S  # (its old name)
    RETRY_S = 1.0  # a port that is there but does not answer is tried again this often
    # A lost port whose path is watched (``Ports.await_path``) is looked at
    # when it comes back, and this often all the same (an event missed: a
    # folder inotify does not see, a link to a link).
    SAFETY_S = 30.0
    TIMEOUT_S = 5.0  # a clock silent this long is lost (a busy laptop can stall 2 s)
    RELAYS = 4  # relayed requests waiting at most; more are answered busy

    def __init__(
        self,
        port: str,
        store: Store,
        notify: NOTIFY,
        game: str = "xiangqi",
        spec: str = "",
        states: dict[int, BoardState] | None = None,
        ports: Ports | None = None,
    ) -> None:
        """``states``: the hall's boards by number, as restored from the store
        (read once by the hall, not once per port); ``ports``: the waiting
        thread (default: the server's one)."""
        super().__init__(name="board %s" % port, daemon=True)
        self.port = port
        self.store = store
        self.notify = notify
        self.game = game
        self.spec = spec
        self.states = states if states is not None else {}
        self.clock: Clock | None = None
        self.st: BoardState | None = None
        self.had = ""  # the id of the clock this worker had up on its port ("": none yet)
        self.device: Device | None = None  # the device it was on (reopened only if it is there)
        self.away = ""  # why the port was not even tried ("": it was, or it is up)
        self._look = False  # its path may have come back: look now
        self.ports = ports or PORTS
        # A board this port had before a restart shows at once.
        for st in self.states.values() if states is not None else ():
            if st.board.port == port:
                self.st = st
        self._wake = threading.Event()  # set by the port, a call, a stop
        self._fd = -1  # the descriptor ``ports`` watches for this worker
        self.wakes = 0  # times this worker's thread woke (tests count them)
        self._link_heard = -1.0  # the link's ``heard`` last seen, and when (on ``now``)
        self._heard_at = 0.0
        self.now: Callable[[], float] = time.monotonic  # the worker's timers' clock
        self._calls: queue.Queue[tuple[Callable[[Clock], Any], Future[Any]]] = queue.Queue()
        # Requests relayed from the broker: their own short queue, one run per
        # turn after the clock's events, so a flood cannot delay a press.
        self._relays: queue.Queue[tuple[Callable[[Clock], Any], Future[Any]]] = queue.Queue(
            self.RELAYS
        )
        self.unsaved = ""  # why the file did not take the last event ("": it did)
        self._alert_no = 0
        self.stopping = threading.Event()
        self.ready = threading.Event()  # set after the first connect attempt
        # The board's session (server/session.py): each kept event, then "events came".
        self.on_event: Callable[[int, Stored], None] | None = None
        self.after_events: Callable[[int], None] | None = None
        self.on_connect: Callable[[int], None] | None = None  # the clock (back) up

    # -- the thread's loop -------------------------------------------------------------------

    def run(self) -> None:
        next_try = 0.0
        next_save = 0.0
        while not self.stopping.is_set():
            self._wake.clear()  # before reading: bytes that come after it wake the next wait
            now = self.now()
            try:
                if self.clock is None or self.st is None or self.st.link != "up":
                    if now >= next_try or self._look:
                        self._look = False
                        # Watched before it is looked at: a path made meanwhile wakes it.
                        watched = not _is_url(self.port) and self.ports.await_path(self.port, self)
                        self._connect()
                        if (
                            self.on_connect is not None
                            and self.st is not None
                            and self.st.link == "up"
                        ):
                            try:
                                self.on_connect(self.st.board.no)
                            except LinkError as e:
                                self._lost(str(e))
                        self.ready.set()
                        # Gone (or another device there): nothing to try until its
                        # path changes. There but not answering: tried again soon.
                        wait = self.SAFETY_S if self.away and watched else self.RETRY_S
                        next_try = self.now() + wait
                    if self.clock is None or self.st is None or self.st.link != "up":
                        self._fail_calls()  # (a call made as the clock came up runs next)
                        self._unwatch()
                        self._sleep(next_try - self.now())
                    else:
                        self.ports.forget_path(self)
                    continue
                try:
                    self._run_calls()
                    if self.unsaved and now >= next_save:
                        next_save = now + self.RETRY_S
                        self._resave()
                    events = self.clock.events(0)
                    for ev in [] if self.unsaved else events:  # else: fetched again by _resave
                        self._keep(ev)
                    if self.after_events is not None:
                        self.after_events(self.st.board.no)
                    self._run_relay()
                    if self.now() - self._heard() >= self.QUIET_S:
                        self._status()  # the heartbeat: silence is asked whether it is alive
                except LinkError as e:
                    self._lost(str(e))
                    continue
                except StoreError as e:
                    try:
                        self._unsaved(str(e))
                    except LinkError as lost:
                        self._lost(str(lost))
                        continue
                self._sleep(self._due(next_save) - self.now())
            except Exception as e:  # never a silent end: an alert, the board lost, retried
                self._crashed(e)
                next_try = self.now() + self.RETRY_S
        self._unwatch()
        self.ports.forget_path(self)
        if self.clock is not None:
            self.clock.close()

    def _due(self, next_save: float) -> float:
        """When this worker must run though its port says nothing."""
        assert self.clock is not None
        due = self._heard() + self.QUIET_S
        link = self.clock.link.due()
        if link is not None:
            due = min(due, self.now() + max(0.0, link - self.clock.link.now()))
        if self.unsaved:
            due = min(due, next_save)
        if not self._relays.empty() or not self._calls.empty():
            due = self.now()
        if self._watch() < 0:  # no descriptor to wait on: read it every POLL_S
            due = min(due, self.now() + self.POLL_S)
        return due

    def _heard(self) -> float:
        """When the clock last said something, on the worker's clock (``now``)."""
        assert self.clock is not None
        heard = self.clock.link.heard
        if heard != self._link_heard:
            self._link_heard, self._heard_at = heard, self.now()
        return self._heard_at

    def _watch(self) -> int:
        """Arm the port's descriptor with ``ports`` (another one after a reopen)."""
        assert self.clock is not None
        link = self.clock.link
        fd = link.fileno() if link.is_open and _has_fd(link) else -1
        if fd != self._fd:
            self._unwatch()
        if fd >= 0:
            self.ports.watch(fd, self)
            self._fd = fd
        return fd

    def _unwatch(self) -> None:
        if self._fd >= 0:
            self.ports.forget(self._fd, self)
            self._fd = -1

    def _sleep(self, seconds: float) -> None:
        """Until the port speaks, a call or a stop comes, or ``seconds`` pass."""
        if seconds > 0:
            self._wake.wait(seconds)
        self.wakes += 1

    def wake(self) -> None:
        """Run the loop now (the port has bytes, a request came)."""
        self._wake.set()

    def appeared(self) -> None:
        """The lost port's path (or its link's target) may be back: look now."""
        self._look = True
        self._wake.set()

    def stop(self) -> None:
        self.stopping.set()
        self._wake.set()

    def _crashed(self, e: Exception) -> None:
        """An error no code path expected: the board is marked lost, the
        arbiter alerted, the port closed and tried again."""
        why = "the board's thread failed: %s: %s" % (type(e).__name__, e)
        self.ready.set()
        if self.clock is not None:
            try:
                self.clock.close()
            except Exception:
                pass
            self.clock = None
        self._fail_calls()
        if self.st is None:
            return
        self.st.link, self.st.link_text, self.st.offset = "lost", why[:200], None
        self._memory_alert("worker")
        try:
            self._host_event("lost")
        except Exception:  # a listener that failed once may fail again: the alert is kept
            pass

    def _memory_alert(self, kind: str) -> None:
        """An alert of the server's own (HOST_ALERTS), not in the file."""
        assert self.st is not None
        if any(a["kind"] == kind for a in self.st.alerts):
            return  # one at a time until acknowledged
        self._alert_no += 1
        # Never a row id, nor a session's alert (session.py: small negative ids).
        ident = -(HOST_ALERT_BASE + self.st.board.no * 1000000 + self._alert_no)
        ms = time.time_ns() // 1000000
        alert = {"id": ident, "kind": kind, "side": -1, "t": self.st.t, "host_ms": ms}
        self.st.alerts.append(alert)

    def _notify(self) -> None:
        if self.st is not None:
            self.notify(self.st.board.no, self.st.view(), None)

    def _unsaved(self, why: str) -> None:
        """The file did not take an event: the board stays live (its times
        from ``status``), an alert says so, and the events from the last one
        kept on are asked of the clock again until the file takes them."""
        assert self.st is not None
        first = not self.unsaved
        self.unsaved = why
        self.st.link_text = "the record cannot be written: %s" % why[:150]
        if first:
            self._memory_alert("store")
        self._status()  # the times from the clock at once (and the page told): the board is live

    def _resave(self) -> None:
        """Try the file again with what the clock still keeps since the last kept event."""
        assert self.clock is not None and self.st is not None
        boot, seq = self.store.last(self.st.board.no)
        for ev in self.clock.since(seq if boot == self.clock.link.boot else 0):
            self._keep(ev)
        self.unsaved = ""
        self.st.link_text = ""
        self._notify()

    def _elsewhere(self) -> str:
        """Why the port must not be opened now ("": it may): the device this
        worker had is gone, or another one has its path; or, before any
        clock was up on it, nothing is at its path."""
        if self.device is None:
            if _is_url(self.port) or os.path.exists(self.port):
                return ""
            return "%s is not there: waiting for a clock to appear" % self.port
        now = device_at(self.port)
        if now is None:
            return "%s is gone: waiting for the clock to come back" % self.port
        if not now.same(self.device):
            return "another device is at %s now: not opened (the clock had another)" % self.port
        return ""

    def _connect(self) -> None:
        away = self.away = self._elsewhere()
        if away:
            if self.clock is not None:
                self.clock.close()
            if self.st is not None and self.st.link == "up":
                self._lost(away)
            elif self.st is not None and self.st.link_text != away:
                self.st.link, self.st.link_text = "lost", away
                self.notify(self.st.board.no, self.st.view(), None)
            return
        try:
            if self.clock is None:
                self.clock = Clock(self.port, game=self.game, timeout=self.TIMEOUT_S)
                self._same_clock(self.clock)
            else:
                self.clock.reconnect()  # OtherClock if another id answers
        except LinkError as e:
            busy = "in use by" in str(e)
            if self.clock is not None:
                self.clock.close()
                if busy or isinstance(e, OtherClock):
                    self.clock = None  # a fresh link next time (checked again)
            if self.st is not None and self.st.link == "up":
                self._lost(str(e))
            elif self.st is not None:
                self.st.link, self.st.link_text = ("busy" if busy else "lost"), str(e)
                self.notify(self.st.board.no, self.st.view(), None)
            return
        hello = self.clock.hello
        board = self.store.board_for(hello.id, self.port, self.game, self.spec)
        if self.st is None or self.st.board.no != board.no:
            self.st = self.states.setdefault(board.no, BoardState(board))
        self.st.board = board
        boot, seq = self.store.last(board.no)
        try:
            # What happened while nobody listened: the rest of this boot's
            # events, or every event a restarted clock still keeps.
            for ev in self.clock.since(seq if boot == hello.boot else 0):
                self._keep(ev)
            was = self.st.link
            self.st.link, self.st.link_text = "up", ""
            self.had = hello.id
            self.device = device_at(self.port) or self.device
            if was == "lost":
                self._host_event("found")
            self._status()
        except LinkError as e:
            self._lost(str(e))

    def _same_clock(self, clock: Clock) -> None:
        """A port this worker had a clock on takes back only that clock: a
        new clock at the same path (a pty's number reused by another
        simulator) is not the lost one, and its port is let go at once."""
        if self.had and clock.hello.id != self.had:
            clock.close()
            raise OtherClock(self.port, self.had, clock.hello.id)

    def _status(self) -> None:
        assert self.clock is not None and self.st is not None
        st = self.st
        a = st.mono()
        s = self.clock.status()
        b = st.mono()
        st.offset = s.t - (a + b) // 2
        st.boot, st.t = self.clock.link.boot or st.boot, s.t  # the link's boot ("": not known)
        st.state, st.run = s.state, s.run
        st.left, st.moves, st.periods = list(s.left), list(s.moves), list(s.periods)
        st.result = s.result
        st.counted = (st.boot, s.seq)  # its moves count the events up to s.seq
        self.notify(st.board.no, st.view(), None)

    def _keep(self, ev: Event) -> None:
        assert self.clock is not None and self.st is not None
        stored = self.store.add_event(self.st.board.no, self.clock.link.boot, ev)
        if stored is not None:  # committed: now the hall may hear of it
            self.st.apply(stored)
            self.notify(self.st.board.no, self.st.view(), _event_json(stored))
            if self.on_event is not None:
                self.on_event(self.st.board.no, stored)

    def pull(self) -> None:
        """Keep what the clock said since the loop last read it (this thread only)."""
        if self.clock is not None and self.st is not None and self.st.link == "up":
            for ev in self.clock.events(0):
                self._keep(ev)

    def _host_event(self, name: str) -> None:
        assert self.st is not None
        ev = Event(time.time_ns(), -1, name, -1, 0, (self.st.left[0], self.st.left[1]))
        try:
            stored = self.store.add_event(self.st.board.no, "host", ev)
        except StoreError:
            if name == "lost":  # not in the file: the arbiter sees it all the same
                self._memory_alert("lost")
            self._notify()
            return
        if stored is not None:
            self.st.apply(stored)
            self.notify(self.st.board.no, self.st.view(), _event_json(stored))

    def _lost(self, why: str) -> None:
        assert self.st is not None
        if self.clock is not None:
            self.clock.close()
        self.st.link, self.st.link_text = "lost", why
        self.st.offset = None
        self._host_event("lost")

    # -- requests from the server's other threads -----------------------------------------

    def call(self, fn: Callable[[Clock], Any], relay: bool = False) -> Future[Any]:
        """Run ``fn(clock)`` on this board's thread; its result (or error) in the
        future. ``relay``: a request from the broker, in its own short queue
        (``queue.Full`` in the future when it is full: see ``relay_room``)."""
        fut: Future[Any] = Future()
        if relay:
            try:
                self._relays.put_nowait((fn, fut))
            except queue.Full:
                fut.set_exception(LinkError("busy: too many requests from the broker"))
        else:
            self._calls.put((fn, fut))
        self._wake.set()
        return fut

    def relay_room(self) -> bool:
        return not self._relays.full()

    def _run_calls(self) -> None:
        while True:
            try:
                fn, fut = self._calls.get_nowait()
            except queue.Empty:
                return
            self._run_one(fn, fut)

    def _run_relay(self) -> None:
        try:
            fn, fut = self._relays.get_nowait()
        except queue.Empty:
            return
        self._run_one(fn, fut)

    def _run_one(self, fn: Callable[[Clock], Any], fut: Future[Any]) -> None:
        assert self.clock is not None
        try:
            fut.set_result(fn(self.clock))
        except LinkError as e:
            fut.set_exception(e)
            raise
        except Exception as e:  # the clock's refusal (CommandError), or bad input
            fut.set_exception(e)

    def _fail_calls(self) -> None:
        for q in (self._calls, self._relays):
            while True:
                try:
                    _, fut = q.get_nowait()
                except queue.Empty:
                    break
                fut.set_exception(LinkError("%s: the clock is not connected" % self.port))


DRIFT_MS = 250  # a running side's time this far from what the page reckons is news


def same_news(old: dict[str, Any] | None, new: dict[str, Any]) -> bool:
    """Whether a page that has board view ``old`` would draw ``new`` the same:
    every field equal but the clock's ms (``t``, ``now``), and the times
    ``left`` as the page ticks them from ``old`` (a running side's time less
    the clock's ms since, within ``DRIFT_MS``). A heartbeat's ``status`` that
    says nothing new goes to no page (#32)."""
    if old is None or old.keys() != new.keys():
        return False
    for k, v in new.items():
        if k not in ("t", "now", "left") and old[k] != v:
            return False
    if old["left"] == new["left"]:
        return new["state"] != "running" or new["run"] not in (0, 1)
    if new["state"] != "running" or new["run"] not in (0, 1):
        return False
    run = new["run"]
    if old["left"][1 - run] != new["left"][1 - run]:
        return False
    ticked = old["left"][run] - (new["t"] - old["t"])
    return abs(ticked - new["left"][run]) <= DRIFT_MS


def _is_url(port: str) -> bool:
    """A pyserial URL (``loop://``, ``socket://``): no path to watch."""
    return "://" in port


def _has_fd(link: Any) -> bool:
    """A port with a POSIX descriptor (a device, a pty), not a URL's socket."""
    fd = getattr(link._ser, "fd", None)
    return isinstance(fd, int) and fd >= 0


def _event_json(st: Stored) -> dict[str, Any]:
    ev = st.event
    return {
        "id": st.id,
        "board": st.board,
        "boot": st.boot,
        "seq": ev.seq,
        "t": ev.t,
        "name": ev.name,
        "side": ev.side,
        "arg": ev.arg,
        "left": list(ev.left),
        "host_ms": st.host_ms,
    }
