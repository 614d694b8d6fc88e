# SPDX-License-Identifier: GPL-3.0-or-later
"""#21, #34: a lost clock's port taken back only with the same clock on it.

A hall server's worker reopens a lost clock's port by its path. A pty's
number is given to the next simulator that asks (and a USB socket may get
another clock): the worker took whatever clock answered there as a board of
its own, holding its port, so the program that started that clock could not
have it. Now the clock's id decides: another clock on the path is not the
lost one, the board stays lost (saying why) and the port is let go. Since
#34 the worker does not even open a path that names another device now. The
path here is a link that a test points at another clock, as a pty number
reused or ``/dev/serial/by-path/...`` on another clock would."""

import os
import time

import pytest

from qizhong.clocks.driver import Clock
from qizhong.clocks.link import Link, OtherDevice
from qizhong.server import sims
from qizhong.server.board import Worker
from qizhong.server.store import Store


@pytest.fixture
def two(tmp_path):
    started = sims.start(2, str(tmp_path / "sims"), "xq-rapid", "reuse")
    yield started
    sims.stop(started)


def test_another_device_on_a_lost_clocks_port_is_never_opened(two, tmp_path):
    """#34: the worker reopens only the device it had. A path that now names
    another device is not even opened (before: opened each second, so the
    other program's port got our ``hello``, or found us holding it)."""
    first, second = two
    port = str(tmp_path / "ttyHALL")  # the worker's port: a path, first to the first clock
    os.symlink(first.serial, port)
    store = Store(str(tmp_path / "hall.sqlite"))
    views: list[dict] = []
    w = Worker(port, store, lambda no, view, event: views.append(view))
    mine = None
    try:
        w._connect()  # the worker's own step, run here: no thread, no timing
        assert w.st is not None and w.st.link == "up" and w.st.board.clock_id == "reuse-1"
        # The path now leads to the second clock, and the first one's power is cut.
        os.unlink(port)
        os.symlink(second.serial, port)
        sims.stop([first])
        mine = Clock(second.serial, timeout=10)  # its own program holds it
        w._connect()
        assert w.st.link == "lost" and "another device is at %s" % port in w.st.link_text
        assert w.clock is None or not w.clock.link.is_open
        w._connect()  # and again: never "busy", the port was not tried
        assert w.st.link == "lost" and "another device" in w.st.link_text
        assert mine.status().state == "idle"  # the second clock is its program's
        os.unlink(port)  # the path gone: waited for, not opened
        w._connect()
        assert "%s is gone" % port in w.st.link_text
        # Never a board of the first server's for the second clock, nor its events.
        assert [b.clock_id for b in store.boards()] == ["reuse-1"]
        assert {st.board for st in store.events()} == {1}
        assert all(v["clock_id"] == "reuse-1" for v in views)
    finally:
        if mine is not None:
            mine.close()
        if w.clock is not None:
            w.clock.close()
        store.close()


def test_the_same_clock_comes_back_on_its_own_device(two, tmp_path):
    """A clock that went silent on the same device node (a stalled USB link,
    a paused simulator) is taken back: the node is the one the worker had."""
    first, _ = two
    store = Store(str(tmp_path / "hall.sqlite"))
    w = Worker(first.serial, store, lambda no, view, event: None)
    try:
        w._connect()
        assert w.st is not None and w.st.link == "up"
        w._lost("silent")  # as after TIMEOUT_S without an answer
        w._connect()
        assert w.st.link == "up" and w.st.board.clock_id == "reuse-1"
    finally:
        if w.clock is not None:
            w.clock.close()
        store.close()


def test_a_clocks_reconnect_refuses_another_clock(two, tmp_path):
    """``Clock.reconnect`` itself (the command line's, a benchmark's): a path
    that names another device now is not opened (``OtherDevice``); the same
    device again is taken back."""
    first, second = two
    port = str(tmp_path / "tty")
    os.symlink(first.serial, port)
    c = Clock(port, timeout=10)
    try:
        os.unlink(port)
        os.symlink(second.serial, port)
        with pytest.raises(OtherDevice, match="another device is at"):
            c.reconnect()  # not even opened (#34): another device has the path
        assert not c.link.is_open and c.hello.id == "reuse-1"
        Clock(second.serial, timeout=10).close()  # its port is free
        os.unlink(port)
        os.symlink(first.serial, port)
        c.reconnect()  # the same clock again: taken back
        assert c.hello.id == "reuse-1" and c.status().state == "idle"
    finally:
        c.close()


def test_the_links_own_reopen_never_opens_another_device(two, tmp_path):
    """#34: after a read error the link reopened its path for up to its
    timeout, by name: a dead simulator's pty number, given to the next test's
    simulator, was opened (PortBusy for that test). Now only the same device."""
    first, second = two
    port = str(tmp_path / "tty")
    os.symlink(first.serial, port)
    link = Link(port, timeout=5)
    try:
        os.unlink(port)
        os.symlink(second.serial, port)
        with pytest.raises(OtherDevice):
            link._reopen(time.monotonic() + 5)
        assert link._ser is None
        Clock(second.serial, timeout=10).close()  # never held: its own program has it
        os.unlink(port)
        os.symlink(first.serial, port)
        link._reopen(time.monotonic() + 5)  # its own device again
        assert link._ser is not None
    finally:
        link.close()


def test_a_usb_clock_replugged_is_the_same_device_by_its_serial():
    """After an unplug the kernel makes a new node (another inode, another
    creation time): the same USB serial number makes it the same device, so
    it is reopened; a pty (no serial) is the same only on the same node."""
    from qizhong.clocks.link import Device

    before = Device((0xA600, 812, 1_000), "E6614C311B8A2F35")
    replugged = Device((0xA600, 905, 9_000), "E6614C311B8A2F35")
    another = Device((0xA600, 905, 9_000), "E6614C311B8A0000")
    assert replugged.same(before) and before.same(replugged)
    assert not another.same(before)
    pty = Device((0x8805, 7, 1_000), "")
    assert pty.same(Device((0x8805, 7, 1_000), ""))
    assert not Device((0x8805, 9, 2_000), "").same(pty)  # its number given again
