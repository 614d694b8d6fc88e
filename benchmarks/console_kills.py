# SPDX-License-Identifier: GPL-3.0-or-later
"""The arbiter's console killed at random instants, and resumed each time (#26).

    .venv/bin/python benchmarks/console_kills.py [SEEDS] [KILLS]

For each game (Xiangqi, chess, Go) a script of every action an arbiter
takes (moves, presses without a move, fouls, claims, offers, the engine's
proposals, confirm, overrule, unrule, penalties, knocks, Go's dead stones and
count) runs on the real firmware in virtual time. The console dies KILLS
times, each at a random byte of its journal's writes: what was written
before stays, the write that crosses it is torn there, and nothing after it
runs (as a SIGKILL leaves the journal; the clock has taken every command
sent before). Each time a bare ``qizhong arbiter`` console resumes the game,
and must be the session as it stood before the action it died in, or after
it (that action runs again on resume); the script then goes on. At the end
the journal resumes once more to the same session, and the record on disk
is that session's. ``make bench`` prints the kills and resumes; the test
(tests/test_console_resume.py) runs a few seeds.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "host"))

from qizhong.arbiter.console import Console  # noqa: E402
from qizhong.cli import arbiter as cli_arbiter  # noqa: E402
from qizhong.clocks.driver import Clock  # noqa: E402
from qizhong.sim import Sim  # noqa: E402

# A step: a typed line, ("press", lever) with no move, (line, lever) a move
# and its press, ("tilt", 0) the clock knocked over.
XIANGQI: list[Any] = [
    "start",
    ("炮二平五", 0),
    ("press", 1),  # Black presses without moving: XQ-R19, the clock goes back
    ("马8进7", 1),
    "penalty red -30s slow",
    "foul red talking",
    "offer red",
    "decline",
    ("马二进三", 0),
    "claim black limit",  # a false claim: XQ-R20 takes 2 min
    "unrule",
    ("马7退8", 1),
    ("马三退二", 0),
    ("马8进7", 1),
    ("马二进三", 0),
    ("马7退8", 1),
    ("马三退二", 0),
    ("马8进7", 1),  # the third time: the engine proposes (XQ-R24)
    "confirm",
    "unrule",
    "overrule play",
    ("tilt", 0),
    "knock black",
    ("车一进一", 0),
    "draw",
    "unrule",
    "resume",
    "win red",
    "unrule",
    "resume",
    "车9平8",
    "undo",  # a typo taken back before the press
    ("车9平8", 1),
    "moves",
    "save",
    "offer black",
    "accept",  # a draw agreed ends it (XQ-R18)
]
CHESS: list[Any] = [
    "start",
    ("e4", 0),
    ("e5", 1),
    ("press", 0),  # White presses without moving: CH-1, 2 min to Black
    ("Nf3", 0),
    "claim black threefold",  # wrong: 2 min to White, and a draw offer (9.1.2.3)
    "decline",
    ("Nc6", 1),
    "offer white",
    "decline",
    "adjust black 30 slow clock",
    "penalty white -10s",
    ("Bb5", 0),
    ("Qh4", 1),
    "illegal black",  # the position before it again, and 1 min to White
    ("a6", 1),
    ("tilt", 0),
    "knock white",
    ("Ba4", 0),
    "foul black phone",
    "moves",
    "resign black",
]
GO: list[Any] = [
    "start",
    ("E5", 1),
    ("C3", 0),
    ("press", 1),
    "penalty white -30s",
    ("G7", 1),
    ("tilt", 0),
    "knock black",
    ("C7", 0),
    ("pass", 1),
    ("pass", 0),
    "dead C7",
    "score",
    "dead C7",
    "count",
]
# Each script, its options, and the winner it ends with (None: a draw).
GAMES: dict[str, tuple[list[Any], list[str], int | None]] = {
    "xiangqi": (XIANGQI, [], None),
    "chess": (CHESS, [], 0),
    "go": (GO, ["--size", "9"], 1),
}


def expected(game: str) -> tuple[tuple[str, ...], int | None]:
    """The moves the script plays (each with its press) and its winner."""
    script, _, winner = GAMES[game]
    moves: list[str] = []
    for step in script:
        if isinstance(step, str):
            if step.startswith("illegal"):  # taken back (CH-1)
                moves.pop()
        elif step[0] not in ("press", "tilt"):
            moves.append(step[0])
    return tuple(moves), winner


# The clock's answers to these change nothing on it. A kill after the clock
# took any other command and before its answer is journaled sends that command
# again on resume (docs/arbiter.md, Limits): the kills land elsewhere.
QUERIES = ("status", "events", "since")


class Killed(BaseException):
    """The console is gone (SIGKILL): nothing after it runs."""


class KillAt:
    """The journal's file, as a SIGKILL ``budget`` bytes from now leaves it:
    the write that crosses it is torn there, and the console dies."""

    def __init__(self, f: Any, budget: int) -> None:
        self.f = f
        self.budget = budget

    def write(self, data: bytes) -> int:
        if len(data) >= self.budget and data.startswith(b'{"c":"'):
            name = data[6:].split(b'"', 1)[0].decode()
            if name not in QUERIES:  # the clock took it: the kill lands after its answer
                self.budget = len(data) + 1
        if len(data) >= self.budget:
            self.f.write(data[: self.budget])
            self.f.flush()
            self.f.close()
            raise Killed
        self.budget -= len(data)
        return int(self.f.write(data))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.f, name)


def args_of(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="qizhong")
    cli_arbiter.add_commands(p.add_subparsers(dest="command"))
    return p.parse_args(["arbiter", *argv])


def state(con: Console) -> tuple[Any, ...]:
    """What a resume must give back exactly."""
    s = con.session
    played = tuple(
        (p.text, p.side, None if p.press is None else (p.press.seq, p.press.used)) for p in s.played
    )
    return (played, tuple(s.fouls), s.result, s.knocked, len(s._open))


def steps(script: list[Any]) -> list[tuple[str, Any]]:
    """The script as single steps: ("type", line), ("press", lever), ("tilt", None)."""
    out: list[tuple[str, Any]] = []
    for step in script:
        if isinstance(step, str):
            out.append(("type", step))
        elif step[0] == "tilt":
            out.append(("tilt", None))
        else:
            if step[0] != "press":
                out.append(("type", step[0]))
            out.append(("press", step[1]))
    return out


def went_on(before: tuple[Any, ...], got: tuple[Any, ...]) -> bool:
    """``got`` is ``before`` or one action on from it: the moves it had are
    kept (a press may have been paired since), one more at most (or one
    less: an undo), each foul count up by one at most."""
    pb, pg = before[0], got[0]
    if abs(len(pg) - len(pb)) > 1:
        return False
    for b, g in zip(pb, pg, strict=False):
        if b[:2] != g[:2] or (b[2] is not None and b[2] != g[2]):
            return False
    return all(0 <= g - b <= 1 for g, b in zip(got[1], before[1], strict=True))


class Run:
    """One game's script on one simulated clock."""

    def __init__(self, game: str, folder: str, sim: Sim) -> None:
        self.game = game
        script, extra, _ = GAMES[game]
        self.steps = steps(script)
        self.sim = sim
        self.out = os.path.join(folder, "%s.%s" % (game, "sgf" if game == "go" else "pgn"))
        self.argv = ["--port", sim.serial_path, "--game", game, *extra]
        self.t = 0
        self.kills = 0
        self.said: list[str] = []

    def open(self, *argv: str) -> tuple[Clock, Console, list[str]]:
        clock = Clock(self.sim.serial_path, timeout=5.0)
        con, lines = cli_arbiter.open_console(args_of(*self.argv, *argv), clock)
        return clock, con, lines

    def step(self, con: Console, kind: str, arg: Any) -> None:
        if kind == "type":
            self.said += con.handle(arg)
            return
        self.t = max(self.t, self.sim.now) + (1000 if kind == "tilt" else 2000)
        if kind == "tilt":
            self.sim.tilt(self.t)
        else:
            self.sim.press(arg, self.t)
        self.said += con.poll(0.3)

    def handled(self) -> int:
        """The typed lines the journal keeps."""
        from qizhong.arbiter import journal as jr

        _, actions, _ = jr.read(jr.journal_path(self.out))
        return sum(1 for typed, _ in actions if typed[0] == "handle")

    def play(self, rng: random.Random | None, kills: int, mean: int) -> Console:
        """The whole script; with ``rng``, the console killed ``kills`` times,
        about every ``mean`` journal bytes. Returns the last console (open)."""
        clock, con, _ = self.open("--out", self.out)
        self.clock = clock
        i = 0
        typed = 0
        before = state(con)
        while i < len(self.steps):
            kind, arg = self.steps[i]
            if rng is not None and self.kills < kills and not isinstance(con.journal._f, KillAt):
                con.journal._f = KillAt(con.journal._f, rng.randrange(0, 2 * mean))
            try:
                self.step(con, kind, arg)
            except Killed:
                self.kills += 1
                self.said.append("## killed in step %d %r" % (i, self.steps[i]))
                clock.close()  # the console's process is gone with its port
                clock, con, lines = self.open()  # a bare `qizhong arbiter` resumes it
                if not lines:  # the game had ended: a bare console starts the clock's next
                    # one; the arbiter who means to go on (``unrule``) gives --resume
                    assert con.out != self.out, (self.game, i)
                    con.close()
                    clock.close()
                    for path in (str(con.out), str(con.out) + ".journal"):
                        os.unlink(path)
                    clock, con, lines = self.open("--resume", self.out + ".journal")
                    assert con.session.over, (self.game, lines)
                self.clock = clock
                assert lines and lines[0].startswith("   resumed from"), lines
                self.said += lines
                got = state(con)
                assert went_on(before, got), (self.game, i, before, got)
                # A typed line the journal kept ran again on resume; one it
                # lost is typed again. A lever pressed is pressed: the console
                # polls it (as a press no console watched).
                if kind == "type" and self.handled() == typed:
                    before = got
                    continue
            typed += kind == "type"
            i += 1
            before = state(con)
        if isinstance(con.journal._f, KillAt):  # the budget outlived the script
            con.journal._f = con.journal._f.f
        return con


def finish(run: Run, con: Console) -> tuple[Any, ...]:
    """The end of a run: the record on disk is the session's, and the journal
    resumes once more to the same session. Returns the moves and the result."""
    final = state(con)
    assert con.session.over, (run.game, run.said[-5:])
    text = con.session.record_text()
    con.close()
    run.clock.close()
    with open(run.out, encoding="utf-8") as f:
        assert f.read() == text, run.game
    clock = Clock(run.sim.serial_path, timeout=5.0)
    con, _ = cli_arbiter.resume_console(run.out + ".journal", clock)
    assert state(con) == final, run.game
    con.close()
    clock.close()
    r = con.session.result
    assert r is not None
    return tuple(p.text for p in con.session.played), r.winner


def one(
    game: str, seed: int | None, kills: int, folder: str, mean: int = 1500
) -> tuple[int, float, tuple[Any, ...]]:
    """One game killed ``kills`` times (``seed``; None: never killed).
    Returns the kills, the seconds it took, and the moves and result."""
    t0 = time.monotonic()
    rng = None if seed is None else random.Random(seed)
    os.chdir(folder)  # where a bare console puts the clock's next game
    with Sim(open_link=False) as sim:
        run = Run(game, folder, sim)
        con = run.play(rng, kills, mean)
        end = finish(run, con)
        return run.kills, time.monotonic() - t0, end


def main() -> None:
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    kills = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    for game in GAMES:
        n = 0
        secs = 0.0
        for seed in range(seeds):
            with tempfile.TemporaryDirectory() as folder:
                os.environ["QIZHONG_STATE"] = folder
                k, s, end = one(game, seed, kills, folder)
            assert end == expected(game), (game, seed, end)
            n += k
            secs += s
        print("%-8s %d seeds: %d kills, each resumed to the session as it stood; the same"
              " moves and result as never killed; %.1f s" % (game, seeds, n, secs))  # fmt: skip


if __name__ == "__main__":
    main()
