# SPDX-License-Identifier: GPL-3.0-or-later
"""Attacks on docs/security.md and docs/protocol.md ("Ranges") from a hostile
laptop: every verb at and beyond its limits, on the real firmware (the unix
port) in virtual time. What held is listed in the attack report; what broke
is tested here."""

import pytest

from qizhong.sim import Sim


@pytest.mark.parametrize(
    "line, usage",
    [("knock", "knock SIDE"), ("levers", "levers red|black [override]")],
)
def test_a_verb_without_its_side_gets_its_usage_not_a_python_message(line, usage):
    """docs/protocol.md: `args` (missing or malformed arguments). `knock` and
    `levers` with no side answered `err args list index out of range`, a
    Python IndexError's text, instead of the command's usage."""
    with Sim() as sim:
        sim.command("config 10m")
        sim.press(1, 1000)
        sim.run_to(2000)
        before = sim.status()
        got = sim.command(line)
        assert got == "err args %s" % usage, got
        after = sim.status()
        assert {k: v for k, v in after.items() if k != "t"} == {
            k: v for k, v in before.items() if k != "t"
        }
