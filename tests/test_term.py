# SPDX-License-Identifier: GPL-3.0-or-later
"""``make sim`` as a person sees it: the terminal clock under a pty at 80x24.

The real firmware runs in scripted virtual time (QIZHONG_TERM_STEP_MS: each
key moves the clock on first), the screen is read back with a terminal
emulator (pyte), and every check is on what the 80x24 screen shows.
"""

import array
import fcntl
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time
import wave

import pyte
import pytest

from qizhong.sim import audio

QIZHONG = os.path.join(os.path.dirname(sys.executable), "qizhong")
TIMEOUT_S = 20.0  # a bound on waiting for the screen, never a sleep


class Screen:
    """``qizhong sim`` on a pty of 80x24, its screen kept by a VT emulator."""

    def __init__(self, spec: str, step_ms: int, cwd: str, *more: str) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        env = dict(os.environ, QIZHONG_TERM_STEP_MS=str(step_ms), TERM="xterm")
        self.proc = subprocess.Popen(
            [QIZHONG, "sim", "--spec", spec, *more],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
        os.close(slave)
        self.fd = master
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = b""

    def lines(self) -> list[str]:
        return [line.rstrip() for line in self.screen.display]

    def text(self) -> str:
        return "\n".join(self.lines())

    def read(self, until, what: str) -> str:
        """Read the program's output until a whole screen is drawn (a redraw
        ends clearing the rest) and ``until(screen text)`` holds."""
        end = time.monotonic() + TIMEOUT_S
        while not (self.raw.endswith(b"\x1b[J") and until(self.text())):
            left = end - time.monotonic()
            r, _, _ = select.select([self.fd], [], [], max(0.0, left))
            if not r:
                raise AssertionError("no %s on the screen:\n%s" % (what, self.text()))
            try:
                data = os.read(self.fd, 65536)
            except OSError:  # the program ended
                raise AssertionError("ended before %s:\n%s" % (what, self.text()))
            self.raw += data
            self.stream.feed(data)
        return self.text()

    def wait(self, needle: str) -> str:
        return self.read(lambda s: needle in s, repr(needle))

    def key(self, ch: str, needle: str) -> str:
        os.write(self.fd, ch.encode())
        return self.wait(needle)

    def quit(self) -> str:
        os.write(self.fd, b"q")
        out = b""
        while True:
            r, _, _ = select.select([self.fd], [], [], TIMEOUT_S)
            assert r, "qizhong sim did not quit"
            try:
                data = os.read(self.fd, 65536)
            except OSError:
                break
            if not data:
                break
            out += data
        assert self.proc.wait(timeout=TIMEOUT_S) == 0
        os.close(self.fd)
        return out.decode(errors="replace")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def screen_at(tmp_path):
    opened = []

    def make(spec: str, step_ms: int, *more: str) -> Screen:
        s = Screen(spec, step_ms, str(tmp_path), *more)
        opened.append(s)
        return s

    yield make
    for s in opened:
        s.close()


def row_of(lines: list[str], needle: str) -> str:
    return next(line for line in lines if needle in line)


def test_a_game_on_one_80x24_screen(screen_at):
    s = screen_at("xq-rapid", 1000)
    text = s.wait("right lever l")
    lines = s.lines()
    # The first screen: the control, the sides named from the lever mapping, the keys.
    assert "15m+10s" in lines[0] and lines[0].endswith("IDLE")
    assert "RED · left lever a" in lines[1] and "BLACK · right lever l" in lines[1]
    assert lines[2].count("0 moves") == 2  # the firmware's status bars, as text
    assert lines[2].count("voice CMN ↑") == 2  # before a game: the voice and its count (#23)
    for keys in ("a / l", "space", "k  knock over", "+ / -", "m  setup menu", "o  ok", "n  new"):
        assert keys in text, keys
    assert "q  quit" in lines[-1]
    # Big digits: 15:00 drawn from the framebuffer, in quadrant blocks, in both boxes.
    assert sum(1 for line in lines if line.count("█") > 10) >= 6

    s.key(" ", "start · Red to move")  # t = 1 s
    text = s.key("a", "Red moved · 15:09 left")  # t = 2 s: 1 s used, 10 s added
    lines = s.lines()
    assert "▶ BLACK" in lines[1] and "▶ RED" not in lines[1]
    assert "1 moves" in lines[2][:37] and "0 moves" in lines[2][37:]
    text = s.key("k", "KNOCK")  # t = 3 s: tipped over (EQ-5)
    assert "clock knocked over (EQ-5)" in text
    assert "+ / - who did it" in text
    text = s.key("+", "Black penalty +1:00")  # the left player (Red) knocked it: Black +60 s
    text = s.key(" ", "RUNNING")
    # Nothing scrolled: the title is still on the first row, the keys on the last.
    lines = s.lines()
    assert "qizhong" in lines[0] and "q  quit" in lines[-1]
    assert all(len(line) <= 80 for line in lines)
    # The log gives each line once, with clock times, and no raw ms.
    log = lines[-6:-3]
    assert len(set(log)) == len(log)
    assert not any(word.isdigit() and len(word) > 4 for line in log for word in line.split())
    s.quit()


def test_the_setup_menu_and_a_new_game(screen_at):
    s = screen_at("xq-rapid", 1000)
    s.wait("IDLE")
    text = s.key("m", "> game xiangqi")  # the firmware's setup menu (docs/menu.md), as text
    assert "SETUP xiangqi" in text and "15m+10s" in text
    assert "o next step (last: apply), m cancel" in text
    s.key("o", "> preset")
    s.key("+", "xq-rapid-20")
    s.key("o", "> stages 1")
    s.key("o", "> moves -")
    s.key("o", "> base 20m")
    s.key("o", "> how fischer")
    s.key("o", "> inc 10s")
    s.key(" ", "set up on the clock")  # start applies: the clock takes 20m+10s
    text = s.read(lambda t: "20m+10s" in t.split("\n")[0], "the new control in the title")
    assert "SETUP" not in text and "0 moves" in text
    s.key(" ", "start · Red to move")
    s.key("m", "RUNNING")  # no menu in a game
    assert "SETUP" not in s.text()
    s.quit()


def test_byoyomi_cues_once_the_flag_and_the_speakers_wav(screen_at, tmp_path):
    # 20 s main, one 10 s period; each key moves the clock on by 15 s.
    s = screen_at("20s byoyomi 1x10s", 15000)
    s.wait("IDLE")
    s.key(" ", "start · Red to move")  # t = 15 s
    s.key(" ", "PAUSE")  # t = 30 s: Red has 5 s left
    s.key(" ", "resumed")  # t = 45 s: 5 s main, then the period from 50 s
    text = s.key(" ", "FLAG")  # t = 60 s: the period is used up
    lines = s.lines()
    assert "⚑ FLAG 1st" in lines[2][:37]  # the flag icon, read from the framebuffer
    assert "Red's flag fell first" in text
    log = lines[-6:-3]
    assert len(set(log)) == len(log)  # each cue once, not once per channel
    assert "BY" in s.lines()[2]
    out = s.quit()
    assert "10 voice cues, 1 buzzer sounds" in out
    path = tmp_path / "out" / "sim-voice.wav"
    with wave.open(str(path)) as w:
        samples = array.array("h", w.readframes(w.getnframes()))
        rate = w.getframerate()
    # The buzzer (TC-8: 2 s from the flag at 60 s) sounds where no voice does.
    tone = samples[rate * 605 // 10 : rate * 619 // 10]
    assert min(max(abs(v) for v in tone[i : i + 80]) for i in range(0, len(tone), 80)) > (
        audio.BUZZER_AMP // 2
    )
    assert len(samples) > rate * 63
    assert max(abs(v) for v in samples[rate * 621 // 10 :]) == 0  # and stops at 62 s


def test_the_wav_speaks_the_voice_the_sim_was_given(screen_at, tmp_path):
    # make sim SPEC=... VOICE=ja COUNT=down: 5 s main, one 10 s period,
    # counted down in Japanese: "9" at 21 s ... "1" at 29 s, the time-up word at 30 s.
    s = screen_at("5s byoyomi 1x10s", 15000, "--voice", "ja", "--count", "down")
    s.wait("IDLE")
    s.key(" ", "start · Red to move")  # t = 15 s
    s.key(" ", "FLAG")  # t = 30 s
    assert "10 voice cues, 1 buzzer sounds" in s.quit()
    with wave.open(str(tmp_path / "out" / "sim-voice.wav")) as w:
        samples = array.array("h", w.readframes(w.getnframes()))
    for t, cue in ((21000, 9), (26000, 4), (29000, 1)):  # the buzzer sounds from 30 s
        ja = audio.load_cue(cue, "ja")
        at = t * audio.RATE // 1000
        assert samples[at : at + len(ja)] == ja, (t, cue)
        assert audio.load_cue(cue, "cmn") != ja


def test_the_pairing_code_as_text(screen_at):
    s = screen_at("xq-rapid", 500)  # ok three times within 2 s (docs/security.md)
    s.wait("IDLE")
    s.key("o", "IDLE")
    s.key("o", "IDLE")
    text = s.key("o", "PAIRING CODE")
    code = [line.split("│")[1].strip() for line in s.lines()[3:10] if "│" in line]
    assert "key: cancel" in text and "any key cancels" in text
    groups = [line for line in code if re.fullmatch(r"[A-Z0-9]{4} [A-Z0-9]{4}", line)]
    assert len(groups) == 2  # the 16-character code in four groups, on both displays
    s.key("a", "0 moves")  # a press ends the pairing step
    s.quit()


def test_the_wav_is_written_after_a_silent_run(screen_at, tmp_path):
    s = screen_at("xq-rapid", 1000)
    s.wait("IDLE")
    out = s.quit()
    assert "0 voice cues, 0 buzzer sounds" in out
    assert (tmp_path / "out" / "sim-voice.wav").exists()


def test_the_sides_follow_the_clocks_lever_setting():
    from qizhong.sim import Sim
    from qizhong.sim.term import Term

    with Sim() as sim:  # virtual time, driven in-process
        sim.command("config 5m")
        term = Term(sim, "5m", 1000)
        assert "RED · left lever a" in term.render()[1]
        assert sim.command("levers black").startswith("ok")  # EQ-1: Black sits on the left
        term.refresh()  # as the terminal does when an event comes
        lines = term.render()
        assert "BLACK · left lever a" in lines[1] and "RED · right lever l" in lines[1]
        assert "the left lever is Black's" in "\n".join(lines)
        term.key(" ")  # the start key starts Red's clock: the right-hand box runs
        lines = term.render()
        assert "▶ RED · right lever l" in lines[1] and "┏" in lines[1][37:]


def test_sigterm_stops_the_firmware_and_writes_the_wav(screen_at, tmp_path):
    s = screen_at("xq-rapid", 1000)
    s.wait("IDLE")
    children = subprocess.run(
        ["pgrep", "-P", str(s.proc.pid)], capture_output=True, text=True
    ).stdout.split()
    assert children  # the firmware's interpreter
    s.proc.terminate()
    assert s.proc.wait(timeout=TIMEOUT_S) == 128 + 15
    for pid in children:  # gone with it, not left running
        assert (
            not os.path.exists("/proc/%s" % pid) or "zombie" in open("/proc/%s/status" % pid).read()
        )
    assert (tmp_path / "out" / "sim-voice.wav").exists()


def test_the_battery_boards_glasses_on_the_screen(screen_at, monkeypatch):
    # `make sim BOARD=battery` (#22): the glasses' status rows as words, their
    # big digits from the picture of the glass, as the OLED's are shown.
    monkeypatch.setenv("QIZHONG_SIM_BOARD", "battery")
    s = screen_at("xq-rapid", 1000)
    s.wait("right lever l")
    lines = s.lines()
    assert lines[2].count("voice CMN ↑") == 2  # before a game: the voice (#23), no moves yet
    drawn = [line for line in lines if sum(c in "█▌▐▙▛▄▀" for c in line) > 10]
    assert len(drawn) >= 6  # 15:00 on both glasses, from their pictures
    s.key(" ", "start · Red to move")
    s.key(" ", "PAU")  # paused: the glass's state characters
    s.quit()
