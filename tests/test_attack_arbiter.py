# SPDX-License-Identifier: GPL-3.0-or-later
"""Attacks on the arbiter's console promises (docs/arbiter.md, "The record on
disk, and a console that stops"): a careless arbiter, a hand-edited journal,
a clock that loses power while the console is away. The real firmware on the
simulated board, in virtual time."""

import argparse
import json
import os

import pytest

from qizhong.arbiter.journal import JournalError
from qizhong.cli import arbiter as cli_arbiter
from qizhong.clocks.driver import Clock
from qizhong.records import xiangqi_pgn
from qizhong.sim import Sim


def arbiter_args(*argv):
    p = argparse.ArgumentParser(prog="qizhong")
    cli_arbiter.add_commands(p.add_subparsers(dest="command"))
    return p.parse_args(["arbiter", *argv])


def pgn_of(path):
    return xiangqi_pgn.read_game(path.read_bytes())


def open_on(sim, *argv):
    clock = Clock(sim.serial_path, timeout=5.0)
    con, lines = cli_arbiter.open_console(arbiter_args("--port", sim.serial_path, *argv), clock)
    return clock, con, lines


def three_moves(sim, con):
    con.handle("start")
    t = 0
    for i, m in enumerate(["炮二平五", "马8进7", "马二进三"]):
        con.handle(m)
        t += 2000
        sim.press(i % 2, t)
        con.poll(0.2)
    return t


def test_a_console_that_was_quit_resumes_and_stays_open(tmp_path):
    """docs/arbiter.md: `quit` leaves a game that goes on, and the next
    `qizhong arbiter` resumes it. The resumed console must not take the
    journaled `quit` as a new one and stop at once."""
    out = tmp_path / "q.pgn"
    with Sim(open_link=False) as sim:
        clock, con, _ = open_on(sim, "--out", str(out))
        three_moves(sim, con)
        con.handle("quit")
        assert con.done
        con.close()
        clock.close()
        clock, con, lines = open_on(sim)
        assert lines[0] == "   resumed from %s.journal: 3 moves" % out
        assert not con.done  # the arbiter has just started it: it waits for lines
        con.close()
        clock.close()


def test_a_journal_edited_in_its_middle_is_refused_and_the_record_kept(tmp_path):
    """A stop tears only the journal's last line. A bad line with whole lines
    after it is damage: resuming must refuse it, not cut the journal there and
    write the record over with the moves before the damage."""
    out = tmp_path / "e.pgn"
    with Sim(open_link=False) as sim:
        clock, con, _ = open_on(sim, "--out", str(out))
        three_moves(sim, con)
        con.close()
        clock.close()
        jpath = str(out) + ".journal"
        lines = open(jpath, "rb").read().split(b"\n")
        bad = next(i for i, ln in enumerate(lines) if b'"in":["handle","\xe9\xa9\xac8' in ln)
        lines[bad] = lines[bad][:-3]  # a line damaged by hand (or by a disk)
        with open(jpath, "wb") as f:
            f.write(b"\n".join(lines))
        before = open(jpath, "rb").read()
        with pytest.raises(JournalError):
            open_on(sim)
        assert open(jpath, "rb").read() == before  # not cut short
        assert len(pgn_of(out).moves) == 3  # not written over with one move


@pytest.mark.parametrize("line", [b"5", b'"c"', b"[1,2]", b'{"c":"status"}', b"null"])
def test_a_journal_line_of_another_shape_is_a_clear_refusal(tmp_path, line):
    """Any whole JSON line that is not the journal's own is refused with
    JournalError (a clear `qizhong: ...` message), never a traceback."""
    out = tmp_path / "s.pgn"
    with Sim(open_link=False) as sim:
        clock, con, _ = open_on(sim, "--out", str(out))
        three_moves(sim, con)
        con.close()
        clock.close()
        jpath = str(out) + ".journal"
        with open(jpath, "ab") as f:
            f.write(line + b"\n" + b'{"in":["poll"]}\n')
        with pytest.raises(JournalError):
            open_on(sim)
        assert len(pgn_of(out).moves) == 3


@pytest.mark.parametrize(
    "edit",
    ["header", "status answer", "typed line"],
)
def test_a_journal_edited_by_hand_is_refused_with_a_message(tmp_path, edit):
    """The header without its clock, a clock answer of the wrong shape, a typed
    line of the wrong shape: each a JournalError, not a KeyError or TypeError."""
    out = tmp_path / "h.pgn"
    with Sim(open_link=False) as sim:
        clock, con, _ = open_on(sim, "--out", str(out))
        three_moves(sim, con)
        con.close()
        clock.close()
        jpath = str(out) + ".journal"
        lines = open(jpath, "rb").read().split(b"\n")
        if edit == "header":
            lines[0] = b'{"journal":1,"args":{}}'
        elif edit == "status answer":
            i = next(i for i, ln in enumerate(lines) if ln.startswith(b'{"c":"status","r"'))
            lines[i] = b'{"c":"status","r":{"seq":1}}'
        else:
            i = next(i for i, ln in enumerate(lines) if ln.startswith(b'{"in":["handle"'))
            lines[i] = b'{"in":["handle",5]}'
        with open(jpath, "wb") as f:
            f.write(b"\n".join(lines))
        with pytest.raises(JournalError):
            open_on(sim)
        assert len(pgn_of(out).moves) == 3


@pytest.mark.parametrize("console", ["up", "down"])
def test_a_clock_power_cut_mid_move_is_reported_and_the_move_keeps_its_time(tmp_path, console):
    """docs/journal.md: a clock that lost power comes back paused, with the
    running side's time as of its last record. docs/arbiter.md: "The time used
    is the running time of the move". Black thinks 15 s, the clock's power
    goes (with the console watching, or while it is down), the arbiter resumes
    the clock and Black presses 4 s later: the move used the time before the
    cut too, and the console said the clock restarted."""
    out = tmp_path / "cut.pgn"
    with Sim(open_link=False, flash=str(tmp_path / "f.img")) as sim:
        clock, con, _ = open_on(sim, "--out", str(out))
        t = three_moves(sim, con)  # Black to move, 15:08 left
        before = clock.status().left[1]
        if console == "down":
            con.close()
            clock.close()
        sim.run_to(t + 15000)
        sim.power_cut()
        if console == "down":
            clock, con, said = open_on(sim)
        else:
            said = []
        said += con.poll(0.5)
        assert any("restarted" in s and "paused" in s for s in said), said
        st = clock.status()
        assert st.state == "paused"
        kept = before - st.left[1]  # Black's time up to the clock's last record
        assert kept >= 5000
        con.handle("马2进3")
        con.handle("resume")
        sim.press(1, clock.status().t + 4000)
        con.poll(0.5)
        p = con.session.played[-1]
        assert p.press is not None and p.used_ms == kept + 4000
        assert p.clock_ms == st.left[1] - 4000 + 10000
        con.close()
        clock.close()


@pytest.mark.parametrize("secs", ["nan", "inf", "-inf", "1e400"])
def test_adjust_by_a_number_that_is_no_time_is_refused_and_the_game_resumes(tmp_path, secs):
    """docs/arbiter.md: "Bad input gets a clear error and loses nothing". A typo
    in `adjust` used to kill the console (OverflowError, ValueError), and its
    journal then ended with that line, so every resume died on it again."""
    out = tmp_path / "adj.pgn"
    with Sim(open_link=False) as sim:
        clock, con, _ = open_on(sim, "--game", "chess", "--out", str(out))
        con.handle("start")
        con.handle("e4")
        sim.press(0, 2000)
        con.poll(0.2)
        left = clock.status().left
        said = con.handle("adjust white %s" % secs)
        assert said[-1].startswith("?  "), said
        assert clock.status().left == left
        con.close()
        clock.close()
        clock, con, lines = open_on(sim)
        assert lines[0] == "   resumed from %s.journal: 1 moves" % out
        con.close()
        clock.close()


def test_a_chess_game_resumed_waits_for_the_moves_made_while_no_console_watched(tmp_path):
    """docs/arbiter.md: "Presses made while no console watched wait for their
    moves". In chess they were ruled presses without a move (CH-1, 7.5.3): the
    opponent's 2 minutes, and at the second one a lost game."""
    out = tmp_path / "late.pgn"
    with Sim(open_link=False) as sim:
        clock, con, _ = open_on(sim, "--game", "chess", "--out", str(out))
        con.handle("start")
        con.handle("e4")
        sim.press(0, 2000)  # White's lever is the left one
        con.poll(0.2)
        con.close()
        clock.close()  # the console is gone; the players play on
        sim.press(1, 5000)  # e5
        sim.press(0, 9000)  # Nf3
        sim.run_to(9500)
        left = None
        clock, con, said = open_on(sim)
        said += con.poll(0.5)
        left = clock.status().left
        s = con.session
        assert s.result is None, said
        assert not any("7.5" in line or "CH-1" in line for line in said), said
        assert con.handle("e5")[0] == "2. Black e5"
        assert con.handle("Nf3")[0] == "3. White Nf3"
        assert [p.used_ms for p in s.played] == [2000, 3000, 4000]
        assert clock.status().left == left  # no penalty sent
        con.close()
        clock.close()


def test_a_state_folder_that_cannot_be_used_is_a_warning_not_a_traceback(tmp_path, monkeypatch):
    """The console notes each clock's game in $QIZHONG_STATE. A folder that
    cannot be made (here: under a file) used to end `qizhong arbiter` with a
    NotADirectoryError traceback, after the record and journal were claimed;
    the game goes on, and the console says how to resume it."""
    import io

    from test_cli_day import run_cli

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("QIZHONG_STATE", str(blocker / "state"))
    out = tmp_path / "st.pgn"
    with Sim(open_link=False) as sim:
        code, said, err = run_cli("arbiter", "--port", sim.serial_path, "--out", str(out))
        assert code == 0, err
        assert "Traceback" not in err and "--resume %s.journal" % out in err
        assert pgn_of(out).headers["Result"] == "*"
        code, said, err = run_cli("arbiter", "--port", sim.serial_path, "--out", str(out))
        assert code == 0 and "resumed from %s.journal" % out in said, (said, err)


def test_a_full_disk_stops_the_console_with_a_message_and_the_game_resumes(tmp_path):
    """The journal's disk fills (its file's descriptor is put on /dev/full, which
    answers every write with ENOSPC). The console stops with a JournalError
    (`qizhong: cannot write ...`), not an OSError traceback; the journal on disk
    is whole up to the last action, and a new console resumes the game."""
    out = tmp_path / "full.pgn"
    with Sim(open_link=False) as sim:
        clock, con, _ = open_on(sim, "--out", str(out))
        three_moves(sim, con)
        full = os.open("/dev/full", os.O_WRONLY)
        os.dup2(full, con.journal._f.fileno())
        os.close(full)
        with pytest.raises(JournalError, match="No space left"):
            con.handle("车9平8")
        con.close()
        clock.close()
        clock, con, lines = open_on(sim)
        assert lines[0] == "   resumed from %s.journal: 3 moves" % out
        assert con.handle("车9平8")[0] == "4. Black 车9平8"
        con.close()
        clock.close()


def test_five_games_on_one_clock_with_resumes_and_a_power_cut_between(tmp_path):
    """An arbiter's table: five games one after another on one clock (Xiangqi,
    Go, chess, Xiangqi, Go), each console stopped mid-game and resumed by a
    bare `qizhong arbiter`; before the fourth resume the clock loses power.
    Each record reads back with its own moves and result, and each new game
    starts clean (never a resume of the game before)."""
    from qizhong.records import go_sgf

    games = [
        ("xiangqi", ["炮二平五", "马8进7", "马二进三"], [0, 1, 0], "resign black", "1-0"),
        ("go", ["E5", "C3", "G7"], [1, 0, 1], "resign white", "B+R"),
        ("chess", ["e4", "e5", "Nf3"], [0, 1, 0], "resign black", "1-0"),
        ("xiangqi", ["炮二平五", "炮8平5", "马二进三"], [0, 1, 0], "resign red", "0-1"),
        ("go", ["D4", "F6", "pass"], [1, 0, 1], "resign black", "W+R"),
    ]
    with Sim(open_link=False, flash=str(tmp_path / "f.img")) as sim:
        t = 0
        for n, (game, moves, levers, end, result) in enumerate(games, 1):
            out = tmp_path / ("g%d.%s" % (n, "sgf" if game == "go" else "pgn"))
            argv = ["--game", game, "--out", str(out)]
            if game == "go":
                argv += ["--size", "9"]
            clock, con, lines = open_on(sim, *argv)
            assert lines == [] and con.session.played == [], (n, lines)
            con.handle("start")
            for i, (m, lever) in enumerate(zip(moves, levers, strict=True)):
                if i == 2:  # the console stops before the third move is typed
                    con.close()
                    clock.close()
                    t = max(t, sim.now) + 3000
                    sim.press(lever, t)  # the move is made while no console watches
                    if n == 4:
                        sim.run_to(t + 12000)
                        sim.power_cut()  # and the clock loses power meanwhile
                    clock, con, lines = open_on(sim)
                    assert lines[0] == "   resumed from %s.journal: 2 moves" % out, lines
                    lines += con.poll(0.3)
                    if n == 4:
                        assert any("restarted" in ln for ln in lines), lines
                        con.handle("resume")
                    con.handle(m)
                    continue
                con.handle(m)
                t = max(t, sim.now) + 2000
                sim.press(lever, t)
                con.poll(0.3)
            assert len(con.session.played) == 3
            assert all(p.press is not None for p in con.session.played), n
            assert con.session.fouls == [0, 0], n  # a press the restart lost is no XQ-R19
            said = con.handle(end)
            assert said[-1] == "   record written to %s" % out, said
            con.close()
            clock.close()
            if game == "go":
                rec = go_sgf.read(out.read_bytes())
                assert rec.result == result and len(rec.board.move_stack) == 3, n
            else:
                rec = pgn_of(out) if game == "xiangqi" else None
                text = out.read_text()
                assert '[Result "%s"]' % result in text, n
                if rec is not None:
                    assert len(rec.moves) == 3


def test_a_console_killed_between_any_two_actions_resumes_without_touching_the_clock(tmp_path):
    """SIGKILL can land after any journal line. A journal that ends between two
    actions (after a claim, a penalty, a press, a save, an undo...) must resume
    to a session whose moves are the game's so far, sending the clock nothing
    that changes it."""
    out = tmp_path / "k.pgn"
    script = [
        ("start", None), ("炮二平五", 0), ("马8进7", 1), ("claim black", None),
        ("confirm", None), ("penalty red -30s slow", None), ("save", None), ("马二进三", 0),
        ("foul red phone", None), ("offer red", None), ("车9平8", None), ("undo", None),
        ("车9平8", 1), ("moves", None),
    ]  # fmt: skip
    with Sim(open_link=False) as sim:
        clock, con, _ = open_on(sim, "--out", str(out))
        t = 0
        for line, lever in script:
            con.handle(line)
            if lever is not None:
                t += 2000
                sim.press(lever, t)
                con.poll(0.2)
        final = [p.text for p in con.session.played]
        assert final == ["炮二平五", "马8进7", "马二进三", "车9平8"] and con.session.fouls == [1, 1]
        con.close()
        clock.close()
        lines = open(str(out) + ".journal", "rb").read().split(b"\n")[:-1]
        header = json.loads(lines[0])
        ends = [k for k in range(3, len(lines) + 1) if k == len(lines) or b'"in"' in lines[k][:6]]
        assert len(ends) > len(script)
        for k in ends:  # the journal's first k lines: whole actions only
            header["record"] = str(tmp_path / ("k%d.pgn" % k))
            jpath = tmp_path / ("k%d.pgn.journal" % k)
            jpath.write_bytes(b"\n".join([json.dumps(header).encode(), *lines[1:k]]) + b"\n")
            clock = Clock(sim.serial_path, timeout=5.0)
            before = clock.status()
            con, _ = cli_arbiter.open_console(
                arbiter_args("--port", sim.serial_path, "--resume", str(jpath)), clock
            )
            played = [p.text for p in con.session.played]
            assert played == final[: len(played)], (k, played)
            assert con.session.fouls <= [1, 1]
            con.close()
            after = clock.status()
            assert (after.left, after.state, after.seq) == (before.left, before.state, before.seq)
            clock.close()
