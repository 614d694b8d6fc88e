# SPDX-License-Identifier: GPL-3.0-or-later
"""#31 build 4: the clock's keys. Common setups take no more key presses on
the clock alone than on a DGT 3000, counted here on the real firmware in the
simulator (each press a key going down: a tap or a hold, as on the DGT,
whose + and - repeat when held "longer than 1 second"). Hold-to-repeat runs
in virtual time; the key lock is set from the keys and from the host.

The DGT 3000's counts are lower bounds, from its manual (DGT 3000 user
manual v1.0, July 2014, and its draft v0.1):
- none of these four setups is one of its pre-programmed options (option 10
  is Fischer 3 min + 2 s, option 11 25 min + 10 s, options 01-05 sudden death
  of 5 min to 2 h); they take a manual option, 26 to 30: at least one press
  to choose it and one to accept it (+/- then the accept key);
- each period's method is accepted with the accept key (1); a method other
  than the one shown takes at least one +/- press too;
- a time is set "digit by digit": +/- change the blinking digit, the accept
  key goes to the next one; the main time shows h:mm:ss, 5 digits, so 5
  accepts, and at least one press for each digit that is not 0 (a hold is
  one press). A bonus, a byo-yomi time or a move count: at least 1 accept
  and 1 press;
- in a FISCH period the number of moves is set too, three digits ("000");
- the period after the last one set is closed with END (at least 1).
"""

import pytest

from qizhong.sim import Sim

MANUAL = 2  # choose a manual option, accept it
MAIN = 5  # h:mm:ss: a press of the accept key for each digit
MOVES = 3  # a FISCH period's move count: "000"
SHORT = 2  # a bonus, a byo-yomi time, a count of moments: 1 accept + 1 press, at least
END = 1


def dgt(*terms):
    return sum(terms)


# name, our keys ((key, ms held) ...), the control they set, the DGT 3000's least count
SETUPS = [
    (
        "5+3 blitz",
        [("menu", 0), ("minus", 0), ("ok", 0), ("plus", 800),  # chess; fide -> blitz (3m+2s)
         ("ok", 0), ("ok", 0), ("ok", 0), ("plus", 0), ("plus", 0),  # stages, moves, base 5m
         ("ok", 0), ("ok", 0), ("plus", 0), ("start", 0)],  # how, inc 3s, apply
        "5m+3s",
        # FISCH: method, 5 digits + the 5, bonus 3, moves 000, END
        dgt(MANUAL, 1, MAIN + 1, SHORT, MOVES, END),
    ),
    (
        "Go 60 min + 5x30 s byo-yomi",
        [("menu", 0), ("plus", 0), ("ok", 0), ("plus", 0),  # go; go-byoyomi-30 (30m 5x30s)
         ("ok", 0), ("ok", 0), ("ok", 0), ("plus", 1200),  # stages, moves, base 30m -> 60m
         ("start", 0)],
        "60m byoyomi 5x30s",
        # TIME: method, 5 digits + the 1 of 1:00:00; BYO: method changed, 30 s, 5 moments; END
        dgt(MANUAL, 1, MAIN + 1, 2, SHORT, SHORT, END),
    ),
    (
        "Canadian 20 moves in 5 min (after 60 min)",
        [("menu", 0), ("plus", 0), ("ok", 0), ("plus", 600),  # go; go-canadian (60m 15/10m)
         ("ok", 0), ("ok", 0), ("ok", 0), ("ok", 0), ("ok", 0),  # stages moves base how inc
         ("ok", 0), ("ok", 0), ("plus", 1100),  # overtime; the block's moves 15 -> 20
         ("ok", 0), ("minus", 1100), ("start", 0)],  # the block 10m -> 5m
        "60m canadian 20/5m",
        # TIME: method, 5 digits + the 1; CAN-BYO: method changed, 5 min, 20 moves; END
        dgt(MANUAL, 1, MAIN + 1, 2, SHORT, SHORT, END),
    ),
    (
        "Xiangqi 1 min + 10 s count",
        [("menu", 0), ("ok", 0), ("plus", 1200),  # xiangqi; xq-rapid -> xq-count (20m count 10s)
         ("ok", 0), ("ok", 0), ("ok", 0), ("minus", 1900),  # stages, moves, base 20m -> 1m
         ("start", 0)],
        "1m count 10s",
        # TIME: method, 5 digits + the 1; a 10 s count as BYO: method changed, 10 s, 1 moment; END
        dgt(MANUAL, 1, MAIN + 1, 2, SHORT, SHORT, END),
    ),
]  # fmt: skip


def _play(sim, keys, t=0):
    for name, hold in keys:
        sim.key(name, t, hold)
        t += hold + 200
    sim.run_to(t)
    return t


@pytest.mark.parametrize("name, keys, spec, dgt3000", SETUPS, ids=[s[0] for s in SETUPS])
def test_a_common_setup_takes_no_more_presses_than_on_a_dgt_3000(name, keys, spec, dgt3000):
    with Sim() as sim:
        _play(sim, keys)
        assert sim.command("tc") == "ok tc " + spec
        assert sim.status()["state"] == "idle"
    assert len(keys) <= dgt3000, (name, len(keys), dgt3000)


def test_the_counts_today():
    """The counts as README/docs/menu.md state them (taps and holds alike)."""
    assert [len(s[1]) for s in SETUPS] == [13, 9, 15, 8]
    assert [s[3] for s in SETUPS] == [15, 16, 16, 16]


def _status(sim, key):
    return dict(w.split("=", 1) for w in sim.command("status").split() if "=" in w)[key]


def _shown(sim):
    """The item the menu shows now (its row starts '> ')."""
    sim.frame()
    return next(t for _, _, t in sim.texts[1] if t.startswith("> "))


@pytest.mark.parametrize(
    "hold, steps",
    [(80, 1), (499, 1), (501, 2), (751, 3), (1078, 5), (1319, 8), (1369, 9), (2869, 39)],
)
def test_a_held_key_repeats_faster_the_longer_it_is_held(hold, steps):
    """One step at the press, the first repeat 500 ms on, then 250 ms gaps
    shrinking by a quarter to 50 ms: a move count 0 -> ``steps``."""
    with Sim() as sim:
        _play(sim, [("menu", 0), ("minus", 0), ("ok", 0), ("ok", 0), ("ok", 0)])  # chess, S1 moves
        _play(sim, [("minus", 0)], 2000)  # fide's 40 -> 39 ... one at a time: back to 0
        _play(sim, [("minus", 2900)], 2400)  # 39 more: 0
        _play(sim, [("plus", hold)], 6000)
        _play(sim, [("start", 0)], 70000)
        spec = sim.command("tc")
    first = spec.split()[2]
    assert first.startswith("%d/90m" % steps), spec


def test_the_key_lock_from_the_host_and_from_the_keys():
    with Sim() as sim:
        assert sim.command("keys lock") == "ok keys lock"
        assert _status(sim, "kl") == "1"
        _play(sim, [("start", 0)], 1000)  # locked: start does nothing
        assert sim.status()["state"] == "idle"
        _play(sim, [("menu", 2900)], 2000)  # menu held under 3 s: still locked
        assert _status(sim, "kl") == "1"
        _play(sim, [("menu", 3100)], 6000)  # held 3 s: open
        assert _status(sim, "kl") == "0"
        sim.collect_all()
        assert [e[3] for e in sim.events if e[0] == "keys"] == [1, 0]  # locked, then open
        _play(sim, [("start", 0)], 10000)
        assert sim.status()["state"] == "running"
        assert sim.command("keys shut").startswith("err args keys lock|open")


def test_menu_held_3_s_locks_the_keys_in_play_and_between_games():
    with Sim() as sim:
        _play(sim, [("start", 0), ("menu", 3000)])  # running: locked at 3000
        assert _status(sim, "kl") == "1"
        _play(sim, [("start", 0)], 5000)  # no pause now
        assert sim.status()["state"] == "running"
        assert sim.command("pause") == "ok pause"  # the host still can
        _play(sim, [("menu", 3000)], 6000)
        assert _status(sim, "kl") == "0"
        _play(sim, [("start", 0)], 10000)
        assert sim.status()["state"] == "running"  # resumed by the key again
        sim.command("finish")
        t = _play(sim, [("menu", 0)], 11000)  # between games menu opens the setup menu
        assert _shown(sim).startswith("> game")
        _play(sim, [("menu", 3500)], t)  # held: it closes, nothing changed, and locks
        assert _status(sim, "kl") == "1"
        assert sim.command("tc") == "ok tc xq-rapid".replace("xq-rapid", "15m+10s")
        sim.frame()
        assert not any(x.startswith("> ") for _, _, x in sim.texts[1])  # the menu is closed


def _glass(rows):
    from qizhong.core import segface

    t = segface.SegText(bytearray(segface.RAM_BYTES))
    t.fill(0)
    for row in rows:
        t.text(row, 0, 0)
    return segface.status_line(t.ram), segface.decode(t.ram)[3]


@pytest.mark.parametrize("game", [0, 1, 2])
def test_every_setting_reads_whole_on_the_segment_glass(game):
    """The battery board's glasses (segface.SegText): the left names the
    setting, the right gives its value, each whole on the 14-segment status
    characters (a label is at most 8 characters, a value too but a preset's
    name, which runs across both glasses), a number on the big digits too."""
    from qizhong.core import menu, segface

    for preset in range(len(menu.PRESETS[game])):
        m = menu.Menu([""] * menu.SLOTS, game)
        m.pick(preset)
        while True:
            label, value = m.current()
            assert len(label) <= 8 and len(value) <= 16, (label, value)
            left, _ = _glass(segface.menu_rows(m, 0))
            right, digits = _glass(segface.menu_rows(m, 1))
            if len(value) > 8:  # a preset's name: across both glasses
                assert (left + right).replace(" ", "") == value.upper().replace(" ", "")
                m.key(0, True)
                continue
            assert left == label.upper(), (left, label)
            assert right == value.upper(), (right, value)
            number = value[:-1] if value[-1:] in "hms" else value
            assert digits == (number if number.isdigit() else ""), (value, digits)
            if m.key(0, True):
                break


def test_the_arbiter_reads_the_new_controls_in_words():
    """``qizhong tc``'s description (EQ-6) of #31's controls."""
    from qizhong.core import tcspec
    from qizhong.timecontrol import describe

    assert "counts up the time over" in " ".join(describe(tcspec.parse("5m upcount")))
    text = " ".join(describe(tcspec.parse("60m canadian 10/5m step 10")))
    assert "10 moves in 5m" in text and "each block 10 moves more" in text
    text = " ".join(describe(tcspec.parse("5m+3s second 4m+2s")))
    assert "second's own increment in the first stage: +2s" in text
