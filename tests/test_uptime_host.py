# SPDX-License-Identifier: GPL-3.0-or-later
"""Every host figure derived from the clock's stamps, across the origin move
and after 60 days on (#26 item 3; docs/protocol.md, "The clock's ms").

The clock's ms fall by App.REBASE_MS - App.KEEP_MS when they reach 2**29
(tests/test_uptime.py). A move made across that instant used to read
"-402648.8 used" (and so did chess %emt), and an XQ-R19 press after it gave
the offender 403,547,184 ms, which the clock refused. Here each figure is
checked against the virtual time the presses were made at."""

import os
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import console_kills as ck

from qizhong.core.app import App
from qizhong.sim import Sim

DAY = 86_400_000
MOVE = App.REBASE_MS  # where the origin moves (virtual ms since power-on)


def _game(tmp_path, game, t0, *argv):
    sim = Sim(open_link=False)
    sim.run_to(t0)
    run = ck.Run(game, str(tmp_path), sim)
    clock, con, _ = run.open("--out", run.out, *argv)
    return sim, run, clock, con


@pytest.mark.parametrize(
    "t0",
    [MOVE - 3000, MOVE - 7000 - 4321 - 1000, 60 * DAY + 1000],
    ids=["a move across it", "an XQ-R19 press across it", "60 days on"],
)
def test_a_move_across_the_origin_move_is_charged_its_own_time(tmp_path, t0):
    sim, run, clock, con = _game(tmp_path, "xiangqi", t0)
    try:
        con.handle("start")
        con.handle("炮二平五")
        sim.press(0, sim.now + 7000)  # 7 s, the origin moving in it (or 60 days on)
        con.poll(0.3)
        con.handle("马8进7")
        sim.press(1, sim.now + 4321)
        con.poll(0.3)
        used = [p.used_ms for p in con.session.played]
        assert used == [7000, 4321], (used, run.said)
        sim.press(0, sim.now + 2500)  # Red presses without moving: XQ-R19
        said = con.poll(0.3)
        assert con.session.fouls == [1, 0], said
        st = clock.status()
        # The clock goes back to Red with the time Red had before the press.
        assert st.run == 0 and st.left[0] == 900_000 + 10_000 - 7000 - 2500, (st, said)
        assert st.left[1] == 900_000 + 10_000 - 4321, (st, said)
    finally:
        con.close()
        clock.close()
        sim.close()


def test_chess_emt_across_the_origin_move(tmp_path):
    sim, run, clock, con = _game(tmp_path, "chess", MOVE - 2000, "--emt")
    try:
        con.handle("start")
        for mv, lever, ms in (("e4", 0, 6000), ("e5", 1, 1500), ("Nf3", 0, 2250)):
            con.handle(mv)
            sim.press(lever, sim.now + ms)
            con.poll(0.3)
        assert [p.used_ms for p in con.session.played] == [6000, 1500, 2250], run.said
        pgn = con.session.record_text()
        for emt in ("0:00:06]", "0:00:01.5]", "0:00:02.25]"):
            assert "[%emt " + emt in pgn, pgn
    finally:
        con.close()
        clock.close()
        sim.close()


STEP = App.REBASE_MS - App.KEEP_MS  # what the clock's ms fall by at each origin move
HOST = 7_777_777  # the host's monotonic ms at the clock's power-on (virtual, as the clock's)


def _ticked(view):
    """A running side's time as the hall page shows it (web/common.js, shownLeft)."""
    return view["left"][view["run"]] - max(0, view["now"] - view["t"])


@pytest.mark.parametrize("order", ["event first", "status first"])
@pytest.mark.parametrize("cross", [MOVE, MOVE + 12 * STEP], ids=["6.2 days", "62 days"])
def test_the_hall_servers_clock_now_across_the_origin_move(tmp_path, order, cross):
    """The hall server reckons the clock's ms now as its own monotonic ms plus
    an offset that each ``status`` measures (server/board.py); a page ticks the
    running side down by ``now - t``. The offset used to stay in the old
    frame: an event past the origin move had ``t`` a step lower, the page took
    4.66 days off the side to move and showed its flag until the next status
    (and a status past the move, then an event from before it, froze the
    side's time). Here the host's ms are virtual, tied to the clock's, and
    each figure is checked against the clock's own status at that instant,
    for an event and for a status crossing the move first."""
    from qizhong.server.board import Worker
    from qizhong.server.store import Store

    sim = Sim(open_link=False)
    store = Store(str(tmp_path / "hall.sqlite"))
    w = Worker(sim.serial_path, store, lambda no, view, event: None)
    try:
        sim.run_to(cross - 6000)
        w._connect()  # what the board's thread does first: the clock's events, a status
        assert w.st is not None and w.clock is not None and w.st.link == "up"
        w.st.mono = lambda: HOST + sim.now  # the host's ms, in the same virtual time
        w._status()

        def exact(why):
            view = w.st.view()
            truth = w.clock.status()  # the clock at this instant (virtual time stands)
            assert view["state"] == "running" and view["run"] == truth.run >= 0, (why, view)
            assert _ticked(view) == truth.left[truth.run], (why, view["now"] - view["t"], truth)

        w.clock.start(0)
        w.pull()
        sim.press(0, cross - 4000)  # Red's move: Black's time runs, across the move
        w.pull()
        exact("Black's move begun")
        if order == "event first":
            sim.run_to(cross - 1000)
            exact("before the move, no new stamp")
            sim.press(1, cross + 3000)  # Black's press, stamped past the move
            w.pull()
            assert w.st.t < cross - 6000, w.st.t  # the clock's ms fell
            exact("Black's press past the move")
            sim.run_to(cross + 4500)
            exact("1.5 s on")
        else:
            sim.press(1, cross - 1000)  # stamped before the move, read after a status past it
            sim.run_to(cross + 2000)
            w._status()  # the board's thread asks every STATUS_S
            assert w.st.t < cross - 6000, w.st.t  # the clock's ms fell
            w.pull()
            falls = (cross - MOVE) // STEP  # the moves before this one
            assert w.st.t == cross - 1000 - falls * STEP, w.st.t  # the old frame's
            exact("an event from before the move, after a status past it")
            sim.run_to(cross + 2500)
            exact("0.5 s on")
        w._status()
        exact("the next status")
    finally:
        if w.clock is not None:
            w.clock.close()
        store.close()
        sim.close()
