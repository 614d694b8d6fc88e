# SPDX-License-Identifier: GPL-3.0-or-later
"""The test jig (issue #7): its firmware on the unix port, wired to the simulated clock.

The jig firmware (jig/) presses the clock's levers and keys through its
optocoupler outputs and hears the buzzer's PWM edges and the amplifier's
samples through its simulated pin layer (jig/boards/sim.py). Scenario files
run through it with the jig's own observations (``beep``, ``cue``): a cue is
named by the jig's matcher from the samples, never passed through.
"""

import os
import shutil

import pytest

from conftest import ROOT
from qizhong.core import voice
from qizhong.sim import audio, jig, scenario

SCENARIOS = os.path.join(ROOT, "tests", "scenarios")
# Levers, chatter, keys, the tilt switch, the buzzer, and spoken cues.
FILES = [
    "eq1_lever_map.scn",
    "bounce.scn",
    "eq5_knock_plus.scn",
    "tc8_flag_beep.scn",
    "tc8_two_flags_beep.scn",
    "tc5_count_cues.scn",
    "tc6a_readings.scn",
    "setup_menu.scn",
]


@pytest.mark.parametrize("name", FILES)
def test_scenario_through_the_jig(name):
    res = jig.run_file(os.path.join(SCENARIOS, name))
    assert res.failures == [], "\n".join(res.failures)
    assert res.checked > 0


def test_the_jig_names_every_cue_it_hears_and_stamps_it_at_its_start():
    with jig.Jig.simulated() as j:
        assert j.command("override 1m byoyomi 2x30s").startswith("ok")
        j.key("start", 0)
        j.run_to(100000)
        j.status()
        told = [(e[2], e[3]) for e in j.events if e[0] == "cue"]
    assert len(j.cues) >= 10
    assert j.cues == told  # the clock's own event log says the same cues at the same times


def test_a_wrong_expectation_fails_through_the_jig():
    steps = scenario.parse("config 5m\nat 0 key start\nexpect beep 1000 on\n")
    with jig.Jig.simulated() as j:
        res = scenario.run(steps, j)
    assert res.failures and "beep on at 1000: missing" in res.failures[0]


def test_a_cue_whose_samples_differ_is_not_recognised(tmp_path):
    # The jig names cues from what it hears: change one sample of "1" on the
    # clock's speaker and the jig no longer hears "1".
    fw = tmp_path / "firmware"
    shutil.copytree(os.path.join(ROOT, "firmware"), fw)
    bank = fw / "assets" / "voice" / "cmn" / voice.BANK
    data = bytearray(bank.read_bytes())
    at = int.from_bytes(data[voice.BANK_HEAD : voice.BANK_HEAD + 4], "little")  # n1's bytes
    data[at + 200] ^= 0x40
    bank.write_bytes(bytes(data))
    steps = scenario.parse(
        "config 1m count 10s\nat 0 key start\nexpect cue 61000 1\nexpect cue 62000 2\n"
    )
    with jig.Jig.simulated(firmware=str(fw)) as j:
        res = scenario.run(steps, j)
    assert len(res.failures) == 1 and "cue 1 at 61000: missing" in res.failures[0]


def test_bad_lines_get_an_error_and_the_jig_goes_on():
    with jig.Jig.simulated() as j:
        for line in ("lever 2 down 10", "key jump 10", "frame", "hop 5"):
            with pytest.raises(jig.JigError, match="bad line"):
                j._send(line)
        assert j.at(500) == j.deadline
        assert j.now == 500


def test_the_cue_table_is_current_and_every_cue_is_told_apart():
    table = jig.cue_table(jig.voice_dir())
    with open(jig.cues_path(), encoding="utf-8") as f:
        assert f.read() == jig.render_cues(table)
    recorded = [
        c
        for lang in voice.LANGS
        for c in audio.read_bank(jig.voice_dir() + "/%s/%s" % (lang, voice.BANK))
        if c
    ]
    assert len(table) == len(recorded)  # every recorded cue, told apart


def test_two_cues_that_sound_alike_are_refused(tmp_path):
    folder = tmp_path / "voice"
    shutil.copytree(jig.voice_dir(), folder)
    bank = folder / "ko" / voice.BANK
    data = bytearray(bank.read_bytes())
    slot = voice.BANK_HEAD + 8 * 2  # n3 gets n2's bytes
    data[slot : slot + 8] = data[slot - 8 : slot]
    bank.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"ko/n3 sounds like cue 2"):
        jig.cue_table(str(folder))
