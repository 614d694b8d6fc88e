# SPDX-License-Identifier: GPL-3.0-or-later
"""``qizhong arbiter``: the console, headless, against the simulated clock."""

import argparse
import io

import pytest

from qizhong.arbiter import XiangqiSession
from qizhong.arbiter.console import Console
from qizhong.arbiter.go import GoSession
from qizhong.cli import arbiter as cli_arbiter
from qizhong.cli import clock as cli_clock
from qizhong.clocks.driver import Clock
from qizhong.records import go_sgf, xiangqi_pgn
from qizhong.sim import Sim


@pytest.fixture
def sim():
    with Sim() as s:
        yield s


def test_the_console_plays_a_game_and_writes_the_record(sim, tmp_path):
    clock = Clock(sim.link)
    out = tmp_path / "game.pgn"
    con = Console(XiangqiSession(clock, "xq-rapid", Red="甲", Black="乙"), str(out))
    assert any("the clock started" in line for line in con.handle("start"))
    assert con.handle("炮二平五") == ["1. Red 炮二平五"]
    sim.press(0, 6000)
    lines = con.handle("")  # the press comes in; an empty line shows the clocks
    assert lines[0] == "   Red 炮二平五: 6.0 used, 15:04 left"
    assert lines[-1].startswith(" Red 15:04 | >Black 15:00")
    assert con.handle("g9e7") == ["2. Black 象7进5"]
    sim.press(1, 9000)
    assert con.handle("moves")[-1] == "   2. Black  象7进5  15:07 left, 3.0 used"
    shown = con.handle("claim black")  # the engine proposes, with its reasons
    assert shown[0].startswith("!  the engine proposes on the natural move limit (claimed by")
    assert "1 and 1 of 30 moves since the last capture" in shown[1]
    assert clock.status().left[1] == 907000
    assert any(ln.startswith("!! foul 1 for Black") for ln in con.handle("confirm"))
    assert clock.status().left[1] == 907000 - 120000
    assert con.handle("unrule")[0].startswith("*  the arbiter undoes the ruling")
    assert clock.status().left[1] == 907000
    con.handle("claim black")
    assert con.handle("overrule")[0].startswith("?  overrule draw, red, black or play")
    assert con.handle("overrule play the claim was withdrawn")[0].startswith("*  the arbiter")
    assert con.handle("confirm")[0] == "?  no proposal stands: claim first"
    con.handle("claim black")
    con.handle("confirm")
    assert con.handle("foul black lever held")[-1] == "   record written to %s" % out
    assert "Red wins: Black has two fouls (XQ-R17)" in con.status()
    rec = xiangqi_pgn.read_game(out.read_bytes())
    assert rec.headers["Result"] == "1-0" and rec.headers["Red"] == "甲"
    assert rec.clocks == [904000, 907000]
    assert con.handle("马二进三")[-1].startswith("?  the game is over")
    assert con.close() == []  # written once


def test_instant_validation_and_suggestions(sim):
    con = Console(XiangqiSession(Clock(sim.link)))
    assert con.hint("炮二平五") == "= 炮二平五"
    assert con.hint("C2.5") == "= 炮二平五"
    assert con.hint("马八") == "马八进七  马八进九"
    assert con.hint("炮二平十") == "no legal move starts with '炮二平十'"
    assert con.hint("claim") == "command: claim"
    assert con.complete("马八") == "马八进"
    assert con.complete("兵三") == "兵三进一"
    assert con.handle("兵七?") == ["   兵七进一"]
    assert con.handle("炮二平十")[0].startswith("?  ")
    assert con.session.board.ply == 0  # a bad line changes nothing
    assert con.handle("claim")[0] == "?  which side? (red or black)"
    assert con.handle("foul green")[0] == "?  no side 'green': red or black"
    assert "nomove SIDE" in "\n".join(con.handle("help"))


def test_keys_for_offers_knocks_and_results(sim, tmp_path):
    clock = Clock(sim.link)
    con = Console(XiangqiSession(clock, knockout=True), str(tmp_path / "k.pgn"))
    con.handle("start")
    con.handle("炮二平五")
    sim.press(0, 2000)
    sim.tilt(3000)
    assert any("EQ-5" in line for line in con.handle(""))
    before = clock.status().left
    con.handle("knock red")
    assert clock.status().left == (before[0], before[1] + 60000)
    con.handle("offer black")
    con.handle("offer black")  # 2-0: a foul (XQ-R18)
    lines = con.handle("accept")
    assert "== Red wins" in lines[-2] and "(XQ-R22)" in lines[-2]
    assert clock.status().result == 0


def test_go_console(sim, tmp_path):
    clock = Clock(sim.link)
    out = tmp_path / "go.sgf"
    con = Console(GoSession(clock, "1m byoyomi 3x10s", size=9), str(out))
    con.handle("start")
    assert con.hint("E5") == "= E5" and con.hint("pa") == "pass"
    con.handle("E5")
    sim.press(1, 12000)  # Black's lever is the right one: White's is on the left (EQ-1)
    con.handle("pass")
    sim.press(0, 13000)
    lines = con.handle("pass")
    assert any("(GO-5)" in line for line in lines)
    assert con.handle("dead E5")[0].startswith("   1 dead stones marked")
    con.handle("dead E5")
    assert con.handle("score")[0] == "   黑胜36又3/4子 (B+73.5), 0 dead stones marked"
    lines = con.handle("count")
    assert lines[-1] == "   record written to %s" % out
    rec = go_sgf.read(out.read_bytes())
    assert rec.result == "B+73.5"
    assert [t.left_ms for t in rec.times] == [48000, 59000, 48000]


def arbiter_args(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="qizhong")
    sub = p.add_subparsers(dest="command")
    cli_arbiter.add_commands(sub)
    return p.parse_args(["arbiter", *argv])


@pytest.fixture
def pty():
    with Sim(open_link=False) as sim:
        yield sim


def test_the_command_runs_from_a_pipe_against_a_port(pty, tmp_path, monkeypatch, capsys):
    out = tmp_path / "r.pgn"
    monkeypatch.setattr("sys.stdin", io.StringIO("start\n炮二平五\nresign black\nquit\n"))
    args = arbiter_args("--port", pty.serial_path, "--out", str(out), "--red", "甲")
    assert cli_clock.run(args.func, args) == 0
    text = capsys.readouterr().out
    assert "Xiangqi game, 15m+10s" in text and "XQ-R27" in text
    assert "== Red wins: Black resigns (XQ-R15)" in text
    rec = xiangqi_pgn.read_game(out.read_bytes())
    assert rec.headers["Result"] == "1-0" and len(rec.moves) == 1


def test_the_command_for_go_and_its_errors(pty, tmp_path, monkeypatch, capsys):
    out = tmp_path / "g.sgf"
    monkeypatch.setattr("sys.stdin", io.StringIO("start\nD4\nresign white\n"))
    args = arbiter_args("--game", "go", "--port", pty.serial_path, "--out", str(out),
                        "--size", "9", "--black", "黑", "--white", "白")  # fmt: skip
    assert cli_clock.run(args.func, args) == 0
    rec = go_sgf.read(out.read_bytes())
    assert rec.result == "B+R" and rec.black == "黑" and rec.board.size == 9
    assert "record written" in capsys.readouterr().out
    args = arbiter_args("--port", pty.serial_path, "--spec", "15m+")
    assert cli_clock.run(args.func, args) == 2
    assert "bad time control" in capsys.readouterr().err
    # #13 item 3: a taken --out is refused at the start, before the clock is touched.
    taken = tmp_path / "taken.pgn"
    taken.write_text("an earlier game")
    before = pty.status()["seq"]
    pty.link.close()  # one program at a time owns the port (#12)
    args = arbiter_args("--port", pty.serial_path, "--out", str(taken))
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert cli_clock.run(args.func, args) == 2
    assert "taken.pgn exists: give another --out" in capsys.readouterr().err
    assert taken.read_text() == "an earlier game" and pty.status()["seq"] == before
    pty.link.close()
    args = arbiter_args("--game", "go", "--port", pty.serial_path, "--out", str(out))
    assert cli_clock.run(args.func, args) == 2  # a finished game's record and journal
    assert "g.sgf exists (a finished game)" in capsys.readouterr().err
    assert go_sgf.read(out.read_bytes()).result == "B+R"


def test_the_byoyomi_readings_show_next_to_the_clocks(sim):
    """TC-6a: the clock speaks; the console shows the last reading."""
    con = Console(GoSession(Clock(sim.link), "0 byoyomi 2x60s", size=9))
    con.handle("start")
    sim.run_to(40500)
    assert con.handle("")[-1].endswith("(Black: 40秒)")
    sim.run_to(60000)
    con.poll()
    assert con.cue == "Black: 还剩 1 分"
    assert "BY1" in con.status()


def test_a_repetition_ruling_at_the_console_from_a_pipe(pty, tmp_path, monkeypatch, capsys):
    # --repetition axf: the engine proposes pyffish's verdict with the moves'
    # reasons; the arbiter overrules it, undoes that, and confirms.
    out = tmp_path / "rep.pgn"
    fen = "3akab2/9/4b4/8p/6p2/5r3/P3P1c1P/c3B1N2/2C1A4/1R1AK1B2 w - - 0 1"
    moves = "车八进二\n炮1进2\n车八退二\n炮1退2\n" * 2
    script = moves + "overrule draw recorded so\nunrule\nconfirm\nquit\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(script))
    args = arbiter_args("--port", pty.serial_path, "--out", str(out), "--fen", fen,
                        "--late-entry", "--repetition", "axf")  # fmt: skip
    assert cli_clock.run(args.func, args) == 0
    text = capsys.readouterr().out
    assert "!  the engine proposes on the repetition: Fairy-Stockfish finds a perpetual " in text
    assert "   8. Black 炮1退2: 捉 (chase) - black cannon a2 can take red horse g2" in text
    assert "== draw: recorded so (the arbiter's ruling)" in text
    assert "*  the arbiter undoes the ruling" in text
    assert "== Black wins: Fairy-Stockfish finds a perpetual chase by Red" in text
    rec = xiangqi_pgn.read_game(out.read_bytes())
    assert rec.headers["Result"] == "0-1" and len(rec.moves) == 8
    assert rec.headers["ArbiterRuling"].startswith("the arbiter confirms")
