# SPDX-License-Identifier: GPL-3.0-or-later
"""`qizhong sim`: headless on a pty that pyserial opens, and the terminal picture."""

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
