# SPDX-License-Identifier: GPL-3.0-or-later
"""The Xiangqi arbiter session (host/qizhong/arbiter/xiangqi.py) against the simulated clock.

Every test drives the real firmware over its pty: moves entered as they are
made, levers pressed in virtual time, and the rules of docs/rules.md applied
with the clock's own times and sent back to it.
"""

import subprocess

import pytest

from qizhong.arbiter import ArbiterError, XiangqiSession, rounds_per_day_limit
from qizhong.clocks.driver import DRAW, Clock
from qizhong.core import face
from qizhong.records import xiangqi_pgn
from qizhong.sim import Sim, micropython_path
from qizhong.sim.png import mono_vlsb_pixels

RED, BLACK = 0, 1
KINGS = "5k3/9/9/9/9/9/9/9/9/3K5 w - - 0 1"  # generals only, on different files
SHUFFLE = ["d0d1", "f9f8", "d1d0", "f8f9"]  # no capture, no check


@pytest.fixture
def sim():
    with Sim() as s:
        yield s


def new_game(sim, spec="xq-rapid", **kw):
    clock = Clock(sim.link)
    return clock, XiangqiSession(clock, spec, **kw)


def lever(game, side):
    """The lever of ``side`` (EQ-1: the session's left side has lever 0)."""
    return 0 if side == game.left_side else 1


def play(sim, game, moves, t, think=2000):
    """Each move entered, then its player's press ``think`` ms later; returns the time."""
    for m in moves:
        side = game.board.turn.value
        game.move(m)
        t += think
        sim.press(lever(game, side), t)
        game.poll()
    return t


# -- reading the clock's displays -----------------------------------------------------


@pytest.fixture(scope="module")
def font():
    """MicroPython's 8x8 text font, as the firmware's framebuf draws it."""
    script = (
        "import framebuf\nb = bytearray(8)\n"
        "fb = framebuf.FrameBuffer(b, 8, 8, framebuf.MONO_VLSB)\n"
        "for c in range(32, 127):\n fb.fill(0)\n fb.text(chr(c), 0, 0, 1)\n"
        " print(bytes(b).hex())\n"
    )
    out = subprocess.run([micropython_path(), "-c", script], capture_output=True, text=True)
    rows = out.stdout.split()
    assert len(rows) == 95, out.stderr
    return {bytes.fromhex(h): chr(32 + i) for i, h in enumerate(rows)}


def status_word(buf, font):
    """The state field of a display's status bar (WIN, LOSS, DRAW, KNOCK...)."""
    px = mono_vlsb_pixels(buf, 128, 64)
    invert = bool(px[5][face.OT_X - 3])  # a lit bar: dark text
    text = ""
    for k in range(5):
        x = face.STATE_X + 8 * k
        cell = bytes(
            sum(1 << r for r in range(8) if px[face.TEXT_Y + r][x + i] != invert) for i in range(8)
        )
        text += font.get(cell, " " if not any(cell) else "?")
    return text.strip()


# -- the record --------------------------------------------------------------------------


def test_moves_are_paired_with_their_presses_and_the_record_has_the_clock(sim):
    """XQ-R24: the record synced with the clock is the arbiter's record."""
    clock, game = new_game(sim, "xq-rapid", Red="吕钦", Black="许银川", Event="test")
    game.start()
    game.move("炮二平五")  # entered as it is made ...
    assert game.played[0].press is None
    sim.press(0, 3000)  # ... and Red presses 3 s after the start
    game.poll()
    t = play(sim, game, ["马8进7", "马二进三", "车9平8"], 3000, think=4500)
    st = clock.status()
    times = [p.clock_ms for p in game.played]
    assert times == [907000, 905500, 912500, 911000]  # 15 min, -used, +10 s each
    assert [p.used_ms for p in game.played] == [3000, 4500, 4500, 4500]
    assert game.played[-1].press.t == t
    assert st.left == (912500, 911000) and st.moves == (2, 2)
    rec = xiangqi_pgn.read_game(game.pgn())
    assert [str(m) for m in rec.moves] == [str(m) for m in game.board.move_stack]
    assert rec.clocks == times
    assert rec.headers["Red"] == "吕钦" and rec.headers["Result"] == "*"
    assert rec.headers["TimeControl"] == "900+10"
    assert "{[%clk 0:15:07]}" in game.pgn()


def test_a_bad_move_is_refused_with_the_legal_ones_that_fit(sim):
    _, game = new_game(sim)
    with pytest.raises(ArbiterError) as e:
        game.move("炮二平")
    assert "炮二平五" in str(e.value) and "炮二进四" not in str(e.value)
    assert game.played == [] and game.board.ply == 0  # nothing changed
    # the cannon on file 2: six files sideways, four points up and a capture, one down
    want = {"炮二平%s" % f for f in "一三四五六七"} | {"炮二进%s" % n for n in "一二三四七"}
    assert set(game.suggest("c2")) == want | {"炮二退一"}
    assert set(game.suggest("炮二进")) == {"炮二进%s" % n for n in "一二三四七"}
    game.move("h2e2")  # ICCS too
    assert game.played[0].text == "炮二平五"
    game.take_back()  # a typo: no press was paired with it yet
    assert game.board.ply == 0 and game.played == []
    with pytest.raises(ArbiterError):
        game.take_back()


def test_the_clock_started_for_the_wrong_side_is_turned_round(sim):
    clock, game = new_game(sim)
    sim.press(0, 1000)  # Red presses its own lever: the clock would start Black
    notes = game.poll()
    assert any("turned round" in n.text for n in notes)
    assert clock.status().run == RED
    play(sim, game, ["炮二平五"], 1000, think=2000)
    assert game.played[0].clock_ms == 900000 - 2000 + 10000


# -- XQ-R19: pressing without moving -----------------------------------------------------------


def test_r19_first_press_without_moving_is_a_foul_and_the_clock_goes_back(sim):
    """XQ-R19: the first press without moving is a foul."""
    clock, game = new_game(sim)
    game.start()
    t = play(sim, game, ["炮二平五", "马8进7"], 0, think=5000)
    sim.press(0, t + 3000)  # Red presses without having moved
    notes = game.poll()
    assert [n.rule for n in notes if n.kind == "foul"] == ["XQ-R19"]
    assert game.fouls == [1, 0] and not game.over
    st = clock.status()
    # XQ-R19: Red to move again, with its time before the press (no increment)
    # and Black's as it was at the press; Red's move counter one less.
    assert st.run == RED and st.state == "running"
    assert st.left == (905000 - 3000, 905000) and st.moves == (1, 1)
    game.move("马二进三")
    sim.press(0, t + 7000)
    game.poll()
    assert game.played[-1].clock_ms == 905000 - 7000 + 10000
    assert game.played[-1].used_ms == 7000


def test_r19_second_press_without_moving_loses_and_the_clock_shows_it(sim, font):
    """XQ-R19: the second is a loss; the clock stops and shows LOSS / WIN."""
    clock, game = new_game(sim)
    game.start()
    t = play(sim, game, ["炮二平五", "马8进7"], 0)
    sim.press(0, t + 1000)
    game.poll()
    sim.press(0, t + 2000)  # again
    notes = game.poll()
    assert notes[-1].kind == "end" and notes[-1].rule == "XQ-R19"
    assert game.result.winner == BLACK
    st = clock.status()
    assert st.state == "finished" and st.result == BLACK
    left, right = sim.frame()  # Red's display is the left one (EQ-1)
    assert (status_word(left, font), status_word(right, font)) == ("LOSS", "WIN")
    assert xiangqi_pgn.read_game(game.pgn()).headers["Result"] == "0-1"
    with pytest.raises(ArbiterError):
        game.move("马二进三")  # the game is over


def test_r19_with_under_a_minute_on_a_clock_loses_at_once(sim):
    """XQ-R19: under 1 min on either clock, the first is already a loss."""
    clock, game = new_game(sim)
    game.start()
    t = play(sim, game, ["炮二平五", "马8进7"], 0)
    clock.set(RED, 65000)
    game.poll()
    # Red thinks 10 s: 55 s before the press, 65 s after its increment. The
    # time at the moment of the press is what counts.
    sim.press(0, t + 10000)
    notes = game.poll()
    assert game.fouls == [0, 0] and game.result.winner == BLACK
    assert game.result.rule == "XQ-R19" and "under 1 min" in notes[-1].text
    assert clock.status().result == BLACK


def test_r19_late_entry_waits_for_the_move_and_nomove_rules(sim):
    """XQ-R19 with late entry: the arbiter rules it on the waiting press."""
    clock, game = new_game(sim, strict=False)
    game.start()
    sim.press(0, 4000)  # Red moved and pressed; the arbiter types after
    game.poll()
    assert game.fouls == [0, 0]
    game.move("炮二平五")
    assert game.played[0].clock_ms == 906000 and game.played[0].used_ms == 4000
    sim.press(1, 6000)  # Black pressed without moving
    game.poll()
    game.no_move("black")
    assert game.fouls == [0, 1]
    st = clock.status()
    assert st.run == BLACK and st.left == (906000, 898000)
    with pytest.raises(ArbiterError):
        game.no_move("black")  # no press waits any more


# -- XQ-R20 / R16: the natural move limit -------------------------------------------------------


def test_r20_a_false_claim_takes_two_minutes_and_a_second_in_the_same_limit_loses(sim):
    """XQ-R20: a foul and 2 min off; the second false claim in one limit loses."""
    clock, game = new_game(sim)
    game.start()
    t = play(sim, game, ["炮二平五", "马8进7", "马二进三"], 0)
    before = clock.status().left
    notes = game.claim_natural_limit("black")  # the engine proposes ...
    assert game.fouls == [0, 0] and clock.status().left == before
    assert "the claim is false" in notes[0].text and game.proposal is not None
    notes = game.confirm()  # ... the arbiter confirms
    after = clock.status().left
    assert after == (before[0], before[1] - 120000)  # the clock shows 2 min less
    assert game.fouls == [0, 1]
    assert {n.rule for n in notes if n.kind in ("foul", "rule")} == {"XQ-R20"}
    t = play(sim, game, ["车9平8"], t)
    game.claim_natural_limit("black")
    game.confirm()
    assert game.result.winner == RED and game.result.rule == "XQ-R20"
    assert clock.status().state == "finished"


def test_r17_two_fouls_lose_even_in_different_limits(sim):
    """XQ-R20 then XQ-R17: false claims in two limits are two fouls."""
    clock, game = new_game(sim)
    game.start()
    t = play(sim, game, ["炮二平五", "马8进7"], 0)
    game.claim_natural_limit("red")  # foul 1
    game.confirm()
    play(sim, game, ["炮五进四"], t)  # takes a pawn: a new limit
    game.claim_natural_limit("red")  # not the same limit: a foul, the second
    game.confirm()
    assert game.result.winner == BLACK and game.result.rule == "XQ-R17"
    assert clock.status().result == BLACK


def test_r20_a_flag_from_the_two_minutes_loses_even_against_no_mating_material(sim):
    """XQ-R20: a flag caused by the 2 min is a loss."""
    # Black has only advisors: a plain flag would be a draw (XQ-R16), but a flag
    # caused by the false claim's 2 minutes is a loss (XQ-R20).
    clock, game = new_game(sim, "1m", fen="3aka3/9/9/9/9/9/9/9/9/R2K5 w - - 0 1")
    game.start()
    game.claim_natural_limit("red")
    game.confirm()
    assert game.result.winner == BLACK and game.result.rule == "XQ-R20"
    st = clock.status()
    assert st.state == "finished" and st.result == BLACK and st.first_flag == RED


def test_r16_a_true_natural_limit_claim_draws(sim):
    """XQ-R16: 30 moves each without a capture, claimed: a draw (XQ-R20 before it)."""
    clock, game = new_game(sim, fen=KINGS)
    game.start()
    t = play(sim, game, SHUFFLE * 14 + SHUFFLE[:2], 0, think=1000)  # 29 moves each
    game.claim_natural_limit("red")  # one move short: false
    game.confirm()
    assert game.fouls == [1, 0] and not game.over
    play(sim, game, SHUFFLE[2:], t, think=1000)
    game.claim_natural_limit("black")
    assert not game.over  # a proposal, until the arbiter confirms
    game.confirm()
    assert game.result.winner is None and game.result.rule == "XQ-R16"
    assert clock.status().result == DRAW


def test_r24_a_repetition_claim_is_decided_on_the_record(sim):
    clock, game = new_game(sim, fen=KINGS)
    game.start()
    t = play(sim, game, SHUFFLE, 0)  # the start position twice
    game.claim_repetition("red")  # not yet three times: play goes on
    assert not game.over and game.fouls == [0, 0]
    game.claim_repetition("red", foul_if_false=True)  # XQ-R24: may be a foul
    assert game.fouls == [1, 0]
    play(sim, game, SHUFFLE, t)
    game.claim_repetition("black")
    assert not game.over and game.proposal is not None
    game.confirm()
    assert game.result.winner is None and game.result.rule == "XQ-R16"
    assert "不变作和" in game.result.reason and clock.status().result == DRAW


# -- XQ-R17, R18, R22, R23, R25 --------------------------------------------------------------------


def test_r17_two_fouls_lose(sim):
    """XQ-R17: two fouls, for whatever reasons, lose."""
    clock, game = new_game(sim)
    game.start()
    game.foul("red", "touched the clock")
    assert not game.over
    game.foul("black", "lever held")
    game.foul("r", "spoke to the opponent")
    assert game.result.winner == BLACK and game.result.rule == "XQ-R17"
    assert clock.status().result == BLACK


def test_r18_an_offer_two_ahead_is_a_foul(sim):
    """XQ-R18: no more than two offers ahead of the opponent; XQ-R16: an agreed draw."""
    clock, game = new_game(sim)
    game.start()
    game.offer("red")
    game.decline()
    assert game.fouls == [0, 0]
    notes = game.offer("red")  # 2-0: two more than Black
    assert game.fouls == [1, 0] and "XQ-R18" in {n.rule for n in notes}
    game.offer("black")  # 2-1
    assert game.fouls == [1, 0] and game.offers == [2, 1]
    game.accept()
    assert game.result.winner is None and clock.status().result == DRAW
    assert "Black offered" in game.result.reason


def test_r22_a_drawn_knockout_goes_to_the_side_with_fewer_fouls(sim):
    """XQ-R22: in a single-game knock-out the side with a foul on record loses the draw."""
    clock, game = new_game(sim, knockout=True)
    game.start()
    game.foul("black", "lever held")
    game.offer("red")
    game.accept()
    assert game.result.winner == RED and game.result.rule == "XQ-R22"
    assert clock.status().result == RED
    assert xiangqi_pgn.read_game(game.pgn()).headers["Result"] == "1-0"


def test_r22_equal_fouls_leave_the_knockout_draw(sim):
    """XQ-R22 (Interpretation): equal fouls leave the draw."""
    clock, game = new_game(sim, knockout=True)
    game.start()
    game.foul("black")
    game.foul("red")
    game.declare(None, "trivially drawn")
    assert game.result.winner is None and clock.status().result == DRAW


def test_r23_armageddon_draw_goes_to_red(sim):
    """XQ-R23: a drawn game with Black's time compensation (TC-4) goes to Red."""
    clock, game = new_game(sim, "armageddon")  # 10m+5s, Red's base cut by 40 % (TC-4)
    assert clock.status().left == (360000, 600000)
    assert game.knockout
    game.start()
    game.offer("black")
    game.accept()
    assert game.result.winner == RED and game.result.rule == "XQ-R23"
    assert clock.status().result == RED


def test_r25_a_phone_loses_at_once(sim, font):
    """XQ-R25: and the displays show it."""
    clock, game = new_game(sim)
    game.start()
    play(sim, game, ["炮二平五"], 0)
    game.phone("black")
    assert game.result.winner == RED and game.result.rule == "XQ-R25"
    assert clock.status().state == "finished"
    left, right = sim.frame()
    assert (status_word(left, font), status_word(right, font)) == ("WIN", "LOSS")


def test_r27_rounds_a_day():
    """XQ-R27: 5-10 min at most 10 rounds a day, 15-20 min 8, 30 min 5."""
    assert rounds_per_day_limit("xq-blitz") == 10  # 5 min
    assert rounds_per_day_limit("xq-rapid") == 8  # 15 min
    assert rounds_per_day_limit("20m+10s") == 8
    assert rounds_per_day_limit("30m+10s") == 5
    assert rounds_per_day_limit("60m") is None


def test_r15_checkmate_ends_the_game_as_the_move_is_entered(sim):
    """XQ-R15: the mate needs no press; the clock stops at once."""
    clock, game = new_game(sim, fen="3k5/1R7/R8/9/9/9/9/9/9/4K4 w - - 0 1")
    game.start()
    game.move("车九进二")  # mate: the game ends as the move is entered
    assert game.result.winner == RED and game.result.rule == "XQ-R15"
    assert clock.status().result == RED
    assert game.played[0].clock_ms == 900000  # the clock stopped at once


def test_r15_resignation(sim):
    """XQ-R15: resignation."""
    clock, game = new_game(sim)
    game.start()
    play(sim, game, ["炮二平五"], 0)
    game.resign("黑")
    assert game.result.winner == RED and clock.status().result == RED
    assert "Black resigns" in xiangqi_pgn.read_game(game.pgn()).comments[-1]


# -- the clock's own events ------------------------------------------------------------------------


def test_eq5_a_knock_assigned_to_red_gives_black_a_minute(sim, font):
    """EQ-5: tilt, the arbiter names Red, Black +60 s, play resumes."""
    clock, game = new_game(sim)
    game.start()
    t = play(sim, game, ["炮二平五", "马8进7"], 0)
    sim.tilt(t + 1500)
    notes = game.poll()
    assert any(n.rule == "EQ-5" for n in notes) and game.knocked
    st = clock.status()
    assert st.state == "knocked"
    assert status_word(sim.frame()[0], font) == "KNOCK"
    game.knock("red")
    after = clock.status()
    assert after.left == (st.left[0], st.left[1] + 60000)
    assert after.state == "running" and after.run == RED
    with pytest.raises(ArbiterError):
        game.knock("red")  # nothing is knocked over now
    play(sim, game, ["马二进三"], t + 1500)
    assert game.played[-1].used_ms == 1500 + 2000  # the knocked time is not counted


def test_a_flag_loses_unless_the_opponent_cannot_mate(sim):
    """XQ-R15: late beyond the time limit (TC-3)."""
    clock, game = new_game(sim, "1m")
    game.start()
    sim.run_to(61000)
    game.poll()
    assert game.result.winner == BLACK and game.result.termination == "time forfeit"
    assert clock.status().result == BLACK


def test_r16_a_flag_against_no_mating_material_draws(sim):
    """XQ-R16: the flagged side claims a draw; the opponent cannot mate."""
    clock, game = new_game(sim, "1m", fen="3aka3/9/9/9/9/9/9/9/9/3K5 w - - 0 1")
    game.start()
    sim.run_to(61000)
    game.poll()
    assert game.result.winner is None and game.result.rule == "XQ-R16"
    assert clock.status().result == DRAW


def test_tc9_the_record_mark_goes_into_the_record(sim):
    """TC-9: the clock marks when a side drops under 3 min; the record says so."""
    _, game = new_game(sim, "3m30s+2s")
    game.start()
    play(sim, game, ["炮二平五", "马8进7"], 0, think=20000)
    assert [n.rule for n in game.log if n.rule == "TC-9"] == []  # 3:10 on both
    play(sim, game, ["马二进三"], 40000, think=15000)  # Red under 3 min on the way
    assert [n.rule for n in game.log if n.rule == "TC-9"] == ["TC-9"]
    play(sim, game, ["车9进1"], 60000, think=30000)  # Black under 3 min too: nothing new
    tc9 = [n for n in game.log if n.rule == "TC-9"]
    # From Red's crossing on, neither player need record (#26 item 9): the
    # console and the record say the same, once, naming the side that crossed.
    said = "Red's clock is under 3m: neither player need record the moves any longer"
    assert [n.text for n in tc9] == [said]
    rec = xiangqi_pgn.read_game(game.pgn())
    assert "TC-9: " + said in rec.comments[2]
    assert sum("TC-9" in c for c in rec.comments) == 1
    st = sim.status()
    assert st["left0"] < 180000 and st["left1"] < 180000


def test_eq2_a_press_out_of_turn_is_reported_and_changes_nothing(sim):
    """EQ-2: reported, never a switch, and not XQ-R19."""
    clock, game = new_game(sim)
    game.start()
    sim.press(1, 2000)  # Black presses while Red is to move
    notes = game.poll()
    assert [n.rule for n in notes] == ["EQ-2"]
    assert game.fouls == [0, 0] and clock.status().run == RED


# -- the arbiter rules; the engine advises (XQ-R15, R16, R20, R24) ----------------------------

ISSUE_FEN = "3akab2/9/4b4/8p/6p2/5r3/P3P1c1P/c3B1N2/2C1A4/1R1AK1B2 w - - 0 1"
ISSUE_CYCLE = ["车八进二", "炮1进2", "车八退二", "炮1退2"]


def test_a_repetition_is_proposed_with_its_reasons_and_the_arbiter_confirms(sim):
    clock, game = new_game(sim, fen=ISSUE_FEN)
    game.start()
    t = play(sim, game, ISSUE_CYCLE, 0)
    notes = []
    for m in ISSUE_CYCLE:  # the third occurrence comes with the last move
        side = game.board.turn.value
        notes += game.move(m)
        t += 2000
        sim.press(lever(game, side), t)
        notes += game.poll()
    assert not game.over and game.proposal is not None  # the engine only advises
    text = "\n".join(n.text for n in notes)
    assert "the engine proposes on the repetition" in text
    assert "Red 车八进二: 捉 (chase) - red rook b2 can take black cannon a2" in text
    assert "black cannon a0 checks" in text and "一将一捉" in text
    game.confirm()
    assert game.result.winner is None and game.result.rule == "XQ-R16"
    assert clock.status().result == DRAW
    pgn = game.pgn()
    assert '[EngineProposal "both sides play forbidden moves' in pgn
    assert '[ArbiterRuling "the arbiter confirms' in pgn and "1/2-1/2" in pgn
    back = xiangqi_pgn.read_game(pgn)
    assert back.headers["ArbiterRuling"].startswith("the arbiter confirms")


def test_the_axf_option_proposes_pyffish_verdict_and_the_arbiter_overrules(sim):
    clock, game = new_game(sim, fen=ISSUE_FEN, repetition="axf")
    game.start()
    play(sim, game, ISSUE_CYCLE * 2, 0)
    assert game.proposal is not None and game.proposal.result.winner == BLACK
    with pytest.raises(ArbiterError):
        game.undo_ruling()  # nothing ruled yet
    game.overrule("draw", "recorded as a draw at the board")
    assert game.result.winner is None and game.result.termination == "adjudication"
    assert "overrules" in game.pgn() and "perpetual chase by Red" in game.pgn()
    with pytest.raises(ArbiterError):
        XiangqiSession(clock, repetition="fide", configure=False)


def test_a_confirmed_ruling_can_be_undone_and_play_goes_on(sim):
    clock, game = new_game(sim, fen=KINGS)
    game.start()
    t = play(sim, game, SHUFFLE * 2, 0)
    assert game.proposal is not None  # threefold: kings shuffling, a draw proposed
    left = clock.status().left
    game.confirm()
    assert game.over and clock.status().state == "finished"
    notes = game.undo_ruling()
    assert not game.over and "undoes" in notes[0].text
    st = clock.status()
    assert st.state == "paused" and st.left == left  # the clock as it was, paused
    game.resume()
    t = play(sim, game, ["d0e0"], t + 1000)
    assert game.played[-1].press is not None and not game.over
    assert "the arbiter undoes the ruling" in game.pgn()


def test_an_undone_false_claim_gives_back_the_foul_and_the_time(sim):
    clock, game = new_game(sim)
    game.start()
    play(sim, game, ["炮二平五", "马8进7"], 0)
    before = clock.status().left
    game.claim_natural_limit("red")
    game.confirm()
    assert game.fouls == [1, 0] and clock.status().left[0] == before[0] - 120000
    game.undo_ruling()
    assert game.fouls == [0, 0] and clock.status().left[0] == before[0]
    game.claim_natural_limit("red")  # the same limit again: a first false claim, not a second
    game.confirm()
    assert not game.over and game.fouls == [1, 0]


def test_declare_can_be_undone_and_a_proposal_lapses_when_play_goes_on(sim):
    clock, game = new_game(sim, fen=KINGS)
    game.start()
    t = play(sim, game, SHUFFLE * 2, 0)
    assert game.proposal is not None
    t = play(sim, game, ["d0e0"], t)  # moving on: the proposal lapses
    assert game.proposal is None and "lapsed" in game.pgn()
    with pytest.raises(ArbiterError):
        game.confirm()
    game.declare("black", "Red left the hall")
    assert game.result.winner == BLACK
    game.undo_ruling()
    assert not game.over and clock.status().state == "paused"
    with pytest.raises(ArbiterError):
        game.undo_ruling()
