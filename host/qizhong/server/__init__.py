# SPDX-License-Identifier: GPL-3.0-or-later
"""The hall server (``qizhong serve``): one process owns a laptop's clocks,
keeps every event in SQLite, and serves the hall to browsers (docs/server.md)."""
