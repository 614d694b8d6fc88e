# SPDX-License-Identifier: GPL-3.0-or-later
"""The port lock (docs/arbiter.md: one program at a time owns a clock's port)
trusts nothing it did not make (#26 item 5): a link at the lock file's place
is refused, never followed (its target used to be overwritten with the pid
and command line), and so is a lock folder another user could write in."""

import fcntl
import os
import tty

import pytest

from qizhong.clocks.link import Link, LinkError, PortBusy, lock_path


@pytest.fixture
def pty(tmp_path, monkeypatch):
    """A serial port (a pty; nothing answers on it) and a private lock folder."""
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    (tmp_path / "run").mkdir(mode=0o700)
    master, slave = os.openpty()
    tty.setraw(slave)
    yield os.ttyname(slave)
    os.close(master)
    os.close(slave)


def test_the_lock_is_taken_and_names_its_owner(pty):
    link = Link(pty)
    with pytest.raises(PortBusy, match="in use by pid %d" % os.getpid()):
        Link(pty)
    link.close()
    Link(pty).close()


def test_a_link_at_the_lock_files_place_is_refused_and_its_target_kept(pty, tmp_path):
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious\n")
    os.symlink(victim, lock_path(pty))
    with pytest.raises(LinkError, match="is a link: refused"):
        Link(pty)
    assert victim.read_bytes() == b"precious\n"
    os.unlink(lock_path(pty))
    Link(pty).close()  # a plain lock file again: taken


def test_a_hard_link_at_the_lock_files_place_is_refused(pty, tmp_path):
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious\n")
    os.link(victim, lock_path(pty))
    with pytest.raises(LinkError, match="not a plain file of ours"):
        Link(pty)
    assert victim.read_bytes() == b"precious\n"


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o722], ids=oct)
def test_a_lock_folder_others_may_write_is_refused(pty, tmp_path, mode):
    folder = os.path.dirname(lock_path(pty))
    os.chmod(folder, mode)
    with pytest.raises(LinkError, match="may be written by others"):
        Link(pty)
    os.chmod(folder, mode | 0o1000)  # sticky: others cannot replace our files
    Link(pty).close()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give the folder away")
def test_a_lock_folder_of_another_user_is_refused(pty):
    folder = os.path.dirname(lock_path(pty))
    os.chown(folder, 65534, 65534)
    os.chmod(folder, 0o700)
    with pytest.raises(LinkError, match="belongs to user 65534"):
        Link(pty)


def test_the_servers_address_file_follows_no_link(pty, tmp_path):
    """``qizhong serve`` leaves its address beside the port locks
    (server/client.py ``register``): links planted at that file's place and
    at its old temporary name are replaced or left alone, never followed;
    the file is the server's own, mode 0600."""
    import json
    import stat

    from qizhong.server import client

    path = client.registry_path(os.getpid())
    victims = []
    for at in (path, path + ".tmp"):
        victim = tmp_path / ("victim%d" % len(victims))
        victim.write_bytes(b"precious\n")
        os.symlink(victim, at)
        victims.append(victim)
    try:
        assert client.register("http://127.0.0.1:8080/") == path
        assert [v.read_bytes() for v in victims] == [b"precious\n"] * 2
        st = os.lstat(path)
        assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600
        with open(path) as f:
            assert json.load(f) == {"url": "http://127.0.0.1:8080/", "pid": os.getpid()}
        os.unlink(path)
        os.symlink(victims[0], path)  # a link planted after it: not read through
        with pytest.raises(OSError):
            client._read_registry(path)
    finally:
        for at in (path, path + ".tmp"):
            if os.path.lexists(at):
                os.unlink(at)
    assert [n for n in os.listdir(os.path.dirname(path)) if n.endswith(".tmp")] == []


def _firmware_children() -> list[int]:
    """This process's children that run the firmware (MicroPython)."""
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/stat" % pid) as f:
                stat = f.read()
        except OSError:
            continue
        comm, rest = stat[stat.index("(") + 1 : stat.rindex(")")], stat[stat.rindex(")") + 2 :]
        state, ppid = rest.split()[:2]
        if int(ppid) == os.getpid() and "micropython" in comm and state != "Z":
            out.append(int(pid))
    return out


def test_a_simulator_whose_port_is_taken_leaves_no_firmware_running(tmp_path, monkeypatch):
    """A simulator whose pty another program holds says so (PortBusy) and
    stops the firmware it started: none is left running for nobody."""
    from qizhong.clocks.link import _open_lock
    from qizhong.sim.simulator import Sim

    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    (tmp_path / "run").mkdir(mode=0o700)
    master, slave = os.openpty()
    first = int(os.ttyname(slave).rsplit("/", 1)[1])
    os.close(master)
    os.close(slave)  # the next pty is most likely this number, or one just above
    held = []
    try:
        # From 0: another suite on the machine may free a lower number meanwhile (the
        # kernel gives the lowest free one). The locks live in this test's own run folder.
        for n in range(0, first + 64):
            fd = _open_lock(lock_path("/dev/pts/%d" % n))
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            held.append(fd)
        before = _firmware_children()
        with pytest.raises(PortBusy):
            Sim()
        assert _firmware_children() == before
    finally:
        for fd in held:
            os.close(fd)
