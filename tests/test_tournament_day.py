# SPDX-License-Identifier: GPL-3.0-or-later
"""A tournament day (#13): three clocks, four games each, as an arbiter runs them.

Three simulated clocks (the real firmware, virtual time), each with the
arbiter's console (``qizhong.cli.arbiter``: the same new-game and resume code
as ``qizhong arbiter``), play four games in a row: Xiangqi and Go, each at two
time controls. On the way: a false natural-move-limit claim (XQ-R20), a
penalty, a clock knocked over (EQ-5), flags (XQ-R15), a console killed mid-game
and restarted, with presses made while it was down. A second program
(tests/watch_records.py, its own process) reads every record all day, as a
results board would. At the end every record reads back (PGN with the
project's reader, SGF with sgfmill) with the moves typed, each move's time as
the clock's own press event gave it, and the result; nothing lost or doubled.
"""

import argparse
import json
import os
import subprocess
import sys

from sgfmill import sgf

from qizhong.cli import arbiter as cli_arbiter
from qizhong.clocks.driver import Clock
from qizhong.records import go_sgf, xiangqi_pgn
from qizhong.sim import Sim

HERE = os.path.dirname(os.path.abspath(__file__))

XQ = ["炮二平五", "马8进7", "马二进三", "车9平8", "车一平二", "马2进3", "兵七进一", "卒7进1"]
GO = ["E5", "C3", "G7", "C7", "G3", "E3", "E7", "C5"]
DAY = [  # game, time control, moves
    ("xiangqi", "xq-rapid", XQ),
    ("go", "10m byoyomi 3x30s", GO),
    ("xiangqi", "3m+2s", XQ[:6]),
    ("go", "5m canadian 5/1m", GO[:6]),
]


def args_for(*argv):
    p = argparse.ArgumentParser(prog="qizhong")
    cli_arbiter.add_commands(p.add_subparsers(dest="command"))
    return p.parse_args(["arbiter", *argv])


class Table:
    """One clock on the table, and the arbiter's console on it."""

    def __init__(self, n, folder):
        self.n = n
        self.folder = folder
        self.sim = Sim(board_id="table-%d" % n, open_link=False)
        self.clock = None
        self.con = None
        self.t = 0
        self.games = []  # (record path, kind, moves typed, start seq)

    def open(self, *argv):
        self.clock = Clock(self.sim.serial_path, timeout=5.0)
        self.con, lines = cli_arbiter.open_console(
            args_for("--port", self.sim.serial_path, *argv), self.clock
        )
        return lines

    def new_game(self, g, kind, spec):
        out = os.path.join(self.folder, "table%d-game%d.%s" % (self.n, g, kind[:2]))
        out += ".pgn" if kind == "xiangqi" else ".sgf"
        lines = self.open("--game", kind, "--spec", spec, "--out", out, "--size", "9")
        assert lines == [], lines
        self.games.append((out, kind, [], self.con.session.start_seq))
        self.left_side = self.con.session.left_side  # EQ-1: Red's lever, or White's
        self.t = self.sim.now + 1000
        self.handle("start", "the clock started")

    def handle(self, line, expect=""):
        got = self.con.handle(line)
        assert any(expect in g for g in got), (line, got)
        return got

    def move(self, text, think=2000):
        """``text`` typed as it is made, then its player's press."""
        s = self.con.session
        side = len(s.played) % 2
        self.handle(text, text)
        self.games[-1][2].append(text)
        self.press(side, think)
        self.until(lambda: s.played[-1].press is not None, "the press of " + text)

    def press(self, side, think=2000):
        self.t += think
        self.sim.press(0 if side == self.left_side else 1, self.t)

    def until(self, done, what):
        for _ in range(200):
            self.con.poll(0.05)
            if done():
                return
        raise AssertionError("%s did not come on table %d" % (what, self.n))

    def end_game(self):
        assert self.con.session.over
        self.con.close()
        self.clock.close()
        self.con = self.clock = None

    def kill(self):
        """The console's process dies: nothing closed, nothing said."""
        self.clock.close()
        self.con = self.clock = None


def play_game(table, g, kind, spec, moves):
    table.new_game(g, kind, spec)
    n = table.n
    half = len(moves) // 2
    for m in moves[:half]:
        table.move(m)
    if kind == "xiangqi" and g == 0 and n == 0:  # XQ-R20: a false claim, 2 min off
        black = table.clock.status().left[1]
        table.handle("claim black", "the engine proposes")  # #14: the arbiter rules
        table.handle("confirm", "foul 1 for Black")
        assert table.clock.status().left[1] == black - 120000
    if kind == "xiangqi" and g == 0 and n == 1:  # the console dies; moves go on
        table.handle(moves[half], moves[half])
        table.games[-1][2].append(moves[half])
        table.kill()
        table.press(half % 2)  # the move typed before the console died
        table.press(1 - half % 2)  # and the next one, typed by nobody yet
        lines = table.open()
        assert lines[0].startswith("   resumed from ") and "%d moves" % (half + 1) in lines[0]
        s = table.con.session
        table.until(lambda: s.played[-1].press is not None, "the press made meanwhile")
        table.handle(moves[half + 1], moves[half + 1])
        table.games[-1][2].append(moves[half + 1])
        assert s.played[-1].press is not None and s.fouls == [0, 0]  # no XQ-R19
        half += 2
    if kind == "go" and g == 1 and n == 2:  # the arbiter's penalty
        white = table.clock.status().left[1]
        table.handle("penalty white -30s slow play warned twice", "taken off White")
        assert table.clock.status().left[1] == white - 30000
    if (g, n) in ((2, 0), (3, 2)):  # EQ-5: knocked over; Red/Black knocked it
        table.t += 1500
        table.sim.tilt(table.t)
        table.until(lambda: table.con.session.knocked, "the knock")
        before = table.clock.status().left
        first = "red" if kind == "xiangqi" else "black"
        table.handle("knock " + first, "knocked the clock over")
        assert table.clock.status().left == (before[0], before[1] + 60000)
    for m in moves[half:]:
        table.move(m)
    if kind == "xiangqi" and g == 0:
        table.handle("resign black", "Red wins")
    elif kind == "go" and g == 1:
        table.handle("pass", "pass")
        table.games[-1][2].append("pass")
        table.press(len(moves) % 2)
        table.until(lambda: len(table.con.session.presses) == len(moves) + 1, "the press")
        # GO-5: the second pass typed before its press; that press is its time,
        # and the clock stops there.
        table.handle("pass", "the clock stops at")
        table.games[-1][2].append("pass")
        table.press((len(moves) + 1) % 2)
        table.until(lambda: table.clock.status().state == "paused", "the pause at the press")
        table.handle("count", "wins")
    elif kind == "xiangqi":  # 3m+2s: Red thinks too long (XQ-R15)
        table.sim.run_to(table.t + 240000)
        table.until(lambda: table.con.session.over, "the flag")
        assert "Black wins" in table.con.session.result_text()
    else:
        table.handle("resign white", "Black wins")
    table.end_game()


def test_a_tournament_day_on_three_clocks(tmp_path):
    folder = str(tmp_path / "records")
    os.makedirs(folder)
    watcher = subprocess.Popen(
        [sys.executable, os.path.join(HERE, "watch_records.py"), folder],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    tables = [Table(n, folder) for n in range(3)]
    try:
        for g, (kind, spec, moves) in enumerate(DAY):
            for table in tables:
                play_game(table, g, kind, spec, moves)
        checked = [check_records(table) for table in tables]
    finally:
        for table in tables:
            table.sim.close()
        report, _ = watcher.communicate("", timeout=30)
    assert sum(checked) == 12
    seen = json.loads(report)
    assert seen["errors"] == [] and seen["backwards"] == [], seen
    assert seen["reads"] > 12
    final = {os.path.basename(out): len(mv) for t in tables for out, _, mv, _ in t.games}
    assert seen["most"] == final  # it saw each record, up to its last move
    names = sorted(os.listdir(folder))  # nothing doubled, nothing half-written left
    assert names == sorted(list(final) + [n + ".journal" for n in final])


def check_records(table):
    """Each record against the moves typed and the clock's own press events."""
    clock = Clock(table.sim.serial_path, timeout=5.0)
    try:
        for i, (out, kind, typed, start) in enumerate(table.games):
            following = table.games[i + 1][3] if i + 1 < len(table.games) else None
            evs = [e for e in clock.since(start) if following is None or e.seq <= following]
            presses = [e for e in evs if e.name == "press"]
            with open(out, "rb") as f:
                data = f.read()
            if kind == "xiangqi":
                rec = xiangqi_pgn.read_game(data)
                board = rec.board()
                moves = []
                for m in rec.moves:
                    moves.append(board.notation(m))
                    board.push(m)
                assert moves == typed, (out, moves, typed)
                left = rec.clocks
                want = {0: "1-0", 2: "0-1"}[i]
                assert rec.headers["Result"] == want, (out, rec.headers)
                if i == 2:
                    assert rec.headers["Termination"] == "time forfeit"
            else:
                game = sgf.Sgf_game.from_bytes(data)
                nodes = game.get_main_sequence()[1:]
                assert len(nodes) == len(typed)
                rec = go_sgf.read(data)
                assert [m.gtp().upper() for m in rec.board.move_stack] == [m.upper() for m in typed]
                left = [t.left_ms if t else None for t in rec.times]
                re = game.get_root().get("RE")
                assert re == "B+R" if i == 3 else re[:2] in ("B+", "W+"), (out, re)
            # Each move's time: its press's (the mover's time just after it); a
            # last move whose press never came (two passes pause the clock) has
            # the mover's time when the game was finished.
            finish = [e for e in evs if e.name == "finish"]
            assert len(finish) == 1, (out, finish)
            want_left = [p.left[p.side] for p in presses[: len(typed)]]
            want_left += [finish[0].left[k % 2] for k in range(len(want_left), len(typed))]
            assert left == want_left, (out, left, want_left)
    finally:
        clock.close()
    return len(table.games)
