# SPDX-License-Identifier: GPL-3.0-or-later
"""Many laptops, one hall (#15): two servers and a dashboard on one real
mosquitto (Debian's) on a loopback port."""

import os
import shutil
import socket
import subprocess
import urllib.error

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


def test_commands_from_another_laptop_carry_the_clocks_own_tag(tmp_path, broker):
    from qizhong.clocks import auth
    from qizhong.clocks.link import CommandError
    from qizhong.server.mqtt import RemoteClock
    from qizhong.sim import headless

    a = Server(str(tmp_path / "a.sqlite"), 1, ("--mqtt", broker), name="a")
    remote = None
    try:
        ws = a.socket()
        a.boards_up(ws)
        # The pairing step at the clock (docs/security.md): ok three times, the code shows.
        world = headless.address(a.sim(1).world, None)
        for _ in range(3):
            headless.request(world, "key ok")
        code = auth.read_code(bytes.fromhex(headless.request(world, "frame").split()[1]))
        keys = auth.KeyStore(str(tmp_path / "keys.json"))  # laptop B's keys, not A's
        remote = RemoteClock(broker, "hall", "a-sim-1", keys)
        remote.pair(code)  # through server A and the broker: the code never travels
        remote.request("penalty", "1 -5000")
        m = a.wait(ws, lambda m: (m.get("event") or {}).get("name") == "penalty")
        assert m["event"]["arg"] == -5000
        # A relay that alters a tagged request gets it refused by the clock itself.
        signed = keys.signer("a-sim-1")("%d penalty 1 -5000" % 41234)
        forged = signed.replace("-5000", "-500000")
        with pytest.raises(CommandError) as err:
            remote.send_text(forged)
        assert err.value.code == "auth"
        # Nor can server A act on its own without the key: the clock wants a tag.
        with pytest.raises(urllib.error.HTTPError) as refused:
            a.post("/api/boards/1/start", {"side": 0})  # a start an idle clock would take
        assert refused.value.code == 409 and "auth" in refused.value.read().decode()
        assert [e["arg"] for e in a.get("/api/events") if e["name"] == "penalty"] == [-5000]
    finally:
        if remote is not None:
            remote.close()
        a.stop()
