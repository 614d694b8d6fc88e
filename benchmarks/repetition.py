# SPDX-License-Identifier: GPL-3.0-or-later
"""What a repetition ruling costs (docs/repetition.md): the corpus, ruled fresh.

Prints the time to rule each worked case of tests/data/repetition/cases.json
under the Chinese rules (the adjudicator's own move generator) and under the
AXF option (pyffish), and the own generator's speed against pyffish's.
"""

import json
import os
import statistics
import time

import pyffish

from qizhong.rules import xiangqi as xq
from qizhong.rules import xiangqi_repetition as rp

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "..", "tests", "data", "repetition", "cases.json")


def boards():
    out = []
    with open(CASES, encoding="utf-8") as f:
        for case in json.load(f):
            board = xq.Board(case["fen"])
            for text in case["moves"]:
                board.push_notation(text)
            out.append(board)
    return out


def main():
    for rules in ("cxa", "axf"):
        times = []
        for board in boards():  # fresh boards: no cached ruling
            t = time.perf_counter()
            rp.adjudicate(board, rules)
            times.append((time.perf_counter() - t) * 1000)
        print("ruling (%s): %d cases, median %.1f ms, max %.1f ms"
              % (rules, len(times), statistics.median(times), max(times)))  # fmt: skip
    sq = rp._squares(xq.STARTING_FEN)
    n = 2000
    t = time.perf_counter()
    for _ in range(n):
        rp._legal(sq, xq.Color.RED)
    own = (time.perf_counter() - t) / n * 1e6
    t = time.perf_counter()
    for _ in range(n // 10):
        pyffish.legal_moves(xq.VARIANT, xq.STARTING_FEN, [])
    ff = (time.perf_counter() - t) / (n // 10) * 1e6
    print("legal moves of the start position: own %.0f us, pyffish %.0f us a call" % (own, ff))


if __name__ == "__main__":
    main()
