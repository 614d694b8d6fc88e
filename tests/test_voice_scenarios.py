# SPDX-License-Identifier: GPL-3.0-or-later
"""The count in every language and style (docs/voice.md), through the real
firmware on the simulated board, in virtual time: a Xiangqi count (TC-5), a
byo-yomi game with three 60 s periods (TC-6, TC-6a) and a Canadian block
(TC-7). The expected cues are written out here from docs/voice.md's tables,
not computed by the firmware's own voice.py. Also: the setting through the
protocol, the CLI, the setup menu and a power cut."""

import pytest
from test_cli_day import run_cli

from conftest import ROOT  # noqa: F401  (puts host/ on the path)
from qizhong.clocks.driver import Clock
from qizhong.core.voice import FLAG, LEFT, MIN1, PER, SEC
from qizhong.sim import Sim

LANGS = ("cmn", "yue", "ja", "ko", "en")
# docs/voice.md, byo-yomi counting up: Mandarin, Cantonese, Japanese and
# English read 55 and 58 s and "1分" in a period that is not the last; Korean
# counts 1..9 in every period.
READS_55_58 = {"cmn": True, "yue": True, "en": True, "ja": True, "ko": False}


def left_cue(lang, left):
    """The phrase at the end of a 60 s period, ``left`` periods left after it:
    还剩 k 分 (this minute included); Japanese and English the minutes in
    reserve beyond the one starting (のこりあと x ふんです, x minutes left) or,
    with none, the last period's word; Korean k회 남음 / 마지막 초읽기."""
    if lang in ("cmn", "yue"):
        return LEFT + left
    if lang == "ko" or left == 1:
        return PER + left
    return LEFT + left - 1


def _digits(t0, first, last, step):
    """Digits ``first``..``last`` (step +-1), one a second from ``t0``."""
    return [(t0 + 1000 * i, d) for i, d in enumerate(range(first, last + step, step))]


def count_cues(style):
    """TC-5, 10 s count, zero base: red thinks 4.5 s, black 1.2 s, then red runs out."""
    if style == "up":  # "1".."10" at each whole second of the move
        return [*_digits(1000, 1, 4, 1), (5500, 1), *_digits(6700, 1, 10, 1)]
    return [*_digits(1000, 9, 6, -1), (5500, 9), *_digits(6700, 9, 1, -1)]  # "9".."1"


def byoyomi_cues(lang, style):
    """Three 60 s periods, zero base, nobody moves: two periods used, the last runs out."""
    out = []
    for p, left in ((0, 2), (1, 1), (2, 0)):
        t0 = 60000 * p
        last = left == 0
        if style == "down":  # 30 s left, 20 s left, 10 .. 1, then periods left or time up
            out += [(t0 + 30000, SEC + 30), (t0 + 40000, SEC + 20)]
            out += _digits(t0 + 50000, 10, 1, -1)
            out.append((t0 + 60000, FLAG if last else left_cue(lang, left)))
            continue
        out += [(t0 + 30000, SEC + 30), (t0 + 40000, SEC + 40), (t0 + 50000, SEC + 50)]
        if not last and READS_55_58[lang]:
            out += [(t0 + 55000, SEC + 55), (t0 + 58000, SEC + 58)]
            out += [(t0 + 60000, MIN1), (t0 + 60000, left_cue(lang, left))]
        else:
            out += _digits(t0 + 51000, 1, 9, 1)
            out.append((t0 + 60000, 10 if last else left_cue(lang, left)))
    return out


def canadian_cues(style):
    """3 moves in 30 s, zero base: red moves at 5 s (25 s left), black at 6 s,
    then red's block runs out at 31 s."""
    if style == "up":  # "1" at 9 s left .. "9" at 1 s left, "10" as it runs out
        return _digits(22000, 1, 10, 1)
    return [(11000, SEC + 20), *_digits(21000, 10, 1, -1), (31000, FLAG)]


def play(sim, t0, spec, presses, end):
    """Configure ``spec`` at ``t0``, start it, press the levers at ``t0 +``
    ``presses``, run to ``t0 + end``; the cues meanwhile, timed from ``t0``."""
    sim.run_to(t0)
    assert sim.command("config " + spec).startswith("ok")
    sim.key("start", t0)
    for lever, t in presses:
        sim.press(lever, t0 + t)
    sim.run_to(t0 + end)
    return [(t - t0, cue) for t, cue in sim.cues if t >= t0]


@pytest.mark.parametrize("style", ["up", "down"])
@pytest.mark.parametrize("lang", LANGS)
def test_the_count_in_each_language_and_style(lang, style):
    with Sim() as sim:
        assert sim.command("voice %s %s" % (lang, style)) == "ok voice %s %s" % (lang, style)
        got = play(sim, 1000, "0 count 10s", [(0, 4500), (1, 5700)], 20000)
        assert got == count_cues(style)
        assert sim.status()["state"] == "flagged"
        got = play(sim, 30000, "0 byoyomi 3x60s", [], 185000)
        assert got == byoyomi_cues(lang, style)
        got = play(sim, 230000, "0 canadian 3/30s", [(0, 5000), (1, 6000)], 40000)
        assert got == canadian_cues(style)
        assert sim.status()["state"] == "flagged"
        assert sim.voices == [(0, lang)]  # the board was told once, before the games


def test_the_expectations_differ_where_the_conventions_do():
    # The table above is not one list for all: up and down, and the two
    # families of byo-yomi readings, each give other cues.
    assert count_cues("up") != count_cues("down")
    assert byoyomi_cues("cmn", "up") != byoyomi_cues("ja", "up")  # the phrase at 60 s
    assert byoyomi_cues("ja", "up") != byoyomi_cues("ko", "up")  # Korean counts every period
    assert byoyomi_cues("ja", "down") == byoyomi_cues("en", "down")
    assert canadian_cues("up") != canadian_cues("down")


def test_the_voice_is_refused_in_play_and_for_unknown_words():
    with Sim() as sim:
        assert sim.command("voice fr").startswith("err args voice cmn|yue|ja|ko|en|up|down")
        for bad in ("ja up down", "ja en", "up down"):
            assert sim.command("voice " + bad).startswith("err args voice [cmn|"), bad
        assert sim.command("voice down ja") == "ok voice ja down"  # either order
        assert sim.command("voice cmn up") == "ok voice cmn up"
        assert sim.command("config 5m").startswith("ok")
        sim.key("start", 100)
        sim.run_to(200)
        assert sim.command("voice ja").startswith("err state the voice changes between games")
        assert sim.command("voice") == "ok voice cmn up"  # a query: allowed in play


def test_the_voice_survives_a_power_cut(tmp_path):
    with Sim(flash=str(tmp_path / "f.img")) as sim:
        assert sim.command("voice ko down") == "ok voice ko down"
        assert sim.command("config 0 count 10s").startswith("ok")
        sim.run_to(500)
        sim.power_cut()
        assert sim.command("voice") == "ok voice ko down"
        sim.key("start", 1000)
        sim.run_to(3500)
        assert [c for t, c in sim.cues if t >= 1000] == [9, 8]  # the count down, restored
        assert sim.voices[-1][1] == "ko"  # the board speaks Korean after the restart


def test_the_setup_menu_picks_the_voice():
    with Sim() as sim:
        sim.key("plus", 100)  # an idle clock: plus opens the voice menu
        sim.run_to(200)
        sim.frame()
        assert [t for _x, _y, t in sim.texts[0]] == ["VOICE", "cmn", "count up"]
        assert [t for _x, _y, t in sim.texts[1]] == ["now cmn", "up", "+/- ok"]
        # The ten choices in order: cmn up, cmn down, yue up, yue down, ja up ...
        for i, key in enumerate(("plus", "plus", "plus", "plus", "minus", "ok")):
            sim.key(key, 300 + 100 * i)
        sim.run_to(1000)
        assert sim.command("voice") == "ok voice yue down"
        sim.key("minus", 1050)  # opens the menu at the voice in use
        sim.key("plus", 1100)
        sim.run_to(1150)
        sim.frame()
        assert [t for _x, _y, t in sim.texts[0]] == ["VOICE", "ja", "count up"]
        assert [t for _x, _y, t in sim.texts[1]] == ["now yue", "down", "+/- ok"]
        sim.key("menu", 1200)  # leaves, nothing changed
        sim.run_to(1300)
        assert sim.command("voice") == "ok voice yue down"


def test_the_cli_sets_the_voice_with_config_or_by_itself():
    with Sim(open_link=False) as sim:
        port = ["--port", sim.serial_path]
        code, out, err = run_cli("config", "go-byoyomi", "--voice", "ja", "--count", "down", *port)
        assert code == 0, err
        assert "voice: ja, counting down" in out
        code, out, _ = run_cli("voice", "en", *port)
        assert (code, out) == (0, "voice: en, counting down\n")
        code, _, err = run_cli("voice", "en", "ja", *port)
        assert code == 2 and "one language, one style, or both" in err
        code, out, _ = run_cli("status", *port)
        assert "voice: en, counting down, volume 10" in out
        with Clock(sim.serial_path) as c:
            assert c.voice() == ("en", "down")
