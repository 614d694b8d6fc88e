# SPDX-License-Identifier: GPL-3.0-or-later
"""The arbiter's chess session: one clock, one record, the FIDE Laws between them.

    from qizhong import Clock
    from qizhong.arbiter.chess import ChessSession

    game = ChessSession(Clock(port), "blitz", White="Anderssen", Black="Kieseritzky")
    game.start()            # White's clock runs
    game.move("e4")         # entered as White makes it ...
    game.poll(1.0)          # ... and paired with White's press
    game.illegal("black")   # CH-1: Black's last completed move was illegal
    game.claim("white", "threefold", "Nf3")   # CH-4, with the move written down
    open("game.pgn", "w").write(game.pgn())

Sides are the clock's: 0 White (moves first), 1 Black. docs/chess.md is the
manual; the rules are docs/rules.md (CH-1..CH-6) with the Laws' articles:

- CH-1 (7.5.1, 7.5.3-7.5.5; A.3, B.3): a completed illegal move, or a press
  of the clock with no move (with ``strict``, a press no move was entered
  for is one at once), restores the position and the clock to the offender's
  turn, with the offender's time from before the press; the opponent gets
  two minutes, one in rapid and blitz. The second one loses, unless the
  opponent cannot mate (a draw).
- CH-2 (6.9): a flag loses, unless the opponent cannot mate (python-chess's
  insufficient-material test; narrower than the Law, see
  ``qizhong.rules.chess``).
- CH-3 (5.1.1, 5.2.1, 5.2.2, 9.6): checkmate, stalemate, a dead position,
  fivefold repetition and 75 moves end the game at the press that completes
  the move; a flag of the mover before that press does not undo them (such
  a move is complete without the press, 6.2.1.1, and 6.9 yields to it).
- CH-4 (9.2, 9.3, 9.5): threefold and 50-move claims by the player to move,
  judged on this record, now or after a declared move, with the clock
  paused (9.5.1); an incorrect claim gives the opponent two minutes (one in
  rapid and blitz), the clock runs on and the declared move is entered.
- CH-5 (A.1, B.1): ``time_class`` from the control decides those penalties.
- CH-6: Armageddon (a control with the TC-4 handicap, e.g. ``armageddon``):
  Black gets the shorter time and a draw is a win for Black.
- Guidelines III.4 (``quickplay``): without an increment, the player to move
  with under two minutes may ask for five seconds a move for both.

Knocks (EQ-5), a held lever (EQ-3) and the arbiter's own time corrections
(``adjust``, Article 12.9) are the clock's events, as in every session.
"""

from __future__ import annotations

import chess as pychess
from chess import pgn as pychess_pgn

from qizhong.arbiter.session import ArbiterError, GameSession, Notice, Played, Press, Result
from qizhong.clocks.driver import Clock
from qizhong.clocks.link import Event
from qizhong.core.timecontrol import FISCHER, Stage, TimeControl
from qizhong.records import chess_pgn
from qizhong.rules import chess
from qizhong.timecontrol import MAX_MS, fmt_clock, spec_of

__all__ = ["ChessSession"]

_CHESS_WORDS = {
    "white": 0,
    "w": 0,
    "weiß": 0,
    "weiss": 0,
    "blanc": 0,
    "blancs": 0,
    "blancas": 0,
    "白": 0,
    "black": 1,
    "b": 1,
    "schwarz": 1,
    "noir": 1,
    "noirs": 1,
    "negras": 1,
    "黑": 1,
}
_CLAIMS = {
    "threefold": "threefold",
    "rep": "threefold",
    "repetition": "threefold",
    "3": "threefold",
    "fifty": "fifty",
    "50": "fifty",
    "50-move": "fifty",
}
_WHY_ILLEGAL = {
    "move": ("a completed illegal move", "7.5.1"),
    "nomove": ("pressed the clock without making a move", "7.5.3"),
    "two-hands": ("made a move with two hands", "7.5.4"),
    "promotion": ("promoted without replacing the pawn", "7.5.2"),
}


def _color(side: int) -> pychess.Color:
    return chess.WHITE if side == 0 else chess.BLACK


def _side(color: pychess.Color) -> int:
    return 0 if color == chess.WHITE else 1


class ChessSession(GameSession):
    """A chess game under the FIDE Laws (docs/rules.md) on the clock.

    ``spec``: the time control (``rapid``, ``blitz``, ``fide``, ``armageddon``
    or a spec); ``left``: whose lever is the left one (EQ-1; the arbiter
    decides where the clock stands, Law 6.5); ``fen``: a starting position;
    ``chess960``: True for a Chess960 game from ``fen``, or the start
    position's number 0..959; ``lang``: the piece letters moves are typed and
    shown in (``qizhong.rules.chess.LANGUAGES``; the PGN is English SAN);
    ``strict``: a press with no move entered is a press without a move
    (CH-1) at once, else it waits for the move and ``illegal`` rules it;
    ``armageddon``: default when the control has the TC-4 handicap; ``emt``:
    write ``[%emt]`` in the PGN; ``penalty``: the ms an illegal move or a
    wrong claim gives (default from the class, CH-5; e.g. 120000 for blitz
    under B.2, one arbiter per game, where the Competitive Rules' two minutes
    apply). ``headers``: PGN tags (Event, Site, Date, Round, White, Black...).
    """

    SIDES = ("White", "Black")
    SIDE_WORDS = _CHESS_WORDS

    def __init__(
        self,
        clock: Clock,
        spec: str = "rapid",
        *,
        left: int | str = "white",
        fen: str | None = None,
        chess960: bool | int = False,
        lang: str = "en",
        strict: bool = True,
        armageddon: bool | None = None,
        emt: bool = False,
        penalty: int | None = None,
        configure: bool = True,
        **headers: str,
    ) -> None:
        if lang not in chess.LANGUAGES:
            raise ArbiterError("no piece letters for %r: %s" % (lang, ", ".join(chess.LANGUAGES)))
        try:
            if chess960 is not True and not isinstance(chess960, bool):
                if fen is not None:
                    raise ArbiterError("a Chess960 number or a FEN, not both")
                if not 0 <= chess960 <= 959:
                    raise ArbiterError("Chess960 start positions are numbered 0 to 959")
                board = chess.Board.from_chess960_pos(chess960)
            else:
                board = chess.Board(fen or chess.STARTING_FEN, chess960=bool(chess960))
        except ValueError as e:
            if isinstance(e, ArbiterError):
                raise
            raise ArbiterError("bad position: %s" % e) from None
        if not board.is_valid():
            raise ArbiterError("not a position chess can reach: %s" % board.status().name)
        self.board = board
        side = _CHESS_WORDS.get(left, left) if isinstance(left, str) else left
        if side not in (0, 1):
            raise ArbiterError("the left lever is white's or black's, not %r" % (left,))
        super().__init__(clock, spec, left=int(side), configure=configure)
        self.lang = lang
        self.strict = strict
        self.emt = emt
        self.headers = {k: v for k, v in headers.items() if v}
        self.time_class = chess.time_class(self.tc)
        # CH-5: what 7.5.5 and 9.5.3 give (two minutes; A.3: one in rapid and blitz)
        self.penalty_ms = chess.penalty_ms(self.tc) if penalty is None else penalty
        if self.penalty_ms <= 0:
            raise ArbiterError("the penalty is a positive number of ms")
        self.armageddon = self.tc.handicap != 0 if armageddon is None else armageddon
        self.illegal_moves = [0, 0]  # CH-1
        self.offer_by = -1
        self.quickplay_by = -1  # III.4: a standing request for an increment
        self.record_tc = self.tc  # the control the game started with, for the PGN
        self.pending: chess.Outcome | None = None  # CH-3: the board ended it; the press ends it
        if configure and self.tc.handicap:
            self._armageddon_times()

    def _armageddon_times(self) -> None:
        """CH-6: Black has the shorter time. The clock's TC-4 handicap is
        Xiangqi's (it cuts the first mover's base), so the session sets the
        two bases the other way round before the start."""
        a, b = self.tc.base_for(0), self.tc.base_for(1)
        self._clock_call(lambda: self.clock.set(0, max(a, b)))
        self._clock_call(lambda: self.clock.set(1, min(a, b)))
        self._drain()
        self._out.clear()

    def _board_turn(self) -> int:
        return _side(self.board.turn)

    def _on_record(self, ev: Event) -> None:
        pass  # TC-9 is Xiangqi's; chess's Article 8.4 is the players' own matter

    # -- moves -----------------------------------------------------------------------

    def move(self, text: str) -> list[Notice]:
        """Enter the move being made (SAN, LAN or UCI, in ``lang``); it waits for its press."""
        self._check_playing()
        if self.pending is not None:
            raise ArbiterError("%s: the game ends at %s's press" % (
                self.pending.reason, self.name(1 - self._board_turn())))  # fmt: skip
        try:
            mv = self.board.parse_move(text, self.lang)
        except chess.ChessError as e:
            hint = self.suggest(text)
            more = "; legal here: %s" % " ".join(hint[:12]) if hint else ""
            raise ArbiterError("%s%s" % (e, more)) from None
        self._play(mv)
        return self._flush()

    def _play(self, mv: pychess.Move) -> None:
        side = self._board_turn()
        written = self.board.notation(mv, "san", self.lang)
        self.board.push(mv)
        if self.offer_by == 1 - side:  # moving on declines a standing offer (9.1.2)
            self.offer_by = -1
        self.quickplay_by = -1  # a III.4 request is answered before play goes on
        ending = self.board.ending()
        if ending is not None:
            self.pending = ending
        played = self._enter(side, written)
        if ending is not None and played.press is None and self.result is None:
            self._say(
                "rule",
                "%s: the game ends at %s's press" % (ending.reason, self.name(side)),
                "CH-3 %s" % ending.termination.article,
            )

    def _paired(self, played: Played) -> None:
        super()._paired(played)
        if self.pending is not None and played is self.played[-1] and self.result is None:
            self._board_end(self.pending)

    def _board_end(self, out: chess.Outcome) -> None:
        """CH-3: the board's ending (mate, stalemate, dead position, 9.6)."""
        term = "normal"
        self._end(Result(None if out.winner is None else _side(out.winner), out.reason,
                         "CH-3 %s" % out.termination.article, term))  # fmt: skip

    def _pop(self) -> None:
        self.board.pop()
        self.pending = None

    def suggest(self, text: str) -> list[str]:
        """Legal moves whose SAN, LAN or UCI (in ``lang`` or English) starts with ``text``."""
        key = "".join(text.split())
        low = key.lower()
        out = []
        for mv in self.board.legal_moves:
            shown = self.board.notation(mv, "san", self.lang)
            forms = {
                shown,
                self.board.notation(mv, "lan", self.lang),
                self.board.san(mv),
                self.board.lan(mv),
            }
            if any(f.startswith(key) for f in forms) or mv.uci().startswith(low):
                out.append(shown)
        return sorted(out)

    # -- CH-1: illegal moves and presses without a move --------------------------------

    def _unpaired(self, press: Press) -> None:
        # A press made while no console watched (a resumed console: ``is_late``),
        # or behind one, waits for its move: nobody saw it (docs/arbiter.md).
        if self.strict and not self.is_late(press.seq) and not self._open:
            self._illegal(press, "nomove")
        else:
            super()._unpaired(press)

    def illegal(self, who: int | str, what: str = "move") -> list[Notice]:
        """CH-1: ``who`` completed an illegal move (``what``: move, nomove,
        two-hands, promotion; Articles 7.5.1-7.5.4).

        ``who``'s press waiting for a move is taken; else ``who``'s last move,
        if it is the last one in the record, is taken back (7.5.1: the position
        before it is restored).
        """
        self._check_playing()
        side = self.side(who)
        if what not in _WHY_ILLEGAL:
            raise ArbiterError("illegal what: %s" % ", ".join(_WHY_ILLEGAL))
        for i in range(len(self._open) - 1, -1, -1):
            if self._open[i].side == side:
                press = self._open.pop(i)
                self._illegal(press, what)
                return self._flush()
        last = self.played[-1] if self.played else None
        if last is None or last.side != side:
            raise ArbiterError("%s has no completed move to rule on (the last move is %s's)"
                               % (self.name(side), self.name(1 - side)))  # fmt: skip
        if last.press is None:
            raise ArbiterError("%s's %s is not completed until the clock is pressed (7.5.1): "
                               "undo it" % (self.name(side), last.text))  # fmt: skip
        if what == "promotion":
            self._promotion(last)
            return self._flush()
        press = last.press
        self.played.pop()
        self.board.pop()
        self.pending = None
        self._illegal(press, what, taken=last.text)
        return self._flush()

    def _promotion(self, last: Played) -> None:
        """7.5.2: the pawn reached the last rank and the clock was pressed
        without a new piece: the move stands with a queen, and it counts as
        an illegal move (7.5.5) without going back."""
        mv = self.board.peek()
        if mv.promotion is None:
            raise ArbiterError("%s was no promotion" % last.text)
        self.board.pop()
        queen = pychess.Move(mv.from_square, mv.to_square, promotion=pychess.QUEEN)
        last.text = self.board.notation(queen, "san", self.lang)
        self.board.push(queen)
        side, opp = last.side, 1 - last.side
        self.illegal_moves[side] += 1
        why, article = _WHY_ILLEGAL["promotion"]
        self._note("illegal move %d by %s: %s; the pawn became a queen (CH-1, %s)"
                   % (self.illegal_moves[side], self.name(side), why, article))  # fmt: skip
        if self._second_illegal(side, why):
            return
        self._say("foul", "illegal move 1 for %s: %s; the pawn becomes a queen: %s"
                  % (self.name(side), why, last.text), "CH-1 7.5.2")  # fmt: skip
        self._give_penalty(opp, "CH-1 7.5.5")
        ending = self.board.ending()
        if ending is not None:  # the queen may mate or stalemate
            self._board_end(ending)

    def _second_illegal(self, side: int, text: str) -> bool:
        """7.5.5: the second completed illegal move loses, unless the opponent
        cannot mate (a draw); True if it ended the game."""
        if self.illegal_moves[side] < 2:
            return False
        opp = 1 - side
        what = "%s %s: a second illegal move" % (self.name(side), text)
        if not self.board.can_mate(_color(opp)):
            self._end(Result(None, "%s, but %s cannot mate" % (what, self.name(opp)),
                             "CH-1 7.5.5", "rules infraction"))  # fmt: skip
        else:
            self._end(Result(opp, what, "CH-1 7.5.5", "rules infraction"))
        return True

    def _give_penalty(self, side: int, rule: str) -> None:
        """``side`` gets the penalty time (CH-1, CH-4), through the clock."""
        self._clock_call(lambda: self.clock.penalty(side, self.penalty_ms))
        self._say("rule", "%s gets %s%s" % (self.name(side), _minutes(self.penalty_ms),
                  "" if self.penalty_ms == 120000 else " (A.3)"), rule)  # fmt: skip

    def no_move(self, who: int | str) -> list[Notice]:
        """CH-1 (7.5.3): ``who`` pressed the clock without making a move."""
        return self.illegal(who, "nomove")

    def _illegal(self, press: Press, what: str, taken: str = "") -> None:
        side, opp = press.side, 1 - press.side
        why, article = _WHY_ILLEGAL[what]
        self.illegal_moves[side] += 1
        n = self.illegal_moves[side]
        if taken:
            why = "%s (%s taken back)" % (why, taken)
        self._note("illegal move %d by %s: %s (CH-1, %s)" % (n, self.name(side), why, article))
        if self._second_illegal(side, why):
            return
        self._say("foul", "illegal move 1 for %s: %s" % (self.name(side), why), "CH-1 %s" % article)
        # The position before it stands (7.5.1) and the arbiter sets the times
        # (7.1): the offender's from before the press (no increment for a void
        # move), the opponent's as it was at the press, one move less on the
        # offender's counter (EQ-7).
        ms = [0, 0]
        ms[side] = press.before
        ms[opp] = press.left[opp]
        shift = (-1, 0) if side == 0 else (0, -1)
        self._load(side, ms, shift)
        self._acc = press.used
        self._say("rule", "the position before it is restored and the clock goes back to %s"
                  % self.name(side), "CH-1 7.5.1, 7.1")  # fmt: skip
        self._give_penalty(opp, "CH-1 7.5.5")

    # -- CH-4: claims; offers, resignation ---------------------------------------------

    def claim(
        self, who: int | str, kind: str = "threefold", move: str | None = None
    ) -> list[Notice]:
        """CH-4: ``who`` (to move) claims a draw by ``kind`` (threefold or fifty).

        ``move``: the move the claimant wrote down and declares (9.2.1, 9.3.1);
        the claim is then judged on the position after it. Correct: a draw
        (9.5.2). Incorrect: the opponent gets two minutes, one in rapid and
        blitz (9.5.3, A.3), play goes on, and a declared move is entered.
        """
        self._check_playing()
        side = self.side(who)
        key = _CLAIMS.get(kind.strip().lower())
        if key is None:
            raise ArbiterError("claim threefold or fifty, not %r" % kind)
        if self.pending is not None:
            raise ArbiterError("the game is already over on the board: %s" % self.pending.reason)
        if side != self._board_turn():
            raise ArbiterError("only the player to move claims (9.2, 9.3): %s is to move"
                               % self.name(self._board_turn()))  # fmt: skip
        mv = None
        if move:
            try:
                mv = self.board.parse_move(move, self.lang)
            except chess.ChessError as e:
                raise ArbiterError(str(e)) from None
        written = self.board.notation(mv, "san", self.lang) if mv is not None else ""
        what = "%s claims a draw by %s%s" % (
            self.name(side),
            "threefold repetition" if key == "threefold" else "the 50-move rule",
            " with %s" % written if written else "",
        )
        article = "9.2" if key == "threefold" else "9.3"
        running = self.clock.status().state == "running"
        if running:  # 9.5.1: the clock is paused while the claim is checked
            self._clock_call(self.clock.pause)
        out = self.board.claim(key, mv)
        if out is not None:  # 9.5.2
            self._end(Result(None, "%s: %s" % (what, out.reason), "CH-4 %s" % article))
            return self._flush()
        opp = 1 - side
        self._note("%s: incorrect; %s +%s (CH-4, 9.5.3)" % (what, self.name(opp),
                                                            _minutes(self.penalty_ms)))  # fmt: skip
        self._say("rule", "%s: incorrect, play goes on" % what, "CH-4 9.5.3")
        self._give_penalty(opp, "CH-4 9.5.3")
        # 9.1.2.3: a claim is also a draw offer, which the opponent may accept
        self.offer_by = side
        self._say("info", "the claim stands as %s's draw offer: accept or decline"
                  % self.name(side), "9.1.2.3")  # fmt: skip
        if running:
            self._clock_call(self.clock.resume)
        if mv is not None:  # 9.5.3: the declared move must be made
            self._play(mv)
        return self._flush()

    def offer(self, who: int | str) -> list[Notice]:
        """``who`` offers a draw (9.1.2); the opponent accepts, declines or moves on."""
        self._check_playing()
        side = self.side(who)
        self.offer_by = side
        self._note("%s offers a draw" % self.name(side))
        self._say("info", "%s offers a draw" % self.name(side), "9.1.2")
        return self._flush()

    def accept(self) -> list[Notice]:
        """The standing offer is accepted: a draw by agreement (5.2.3)."""
        self._check_playing()
        if self.offer_by < 0:
            raise ArbiterError("no draw offer stands")
        if len(self.board.move_stack) < 2:  # the two sides move in turn
            raise ArbiterError("a draw by agreement needs at least one move by each player "
                               "(5.2.3); the offer stands")  # fmt: skip
        self._end(Result(None, "draw agreed (%s offered)" % self.name(self.offer_by), "5.2.3"))
        return self._flush()

    def decline(self) -> list[Notice]:
        """The standing offer is declined; after a III.4 request the increment comes."""
        self._check_playing()
        if self.offer_by < 0:
            raise ArbiterError("no draw offer stands")
        by = self.offer_by
        self._say("info", "%s declines the draw" % self.name(1 - by))
        self.offer_by = -1
        if self.quickplay_by == by:
            self.quickplay_by = -1
            self._quickplay_increment(by)
        return self._flush()

    QUICKPLAY_INC = 5000  # III.4: five seconds a move for both
    QUICKPLAY_BONUS = 120000  # III.4: two minutes to the opponent (not a 7/9 penalty)

    def quickplay(self, who: int | str) -> list[Notice]:
        """Guidelines III.4: in standard or rapid play without an increment, the
        player to move, with under two minutes, asks for five seconds a move for
        both. That is a draw offer: ``accept`` draws; ``decline`` has the clock
        set with the increment (the arbiter agreeing) and gives the opponent two
        minutes. The event must have announced the Guidelines (III.2.1)."""
        self._check_playing()
        side = self.side(who)
        if self.time_class is chess.TimeClass.BLITZ:
            raise ArbiterError("Guidelines III are not for blitz (III.2.2)")
        tc = self.tc
        if tc.timing != FISCHER or tc.overtime is not None or any(st.inc for st in tc.stages):
            raise ArbiterError("Guidelines III are for games without an increment or delay")
        if side != self._board_turn():
            raise ArbiterError("only the player to move asks (III.4): %s is to move"
                               % self.name(self._board_turn()))  # fmt: skip
        left = self.clock.status().left[side]
        if left >= 120000:
            raise ArbiterError("III.4 needs under two minutes: %s has %s" % (
                self.name(side), fmt_clock(left)))  # fmt: skip
        self.quickplay_by = side
        self.offer_by = side
        self._note("%s asks for 5 s a move for both (III.4), a draw offer" % self.name(side))
        self._say("info", "%s asks for 5 s a move for both: a draw offer; accept, or decline "
                  "and the increment is set" % self.name(side), "III.4")  # fmt: skip
        return self._flush()

    def _quickplay_increment(self, side: int) -> None:
        tc = self.tc
        stages = [Stage(st.base, self.QUICKPLAY_INC, st.moves) for st in tc.stages]
        new = TimeControl(stages, tc.timing, tc.delay, tc.overtime, tc.handicap, tc.record,
                          tc.freeze)  # fmt: skip
        spec = spec_of(new)
        self._clock_call(lambda: self.clock.configure(spec, override=True))
        self.tc = new
        self.spec = spec
        opp = 1 - side
        self._note("the clock is set to %s; %s +2 min (III.4)" % (spec, self.name(opp)))
        self._say("rule", "the clock now adds 5 s a move for both (%s)" % spec, "III.4")
        self._clock_call(lambda: self.clock.penalty(opp, self.QUICKPLAY_BONUS))

    def resign(self, who: int | str) -> list[Notice]:
        """``who`` resigns (5.1.2): a loss, or a draw if the opponent cannot mate."""
        self._check_playing()
        side = self.side(who)
        if not self.board.can_mate(_color(1 - side)):
            self._end(Result(None, "%s resigns, but %s cannot mate" % (
                self.name(side), self.name(1 - side)), "5.1.2"))  # fmt: skip
        else:
            self._end(Result(1 - side, "%s resigns" % self.name(side), "5.1.2"))
        return self._flush()

    def adjust(self, who: int | str, ms: int, why: str = "") -> list[Notice]:
        """The arbiter adds ``ms`` to ``who``'s time (negative: takes it away):
        a penalty (12.9.2, 12.9.3), time for a disturbance (12.5) or a wrong
        setting put right (6.10.2). A flag it causes is ruled by 6.9."""
        self._check_playing()
        side = self.side(who)
        if ms == 0:
            raise ArbiterError("adjust by a number of seconds, not 0")
        have = self.clock.status().left[side]
        if have + ms > MAX_MS:  # the clock's faces and events stop at 100 hours
            raise ArbiterError("%s has %s: %+d s is over 100h, the most a clock holds"
                               % (self.name(side), fmt_clock(have), ms // 1000))  # fmt: skip
        self._note("the arbiter: %s %+d s%s" % (self.name(side), ms // 1000,
                                                ": " + why if why else ""))  # fmt: skip
        self._clock_call(lambda: self.clock.penalty(side, ms))
        self._drain()
        return self._flush()

    # -- the end ---------------------------------------------------------------------

    def _flagged(self, side: int) -> None:
        if self.pending is not None:  # 5.1.1, 5.2: the move already ended the game
            self._say("info", "%s's flag fell after the game was decided on the board"
                      % self.name(side), "CH-3")  # fmt: skip
            self._board_end(self.pending)
            return
        out = self.board.flag_outcome(_color(side))
        if not out.decided:  # the search did not decide 6.9: the arbiter rules
            self._say("warn", "%s; whether %s can still mate by any series of legal moves was "
                      "not decided within the search's bound: rule `win %s` or `draw`" % (
                          out.reason, self.name(1 - side), self.name(1 - side).lower()),
                      "CH-2 6.9")  # fmt: skip
            self._note("%s; 6.9 undecided by the search, for the arbiter" % out.reason)
            return
        self._end(Result(None if out.winner is None else _side(out.winner), out.reason,
                         "CH-2 6.9", "time forfeit"))  # fmt: skip

    def _end(self, result: Result) -> None:
        if result.winner is None and self.armageddon:  # CH-6
            result = Result(1, "%s; in Armageddon a draw is a win for Black" % result.reason,
                            "CH-6", result.termination)  # fmt: skip
        super()._end(result)

    # -- the record ------------------------------------------------------------------

    def game(self) -> pychess_pgn.Game:
        """The record as a python-chess game, each move with its clock time."""
        r = self.result
        res = "*" if r is None else (
            "1/2-1/2" if r.winner is None else "1-0" if r.winner == 0 else "0-1")  # fmt: skip
        notes = {ply: "; ".join(texts) for ply, texts in self.notes.items()}
        return chess_pgn.build(
            self.board,
            clocks=[p.clock_ms for p in self.played],
            emts=[p.used_ms for p in self.played] if self.emt else None,
            time_control=self.record_tc,
            result=res,
            termination="" if r is None else r.termination,
            comments=notes,
            **self.headers,
        )

    def pgn(self) -> str:
        return chess_pgn.write(self.game())

    def svg(self, size: int = 360) -> str:
        """The position now, for a board page (``qizhong.rules.chess.svg``)."""
        return chess.svg(self.board, size)

    def record_text(self) -> str:
        return self.pgn()

    def suffix(self) -> str:
        return ".pgn"


def _minutes(ms: int) -> str:
    return "%d min" % (ms // 60000) if ms % 60000 == 0 else fmt_clock(ms)
