# SPDX-License-Identifier: GPL-3.0-or-later
"""#22: the battery board's segment glass shows what the OLED face shows
(docs/segment-face.md): both times, whose move, moves, count, periods, flag,
knock, pause, battery, the setup menu and the pairing code, on a fixed
layout of at most 160 segments (one PCF85176), no tenths on the battery board."""

import sys

import pytest

from qizhong.core import clock as C
from qizhong.core import segface as S
from qizhong.core import tcspec
from qizhong.sim import Sim


def shown(c, side, t, **kw):
    ram = bytearray(S.RAM_BYTES)
    S.SegFace(ram, kw.pop("tenths", False)).draw(c, side, t, **kw)
    return S.decode(ram)


def clock(spec, t=0):
    c = C.Clock(tcspec.parse(spec), 0)
    c.start(t, 0)
    return c


def test_both_times_whose_move_and_moves():
    c = clock("15m+10s")
    c.tick(5000)
    assert shown(c, 0, 5000) == ("0", "", "", "14:55", ["RUN"])
    assert shown(c, 1, 5000) == ("0", "", "", "15:00", [])
    c.press(0, 6000)
    assert shown(c, 0, 6000)[0] == "1" and shown(c, 1, 6000)[4] == ["RUN"]


def test_hours_and_no_tenths_on_the_battery_board():
    assert shown(C.Clock(tcspec.parse("5h"), 0), 0, 0)[3] == "5:00:00"
    c = clock("10s")
    c.tick(500)
    assert shown(c, 0, 500)[3] == "0:09"  # whole seconds, rounded down
    assert shown(c, 0, 500, tenths=True)[3] == "9.5"  # a board with the budget for tenths


def test_pause_knock_flag_result_and_marks():
    c = clock("10s")
    c.pause(1000)
    assert shown(c, 0, 1000)[2] == "PAU"
    c.resume(2000)
    c.knock(3000)
    assert shown(c, 0, 3000)[2] == "KNK"
    c = clock("10s")
    c.tick(10000)
    assert shown(c, 0, 10000)[2] == "FLG"
    c = clock("10s")
    c.finish(1000, 1)
    assert shown(c, 0, 1000)[2] == "LOS" and shown(c, 1, 1000)[2] == "WIN"
    assert shown(clock("10m record 15m"), 0, 0)[4] == ["RUN", "REC"]  # TC-9
    assert shown(clock("10m"), 1, 0, low_battery=True)[4] == ["BAT"]


def test_count_periods_and_canadian_moves():
    c = clock("1m count 10s")
    c.tick(63_500)
    _, ot, _, t, _ = shown(c, 0, 63_500)
    assert (ot, t) == ("CN", "3")  # TC-5: the count's digit
    c = clock("1m byoyomi 3x30s")
    assert shown(c, 0, 0)[1] == "B3"  # TC-6: periods left
    c = clock("1m canadian 15/10m")
    c.tick(61_000)
    assert shown(c, 0, 61_000)[1] == "15"  # TC-7: moves left in the period


def test_the_menu_and_the_pairing_code_through_the_text_interface():
    rams = [bytearray(S.RAM_BYTES) for _ in (0, 1)]
    code = "1a2b3c4d5e6f7a8b"
    for i in (0, 1):
        fb = S.SegText(rams[i], i)
        fb.fill(0)  # exactly what auth.Guard.draw does on a framebuffer
        lines = (
            ("PAIRING CODE", 16, 8),
            (code[0:4] + " " + code[4:8], 24, 24),
            (code[8:12] + " " + code[12:16], 24, 40),
            ("key: cancel", 16, 56),
        )
        for text, x, y in lines:
            fb.text(text, x, y, 1)
    assert [S.decode(r)[3] for r in rams] == ["PA1R1", "PA1R2"]
    assert "".join(S.status_line(r) for r in rams).lower() == code  # all 16, in order
    fb = S.SegText(rams[0])
    fb.fill(0)
    for row, text in enumerate(("  preset", "> base 15m", "  inc 10s")):
        fb.text(text, 0, 8 + 16 * row, 1)
    assert S.status_line(rams[0]) == "BASE"  # the cursor's line
    assert S.decode(rams[0])[3:] == ("15", ["RUN"])


def test_every_character_of_a_pairing_code_has_its_own_shape():
    from qizhong.core import auth

    shapes = [S.FOURTEEN[ch] for ch in auth.ALPHABET]  # Crockford base32: S and 5 both
    assert len(set(shapes)) == len(shapes) and all(shapes)


def test_the_layout_fits_one_driver_and_no_two_segments_share_a_pixel():
    assert len(S.GLASS) == S.SEGS == 40 * 4 and S.USED <= S.SEGS
    owner = {}
    for n, rects in enumerate(S.GLASS[: S.USED]):
        assert rects, n
        for x, y, w, h in rects:
            assert 0 <= x and x + w <= 128 and 0 <= y and y + h <= 64, n
            for px in range(x, x + w):
                for py in range(y, y + h):
                    assert owner.setdefault((px, py), n) == n, (n, owner[(px, py)])


@pytest.mark.skipif(sys.platform != "linux", reason="the simulator runs on the unix port")
def test_the_battery_board_draws_its_glass_in_the_simulator(tmp_path):
    with Sim(board="battery") as sim:
        assert sim.command("config 1m count 10s").startswith("ok")
        sim.command("start")
        sim.at(5000)
        left, right = sim.frame()
        assert len(left) == len(right) == 1024  # the PNG faces draw it as they draw an OLED
        assert left != right
        assert sim.texts[0][0] == (2, 1, "0")
        sim.png(str(tmp_path / "glass.png"))
        sim.at(63_000)
        sim.frame()
        assert (30, 1, "CN") in sim.texts[0]


def test_the_host_pairs_with_the_code_read_off_both_glasses(tmp_path):
    from qizhong.clocks import auth

    store = auth.KeyStore(str(tmp_path / "keys.json"))
    with Sim(board="battery") as sim:
        auth.pair_sim(sim, store)  # the code read off the glasses, half on each
        assert sim.status()["state"] == "idle"
        assert sim.command("start").startswith("ok")  # a tagged change: the key works


def test_the_pcf85176_driver_sends_its_commands_then_the_glass_ram():
    # On MicroPython (the driver's own interpreter); the bus is the board boundary.
    import os
    import subprocess

    from qizhong.sim import micropython_path, repo_root

    script = """
import sys
sys.path.insert(0, "firmware")
from boards.pcf85176 import PCF85176
from qizhong import segface
class Bus:
    def __init__(self): self.sent = []
    def writeto(self, addr, buf): self.sent.append((addr, bytes(buf)))
bus = Bus()
d = PCF85176(bus)
d.init()
segface.SegText(d.ram).fill(0)
segface.SegFace(d.ram).time(754000)
d.show()
d.power(False)
for a, b in bus.sent: print(a, b.hex())
"""
    out = subprocess.run(
        [micropython_path(), "-c", script],
        cwd=repo_root(),
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ, MICROPYPATH=""),
    )
    assert out.returncode == 0, out.stderr
    lines = [line.split() for line in out.stdout.split("\n") if line]
    assert lines[0] == ["56", "c8e0f000" + "00" * 20]  # mode 1:4, 1/3 bias, on; blank RAM
    ram = bytes.fromhex(lines[1][1][8:])
    assert len(ram) == S.RAM_BYTES and S.decode(ram)[3] == "12:34"
    assert lines[2] == ["56", "40"]  # blank: mode set, E = 0, the last command


def test_the_drawing_in_docs_is_the_layout():
    import os

    from qizhong.sim import repo_root

    sys.path.insert(0, os.path.join(repo_root(), "tools"))
    import segment_drawing

    with open(os.path.join(repo_root(), "docs", "img", "segment-face.svg")) as f:
        assert f.read() == segment_drawing.svg()
    with open(os.path.join(repo_root(), "docs", "img", "segment-face.png"), "rb") as f:
        assert f.read() == segment_drawing.png_all_lit()


def test_before_a_game_the_glass_shows_the_voice_and_its_count():
    # #23: the language on the moves field (no move yet), an arrow up (counting
    # up) or down on the state field; in play the moves again.
    from qizhong.core import voice

    idle = C.Clock(tcspec.parse("15m+10s"), 0)
    try:
        voice.use(voice.LANGS.index("ja"), voice.STYLES.index("down"))
        assert shown(idle, 0, 0)[:3] == ("JA", "", "\u2193")
        voice.use(voice.LANGS.index("yue"), voice.STYLES.index("up"))
        assert shown(idle, 1, 0)[:3] == ("YUE", "", "\u2191")
        assert shown(clock("15m+10s"), 0, 0)[:3] == ("0", "", "")
    finally:
        voice.use(0, 0)


@pytest.mark.skipif(sys.platform != "linux", reason="the simulator runs on the unix port")
def test_the_simulated_glass_shows_the_voice_set_from_the_host():
    with Sim(board="battery") as sim:
        assert sim.command("voice en down") == "ok voice en down"
        sim.frame()
        assert (2, 1, "EN") in sim.texts[0] and (72, 1, "\u2193") in sim.texts[1]
        sim.key("start", 1000)
        sim.frame()
        assert (2, 1, "0") in sim.texts[0]
