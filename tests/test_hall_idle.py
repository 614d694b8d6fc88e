# SPDX-License-Identifier: GPL-3.0-or-later
"""#32: the hall server's cost follows its presses, not its clocks.

Before, each board's thread woke every 50 ms to poll its port and asked its
clock ``status`` every 2 s, and every status went to every page; the store's
boards were read once per port at start. Here a worker is run in virtual
time against a real simulated clock (its firmware in virtual time too) and
its wake-ups counted; a press must still wake it at once through the port."""

import threading

import pytest
from hallserver import WAIT_S

from qizhong.server import board
from qizhong.server.board import Worker
from qizhong.server.hall import Hall
from qizhong.server.store import Store
from qizhong.sim import Sim


@pytest.fixture
def sim():
    s = Sim(open_link=False)
    yield s
    s.close()


def _run_bounded(w: Worker) -> None:
    """The worker's own loop on a thread, bounded in real time (a loop that
    never ends fails here, not hangs)."""
    t = threading.Thread(target=w.run, daemon=True)
    t.start()
    t.join(WAIT_S)
    alive = t.is_alive()
    w.stop()
    t.join(WAIT_S)
    assert not alive, "the worker's loop did not end in virtual time"


def test_an_idle_clocks_worker_wakes_only_for_its_heartbeat(sim, tmp_path):
    """Two virtual minutes of an idle clock: the worker sleeps until its
    heartbeat each QUIET_S (15 s), a ``status`` each time, answered; before,
    it woke 20 times a second and asked every 2 s."""
    store = Store(str(tmp_path / "hall.sqlite"))
    views: list[dict] = []
    w = Worker(sim.serial_path, store, lambda no, view, event: views.append(view))
    vt = [1000.0]
    sleeps: list[float] = []
    statuses = []
    real_status = w._status

    def status() -> None:
        statuses.append(vt[0])
        real_status()

    def sleep(seconds: float) -> None:  # virtual time: the wait is the time it asks for
        sleeps.append(seconds)
        vt[0] += max(0.0, seconds)
        if vt[0] >= 1000.0 + 120:
            w.stopping.set()

    w.now = lambda: vt[0]
    w._sleep = sleep  # type: ignore[method-assign]
    w._status = status  # type: ignore[method-assign]
    try:
        _run_bounded(w)
        assert w.st is not None and w.st.link == "up", w.st
        assert len(sleeps) <= 120 / Worker.QUIET_S + 3, sleeps
        assert min(sleeps[1:]) >= Worker.QUIET_S - 0.5, sleeps  # no short naps between beats
        # one status as it came up, then one per QUIET_S of silence: every one answered
        assert 120 / Worker.QUIET_S - 1 <= len(statuses) <= 120 / Worker.QUIET_S + 2, statuses
    finally:
        store.close()


def test_a_press_wakes_the_sleeping_worker_through_its_port(sim, tmp_path):
    """With no heartbeat for a day, a press reaches the hall all the same: the
    port's bytes wake the worker (one epoll thread for every port), in a few
    wake-ups, not one each 50 ms."""
    store = Store(str(tmp_path / "hall.sqlite"))
    got = threading.Event()
    events: list[dict] = []

    def notify(no, view, event):
        if event is not None and event["name"] == "press":
            events.append(event)
            got.set()

    ports = board.Ports()
    w = Worker(sim.serial_path, store, notify, ports=ports)
    w.QUIET_S = 86400.0
    try:
        w.start()
        assert w.ready.wait(WAIT_S) and w.st is not None and w.st.link == "up"
        w.call(lambda clock: clock.start(0)).result(WAIT_S)
        before = w.wakes
        sim.press(0, sim.now + 1000)
        assert got.wait(WAIT_S), "the press never reached the hall"
        assert events[0]["side"] == 0
        assert w.wakes - before <= 4, w.wakes - before
        assert ports.wakes >= 1  # the port's bytes woke it, not a timer
    finally:
        w.stop()
        w.join(WAIT_S)
        store.close()


def test_a_state_that_shows_nothing_new_goes_to_no_one(tmp_path):
    """A heartbeat's status that says what the pages already draw (the clock's
    ms moved on, a running side's time ticked down as the page ticks it) is
    told to no listener and no page; one that changes something is."""
    store = Store(str(tmp_path / "hall.sqlite"))
    hall = Hall(store, "pw")
    heard: list[dict] = []
    hall.listeners.append(lambda no, view, event: heard.append(view))
    view = {"key": "1", "no": 1, "state": "idle", "run": -1, "left": [60000, 60000], "t": 1000,
            "now": 1000, "moves": [0, 0]}  # fmt: skip
    try:
        hall.notify(1, view, None)
        hall.notify(1, dict(view, t=3000, now=3000), None)  # idle: only the clock's ms moved
        assert len(heard) == 1
        running = dict(view, state="running", run=0)
        hall.notify(1, running, None)
        assert len(heard) == 2  # a start is news
        hall.notify(1, dict(running, t=3000, now=3000, left=[58000, 60000]), None)  # as ticked
        hall.notify(1, dict(running, t=5000, now=5000, left=[55990, 60000]), None)  # 10 ms drift
        assert len(heard) == 2
        hall.notify(1, dict(running, t=7000, now=7000, left=[50000, 60000]), None)  # 4 s off
        assert len(heard) == 3
        hall.notify(1, dict(running, t=7000, now=7000, left=[50000, 60000], moves=[1, 0]), None)
        assert len(heard) == 4
        event = {"id": 7, "name": "press"}
        hall.notify(1, dict(running, t=7000, now=7000, left=[50000, 60000], moves=[1, 0]), event)
        assert len(heard) == 5  # an event always goes out
    finally:
        hall.stop()
        store.close()


def test_the_store_is_read_once_for_every_port(tmp_path):
    """At start every port's worker finds its board in the hall's states (read
    from the store once), not by reading every board again per port (1,000
    reads of 1,000 boards, while the workers already started hold the GIL)."""
    store = Store(str(tmp_path / "hall.sqlite"))
    for i in range(5):
        store.board_for("c%d" % i, str(tmp_path / ("tty%d" % i)), "xiangqi", "xq-rapid")
    hall = Hall(store, "pw")
    reads = [0]
    real = store.boards

    def boards():
        reads[0] += 1
        return real()

    store.boards = boards  # type: ignore[method-assign]
    try:
        for i in range(5):
            w = hall.add_port(str(tmp_path / ("tty%d" % i)))
            assert w.st is hall.states[i + 1]  # its board shows at once
        assert reads[0] == 0
    finally:
        hall.stop()
        store.close()
