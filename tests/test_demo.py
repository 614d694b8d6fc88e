# SPDX-License-Identifier: GPL-3.0-or-later
"""The terminal demo (qizhong.sim.demo), driven with injected integer-ms time.

No sleeps, no threads: every test hands ``Demo`` its keys and instants. The
big digits are read back off the rendered screen, so the tests check what a
player would see. One test runs ``main`` in a real pseudo-terminal.
"""

import io
import os
import re
import select
import subprocess
import sys
import termios
import time

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from qizhong.core import clock, tcspec
from qizhong.sim import demo
from qizhong.sim.demo import FONT, Demo, big, fmt_clock, keys_from_bytes, width

W = Demo.FACE_W


def make(spec: str) -> Demo:
    return Demo(tcspec.parse(spec))


def decode(rows: list[str]) -> str:
    """Read right-aligned block digits back into text."""
    n = max(len(r) for r in rows)
    rows = [r.ljust(n) for r in rows]
    end = max(len(r.rstrip()) for r in rows)
    text = ""
    while end > 0 and any(r[:end].strip() for r in rows):
        for ch, glyph in FONT.items():
            start = end - len(glyph[0])
            if start >= 0 and all(r[start:end] == g for r, g in zip(rows, glyph, strict=True)):
                text = ch + text
                end = start - 1
                break
        else:
            raise AssertionError("unreadable digits:\n" + "\n".join(rows))
    return text


def faces(screen: str) -> tuple[list[str], list[str]]:
    """The inside rows of the left and right face frames."""
    left, right = [], []
    for line in screen.split("\n"):
        if line[:1] in ("│", "┃"):  # frame, inside, frame, gap, frame, inside, frame
            parts = re.split("[│┃]", line)
            assert len(parts) == 5 and parts[2] == " ", line
            assert width(parts[1]) == width(parts[3]) == W, line
            left.append(parts[1])
            right.append(parts[3])
    assert len(left) == 11, screen
    return left, right


def shown(screen: str) -> tuple[str, str]:
    """The times on the left and right faces, as read off the screen."""
    left, right = faces(screen)
    return decode(left[2:7]), decode(right[2:7])


def header(face: list[str]) -> str:
    return face[0]


def info(face: list[str]) -> str:
    return "\n".join(face[8:11])


# -- pieces ----------------------------------------------------------------------


def test_rounding_rule_is_floor_tenths_below_20s():
    # The face never shows more time than is left: always rounded down.
    assert fmt_clock(900000) == "15:00"
    assert fmt_clock(899999) == "14:59"
    assert fmt_clock(60000) == "1:00"
    assert fmt_clock(59999) == "0:59"
    assert fmt_clock(20999) == "0:20"
    assert fmt_clock(20000) == "0:20"
    assert fmt_clock(19999) == "19.9"
    assert fmt_clock(10050) == "10.0"
    assert fmt_clock(9999) == "9.9"
    assert fmt_clock(100) == "0.1"
    assert fmt_clock(99) == "0.0"
    assert fmt_clock(0) == "0.0"
    assert fmt_clock(-5) == "0.0"
    assert fmt_clock(3600000) == "1:00:00"
    assert fmt_clock(3599999) == "59:59"
    assert fmt_clock(2 * 3600000 + 5 * 60000 + 7000) == "2:05:07"


@given(st.integers(min_value=0, max_value=100 * 3600000))
@example(19999)
@example(20000)
@example(3599999)
def test_rounding_never_shows_more_than_left(ms):
    text = fmt_clock(ms)
    if "." in text:
        secs, tenth = text.split(".")
        value = int(secs) * 1000 + int(tenth) * 100
        assert ms < 20000
    else:
        value = 0
        for part in text.split(":"):
            value = value * 60 + int(part)
        value *= 1000
        assert ms >= 20000
    assert value <= ms < value + (100 if "." in text else 1000)


def test_big_font_reads_back():
    for text in ("0.0", "19.9", "0:20", "1:00", "14:51", "9:59:59", "10:11:11", "7.1"):
        rows = big(text)
        assert len(rows) == 5
        assert len({len(r) for r in rows}) == 1
        assert decode(["  " + r + "   " for r in rows]) == text


def test_keys_from_bytes_drops_escape_sequences():
    assert keys_from_bytes(b"a\x1b[Aq\x1bOQl \x1b[15~+") == ["a", "q", "l", " ", "+"]
    assert keys_from_bytes("k\u00e9".encode()) == ["k", "é"]
    assert keys_from_bytes(b"\xff1") == ["1"]


# -- play ------------------------------------------------------------------------


def test_idle_screen():
    d = make("xq-rapid")
    screen = d.render(0)
    assert shown(screen) == ("15:00", "15:00")
    assert "15m+10s" in screen.split("\n")[0]
    assert "IDLE" in screen
    left, right = faces(screen)
    assert "Red" in header(left) and "Black" in header(right)
    assert "▶" not in screen
    assert "+10s a move" in info(left)
    assert "q  quit" in screen


def test_start_presses_and_increment():
    d = make("15m+10s")
    assert d.handle_key(" ", 1000)  # Red starts
    screen = d.render(20000)
    assert shown(screen) == ("14:41", "15:00")
    assert "▶ Red" in header(faces(screen)[0])
    assert "┏" in screen.split("\n")[1][:1]  # the running face has the heavy frame

    d.handle_key("a", 20000)  # Red's lever: 881 s left + 10 s
    screen = d.render(20000)
    assert shown(screen) == ("14:51", "15:00")
    left, right = faces(screen)
    assert "▶ Black" in header(right) and "▶" not in header(left)
    assert "moves 1" in header(left) and "moves 0" in header(right)
    assert d.log[-1] == "00:19.000 Red    press   14:51"

    assert shown(d.render(30500)) == ("14:51", "14:49")
    d.handle_key("l", 30500)  # Black: 889.5 s + 10 s
    screen = d.render(30500)
    assert shown(screen) == ("14:51", "14:59")
    assert d.log[-1] == "00:29.500 Black  press   14:59"
    assert "moves 1" in header(faces(screen)[1])
    assert shown(d.render(30600)) == ("14:50", "14:59")  # 890.9 s: floor


def test_wrong_lever_does_not_switch():
    d = make("5m")
    d.handle_key(" ", 0)
    d.handle_key("l", 1000)  # Black's lever while Red is on move
    assert d.clock.run == 0
    assert d.log[-1] == "00:01.000 Black  wrong   not on move"
    assert shown(d.render(2000)) == ("4:58", "5:00")


def test_a_lever_in_idle_starts_the_opponent():
    d = make("5m")
    d.handle_key("l", 500)  # Black presses: Red's clock starts
    assert d.clock.state == clock.RUNNING and d.clock.run == 0
    assert shown(d.render(1500)) == ("4:59", "5:00")
    assert d.log == ["00:00.000 Red    start"]


def test_presses_never_hold_the_lever():
    d = make("5m")
    d.handle_key(" ", 0)
    d.handle_key("a", 1000)
    d.render(60000)
    assert not any("held" in line for line in d.log)
    assert d.clock.next_deadline() >= 0  # only Black's flag is pending
    assert d.clock.down == [-1, -1]


def test_pause_freezes_and_resume_continues():
    d = make("5m+3s")
    d.handle_key(" ", 0)
    d.handle_key(" ", 10000)  # pause
    screen = d.render(10000)
    assert "PAUSED" in screen and "Paused, Red to move" in screen
    assert shown(screen) == ("4:50", "5:00")
    assert shown(d.render(500000)) == ("4:50", "5:00")
    assert "┏" not in d.render(500000)
    d.handle_key("a", 500000)  # a press while paused is ignored
    assert d.clock.run == 0 and "wrong   paused" in d.log[-1]
    d.handle_key(" ", 500000)  # resume
    assert shown(d.render(505000)) == ("4:45", "5:00")
    assert [line.split()[2] for line in d.log] == ["start", "pause", "wrong", "resume"]


def test_arbiter_corrections_only_while_paused():
    d = make("5m")
    d.handle_key(" ", 0)
    d.handle_key("+", 1000)
    assert "pause the clock first" in d.render(1000)
    assert shown(d.render(1000)) == ("4:59", "5:00")
    d.handle_key(" ", 1000)
    d.handle_key("+", 1000)
    assert shown(d.render(1000)) == ("5:59", "5:00")
    assert d.log[-1] == "00:01.000 Red    penalty +60s"
    d.handle_key("-", 1000)
    d.handle_key("-", 1000)
    assert shown(d.render(1000)) == ("3:59", "5:00")
    assert d.message == ""  # a good key clears the last notice
    d.handle_key("=", 1000)  # + without shift
    assert shown(d.render(1000)) == ("4:59", "5:00")


def test_knock_and_assign_gives_the_opponent_a_minute():
    d = make("10m+5s")
    d.handle_key(" ", 0)
    d.handle_key("a", 30000)  # Red: 9:35, Black runs
    d.handle_key("k", 40000)  # knocked over
    screen = d.render(40000)
    assert "KNOCKED" in screen and "+/- = left/right did it" in screen
    assert shown(screen) == ("9:35", "9:50")
    assert shown(d.render(90000)) == ("9:35", "9:50")  # both frozen
    d.handle_key("-", 90000)  # the right player (Black) knocked it: Red +60 s
    screen = d.render(90000)
    assert shown(screen) == ("10:35", "9:50")
    assert "Black knocked the clock: Red +60s" in screen
    assert "knocked it" in info(faces(screen)[1])
    assert d.log[-1] == "01:30.000 Red    penalty +60s"
    d.handle_key("+", 91000)  # only once
    assert "refused: the knock was already assigned" in d.render(91000)
    d.handle_key(" ", 92000)  # resume: Black's clock runs on
    assert d.clock.state == clock.RUNNING
    screen = d.render(102000)
    assert shown(screen) == ("10:35", "9:40")
    assert "knocked it" not in info(faces(screen)[1])


def test_count_control_cues_at_the_right_times():
    d = make("1m count 10s")
    d.handle_key(" ", 0)
    screen = d.render(59000)
    assert "then count 10s a move" in info(faces(screen)[0])
    assert shown(screen) == ("0:01", "1:00") or shown(screen) == ("1.0", "1:00")
    screen = d.render(65000)
    assert shown(screen) == ("5.0", "1:00")
    assert "COUNT 读秒 10s a move" in info(faces(screen)[0])
    assert "01:00.000 Red    overtime count 10s a move" in d.log
    cues = [line for line in d.log if "🔊" in line]
    assert cues == ["01:0%d.000 🔊 Red: %d" % (k, k) for k in range(1, 6)]
    d.handle_key("a", 65500)  # Red moves within the count: a fresh count next time
    screen = d.render(65500)
    assert shown(screen) == ("10.0", "1:00")
    assert "🔊 Red: 6" not in screen
    d.handle_key("l", 70000)
    d.render(82000)  # 10 s and the 0.5 s grace: Red's flag
    cues = [line for line in d.log if "🔊" in line]
    assert cues[-10:] == ["01:%02d.000 🔊 Red: %d" % (70 - 60 + k, k) for k in range(1, 11)]
    assert d.log[-1] == "01:20.500 Red    flag    fell first"


def test_count_grace_shows_zero_until_the_flag():
    d = make("1m count 10s")
    d.handle_key(" ", 0)
    screen = d.render(70400)
    assert shown(screen) == ("0.0", "1:00")
    assert "FLAG" not in screen
    screen = d.render(70500)
    assert "⚑ FLAG, fell first" in info(faces(screen)[0])


def test_byoyomi_shows_periods_left():
    d = make("1m byoyomi 3x30s")
    d.handle_key(" ", 0)
    screen = d.render(30000)
    assert "byo-yomi: 3 of 3 periods left" in info(faces(screen)[0])
    screen = d.render(75000)  # 15 s into the first period
    assert shown(screen) == ("15.0", "1:00")
    assert "BYO-YOMI 读秒 3 of 3 periods left" in info(faces(screen)[0])
    screen = d.render(95000)  # the first period used up 5 s ago
    assert shown(screen) == ("0:25", "1:00")
    assert "BYO-YOMI 读秒 2 of 3 periods left" in info(faces(screen)[0])
    assert "01:30.000 Red    period  2 left" in d.log
    d.handle_key("a", 95000)  # a move within the period: the period starts afresh
    assert shown(d.render(95000)) == ("0:30", "1:00")
    assert "byo-yomi: 3 of 3 periods left" in info(faces(d.render(95000))[1])
    d.handle_key("l", 96000)
    screen = d.render(96000 + 45000)  # Red kept 2 periods; 15 s into the last one
    assert shown(screen) == ("15.0", "0:59")
    assert "BYO-YOMI 读秒 last period (1 of 3)" in info(faces(screen)[0])
    screen = d.render(96000 + 60000)
    assert "⚑ FLAG, fell first" in info(faces(screen)[0])
    assert "BYO-YOMI 读秒 last period (1 of 3)" in info(faces(screen)[0])


def test_canadian_moves_left_in_block():
    d = make("1m canadian 2/30s")
    d.handle_key(" ", 0)
    assert "then canadian 2 moves in 30s" in info(faces(d.render(0))[0])
    screen = d.render(65000)
    assert "CANADIAN 2 moves left in block" in info(faces(screen)[0])
    assert shown(screen) == ("0:25", "1:00")
    d.handle_key("a", 65000)
    d.handle_key("l", 66000)
    screen = d.render(66000)
    assert "CANADIAN 1 moves left in block" in info(faces(screen)[0])
    assert shown(screen) == ("0:25", "0:59")  # the block's time carries on


def test_flag_and_who_fell_first():
    d = make("1m+1s")  # an increment: the flag freezes both clocks
    d.handle_key(" ", 0)
    d.handle_key("a", 1000)
    screen = d.render(200000)
    assert d.clock.state == clock.FLAGGED
    assert "FLAGGED" in screen
    left, right = faces(screen)
    assert "⚑ FLAG, fell first" in info(right) and "FLAG" not in info(left)
    assert "Flag! Black fell first." in screen
    assert shown(screen) == ("1:00", "0.0")
    assert d.log[-1] == "01:01.000 Black  flag    fell first"


def test_sudden_death_plays_on_after_the_first_flag():
    d = make("1m")  # plain sudden death: the flag does not freeze (flag run)
    d.handle_key(" ", 0)
    screen = d.render(61000)
    assert d.clock.state == clock.RUNNING
    assert "Red's flag fell first; play goes on." in screen
    d.handle_key("a", 62000)
    screen = d.render(200000)  # Black's flag falls too
    left, right = faces(screen)
    assert "⚑ FLAG, fell first" in info(left)
    assert "⚑ FLAG" in info(right) and "fell first" not in info(right)
    assert "Flag! Red fell first." in screen
    assert "02:02.000 Black  flag    fell" in d.log


def test_recording_optional_mark():
    d = make("5m+3s")
    d.handle_key(" ", 0)
    assert "REC" not in d.render(120000)  # 3:00 shown: not below 3 min yet
    screen = d.render(120001)
    left, right = faces(screen)
    # TC-9: once either side is under 3 min, neither player need record (#26 item 9)
    assert "✎ REC optional" in info(left) and "✎ REC optional" in info(right)
    assert "00:00:00" not in screen
    assert "02:00.001 Red    record  under 3m: recording optional for both (TC-9)" in d.log


def test_bad_keys_are_ignored():
    d = make("5m")
    d.handle_key(" ", 0)
    d.handle_key("k", 500)
    d.handle_key("-", 600)  # a message and a log to keep
    before = (d.render(1000), list(d.log), d.message)
    for key in ("x", "A", "L", "\x1b", "\n", "\t", "?", "é", "0", "1", "2", "r", "", "ab"):
        assert d.handle_key(key, 1000) is True
    assert (d.render(1000), d.log, d.message) == before
    assert d.handle_key("q", 1000) is False
    assert d.handle_key("Q", 1000) is False


def test_clock_errors_are_shown_not_raised():
    d = make("5m+3s")
    d.handle_key("k", 0)
    assert "refused: the clock is not in play" in d.render(0)
    d.handle_key("+", 0)
    assert "pause the clock first" in d.render(0)
    d.handle_key(" ", 0)
    assert d.message == ""
    d.render(400000)  # Red flags
    d.handle_key(" ", 400000)
    assert "refused: the clock is not paused" in d.render(400000)
    d.handle_key("+", 400000)
    assert "pause the clock first" in d.render(400000)
    d.handle_key("k", 400000)
    assert "refused: the clock is not in play" in d.render(400000)


def test_reset_starts_a_new_game():
    d = make("3m+2s")
    d.handle_key(" ", 0)
    d.handle_key("a", 5000)
    d.handle_key("n", 9000)
    screen = d.render(20000)
    assert d.clock.state == clock.IDLE
    assert shown(screen) == ("3:00", "3:00")
    assert d.log[-1] == "—— new game: 3m+2s ——"
    d.handle_key(" ", 30000)
    d.handle_key("a", 31000)
    assert d.log[-1] == "00:01.000 Red    press   3:01"  # times count from the new start


def test_levers_follow_the_configured_sides():
    d = make("5m")
    d.clock = clock.Clock(d.tc, left_side=1)  # EQ-1: Black sits on the left
    d.handle_key("n", 0)  # a new game keeps the orientation
    screen = d.render(0)
    left, right = faces(screen)
    assert "Black" in header(left) and "Red" in header(right)
    d.handle_key("a", 0)  # the left lever is Black's: Red's clock starts
    assert d.clock.run == 0
    screen = d.render(1000)
    assert shown(screen) == ("5:00", "4:59")
    assert "▶ Red" in header(faces(screen)[1])


def test_custom_names_and_log_length():
    d = Demo(tcspec.parse("3m"), names=("White", "B"))
    d.handle_key(" ", 0)
    for i in range(1, 21):
        d.handle_key("a" if i % 2 else "l", i * 1000)
    assert d.log[-1] == "00:20.000 B      press   2:50"
    screen = d.render(20000)
    log_lines = [line for line in screen.split("\n") if line.startswith(" 00:")]
    assert len(log_lines) == Demo.LOG_SHOWN
    assert log_lines[-1] == " " + d.log[-1]


def test_a_long_gap_loses_no_events():
    d = make("1m byoyomi 5x60s")
    d.handle_key(" ", 0)
    d.render(400000)  # all five periods: far more events than the clock's ring holds
    assert d.clock.lost == 0
    assert sum("🔊" in line for line in d.log) == 4 * 7 + 13
    assert d.log[-1] == "06:00.000 Red    flag    fell first"


@pytest.mark.parametrize(
    "spec",
    ["xq-rapid", "fide", "go-byoyomi", "go-canadian", "armageddon", "us-delay", "hourglass"],
)
def test_every_line_fits_the_screen(spec):
    d = make(spec)
    screens = [d.render(0)]
    d.handle_key(" ", 0)
    for i in range(1, 60):
        d.handle_key("al"[i % 2], i * 97000)
        screens.append(d.render(i * 97000 + 5))
    d.handle_key("k", 10**7)
    d.handle_key("+", 10**7)
    screens.append(d.render(10**7))
    screens.append(d.render(10**9))
    for screen in screens:
        for line in screen.split("\n"):
            assert width(line) <= Demo.SCREEN_W, line
        shown(screen)  # the digits stay readable


# -- main --------------------------------------------------------------------------


def test_main_bad_spec(capsys):
    assert demo.main("nonsense spec") == 2
    err = capsys.readouterr().err
    assert "bad time control: expected the base time" in err
    assert "nonsense spec\n^\n" in err


def test_main_caret_points_at_the_mistake(capsys):
    assert demo.main("15m+10s xyz") == 2
    assert "15m+10s xyz\n        ^\n" in capsys.readouterr().err


def test_main_needs_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("q"))
    assert demo.main("5m+3s") == 1
    assert "needs an interactive terminal" in capsys.readouterr().err


def _read(fd: int, out: bytearray, until: float) -> bool:
    """Read what ``fd`` has within the time left; False once nothing more comes."""
    ready, _, _ = select.select([fd], [], [], max(0.0, min(0.2, until - time.monotonic())))
    if not ready:
        return False
    try:
        data = os.read(fd, 65536)
    except OSError:  # the slave side is gone
        return False
    out.extend(data)
    return bool(data)


def test_main_in_a_pty():
    master, slave = os.openpty()
    before = termios.tcgetattr(slave)
    code = "import qizhong.sim.demo, sys; sys.exit(qizhong.sim.demo.main('5m+3s'))"
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env={**os.environ, "TERM": "xterm"},
    )
    out = bytearray()
    try:
        until = time.monotonic() + 30
        while b"q  quit" not in out:  # the first screen: cbreak is on by now
            assert time.monotonic() < until, bytes(out)
            _read(master, out, until)
        seen = len(out)
        os.write(master, b"q")
        while proc.poll() is None:
            assert time.monotonic() < until, bytes(out)
            _read(master, out, until)
        while _read(master, out, time.monotonic() + 0.5):
            pass
        after = termios.tcgetattr(slave)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        os.close(master)
        os.close(slave)
    assert proc.returncode == 0, bytes(out)
    assert after == before  # the terminal's modes came back
    text = out.decode("utf-8", "replace")
    assert text.startswith("\x1b[?1049h\x1b[?25l")
    assert "5m+3s" in text and "█" in text
    tail = bytes(out[seen:]).decode("utf-8", "replace")  # what came after the q
    assert "\x1b[?25h\x1b[?1049l" in tail  # cursor shown, main screen back
    assert "qizhong demo: 5m+3s  Red 5:00  Black 5:00" in tail
    assert "Traceback" not in text


def test_one_set_of_keys_with_make_sim():
    from qizhong.sim import keys, term

    d = make("5m")
    assert set(d._actions()) == set(keys.KEYS)  # every key of make sim means something here
    assert Demo.HELP == term.HELP == keys.HELP
    d.handle_key("m", 0)
    assert "the setup menu is the firmware's: make sim" in d.render(0)
    d.handle_key(" ", 0)
    d.handle_key("k", 1000)
    d.handle_key("+", 2000)  # knocked over: the left player (Red) did it, Black +60 s
    assert d.log[-1].split()[1:] == ["Black", "penalty", "+60s"]
