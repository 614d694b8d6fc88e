# SPDX-License-Identifier: GPL-3.0-or-later
"""qizhong.rules.chess and qizhong.records.chess_pgn: notation in the
scoresheet's letters, the Laws' endings, the time classes (CH-5), the
board picture, and PGN with clock times read back by python-chess."""

import doctest

import chess
import chess.pgn
import pytest

from qizhong import timecontrol
from qizhong.records import chess_pgn
from qizhong.rules import chess as rules
from qizhong.rules.chess import Board, ChessError, Termination, TimeClass


def test_the_module_docs_run():
    assert doctest.testmod(rules).failed == 0
    assert doctest.testmod(chess_pgn).failed == 0


@pytest.mark.parametrize(
    ("lang", "text", "uci"),
    [
        ("en", "Nf3", "g1f3"),
        ("en", "Ng1-f3", "g1f3"),
        ("en", "g1f3", "g1f3"),
        ("en", "e2-e4", "e2e4"),
        ("en", "e4!?", "e2e4"),
        ("de", "Sf3", "g1f3"),
        ("de", "Sg1-f3", "g1f3"),
        ("fr", "Cf3", "g1f3"),
        ("es", "Cf3", "g1f3"),
        ("nl", "Pf3", "g1f3"),
        ("pl", "Sf3", "g1f3"),
        ("cs", "Jf3", "g1f3"),
        ("hu", "Hf3", "g1f3"),
        ("de", "♘f3", "g1f3"),  # figurines in any language
        ("en", "♞f3", "g1f3"),  # a black figure for a white move reads as well
        ("fr", "g1f3", "g1f3"),  # UCI in any language
    ],
)
def test_moves_in_the_scoresheets_letters(lang, text, uci):
    """Appendix C: the piece letters of the player's language, figurines, UCI and LAN."""
    assert Board().parse_move(text, lang).uci() == uci


def test_the_same_letter_means_different_pieces():
    """French R is the king (roi), English R the rook: the language decides."""
    b = Board("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    assert b.parse_move("Rd2", "fr").uci() == "e1d2"
    assert b.parse_move("Rd1", "en").uci() == "a1d1"
    assert b.parse_move("Td1", "fr").uci() == "a1d1"
    with pytest.raises(ChessError, match="not a legal move"):
        b.parse_move("Rd2", "en")  # no rook reaches d2 ... a king does, in French
    assert b.fen() == "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"  # nothing changed


def test_promotion_castling_and_capture_marks():
    b = Board("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert b.parse_move("bxa8D", "de").uci() == "b7a8q"
    assert b.parse_move("b7:a8=S", "de").uci() == "b7a8n"
    assert b.parse_move("b8=Q+").uci() == "b7b8q"
    assert b.parse_move("b7b8r").uci() == "b7b8r"
    assert b.parse_move("0-0-0").uci() == "e1c1" and b.parse_move("O-O").uci() == "e1g1"
    mv = chess.Move.from_uci("b7a8q")
    assert b.notation(mv) == "bxa8=Q+"
    assert b.notation(mv, "san", "de") == "bxa8=D+"
    assert b.notation(mv, "lan", "fr") == "b7xa8=D+"
    assert b.notation(mv, "san", "figurine") == "bxa8=♕+"
    assert b.notation(mv, "uci") == "b7a8q"
    assert b.notation(chess.Move.from_uci("e1c1"), "san", "de") == "O-O-O"
    b.push(chess.Move.from_uci("e1g1"))
    assert b.notation(chess.Move.from_uci("e8d8"), "san", "figurine") == "♚d8"


def test_bad_input_is_refused_with_a_clear_error():
    b = Board()
    with pytest.raises(ChessError, match="ambiguous"):
        Board("4k3/8/8/8/8/8/8/1N3N1K w - - 0 1").parse_move("Nd2")
    for bad in ("", "Xf3", "e5", "Qh5"):
        with pytest.raises(ChessError):
            b.parse_move(bad)
    with pytest.raises(ChessError, match="no piece letters"):
        b.parse_move("e4", "tlh")
    with pytest.raises(ChessError, match="style"):
        b.notation(chess.Move.from_uci("e2e4"), "fan")
    with pytest.raises(ChessError, match="not legal"):
        b.notation(chess.Move.from_uci("e2e5"))
    assert b.fen() == chess.STARTING_FEN


def test_fen_in_and_out_and_chess960_castling():
    fen = "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    assert Board(fen).fen() == fen
    b = Board.from_chess960_pos(518)  # the usual start is No. 518
    assert b.fen() == chess.STARTING_FEN and b.chess960
    b960 = Board("bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1", chess960=True)
    for mv in ("d2d4", "d7d5", "c1d3", "c8d6"):
        b960.push_move(mv)
    castle = b960.parse_move("O-O")
    assert castle.uci() == "f1g1"  # in Chess960 the king "takes" its rook
    b960.push(castle)
    assert b960.piece_at(chess.G1).piece_type == chess.KING
    assert b960.piece_at(chess.F1).piece_type == chess.ROOK


def test_the_endings_of_the_laws():
    """CH-3: 5.1.1, 5.2.1, 5.2.2, 9.6; CH-4: 9.2, 9.3 only on a claim."""
    mate = Board()
    for m in ("f3", "e5", "g4", "Qh4#"):
        mate.push_move(m)
    out = mate.ending()
    assert (out.termination, out.winner, out.result()) == (Termination.CHECKMATE, chess.BLACK,
                                                           "0-1")  # fmt: skip
    assert out.termination.article == "5.1.1"
    stale = Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert stale.ending().termination is Termination.STALEMATE
    dead = Board("4k3/8/8/8/8/8/8/2B1K3 b - - 0 1")
    assert dead.ending().termination is Termination.DEAD_POSITION
    b = Board()
    for _ in range(2):
        for m in ("Nf3", "Nf6", "Ng1", "Ng8"):
            b.push_move(m)
    assert b.ending() is None  # threefold is only a claim (9.2)
    assert b.ending(claim_draw=True).termination is Termination.THREEFOLD_REPETITION
    for _ in range(2):
        for m in ("Nf3", "Nf6", "Ng1", "Ng8"):
            b.push_move(m)
    assert b.ending().termination is Termination.FIVEFOLD_REPETITION  # 9.6.1
    seventy = Board("4k3/8/8/8/8/8/8/R3K3 w - - 149 100")
    assert seventy.ending() is None
    seventy.push_move("Ra2")
    assert seventy.ending().termination is Termination.SEVENTYFIVE_MOVES  # 9.6.2


def test_claims_now_and_with_the_written_move():
    """9.2.1/9.2.2, 9.3.1/9.3.2."""
    b = Board()
    for m in ("Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"):
        b.push_move(m)
    assert b.claim("threefold") is None
    assert b.claim("threefold", b.parse_move("Ng8")).winner is None
    assert b.claim("threefold", b.parse_move("Nc6")) is None
    assert len(b.move_stack) == 7  # judged on a copy
    f = Board("4k3/8/8/8/8/8/8/R3K3 w - - 99 80")
    assert f.claim("fifty") is None
    assert f.claim("fifty", f.parse_move("Ra2")).termination is Termination.FIFTY_MOVES
    with pytest.raises(ChessError):
        f.claim("perpetual")


@pytest.mark.parametrize(
    ("fen", "flagged", "winner"),
    [
        ("4k3/8/8/8/8/8/r7/4K3 b - - 0 1", chess.BLACK, None),  # a lone king
        ("4k3/8/8/8/8/8/r7/4K3 b - - 0 1", chess.WHITE, chess.BLACK),
        ("4k3/8/8/8/8/8/8/2B1K2q b - - 0 1", chess.BLACK, None),  # a bishop alone
        ("4k3/8/8/8/8/8/p7/2N1K3 b - - 0 1", chess.BLACK, chess.WHITE),  # N: helpmate
        ("4k3/8/8/8/8/8/7P/4K2q b - - 0 1", chess.BLACK, chess.WHITE),  # a pawn
    ],
)
def test_a_flag_loses_unless_the_opponent_cannot_mate(fen, flagged, winner):
    """CH-2, Article 6.9 (python-chess's material test)."""
    out = Board(fen).flag_outcome(flagged)
    assert out.winner == winner
    assert out.termination is (Termination.TIME_FORFEIT if winner is not None
                               else Termination.NO_MATING_MATERIAL)  # fmt: skip
    assert out.termination.article == "6.9"


def test_a_locked_position_is_where_python_chess_is_narrower_than_the_law():
    """6.9 asks for any series of legal moves; a locked pawn wall with only kings
    behind it can never be mate. python-chess sees pawns and says it can; the
    search (qizhong.rules.unwinnable) looks at every reachable position."""
    locked = Board("8/8/1k6/p1p1p1p1/P1P1P1P1/8/8/4K3 b - - 0 1")
    assert not locked.has_insufficient_material(chess.WHITE)  # python-chess: can mate
    out = locked.flag_outcome(chess.BLACK)
    assert out.winner is None and out.termination.article == "6.9"


@pytest.mark.parametrize(
    ("spec", "cls", "ms"),
    [
        ("3m+2s", TimeClass.BLITZ, 60000),  # 3 + 2 = 5 min (B.1)
        ("10m", TimeClass.BLITZ, 60000),  # exactly 10: blitz
        ("5m+5s", TimeClass.BLITZ, 60000),  # 5 + 5 = 10
        ("10m+1s", TimeClass.RAPID, 60000),  # 11 (A.1)
        ("15m+10s", TimeClass.RAPID, 60000),  # 25
        ("45m+15s", TimeClass.STANDARD, 120000),  # 45 + 15 = 60: standard
        ("59m", TimeClass.RAPID, 60000),
        ("60m", TimeClass.STANDARD, 120000),
        ("40/90m+30s:30m+30s", TimeClass.STANDARD, 120000),
        ("5m delay 5s", TimeClass.BLITZ, 60000),  # a delay counts as an increment
        ("3m hourglass", TimeClass.BLITZ, 60000),
        ("armageddon", TimeClass.RAPID, 60000),  # 10m+5s: 15
    ],
)
def test_the_time_class_decides_the_penalty(spec, cls, ms):
    """CH-5: A.1 rapid (over 10, under 60 min), B.1 blitz (10 or less); 7.5.5/9.5.3 vs A.3."""
    tc = timecontrol.parse(spec)
    assert rules.time_class(tc) is cls
    assert rules.penalty_ms(tc) == ms


def test_the_board_picture():
    """What the hall server's board page will show: python-chess's SVG, with the
    last move and a king in check marked, from either side."""
    b = Board()
    plain = rules.svg(b, 240)
    assert plain.startswith("<svg") and 'width="240"' in plain
    for m in ("e4", "f5", "Qh5+"):
        b.push_move(m)
    pic = rules.svg(b)
    assert "lastmove" in pic and "check" in pic and pic != plain
    assert rules.svg(b, flipped=True) != pic


def test_pgn_keeps_milliseconds_and_says_what_pgn_cannot():
    b = Board()
    for m in ("d4", "d5", "c4"):
        b.push_move(m)
    g = chess_pgn.build(
        b, clocks=[299_250, None, 3_725_001], emts=[750, 1000], time_control="5m delay 3s",
        result="*", termination="unterminated", comments={0: "start", 2: "a reply"},
        Event="Test")  # fmt: skip
    text = chess_pgn.write(g)
    assert "[%clk 0:04:59.25]" in text and "[%clk 1:02:05.001]" in text
    assert "[%emt 0:00:00.75]" in text
    back = chess_pgn.read(text)
    assert chess_pgn.clocks_ms(back) == [299250, None, 3725001]
    assert chess_pgn.emts_ms(back) == [750, 1000, None]
    assert back.headers["TimeControl"] == "?" and back.headers["ClockSpec"] == "5m delay 3s"
    assert back.headers["Termination"] == "unterminated" and back.comment == "start"
    fide = chess_pgn.build(b, time_control=timecontrol.parse("fide"))
    assert fide.headers["TimeControl"] == "40/5400+30:1800+30"
    with pytest.raises(ValueError):
        chess_pgn.build(b, result="2-0")
    with pytest.raises(ValueError):
        chess_pgn.read("")
    with pytest.raises(ValueError, match="errors"):
        chess_pgn.read("1. e4 e5 2. Ke3 *\n")


def test_a_mate_on_the_75th_move_is_a_mate():
    """9.6.2: if the last move mates, the mate takes precedence."""
    b = Board("7k/8/6K1/8/8/8/8/R7 w - - 149 100")
    b.push_move("Ra8#")
    assert b.ending().termination is Termination.CHECKMATE and b.halfmove_clock == 150


def test_the_python_in_docs_chess_md_runs():
    """Every Python block of the manual runs as written."""
    import os
    import re

    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "docs", "chess.md"), encoding="utf-8") as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), re.S)
    assert len(blocks) == 2
    for block in blocks:
        exec(compile(block, "docs/chess.md", "exec"), {})
