# SPDX-License-Identifier: GPL-3.0-or-later
"""Every command in README.md and docs/*.md runs as written.

The shell commands are read from the pages' code blocks (``sh`` blocks, and
``$ `` lines in plain blocks, whose output is shown below them and checked).
Each page's commands run in order, as a reader would type them, with
``.venv/bin`` on the PATH, against one simulated clock per page in virtual
time (headless, on its pty; `/dev/ttyACM0` in a command stands for the
clock's port and is replaced by that pty). Commands that cannot run here are
in ``SKIP`` with the reason. The rules reference (docs/rules.md) explains
every rule ID the project cites, and the pages link nothing outside the
repository.
"""

from __future__ import annotations

import glob
import os
import re
import select
import signal
import subprocess
import sys
import time

import pytest

from qizhong.sim import Sim

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.dirname(sys.executable)
PAGES = ["README.md", *sorted(os.path.relpath(p, ROOT) for p in glob.glob(ROOT + "/docs/*.md"))]
PORT = "/dev/ttyACM0"  # the port the pages name: here, the simulated clock's pty
TIMEOUT_S = 120.0  # a bound on one command, never a sleep

# Commands that cannot run here, by their start, and why.
SKIP = {
    "make sim": "interactive: tests/test_term.py runs it under a pty at 80x24",
    "make test": "this test runs inside it",
    ".venv/bin/qizhong serve --port": "two clocks on USB (tests/test_server.py: simulated ones)",
    ".venv/bin/qizhong serve --mqtt": "a broker on another laptop (tests/test_mqtt.py: loopback)",
    "sudo mosquitto_passwd": "writes the broker's /etc/mosquitto, asking for a password "
    "(tests/test_mqtt.py makes its own file with mosquitto_passwd)",
    "curl -s http://127.0.0.1:8080/live.pgn": "a server running (tests/test_server.py reads it)",
    "curl -s http://127.0.0.1:8080/api/boards/1/session": "a server running "
    "(tests/test_hall_session.py reads it)",
    ".venv/bin/python benchmarks/hall.py": "a benchmark of minutes (make bench runs it)",
    ".venv/bin/python benchmarks/hall_network.py": "a benchmark of minutes (make bench runs it)",
    ".venv/bin/python benchmarks/energy.py": "four game days (make bench runs it; "
    "tests/test_energy.py holds the goal)",
    ".venv/bin/python tools/segment_drawing.py": "rewrites the committed drawing "
    "(tests/test_segface.py checks it is the layout's)",
    ".venv/bin/python benchmarks/feed.py": "a benchmark of minutes (make bench runs it)",
    ".venv/bin/python benchmarks/hall_scale.py": "a benchmark of minutes (make bench runs it)",
    ".venv/bin/python benchmarks/lost_ports.py": "a benchmark of a minute (make bench runs it)",
    "make hall": "a server that runs until stopped (tests/test_server.py runs qizhong serve --sim)",
    "make flash": "needs a Pico on a USB port (tests/test_bundle.py builds the bundle)",
    "qizhong calibrate --seconds 600": "ten minutes of real time (tests/test_cli.py: calibrate)",
    "qizhong sim run tests/scenarios/tc1_rapid.scn --jig": "needs the test jig and a real clock",
    "qizhong sim run tests/scenarios/*.scn": "every scenario file, about 15 s of CPU run twice: "
    "tests/test_scenarios.py runs each through the same scenario.run_file, and "
    "tests/test_attack_cli.py runs `qizhong sim run FILE...` itself",
    "qizhong sim --headless --spec go-byoyomi &": "its output as an example (the session runs it)",
    "qizhong sim press": "a running headless sim's world (tests/test_sim_cli.py drives it)",
    "qizhong sim tilt": "a running headless sim's world (tests/test_sim_cli.py drives it)",
    "qizhong sim key": "a running headless sim's world (tests/test_sim_cli.py drives it)",
    "qizhong sim png": "a running headless sim's world (tests/test_sim_cli.py drives it)",
    "qizhong sim port": "a running headless sim's world (tests/test_sim_cli.py drives it)",
    "qizhong sim stop": "a running headless sim's world (tests/test_sim_cli.py drives it)",
}
SESSION = "# a session\n"  # marks a whole block run as one script
# Commands that run until stopped: their first output, then Ctrl-C.
UNTIL_STOPPED = ("qizhong serve", "qizhong sim --headless", "qizhong status --watch", "--follow")
# Commands that need a terminal: run on a pty, quit with q.
ON_A_TERMINAL = ("qizhong demo",)
# Commands that need no clock and the same on every page: run once.
ONCE: tuple[str, ...] = ()
_done: set[str] = set()
# Commands that read lines (the arbiter's console): given these.
STDIN = {"qizhong arbiter": "quit\n"}


def commands(page: str) -> list[tuple[int, str, str | None]]:
    """``(line, command, shown output or None)`` for each command on ``page``."""
    text = open(os.path.join(ROOT, page), encoding="utf-8").read()
    out: list[tuple[int, str, str | None]] = []
    for m in re.finditer(r"^ *```(\w*)\n(.*?)^ *```", text, re.S | re.M):
        lang, body = m.group(1), m.group(2)
        first = text.count("\n", 0, m.start()) + 2
        lines = body.split("\n")
        if lang in ("sh", "bash", "shell") and re.search(r"&\s*(#.*)?$", body, re.M):
            # A shell session with a job in the background: one script, run whole.
            out.append((first, SESSION + body, None))
        elif lang in ("sh", "bash", "shell"):
            pending = ""
            for i, line in enumerate(lines):
                line = re.split(r"(?:^|\s)#\s", line.strip(), maxsplit=1)[0].strip()
                if line.endswith("\\"):
                    pending += line[:-1] + " "
                    continue
                line = pending + line
                pending = ""
                if line:
                    out.append((first + i, line, None))
        elif lang == "":
            i = 0
            while i < len(lines):
                if lines[i].startswith("$ "):
                    j = i + 1
                    while j < len(lines) and not lines[j].startswith("$ "):
                        j += 1
                    shown = "\n".join(lines[i + 1 : j]).strip("\n")
                    out.append((first + i, lines[i][2:], shown))
                    i = j
                else:
                    i += 1
    return out


def skipped(cmd: str) -> str | None:
    return next((why for start, why in SKIP.items() if cmd.startswith(start)), None)


def run(cmd: str, env: dict[str, str], cwd: str) -> tuple[int, str]:
    """Run ``cmd`` in bash as a reader would; its exit code and output."""
    if cmd.startswith(SESSION):
        res = subprocess.run(["bash", "-e", "-c", cmd], capture_output=True, text=True,
                             stdin=subprocess.DEVNULL, env=env, cwd=cwd,
                             timeout=TIMEOUT_S)  # fmt: skip
        return res.returncode, res.stdout + res.stderr
    if cmd.startswith(ON_A_TERMINAL):
        return _on_a_pty(cmd, env, cwd)
    stdin = next((text for start, text in STDIN.items() if cmd.startswith(start)), "")
    if any(mark in cmd for mark in UNTIL_STOPPED):
        proc = subprocess.Popen(
            ["bash", "-c", "exec " + cmd],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=cwd,
        )
        assert proc.stdout is not None
        r, _, _ = select.select([proc.stdout], [], [], TIMEOUT_S)
        first = os.read(proc.stdout.fileno(), 65536).decode(errors="replace") if r else ""
        proc.send_signal(signal.SIGINT)
        rest, _ = proc.communicate(timeout=TIMEOUT_S)
        code = proc.returncode
        return (0 if code in (-signal.SIGINT, 130) and first else code or 0), first + rest.decode()
    res = subprocess.run(
        ["bash", "-c", cmd],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=TIMEOUT_S,
    )
    return res.returncode, res.stdout + res.stderr


def _on_a_pty(cmd: str, env: dict[str, str], cwd: str) -> tuple[int, str]:
    master, slave = os.openpty()
    proc = subprocess.Popen(
        ["bash", "-c", "exec " + cmd], stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd
    )
    os.close(slave)
    out = b""
    end = time.monotonic() + TIMEOUT_S
    while b"qizhong" not in out and time.monotonic() < end:  # the first screen
        r, _, _ = select.select([master], [], [], max(0.0, end - time.monotonic()))
        if r:
            out += os.read(master, 65536)
    os.write(master, b"q")
    code = proc.wait(timeout=TIMEOUT_S)
    try:
        while select.select([master], [], [], 0)[0]:
            out += os.read(master, 65536)
    except OSError:
        pass
    os.close(master)
    return code, out.decode(errors="replace")


@pytest.mark.parametrize("page", [p for p in PAGES if commands(p)])
def test_every_command_on_the_page_runs_as_written(page, tmp_path):
    cmds = commands(page)
    os.symlink(os.path.join(ROOT, "tests"), tmp_path / "tests")  # the pages' relative paths
    os.symlink(os.path.join(ROOT, ".venv"), tmp_path / ".venv")
    with Sim(open_link=False) as sim:  # the page's clock, in virtual time
        env = dict(os.environ, QIZHONG_PORT=sim.serial_path)
        env["PATH"] = BIN + os.pathsep + env.get("PATH", "")
        ran = 0
        for line, cmd, shown in cmds:
            why = skipped(cmd)
            if why:
                continue
            if cmd.startswith(". .venv/bin/activate"):  # what it does: qizhong on the PATH
                assert os.path.exists(os.path.join(ROOT, ".venv/bin/activate"))
                continue
            if cmd in ONCE and cmd in _done:
                continue
            if cmd.startswith("qizhong knock"):  # "after a tilt": the clock is tipped over
                sim.tilt(sim.now + 1000)
            code, out = run(cmd.replace(PORT, sim.serial_path), env, str(tmp_path))
            where = "%s:%d: %s" % (page, line, cmd)
            if shown is not None:  # the page shows what it prints
                assert out.strip("\n") == shown, "%s prints\n%s" % (where, out)
            else:
                assert code == 0, "%s exits %d:\n%s" % (where, code, out)
            ran += 1
            _done.add(cmd)
    assert ran or all(skipped(c) for _, c, _ in cmds)


def test_the_command_reader_finds_what_the_pages_show():
    readme = [c for _, c, _ in commands("README.md")]
    assert readme[:2] == ["make sim", "make test"]
    assert "qizhong sim run tests/scenarios/*.scn" in readme  # the comment is cut
    arbiter = [c for _, c, _ in commands("docs/arbiter.md")]
    assert arbiter[0].endswith('--event "全国快棋赛" --round 3')  # a continued line
    shown = [(c, s) for _, c, s in commands("docs/timecontrol.md") if s is not None]
    assert (
        'qizhong tc "10m+5s delay 3s"',
        "qizhong: bad time control: an increment cannot be combined with delay\n10m+5s delay 3s\n^",
    ) in shown
    assert skipped("make flash PORT=/dev/ttyACM0") and not skipped("qizhong ports")
    assert [c for _, c, _ in commands("docs/hardware-build.md")] == ["make flash PORT=/dev/ttyACM0"]


RULE_ID = re.compile(r"\b(?:TC-\d+[ab]?|EQ-\d+|GO-\d+|CH-\d+|XQ-R\d+)\b")


def test_every_rule_id_the_project_cites_is_in_docs_rules():
    rules = open(os.path.join(ROOT, "docs/rules.md"), encoding="utf-8").read()
    explained = set(re.findall(r"^\| ((?:TC|EQ|GO|CH|XQ-R)[-\w]*) \|", rules, re.M))
    cited: dict[str, str] = {}
    for folder in ("firmware", "host", "tests", "docs"):
        for path in glob.glob(os.path.join(ROOT, folder, "**", "*.*"), recursive=True):
            if path.endswith((".py", ".md", ".scn")) and "/.venv/" not in path:
                for rid in RULE_ID.findall(open(path, encoding="utf-8").read()):
                    cited.setdefault(rid, os.path.relpath(path, ROOT))
    missing = {rid: where for rid, where in cited.items() if rid not in explained}
    assert not missing, "rule IDs cited but not in docs/rules.md: %s" % missing
    assert len(explained) >= 40  # TC, EQ, XQ-R, GO and CH, each with its source column
    assert "## Xiangqi notation (NT)" in rules


def test_no_page_links_outside_the_repository():
    for page in PAGES:
        text = open(os.path.join(ROOT, page), encoding="utf-8").read()
        assert "../shared" not in text and "RULES.md" not in text, page


def test_a_refusal_citing_a_rule_points_to_docs_rules(tmp_path):
    with Sim(open_link=False) as sim:
        env = dict(os.environ, QIZHONG_PORT=sim.serial_path)
        env["PATH"] = BIN + os.pathsep + env.get("PATH", "")
        assert run("qizhong config 15m+10s && qizhong start", env, str(tmp_path))[0] == 0
        for i in range(6):  # three moves each: the settings are locked (EQ-6)
            sim.press(i % 2, sim.now + 1000)
        sim.run_to(sim.now + 1000)
        code, out = run("qizhong config 5m+3s", env, str(tmp_path))
    assert code == 3
    assert "(EQ-6)" in out and "(see docs/rules.md)" in out
