# SPDX-License-Identifier: GPL-3.0-or-later
"""The tournament's paper side (qizhong.tournament): TRF-16 read and written
column by column, a published TRF file back unchanged, FIDE's Berger tables,
and standings with tie-breaks worked by hand here."""

import os
from fractions import Fraction

import pytest

from qizhong.tournament import berger, trf
from qizhong.tournament.standings import Result, show, standings

DATA = os.path.join(os.path.dirname(__file__), "data", "trf")


def test_a_published_trf_reads_in_and_writes_back_unchanged():
    """tests/data/trf/SOURCE.md: FIDE's example, a real event (284 players, 7 rounds)."""
    with open(os.path.join(DATA, "karl-mala-2005.trf"), encoding="ascii", newline="") as f:
        text = f.read()
    t = trf.parse(text)
    assert t.text() == text
    assert t.header("012") == "9. Karl-Mala-Gedenkturnier" and len(t.players) == 284
    p1 = t.players[0]
    assert (p1.no, p1.title, p1.name, p1.rating, p1.fed, p1.fide_id, p1.birth, p1.points,
            p1.rank) == (1, "g", "Vasquez,Rodrigo", 2558, "CHI", "3400042", "1969.12.06",
                         "6.0", 4)  # fmt: skip
    assert (p1.rounds[0].opponent, p1.rounds[0].colour, p1.rounds[0].result) == (141, "w", "1")
    p63 = next(p for p in t.players if p.no == 63)
    assert (p63.rounds[0].opponent, p63.rounds[0].colour, p63.rounds[0].result) == (204, "-", "+")
    # Our scoring gives every player the points the file says.
    players = {p.no: (p.name, p.rating or 0, p.fed) for p in t.players}
    res = {p.no: [Result(i, r.opponent or 0, r.colour == "w", r.result)
                  for i, r in enumerate(p.rounds, 1)] for p in t.players}  # fmt: skip
    rows = standings(players, res, "chess")
    assert {r.no: r.points for r in rows} == {p.no: Fraction(p.points) for p in t.players}


def test_a_player_line_is_trf16_column_by_column():
    """C.04 Annex 2: 1-3 001, 5-8 rank, 10 sex, 11-13 title, 15-47 name, 49-52 rating,
    54-56 federation, 58-68 FIDE number, 70-79 birth, 81-84 points, 86-89 rank; each
    round from 92: 92-95 opponent, 97 colour, 99 result, the next 10 columns on."""
    p = trf.Player(
        12,
        "Li,Wen",
        "w",
        "WGM",
        2345,
        "CHN",
        "8601234",
        "1999/01/02",
        "2.5",
        3,
        [trf.Round(7, "w", "1"), trf.Round(0, "-", "H"), trf.Round(15, "b", "=")],
    )
    line = p.line()

    def col(a, b):
        return line[a - 1 : b]

    assert col(1, 3) == "001" and col(5, 8) == "  12" and col(10, 10) == "w"
    assert col(11, 13) == "WGM" and col(15, 47) == "Li,Wen".ljust(33)
    assert col(49, 52) == "2345" and col(54, 56) == "CHN" and col(58, 68) == "    8601234"
    assert col(70, 79) == "1999/01/02" and col(81, 84) == " 2.5" and col(86, 89) == "   3"
    assert (col(92, 95), col(97, 97), col(99, 99)) == ("   7", "w", "1")
    assert (col(102, 105), col(107, 107), col(109, 109)) == ("0000", "-", "H")
    assert (col(112, 115), col(117, 117), col(119, 119)) == ("  15", "b", "=")
    assert len(line) == 119 and trf.parse_player(line) == p


def test_bad_trf_lines_are_named():
    with pytest.raises(trf.TrfError, match="line 2, column 5"):
        trf.parse("012 X\n001 abcd\n")
    with pytest.raises(trf.TrfError, match="no player 9"):
        trf.parse(trf.Player(1, "A", rounds=[trf.Round(9, "w", "1")]).line())
    with pytest.raises(trf.TrfError, match="round 1"):
        trf.parse(trf.Player(1, "A").line() + "  0002 w X")
    with pytest.raises(trf.TrfError, match="no player lines"):
        trf.parse("012 Empty\n")


# FIDE Handbook C.05 Annex 1, as printed (White first).
HANDBOOK = {
    4: ["1-4 2-3", "4-3 1-2", "2-4 3-1"],
    6: ["1-6 2-5 3-4", "6-4 5-3 1-2", "2-6 3-1 4-5", "6-5 1-4 2-3", "3-6 4-2 5-1"],
    8: ["1-8 2-7 3-6 4-5", "8-5 6-4 7-3 1-2", "2-8 3-1 4-7 5-6", "8-6 7-5 1-4 2-3",
        "3-8 4-2 5-1 6-7", "8-7 1-6 2-5 3-4", "4-8 5-3 6-2 7-1"],
    10: ["1-10 2-9 3-8 4-7 5-6", "10-6 7-5 8-4 9-3 1-2", "2-10 3-1 4-9 5-8 6-7",
         "10-7 8-6 9-5 1-4 2-3", "3-10 4-2 5-1 6-9 7-8", "10-8 9-7 1-6 2-5 3-4",
         "4-10 5-3 6-2 7-1 8-9", "10-9 1-8 2-7 3-6 4-5", "5-10 6-4 7-3 8-2 9-1"],
}  # fmt: skip


def test_round_robin_pairings_are_the_handbooks_berger_tables():
    for n, rounds in HANDBOOK.items():
        got = [" ".join("%d-%d" % b for b in r) for r in berger.table(n)]
        assert got == rounds
    # 5 players: the 6-player table, whoever meets 6 has no game.
    games, free = berger.pairings(["A", "B", "C", "D", "E"], 2)
    assert games == [("E", "C"), ("A", "B")] and free == "D"
    with pytest.raises(ValueError):
        berger.pairings(["A", "B"], 2)


def R(rnd, opp, first, code):
    return Result(rnd, opp, first, code)


# Four players, three rounds, worked by hand:
#   round 1: 1-2 1-0, 3-4 ½-½
#   round 2: 1-3 ½-½, 4 forfeits to 2 (2 +, 4 -)
#   round 3: 4-1 0-1, 2 has a half-point bye, 3 has no game (zero-point bye)
CHESS = {
    1: [R(1, 2, True, "1"), R(2, 3, True, "="), R(3, 4, False, "1")],
    2: [R(1, 1, False, "0"), R(2, 4, True, "+"), R(3, 0, False, "H")],
    3: [R(1, 4, True, "="), R(2, 1, False, "="), R(3, 0, False, "Z")],
    4: [R(1, 3, False, "="), R(2, 2, False, "-"), R(3, 1, True, "0")],
}
PLAYERS = {1: ("A", 2100, "CHN"), 2: ("B", 2000, "CHN"), 3: ("C", 1900, ""), 4: ("D", 0, "")}


def test_chess_standings_and_fide_tie_breaks_by_hand():
    rows = standings(PLAYERS, CHESS, "chess", ("BH", "BH-C1", "SB", "WIN", "WON", "BPG", "PS"))
    by = {r.no: r for r in rows}
    # Points: 1: 1 + ½ + 1; 2: 0 + 1 (forfeit) + ½ (bye); 3: ½ + ½ + 0; 4: ½ + 0 + 0.
    assert [(r.rank, r.no, show(r.points)) for r in rows] == [
        (1, 1, "2.5"), (2, 2, "1.5"), (3, 3, "1"), (4, 4, "0.5")]  # fmt: skip
    # BH, a round not played counting as one against a dummy opponent with the player's
    # own points: 1 met 2, 3, 4: 1.5 + 1 + 0.5 = 3.  2: 1 (2.5), forfeit and bye (own 1.5
    # each): 5.5.  3: 4 (0.5), 1 (2.5), no game (own 1): 4.  4: 3 (1), forfeit (own 0.5),
    # 1 (2.5): 4.
    assert {n: show(r.tb["BH"]) for n, r in by.items()} == {1: "3", 2: "5.5", 3: "4", 4: "4"}
    assert {n: show(r.tb["BH-C1"]) for n, r in by.items()} == {1: "2.5", 2: "4", 3: "3.5",
                                                               4: "3.5"}  # fmt: skip
    # SB: 1: beat 2 (1.5) and 4 (0.5), drew 3 (1 x ½): 2.5.  2: the forfeit win (dummy
    # 1.5 x 1) and the half-point bye (1.5 x ½): 2.25.  3: drew 4 (0.25) and 1 (1.25): 1.5.
    # 4: drew 3 (1 x ½): 0.5.
    assert {n: show(r.tb["SB"]) for n, r in by.items()} == {1: "2.5", 2: "2.25", 3: "1.5",
                                                            4: "0.5"}  # fmt: skip
    assert {n: r.tb["WIN"] for n, r in by.items()} == {1: 2, 2: 1, 3: 0, 4: 0}
    assert {n: r.tb["WON"] for n, r in by.items()} == {1: 2, 2: 0, 3: 0, 4: 0}
    assert {n: r.tb["BPG"] for n, r in by.items()} == {1: 1, 2: 1, 3: 1, 4: 1}
    # PS: the running totals summed: 1: 1 + 1.5 + 2.5; 2: 0 + 1 + 1.5; 3: ½ + 1 + 1; 4: ½ x 3.
    assert {n: show(r.tb["PS"]) for n, r in by.items()} == {1: "5", 2: "2.5", 3: "2.5",
                                                            4: "1.5"}  # fmt: skip
    # After round 1 only: 3 and 4 drew each other, BH ½ each: they share 2nd place.
    early = standings(PLAYERS, CHESS, "chess", ("BH",), upto=1)
    assert [(r.rank, r.no) for r in early] == [(1, 1), (2, 3), (2, 4), (4, 2)]


def test_direct_encounter_separates_only_players_who_all_met():
    players = {n: ("P%d" % n, 0, "") for n in (1, 2, 3, 4)}
    # 1 lost to 3, 2 had a full-point bye, 3 had no game then beat 1: one point each;
    # 2 and 3 never met, so DE separates none of the three.
    res = {
        1: [R(1, 2, True, "1"), R(2, 3, False, "0")],
        2: [R(1, 1, False, "0"), R(2, 0, False, "F")],
        3: [R(1, 0, False, "Z"), R(2, 1, True, "1")],
    }
    rows = standings({n: players[n] for n in res}, res, "chess", ("DE",))
    assert {r.no: r.rank for r in rows} == {1: 1, 2: 1, 3: 1}
    # 1 beat 2, 3 beat 4, then 2 beat 4 and 3 beat 1: 1 and 2 tie on 1; they met: 1 first.
    res = {
        1: [R(1, 2, True, "1"), R(2, 3, True, "0")],
        2: [R(1, 1, False, "0"), R(2, 4, True, "1")],
        3: [R(1, 4, True, "1"), R(2, 1, False, "1")],
        4: [R(1, 3, False, "0"), R(2, 2, False, "0")],
    }
    rows = standings(players, res, "chess", ("DE",))
    assert [(r.rank, r.no) for r in rows] == [(1, 3), (2, 1), (3, 2), (4, 4)]
    assert {r.no: r.tb["DE"] for r in rows if r.no in (1, 2)} == {1: 1, 2: 0}
    rows = standings(players, res, "chess", ())
    assert [(r.rank, r.no) for r in rows] == [(1, 3), (2, 1), (2, 2), (4, 4)]


def test_xiangqi_scores_two_for_a_win_and_ranks_by_the_cxa_order():
    res = {
        1: [R(1, 2, True, "1"), R(2, 3, True, "0")],
        2: [R(1, 1, False, "0"), R(2, 4, False, "1")],
        3: [R(1, 4, True, "="), R(2, 1, False, "1")],
        4: [R(1, 3, False, "="), R(2, 2, True, "0")],
    }
    players = {n: ("P%d" % n, 0, "") for n in res}
    rows = standings(players, res, "xiangqi")
    by = {r.no: r for r in rows}
    assert {n: show(r.points) for n, r in by.items()} == {1: "2", 2: "2", 3: "3", 4: "1"}
    # 对手分: 1 met 2 (2) and 3 (3): 5; 2 met 1 (2) and 4 (1): 3.
    assert (by[1].tb["OPP"], by[2].tb["OPP"]) == (5, 3)
    # 累进分: 1: 2 then 2: 4; 2: 0 then 2: 2.
    assert (by[1].tb["PROG"], by[2].tb["PROG"]) == (4, 2)
    assert by[2].tb["BWG"] == 1 and by[3].tb["BWG"] == 1 and by[1].tb["BWG"] == 0
    assert [r.no for r in rows] == [3, 1, 2, 4]


def test_go_sos_sosos_sodos_and_mcmahon_scores():
    res = {
        1: [R(1, 2, True, "1"), R(2, 3, True, "1")],
        2: [R(1, 1, False, "0"), R(2, 4, True, "1")],
        3: [R(1, 4, True, "="), R(2, 1, False, "0")],
        4: [R(1, 3, False, "="), R(2, 2, False, "0")],
    }
    players = {n: ("P%d" % n, 0, "") for n in res}
    by = {r.no: r for r in standings(players, res, "go")}
    assert {n: show(r.points) for n, r in by.items()} == {1: "2", 2: "1", 3: "0.5", 4: "0.5"}
    assert {n: show(r.tb["SOS"]) for n, r in by.items()} == {1: "1.5", 2: "2.5", 3: "2.5",
                                                            4: "1.5"}  # fmt: skip
    assert {n: show(r.tb["SOSOS"]) for n, r in by.items()} == {1: "5", 2: "3", 3: "3", 4: "5"}
    # SODOS: 1 beat 2 (1) and 3 (0.5): 1.5; 3 drew 4: half of 0.5.
    assert {n: show(r.tb["SODOS"]) for n, r in by.items()} == {1: "1.5", 2: "0.5", 3: "0.25",
                                                              4: "0.25"}  # fmt: skip
    # McMahon: starting scores 3, 3, 2, 2: MMS = start + points; SOS over MMS.
    mm = {r.no: r for r in standings(players, res, "go", mcmahon={1: 3, 2: 3, 3: 2, 4: 2})}
    assert {n: show(r.points) for n, r in mm.items()} == {1: "5", 2: "4", 3: "2.5", 4: "2.5"}
    assert show(mm[1].tb["SOS"]) == "6.5"  # 4 + 2.5


def test_a_round_without_a_pairing_is_an_unplayed_round_for_buchholz():
    """A withdrawn (or absent) player has nothing in a round that was played: with the
    rounds given, it is an unplayed round (TRF-16's blank: a zero-point bye) against a
    dummy opponent with the player's own points, and Cut-1 drops it first."""
    players = {n: ("P%d" % n, 0, "") for n in (1, 2, 3)}
    res = {
        1: [R(1, 2, True, "1"), R(2, 3, True, "=")],
        2: [R(1, 1, False, "0")],  # withdrew after round 1
        3: [R(1, 0, False, "F"), R(2, 1, False, "=")],
    }
    by = {r.no: r for r in standings(players, res, "chess", ("BH", "BH-C1"), rounds=[1, 2])}
    # 2: round 1 against 1 (1.5), round 2 unplayed (own 0): BH 1.5, Cut-1 1.5.
    assert (show(by[2].tb["BH"]), show(by[2].tb["BH-C1"])) == ("1.5", "1.5")
    alone = {r.no: r for r in standings(players, res, "chess", ("BH", "BH-C1"))}
    assert (show(alone[2].tb["BH"]), show(alone[2].tb["BH-C1"])) == ("1.5", "0")


def test_go_handicap_stones_stand_on_the_star_points():
    from qizhong.arbiter.go import handicap_points
    from qizhong.arbiter.session import ArbiterError

    def gtp(size, n):
        return sorted(p.gtp() for p in handicap_points(size, n))

    assert gtp(19, 2) == ["D4", "Q16"]
    assert gtp(19, 3) == ["D4", "Q16", "Q4"]
    assert gtp(19, 5) == ["D16", "D4", "K10", "Q16", "Q4"]
    assert gtp(19, 6) == ["D10", "D16", "D4", "Q10", "Q16", "Q4"]
    assert gtp(19, 9) == ["D10", "D16", "D4", "K10", "K16", "K4", "Q10", "Q16", "Q4"]
    assert gtp(13, 4) == ["D10", "D4", "K10", "K4"]
    assert gtp(9, 5) == ["C3", "C7", "E5", "G3", "G7"]
    for size, n in ((9, 6), (19, 1), (19, 10), (7, 2)):
        with pytest.raises(ArbiterError):
            handicap_points(size, n)
