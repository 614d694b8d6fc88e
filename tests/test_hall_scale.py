# SPDX-License-Identifier: GPL-3.0-or-later
"""#21 item 17: a hall server with hundreds of clocks. pyserial waited with
``select()``, which fails on a descriptor numbered 1024 or more: a server's
201st clock or so died of it, silently. The link waits with ``poll()`` now,
and a board whose thread meets any error is marked lost with an alert."""

import os
import resource
import threading

import pytest

from qizhong.clocks.driver import Clock
from qizhong.server import sims
from qizhong.server.board import Worker
from qizhong.server.store import Store


@pytest.fixture
def clock(tmp_path):
    started = sims.start(1, str(tmp_path / "sims"), "xq-rapid", "scale")
    yield started[0]
    sims.stop(started)


@pytest.fixture
def high_fds():
    """Descriptors 0..1100 taken, so the next one opened is above 1024."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1200:
        pytest.fail("RLIMIT_NOFILE's hard limit is %d: this test needs 1200" % hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1200), hard))
    base = os.open(os.devnull, os.O_RDONLY)
    taken = [base]
    while taken[-1] < 1100:
        taken.append(os.dup(base))
    yield
    for fd in taken:
        os.close(fd)
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_clock_on_a_descriptor_above_1024(clock, high_fds, tmp_path):
    c = Clock(clock.serial, timeout=10)
    try:
        assert c.link.fileno() > 1024
        assert c.status().state == "idle"
        c.start(0)
        sims.press(clock, "left")
        names = []
        for _ in range(100):  # bounded: each waits up to 0.2 s for the clock's events
            names += [ev.name for ev in c.events(0.2)]
            if "press" in names:
                break
        assert "press" in names
    finally:
        c.close()


def test_a_board_whose_thread_fails_is_lost_with_an_alert_and_comes_back(clock, tmp_path):
    """A listener of the board's news that raises (as a broker client may) no
    longer ends the board's thread: the board is marked lost, an alert
    raised, and the clock taken up again."""
    store = Store(str(tmp_path / "hall.sqlite"))
    seen: list[dict] = []
    back = threading.Event()
    calls = [0]

    def notify(no, view, event):
        calls[0] += 1
        seen.append(view)
        if calls[0] == 3:
            raise RuntimeError("a listener failed")
        if view["link"] == "up" and any(a["kind"] == "worker" for a in view["alerts"]):
            back.set()

    w = Worker(clock.serial, store, notify)
    w.start()
    try:
        assert back.wait(30), [(v["link"], v["alerts"]) for v in seen]
        assert w.is_alive()
        assert any(v["link"] == "lost" and "listener failed" in v["link_text"] for v in seen)
        assert [st.event.name for st in store.events() if st.boot == "host"][:1] == ["lost"]
    finally:
        w.stop()
        w.join(10)
        store.close()
