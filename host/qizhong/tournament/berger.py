# SPDX-License-Identifier: GPL-3.0-or-later
"""Round-robin pairings from FIDE's Berger tables (FIDE Handbook C.05,
Annex 1: "Berger Tables for Round-Robin Tournaments").

With ``n`` players (an odd number gets a dummy ``n + 1``: whoever meets it has
no game that round), round ``r`` of ``n - 1``: the player who meets ``n`` on the
first board is ``p = (r - 1) * n/2 mod (n - 1) + 1``, with White in an odd round
and Black in an even one; on board ``k`` (from 2), ``p + k - 1`` has White
against ``p - k + 1`` (both counted round ``1 .. n-1``). This is the table as
the Handbook prints it: for 6 players, round 1 is 1-6, 2-5, 3-4; round 2 is
6-4, 5-3, 1-2 (tests/test_tournament.py checks 4, 6, 8 and 10 players).
"""

from __future__ import annotations

MAX_PLAYERS = 100


def table(n: int) -> list[list[tuple[int, int]]]:
    """Every round's boards, (White, Black) by pairing number; a pair with
    ``n + 1`` (``n`` odd) is that player's round without a game."""
    if not 2 <= n <= MAX_PLAYERS:
        raise ValueError("a round robin of 2 to %d players, not %d" % (MAX_PLAYERS, n))
    size = n + n % 2
    m = size - 1
    half = size // 2

    def wrap(x: int) -> int:
        return (x - 1) % m + 1

    rounds = []
    for r in range(1, size):
        p = (r - 1) * half % m + 1
        boards = [(p, size) if r % 2 else (size, p)]
        boards += [(wrap(p + k - 1), wrap(p - k + 1)) for k in range(2, half + 1)]
        rounds.append(boards)
    return rounds


def pairings(players: list[int], rnd: int) -> tuple[list[tuple[int, int]], int]:
    """Round ``rnd`` (from 1) for ``players`` in their drawn order (pairing
    number 1 first): the games (White's, Black's) and who has no game (0: nobody)."""
    rounds = table(len(players))
    if not 1 <= rnd <= len(rounds):
        raise ValueError("round %d: a round robin of %d players has %d rounds"
                         % (rnd, len(players), len(rounds)))  # fmt: skip
    games, free = [], 0
    for w, b in rounds[rnd - 1]:
        if max(w, b) > len(players):
            free = players[min(w, b) - 1]
        else:
            games.append((players[w - 1], players[b - 1]))
    return games, free
