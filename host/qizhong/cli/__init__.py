# SPDX-License-Identifier: GPL-3.0-or-later
"""The ``qizhong`` command: ``main`` parses and dispatches (``main``); the
clock commands are in ``clock``, the arbiter's console in ``arbiter``,
pairing in ``pair``."""

from qizhong.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
