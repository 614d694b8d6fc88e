# SPDX-License-Identifier: GPL-3.0-or-later
"""``qizhong arbiter --game chess``: the console, headless, against the simulated clock."""

import argparse
import io

import pytest

from qizhong.arbiter.chess import ChessSession
from qizhong.arbiter.console import Console
from qizhong.cli import arbiter as cli_arbiter
from qizhong.cli import clock as cli_clock
from qizhong.clocks.driver import Clock
from qizhong.records import chess_pgn
from qizhong.sim import Sim


@pytest.fixture
def sim():
    with Sim() as s:
        yield s


def test_the_chess_console_plays_rules_and_writes_the_record(sim, tmp_path):
    """A blitz game at the table: moves, a press without a move (CH-1), a wrong
    claim (CH-4), a correction (12.9), the board picture and the PGN."""
    clock = Clock(sim.link)
    out = tmp_path / "game.pgn"
    con = Console(ChessSession(clock, "blitz", White="Morphy", Black="Duke"), str(out))
    assert any("the clock started" in line for line in con.handle("start"))
    assert con.hint("e4") == "= e4" and con.hint("g1f3") == "= Nf3" and con.hint("N") == (
        "Na3  Nc3  Nf3  Nh3")  # fmt: skip
    assert con.handle("e4") == ["1. White e4"]
    sim.press(0, 5000)
    assert con.handle("")[0] == "   White e4: 5.0 used, 2:57 left"
    sim.press(1, 7000)  # Black presses with no move typed: 7.5.3
    lines = con.handle("")
    assert any(line.startswith("!! illegal move 1 for Black") for line in lines)
    assert clock.status().left == (237000, 178000)  # White +1 min; Black back before the press
    assert con.handle("claim white threefold")[0].startswith("?  only the player to move")
    lines = con.handle("claim black threefold")
    assert any("incorrect, play goes on (CH-4 9.5.3)" in line for line in lines)
    assert any("White gets 1 min (A.3)" in line for line in lines)
    st = clock.status()  # 9.5.1: paused for the claim, running again after it
    assert st.left[0] == 297000 and st.state == "running" and st.run == 1
    con.handle("adjust white -30 distracting")
    assert clock.status().left[0] == 267000
    assert con.handle("adjust white x")[0].startswith("?  adjust SIDE SECONDS")
    assert con.handle("e5") == ["2. Black e5"]
    sim.press(1, 9000)
    assert con.handle("")[0] == "   Black e5: 4.0 used, 2:58 left"  # 2 s + 2 s of one think
    assert con.handle("Zz9")[0].startswith("?  'Zz9' is not a move")
    assert con.handle("board")[0] == (
        "   rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")  # fmt: skip
    pic = tmp_path / "board.svg"
    assert con.handle("board %s" % pic) == ["   the position drawn to %s" % pic]
    assert pic.read_text().startswith("<svg")
    assert con.handle("help")[0].startswith("moves: type them")
    lines = con.handle("resign black")
    assert lines[-1] == "   record written to %s" % out
    back = chess_pgn.read(out.read_text())
    assert back.headers["Result"] == "1-0" and back.headers["White"] == "Morphy"
    assert chess_pgn.clocks_ms(back) == [177000, 178000]
    assert "illegal move 1 by Black" in back.variations[0].comment


def arbiter_args(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="qizhong")
    sub = p.add_subparsers(dest="command")
    cli_arbiter.add_commands(sub)
    return p.parse_args(["arbiter", *argv])


@pytest.fixture
def pty():
    with Sim(open_link=False) as sim:
        yield sim


def test_the_command_runs_a_chess_game_in_german_from_a_pipe(pty, tmp_path, monkeypatch, capsys):
    out = tmp_path / "c.pgn"
    monkeypatch.setattr("sys.stdin", io.StringIO("start\ne4\nSf6?\nresign schwarz\nquit\n"))
    args = arbiter_args("--game", "chess", "--port", pty.serial_path, "--out", str(out),
                        "--lang", "de", "--white", "Weiß", "--spec", "armageddon")  # fmt: skip
    assert cli_clock.run(args.func, args) == 0
    text = capsys.readouterr().out
    assert "Chess game, 10m+5s red -40%" in text
    assert "rapid play" in text and "Armageddon: a draw is a win for Black (CH-6)" in text
    assert "== White wins: Black resigns (5.1.2)" in text
    back = chess_pgn.read(out.read_text())
    assert back.headers["Result"] == "1-0" and back.headers["White"] == "Weiß"
    assert [m.uci() for m in back.mainline_moves()] == ["e2e4"]


def test_chess960_from_the_command_line(pty, tmp_path, monkeypatch, capsys):
    """--chess960 N: the PGN has the Chess960 start; a move by the other side
    declines a standing draw offer (9.1.2.1)."""
    out = tmp_path / "960.pgn"
    script = "start\noffer black\nSd3\naccept\nresign white\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(script))
    args = arbiter_args("--game", "chess", "--port", pty.serial_path, "--out", str(out),
                        "--chess960", "0", "--emt", "--lang", "de", "--late-entry")  # fmt: skip
    assert cli_clock.run(args.func, args) == 0
    text = capsys.readouterr().out
    assert "?  no draw offer stands" in text  # White's move declined Black's offer
    assert "== Black wins: White resigns (5.1.2)" in text
    back = chess_pgn.read(out.read_text())
    assert back.headers["FEN"].startswith("bbqnnrkr/") and back.headers["Result"] == "0-1"
    assert [m.uci() for m in back.mainline_moves()] == ["e1d3"]
