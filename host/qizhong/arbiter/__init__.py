# SPDX-License-Identifier: GPL-3.0-or-later
"""Arbiter sessions: one game bound to one clock, one module per game kind.

``session`` holds what every game shares (the clock's presses paired with
entered moves, fouls, penalties, the record on disk); ``xiangqi``, ``go`` and
``chess`` add each game's rules. docs/arbiter.md is the manual (docs/chess.md
for chess)."""

from qizhong.arbiter.chess import ChessSession
from qizhong.arbiter.go import GoSession
from qizhong.arbiter.session import (
    ArbiterError,
    GameSession,
    Notice,
    Played,
    Press,
    Result,
    free_path,
)
from qizhong.arbiter.xiangqi import XiangqiSession, rounds_per_day_limit

__all__ = [
    "ArbiterError",
    "ChessSession",
    "GameSession",
    "GoSession",
    "Notice",
    "Played",
    "Press",
    "Result",
    "XiangqiSession",
    "free_path",
    "rounds_per_day_limit",
]
