# SPDX-License-Identifier: GPL-3.0-or-later
"""#21: a lost clock's port taken back only with the same clock on it.

A hall server's worker reopens a lost clock's port by its path. A pty's
number is given to the next simulator that asks (and a USB socket may get
another clock): the worker took whatever clock answered there as a board of
its own, holding its port, so the program that started that clock could not
have it. Now the clock's id decides: another clock on the path is not the
lost one, the board stays lost (saying why) and the port is let go. The
path here is a link that a test points at another clock, as a pty number
reused or ``/dev/serial/by-path/...`` on another clock would."""

import os
import threading

import pytest

from qizhong.clocks.driver import Clock, OtherClock
from qizhong.clocks.link import PortBusy
from qizhong.server import sims
from qizhong.server.board import Worker
from qizhong.server.store import Store


@pytest.fixture
def two(tmp_path):
    started = sims.start(2, str(tmp_path / "sims"), "xq-rapid", "reuse")
    yield started
    sims.stop(started)


def test_another_clock_on_a_lost_clocks_port_is_not_taken_back(two, tmp_path):
    first, second = two
    port = str(tmp_path / "ttyHALL")  # the worker's port: a path, first to the first clock
    os.symlink(first.serial, port)
    store = Store(str(tmp_path / "hall.sqlite"))
    views: list[dict] = []
    seen = threading.Condition()

    def notify(no, view, event):
        with seen:
            views.append(view)
            seen.notify_all()

    def wait_for(pred, what):
        with seen:
            assert seen.wait_for(lambda: any(pred(v) for v in views), 60), (
                what,
                [(v["clock_id"], v["link"], v["link_text"]) for v in views[-5:]],
            )
            return next(v for v in views if pred(v))

    w = Worker(port, store, notify)
    w.start()
    mine = None
    try:
        wait_for(lambda v: v["link"] == "up" and v["clock_id"] == "reuse-1", "up")
        # The path now leads to the second clock, and the first one's power is cut.
        os.unlink(port)
        os.symlink(second.serial, port)
        with seen:
            views.clear()
        sims.stop([first])
        lost = wait_for(lambda v: "another clock (reuse-2)" in v["link_text"], "refused")
        assert lost["clock_id"] == "reuse-1" and lost["link"] == "lost"
        # Its port is let go: the second clock's own program takes it (within a
        # bounded count of tries: the worker opens it a moment each second).
        for _ in range(200):
            try:
                mine = Clock(second.serial, timeout=10)
                break
            except PortBusy:
                with seen:
                    seen.wait(0.05)
        assert mine is not None and mine.hello.id == "reuse-2"
        with seen:
            views.clear()
        wait_for(lambda v: v["link"] == "busy", "kept out")  # the worker now finds it busy
        assert mine.status().state == "idle"  # and it is ours to use
        # Never a board of the first server's for the second clock, nor its events.
        assert [b.clock_id for b in store.boards()] == ["reuse-1"]
        assert {st.board for st in store.events()} == {1}
        assert all(v["clock_id"] == "reuse-1" for v in views)
    finally:
        if mine is not None:
            mine.close()
        w.stop()
        w.join(10)
        store.close()


def test_a_clocks_reconnect_refuses_another_clock(two, tmp_path):
    """``Clock.reconnect`` itself (the command line's, a benchmark's): another
    id on the port is ``OtherClock``, with the port closed again."""
    first, second = two
    port = str(tmp_path / "tty")
    os.symlink(first.serial, port)
    c = Clock(port, timeout=10)
    try:
        os.unlink(port)
        os.symlink(second.serial, port)
        with pytest.raises(OtherClock, match="another clock \\(reuse-2\\)"):
            c.reconnect()
        assert not c.link.is_open and c.hello.id == "reuse-1"
        Clock(second.serial, timeout=10).close()  # its port is free
        os.unlink(port)
        os.symlink(first.serial, port)
        c.reconnect()  # the same clock again: taken back
        assert c.hello.id == "reuse-1" and c.status().state == "idle"
    finally:
        c.close()
