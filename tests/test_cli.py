# SPDX-License-Identifier: GPL-3.0-or-later
"""The `qizhong` command: presets, spec checking, exit codes."""

import subprocess
import sys

import pytest

from qizhong import cli
from qizhong.core import tcspec


def test_presets_lists_every_preset(capsys):
    assert cli.main(["presets"]) == 0
    out = capsys.readouterr().out
    for name, spec in tcspec.PRESETS.items():
        assert name in out and spec in out


def test_tc_explains_a_spec(capsys):
    assert cli.main(["tc", "40/90m+30s:30m+30s"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "40/90m+30s:30m+30s"
    assert "  Stage 1: 40 moves in 90m, +30s after every move" in out
    assert "  PGN TimeControl: 40/5400+30:1800+30" in out


def test_tc_explains_go_overtime(capsys):
    assert cli.main(["tc", "go-byoyomi"]) == 0
    out = capsys.readouterr().out
    assert "3 periods of 60s" in out and "SGF: TM[3600] OT[3x60 byo-yomi]" in out


def test_tc_explains_the_count_and_handicap(capsys):
    assert cli.main(["tc", "20m count 10s red -40%"]) == 0
    out = capsys.readouterr().out
    assert "the flag falls at 10s500ms (TC-5)" in out
    assert "Red starts with 12m (TC-4)" in out


def test_bad_spec_exits_2_with_a_pointer(capsys):
    assert cli.main(["tc", "10m byoyomi 3/60s"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "qizhong: bad time control: expected 'x', as in byoyomi 3x60s"
    assert err[1:] == ["10m byoyomi 3/60s", " " * 13 + "^"]


def test_unknown_command_exits_2():
    with pytest.raises(SystemExit) as e:
        cli.main(["frobnicate"])
    assert e.value.code == 2


def test_console_script_runs():
    r = subprocess.run(
        [sys.executable, "-m", "qizhong.cli", "--version"], capture_output=True, text=True
    )
    assert r.returncode == 0 and r.stdout.startswith("qizhong 0.")


def test_every_documented_command_is_registered():
    from qizhong import cli

    sub = next(a for a in cli.build_parser()._actions if a.dest == "command")
    for name in (
        "presets", "tc", "sim", "ports", "config", "start", "pause", "resume", "penalty",
        "knock", "set", "status", "events", "flash", "arbiter", "calibrate", "pair",
    ):  # fmt: skip
        assert name in sub.choices, name
