# SPDX-License-Identifier: GPL-3.0-or-later
"""Chess under the FIDE Laws (docs/rules.md), on python-chess.

    >>> from qizhong.rules import chess
    >>> board = chess.Board()
    >>> board.push_move("Sf3", lang="de")
    Move.from_uci('g1f3')
    >>> board.notation(board.parse_move("d5"), lang="fr")
    'd5'
    >>> board.notation(board.parse_move("Nc6"), "lan", "figurine")
    '♞b8-c6'
    >>> board.ending() is None
    True

``Board`` is python-chess's ``chess.Board`` (push, pop, legal_moves, FEN in
and out, ``outcome()``, Chess960 with ``chess960=True``) with what a
scoresheet and an arbiter need on top:

- ``parse_move`` reads a move in SAN (``Nf3``, ``exd5``, ``O-O``, ``0-0``),
  LAN (``Ng1-f3``, ``e7-e8=Q``) or UCI (``g1f3``), with the piece letters of
  the scoresheet's language (``LANGUAGES``: German ``KDTLS``, French
  ``RDTFC``...) or figurines (``♘f3``, ``♞f6``). ``notation`` writes one back
  in any of these. Bad input raises ``ChessError`` (a ``ValueError``) and
  leaves the board as it was.
- ``ending`` is python-chess's ``outcome()`` in the Laws' words: checkmate
  (5.1.1), stalemate (5.2.1), a dead position (5.2.2: python-chess's
  insufficient material of both sides, or a locked position searched to its
  end without a mate, ``qizhong.rules.unwinnable.dead``), and the automatic draws of 9.6
  (fivefold repetition, 75 moves); with ``claim_draw`` also the claims of
  9.2 and 9.3 (threefold, 50 moves) (CH-3, CH-4).
- ``flag_outcome`` is Article 6.9 (CH-2): a flag loses unless the opponent
  cannot mate by *any series of legal moves* from this position. Material
  alone does not decide that (a locked pawn wall the kings can never cross
  is a draw with pawns on the board): ``qizhong.rules.unwinnable.analyse``
  decides it (material, a locked-pawn proof, a helpmate search). What it
  cannot decide comes back ``decided`` False with the search's reason, and
  the console leaves the ruling to the arbiter.
- ``time_class`` and ``penalty_ms`` are CH-5 (Appendices A.1 and B.1): the
  class of a time control and the time an opponent gets for an illegal move
  or an incorrect claim (7.5.5 and 9.5.3: two minutes; A.3: one in rapid and
  blitz).
- ``svg`` draws a position for a web page (python-chess's ``chess.svg``).
"""

from __future__ import annotations

import dataclasses
import enum
import re
import unicodedata

import chess
import chess.svg

from qizhong.core.timecontrol import HOURGLASS, TimeControl
from qizhong.rules import unwinnable

__all__ = [
    "BLACK",
    "FIGURINES",
    "LANGUAGES",
    "STARTING_FEN",
    "STYLES",
    "WHITE",
    "Board",
    "ChessError",
    "Outcome",
    "Termination",
    "TimeClass",
    "penalty_ms",
    "svg",
    "time_class",
]

WHITE = chess.WHITE
BLACK = chess.BLACK
STARTING_FEN = chess.STARTING_FEN
STYLES = ("san", "lan", "uci")

# The piece letters a scoresheet uses, in the order king, queen, rook, bishop,
# knight (pawns have none). Appendix C.3 lets every player use the names of
# the pieces in his own language.
LANGUAGES = {
    "en": "KQRBN",
    "de": "KDTLS",  # König Dame Turm Läufer Springer
    "fr": "RDTFC",  # Roi Dame Tour Fou Cavalier
    "es": "RDTAC",  # Rey Dama Torre Alfil Caballo
    "it": "RDTAC",  # Re Donna Torre Alfiere Cavallo
    "pt": "RDTBC",  # Rei Dama Torre Bispo Cavalo
    "nl": "KDTLP",  # Koning Dame Toren Loper Paard
    "sv": "KDTLS",  # Kung Dam Torn Löpare Springare
    "da": "KDTLS",  # Konge Dronning Tårn Løber Springer
    "no": "KDTLS",
    "pl": "KHWGS",  # Król Hetman Wieża Goniec Skoczek
    "cs": "KDVSJ",  # Král Dáma Věž Střelec Jezdec
    "hu": "KVBFH",  # Király Vezér Bástya Futó Huszár
    "ro": "RDTNC",  # Rege Damă Turn Nebun Cal
    "fi": "KDTLR",  # Kuningas Daami Torni Lähetti Ratsu
    "figurine": "",  # ♔♕♖♗♘ for White's moves, ♚♛♜♝♞ for Black's
}
FIGURINES = ("♔♕♖♗♘", "♚♛♜♝♞")  # White's, Black's; both are read for either side
_ENGLISH = "KQRBN"
_FIGURE_IN = {f: _ENGLISH[i] for figs in FIGURINES for i, f in enumerate(figs)}
_PAWN_FIGURES = "♙♟"
_UCI_RE = re.compile(r"^[a-h][1-8][a-h][1-8][qrbnQRBN]?$")
_PROMO_RE = re.compile(r"([1-8])=?(\S)$")
_ANNOTATION_RE = re.compile(r"(?:\s*(?:[!?]+|e\.?\s?p\.?|[+#†‡]+))+$")


class ChessError(ValueError):
    """Input the rules refuse (a bad move, FEN or style); nothing changed."""


class Termination(enum.Enum):
    """How a game ended, with the Law's article (``article``)."""

    CHECKMATE = "checkmate"
    STALEMATE = "stalemate"
    DEAD_POSITION = "dead position"  # python-chess: insufficient material of both sides
    FIVEFOLD_REPETITION = "fivefold repetition"
    SEVENTYFIVE_MOVES = "75-move rule"
    THREEFOLD_REPETITION = "threefold repetition"
    FIFTY_MOVES = "50-move rule"
    TIME_FORFEIT = "time forfeit"
    NO_MATING_MATERIAL = "flag, but the opponent cannot mate"

    @property
    def article(self) -> str:
        return _ARTICLE[self]


_ARTICLE = {
    Termination.CHECKMATE: "5.1.1",
    Termination.STALEMATE: "5.2.1",
    Termination.DEAD_POSITION: "5.2.2",
    Termination.FIVEFOLD_REPETITION: "9.6.1",
    Termination.SEVENTYFIVE_MOVES: "9.6.2",
    Termination.THREEFOLD_REPETITION: "9.2",
    Termination.FIFTY_MOVES: "9.3",
    Termination.TIME_FORFEIT: "6.9",
    Termination.NO_MATING_MATERIAL: "6.9",
}
_FROM_PYTHON_CHESS = {
    chess.Termination.CHECKMATE: Termination.CHECKMATE,
    chess.Termination.STALEMATE: Termination.STALEMATE,
    chess.Termination.INSUFFICIENT_MATERIAL: Termination.DEAD_POSITION,
    chess.Termination.FIVEFOLD_REPETITION: Termination.FIVEFOLD_REPETITION,
    chess.Termination.SEVENTYFIVE_MOVES: Termination.SEVENTYFIVE_MOVES,
    chess.Termination.THREEFOLD_REPETITION: Termination.THREEFOLD_REPETITION,
    chess.Termination.FIFTY_MOVES: Termination.FIFTY_MOVES,
}


def color_name(color: chess.Color) -> str:
    return "White" if color == WHITE else "Black"


@dataclasses.dataclass(frozen=True)
class Outcome:
    """The end of a game: how, who won (``None`` for a draw), and why in words."""

    termination: Termination
    winner: chess.Color | None
    reason: str = ""
    decided: bool = True  # False: 6.9's search did not decide; the arbiter rules

    def result(self) -> str:
        """PGN result: ``1-0``, ``0-1`` or ``1/2-1/2``."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner == WHITE else "0-1"


class Board(chess.Board):
    """python-chess's board with scoresheet notation and the Laws' endings."""

    # -- reading moves ---------------------------------------------------------------

    def parse_move(self, text: str, lang: str = "en") -> chess.Move:
        """A legal move from SAN, LAN or UCI text, in ``lang``'s piece letters.

        Figurines and UCI are read whatever ``lang`` is; ``0-0`` is castling;
        annotations (``!?``, ``+``, ``#``, ``e.p.``) are ignored.
        """
        letters = _letters(lang)
        raw = unicodedata.normalize("NFC", text).strip()
        t = "".join(raw.split())
        if not t:
            raise ChessError("no move given")
        t = t.replace("–", "-").replace("—", "-").replace(":", "x").replace("×", "x")
        if _UCI_RE.match(t):
            try:
                return self.parse_uci(t.lower())
            except ValueError:
                pass  # e.g. "b1c3" is no legal move, but could be read as SAN below
        t = _ANNOTATION_RE.sub("", t) or t
        t = t.replace("0-0-0", "O-O-O").replace("0-0", "O-O").replace("o-o-o", "O-O-O")
        t = t.replace("o-o", "O-O")
        if t[0] in _PAWN_FIGURES:
            t = t[1:]
        if t and t[0] in _FIGURE_IN:
            t = _FIGURE_IN[t[0]] + t[1:]
        elif letters and t and t[0] in letters and not t.startswith("O-O"):
            t = _ENGLISH[letters.index(t[0])] + t[1:]
        m = _PROMO_RE.search(t)
        if m and not m.group(2).isdigit():
            p = m.group(2)
            if p in _FIGURE_IN:
                p = _FIGURE_IN[p]
            elif letters and p in letters:
                p = _ENGLISH[letters.index(p)]
            elif p.upper() in letters:  # a lower-case letter of the language (e8d)
                p = _ENGLISH[letters.index(p.upper())]
            t = t[: m.start()] + m.group(1) + "=" + p
        try:
            move = self.parse_san(t)
            if not move:  # python-chess reads "--", "Z0", "0000", "@@@@" as a null move
                raise ValueError("a null move")
            return move
        except chess.AmbiguousMoveError:
            raise ChessError("%r is ambiguous here: say which piece (%s)" % (
                text, " or ".join(self._candidates(t, lang)))) from None  # fmt: skip
        except chess.IllegalMoveError:
            raise ChessError("%r is not a legal move here (%s to move)" % (
                text, color_name(self.turn))) from None  # fmt: skip
        except ValueError:
            raise ChessError("%r is not a move (SAN, LAN or UCI in %s letters)" % (
                text, lang)) from None  # fmt: skip

    def _candidates(self, san: str, lang: str) -> list[str]:
        target = san[-2:] if san[-1].isdigit() else ""
        out = []
        for mv in self.legal_moves:
            if chess.square_name(mv.to_square) == target:
                w = self.notation(mv, "lan", lang)
                if w[0] == self.notation(mv, "san", lang)[0]:
                    out.append(w)
        return sorted(out)

    def push_move(self, text: str, lang: str = "en") -> chess.Move:
        """Parse ``text`` and play it; returns the move."""
        mv = self.parse_move(text, lang)
        self.push(mv)
        return mv

    # -- writing moves ---------------------------------------------------------------

    def notation(self, move: chess.Move, style: str = "san", lang: str = "en") -> str:
        """``move`` (legal here) as ``style`` (san, lan, uci) in ``lang``'s letters."""
        if style not in STYLES:
            raise ChessError("style is one of %s, not %r" % (", ".join(STYLES), style))
        letters = _letters(lang)
        if not self.is_legal(move):
            raise ChessError("%s is not legal in %s" % (move.uci(), self.fen()))
        if style == "uci":
            return self.uci(move)
        text = self.san(move) if style == "san" else self.lan(move)
        if lang == "en":
            return text
        if lang == "figurine":
            letters = FIGURINES[0 if self.turn == WHITE else 1]
        out = []
        for i, ch in enumerate(text):
            lead = i == 0 or text[i - 1] == "="
            out.append(letters[_ENGLISH.index(ch)] if lead and ch in _ENGLISH else ch)
        return "".join(out)

    # -- the end ---------------------------------------------------------------------

    def ending(self, claim_draw: bool = False) -> Outcome | None:
        """python-chess's ``outcome`` in the Laws' words (CH-3), or None.

        Without ``claim_draw`` only what ends the game by itself: checkmate,
        stalemate, a dead position, fivefold repetition, 75 moves. With it,
        also a threefold repetition or 50 moves a claim could rely on (CH-4).
        """
        out = self.outcome(claim_draw=claim_draw)
        if out is None:
            if unwinnable.dead(self):  # 5.2.2 beyond the material: a blockade
                return Outcome(Termination.DEAD_POSITION, None,
                               "a dead position: no series of legal moves can mate")  # fmt: skip
            return None
        term = _FROM_PYTHON_CHESS.get(out.termination)
        if term is None:  # variants only
            raise ChessError("not a FIDE ending: %s" % out.termination)
        mover = color_name(not self.turn)
        reason = {
            Termination.CHECKMATE: "%s checkmates" % mover,
            Termination.STALEMATE: "%s is stalemated" % color_name(self.turn),
            Termination.DEAD_POSITION: "a dead position: neither side can mate",
            Termination.FIVEFOLD_REPETITION: "the position has appeared five times",
            Termination.SEVENTYFIVE_MOVES: "75 moves each without a capture or a pawn move",
            Termination.THREEFOLD_REPETITION: "the position has appeared three times",
            Termination.FIFTY_MOVES: "50 moves each without a capture or a pawn move",
        }[term]
        return Outcome(term, out.winner, reason)

    def can_mate(self, color: chess.Color) -> bool:
        """Whether ``color`` may still mate by some series of legal moves: False
        only when ``qizhong.rules.unwinnable`` decides it cannot (see 6.9)."""
        return unwinnable.can_mate(self, color) is not False

    def flag_outcome(self, flagged: chess.Color) -> Outcome:
        """Article 6.9 (CH-2): ``flagged`` loses, unless the opponent cannot mate
        by any series of legal moves (``qizhong.rules.unwinnable``, a bounded
        search). Not decided within its bound: the loss, with ``decided``
        False, for the arbiter to rule."""
        winner = not flagged
        verdict = unwinnable.analyse(self, winner)
        if verdict.can_mate is False:
            return Outcome(Termination.NO_MATING_MATERIAL, None,
                           "%s's flag fell, but %s cannot mate by any series of legal moves (%s)"
                           % (color_name(flagged), color_name(winner), verdict.reason))  # fmt: skip
        if verdict.can_mate is None:
            return Outcome(Termination.TIME_FORFEIT, winner, "%s's flag fell (%s)"
                           % (color_name(flagged), verdict.reason), decided=False)  # fmt: skip
        return Outcome(Termination.TIME_FORFEIT, winner, "%s's flag fell" % color_name(flagged))

    def claim(self, kind: str, move: chess.Move | None = None) -> Outcome | None:
        """A draw claim by the side to move (9.2, 9.3): the draw, or None if wrong.

        ``kind``: ``threefold`` or ``fifty``. ``move``: the move the claimant
        wrote and declared (9.2.1, 9.3.1), judged on the position after it;
        without it, on the position now (9.2.2, 9.3.2).
        """
        if kind not in ("threefold", "fifty"):
            raise ChessError("a claim is threefold or fifty, not %r" % kind)
        b = self.copy(stack=True)
        if move is not None:
            if not b.is_legal(move):
                raise ChessError("%s is not legal here" % move.uci())
            b.push(move)
        if kind == "threefold":
            if b.is_repetition(3):
                return Outcome(Termination.THREEFOLD_REPETITION, None,
                               "the position has appeared three times")  # fmt: skip
            return None
        if b.halfmove_clock >= 100:
            return Outcome(Termination.FIFTY_MOVES, None,
                           "50 moves each without a capture or a pawn move")  # fmt: skip
        return None


def _letters(lang: str) -> str:
    if lang not in LANGUAGES:
        raise ChessError("no piece letters for %r: one of %s" % (lang, ", ".join(LANGUAGES)))
    return LANGUAGES[lang]


# -- the time control's class (CH-5) ------------------------------------------------------


class TimeClass(enum.Enum):
    """CH-5: the class of a time control; it decides the penalties."""

    STANDARD = "standard"
    RAPID = "rapid"  # Appendix A.1
    BLITZ = "blitz"  # Appendix B.1


def game_minutes_ms(tc: TimeControl) -> int:
    """A side's time for a 60-move game: the bases plus 60 × the increment (A.1).

    **Interpretation**: every stage's base counts (a multi-stage control is
    the time for the whole game), the first stage's increment is multiplied
    by 60, and a Bronstein or simple delay counts as an increment would; the
    TC-4 handicap is left out (the longer side decides).
    """
    base = sum(st.base for st in tc.stages)
    if tc.timing == HOURGLASS:
        return tc.stages[0].base
    inc = tc.delay if tc.delay else tc.stages[0].inc
    return base + 60 * inc


def time_class(tc: TimeControl) -> TimeClass:
    """CH-5: blitz up to 10 minutes (B.1), rapid over 10 and under 60 (A.1), else standard."""
    ms = game_minutes_ms(tc)
    if ms <= 10 * 60000:
        return TimeClass.BLITZ
    if ms < 60 * 60000:
        return TimeClass.RAPID
    return TimeClass.STANDARD


def penalty_ms(tc: TimeControl) -> int:
    """The time an opponent gets for an illegal move (7.5.5) or an incorrect
    claim (9.5.3): two minutes, one in rapid and blitz (A.3, applied to blitz by B.3)."""
    return 120000 if time_class(tc) is TimeClass.STANDARD else 60000


# -- drawing --------------------------------------------------------------------------


def svg(
    board: chess.Board, size: int = 360, flipped: bool = False, coordinates: bool = True
) -> str:
    """The position as an SVG image (python-chess's ``chess.svg``), with the last
    move and a king in check marked: what the hall server's board page shows."""
    last = board.peek() if board.move_stack else None
    check = board.king(board.turn) if board.is_check() else None
    return str(
        chess.svg.board(
            board,
            size=size,
            orientation=BLACK if flipped else WHITE,
            lastmove=last,
            check=check,
            coordinates=coordinates,
        )
    )
