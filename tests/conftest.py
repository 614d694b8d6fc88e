# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared test setup: the tests/ folder on sys.path, the MicroPython binary,
hypothesis's profile, and a hall server (``server``; a module may define its own)."""

import os
import shutil
import sys

import pytest
from hypothesis import settings

# `make test` explores the same examples on every machine, so a red CI run
# is reproducible; QIZHONG_HYPOTHESIS=explore (make fuzz-props) draws new ones.
# No deadline: a wall-clock bound per example fails on a loaded machine (a
# 0.4 ms example took 281 ms once); time in these tests is virtual.
settings.register_profile("repeatable", derandomize=True, print_blob=True, deadline=None)
settings.register_profile("explore", max_examples=2000, print_blob=True, deadline=None)
settings.load_profile(
    "explore" if os.environ.get("QIZHONG_HYPOTHESIS") == "explore" else "repeatable"
)

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


@pytest.fixture(autouse=True)
def _arbiter_state(tmp_path_factory, monkeypatch):
    """The arbiter's console notes each clock's game in a state folder: a
    fresh one per test, never the user's (~/.local/state/qizhong)."""
    monkeypatch.setenv("QIZHONG_STATE", str(tmp_path_factory.mktemp("state")))


@pytest.fixture
def server(tmp_path, request):
    """A real hall server (tests/hallserver.py) on a fresh file; stopped after.
    A module's ``HALL_SERVER`` says how: ``n`` simulated clocks (2), ``extra``
    arguments to ``qizhong serve`` (none), ``up``: returned once every clock
    is connected (False). A test module's own ``server`` fixture wins."""
    from hallserver import Server

    how = getattr(request.module, "HALL_SERVER", {})
    s = Server(str(tmp_path / "hall.sqlite"), how.get("n", 2), tuple(how.get("extra", ())))
    try:
        if how.get("up"):
            s.boards_up(s.socket())
        yield s
    finally:
        s.stop()


# -- make test's schedule (pytest-xdist, --dist loadfile) -----------------------------------
# Each file's tests run on one worker, in one process (its module fixtures: one server, one
# browser), but the tests of SPREAD's files, which share nothing, go to any worker: run as one
# file each, they were a worker's last minutes while the other stood idle. LONGEST's files
# start first (Graham's rule: the long jobs first, the short ones fill the gaps); their order
# is the seconds each took in a full run (#34), longest first. (xdist's loadgroup cannot do
# this here: its groups rename a test's nodeid, which pytest 9 no longer takes.)
SPREAD = (
    "test_docs_commands.py",
    "test_mqtt.py",
    "test_server.py",
    "test_journal.py",
    "test_hall_session.py",
    "test_xiangqi.py",
)
LONGEST = (
    "test_tournament_hall.py",
    "test_docs_commands.py",
    "test_mqtt.py",
    "test_server.py",
    "test_journal.py",
    "test_hall_session.py",
    "test_xiangqi.py",
    "test_hall_session_browser.py",
    "test_bundle.py",
    "test_tournament_event.py",
    "test_hall_alerts.py",
    "test_hall_logins.py",
    "test_link_hardening.py",
    "test_sim_cli.py",
    "test_properties.py",
    "test_voice_assets.py",
)


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(LONGEST)}
    items.sort(key=lambda it: rank.get(it.path.name, len(LONGEST)))  # stable: else as collected


def pytest_xdist_make_scheduler(config, log):
    """``--dist loadfile``, but a SPREAD file's tests each a unit of their own."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class Files(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            path = nodeid.split("::", 1)[0]
            return nodeid if os.path.basename(path) in SPREAD else path

    return Files(config, log)
