# SPDX-License-Identifier: GPL-3.0-or-later
"""#21 item 17: a hall server with hundreds of clocks. pyserial waited with
``select()``, which fails on a descriptor numbered 1024 or more: a server's
201st clock or so died of it, silently. The link waits with ``poll()`` now,
and a board whose thread meets any error is marked lost with an alert."""

import os
import resource
import threading

import pytest
import test_mqtt
from hallserver import WAIT_S

from qizhong.clocks.driver import Clock
from qizhong.server import sims
from qizhong.server.board import Worker
from qizhong.server.store import Store

broker = test_mqtt.broker  # the fixture: a real mosquitto on a loopback port


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
        assert back.wait(WAIT_S), [(v["link"], v["alerts"]) for v in seen]
        assert w.is_alive()
        assert any(v["link"] == "lost" and "listener failed" in v["link_text"] for v in seen)
        assert [st.event.name for st in store.events() if st.boot == "host"][:1] == ["lost"]
    finally:
        w.stop()
        w.join(10)
        store.close()


SITE = """
import os
with open("/proc/self/cmdline", "rb") as f:
    serve = b"\\0serve\\0" in f.read()  # the server only, not its simulated clocks
if serve and os.environ.get("QIZHONG_TEST_LOW_FDS"):  # 3..1100 taken: new ones are above
    base = os.open(os.devnull, os.O_RDONLY)
    for fd in range(3, 1101):
        if fd != base:
            try:
                os.fstat(fd)
            except OSError:
                os.dup2(base, fd, inheritable=False)
"""


def test_a_server_whose_descriptors_are_all_above_1024(tmp_path, broker, monkeypatch):
    """The whole server (clocks' links, the MQTT bridge) with every descriptor
    it opens numbered above 1100, as with a few hundred clocks and viewers."""
    import paho.mqtt.client as mqtt
    from hallserver import Server

    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITE)
    monkeypatch.setenv("PYTHONPATH", "%s:%s" % (site, os.environ.get("PYTHONPATH", "")))
    monkeypatch.setenv("QIZHONG_TEST_LOW_FDS", "1")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 4096:  # the server inherits it: room above 1100
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(4096, hard), hard))
    got = threading.Event()
    host, port = broker.split(":")
    sub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    sub.on_message = lambda c, u, m: b'"press"' in m.payload and got.set()
    sub.connect(host, int(port))
    sub.subscribe("qizhong/hall/+/event", 1)
    sub.loop_start()
    s = Server(str(tmp_path / "hall.sqlite"), 2, ("--mqtt", broker), name="fd")
    try:
        opened = {
            int(fd): os.readlink("/proc/%d/fd/%s" % (s.proc.pid, fd))
            for fd in os.listdir("/proc/%d/fd" % s.proc.pid)
        }
        real = {fd: what for fd, what in opened.items() if fd > 2 and what != os.devnull}
        assert real and min(real) > 1100, real  # ptys, lock files, sockets, the database
        ws = s.socket()
        s.boards_up(ws)
        s.post("/api/boards/2/start", {"side": 0})
        sims.press(s.sim(2), "left")
        s.wait(ws, lambda m: (m.get("event") or {}).get("name") == "press")
        assert got.wait(WAIT_S)  # and through the bridge
    finally:
        s.stop()
        sub.loop_stop()
        sub.disconnect()
