# SPDX-License-Identifier: GPL-3.0-or-later
"""The arbiter's Go session: one clock, one record, area counting at the end.

    from qizhong import Clock
    from qizhong.arbiter.go import GoSession

    game = GoSession(Clock(port), "go-byoyomi", size=19, black="聂卫平", white="马晓春")
    game.start()              # Black's clock runs
    game.move("Q16")          # a stone (GTP vertex), or "pass"
    game.poll(1.0)            # ... paired with Black's press
    ...
    game.dead("C3", "R17")    # after two passes: whole chains marked dead
    game.count()              # area count with komi (GO-6, GO-7); the clock shows it
    open("game.sgf", "wb").write(game.sgf())

The clock stands at White's right hand (EQ-1). Seen from the front of the
clock (the side its displays face, away from the board), that puts White on
the left: ``left="white"`` by default. Sides are the clock's: 0 Black (moves
first), 1 White.

A press is a move's end; a press with no stone entered waits for the entry,
since in Go a press without a stone is a pass (enter ``pass``). Byo-yomi
(TC-6) and Canadian overtime (TC-7) run on the clock, which speaks the
TC-6a readings; each move keeps the press's times, and the SGF has the
mover's ``BL``/``WL`` and, in overtime, ``OB``/``OW`` (periods, or Canadian
moves left in the block). A flag ends the game: a loss (TC-3, TC-6).
"""

from __future__ import annotations

from fractions import Fraction

from qizhong.arbiter.session import ArbiterError, GameSession, Notice, Played, Result
from qizhong.clocks.driver import Clock
from qizhong.clocks.link import Event
from qizhong.records import go_sgf
from qizhong.rules import go

__all__ = ["GoSession"]

_TIME_RULE = {"byoyomi": "TC-6", "canadian": "TC-7"}  # a flag is a loss (else TC-3)
_GO_WORDS = {"black": 0, "b": 0, "黑": 0, "white": 1, "w": 1, "白": 1}


def _side(color: go.Color) -> int:
    return 0 if color is go.BLACK else 1


def _color(side: int) -> go.Color:
    return go.BLACK if side == 0 else go.WHITE


class GoSession(GameSession):
    """A Go game under the Chinese rules (docs/rules.md) with the clock's overtime.

    ``size`` 9, 13 or 19; ``komi`` in points (7.5 = 3¾ 子, GO-7); ``left``:
    whose lever is the left one (EQ-1). ``black``, ``white``, ``date`` and
    ``properties`` (raw SGF root properties such as ``EV``, ``RO``, ``PC``) go
    into the record.
    """

    SIDES = ("Black", "White")
    SIDE_WORDS = _GO_WORDS

    def __init__(
        self,
        clock: Clock,
        spec: str = "go-byoyomi",
        *,
        size: int = 19,
        komi: Fraction | int | float | str = go.KOMI,
        left: int | str = "white",
        configure: bool = True,
        black: str = "",
        white: str = "",
        date: str = "",
        properties: dict[str, str] | None = None,
        handicap: int = 0,
    ) -> None:
        try:
            if handicap:  # the stones placed, White moves first (GO-1; SGF HA, AB)
                stones = handicap_points(size, handicap)
                self.board = go.Board.from_setup(size, stones, turn=go.WHITE, komi=komi)
            else:
                self.board = go.Board(size, komi=komi)
        except go.GoError as e:
            raise ArbiterError(str(e)) from None
        side = _GO_WORDS.get(left, left) if isinstance(left, str) else left
        if side not in (0, 1):
            raise ArbiterError("the left lever is black's or white's, not %r" % (left,))
        super().__init__(clock, spec, left=int(side), configure=configure)
        self.black = black
        self.white = white
        self.date = date
        self.properties = dict(properties or {})
        if handicap:
            self.properties["HA"] = str(handicap)
        self.dead_stones: set[go.Point] = set()
        self.outcome: go.Outcome | None = None
        self._over_at_press = ""  # play is over, the clock stops at the last move's press

    def _board_turn(self) -> int:
        return _side(self.board.turn)

    def _on_record(self, ev: Event) -> None:
        pass  # TC-9 is a Xiangqi rule: Go records every move

    # -- moves -----------------------------------------------------------------------

    def move(self, text: str) -> list[Notice]:
        """Enter a stone (GTP vertex, e.g. ``Q16``) or ``pass`` for the side to move."""
        self._check_playing()
        if self.board.is_game_over():
            raise ArbiterError("play is over (GO-5): mark the dead stones, then count")
        side = self._board_turn()
        try:
            mv = self.board.parse_gtp(text)
            self.board.push(mv)
        except go.GoError as e:
            raise ArbiterError(str(e)) from None
        took = len(self.board.last_captured())
        self._enter(side, mv.gtp(), " takes %d" % took if took else "")
        if self.board.is_game_over():
            if self.running and any(p.press is None for p in self.played):
                # The second pass entered before its press: that press is its time (as
                # for any move), so the clock stops when it comes, not now.
                self._over_at_press = "two passes in a row"
                self._say("info", "two passes in a row: the clock stops at %s's press"
                          % self.name(side), "GO-5")  # fmt: skip
            else:
                self._play_over("two passes in a row")
        return self._flush()

    def _paired(self, played: Played) -> None:
        super()._paired(played)
        if self._over_at_press and all(p.press is not None for p in self.played):
            why, self._over_at_press = self._over_at_press, ""
            self._play_over(why)

    def _pop(self) -> None:
        self.board.pop()
        self._over_at_press = ""  # the pass taken back: play goes on

    def suggest(self, text: str) -> list[str]:
        """What ``text`` could become: ``pass``, or the legal points it starts."""
        key = text.strip().upper()
        if not key:
            return []
        if "PASS".startswith(key):
            return ["pass"]
        out = [m.gtp() for m in self.board.legal_moves if m.gtp().upper().startswith(key)]
        return sorted(out, key=lambda v: (v[0], int(v[1:]) if v[1:].isdigit() else 0))

    def _play_over(self, why: str) -> None:
        """Play has stopped for the count: the clock waits."""
        st = self.clock.status()
        if st.state == "running":
            self._clock_call(self.clock.pause)
        self._note("%s: play is over (GO-5)" % why)
        self._say(
            "rule",
            "%s: play is over; mark the dead stones, then count" % why,
            "GO-5",
        )

    # -- the end ---------------------------------------------------------------------

    def agree(self) -> list[Notice]:
        """Both players agree the game is played out (GO-5); it is then counted."""
        self._check_playing()
        try:
            self.board.agree()
        except go.GoError as e:
            raise ArbiterError(str(e)) from None
        self._over_at_press = ""
        self._play_over("both players agree")
        return self._flush()

    def dead(self, *vertices: str) -> list[Notice]:
        """Mark (or, if marked, unmark) the whole chain through each vertex as dead."""
        self._check_playing()
        if not self.board.is_game_over():
            raise ArbiterError("dead stones are marked when play is over (two passes)")
        chains = []
        for v in vertices:
            try:
                p = go.Point.from_gtp(v, self.board.size)
            except go.GoError as e:
                raise ArbiterError(str(e)) from None
            chain = self.board.group(p)
            if not chain:
                raise ArbiterError("%s holds no stone" % p.gtp())
            chains.append(chain)
        for chain in chains:
            if chain <= self.dead_stones:
                self.dead_stones -= chain
            else:
                self.dead_stones |= chain
        sc = self.score()
        self._say(
            "info",
            "%d dead stones marked; the count now: %s (%s)"
            % (len(self.dead_stones), sc.chinese(), sc.sgf()),
            "GO-6",
        )
        return self._flush()

    def score(self) -> go.Score:
        """The area count with the dead stones marked (GO-6) and komi (GO-7)."""
        return self.board.score(self.dead_stones)

    def count(self) -> list[Notice]:
        """End the game by the count; the clock shows the result."""
        self._check_playing()
        out = self.board.outcome(self.dead_stones)
        if out is None or out.score is None:
            raise ArbiterError("play is not over: two passes (or agreement) come first")
        sc = out.score
        text = "%s (%s): Black %s, White %s, komi %s" % (
            out.chinese(),
            out.sgf(),
            _num(sc.black),
            _num(sc.white),
            _num(sc.komi),
        )
        self.outcome = out
        self._end(Result(None if out.winner is None else _side(out.winner), text, "GO-6"))
        return self._flush()

    def resign(self, who: int | str) -> list[Notice]:
        self._check_playing()
        side = self.side(who)
        if not self.board.is_game_over():  # after two passes it stands on the record only
            self.board.resign(_color(side))
            self.outcome = self.board.outcome()
        why = "%s resigns (%s)" % (self.name(side), self._re(1 - side, "R"))
        self._end(Result(1 - side, why, "GO-5"))
        return self._flush()

    def _flagged(self, side: int) -> None:
        if not self.board.is_game_over():
            self.board.lose_on_time(_color(side))
            self.outcome = self.board.outcome()
        self._end(
            Result(
                1 - side,
                "%s's time is up (%s)" % (self.name(side), self._re(1 - side, "T")),
                _TIME_RULE.get(self.tc.overtime.kind if self.tc.overtime else "", "TC-3"),
                "time forfeit",
            )
        )

    def _re(self, winner: int | None = None, tail: str = "F") -> str:
        """SGF ``RE`` for the result so far."""
        if self.outcome is not None:
            return self.outcome.sgf()
        if winner is None:
            r = self.result
            if r is None:
                return ""
            winner = r.winner
            if winner is None:
                return "0"
        return "%s+%s" % (_color(winner).letter, tail)

    # -- the record ------------------------------------------------------------------

    def record(self) -> go_sgf.GoRecord:
        """The game as a ``go_sgf.GoRecord`` with every known clock time."""
        times: list[go_sgf.MoveTime | None] = []
        for p in self.played:
            ms = p.clock_ms
            times.append(None if ms is None else go_sgf.MoveTime(ms, p.overtime_count))
        while times and times[-1] is None:
            times.pop()
        return go_sgf.GoRecord(
            self.board,
            black=self.black,
            white=self.white,
            date=self.date,
            time_control=self.tc,
            times=times,
            result=self._re() if self.result is not None else "",
            properties=dict(self.properties),
        )

    def sgf(self) -> bytes:
        """The record as SGF FF[4] (UTF-8)."""
        return go_sgf.write(self.record())

    def record_text(self) -> str:
        return self.sgf().decode("utf-8")

    def suffix(self) -> str:
        return ".sgf"


def _num(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else "%g" % float(q)


def handicap_points(size: int, stones: int) -> list[go.Point]:
    """The fixed handicap placement on the star points (2 to 9 stones; 9x9: up to 5):
    the two opposite corners, then the third and fourth corners, then the centre
    (an odd number), then the sides' middles."""
    if size not in (9, 13, 19) or not 2 <= stones <= (5 if size == 9 else 9):
        raise ArbiterError("handicap: 2 to %d stones on %dx%d, not %d"
                           % (5 if size == 9 else 9, size, size, stones))  # fmt: skip
    lo = 3 if size == 9 else 4
    hi, mid = size + 1 - lo, (size + 1) // 2
    corners = [(hi, hi), (lo, lo), (hi, lo), (lo, hi)]  # (column, row) from 1: Q16 D4 Q4 D16
    sides = [(lo, mid), (hi, mid), (mid, lo), (mid, hi)]
    centre = [(mid, mid)]
    if stones <= 4:
        pts = corners[:stones]
    elif stones == 5:
        pts = corners + centre
    elif stones == 6:
        pts = corners + sides[:2]
    elif stones == 7:
        pts = corners + sides[:2] + centre
    elif stones == 8:
        pts = corners + sides
    else:
        pts = corners + sides + centre
    return [go.Point(c - 1, r - 1) for c, r in pts]
