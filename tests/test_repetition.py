# SPDX-License-Identifier: GPL-3.0-or-later
"""Repetition rulings (XQ-R15, XQ-R16): the Chinese rules' 棋例 and the AXF option.

The corpus (tests/data/repetition/cases.json) holds worked cases, each with a
FEN, the moves (the cycle twice, to the third occurrence), each side's
pattern, the ruling under both rule sets and the article it shows
(docs/repetition.md). Half are the other half with the colours swapped: the
rules are the same for both sides, so the verdict must swap too.
"""

from __future__ import annotations

import json
import pathlib
import random

import pyffish
import pytest

from qizhong.rules import xiangqi as xq
from qizhong.rules import xiangqi_repetition as rp

CASES = json.loads((pathlib.Path(__file__).parent / "data" / "repetition" / "cases.json")
                   .read_text(encoding="utf-8"))  # fmt: skip
ISSUE_FEN = "3akab2/9/4b4/8p/6p2/5r3/P3P1c1P/c3B1N2/2C1A4/1R1AK1B2 w - - 0 1"


def _play(case: dict) -> xq.Board:
    board = xq.Board(case["fen"])
    for i, text in enumerate(case["moves"]):
        assert board.is_repetition(3) is False, "%s: threefold before the end" % case["id"]
        board.push_notation(text)  # raises on an illegal move
        if i < len(case["moves"]) - 1:
            assert board.outcome() is None or board.repetition() is None or (
                board.repetition().count < 3)  # fmt: skip
    return board


def test_the_corpus_is_big_enough_and_covers_every_rule():
    assert len(CASES) >= 40
    names = {c["expect"][side] for c in CASES for side in ("red", "black")}
    for pattern in ("长将", "长捉", "长杀", "一将一捉", "闲"):
        assert pattern in names
    results = {(c["expect"]["red"] != "闲" and c["expect"]["black"] != "闲", c["expect"]["cxa"])
               for c in CASES}  # fmt: skip
    assert (True, "1/2-1/2") in results  # both sides break a rule: draw
    ids = {c["id"] for c in CASES}
    for need in ("pawns-own-side", "rook-chases-protected-cannon", "check-chase", "kings-idle",
                 "both-chase", "check-vs-chase", "issue-14", *OUTNUMBERED):  # fmt: skip
        assert need in ids


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case(case):
    board = _play(case)
    rep = board.repetition()
    assert rep is not None and rep.count == 3
    ruling = rp.adjudicate(board)
    assert ruling is not None
    want = case["expect"]
    assert ruling.pattern(xq.Color.RED).name == want["red"]
    assert ruling.pattern(xq.Color.BLACK).name == want["black"]
    assert ruling.result() == want["cxa"]
    for art in case["articles"]:
        if not art.startswith("26"):  # the exceptions show in the moves, not the verdict
            # every article the case names, down to each move's (#26: 24.x passed unchecked)
            assert art in ruling.clauses, (art, sorted(ruling.clauses))
    out = board.outcome()
    assert out is not None and out.result() == want["cxa"]
    axf = rp.adjudicate(board, "axf")
    assert axf is not None and axf.result() == want["axf"]
    assert board.outcome(repetition="axf").result() == want["axf"]
    # Every move of the window is in the reasons, in order.
    assert [m.ply for m in ruling.moves] == list(range(rep.start + 1, board.ply + 1))


def test_the_issue_case_ruled_with_its_reasons():
    board = xq.Board(ISSUE_FEN)
    for text in "车八进二 炮1进2 车八退二 炮1退2".split() * 2:
        board.push_notation(text)
    ruling = rp.adjudicate(board)
    assert ruling is not None
    kinds = [(m.color, m.kind) for m in ruling.moves[:4]]
    R, B = xq.Color.RED, xq.Color.BLACK
    assert kinds == [(R, rp.MoveKind.CHASE), (B, rp.MoveKind.CHECK),
                     (R, rp.MoveKind.CHASE), (B, rp.MoveKind.CHASE)]  # fmt: skip
    assert ruling.moves[0].targets == ("black cannon a2",)
    assert ruling.moves[3].targets == ("red horse g2",)
    assert ruling.winner is None and ruling.must_vary is None
    text = ruling.text()
    assert "车八进二" in text and "炮1进2" in text and "black cannon a0 checks" in text
    assert "长捉" in text and "一将一捉" in text and "Art. 25.3" in text
    axf = rp.adjudicate(board, "axf")
    assert axf is not None and axf.winner is B and axf.must_vary is R


def test_no_ruling_before_the_third_occurrence():
    board = xq.Board(CASES[1]["fen"])
    for text in CASES[1]["moves"][:4]:
        board.push_notation(text)
    assert board.repetition() is not None and rp.adjudicate(board) is None
    with pytest.raises(xq.XiangqiError):
        rp.adjudicate(board, "fide")


def test_the_breaker_is_named_with_the_moves():
    case = next(c for c in CASES if c["id"] == "check-chase")
    ruling = rp.adjudicate(_play(case))
    assert ruling is not None and ruling.must_vary is xq.Color.RED
    assert ruling.winner is xq.Color.BLACK
    lines = ruling.lines()
    assert any("check" in ln and "Red" in ln for ln in lines)
    assert any("can take black horse g7" in ln for ln in lines)
    assert "Red must vary or loses" in lines[-1]


def test_own_move_generator_agrees_with_pyffish():
    # The ruling's what-if positions use a small generator of our own (fast);
    # it must agree with Fairy-Stockfish on every legal move and every check.
    rng = random.Random(14)
    fens = [c["fen"] for c in CASES[::2]] + [xq.STARTING_FEN] * 3
    checked = 0
    for fen in fens:
        board = xq.Board(fen)
        for _ in range(8):
            moves = board.legal_moves
            if not moves:
                break
            sq = rp._squares(board.fen())
            mine = {xq.Move(f, t) for f, t in rp._legal(sq, board.turn)}
            assert mine == set(moves), board.fen()
            assert rp._in_check(sq, board.turn) == board.is_check()
            checked += 1
            board.push(rng.choice(moves))
    assert checked > 200
    assert pyffish.legal_moves(xq.VARIANT, xq.STARTING_FEN, [])  # the reference is live


def test_docs_repetition_shows_what_the_engine_says(capsys):
    # docs/repetition.md: the example runs as written and its rulings are the engine's.
    doc = (pathlib.Path(__file__).parents[1] / "docs" / "repetition.md").read_text("utf-8")
    code = doc.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "docs/repetition.md", "exec"), {})
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "1/2-1/2 None None"
    cxa = doc.split("<!-- ruling:cxa -->\n```text\n", 1)[1].split("```", 1)[0]
    assert out.startswith(cxa)
    board = xq.Board(ISSUE_FEN)
    for text in "车八进二 炮1进2 车八退二 炮1退2".split() * 2:
        board.push_notation(text)
    axf = doc.split("<!-- ruling:axf -->\n```text\n", 1)[1].split("```", 1)[0]
    ruling = rp.adjudicate(board, "axf")
    assert ruling is not None and "\n".join(ruling.lines()).endswith(axf.rstrip("\n"))
    assert "%d worked cases" % len(CASES) in doc


def test_the_module_examples():
    import doctest

    assert doctest.testmod(rp).failed == 0


@pytest.mark.parametrize(
    "case_id, termination",
    [
        ("perpetual-check", xq.Termination.PERPETUAL_CHECK),
        ("rook-chases-cannon", xq.Termination.PERPETUAL_CHASE),
        ("rook-threatens-mate", xq.Termination.PERPETUAL_MATE_THREAT),
        ("check-chase", xq.Termination.FORBIDDEN_REPETITION),
        ("check-vs-chase", xq.Termination.PERPETUAL_CHECK),
        ("both-chase", xq.Termination.REPETITION),
    ],
)
def test_the_termination_names_the_broken_rule(case_id, termination):
    case = next(c for c in CASES if c["id"] == case_id)
    out = _play(case).outcome()
    assert out is not None and out.termination is termination


# -- 少根子, joint capture, 借帅之力 (24.15, 24.3; #26 item 8) --------------------------

# Corpus cycles where a rook attacks a protected horse: a chase only when the
# chasing side takes last on the square (a second attacker, or the general).
OUTNUMBERED = {
    "rook-and-horse-outnumber": True,
    "rook-and-horse-full-exchange": False,
    "rook-chases-with-general": True,
    "rook-chases-without-general": False,
}


@pytest.mark.parametrize("mirrored", [False, True], ids=["", "mirrored"])
@pytest.mark.parametrize("case_id, chased", OUTNUMBERED.items())
def test_more_attackers_than_protectors_is_a_chase(case_id, chased, mirrored):
    """Each attacker used to be weighed against the first recapture alone, so
    a rook on a protected horse was never a chase, whatever took back after
    it: these cycles were ruled 闲 and a draw. Played move by move, each move
    of the chasing side says why, from the exchange on the square."""
    case = next(c for c in CASES if c["id"] == case_id + ("-mirrored" if mirrored else ""))
    ruling = rp.adjudicate(_play(case))
    assert ruling is not None
    chaser = xq.Color.BLACK if mirrored else xq.Color.RED
    moves = [m for m in ruling.moves if m.color is chaser]
    assert len(moves) == 4
    for m in moves:
        if chased:
            assert m.kind is rp.MoveKind.CHASE and "少根子" in m.detail, m
        else:
            assert m.kind is rp.MoveKind.IDLE and "有根子" in m.detail, m
    assert (ruling.winner is chaser.other) is chased, ruling.text()
