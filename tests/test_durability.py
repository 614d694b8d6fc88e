# SPDX-License-Identifier: GPL-3.0-or-later
"""Every writer that promises durability, crashed at every step (#26 item 10).

``durability.Disk`` keeps of a folder only what was made durable, and lists
what a power cut at each step could leave. The record files
(``qizhong.records.files``: the old record or the new one, never half; the
new one kept once ``replace`` returns) and the console's journal (every line
kept once written, a torn last line at most) are checked against it. So
are writers with one step left out, to show that the check can fail."""

import json
import os

import pytest
from durability import Disk

from qizhong.arbiter import journal as jr
from qizhong.records import files

OLD = b'[Event "old"]\n\n1. e4 *\n'
NEW = b'[Event "new"]\n\n1. e4 e5 2. Nf3 *\n'


def _with_old(tmp_path):
    path = tmp_path / "r.pgn"
    path.write_bytes(OLD)
    return str(path)


def _check_replace(tmp_path, write):
    """``write(path, NEW)`` over OLD: every crash leaves OLD or NEW; once it
    returned, only NEW. Returns how many crash states were checked."""
    path = _with_old(tmp_path)
    disk = Disk(str(tmp_path))
    with disk.watching():
        write(path, NEW)
        done = len(disk.steps)
    assert disk.states
    for step, state in disk.states:
        got = state.get("r.pgn")
        assert got in (OLD, NEW), (disk.steps[:step], got)
        if step > done:
            assert got == NEW, (disk.steps[:step], got)
    return len(disk.states)


def test_a_record_replaced_is_the_old_or_the_new_at_every_crash(tmp_path):
    assert _check_replace(tmp_path, files.replace) >= 5


def test_a_record_claimed_is_there_once_claim_returns(tmp_path):
    disk = Disk(str(tmp_path))
    path = str(tmp_path / "c.pgn")
    with disk.watching():
        files.claim(path, NEW)
        done = len(disk.steps)
    after = [state for step, state in disk.states if step > done]
    assert after and all(state.get("c.pgn") == NEW for state in after)
    for _, state in disk.states:
        assert state.get("c.pgn") in (None, b"", NEW)


def _no_file_fsync(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    fd = os.open(os.path.dirname(path), os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)


def _in_place(path, data):
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _no_folder_fsync(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


@pytest.mark.parametrize("bad", [_no_file_fsync, _in_place, _no_folder_fsync])
def test_the_check_catches_a_writer_that_leaves_a_step_out(tmp_path, bad):
    with pytest.raises(AssertionError):
        _check_replace(tmp_path, bad)


def test_the_journal_keeps_every_line_it_wrote_at_every_crash(tmp_path):
    """The console's journal: created, then lines appended, each made durable
    before the console goes on. At any crash it reads back (a torn last line
    dropped) with every line written before that instant; it used to be
    created without making its folder entry durable, so a power cut could
    lose the whole file."""
    path = str(tmp_path / "g.pgn.journal")
    header = {"args": {}, "clock": {"id": "sim", "boot": "x"}, "record": "g.pgn"}
    disk = Disk(str(tmp_path))
    returned = []  # (step, lines durable by then)
    with disk.watching():
        j = jr.Journal.create(path, None, header)  # type: ignore[arg-type]
        returned.append((len(disk.steps), 1))
        for k in range(4):
            j.said(["line %d" % k])
            returned.append((len(disk.steps), k + 2))
        j.close()
    final = open(path, "rb").read()
    assert final.count(b"\n") == 5
    checked = 0
    for step, state in disk.states:
        need = max([n for s, n in returned if s < step] or [0])
        got = state.get("g.pgn.journal")
        if need == 0 and got is None:
            continue
        assert got is not None, (disk.steps[:step], "the journal is gone")
        assert final.startswith(got), disk.steps[:step]
        assert got.count(b"\n") >= need, (disk.steps[:step], got)
        if need:
            check = tmp_path / "check.journal"
            check.write_bytes(got)
            header_read, _, good = jr.read(str(check))
            assert header_read["clock"] == header["clock"] and good == got.rfind(b"\n") + 1
            assert json.loads(got.split(b"\n")[0])["journal"] == jr.VERSION
        checked += 1
    assert checked >= 6
