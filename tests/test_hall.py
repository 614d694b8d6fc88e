# SPDX-License-Identifier: GPL-3.0-or-later
"""Many clocks from one process, and the CLI against a clock (both over the simulator)."""

import contextlib
import io

import pytest

from qizhong import cli
from qizhong.clocks.hall import Hall
from qizhong.clocks.link import CommandError
from qizhong.sim import Sim


def test_a_hall_configures_and_watches_three_clocks():
    sims = [Sim(board_id="table-%d" % i, open_link=False) for i in range(3)]
    try:
        with Hall.open([s.serial_path for s in sims]) as hall:
            assert sorted(hall.clocks) == ["table-0", "table-1", "table-2"]
            replies = hall.broadcast("config", "15m+10s")
            assert replies == {n: "config" for n in hall.clocks}
            refused = hall.broadcast("pause")  # nothing is running yet
            assert all(isinstance(r, CommandError) and r.code == "state" for r in refused.values())
            for i, s in enumerate(sims):
                for k in range(3 + i):  # table-i plays 3 + i presses
                    s.press(1 - k % 2, 1000 + 2000 * k)
            got: dict[str, list] = {n: [] for n in hall.clocks}
            for _ in range(200):
                for name, ev in hall.poll(0.05):
                    got[name].append(ev)
                if all(len([e for e in got[f"table-{i}"] if e.name == "press"]) == 2 + i
                       for i in range(3)):  # fmt: skip
                    break
            for i in range(3):
                evs = got["table-%d" % i]
                assert [e.seq for e in evs] == list(range(evs[0].seq, evs[0].seq + len(evs)))
                assert [e.name for e in evs if e.name in ("start", "press")] == ["start"] + [
                    "press"
                ] * (2 + i)
            st = hall.status()
            assert st["table-2"].moves == (2, 2)  # type: ignore[union-attr]
    finally:
        for s in sims:
            s.close()


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def pty():
    with Sim(open_link=False) as sim:
        yield sim


def test_cli_drives_a_clock(pty):
    port = ("--port", pty.serial_path)
    assert run_cli("config", "xq-rapid", *port, "--levers", "black")[0] == 0
    code, out, _ = run_cli("start", "red", *port)
    assert code == 0 and "start: done" in out
    pty.run_to(30000)
    assert run_cli("penalty", "black", "-120000", *port)[0] == 0
    code, out, _ = run_cli("status", *port)
    assert code == 0
    assert "state running, red to move" in out
    assert "black" in out and "13:00" in out  # 15 min less 2
    assert "left lever: black" in out
    code, out, _ = run_cli("events", "--since", "0", *port)
    head, *lines = out.splitlines()
    assert head.split()[:3] == ["seq", "clock", "ms"]  # the columns are named
    names = [line.split()[2] for line in lines]
    assert names == ["boot", "config", "levers", "start", "penalty"]


def test_cli_exit_codes_and_plain_errors(pty):
    port = ("--port", pty.serial_path)
    code, _, err = run_cli("config", "15m+", *port)
    assert code == 2 and "bad time control" in err and "^" in err
    code, _, err = run_cli("pause", *port)
    assert code == 3 and "refused pause" in err
    code, _, err = run_cli("status", "--port", "/dev/no-such-clock", "--timeout", "0.2")
    assert code == 1 and "no-such-clock" in err


def test_status_watch_redraws_in_place(pty):
    port = ("--port", pty.serial_path)
    run_cli("config", "10m", *port)
    code, out, _ = run_cli("status", "--watch", "--count", "3", "--interval", "0", *port)
    assert code == 0
    assert out.count("state idle") == 3
    assert out.count("\x1b[6A") == 2  # each redraw backs up over the six lines before it
