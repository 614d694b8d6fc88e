# SPDX-License-Identifier: GPL-3.0-or-later
"""#34: a lost clock's port is waited for, not looked at each second.

Before, the worker of a lost clock looked at its port's path every second
(``device_at``: a ``stat`` and a read of sysfs) and tried it: a thousand lost
clocks were a thousand wake-ups a second. Now it watches the path's folder
(inotify, ``qizhong.clocks.pathwatch``) and looks only when a name it waits
for is made there, or after ``Worker.SAFETY_S`` all the same. These tests use
real inotify events on real folders and ptys; the worker's timers run in
virtual time, and every real wait is an event's, bounded by ``WAIT_S``."""

import os
import select
import threading
import time

import pytest
from hallserver import WAIT_S

from qizhong.clocks.pathwatch import PathWatch, watch_points
from qizhong.server import board
from qizhong.server.board import Worker
from qizhong.server.store import Store
from qizhong.sim import Sim


@pytest.fixture
def sim():
    s = Sim(open_link=False)
    yield s
    s.close()


@pytest.fixture
def watch():
    pw = PathWatch()
    yield pw
    pw.close()


def _called(pw: PathWatch) -> int:
    """Wait (bounded) for inotify to speak, then hand its events out."""
    ready, _, _ = select.select([pw], [], [], WAIT_S)
    assert ready, "inotify said nothing"
    return pw.handle()


def test_devpts_says_when_a_new_pty_is_made(watch):
    """Checked on this machine, not assumed: a new pty is an event in
    /dev/pts, and the owner waiting for its number is called. (Each free
    number has an owner: another program may take a number meanwhile.)"""
    taken = {int(n) for n in os.listdir("/dev/pts") if n.isdigit()}
    free = [n for n in range(max(taken, default=0) + 64) if n not in taken]
    called: list[int] = []
    for n in free:
        watch.want("/dev/pts/%d" % n, n, lambda n=n: called.append(n))
    master, slave = os.openpty()
    try:
        mine = int(os.ttyname(slave).rsplit("/", 1)[1])
        assert mine in free
        while mine not in called:  # (another program's new pty may come first)
            _called(watch)
    finally:
        os.close(slave)
        os.close(master)


def test_a_link_and_its_target_are_both_waited_for(watch, tmp_path):
    """A port configured as a link: its name made again calls the owner, and
    so does its target made again (the link stayed, the device came back)."""
    dev = tmp_path / "dev"
    dev.mkdir()
    (tmp_path / "by-id").mkdir()
    port = tmp_path / "by-id" / "usb-qizhong-1"
    os.symlink(dev / "ttyACM0", port)  # a link to a device that is gone
    assert set(watch_points(str(port))) == {
        (str(tmp_path / "by-id"), "usb-qizhong-1"),
        (str(dev), "ttyACM0"),
    }
    called: list[int] = []
    watch.want(str(port), "w", lambda: called.append(1))
    (dev / "ttyACM1").write_text("")  # another name: nobody is called
    assert watch.handle() == 0 and called == []
    (dev / "ttyACM0").write_text("")  # the target is back
    assert _called(watch) == 1
    watch.want(str(port), "w", lambda: called.append(2))  # it looks, and waits again
    os.unlink(port)
    assert watch.handle() == 0  # a name removed is not a name back
    os.symlink(dev / "ttyACM0", port)
    assert _called(watch) == 1 and called == [1, 2]


def test_a_folder_that_is_not_there_yet_is_waited_for_in_its_parent(watch, tmp_path):
    """``/dev/serial/by-id`` is there only while a USB serial device is: a
    port in it is waited for in the nearest folder that is, folder by folder."""
    port = tmp_path / "serial" / "by-id" / "usb-qizhong-1"
    called: list[str] = []
    assert watch.want(str(port), "w", lambda: called.append("serial"))
    (tmp_path / "serial").mkdir()
    assert _called(watch) == 1
    assert watch.want(str(port), "w", lambda: called.append("by-id"))
    (tmp_path / "serial" / "by-id").mkdir()
    assert _called(watch) == 1
    assert watch.want(str(port), "w", lambda: called.append("link"))
    port.write_text("")
    assert _called(watch) == 1
    assert called == ["serial", "by-id", "link"]
    # A watched folder removed: its owner is called (it watches anew), not left deaf.
    assert watch.want(str(port), "w", lambda: called.append("gone"))
    port.unlink()
    (tmp_path / "serial" / "by-id").rmdir()
    assert _called(watch) == 1 and called[-1] == "gone"


def test_a_lost_clocks_worker_looks_only_when_its_path_comes_back(sim, tmp_path):
    """The issue's case: a lost clock's port (a link, as a server's port
    config may be) gone for 10 s of virtual quiet. Before: looked at and
    tried 11 times (once a second). Now: not once, and when the link is made
    again the worker is woken by it (no timer of its is due: virtual time
    stands still) and the same clock is up again."""
    port = str(tmp_path / "ttyHALL")
    os.symlink(sim.serial_path, port)
    store = Store(str(tmp_path / "hall.sqlite"))
    ports = board.Ports()
    w = Worker(port, store, lambda no, view, event: None, ports=ports)
    vt = [1000.0]
    connects: list[float] = []
    real_connect = w._connect

    def connect() -> None:
        connects.append(vt[0])
        real_connect()

    w._connect = connect  # type: ignore[method-assign]
    w.now = lambda: vt[0]
    try:
        w._connect()
        assert w.st is not None and w.st.link == "up"
        had = w.had
        os.unlink(port)  # the path goes (a cable pulled) ...
        w._lost("the cable was pulled")  # ... and the port's hang-up tells the worker
        start = vt[0]
        quiet_end = start + 10.0
        back_at = [0.0]
        result: dict[str, object] = {}

        def sleep(seconds: float) -> None:  # virtual time, up to 10 s of quiet
            if vt[0] < quiet_end:
                vt[0] += min(max(0.0, seconds), quiet_end - vt[0])
                return
            if not back_at[0]:
                result["quiet"] = [t - start for t in connects[1:]]
                if len(connects) > 2:  # it looked each second: no need to go on
                    w.stopping.set()
                    return
                os.symlink(sim.serial_path, port)  # the same clock's path is back
                back_at[0] = time.monotonic()
            if w.st is not None and w.st.link == "up":
                result["up_after_s"] = time.monotonic() - back_at[0]
                w.stopping.set()
                return
            # No timer is due for a day of virtual time: only an event wakes it.
            result["woken"] = w._wake.wait(WAIT_S)
            if not result["woken"]:
                w.stopping.set()

        w._sleep = sleep  # type: ignore[method-assign]
        t = threading.Thread(target=w.run, daemon=True)
        t.start()
        t.join(3 * WAIT_S)
        assert not t.is_alive()
        assert len(result["quiet"]) <= 1, result  # type: ignore[arg-type]
        assert result.get("woken") and "up_after_s" in result, result
        assert vt[0] == quiet_end  # up again with no virtual time passed: the event did it
        assert w.st.link == "up" and w.had == had  # the same clock
        assert ports.paths is not None and ports.paths.called >= 1
    finally:
        if w.clock is not None:
            w.clock.close()
        store.close()


def test_the_links_own_reopen_waits_for_its_path_not_a_timer(sim, tmp_path, monkeypatch):
    """Within a request's time the link reopens a port that went away. It
    tried every 50 ms by its path; now, while the path is gone, it waits on
    inotify and opens when the path is made again (the same device)."""
    from qizhong.clocks import pathwatch
    from qizhong.clocks.link import Link

    port = str(tmp_path / "ttyHALL")
    os.symlink(sim.serial_path, port)
    link = Link(port, timeout=WAIT_S)
    watching = threading.Event()
    real_points = pathwatch.watch_points

    def points(path: str) -> list[tuple[str, str]]:
        got = real_points(path)
        watching.set()  # (the real watches are added next, before the path is looked at)
        return got

    monkeypatch.setattr(pathwatch, "watch_points", points)
    opens: list[int] = []
    real_open = link.open

    def counted_open() -> None:
        opens.append(1)
        real_open()

    link.open = counted_open  # type: ignore[method-assign]
    failed: list[Exception] = []

    def reopen() -> None:
        try:
            link._reopen(time.monotonic() + WAIT_S)
        except Exception as e:
            failed.append(e)

    try:
        link.close()
        os.unlink(port)  # the port goes
        t = threading.Thread(target=reopen, daemon=True)
        t.start()
        assert watching.wait(WAIT_S), "the link did not wait on its path"
        os.symlink(sim.serial_path, port)  # and comes back
        t.join(WAIT_S)
        assert not t.is_alive() and not failed, failed
        assert link.is_open and link.reopens == 1
        assert len(opens) <= 3  # one failed try, the open after the event (and a spare)
    finally:
        link.close()


def test_only_the_worker_whose_path_is_made_wakes(sim, tmp_path):
    """Two boards' ports not there yet (clocks not plugged in), their threads
    running for real on one ``Ports``: a link made at one path wakes that
    board's thread, which takes its clock up; the other sleeps on, never
    woken (before: both looked every second)."""
    store = Store(str(tmp_path / "hall.sqlite"))
    ports = board.Ports()
    up = threading.Event()

    def notify(no, view, event):
        if view["link"] == "up":
            up.set()

    a = Worker(str(tmp_path / "ttyA"), store, notify, ports=ports)
    b = Worker(str(tmp_path / "ttyB"), store, lambda no, view, event: None, ports=ports)
    for w in (a, b):
        w.SAFETY_S = 86400.0  # no timer of theirs is due during the test
        w.start()
    try:
        assert a.ready.wait(WAIT_S) and b.ready.wait(WAIT_S)
        assert "is not there" in a.away and "is not there" in b.away
        a_wakes, b_wakes = a.wakes, b.wakes
        os.symlink(sim.serial_path, tmp_path / "ttyA")
        assert up.wait(WAIT_S), "the board did not come up"
        assert a.st is not None and a.st.link == "up" and a.wakes > a_wakes
        assert b.wakes == b_wakes and b.st is None
        assert ports.paths is not None and ports.paths.called >= 1  # by inotify
    finally:
        for w in (a, b):
            w.stop()
            w.join(WAIT_S)
        store.close()
