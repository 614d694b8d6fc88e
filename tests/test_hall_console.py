# SPDX-License-Identifier: GPL-3.0-or-later
"""``qizhong arbiter`` on a clock the hall server owns (#20 item 1, docs/server.md):
a client of that board's session. It takes over a hall game; it, a second
console and the page see each other's actions; a line sent again with its
idempotency key is applied once."""

import os
import subprocess
import sys
import threading

from hallserver import PASSWORD

from qizhong.cli.remote import RemoteConsole
from qizhong.server.client import ServerLink

HALL_SERVER = {"n": 1, "up": True}


def test_a_console_takes_over_a_hall_game_and_sees_the_page(server, tmp_path):
    server.post("/api/boards/1/start", {"side": "red"})  # a hall game, no console
    port = server.get("/api/boards/1")["port"]
    env = dict(os.environ, QIZHONG_ARBITER_PASSWORD=PASSWORD, QIZHONG_STATE=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-m", "qizhong.cli", "arbiter", "--port", port],
        input="炮二平五\nfoul black talking\nquit\n",
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "board 1" in done.stdout and "foul 1 for Black" in done.stdout
    assert "clock is in a game" not in done.stdout + done.stderr
    view = server.get("/api/boards/1/session")
    assert view["fouls"] == [0, 1] and [m["text"] for m in view["moves"]] == ["炮二平五"]
    assert server.get("/api/boards/1")["state"] == "running"  # the hall game goes on
    # A second console attaches to the same game, sees the page's action, and its retry is once.
    second = RemoteConsole(ServerLink(server.url, 1, port, PASSWORD))
    assert "1 moves, fouls 0-1" in " ".join(second.open(None))
    server.post("/api/boards/1/session", {"line": "offer red"})
    assert any("Red offers a draw" in x for x in second.poll())
    assert second.poll() == []
    second.send("foul red phone", "k-retry-1")
    assert "applied once" in " ".join(second.send("foul red phone", "k-retry-1"))
    assert server.get("/api/boards/1/session")["fouls"] == [1, 1]
    # save PATH writes the server's record here, with the moves
    rec = tmp_path / "copy.pgn"
    second.handle("save %s" % rec)
    assert "炮二平五" in rec.read_text(encoding="utf-8")


def test_a_console_line_sent_while_the_server_restarts_is_applied_once(server):
    port = server.get("/api/boards/1")["port"]
    console = RemoteConsole(ServerLink(server.url, 1, port, PASSWORD))
    console.open(None)
    server.kill()
    back = threading.Thread(target=server.start)  # the server comes back on its port
    back.start()
    try:
        out = console.send("foul red talking", "k-restart-1")  # retried until it is back
    finally:
        back.join()
    assert "foul 1 for Red" in " ".join(out)
    assert "applied once" in " ".join(console.send("foul red talking", "k-restart-1"))
    assert server.get("/api/boards/1/session")["fouls"] == [1, 0]
