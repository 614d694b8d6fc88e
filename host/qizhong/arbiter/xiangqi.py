# SPDX-License-Identifier: GPL-3.0-or-later
"""The Xiangqi session: a game under the rapid-play rules, bound to one clock.

    from qizhong import Clock
    from qizhong.arbiter.xiangqi import XiangqiSession

    clock = Clock("/dev/ttyACM0")
    game = XiangqiSession(clock, "xq-rapid", red="吕钦", black="许银川")
    game.start()                      # Red's clock runs
    game.move("炮二平五")             # entered as Red makes it ...
    for note in game.poll(1.0):       # ... and paired with Red's press
        print(note)
    game.claim_natural_limit("black")  # XQ-R20: checked on this record (XQ-R24) ...
    game.confirm()                    # ... the engine proposes, the arbiter rules
    print(game.pgn())

What a session is, how moves pair with presses and what actions return:
``qizhong.arbiter.session``. Side 0 is Red.

The rules here (docs/rules.md): XQ-R15 (results), R16 (draws: agreement, a true
natural-move-limit claim, a flag against no mating material, repetition on a
claim), R17 (two fouls lose), R18 (draw-offer count), R19 (a press without a
move), R20 (false natural-move-limit claims), R22/R23 (drawn knock-outs),
R24 (claims decided on this record), R25 (phones), R27 (rounds a day), with
EQ-2, EQ-3, EQ-5 and TC-9 from the clock. Repetition rulings are
proposals with their reasons (``qizhong.rules.xiangqi_repetition``,
docs/repetition.md) that the arbiter confirms or overrules.
"""

from __future__ import annotations

import copy
import dataclasses
import unicodedata
from collections.abc import Callable

from qizhong import timecontrol
from qizhong.arbiter.session import ArbiterError, GameSession, Notice, Press, Result
from qizhong.clocks.driver import Clock
from qizhong.records import xiangqi_pgn
from qizhong.rules import xiangqi, xiangqi_repetition
from qizhong.timecontrol import fmt_clock

__all__ = ["Proposal", "XiangqiSession", "rounds_per_day_limit"]

ONE_MINUTE = 60000  # XQ-R19: under this on either clock, a press without a move loses
FALSE_CLAIM_MS = 120000  # XQ-R20: taken from a false claimant


def rounds_per_day_limit(tc: timecontrol.TimeControl | str) -> int | None:
    """XQ-R27: the most rounds a day at this control, or None if it is not rapid play.

    Base up to 10 min: 10 rounds; up to 20 min: 8; up to 30 min: 5
    (**Interpretation**: the rule names 5-10, 15-20 and 30 min; a base between
    two brackets takes the stricter one above it).
    """
    control = timecontrol.parse(tc) if isinstance(tc, str) else tc
    base = control.stages[0].base
    for most, rounds in ((10 * ONE_MINUTE, 10), (20 * ONE_MINUTE, 8), (30 * ONE_MINUTE, 5)):
        if base <= most:
            return rounds
    return None


# -- Xiangqi ------------------------------------------------------------------------------

_XQ_WORDS = {"red": 0, "r": 0, "红": 0, "紅": 0, "black": 1, "b": 1, "黑": 1}
_REPETITIONS = (
    xiangqi.Termination.REPETITION,
    xiangqi.Termination.PERPETUAL_CHECK,
    xiangqi.Termination.PERPETUAL_CHASE,
    xiangqi.Termination.PERPETUAL_MATE_THREAT,
    xiangqi.Termination.FORBIDDEN_REPETITION,
)


@dataclasses.dataclass
class Proposal:
    """The engine's advice on a claim: the arbiter confirms or overrules it.

    ``what``: "repetition" or "natural move limit"; ``claimant``: the side that
    claimed (None: the engine noticed it on the record); ``verdict``: one line;
    ``reasons``: the lines behind it (each move and what it did); ``result``:
    the end confirming brings, or None when it does not end the game.
    """

    what: str
    claimant: int | None
    verdict: str
    reasons: list[str]
    rule: str
    result: Result | None
    apply: Callable[[], None]


@dataclasses.dataclass
class _Applied:
    """A ruling applied, with what undoing it needs."""

    text: str
    ended: bool
    fouls: list[int]
    false_claims: list[set[int]]
    penalty_side: int  # -1: no time was taken
    # run, left, moves, periods
    clock: tuple[int, tuple[int, int], tuple[int, int], tuple[int, int]]
    idle: bool  # the clock had not started yet
    proposal: Proposal | None  # the proposal ruled on, which stands again when undone


class XiangqiSession(GameSession):
    r"""A Xiangqi game under the rapid-play rules (docs/rules.md).

    ``spec``: the time control (a preset or a spec); ``left``: whose lever is
    the left one (EQ-1); ``fen``: a starting position; ``knockout``: a
    single-game knock-out, where a draw goes to XQ-R22/R23 (default: when the
    control has the TC-4 handicap); ``strict``: a press with no move entered
    is a press without moving (XQ-R19) at once. With ``strict=False`` the
    press waits for the move to be entered, and ``no_move`` rules R19.
    ``repetition``: the repetition rules, ``cxa`` (the Chinese rules' 棋例,
    the default) or ``axf`` (docs/repetition.md).
    ``headers``: PGN tags (Event, Site, Date, Round, Red, Black...).

    Repetition and natural-limit verdicts are proposals (``self.proposal``):
    the arbiter ``confirm``\ s or ``overrule``\ s them, and ``undo_ruling``
    takes back the last ruling (a confirmed or overruled proposal, or a
    ``declare``) within the game. Both the proposal and the ruling go into
    the record.
    """

    SIDES = ("Red", "Black")
    SIDE_WORDS = _XQ_WORDS

    def __init__(
        self,
        clock: Clock,
        spec: str = "xq-rapid",
        *,
        left: int | str = "red",
        fen: str | None = None,
        knockout: bool | None = None,
        strict: bool = True,
        configure: bool = True,
        repetition: str = "cxa",
        **headers: str,
    ) -> None:
        if repetition not in xiangqi_repetition.RULES:
            raise ArbiterError("repetition rules are cxa or axf, not %r" % (repetition,))
        self.repetition_rules = repetition
        try:
            self.board = xiangqi.Board(fen)
        except xiangqi.XiangqiError as e:
            raise ArbiterError("bad position: %s" % e) from None
        side = _XQ_WORDS.get(left, left) if isinstance(left, str) else left
        if side not in (0, 1):
            raise ArbiterError("the left lever is red's or black's, not %r" % (left,))
        super().__init__(clock, spec, left=int(side), configure=configure)
        self.knockout = self.tc.handicap != 0 if knockout is None else knockout
        self.strict = strict
        self.headers = {k: v for k, v in headers.items() if v}
        self.offers = [0, 0]  # XQ-R18
        self.offer_by = -1  # a standing draw offer
        self.no_moves = [0, 0]  # XQ-R19
        self.false_claims: list[set[int]] = [set(), set()]  # XQ-R20: limits claimed falsely in
        self.rounds_limit = rounds_per_day_limit(self.tc)
        self.proposal: Proposal | None = None
        self.rulings: list[_Applied] = []

    def _board_turn(self) -> int:
        return self.board.turn.value

    # -- moves -----------------------------------------------------------------------

    def move(self, text: str) -> list[Notice]:
        """Enter the move being made (记谱, WXF or ICCS); it waits for its press."""
        self._check_playing()
        writer = xiangqi.written_for(text)
        if writer is not None and writer is not self.board.turn:  # #30: not read as the other's
            raise ArbiterError("%s is written for %s (numbers %s), but %s is to move: enter %s's "
                               "move (or its ICCS, h2e2)" % (text.strip(), writer,
                               "1-9" if writer is xiangqi.Color.BLACK else "一-九",
                               self.board.turn, self.board.turn))  # fmt: skip
        try:
            mv = self.board.parse_notation(text)
        except xiangqi.XiangqiError as e:
            hint = self.suggest(text)
            more = "; legal here: %s" % " ".join(hint[:12]) if hint else ""
            raise ArbiterError("%s%s" % (e, more)) from None
        side = self._board_turn()
        written = self.board.notation(mv)
        if self.proposal is not None:  # play went on: the proposal lapses
            self._note("the engine's proposal lapsed, play went on: %s" % self.proposal.verdict)
            self._say("info", "the proposal lapsed: play goes on")
            self.proposal = None
        self.board.push(mv)
        self._enter(side, written)
        if self.offer_by == 1 - side:  # moving on declines a standing offer
            self.offer_by = -1
        out = self.board.outcome(repetition=self.repetition_rules)
        if out is not None:
            if out.termination in _REPETITIONS:
                self._propose_repetition(None)
            else:
                self._end(Result(_winner(out), out.reason, "XQ-R15"))
        return self._flush()

    def _pop(self) -> None:
        self.board.pop()

    def suggest(self, text: str) -> list[str]:
        """Legal moves whose notation (记谱, traditional, WXF or ICCS) starts with ``text``."""
        key = unicodedata.normalize("NFKC", "".join(text.split())).lower()
        out = []
        for mv in self.board.legal_moves:
            cn = self.board.notation(mv)
            for style in ("chinese", "traditional", "wxf", "iccs"):
                w = cn if style == "chinese" else self.board.notation(mv, style)
                w = unicodedata.normalize("NFKC", w).lower()
                if w.startswith(key) or (style == "iccs" and w.replace("-", "").startswith(key)):
                    out.append(cn)
                    break
        return sorted(out)

    # -- presses ---------------------------------------------------------------------

    def _unpaired(self, press: Press) -> None:
        # A press made while no console watched (it came back: ``is_late``),
        # or behind one, waits for its move like a late entry: nobody saw it.
        if self.strict and not self.is_late(press.seq) and not self._open:
            self._no_move(press)
        else:
            super()._unpaired(press)

    def no_move(self, who: int | str) -> list[Notice]:
        """XQ-R19 on ``who``'s last press, which no move was entered for."""
        self._check_playing()
        side = self.side(who)
        for i in range(len(self._open) - 1, -1, -1):
            if self._open[i].side == side:
                press = self._open.pop(i)
                self._no_move(press)
                return self._flush()
        raise ArbiterError("%s has no press waiting for a move" % self.name(side))

    def _no_move(self, press: Press) -> None:
        """XQ-R19: ``press`` came without a move. The times are the press's:
        the presser's just before it, the opponent's at it."""
        side, opp = press.side, 1 - press.side
        before = press.before
        self.no_moves[side] += 1
        low = min(before, press.left[opp])
        what = "%s pressed the clock without moving" % self.name(side)
        if low < ONE_MINUTE:
            self._end(Result(opp, "%s with under 1 min on a clock (%s)" % (what, fmt_clock(low)),
                             "XQ-R19", "rules infraction"))  # fmt: skip
            return
        if self.no_moves[side] >= 2:
            self._end(Result(opp, what + " a second time", "XQ-R19", "rules infraction"))
            return
        if self._foul(side, "pressed the clock without moving", "XQ-R19"):
            return
        # The clock goes back to the offender: its time before the press, the
        # opponent's as it was then, and one move less on its counter (EQ-7).
        ms = [0, 0]
        ms[side] = before
        ms[opp] = press.left[opp]
        shift = (-1, 0) if side == 0 else (0, -1)
        self._load(side, ms, shift)
        self._acc = press.used
        self._say("rule", "the clock goes back to %s" % self.name(side), "XQ-R19")

    # -- fouls, offers, claims -------------------------------------------------------------

    def _foul(self, side: int, reason: str, rule: str) -> bool:
        super()._foul(side, reason, rule)
        if self.fouls[side] >= 2:
            self._end(Result(1 - side, "%s has two fouls" % self.name(side), "XQ-R17",
                             "rules infraction"))  # fmt: skip
            return True
        return False

    def offer(self, who: int | str) -> list[Notice]:
        """``who`` offers a draw (XQ-R18 counts them)."""
        self._check_playing()
        side = self.side(who)
        self.offers[side] += 1
        self._note("%s offers a draw" % self.name(side))
        self._say("info", "%s offers a draw (%d-%d offers)" % (
            self.name(side), self.offers[0], self.offers[1]), "XQ-R18")  # fmt: skip
        if self.offers[side] - self.offers[1 - side] >= 2:
            if self._foul(side, "two draw offers more than the opponent", "XQ-R18"):
                return self._flush()
        self.offer_by = side
        return self._flush()

    def accept(self) -> list[Notice]:
        """The opponent accepts the standing offer: a draw (XQ-R16)."""
        self._check_playing()
        if self.offer_by < 0:
            raise ArbiterError("no draw offer stands")
        by = self.offer_by
        self._end(Result(None, "draw agreed (%s offered)" % self.name(by), "XQ-R16"))
        return self._flush()

    def decline(self) -> list[Notice]:
        self._check_playing()
        if self.offer_by < 0:
            raise ArbiterError("no draw offer stands")
        self._say("info", "%s declines the draw" % self.name(1 - self.offer_by))
        self.offer_by = -1
        return self._flush()

    def claim_natural_limit(self, who: int | str) -> list[Notice]:
        """XQ-R20/R16: ``who`` claims the natural move limit, checked on this record (R24).

        The engine proposes; ``confirm`` applies it. True: a draw. False: a
        foul and 2 min off the claimant's clock (a flag so caused loses); a
        second false claim within the same limit loses.
        """
        self._check_playing()
        side = self.side(who)
        claim = self.board.natural_move_limit(xiangqi.Color(side))
        what = "%s claims the natural move limit" % self.name(side)
        detail = "%d and %d of 30 moves since the last capture, %d checks by %s" % (
            claim.claimant_moves, claim.opponent_moves, claim.claimant_checks,
            self.name(side))  # fmt: skip
        reasons = [detail + " (at most 5 count)"]
        if claim.valid:
            result = Result(None, "%s: %d and %d moves without a capture" % (
                what, claim.claimant_moves, claim.opponent_moves), "XQ-R16")  # fmt: skip
            return self._propose(Proposal("natural move limit", side, "the claim is true: a draw",
                                          reasons, "XQ-R16", result,
                                          lambda: self._end(result)))  # fmt: skip
        if claim.window_start in self.false_claims[side]:
            why = "%s claimed the natural move limit falsely twice in one limit (%s)" % (
                self.name(side), detail)  # fmt: skip
            result = Result(1 - side, why, "XQ-R20", "rules infraction")
            return self._propose(Proposal("natural move limit", side,
                                          "a second false claim in one limit: %s loses"
                                          % self.name(side), reasons, "XQ-R20", result,
                                          lambda: self._end(result)))  # fmt: skip

        def false_claim() -> None:
            self.false_claims[side].add(claim.window_start)
            if self._foul(side, "a false natural-move-limit claim (%s)" % detail, "XQ-R20"):
                return
            self._cut = side
            try:
                self._clock_call(lambda: self.clock.penalty(side, -FALSE_CLAIM_MS))
                if self.rulings:
                    self.rulings[-1].penalty_side = side
                self._drain()  # a flag from the cut is ruled with _cut set
            finally:
                self._cut = -1
            if self.result is None:
                self._say("rule", "2 min off %s's clock" % self.name(side), "XQ-R20")

        return self._propose(Proposal("natural move limit", side,
                                      "the claim is false: a foul and 2 min off %s's clock"
                                      % self.name(side), reasons, "XQ-R20", None,
                                      false_claim))  # fmt: skip

    def claim_repetition(self, who: int | str, foul_if_false: bool = False) -> list[Notice]:
        """XQ-R24: a repetition claim, decided on this record by the repetition
        rules (``repetition``: the Chinese rules' 棋例 or AXF). On a threefold
        repetition the engine proposes the ruling with its reasons, and the
        arbiter confirms or overrules it. A claim the record does not bear out
        is refused, a foul with ``foul_if_false``."""
        self._check_playing()
        side = self.side(who)
        if self.board.is_repetition(3):
            self._propose_repetition(side)
            return self._flush()
        rep = self.board.repetition()
        seen = rep.count if rep else 1
        text = "%s claims a repetition: the position has occurred %d time%s on the record" % (
            self.name(side), seen, "" if seen == 1 else "s")  # fmt: skip
        if foul_if_false:
            self._foul(side, "an unfounded repetition claim", "XQ-R24")
        else:
            self._say("rule", text + "; play goes on", "XQ-R24")
        return self._flush()

    def _propose_repetition(self, claimant: int | None) -> None:
        ruling = xiangqi_repetition.adjudicate(self.board, self.repetition_rules)
        assert ruling is not None
        winner = None if ruling.winner is None else ruling.winner.value
        rule = "XQ-R16" if winner is None else "XQ-R15"
        termination = "normal" if winner is None else "rules infraction"
        who = "" if claimant is None else "%s claims a repetition: " % self.name(claimant)
        result = Result(winner, "%s%s" % (who, ruling.verdict), rule, termination)
        self._advise(Proposal("repetition", claimant, ruling.verdict, ruling.lines()[1:], rule,
                               result, lambda: self._end(result)))  # fmt: skip

    # -- the arbiter rules; the engine advises ----------------------------------------------

    def _propose(self, proposal: Proposal) -> list[Notice]:
        self._advise(proposal)
        return self._flush()

    def _advise(self, proposal: Proposal) -> None:
        self.proposal = proposal
        head = "the engine proposes on the %s" % proposal.what
        if proposal.claimant is not None:
            head += " (claimed by %s)" % self.name(proposal.claimant)
        self._say("warn", "%s: %s" % (head, proposal.verdict), proposal.rule)
        for line in proposal.reasons:
            self._say("info", line.strip())
        self._say("info", "confirm, or overrule with draw, red, black or play")

    def confirm(self, note: str = "") -> list[Notice]:
        """The arbiter confirms the engine's proposal: it is applied."""
        p = self._take_proposal()
        self._ruling("the arbiter confirms the engine's proposal on the %s: %s%s" % (
            p.what, p.verdict, ": " + note if note else ""), p)  # fmt: skip
        p.apply()
        self.rulings[-1].ended = self.result is not None
        return self._flush()

    def overrule(self, decision: int | str | None, reason: str = "") -> list[Notice]:
        """The arbiter overrules the proposal: ``decision`` is a side (it wins),
        ``None`` or ``"draw"`` (a draw), or ``"play"`` (the game goes on, e.g.
        the side breaking a rule is told to vary)."""
        p = self._take_proposal()
        word = decision.strip().lower() if isinstance(decision, str) else decision
        if word in ("play", "continue", "vary", "go on"):
            winner: int | None = -1
        elif word in (None, "draw", "和"):
            winner = None
        else:
            winner = self.side(decision)  # type: ignore[arg-type]
        what = ("play goes on" if winner == -1 else "a draw" if winner is None
                else "%s wins" % self.name(winner))  # fmt: skip
        text = "the arbiter overrules the engine's proposal on the %s (%s): %s%s" % (
            p.what, p.verdict, what, ": " + reason if reason else "")  # fmt: skip
        self._ruling(text, p)
        if winner == -1:
            self._say("rule", text, p.rule)
        else:
            self._end(Result(winner, "%s (the arbiter's ruling)" % (reason or what), p.rule,
                             "adjudication"))  # fmt: skip
        self.rulings[-1].ended = self.result is not None
        return self._flush()

    def declare(self, winner: int | str | None, reason: str = "") -> list[Notice]:
        """The arbiter's own ruling (it can be undone with ``undo_ruling``); a
        standing proposal is overruled by it."""
        self._check_playing()
        if self.proposal is not None:
            return self.overrule("draw" if winner is None else winner, reason)
        what = "a draw" if winner is None else "%s wins" % self.name(self.side(winner))
        self._ruling("the arbiter rules: %s" % (reason or what), None)
        out = super().declare(winner, reason)
        self.rulings[-1].ended = True
        return out

    def undo_ruling(self) -> list[Notice]:
        """Take back the last ruling within the game: a result it gave is
        withdrawn (the clock is put back as it was, paused), a foul and the
        time it took are given back. The record keeps both."""
        self._drain()
        if not self.rulings:
            raise ArbiterError("no ruling to undo")
        last = self.rulings.pop()
        self.fouls = list(last.fouls)
        self.false_claims = last.false_claims
        if last.ended:
            run, left, moves, periods = last.clock
            self.result = None
            if last.idle:  # not started yet: a fresh game under the same control
                self._clock_call(self.clock.new_game)
            else:
                self._clock_call(lambda: self.clock.load(run, left, moves, periods))
            self.run = run
            self.running = False
        elif last.penalty_side >= 0:
            side = last.penalty_side
            self._clock_call(lambda: self.clock.penalty(side, FALSE_CLAIM_MS))
        self.proposal = last.proposal
        text = "the arbiter undoes the ruling: %s" % last.text
        self._note(text)
        paused = last.ended and not last.idle
        self._say("rule", text + ("; the clock is paused: resume to play on" if paused else ""))
        if self.proposal is not None:
            self._say("info", "the engine's proposal stands again: %s" % self.proposal.verdict)
        return self._flush()

    def _take_proposal(self) -> Proposal:
        self._check_playing()
        if self.proposal is None:
            raise ArbiterError("no proposal stands: claim first")
        p = self.proposal
        self.proposal = None
        return p

    def _ruling(self, text: str, p: Proposal | None) -> None:
        st = self.clock.status()
        run = st.run if st.run in (0, 1) else self._to_move()
        claims = copy.deepcopy(self.false_claims)
        snap = (run, st.left, st.moves, st.periods)
        idle = st.state == "idle"
        self.rulings.append(_Applied(text, False, list(self.fouls), claims, -1, snap, idle, p))
        if p is not None:
            self._note("the engine proposes on the %s: %s" % (p.what, p.verdict))
            self.headers["EngineProposal"] = p.verdict
        self._note(text)
        self.headers["ArbiterRuling"] = text

    def resign(self, who: int | str) -> list[Notice]:
        self._check_playing()
        side = self.side(who)
        self._end(Result(1 - side, "%s resigns" % self.name(side), "XQ-R15"))
        return self._flush()

    def phone(self, who: int | str) -> list[Notice]:
        """XQ-R25: ``who``'s phone rang or was used: an immediate loss."""
        self._check_playing()
        side = self.side(who)
        self._end(Result(1 - side, "%s's phone rang or was used" % self.name(side), "XQ-R25",
                         "rules infraction"))  # fmt: skip
        return self._flush()

    def _flagged(self, side: int) -> None:
        if self._cut == side:
            self._end(Result(1 - side, "%s's flag fell from the 2 min taken for a false claim"
                             % self.name(side), "XQ-R20", "time forfeit"))  # fmt: skip
            return
        out = self.board.flag_outcome(xiangqi.Color(side))
        rule = "XQ-R16" if out.winner is None else "XQ-R15"
        self._end(Result(_winner(out), out.reason, rule,
                         "normal" if out.winner is None else "time forfeit"))  # fmt: skip

    def _end(self, result: Result) -> None:
        if result.winner is None and self.knockout:  # XQ-R22, XQ-R23
            handicap = self.tc.handicap != 0
            w = xiangqi.drawn_knockout_winner(self.fouls[0], self.fouls[1], handicap)
            if w is not None:
                if self.fouls[0] != self.fouls[1]:
                    why, rule = "%s has more fouls" % self.name(1 - w.value), "XQ-R22"
                else:
                    why, rule = "Black had time compensation", "XQ-R23"
                result = Result(w.value, "%s; in a knock-out game %s goes through: %s"
                                % (result.reason, self.name(w.value), why), rule,
                                result.termination)  # fmt: skip
        super()._end(result)

    # -- the record ------------------------------------------------------------------

    def game(self) -> xiangqi_pgn.Game:
        """The record as a ``xiangqi_pgn.Game``, each move with its clock time."""
        hdr = dict(self.headers)
        r = self.result
        hdr["Result"] = "*" if r is None else (
            "1/2-1/2" if r.winner is None else "1-0" if r.winner == 0 else "0-1")  # fmt: skip
        if r is not None:
            hdr.setdefault("Termination", r.termination)
        clocks = [p.clock_ms for p in self.played]
        game = xiangqi_pgn.Game.from_board(self.board, clocks, **hdr)
        game.set_time_control(self.tc)
        for ply, texts in self.notes.items():
            text = "; ".join(texts)
            if ply == 0:
                game.intro = text
            else:
                game.comments[ply - 1] = text
        return game

    def pgn(self, style: str = "chinese") -> str:
        return xiangqi_pgn.write_game(self.game(), style)

    def record_text(self) -> str:
        return self.pgn()

    def suffix(self) -> str:
        return ".pgn"


def _winner(out: xiangqi.Outcome) -> int | None:
    return None if out.winner is None else out.winner.value
