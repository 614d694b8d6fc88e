# SPDX-License-Identifier: GPL-3.0-or-later
"""An arbiter's day on one clock (#13): second games, records kept on disk, a
console that stops and comes back. The real firmware on the simulated board,
in virtual time."""

import argparse
import os
import select
import subprocess
import sys
import time

import pytest

from qizhong.arbiter import ArbiterError, XiangqiSession
from qizhong.arbiter.console import Console
from qizhong.arbiter.go import GoSession
from qizhong.cli import arbiter as cli_arbiter
from qizhong.clocks.driver import DRAW, Clock
from qizhong.records import go_sgf, xiangqi_pgn
from qizhong.sim import Sim

RED, BLACK = 0, 1


@pytest.fixture
def sim():
    with Sim() as s:
        yield s


def long_first_game(sim, presses=80):
    """A first game of ``presses`` presses (more than the clock replays per
    ``since``: SINCE_MAX = 64), ended with a draw, as another program left it."""
    clock = Clock(sim.link)
    clock.configure("xq-rapid")
    clock.start(RED)
    t = 1000
    for i in range(presses):
        t += 1500
        sim.press(i % 2, t)  # Red's lever is the left one (EQ-1)
    sim.run_to(t + 500)
    clock.finish(DRAW)
    seq = clock.status().seq
    assert seq > 64 + 10
    sim.link.close()  # that program has gone; the next console opens the port afresh
    return seq, t + 1000


@pytest.mark.parametrize("kind", ["xiangqi", "go"])
def test_a_second_game_on_a_clock_starts_clean_whatever_came_before(sim, kind):
    """#13 item 1: a new session starts at the clock's current event, not with
    the replay of the last game (XQ-R19 fouls, a result, set and finish sent)."""
    seq, t = long_first_game(sim)
    clock = Clock(sim.serial_path, timeout=5.0)
    if kind == "go":
        game = GoSession(clock, "go-byoyomi", size=9)
    else:
        game = XiangqiSession(clock, "xq-rapid")
    notes = game.poll(0.2) + game.poll(0.2)
    assert [n for n in notes if n.kind in ("foul", "end", "rule", "warn")] == []
    assert game.result is None and game.fouls == [0, 0] and game.presses == []
    st = clock.status()
    assert st.state == "idle" and st.result == -1
    # Only the new game's own settings went to the clock: no set, no finish.
    evs = clock.since(seq)
    assert {e.name for e in evs} <= {"config", "levers", "new"}, [e.name for e in evs]
    # And the new game plays from its first press.
    game.start()
    t0 = clock.status().t
    game.move("E5" if kind == "go" else "炮二平五")
    sim.press(1 if kind == "go" else 0, t + 3000)  # Go: Black's lever is the right one
    game.poll(0.5)
    assert game.played[0].press is not None and game.played[0].used_ms == t + 3000 - t0


# -- records are never lost (#13 item 3) ----------------------------------------------------


def pgn_of(path):
    return xiangqi_pgn.read_game(path.read_bytes())


def test_the_pgn_is_on_disk_after_every_move_and_the_result_goes_in_after_saves(sim, tmp_path):
    clock = Clock(sim.link)
    out = tmp_path / "round1.pgn"
    con = Console(XiangqiSession(clock, "xq-rapid", Red="甲", Black="乙"), str(out))
    assert pgn_of(out).headers["Result"] == "*" and pgn_of(out).moves == []  # claimed at once
    con.handle("start")
    t = 0
    for i, m in enumerate(["炮二平五", "马8进7", "马二进三", "车9平8"]):
        con.handle(m)
        t += 2000
        sim.press(i % 2, t)
        con.poll()
        rec = pgn_of(out)  # as a second program would read it: whole, and up to date
        assert len(rec.moves) == i + 1 and rec.clocks[-1] == con.session.played[-1].clock_ms
        assert rec.clocks[-1] is not None
    assert con.handle("save") == ["   record written to %s" % out]
    assert con.handle("save") == ["   record written to %s" % out]  # a second save is fine
    copy = tmp_path / "copy.pgn"
    assert con.handle("save %s" % copy)[-1] == "   record written to %s" % copy
    assert con.handle("save %s" % copy)[-1] == "   record written to %s" % copy
    other = tmp_path / "other.pgn"
    other.write_text("someone's game")
    assert con.handle("save %s" % other)[-1].startswith("?  %s exists" % other)
    assert other.read_text() == "someone's game"
    lines = con.handle("resign black")
    assert lines[-1] == "   record written to %s" % out
    rec = pgn_of(out)
    assert rec.headers["Result"] == "1-0" and len(rec.moves) == 4  # after the saves too
    assert rec.clocks == [p.clock_ms for p in con.session.played]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.pgn", "other.pgn", "round1.pgn"]


def test_the_sgf_is_on_disk_after_every_move_and_a_taken_path_is_refused(sim, tmp_path):
    from sgfmill import sgf

    clock = Clock(sim.link)
    out = tmp_path / "go.sgf"
    out.write_text("(;GM[1]C[an earlier game])")
    with pytest.raises(ArbiterError, match="exists"):
        Console(GoSession(clock, "1m byoyomi 3x10s", size=9), str(out))
    assert out.read_text() == "(;GM[1]C[an earlier game])"
    out = tmp_path / "go2.sgf"
    game = GoSession(clock, "1m byoyomi 3x10s", size=9)
    con = Console(game, str(out))
    con.handle("start")
    t = 0
    for i, m in enumerate(["E5", "C3", "G7", "pass", "pass"]):
        con.handle(m)
        if i < 4:
            t += 3000
            sim.press(1 - i % 2, t)  # Black's lever is the right one (EQ-1)
            con.poll()
        moves = sgf.Sgf_game.from_bytes(out.read_bytes()).get_main_sequence()[1:]
        assert len(moves) == i + 1
    con.handle("save")
    con.handle("save")
    con.handle("count")
    root = sgf.Sgf_game.from_bytes(out.read_bytes()).get_root()
    assert root.get("RE") == game.score().sgf()
    rec = go_sgf.read(out.read_bytes())
    assert [t.left_ms for t in rec.times[:4]] == [57000, 57000, 54000, 54000]


# -- a console that stops loses nothing (#13 item 11) ------------------------------------------


def arbiter_args(*argv):
    p = argparse.ArgumentParser(prog="qizhong")
    cli_arbiter.add_commands(p.add_subparsers(dest="command"))
    return p.parse_args(["arbiter", *argv])


def test_a_console_dropped_mid_game_is_resumed_with_the_presses_made_meanwhile(tmp_path):
    """The console's process dies (nothing closed, nothing flushed by it); the
    presses go on; a new console on the same clock picks the game up from its
    journal: moves, fouls, the claim's 2 min (not taken twice), the record."""
    out = tmp_path / "r3.pgn"
    with Sim(open_link=False) as sim:
        clock = Clock(sim.serial_path, timeout=5.0)
        con, lines = cli_arbiter.open_console(
            arbiter_args("--port", sim.serial_path, "--out", str(out), "--red", "甲"), clock
        )
        assert lines == []
        con.handle("start")
        t = 0
        for i, m in enumerate(["炮二平五", "马8进7", "马二进三"]):
            con.handle(m)
            t += 2000
            sim.press(i % 2, t)
            con.poll(0.2)
        assert con.handle("claim black")[0].startswith("!  the engine proposes")  # #14
        assert con.handle("confirm")[0].startswith("!! foul 1 for Black")  # XQ-R20
        con.handle("车9平8")  # typed; Black's press comes while the console is down
        black = clock.status().left[1]
        clock.close()  # the process is gone: its journal is all that is left
        del con
        t += 4000
        sim.press(1, t)  # 车9平8's press
        t += 3000
        sim.press(0, t)  # Red's next move, made while nobody typed it
        sim.run_to(t + 1000)

        clock = Clock(sim.serial_path, timeout=5.0)
        con, lines = cli_arbiter.open_console(arbiter_args("--port", sim.serial_path), clock)
        assert lines[0] == "   resumed from %s.journal: 4 moves, fouls 0-1" % out
        s = con.session
        assert [p.text for p in s.played] == ["炮二平五", "马8进7", "马二进三", "车9平8"]
        assert s.fouls == [0, 1] and s.false_claims[1]
        got = con.poll(0.5)
        assert any("Black 车9平8: 4.0 used" in g for g in got), got
        assert any("Red pressed: enter the move" in g for g in got), got  # not XQ-R19
        assert s.fouls == [0, 1] and s.result is None
        assert s.played[3].press.left[1] == black - 4000 + 10000  # the 2 min taken once
        assert con.handle("车一平二")[0] == "5. Red 车一平二"  # pairs with the press made
        assert s.played[-1].used_ms == 3000
        rec = pgn_of(out)
        assert len(rec.moves) == 5 and rec.clocks == [p.clock_ms for p in s.played]
        con.handle("resign black")
        assert pgn_of(out).headers["Result"] == "1-0"
        con.close()
        clock.close()
        # The game is over: the next console on this clock starts a new one.
        clock = Clock(sim.serial_path, timeout=5.0)
        out2 = tmp_path / "r4.pgn"
        con, lines = cli_arbiter.open_console(
            arbiter_args("--port", sim.serial_path, "--out", str(out2)), clock
        )
        assert lines == [] and con.session.played == [] and con.out == str(out2)
        con.close()
        clock.close()


class ConsoleProcess:
    """``qizhong arbiter`` as its own process, typed into through a pipe."""

    def __init__(self, *argv):
        exe = os.path.join(os.path.dirname(sys.executable), "qizhong")
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [exe, "arbiter", *argv], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env=env,
        )  # fmt: skip
        self.seen: list[str] = []
        self._buf = b""

    def read_until(self, text, timeout=20.0):
        """Lines until one holds ``text`` (the console answered)."""
        end = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while True:
            while b"\n" in self._buf:
                line, self._buf = self._buf.split(b"\n", 1)
                self.seen.append(line.decode())
                if text in self.seen[-1]:
                    return self.seen[-1]
            left = end - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(0.0, left))
            if not ready:
                raise AssertionError("no %r from the console; it said:\n%s%s" % (
                    text, "\n".join(self.seen), self.proc.stderr.read1().decode()))  # fmt: skip
            chunk = os.read(fd, 65536)
            if not chunk:
                raise AssertionError("the console ended; it said:\n%s\n%s" % (
                    "\n".join(self.seen), self.proc.stderr.read().decode()))  # fmt: skip
            self._buf += chunk

    def type(self, line, expect):
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()
        return self.read_until(expect)

    def kill(self):
        self.proc.kill()  # SIGKILL: no handler, no cleanup
        self.proc.wait()

    def end(self):
        self.proc.stdin.close()
        assert self.proc.wait(20) == 0
        self.read_until("")
        self.proc.stdout.close()
        self.proc.stderr.close()


def test_a_console_killed_with_sigkill_is_resumed_by_a_new_one(tmp_path):
    """kill -9 of the real ``qizhong arbiter`` mid-game: the record stays whole on
    disk, and ``qizhong arbiter`` on the same clock resumes the game."""
    out = tmp_path / "kill.pgn"
    with Sim(open_link=False) as sim:
        con = ConsoleProcess("--port", sim.serial_path, "--out", str(out), "--timeout", "5")
        con.read_until("the record goes to")
        con.type("start", "the clock started")
        t = 0
        for i, m in enumerate(["炮二平五", "马8进7", "马二进三"]):
            con.type(m, "%d. " % (i + 1))
            t += 2000
            sim.press(i % 2, t)
            con.type("", "used,")
        con.type("foul black lever held", "foul 1 for Black")
        con.kill()
        rec = pgn_of(out)
        assert len(rec.moves) == 3 and rec.headers["Result"] == "*"
        t += 5000
        sim.press(1, t)  # Black's move, made while no console runs
        sim.run_to(t + 500)
        con = ConsoleProcess("--port", sim.serial_path, "--out", str(out), "--timeout", "5")
        said = con.read_until("resumed from")
        assert said == "   resumed from %s.journal: 3 moves, fouls 0-1" % out
        con.type("车9平8", "Black 车9平8: 5.0 used")
        con.type("resign red", "== Black wins: Red resigns")
        con.end()
        assert not any("XQ-R19" in line for line in con.seen)
        rec = pgn_of(out)
        assert rec.headers["Result"] == "0-1" and len(rec.moves) == 4
        assert rec.clocks[1::2] == [908000, 913000]  # 15m+10s: 2 s, then 5 s used
        assert "foul 1 for Black" in " ".join(rec.comments)


def test_a_flag_while_the_console_is_down_is_ruled_on_resume(tmp_path):
    """docs/arbiter.md: a flag while no console watched is ruled as it comes in;
    ``--resume JOURNAL`` picks the game up by its journal."""
    out = tmp_path / "flag.sgf"
    with Sim(open_link=False) as sim:
        clock = Clock(sim.serial_path, timeout=5.0)
        argv = ("--game", "go", "--size", "9", "--spec", "1m byoyomi 1x10s", "--out", str(out))
        con, _ = cli_arbiter.open_console(arbiter_args("--port", sim.serial_path, *argv), clock)
        con.handle("start")
        con.handle("E5")
        sim.press(1, 2000)  # Black's lever is the right one (EQ-1)
        con.poll(0.2)
        clock.close()  # the console dies; White never moves
        sim.run_to(200000)
        clock = Clock(sim.serial_path, timeout=5.0)
        resume = arbiter_args("--port", sim.serial_path, "--resume", str(out) + ".journal")
        os.unlink(cli_arbiter._pointer("sim"))  # by the journal alone
        con, lines = cli_arbiter.open_console(resume, clock)
        assert lines == ["   resumed from %s.journal: 1 moves" % out]
        got = con.poll(0.5)
        assert any("Black wins: White's time is up (B+T)" in g for g in got), got
        assert go_sgf.read(out.read_bytes()).result == "B+T"
        con.close()
        clock.close()


def test_a_console_away_longer_than_the_clock_keeps_events_says_how_many_it_missed(tmp_path):
    """The clock keeps its last 256 events: a console away for more says so."""
    out = tmp_path / "long.sgf"
    with Sim(open_link=False) as sim:
        clock = Clock(sim.serial_path, timeout=5.0)
        argv = ("--game", "go", "--size", "19", "--out", str(out))
        con, _ = cli_arbiter.open_console(arbiter_args("--port", sim.serial_path, *argv), clock)
        con.handle("start")
        clock.close()
        for i in range(300):  # 300 moves made while no console watched
            sim.press(1 - i % 2, 1000 * (i + 1))
        clock = Clock(sim.serial_path, timeout=5.0)
        con, lines = cli_arbiter.open_console(arbiter_args("--port", sim.serial_path), clock)
        assert lines[0] == "   resumed from %s.journal: 0 moves" % out
        missed = [ln for ln in lines if "no longer kept" in ln]
        assert len(missed) == 1 and int(missed[0].split()[1]) >= 300 - 256, lines
        con.close()
        clock.close()


def test_ctrl_c_inside_an_action_leaves_it_to_finish_on_resume(tmp_path):
    """Ctrl-C lands while a confirmed ``claim black`` waits for the clock: the journal ends
    with that action, and the resumed console finishes it: one foul, 2 min once."""
    out = tmp_path / "cc.pgn"
    with Sim(open_link=False) as sim:
        clock = Clock(sim.serial_path, timeout=5.0)
        argv = ("--port", sim.serial_path, "--out", str(out))
        con, _ = cli_arbiter.open_console(arbiter_args(*argv), clock)
        con.handle("start")
        con.handle("炮二平五")
        sim.press(0, 2000)
        con.poll(0.2)
        black = clock.status().left[1]

        def interrupted(*args):
            raise KeyboardInterrupt

        clock.penalty = interrupted
        con.handle("claim black")  # #14: a proposal; the arbiter's confirm rules it
        with pytest.raises(KeyboardInterrupt):
            con.handle("confirm")
        said = con.close()  # as the terminal loop does after Ctrl-C
        assert said[-1] == "   the game goes on: `qizhong arbiter` on this clock resumes it"
        clock.close()
        clock = Clock(sim.serial_path, timeout=5.0)
        con, lines = cli_arbiter.open_console(arbiter_args(*argv), clock)
        assert lines == ["   resumed from %s.journal: 1 moves, fouls 0-1" % out]
        assert clock.status().left[1] == black - 120000  # taken once, on resume
        con.handle("马8进7")
        sim.press(1, 5000)
        con.poll(0.2)
        con.close()
        clock.close()
        clock = Clock(sim.serial_path, timeout=5.0)  # and once more: all of it replays
        con, lines = cli_arbiter.open_console(arbiter_args(*argv), clock)
        assert lines == ["   resumed from %s.journal: 2 moves, fouls 0-1" % out]
        assert con.session.played[1].clock_ms == black - 120000 - 3000 + 10000
        con.close()
        clock.close()
