# SPDX-License-Identifier: GPL-3.0-or-later
"""Game records with the clock's times: Xiangqi PGN (``xiangqi_pgn``) and Go
SGF (``go_sgf``)."""
