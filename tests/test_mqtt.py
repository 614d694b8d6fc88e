# SPDX-License-Identifier: GPL-3.0-or-later
"""Many laptops, one hall (#15): two servers and a dashboard on one real
mosquitto (Debian's) on a loopback port."""

import os
import shutil
import socket
import subprocess

import pytest
from hallserver import Server

from qizhong.server import sims

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


@pytest.fixture
def broker(tmp_path):
    if not os.path.exists(MOSQUITTO):
        pytest.fail("Debian's mosquitto is needed: apt-get install mosquitto (make test does it)")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    conf = tmp_path / "mosquitto.conf"
    conf.write_text("listener %d 127.0.0.1\nallow_anonymous true\npersistence false\n" % port)
    proc = subprocess.Popen(
        [MOSQUITTO, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    # mosquitto says nothing when ready: wait for its port, bounded in count.
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.05).close()
            break
        except OSError:
            try:
                proc.wait(0.05)  # waits on the broker, not on a wall clock
                pytest.fail("mosquitto did not start: %s" % proc.stderr.read().decode())
            except subprocess.TimeoutExpired:
                pass
    yield "127.0.0.1:%d" % port
    proc.terminate()
    proc.wait(10)


def test_two_servers_on_one_broker_show_one_hall(tmp_path, broker):
    a = Server(str(tmp_path / "a.sqlite"), 1, ("--mqtt", broker), name="a")
    b = Server(str(tmp_path / "b.sqlite"), 1, ("--mqtt", broker), name="b")
    dash = Server(str(tmp_path / "d.sqlite"), 0, ("--mqtt", broker), name="dash")
    try:
        ws = a.socket()
        a.boards_up(ws)
        b.boards_up(b.socket())
        wd = dash.socket()
        b.post("/api/boards/1/start", {"side": 0})
        sims.press(b.sim(1), "left")
        # Laptop A's hall shows laptop B's board, and its press.
        m = a.wait(
            ws,
            lambda m: (
                m["type"] == "board"
                and m["board"].get("server") == "b"
                and m["board"]["moves"] == [1, 0]
            ),
        )
        assert m["board"]["clock_id"] == "b-sim-1" and m["board"]["key"] == "b-1"
        # A dashboard with no clocks, given only the broker, shows every board of both.
        dash.wait(
            wd,
            lambda m: (
                m["type"] == "board"
                and m["board"].get("server") == "b"
                and m["board"]["moves"] == [1, 0]
            ),
        )
        hall = dash.get("/api/boards?all=1")
        assert sorted(v["clock_id"] for v in hall) == ["a-sim-1", "b-sim-1"]
        # Another server's board is read-only here: it is not this server's to act on.
        assert dash.status_of("/api/boards/1/pause", {}, password="test-arbiter-pw") == 404
    finally:
        for s in (a, b, dash):
            s.stop()
