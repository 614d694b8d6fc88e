# SPDX-License-Identifier: GPL-3.0-or-later
"""A tournament's paper side, pure (no server, no clock): the pairing
programs' files (``trf``: FIDE's TRF-16), the round robin's Berger tables
(``berger``), and the standings with each game's tie-breaks (``standings``).
docs/tournament.md is the manual; the hall server keeps the tournament
(server/rounds.py)."""
