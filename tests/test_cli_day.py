# SPDX-License-Identifier: GPL-3.0-or-later
"""The clock commands as an arbiter's day uses them (#13): the EQ-6 lock on
`new` and `levers`, bounds and units, one result a game, each game's own
colours, exit codes that mean one thing, and what `status` shows. Each
against the real firmware on a simulated clock, in virtual time."""

import argparse
import contextlib
import io
import os
import subprocess
import sys

import pytest

from qizhong import cli
from qizhong.cli import arbiter as cli_arbiter
from qizhong.cli import clock as cli_clock
from qizhong.clocks import driver
from qizhong.clocks.driver import Clock
from qizhong.sim import Sim

QIZHONG = os.path.join(os.path.dirname(sys.executable), "qizhong")


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(list(argv))
        except SystemExit as e:  # argparse's own refusals
            code = int(e.code or 0)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def sim():
    with Sim(open_link=False) as s:
        yield s


def on(sim: Sim, *argv: str) -> tuple[int, str, str]:
    return run_cli(*argv, "--port", sim.serial_path)


def status(sim: Sim):
    with Clock(sim.serial_path) as c:
        return c.status()


def events(sim: Sim) -> list[str]:
    with Clock(sim.serial_path) as c:
        return [e.name for e in c.since(0)]


def play(sim: Sim, moves: int, t: int = 1000) -> int:
    """Both sides press ``moves`` times each, 2 s a move; returns the time."""
    for _ in range(moves):
        for lever in (0, 1):
            t += 2000
            sim.press(lever, t)
    sim.run_to(t + 500)
    return t + 500


# -- items 4 and 5: EQ-6 on `new` and `levers` ---------------------------------------------


def test_new_during_a_game_needs_yes_and_after_three_moves_the_override(sim):
    on(sim, "config", "15m+10s")
    on(sim, "start")
    play(sim, 3)  # three moves each: settings lock (EQ-6)
    code, _, err = on(sim, "new")  # no terminal to ask
    assert code == 2 and "--yes" in err
    code, _, err = on(sim, "new", "--yes")
    assert code == 3 and "EQ-6" in err and "override" in err
    st = status(sim)
    assert st.state == "running" and st.moves == (3, 3)  # nothing changed
    code, out, _ = on(sim, "new", "--yes", "--override")
    assert code == 0 and "new game under 15m+10s" in out
    st = status(sim)
    assert st.state == "idle" and st.moves == (0, 0) and st.left == (900000, 900000)
    assert events(sim)[-2:] == ["finish", "config"]  # the game in play ended, no result


def test_new_before_the_lock_is_a_real_new_game(sim):
    on(sim, "config", "10m")
    on(sim, "start")
    play(sim, 1)
    assert on(sim, "new", "--yes")[0] == 0
    st = status(sim)
    assert st.state == "idle" and st.moves == (0, 0) and st.left == (600000, 600000)


def test_levers_mid_game_are_locked_after_three_moves_each(sim):
    on(sim, "config", "15m+10s")
    on(sim, "start")
    t = play(sim, 3)
    code, _, err = on(sim, "levers", "black")
    assert code == 3 and "EQ-6" in err
    assert status(sim).levers == "red"
    sim.press(0, t + 1000)  # Red's lever, on the left: a move, not a wrong press
    sim.run_to(t + 1500)
    assert events(sim)[-1] == "press" and status(sim).run == 1
    assert on(sim, "levers", "black", "--override")[0] == 0
    assert status(sim).levers == "black"


# -- item 6: set and penalty ---------------------------------------------------------------


def test_set_refuses_what_no_clock_can_show(sim):
    on(sim, "config", "15m+10s")
    for argv, why in (
        (("set", "black", "999999999999"), "100h"),
        (("set", "red", "-5000"), "expected the time"),
        (("set", "red", "5m", "--moves", "-3"), "0 or more"),
        (("set", "red", "5m", "--periods", "3"), "no byo-yomi periods"),
    ):
        code, _, err = on(sim, *argv)
        assert code == 2 and why in err, (argv, err)
    assert status(sim).left == (900000, 900000)
    assert "set" not in events(sim)
    code, out, _ = on(sim, "set", "black", "1h30m", "--moves", "12")
    assert code == 0 and "black now 1:30:00 (moves 12" in out


def test_penalty_takes_the_specs_units_and_prints_the_new_time(sim):
    on(sim, "config", "15m+10s")
    on(sim, "start")
    sim.run_to(10000)
    code, out, _ = on(sim, "penalty", "red", "30s")
    assert code == 0 and "red +30s" in out and "red now 15:20" in out  # 10 s used
    code, out, _ = on(sim, "penalty", "black", "-2m")
    assert code == 0 and "black now 13:00" in out
    assert on(sim, "penalty", "black", "-120000")[0] == 0  # a bare number is ms, as before
    assert status(sim).left[1] == 660000


def test_a_penalty_that_flags_asks_first(sim):
    on(sim, "config", "5m")
    on(sim, "start")
    code, _, err = on(sim, "penalty", "red", "-5m")
    assert code == 2 and "flags red" in err and "--yes" in err
    assert status(sim).state == "running"
    assert on(sim, "penalty", "red", "-5m", "--yes")[0] == 0
    assert status(sim).first_flag == 0


# -- item 8: one result a game; dates; a closed pipe -------------------------------------


def test_a_game_has_one_result(sim):
    on(sim, "config", "10m")
    code, _, err = on(sim, "finish", "red")
    assert code == 3 and "not started" in err  # nothing to finish: no question asked
    on(sim, "start")
    assert on(sim, "finish", "red")[0] == 2  # asks first: no terminal here
    assert status(sim).state == "running"
    code, out, _ = on(sim, "finish", "red", "--yes")
    assert code == 0 and "red wins" in out
    code, _, err = on(sim, "finish", "draw", "--yes")
    assert code == 3 and "already has a result: red wins" in err
    st = status(sim)
    assert st.result == 0
    code, out, _ = on(sim, "status")
    assert "result: red wins" in out


def test_arbiter_date_must_be_a_date():
    p = argparse.ArgumentParser(prog="qizhong")
    cli_arbiter.add_commands(p.add_subparsers(dest="command"))
    with pytest.raises(SystemExit) as e, contextlib.redirect_stderr(io.StringIO()):
        p.parse_args(["arbiter", "--date", "notadate"])
    assert e.value.code == 2
    args = p.parse_args(["arbiter", "--date", "2026.05.01"])
    assert args.date.isoformat() == "2026-05-01"


@pytest.mark.parametrize("argv", [["presets"], ["status"], ["events", "--since", "0"]])
def test_a_reader_that_stops_early_gets_no_traceback(sim, argv):
    """`qizhong status | head -3`: the pipe closes; the command ends quietly."""
    r, w = os.pipe()
    os.close(r)  # the reader has gone before a byte is written
    port = ["--port", sim.serial_path] if argv[0] != "presets" else []
    proc = subprocess.run([QIZHONG, *argv, *port], stdout=w, stderr=subprocess.PIPE, text=True)
    os.close(w)
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr
    assert proc.returncode == 0


# -- item 9: each game's colours -----------------------------------------------------------


def test_go_speaks_black_and_white(sim):
    on(sim, "config", "go-byoyomi")
    code, out, _ = on(sim, "set", "black", "10m")
    assert code == 0 and "black now 10:00" in out
    assert status(sim).left == (600000, 3600000)  # Black moves first: side 0 (GO)
    code, _, err = on(sim, "set", "red", "5m")
    assert code == 2 and "no side 'red' in go" in err
    code, out, _ = on(sim, "status")
    assert "black      10:00" in out and "white    1:00:00" in out
    assert "left lever: black" in out and "(go)" in out
    on(sim, "start")
    assert on(sim, "penalty", "white", "-1m")[0] == 0
    assert status(sim).left[1] == 3540000
    code, out, _ = on(sim, "finish", "white", "--yes")
    assert code == 0 and "white wins" in out and status(sim).result == 1


def test_xiangqi_refuses_white_unless_the_game_is_chess(sim):
    on(sim, "config", "15m+10s")
    code, _, err = on(sim, "set", "white", "5m")
    assert code == 2 and "--game chess" in err
    assert on(sim, "set", "white", "5m", "--game", "chess")[0] == 0
    assert status(sim).left == (300000, 900000)  # White moves first in chess
    assert driver.side_index("white", "go") == 1 and driver.side_index("white", "chess") == 0
    with pytest.raises(ValueError, match="name the game"):
        driver.side_index("white")


# -- item 10: exit codes -------------------------------------------------------------------


def test_input_errors_are_2_and_3_is_only_the_clock(sim):
    on(sim, "config", "10m")
    for argv in (
        ("volume", "11"),
        ("events", "--since", "-5"),
        ("status", "--timeout", "-1"),
        ("set", "red", "-5000"),
        ("levers", "green"),
    ):
        code, _, err = on(sim, *argv)
        assert code == 2, (argv, err)
    assert "volume" not in events(sim)
    code, _, err = run_cli("tc", "xq-rapidd")
    assert code == 2 and "unknown preset 'xq-rapidd', did you mean xq-rapid?" in err
    code, _, err = on(sim, "config", "xq-rapidd")
    assert code == 2 and "did you mean xq-rapid" in err
    code, _, err = on(sim, "pause")  # the clock's own refusal: not started
    assert code == 3 and "refused pause" in err


# -- what a user sees ----------------------------------------------------------------------


def test_status_shows_the_control_the_result_and_the_voice(sim):
    on(sim, "config", "xq-count")
    on(sim, "volume", "3")
    on(sim, "mute", "on")
    code, out, _ = on(sim, "status")
    assert code == 0
    assert "time control 20m count 10s (xiangqi)" in out
    assert "voice: cmn, counting up, volume 3, muted" in out  # docs/voice.md
    assert "result" not in out  # none yet


def test_events_and_ports_name_their_columns(sim, monkeypatch):
    code, out, _ = on(sim, "events", "--since", "0")
    assert code == 0
    head = out.splitlines()[0].split()
    assert head == ["seq", "clock", "ms", "event", "side", "arg", "red", "|", "black"]
    from serial.tools import list_ports_common

    port = list_ports_common.ListPortInfo(sim.serial_path)
    port.vid, port.pid, port.description = 0x2E8A, 0x0005, "Board in FS mode"
    monkeypatch.setattr("serial.tools.list_ports.comports", lambda: [port])  # pyserial's
    _code, out, _ = run_cli("ports")
    lines = out.splitlines()
    assert lines[0].split() == ["device", "usb", "id", "description"]
    assert lines[1].startswith(sim.serial_path) and "2E8A:0005" in lines[1]
    assert lines[1].endswith("qizhong (Pico)")


# -- item 7: calibrate ---------------------------------------------------------------------


def trims(sim: Sim) -> list[int]:
    with Clock(sim.serial_path) as c:
        return [e.arg for e in c.since(0) if e.name == "trim"]


def test_calibrate_checks_its_span_before_touching_the_trim():
    with Sim(skew_ppm=50, open_link=False) as sim:
        with Clock(sim.serial_path) as c:
            c.trim(50)  # an earlier calibration
        for seconds in ("0", "-5", "5", "99"):
            code, _, err = on(sim, "calibrate", "--seconds", seconds)
            assert code == 2 and "at least 100" in err, err
        assert trims(sim) == [50]  # never reset by a refused run

        host = [0]

        def slow_link() -> int:  # every reading of the host's clock, 3 ms on
            host[0] += 3
            return sim.now + host[0]

        with Clock(sim.serial_path) as c:
            with pytest.raises(ValueError, match="at least --seconds 200"):
                cli_clock.calibrate(c, 150, now=slow_link, wait=lambda ms: None)
        assert trims(sim) == [50]


def test_calibrate_measures_and_prints_its_uncertainty():
    with Sim(skew_ppm=-37, open_link=False) as sim:
        said: list[str] = []
        with Clock(sim.serial_path) as c:
            trim, unc = cli_clock.calibrate(
                c, 600, now=lambda: sim.now, wait=lambda ms: sim.run_to(sim.now + ms),
                say=said.append,
            )  # fmt: skip
        assert abs(trim + 37) <= unc <= 20
        assert said[-1] == "the clock runs %+d ppm (within ±%d ppm); trim set" % (trim, unc)
        assert trims(sim) == [0, trim]


class _Terminal(io.StringIO):
    """Keyboard input on a terminal (the boundary: what a person types)."""

    def isatty(self) -> bool:
        return True


def test_on_a_terminal_it_asks_and_no_means_not_done(sim, monkeypatch):
    on(sim, "config", "10m")
    on(sim, "start")
    monkeypatch.setattr("sys.stdin", _Terminal("n\n"))
    code, out, err = on(sim, "finish", "black")
    assert code == 1 and "cannot be undone. Go on? [y/N]" in out and "not done" in err
    assert status(sim).state == "running"
    monkeypatch.setattr("sys.stdin", _Terminal("y\n"))
    code, out, _ = on(sim, "finish", "black")
    assert code == 0 and "black wins" in out and status(sim).result == 1
