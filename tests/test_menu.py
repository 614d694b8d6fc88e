# SPDX-License-Identifier: GPL-3.0-or-later
"""#24: the setup menu (firmware/qizhong/menu.py, docs/menu.md). The scenarios
tests/scenarios/menu_*.scn drive every mode with the keys alone; here: its
rows never cut, every item reachable and undoable, other settings join it,
and the five user slots live through a power cut."""

import pytest

from qizhong.core import menu, tcspec
from qizhong.sim import Sim

ALL = [(g, i) for g in range(len(menu.GAMES)) for i in range(len(menu.PRESETS[g]))]


def _opened(game, preset):
    m = menu.Menu([""] * menu.SLOTS, game)
    m.pick(preset)
    return m


@pytest.mark.parametrize("game, preset", ALL)
def test_every_row_of_every_item_fits_16_characters_and_the_spec_is_valid(game, preset):
    m = _opened(game, preset)
    want = tcspec.format(tcspec.parse(menu.PRESETS[game][preset]))
    assert tcspec.format(tcspec.parse(m.d.spec())) == want  # the draft is the preset
    seen = 0
    while True:
        for display in (0, 1):
            rows = m.lines(display)
            assert 0 < len(rows) <= 7 and all(len(r) <= 16 for r in rows), rows
        label, value = m.current()
        assert ("> " + label) in "".join(m.lines(1))
        if value:
            assert value in "".join(m.lines(1))  # the value shown whole
        seen += 1
        if m.key(0, True):
            break
    assert seen >= 3


@pytest.mark.parametrize("game, preset", ALL)
def test_each_item_steps_up_and_back_to_where_it_was(game, preset):
    m = _opened(game, preset)
    for k in m.visible()[2:]:  # game and preset reload the draft
        m.i = k
        before = m.d.spec()
        m.key(1, False)
        m.key(-1, False)
        assert m.d.spec() == before, m.current()


def test_stage_one_increment_carries_to_the_stages_that_had_it():
    m = _opened(2, 0)  # chess fide: 40/90m+30s:30m+30s
    m.i = next(k for k in m.visible() if m.items[k].label(m) == "S1 inc")
    m.key(-1, False)
    assert m.d.spec() == "40/90m+29s:30m+29s"
    m.i = next(k for k in m.visible() if m.items[k].label(m) == "S2 inc")
    m.key(1, False)  # a stage being edited: that stage only
    assert m.d.spec() == "40/90m+29s:30m+30s"


def test_an_invalid_draft_is_refused_with_its_reason_and_the_menu_stays():
    m = _opened(0, 0)  # 15m+10s
    m.i = next(k for k in m.visible() if m.items[k].label(m) == "cap")
    m.d.cap = 60000  # below the base
    assert m.result() is None and "the cap is at least the base" in m.error
    assert m.lines(1)[0].startswith("! ")


def test_another_setting_joins_the_menu_before_save():
    m = _opened(0, 0)
    m.add(menu.Item("voice", lambda m: "zh", lambda m, d: None))
    labels = [m.items[k].label(m) for k in m.visible()]
    assert labels[-2:] == ["voice", "save"]


def test_the_game_decides_what_armageddon_gives():
    # TC-4 in Xiangqi cuts the first mover; TC-16 in chess gives White more.
    xq = tcspec.parse(menu.PRESETS[0][menu.PRESETS[0].index("armageddon")])
    ch = tcspec.parse(menu.PRESETS[2][menu.PRESETS[2].index("armageddon-chess")])
    assert xq.base_for(0) < xq.base_for(1) and ch.base_for(0) > ch.base_for(1)


def test_a_user_slot_is_kept_in_flash_across_a_power_cut(tmp_path):
    def keys(sim, t, seq):
        for k in seq:
            t += 100
            sim.key(k, t)
        return t

    with Sim(flash=str(tmp_path / "f.img")) as sim:
        # xiangqi xq-blitz (5m+5s), base 5m -> 4m, saved in slot 2, applied.
        seq = ["menu", "ok"] + ["plus"] * 4 + ["ok", "ok", "ok", "minus"]
        t = keys(sim, 0, seq)
        m = menu.Menu([""] * 5)  # how many oks from base to save: the menu's own count
        m.pick(4)
        m.i = next(k for k in m.visible() if m.items[k].label(m) == "base")
        to_save = len([k for k in m.visible() if k > m.i]) - 1
        t = keys(sim, t, ["ok"] * (to_save + 1) + ["plus", "plus", "start"])
        assert sim.command("tc") == "ok tc 4m+5s"
        sim.power_cut()
        sim.command("config 30m")
        # Slot 2 is the second entry after xiangqi's 13 presets.
        t = keys(sim, 0, ["menu", "ok"] + ["plus"] * (len(menu.PRESETS[0]) + 1) + ["start"])
        assert sim.command("tc") == "ok tc 4m+5s"


def test_a_slots_file_is_read_and_a_bad_line_is_an_empty_slot(tmp_path):
    (tmp_path / "slots").write_text("15m+10s\n90+30\n\nfide\n" + "x" * 300 + "\n")
    assert menu.load_slots(str(tmp_path)) == ["15m+10s", "", "", "40/90m+30s:30m+30s", ""]
    assert menu.load_slots("") == [""] * 5


def _play_then_menu(sim, t=0):
    sim.command("config 1m+1s")
    sim.key("start", t)
    for i in range(20):
        sim.press(i % 2, t + 1000 * (i + 1))
    sim.run_to(t + 200000)  # a flag: the menu may open
    sim.key("menu", t + 200100)
    sim.key("plus", t + 200200)  # the next game
    sim.key("start", t + 200300)
    return sim.command("tc")


@pytest.mark.parametrize("path_len", [30, 57, 84])
def test_the_menu_opens_from_source_after_each_game(path_len):
    # Before: from source the menu compiled as one module and found no room after a
    # game below 280k. Now its small modules compile one at a time on a collected heap
    # and go again when it closes (qizhong/menuload.py), so in the README's two heaps
    # it opens after every game wherever the firmware is installed
    # (benchmarks/firmware.py scans heaps and install paths).
    import os
    import shutil
    import tempfile

    from test_heap_boot import readme_heap_k

    from conftest import ROOT

    with tempfile.TemporaryDirectory(prefix="q", dir="/tmp") as base:  # a short path
        pad = "p" * (path_len - len(base) - len("/p/firmware") + 1)
        fw = os.path.join(base, pad, "firmware")
        assert len(fw) == path_len
        shutil.copytree(os.path.join(ROOT, "firmware"), fw,
                        ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
        _menu_after_games(fw, os.path.join(base, "f.img"), readme_heap_k())
        _menu_after_games(fw, os.path.join(base, "g.img"), readme_heap_k() + 8)


def _menu_after_games(fw, flash, heap_k):
    heap = ("-X", "heapsize=%dk" % heap_k)
    with Sim(firmware=fw, flash=flash, options=heap) as sim:
        for n, want in enumerate(("60m byoyomi 3x60s", "40/90m+30s:30m+30s")):
            t = 300000 * n
            assert _play_then_menu(sim, t) == "ok tc " + want  # go, then chess: plus each time
            assert sim.status()["state"] == "idle"


def test_the_menu_uses_the_apps_key_and_event_numbers():
    from qizhong.core import app

    assert (app.KEY_START, app.KEY_PLUS, app.KEY_MINUS, app.KEY_OK) == (1, 3, 4, 5)
    assert (app.EV_CONFIG, app.MENU_OFF) == (18, 0)


@pytest.mark.parametrize("choice, word", [(1, "freeze"), (2, "run")])
def test_the_flag_behaviour_is_set_in_the_menu_and_played(choice, word):
    # Arbiters choose what a flag does (docs/timecontrol.md `flag freeze|run`; the
    # flag itself stays fallen, TC-8): both clocks stop (FIDE), or play goes on.
    m = menu.Menu([""] * 5)
    flag = next(k for k in m.visible() if m.items[k].label(m) == "flag")
    oks = len([k for k in m.visible() if 0 < k <= flag])
    with Sim() as sim:
        sim.command("config 1m")  # plain sudden death: by default play goes on
        t = 0
        for key in ["menu"] + ["ok"] * oks + ["plus"] * choice + ["start"]:
            t += 100
            sim.key(key, t)
        assert sim.command("tc") == "ok tc 15m+10s flag " + word  # the first preset, its flag
        sim.key("start", 10000)
        sim.run_to(10000 + 900000 + 1000)  # Red flags at 15 min
        sim.press(0, 912000)  # Red moves on
        sim.run_to(922000)
        st = sim.status()
        assert st["first_flag"] == 0 and st["left0"] == 0  # the flag stays fallen
        assert st["left1"] == (900000 if word == "freeze" else 890000)
        assert " freeze=%d" % (word == "freeze") in sim.command("status")  # the host sees it
