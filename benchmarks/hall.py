# SPDX-License-Identifier: GPL-3.0-or-later
"""The hall under load (#15): simulated clocks over 2 servers and one broker.

    .venv/bin/python benchmarks/hall.py [--clocks N] [--presses K]   (default 200 and 3)

Starts a real mosquitto on a loopback port and two ``qizhong serve --sim
N/2 --mqtt`` (every clock is the real firmware on MicroPython in real time:
two processes each, the firmware and its headless board). Every clock gets
K lever presses, all clocks pressed in turn, one press every ``--gap`` ms
over the hall. For each press it measures the time from the press sent to
the simulated lever until

- the owning server's WebSocket client (what a page gets) has the event, and
- a subscriber on the broker (what the other laptop's hall gets) has it;

then prints p50/p99 of both, each server's CPU (user+system s per wall s,
from /proc), and events lost: presses sent minus press events kept in each
server's SQLite file, and minus those the WebSocket and broker delivered.
Real time on a shared 2-core machine: numbers, not pass/fail.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))

import paho.mqtt.client as mqtt  # noqa: E402
from hallserver import Server  # noqa: E402

from qizhong.sim import headless  # noqa: E402


def cpu_s(pid: int) -> float:
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else float("nan")


def broker(folder: str) -> tuple[subprocess.Popen[bytes], str]:
    exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    conf = os.path.join(folder, "mosquitto.conf")
    with open(conf, "w") as f:
        f.write("listener %d 127.0.0.1\nallow_anonymous true\npersistence false\n" % port)
    proc = subprocess.Popen([exe, "-c", conf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.05).close()
            break
        except OSError:
            time.sleep(0.05)
    return proc, "127.0.0.1:%d" % port


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clocks", type=int, default=200, help="simulated clocks in all (2 servers)")
    ap.add_argument("--presses", type=int, default=3, help="presses per clock")
    ap.add_argument("--gap", type=int, default=20, help="ms between presses over the hall")
    args = ap.parse_args()
    n = args.clocks // 2
    with tempfile.TemporaryDirectory() as tmp:
        mq, addr = broker(tmp)
        t0 = time.monotonic()
        servers: list[Server] = []
        try:
            for name in ("a", "b"):
                db = os.path.join(tmp, "%s.sqlite" % name)
                servers.append(Server(db, n, ("--mqtt", addr), name=name))
            sockets = []
            for s in servers:
                ws = s.socket()
                s.boards_up(ws)
                sockets.append(ws)
            print("%d clocks up on 2 servers in %.1f s" % (2 * n, time.monotonic() - t0))
            sent: dict[tuple[str, int], float] = {}  # (clock id, press no.) -> monotonic s
            got_ws: dict[tuple[str, int], float] = {}
            got_mq: dict[tuple[str, int], float] = {}
            count: dict[str, int] = {}
            count_mq: dict[str, int] = {}
            lock = threading.Lock()
            ids = {}
            for s in servers:
                for b in s.get("/api/boards"):
                    ids[(s.name, b["no"])] = b["clock_id"]
                    s.post("/api/boards/%d/start" % b["no"], {"side": 0})

            def on_ws(s: Server, ws) -> None:
                ws.settimeout(5)
                while True:
                    try:
                        m = json.loads(ws.recv())
                    except Exception:
                        return
                    ev = m.get("event")
                    if ev and ev["name"] == "press":
                        cid = ids[(s.name, ev["board"])]
                        with lock:
                            k = count[cid] = count.get(cid, 0) + 1
                            got_ws[(cid, k)] = time.monotonic()

            def on_mq(client, userdata, msg) -> None:
                ev = json.loads(msg.payload)
                if ev["name"] == "press":
                    cid = msg.topic.split("/")[2]
                    with lock:
                        k = count_mq[cid] = count_mq.get(cid, 0) + 1
                        got_mq[(cid, k)] = time.monotonic()

            sub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
            sub.on_message = on_mq
            host, port = addr.split(":")
            sub.connect(host, int(port))
            sub.subscribe("qizhong/hall/+/event", 1)
            sub.loop_start()
            readers = [
                threading.Thread(target=on_ws, args=(s, w), daemon=True)
                for s, w in zip(servers, sockets, strict=True)
            ]
            for r in readers:
                r.start()
            clocks = [(s, s.sim(no), ids[(s.name, no)]) for s in servers for no in range(1, n + 1)]
            cpu0 = [cpu_s(s.proc.pid) for s in servers]
            w0 = time.monotonic()
            for k in range(1, args.presses + 1):
                lever = "left" if k % 2 else "right"
                for _s, sim, cid in clocks:
                    sent[(cid, k)] = time.monotonic()
                    headless.request(headless.address(sim.world, None), "press %s 30" % lever)
                    time.sleep(args.gap / 1000)
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline and (
                len(got_ws) < len(sent) or len(got_mq) < len(sent)
            ):
                time.sleep(0.1)
            wall = time.monotonic() - w0
            cpu = [(cpu_s(s.proc.pid) - c) / wall for s, c in zip(servers, cpu0, strict=True)]
            kept = 0
            for s in servers:
                kept += sum(1 for e in s.events("/api/events") if e["name"] == "press")
            ws_ms = [1000 * (got_ws[k] - sent[k]) for k in sent if k in got_ws]
            mq_ms = [1000 * (got_mq[k] - sent[k]) for k in sent if k in got_mq]
            sub.loop_stop()
            print(
                "%d clocks, %d presses each, one every %d ms over the hall (%.0f presses/s)"
                % (2 * n, args.presses, args.gap, len(sent) / wall)
            )
            print(
                "press -> WebSocket client: p50 %.1f ms, p99 %.1f ms"
                % (pct(ws_ms, 50), pct(ws_ms, 99))
            )
            print(
                "press -> broker subscriber: p50 %.1f ms, p99 %.1f ms"
                % (pct(mq_ms, 50), pct(mq_ms, 99))
            )
            print("server CPU: a %.0f%%, b %.0f%% of one core" % (100 * cpu[0], 100 * cpu[1]))
            print(
                "events lost: %d of %d not kept in SQLite, %d not on the WebSocket, "
                "%d not via the broker"
                % (len(sent) - kept, len(sent), len(sent) - len(ws_ms), len(sent) - len(mq_ms))
            )
        finally:
            for s in servers:
                s.stop()
            mq.terminate()
            mq.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
