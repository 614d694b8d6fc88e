# SPDX-License-Identifier: GPL-3.0-or-later
"""What ruling a chess flag costs (6.9, docs/chess.md): ``unwinnable.analyse``
over 10,000 positions generated here, seeded, so each run sees the same ones.

Half are random legal endings of 3 to 8 pieces (kings included), half
blocked pawn structures: locked pawn pairs on every other file (a wall) or on
random files, the kings on random free squares, and none, one or two
bishops. Each is ruled for the
side that did not move last (whose flag would be ruled: the side not to
move). Prints p50, p99 and the maximum time per position (CPU time of this
process, which a shared machine disturbs less than the wall clock, and wall
time), the count of each verdict, and the undecided count.

    .venv/bin/python benchmarks/unwinnable.py [N]
"""

import os
import random
import statistics
import sys
import time

import chess

from qizhong.rules import unwinnable

SEED = 31
PIECES = (
    [chess.PAWN] * 4 + [chess.KNIGHT] * 2 + [chess.BISHOP] * 2 + [chess.ROOK] * 2 + [chess.QUEEN]
)


def _place(rng: random.Random, b: chess.Board, piece: chess.Piece) -> None:
    while True:
        sq = rng.randrange(64)
        rank = chess.square_rank(sq)
        if b.piece_at(sq) is None and not (piece.piece_type == chess.PAWN and rank in (0, 7)):
            b.set_piece_at(sq, piece)
            return


def ending(rng: random.Random) -> chess.Board:
    """A random legal position of kings and 1 to 6 other pieces."""
    while True:
        b = chess.Board(None)
        _place(rng, b, chess.Piece(chess.KING, chess.WHITE))
        _place(rng, b, chess.Piece(chess.KING, chess.BLACK))
        for _ in range(rng.randint(1, 6)):
            _place(rng, b, chess.Piece(rng.choice(PIECES), rng.random() < 0.5))
        b.turn = rng.random() < 0.5
        if b.is_valid() and not b.is_game_over():
            return b


def blocked(rng: random.Random) -> chess.Board:
    """A locked pawn structure: a white pawn and a black pawn in front of it,
    either on every other file at one rank (a wall no king can cross: the
    files between are attacked) or on 3 to 8 random files at random ranks;
    the kings and up to two bishops on free squares."""
    while True:
        b = chess.Board(None)
        if rng.random() < 0.5:
            r, first = rng.randint(1, 5), rng.randint(0, 1)
            pairs = [(f, r) for f in range(first, 8, 2)]
        else:
            pairs = [(f, rng.randint(1, 5)) for f in rng.sample(range(8), rng.randint(3, 8))]
        for f, r in pairs:
            b.set_piece_at(chess.square(f, r), chess.Piece(chess.PAWN, chess.WHITE))
            b.set_piece_at(chess.square(f, r + 1), chess.Piece(chess.PAWN, chess.BLACK))
        _place(rng, b, chess.Piece(chess.KING, chess.WHITE))
        _place(rng, b, chess.Piece(chess.KING, chess.BLACK))
        for _ in range(rng.choice((0, 1, 1, 2))):
            _place(rng, b, chess.Piece(chess.BISHOP, rng.random() < 0.5))
        b.turn = rng.random() < 0.5
        if b.is_valid() and not b.is_game_over():
            return b


def positions(n: int) -> list[chess.Board]:
    rng = random.Random(SEED)
    return [ending(rng) if i % 2 == 0 else blocked(rng) for i in range(n)]


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def _line(name: str, xs: list[float]) -> str:
    return "%s: p50 %.2f ms, p99 %.1f ms, max %.0f ms, mean %.2f ms" % (
        name,
        _pct(xs, 0.5),
        _pct(xs, 0.99),
        max(xs),
        statistics.mean(xs),
    )


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    boards = positions(n)
    cpu: dict[str, list[float]] = {"ending": [], "blocked": []}
    wall: list[float] = []
    counts: dict[str, int] = {}
    undecided = {"ending": 0, "blocked": 0}
    shown = []
    for i, b in enumerate(boards):
        kind = "ending" if i % 2 == 0 else "blocked"
        color = not b.turn  # the side whose flag did not fall
        w0, c0 = time.perf_counter_ns(), time.process_time_ns()
        v = unwinnable.analyse(b, color)
        cpu[kind].append((time.process_time_ns() - c0) / 1e6)
        wall.append((time.perf_counter_ns() - w0) / 1e6)
        counts[v.result] = counts.get(v.result, 0) + 1
        if v.result == unwinnable.UNDECIDED:
            undecided[kind] += 1
            shown.append(b.fen())
    print("unwinnable.analyse over %d positions (%d random endings, %d blocked structures)"
          % (n, len(cpu["ending"]), len(cpu["blocked"])))  # fmt: skip
    print("  " + _line("cpu, all", cpu["ending"] + cpu["blocked"]))
    print("  " + _line("cpu, random endings", cpu["ending"]))
    print("  " + _line("cpu, blocked structures", cpu["blocked"]))
    print("  " + _line("wall, all", wall))
    print("  winnable %d, unwinnable %d, undecided %d (%d endings, %d blocked)" % (
        counts.get("winnable", 0), counts.get("unwinnable", 0), counts.get("undecided", 0),
        undecided["ending"], undecided["blocked"]))  # fmt: skip
    for fen in shown[: int(os.environ.get("SHOW", "10"))]:
        print("  undecided: %s" % fen)


if __name__ == "__main__":
    main()
