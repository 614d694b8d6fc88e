# SPDX-License-Identifier: GPL-3.0-or-later
"""#34 item 6: every file the project writes goes through one safe function
(``records.files.replace``): a new private temporary file, then a rename.

Before, ``replace`` wrote ``PATH.PID.tmp`` with a plain ``open()`` and the key
store wrote ``PATH.tmp``: a link planted at that guessable name made the
write land in another file (``qizhong arbiter --out`` overwrote it). Each
test plants links at every name the old code would have used and checks the
victim is untouched."""

import os
import stat

from qizhong.clocks.auth import KeyStore
from qizhong.records import files


def _plant(path, victim):
    """Links at the old temporary names of ``path`` (this pid's, and a bare
    ``.tmp``), each to ``victim``."""
    for name in ("%s.%d.tmp" % (path, os.getpid()), path + ".tmp"):
        os.symlink(victim, name)


def test_a_record_is_never_written_through_a_planted_link(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    record = str(tmp_path / "game.pgn")
    _plant(record, str(victim))
    files.replace(record, b"1. e4 *\n")
    assert victim.read_text() == "precious\n"
    assert open(record, "rb").read() == b"1. e4 *\n"
    assert stat.S_IMODE(os.stat(record).st_mode) == 0o644
    # No temporary file is left beside it (only the planted links).
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted(
        ["victim.txt", "game.pgn", "game.pgn.tmp", "game.pgn.%d.tmp" % os.getpid()]
    )


def test_a_link_at_the_record_itself_is_replaced_not_followed(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    record = tmp_path / "game.pgn"
    os.symlink(victim, record)
    files.replace(str(record), b"new\n")
    assert victim.read_text() == "precious\n"
    assert not record.is_symlink() and record.read_bytes() == b"new\n"


def test_the_pairing_key_store_is_private_and_never_follows_a_link(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    path = str(tmp_path / "keys.json")
    _plant(path, str(victim))
    keys = KeyStore(path)
    keys.put("e66038b7133f5a2c", bytes(32), 3)
    assert victim.read_text() == "precious\n"
    assert keys.get("e66038b7133f5a2c") == (bytes(32), 3)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_a_folder_that_cannot_be_written_is_a_clear_error(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        if os.access(folder, os.W_OK):  # root writes anyway: make the folder a file's path
            target = str(tmp_path / "victim.txt" / "x.pgn")
            (tmp_path / "victim.txt").write_text("a file, not a folder")
        else:
            target = str(folder / "x.pgn")
        try:
            files.replace(target, b"x")
        except files.RecordFileError as e:
            assert "cannot write" in str(e)
        else:
            raise AssertionError("written where it cannot be")
    finally:
        folder.chmod(0o700)
