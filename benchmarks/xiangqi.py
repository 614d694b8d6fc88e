# SPDX-License-Identifier: GPL-3.0-or-later
"""Xiangqi engine timings: perft, the notation round trip, PGN replay.

    .venv/bin/python benchmarks/xiangqi.py [POSITIONS]

Prints numbers, judges nothing. The round trip writes every legal move of
POSITIONS positions (default 10,000, from seeded random games) in all four
styles and reads each back, checking ``parse_notation(notation(m)) == m``; the
test suite runs 1,000 of them. Every pyffish call builds a whole position, so
its fixed cost (printed first) dominates move generation.
"""

from __future__ import annotations

import os
import random
import sys
import time

import pyffish

from qizhong.records import xiangqi_pgn
from qizhong.rules.xiangqi import STARTING_FEN, Board, perft

STYLES = ("chinese", "traditional", "wxf", "iccs")
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "xiangqi")


def pyffish_call_ms() -> float:
    n = 200
    t = time.perf_counter()
    for _ in range(n):
        pyffish.legal_moves("xiangqi", STARTING_FEN, [])
    return (time.perf_counter() - t) * 1000 / n


def bench_perft() -> None:
    for depth in (1, 2, 3):
        board = Board()
        t = time.perf_counter()
        nodes = perft(board, depth)
        dt = time.perf_counter() - t
        print("perft %d: %7d leaves in %6.2f s" % (depth, nodes, dt))


def bench_round_trip(target: int) -> None:
    rng = random.Random(20261122)
    positions = moves = checks = 0
    notate = parse = 0.0
    t0 = time.perf_counter()
    while positions < target:
        board = Board()
        for _ in range(rng.randint(20, 200)):
            legal = board.legal_moves
            if not legal or positions >= target:
                break
            for style in STYLES:
                t = time.perf_counter()
                texts = [board.notation(m, style) for m in legal]
                notate += time.perf_counter() - t
                if len(set(texts)) != len(texts):
                    raise SystemExit("ambiguous output in %s (%s)" % (board.fen(), style))
                t = time.perf_counter()
                for move, text in zip(legal, texts, strict=True):
                    if board.parse_notation(text) != move:
                        raise SystemExit("round trip failed: %s %s %s" % (board.fen(), style, text))
                parse += time.perf_counter() - t
                checks += len(legal)
            moves += len(legal)
            positions += 1
            board.push(rng.choice(legal))
    total = time.perf_counter() - t0
    print("round trip: %d positions, %d legal moves, %d texts in 4 styles, all read back"
          % (positions, moves, checks))  # fmt: skip
    print("  write %.1f µs, read %.1f µs a move text; %.1f s in all (move generation included)"
          % (notate / checks * 1e6, parse / checks * 1e6, total))  # fmt: skip


def bench_pgn() -> None:
    games = []
    t = time.perf_counter()
    for name in sorted(os.listdir(DATA)):
        if name.endswith(".pgn"):
            with open(os.path.join(DATA, name), "rb") as f:
                games.extend(xiangqi_pgn.read_games(f.read()))
    read = time.perf_counter() - t
    plies = sum(len(g.moves) for g in games)
    t = time.perf_counter()
    for g in games:
        xiangqi_pgn.write_game(g)
    write = time.perf_counter() - t
    print("PGN: %d real games, %d moves: read and checked in %.2f s, written in %.2f s"
          % (len(games), plies, read, write))  # fmt: skip


def main() -> int:
    target = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    print("pyffish: %.2f ms a call (legal moves of one position)" % pyffish_call_ms())
    bench_perft()
    bench_round_trip(target)
    bench_pgn()
    return 0


if __name__ == "__main__":
    sys.exit(main())
