# SPDX-License-Identifier: GPL-3.0-or-later
"""The speaker's output of a Xiangqi count (TC-5), from the real firmware, as a WAV."""

import wave

from qizhong.sim import Sim, audio


def test_count_cue_onsets_are_within_20_ms_of_their_seconds(tmp_path):
    with Sim() as sim:
        assert sim.command("config 1m count 10s").startswith("ok")
        sim.key("start", 0)
        sim.run_to(70400)  # main time ends at 60 s; the count runs 61..70 s
        cues = list(sim.cues)
    assert [c for _, c in cues] == list(range(1, 11))
    samples = audio.render(cues, until_ms=72000)
    path = tmp_path / "count.wav"
    audio.write_wav(str(path), samples)
    with wave.open(str(path)) as w:
        assert (w.getframerate(), w.getsampwidth(), w.getnchannels()) == (8000, 2, 1)
        assert w.getnframes() == 72000 * 8
    heard = audio.onsets(samples, threshold=400)  # -38 dBFS: "三" starts with a soft s
    assert len(heard) == 10
    for k, onset in enumerate(heard, 1):
        assert abs(onset - (60000 + 1000 * k)) <= 20, (k, onset)


def test_onset_detector_finds_a_late_cue():
    # The check must be able to fail: a cue placed 50 ms late is heard late.
    samples = audio.render([(1000, 1), (2050, 2)], until_ms=3000)
    heard = audio.onsets(samples)
    assert len(heard) == 2
    assert abs(heard[0] - 1000) <= 20 and abs(heard[1] - 2050) <= 20
    assert abs(heard[1] - 2000) > 20
