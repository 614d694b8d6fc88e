# SPDX-License-Identifier: GPL-3.0-or-later
"""`qizhong sim`: headless on a pty that pyserial opens, and the terminal picture."""

import contextlib
import os
import subprocess
import sys

import pytest
import serial

from qizhong.clocks.driver import Clock
from qizhong.clocks.link import CommandError
from qizhong.core import proto
from qizhong.sim import Sim, term


def test_headless_prints_a_serial_device_that_pyserial_opens():
    exe = os.path.join(os.path.dirname(sys.executable), "qizhong")
    proc = subprocess.Popen(
        [exe, "sim", "--headless"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        path = proc.stdout.readline().strip()
        assert path.startswith("/dev/pts/")
        with serial.Serial(path, timeout=10) as link:
            link.write(proto.frame("1 config 5m+3s"))
            got = b""
            while not got.endswith(b"\r\n") or b"r 1 ok config" not in got:
                got += link.read(1)
            assert proto.frame("r 1 ok config") in got
        with Clock(path, timeout=10) as clock:  # the driver, as on a USB port
            assert clock.hello.board == "sim"
            assert clock.time_control() == "5m+3s"
            with pytest.raises(CommandError, match="unknown"):
                clock.link.request("nonsense")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_the_terminal_shows_the_firmwares_framebuffers():
    with Sim() as sim:
        sim.command("config 15m+10s")
        sim.key("start", 0)
        sim.press(0, 9000)
        left, _right = sim.frame()
        texts = sim.texts
        screen = term.Term(sim, "15m+10s").render()
    rows = term.to_text(left)
    assert len(rows) == 16 and all(len(r) == 32 for r in rows)
    assert any(ch != " " for r in rows[3:] for ch in r)  # the digits are drawn
    assert (2, 1, "1") in texts[0] and (2, 1, "0") in texts[1]  # the moves, as the face drew them
    assert term.status_text(texts[0], left) == "1 moves"
    assert len(screen) == term.ROWS and all(term.width(line) <= term.COLS for line in screen)
    assert "15m+10s" in screen[0] and "▶ BLACK" in screen[1]
    assert term.to_text(bytes(1024)) == [" " * 32] * 16


def test_quadrants_map_each_corner():
    buf = bytearray(1024)
    buf[0] = 0x0F  # x 0, y 0..3: the top-left 4x4 cell's left half lit
    assert term.to_text(bytes(buf))[0][0] == "▌"


def test_the_firmwares_displays_export_as_png(tmp_path):
    import struct
    import zlib

    with Sim() as sim:
        sim.command("config xq-count")
        sim.key("start", 0)
        sim.run_to(1203500)  # Red in the count: 3.5 s elapsed, the digit 3
        path = tmp_path / "count.png"
        sim.png(str(path), scale=2)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert width > 2 * 128 * 2 and height > 64 * 2
    n = struct.unpack(">I", data[33:37])[0]  # the IDAT chunk follows IHDR
    assert data[37:41] == b"IDAT"
    rows = zlib.decompress(data[41 : 41 + n])
    assert len(rows) == height * (1 + 3 * width)  # filter byte + RGB per row
    assert data.endswith(b"IEND\xaeB`\x82")


def test_make_sim_starts_a_configured_clock():
    # What `make sim` does before it takes the terminal.
    sim, first = term.start("go-byoyomi", virtual=True)
    with sim:
        assert first == "time control 60m byoyomi 3x60s"
        assert sim.status()["left0"] == 3600000
    with pytest.raises(ValueError, match="spec"):
        term.start("15x", virtual=True)


# -- #13 item 2: a headless clock runs for hours and is pressed from elsewhere ------------

QIZHONG = os.path.join(os.path.dirname(sys.executable), "qizhong")


def _until(clock: Clock, name: str, tries: int = 120) -> list:
    """Events until one called ``name`` comes (each wait bounded by the link; 60 s in
    all, for a loaded machine)."""
    seen: list = []
    for _ in range(tries):
        seen += clock.events(timeout=0.5)
        if any(e.name == name for e in seen):
            return seen
    raise AssertionError("no %s event in %s" % (name, [e.name for e in seen]))


def _sim(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([QIZHONG, "sim", *argv], capture_output=True, text=True, timeout=30)


def test_headless_takes_its_spec_and_presses_from_another_terminal(tmp_path):
    import json
    import signal
    import struct

    state = str(tmp_path / "sim.json")
    proc = subprocess.Popen(
        [QIZHONG, "sim", "--headless", "--spec", "go-byoyomi", "--state", state],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        path = proc.stdout.readline().strip()
        world = proc.stdout.readline().split()[1]
        info = json.load(open(state))
        assert info["serial"] == path and info["world"] == world
        assert _sim("port", "--state", state).stdout.strip() == path
        with Clock(path, timeout=10) as clock:
            assert clock.time_control() == "60m byoyomi 3x60s"  # --spec honoured
            assert _sim("key", "start", "--state", state).returncode == 0
            _until(clock, "start")
            assert _sim("press", "left", "--state", state).returncode == 0
            ev = next(e for e in _until(clock, "press") if e.name == "press")
            assert ev.side == 0  # Black's lever (Go: Black moves first)
            assert _sim("press", "right", "--world", world).returncode == 0  # by address
            ev = next(e for e in _until(clock, "press") if e.name == "press")
            assert ev.side == 1
            assert _sim("tilt", "--state", state).returncode == 0
            _until(clock, "knock")
            assert clock.status().state == "knocked"
            png = tmp_path / "now.png"
            r = _sim("png", str(png), "--state", state)
            assert r.returncode == 0, r.stderr
            assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            assert struct.unpack(">I", png.read_bytes()[16:20])[0] > 2 * 128 * 4
        r = _sim("press", "middle", "--state", state)
        assert r.returncode == 2  # not a lever
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
        with pytest.raises(ProcessLookupError):  # its micropython went with it
            os.kill(info["firmware"], 0)
        assert not os.path.exists(state)
        r = _sim("tilt", "--state", state)
        assert r.returncode == 1 and "no headless simulator" in r.stderr
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_headless_stops_on_request(tmp_path):
    state = str(tmp_path / "sim.json")
    proc = subprocess.Popen(
        [QIZHONG, "sim", "--headless", "--state", state], stdout=subprocess.PIPE, text=True
    )
    try:
        proc.stdout.readline()
        world = proc.stdout.readline().split()[1]
        r = _sim("stop", "--world", world)
        assert r.returncode == 0 and "stop" in r.stdout
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_world_nobody_reads_never_stops_the_clock():
    """Real time, no sleeps: 3000 display frames (12 MB) asked for and never
    read would fill the socket; the board drops what finds it full and the
    clock keeps answering. The key after them shows they were all handled."""
    with Sim(virtual=False, display=False) as sim:
        clock = Clock(sim.link, timeout=10)
        clock.configure("10m")
        for _ in range(3000):
            sim.world.sendall(b"frame\n")
        sim.world.sendall(b"key start 0\n")  # the world's lines run in order
        _until(clock, "start")
        assert clock.status().state == "running"
        sim.world.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            while sim.world.recv(1 << 20):  # a reader at last: what the socket held
                pass
        sim.world.settimeout(10)
        sim._buf = b""
        sim.world.sendall(b"frame\n")  # and the world works again
        while not sim._line().startswith("fb 1 "):
            pass
        assert clock.status().state == "running"


def test_a_clock_runs_for_hours_in_virtual_time():
    """Four hours of a byo-yomi game, a move every 30 s, the displays drawn
    and status asked along the way: times stay exact to the ms, the heap
    does not grow, and the clock answers to the end."""
    with Sim() as sim:
        clock = Clock(sim.link)
        clock.configure("3h byoyomi 5x30s")
        sim.key("start", 0)
        t = 0
        heap = []
        for n in range(1, 481):
            t += 30000
            sim.press((n - 1) % 2, t)
            if n % 20 == 0:
                sim.frame()
                assert clock.status().moves == (n // 2, n // 2)
            if n in (40, 480):
                heap.append(int(sim.command("mem collect").split()[2]))
        sim.run_to(t + 1234)
        st = clock.status()
        assert sim.now == t + 1234 == 4 * 3600000 + 1234
        assert st.state == "running" and st.moves == (240, 240) and st.run == 0
        assert st.left == (3 * 3600000 - 240 * 30000 - 1234, 3 * 3600000 - 240 * 30000)
        assert heap[1] - heap[0] < 4096, heap  # nothing piles up over the hours
