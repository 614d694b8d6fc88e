# SPDX-License-Identifier: GPL-3.0-or-later
"""Our Go engine against GNU Go, on seeded random games; counts printed.

    python benchmarks/go_gnugo.py [--games N] [--size 9 --size 13 ...] [--seed 1]

GNU Go runs as ``gnugo --mode gtp --chinese-rules --situational-superko``
(Debian's ``gnugo``; suicide is forbidden by default). Each game:

- Legality: before every move, every empty point is asked with GTP
  ``is_legal`` and compared with ``Board.is_legal``; the move chosen is then
  played on both (GTP ``play`` must accept it). Only the first 500 moves are
  compared: GNU Go folds older moves into its start position when its move
  history (500 moves) is full, and its superko check then misses repeats
  (seen from move 502 on in long 19x19 games).
- Moves: uniformly random among legal moves that do not fill a point whose
  neighbours are all the mover's stones; a pass when there is none. Two passes
  end the game (GO-5).
- Score: where GNU Go's ``final_status_list dead`` is empty and the position
  has no neutral point, our ``Board.score()`` with every stone alive must
  equal GNU Go's ``final_score`` (Chinese area scoring, komi 7.5). Played out
  this way, a random game fills every point that is not an eye, so dame are
  rare; dead stones remain in about 4 % of 9x9 games. Those games are counted,
  not compared: GNU Go's ``final_score`` plays the dame out in turn (GO-6
  splits them in half) and gives empty points near dead stones to a side by
  its own judgement, neither of which is area counting by the rules.
  ``estimate_score`` is not used: it is not exact.

``tests/test_go_gnugo.py`` runs the same comparison on a few games.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction

from qizhong.rules import go

GNUGO_MISSING = (
    "GNU Go is missing: install Debian's gnugo (apt-get install gnugo); CI installs it in .ci/run"
)


def find_gnugo() -> str | None:
    """The gnugo binary (Debian puts it in /usr/games, often not on PATH)."""
    exe = shutil.which("gnugo")
    if exe:
        return exe
    return "/usr/games/gnugo" if os.access("/usr/games/gnugo", os.X_OK) else None


GNUGO_HISTORY = 500  # moves GNU Go remembers for superko (see the module doc)


class GtpError(RuntimeError):
    pass


class Gtp:
    """A GNU Go process spoken to over GTP (commands may be pipelined)."""

    def __init__(self, exe: str, size: int, komi: Fraction) -> None:
        self.proc = subprocess.Popen(
            [
                exe,
                "--mode",
                "gtp",
                "--chinese-rules",
                "--situational-superko",
                "--boardsize",
                str(size),
                "--komi",
                go._decimal(komi),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def many(self, commands: list[str]) -> list[tuple[bool, str]]:
        """Send all, then read one reply each: (success, text)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("".join(c + "\n" for c in commands))
        self.proc.stdin.flush()
        out = []
        for _ in commands:
            lines = []
            while True:
                line = self.proc.stdout.readline()
                if not line:
                    raise GtpError("gnugo stopped answering")
                if line == "\n" and lines:
                    break
                if line != "\n":
                    lines.append(line.rstrip("\n"))
            text = "\n".join(lines)
            out.append((text[0] == "=", text[1:].strip()))
        return out

    def ask(self, command: str) -> str:
        ok, text = self.many([command])[0]
        if not ok:
            raise GtpError("%s: %s" % (command, text))
        return text

    def close(self) -> None:
        try:
            self.many(["quit"])
        except (GtpError, OSError):
            pass
        self.proc.wait(timeout=10)


@dataclass
class Report:
    games: int = 0
    moves: int = 0
    passes: int = 0
    captures: int = 0
    checked: int = 0  # (position, point) legality questions
    refused: dict[str, int] = field(default_factory=dict)  # our refusals by reason
    unchecked: int = 0  # moves past GNU Go's history, legality not compared
    scored: int = 0
    with_dead: int = 0  # GNU Go saw dead stones, or dame: score not compared
    disagreements: list[str] = field(default_factory=list)

    def add(self, other: Report) -> None:
        self.games += other.games
        self.moves += other.moves
        self.passes += other.passes
        self.captures += other.captures
        self.checked += other.checked
        self.unchecked += other.unchecked
        for k, v in other.refused.items():
            self.refused[k] = self.refused.get(k, 0) + v
        self.scored += other.scored
        self.with_dead += other.with_dead
        self.disagreements += other.disagreements


def _fills_own_eye(board: go.Board, p: go.Point) -> bool:
    n = board.size
    for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        c, r = p.col + dc, p.row + dr
        if 0 <= c < n and 0 <= r < n and board.color_at(go.Point(c, r)) is not board.turn:
            return False
    return True


def play_game(gtp: Gtp, size: int, seed: int, komi: Fraction = go.KOMI) -> Report:
    """One seeded random game on ``gtp`` and our board; see the module doc."""
    rng = random.Random(seed)
    rep = Report(games=1)
    board = go.Board(size, komi=komi)
    gtp.ask("clear_board")
    points = [go.Point(c, r) for r in range(size) for c in range(size)]
    where = "seed %d" % seed
    while not board.is_game_over():
        color = board.turn
        empty = [p for p in points if board.color_at(p) is None]
        compared = len(board.move_stack) < GNUGO_HISTORY
        if compared:
            answers = gtp.many(["is_legal %s %s" % (color.letter, p.gtp()) for p in empty])
        else:
            answers = [(True, "")] * len(empty)
            rep.unchecked += 1
        candidates = []
        for p, (ok, text) in zip(empty, answers, strict=True):
            reason = board.illegal_reason(go.Move(p))
            if reason is not None:
                name = reason.name
                if reason is go.Reason.SUPERKO:
                    ko = board.repeats(go.Move(p)) == len(board.move_stack) - 1
                    name += " (simple ko)" if ko else " (longer cycle)"
                rep.refused[name] = rep.refused.get(name, 0) + 1
            theirs = ok and text == "1"
            rep.checked += compared
            if compared and theirs != (reason is None):
                rep.disagreements.append(
                    "%s move %d: %s %s ours %s, gnugo %s"
                    % (where, len(board.move_stack) + 1, color.letter, p.gtp(), reason, text)
                )
            if reason is None and not _fills_own_eye(board, p):
                candidates.append(p)
        move = go.Move(rng.choice(candidates)) if candidates else go.PASS
        if len(board.move_stack) > 4 * size * size:
            move = go.PASS  # a long cycle: stop the game
        board.push(move)
        rep.moves += 1
        rep.passes += move.is_pass
        rep.captures += len(board.last_captured())
        ok, text = gtp.many(["play %s %s" % (color.letter, move.gtp())])[0]
        if not ok:
            rep.disagreements.append(
                "%s: gnugo refused play %s %s: %s" % (where, color.letter, move.gtp(), text)
            )
            return rep
    score = board.score()
    if score.dame or gtp.ask("final_status_list dead"):
        rep.with_dead += 1
        return rep
    theirs = gtp.ask("final_score")
    ours = score.sgf()
    rep.scored += 1
    if ours != theirs:
        rep.disagreements.append("%s: score ours %s, gnugo %s\n%s" % (where, ours, theirs, board))
    return rep


def compare(games: int, size: int = 9, seed: int = 1, exe: str | None = None) -> Report:
    exe = exe or find_gnugo()
    if exe is None:
        raise GtpError(GNUGO_MISSING)
    gtp = Gtp(exe, size, go.KOMI)
    total = Report()
    try:
        for k in range(games):
            total.add(play_game(gtp, size, seed + k))
    finally:
        gtp.close()
    return total


PLAN = ((9, 100), (13, 20), (19, 4))  # (size, games): about 25 s on 2 cores


def run(size: int, games: int, seed: int) -> Report:
    t0 = time.perf_counter()
    rep = compare(games, size, seed)
    dt = time.perf_counter() - t0
    print(
        "go vs gnugo %dx%d: %d games, %d moves (%d passes, %d stones captured), "
        "%d legality checks (%d moves past GNU Go's history), %d scores compared "
        "(%d games with dead stones or dame not compared), %d disagreements, %.1f s"
        % (
            size,
            size,
            rep.games,
            rep.moves,
            rep.passes,
            rep.captures,
            rep.checked,
            rep.unchecked,
            rep.scored,
            rep.with_dead,
            len(rep.disagreements),
            dt,
        )
    )
    print("  our refusals: " + ", ".join("%s %d" % kv for kv in sorted(rep.refused.items())))
    for d in rep.disagreements[:20]:
        print("DISAGREE " + d)
    sys.stdout.flush()
    return rep


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, help="games per size (default: %s)" % (PLAN,))
    ap.add_argument("--size", type=int, action="append", choices=go.SIZES)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    plan = [(n, g) for n, g in PLAN if not args.size or n in args.size]
    bad = 0
    for size, games in plan:
        bad += len(run(size, args.games or games, args.seed).disagreements)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
