# SPDX-License-Identifier: GPL-3.0-or-later
"""A second program watching a tournament's records as they are written
(tests/test_tournament_day.py runs it): ``python watch_records.py FOLDER``.

Until its stdin closes it reads every record in FOLDER again and again, as a
results board or a live broadcast would: each PGN with the project's reader,
each SGF with sgfmill. Then it prints one JSON line: how many reads, the
reads that failed (a half-written file), and per file the most moves seen and
any read where the moves went backwards (a record losing moves)."""

import json
import os
import select
import sys

from sgfmill import sgf

from qizhong.records import xiangqi_pgn


def moves_in(path: str) -> int:
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".pgn"):
        return len(xiangqi_pgn.read_game(data).moves)
    return len(sgf.Sgf_game.from_bytes(data).get_main_sequence()) - 1


def main(folder: str) -> None:
    reads = 0
    errors: list[str] = []
    most: dict[str, int] = {}
    backwards: list[str] = []
    while True:
        for name in sorted(os.listdir(folder)):
            if not name.endswith((".pgn", ".sgf")):
                continue
            path = os.path.join(folder, name)
            try:
                n = moves_in(path)
            except FileNotFoundError:
                continue
            except Exception as e:  # every failure is a finding
                errors.append("%s: %s" % (name, e))
                continue
            reads += 1
            if n < most.get(name, 0):
                backwards.append("%s: %d after %d" % (name, n, most[name]))
            most[name] = max(n, most.get(name, 0))
        # Poll the folder again after 20 ms, or stop when stdin closes.
        if select.select([sys.stdin], [], [], 0.02)[0] and not sys.stdin.read(1):
            break
    print(json.dumps({"reads": reads, "errors": errors, "most": most, "backwards": backwards}))


if __name__ == "__main__":
    main(sys.argv[1])
