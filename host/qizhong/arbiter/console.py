# SPDX-License-Identifier: GPL-3.0-or-later
"""The arbiter's console without a terminal: one session's typed lines.

``Console`` is the command interpreter: ``handle(line)`` takes one typed line
(a move, or a command) and returns the lines to show; ``poll()`` returns what
the clock reported meanwhile; ``hint(text)`` is the instant check of a line
being typed (the move it reads as, or the legal moves that start with it);
``status()`` the live clocks. ``make_session`` makes the session its options
ask for, and ``replay`` runs a journal's actions again (a resumed console,
the hall server's restart). The terminal around it is ``qizhong arbiter``'s
(``qizhong.cli.arbiter``); the hall server runs the same ``Console`` over its
store (``qizhong.server.session``).
"""

from __future__ import annotations

import argparse
import datetime
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from qizhong.rules.ref import see_rules

if TYPE_CHECKING:  # the sessions load with the console's first use
    from qizhong.arbiter.chess import ChessSession
    from qizhong.arbiter.go import GoSession
    from qizhong.arbiter.journal import Journal
    from qizhong.arbiter.session import GameSession, Notice
    from qizhong.arbiter.xiangqi import XiangqiSession
    from qizhong.clocks.driver import Clock

_PREFIX = {"end": "== ", "foul": "!! ", "warn": "!  ", "rule": "*  ", "move": "", "info": "   "}

_XQ_HELP = """\
moves: type them as they are made, 记谱 (炮二平五), WXF (C2.5) or ICCS (h2e2);
       end with ? for the legal moves starting so (炮二?). SIDE: red/black (r/b, 红/黑)
start | pause | resume            the clock
foul SIDE [why]                   a foul (XQ-R17: two lose)
nomove SIDE                       pressed without moving (XQ-R19)
claim SIDE [limit|rep]            natural move limit (XQ-R20) or repetition (XQ-R24):
                                  the engine proposes a ruling with its reasons
confirm [note]                    confirm the engine's proposal
overrule draw|red|black|play [why] overrule it (play: the game goes on)
unrule                            undo the last ruling (a result, a foul, the time)
offer SIDE | accept | decline     draw offers (XQ-R18)
resign SIDE | phone SIDE          resignation; a phone (XQ-R25)
knock SIDE                        SIDE knocked the clock over (EQ-5)
penalty SIDE -30s|+1m [why]       time off (or added to) SIDE's clock
draw [why] | win SIDE [why]       the arbiter's ruling
undo | moves | status | save [PATH] | quit
rule IDs (XQ-R19, EQ-5 ...): see docs/rules.md"""

_GO_HELP = """\
moves: type the point (Q16) or pass as each stone is placed; ? lists points.
       SIDE: black/white (b/w, 黑/白)
start | pause | resume            the clock
resign SIDE | agree               the end of play (GO-5); two passes end it too
dead POINT...                     mark (or unmark) dead chains, after play
score | count                     the area count (GO-6, GO-7); count ends the game
knock SIDE                        SIDE knocked the clock over (EQ-5)
penalty SIDE -30s|+1m [why]       time off (or added to) SIDE's clock
foul SIDE [why] | draw [why] | win SIDE [why]
undo | moves | status | save [PATH] | quit
rule IDs (GO-5, EQ-5 ...): see docs/rules.md"""

_CHESS_HELP = """\
moves: type them as they are made, SAN (Nf3), LAN (Ng1-f3) or UCI (g1f3), in the
       session's piece letters (--lang) or figurines; ? lists the legal moves.
       SIDE: white/black (w/b)
start | pause | resume            the clock
illegal SIDE [two-hands|promotion] SIDE's last move was illegal (CH-1, 7.5)
nomove SIDE                       SIDE pressed without moving (CH-1, 7.5.3)
claim SIDE threefold|fifty [MOVE] a draw claim by the player to move (CH-4, 9.2, 9.3)
offer SIDE | accept | decline     draw offers (9.1.2)
resign SIDE                       resignation (5.1.2)
adjust SIDE SECONDS [why]         the arbiter adds (or takes, -30) time (12.9)
quickplay SIDE                    no increment, under 2 min: ask for +5 s a move (III.4)
knock SIDE                        SIDE knocked the clock over (EQ-5)
draw [why] | win SIDE [why]       the arbiter's ruling
board [PATH]                      the position (FEN), or its picture as SVG to PATH
undo | moves | status | save [PATH] | quit"""


class Console:
    """The arbiter's console over one session, without a terminal."""

    def __init__(
        self, session: GameSession, out: str | None = None, journal: Journal | None = None
    ) -> None:
        """``out``: the record file, kept up to date from now on (a taken path
        is refused); a session that already keeps one needs none. ``journal``:
        where each typed line and the clock's answers go (``--out``'s journal)."""
        from qizhong.arbiter.chess import ChessSession
        from qizhong.arbiter.go import GoSession
        from qizhong.arbiter.xiangqi import XiangqiSession

        self.session = session
        self.xq: XiangqiSession | None = session if isinstance(session, XiangqiSession) else None
        self.gs: GoSession | None = session if isinstance(session, GoSession) else None
        self.cs: ChessSession | None = session if isinstance(session, ChessSession) else None
        if out is not None and session.record_path is None:
            session.keep(out)
        self.journal = journal
        self.copies: set[str] = set()  # paths `save PATH` wrote
        self.ended = session.over  # the end was reported
        self.on_end: Callable[[], None] | None = None  # called once when the game ends
        self.done = False
        self.cue = ""  # the clock's last voice reading
        common: dict[str, Callable[[list[str]], list[str]]] = {
            "help": self._help,
            "?": self._help,
            "start": lambda a: self._lines(session.start()),
            "pause": lambda a: self._lines(session.pause()),
            "resume": lambda a: self._lines(session.resume()),
            "foul": self._foul,
            "penalty": self._penalty,
            "knock": lambda a: self._lines(session.knock(self._one(a))),
            "draw": lambda a: self._lines(session.declare(None, " ".join(a))),
            "win": self._win,
            "undo": lambda a: self._lines(session.take_back()),
            "moves": self._moves,
            "status": lambda a: [self.status()],
            "save": self._save,
            "quit": self._quit,
            "resign": lambda a: self._lines(self._resign(self._one(a))),
            "late": self._late,
        }
        if self.xq is not None:
            xq = self.xq
            common.update(
                {
                    "nomove": lambda a: self._lines(xq.no_move(self._one(a))),
                    "claim": self._claim,
                    "offer": lambda a: self._lines(xq.offer(self._one(a))),
                    "accept": lambda a: self._lines(xq.accept()),
                    "decline": lambda a: self._lines(xq.decline()),
                    "phone": lambda a: self._lines(xq.phone(self._one(a))),
                    "confirm": lambda a: self._lines(xq.confirm(" ".join(a))),
                    "overrule": self._overrule,
                    "unrule": self._unrule,
                }
            )
        elif self.gs is not None:
            gs = self.gs
            common.update(
                {
                    "dead": lambda a: self._lines(gs.dead(*a)),
                    "score": self._score,
                    "count": lambda a: self._lines(gs.count()),
                    "agree": lambda a: self._lines(gs.agree()),
                }
            )
        elif self.cs is not None:
            cs = self.cs
            common.update(
                {
                    "illegal": lambda a: self._lines(
                        cs.illegal(self._one(a), a[1].lower() if len(a) > 1 else "move")
                    ),
                    "nomove": lambda a: self._lines(cs.no_move(self._one(a))),
                    "claim": self._chess_claim,
                    "offer": lambda a: self._lines(cs.offer(self._one(a))),
                    "accept": lambda a: self._lines(cs.accept()),
                    "decline": lambda a: self._lines(cs.decline()),
                    "adjust": self._adjust,
                    "quickplay": lambda a: self._lines(cs.quickplay(self._one(a))),
                    "board": self._board,
                }
            )
        self.commands = common

    # -- lines in, lines out ---------------------------------------------------------

    @property
    def out(self) -> str | None:
        """The record file."""
        return self.session.record_path

    def handle(self, line: str) -> list[str]:
        """One typed line: a command or a move. Never raises for bad input."""
        if self.journal is None:
            return self._handle(line)
        with self.journal.action("handle", line):
            out = self._handle(line)
        self.journal.said(out)
        return out

    def _handle(self, line: str) -> list[str]:
        from qizhong.arbiter.session import ArbiterError

        text = line.strip()
        if text.split()[:1] == ["late"]:  # before the events it speaks of are taken
            try:
                self._late(text.split()[1:])
            except ArbiterError as e:
                return [see_rules("?  %s" % e)]
        out = self._poll(0.0)
        if not text:
            return [*out, self.status()]
        words = text.split()
        verb = words[0].lower()
        try:
            if verb in self.commands:
                out += self.commands[verb](words[1:])
            elif text.endswith("?"):
                out += self._suggestions(text[:-1])
            else:
                out += self._lines(self._move(text))
        except ArbiterError as e:
            out.append(see_rules("?  %s" % e))
        return out + self._after()

    def poll(self, timeout: float = 0.0) -> list[str]:
        """What the clock reported since the last call."""
        if self.journal is None:
            return self._poll(timeout)
        with self.journal.action("poll"):
            out = self._poll(timeout)
        self.journal.said(out)
        return out

    def _poll(self, timeout: float) -> list[str]:
        return self._lines(self.session.poll(timeout)) + self._after()

    def _after(self) -> list[str]:
        """At the end of the game: the record, result and all, is on disk."""
        if self.ended and not self.session.over:  # the result was undone (unrule): it goes on
            self.ended = False
            return []
        if not self.session.over or self.ended:
            return []
        self.ended = True
        if self.on_end is not None:
            self.on_end()
        if self.out:
            text = self.session.record_text()
            try:
                with open(self.out, encoding="utf-8") as f:
                    kept = f.read() == text
            except (OSError, ValueError):
                kept = False
            if not kept:  # the folder went away, the disk filled: shown here, not lost
                return ["?  the record is not in %s; here it is:" % self.out, *text.splitlines()]
            return ["   record written to %s" % self.out]
        return []

    def _lines(self, notices: list[Notice]) -> list[str]:
        out = []
        for n in notices:
            if n.kind == "cue":
                self.cue = n.text
                continue
            out.append(_PREFIX.get(n.kind, "   ") + str(n))
        return out

    def status(self) -> str:
        """The live clocks, and the last voice reading."""
        line = self.session.status_line()
        r = self.session.result
        if r is not None:
            return line + "  | " + self.session.result_text() + (" (%s)" % r.rule if r.rule else "")
        return line + ("  (%s)" % self.cue if self.cue else "")

    def close(self) -> list[str]:
        """Leaving: the clock's last events go into the record (kept all along)
        and the journal, from which a new console resumes an unfinished game."""
        out = self.poll()
        if self.journal is not None:
            self.journal.close()
        if not self.session.over and self.out:
            out.append("   the game goes on: `qizhong arbiter` on this clock resumes it")
        return out

    # -- typing ----------------------------------------------------------------------

    def _move(self, text: str) -> list[Notice]:
        s = self.xq or self.gs or self.cs
        if s is None:
            raise _error("this session takes no moves")
        return s.move(text)

    def suggest(self, text: str) -> list[str]:
        s = self.xq or self.gs or self.cs
        if s is not None and not s.over:
            return s.suggest(text)
        return []

    def hint(self, text: str) -> str:
        """The instant check of a line being typed."""
        t = text.strip()
        if not t:
            return ""
        verb = t.split()[0].lower()
        if verb in self.commands:
            return "command: %s" % verb
        if t.endswith("?"):
            return "enter: list the legal moves starting %r" % t[:-1]
        try:
            if self.xq is not None:
                board = self.xq.board
                return "= %s" % board.notation(board.parse_notation(t))
            if self.gs is not None:
                mv = self.gs.board.parse_gtp(t)
                reason = self.gs.board.illegal_reason(mv)
                if reason is None:
                    return "= %s" % mv.gtp()
                return "not legal: %s" % reason.value
            if self.cs is not None:
                cb, lang = self.cs.board, self.cs.lang
                return "= %s" % cb.notation(cb.parse_move(t, lang), "san", lang)
        except ValueError:  # not a move (XiangqiError, GoError, ChessError)
            pass
        words = [c for c in self.commands if c.startswith(verb)]
        found = self.suggest(t)
        if found:
            return "  ".join(found[:10]) + (" ..." if len(found) > 10 else "")
        if words:
            return "command: %s" % " ".join(words)
        return "no legal move starts with %r" % t

    def complete(self, text: str) -> str:
        """``text`` extended as far as the legal moves starting with it agree."""
        found = self.suggest(text.strip())
        if not found:
            return text
        head = found[0]
        for f in found[1:]:
            n = 0
            while n < min(len(head), len(f)) and head[n] == f[n]:
                n += 1
            head = head[:n]
        return head or text

    def _suggestions(self, text: str) -> list[str]:
        found = self.suggest(text)
        if not found:
            return ["?  no legal move starts with %r" % text.strip()]
        return ["   " + "  ".join(found[i : i + 8]) for i in range(0, len(found), 8)]

    # -- commands --------------------------------------------------------------------

    def _one(self, args: list[str]) -> str:
        if not args:
            raise _error("which side? (%s)" % " or ".join(self.session.SIDES).lower())
        return args[0]

    def _help(self, args: list[str]) -> list[str]:
        return (_GO_HELP if self.gs else _CHESS_HELP if self.cs else _XQ_HELP).splitlines()

    def _resign(self, who: str) -> list[Notice]:
        s = self.xq or self.gs or self.cs
        if s is None:
            raise _error("no resignation here")
        return s.resign(who)

    def _foul(self, args: list[str]) -> list[str]:
        return self._lines(self.session.foul(self._one(args), " ".join(args[1:])))

    def _penalty(self, args: list[str]) -> list[str]:
        """``penalty SIDE -30s [why]``: time off (or, with +, added to) SIDE's clock."""
        from qizhong.core import tcspec

        if len(args) < 2 or args[1][:1] not in "+-":
            raise _error("penalty SIDE -TIME or +TIME, such as penalty red -30s")
        try:
            reader = tcspec._Reader(args[1][1:])  # the time control's durations: 30s, 1m
            ms = reader.duration("the penalty")
            if not reader.done():
                reader.fail("expected a time such as 30s")
        except tcspec.SpecError as e:
            raise _error("penalty: %s" % e.msg) from None
        ms = -ms if args[1][0] == "-" else ms
        return self._lines(self.session.penalty(self._one(args), ms, " ".join(args[2:])))

    def _win(self, args: list[str]) -> list[str]:
        return self._lines(self.session.declare(self._one(args), " ".join(args[1:])))

    def _claim(self, args: list[str]) -> list[str]:
        s = self.xq
        assert s is not None
        what = args[1].lower() if len(args) > 1 else "limit"
        if what in ("limit", "l", "限着"):
            return self._lines(s.claim_natural_limit(self._one(args)))
        if what in ("rep", "repetition", "r", "重复"):
            return self._lines(s.claim_repetition(self._one(args)))
        raise _error("claim SIDE limit, or claim SIDE rep")

    def _chess_claim(self, args: list[str]) -> list[str]:
        s = self.cs
        assert s is not None
        if len(args) < 2:
            raise _error("claim SIDE threefold [MOVE], or claim SIDE fifty [MOVE]")
        move = " ".join(args[2:]) or None
        return self._lines(s.claim(args[0], args[1], move))

    def _adjust(self, args: list[str]) -> list[str]:
        s = self.cs
        assert s is not None
        if len(args) < 2:
            raise _error("adjust SIDE SECONDS [why], e.g. adjust white -30")
        try:
            ms = round(float(args[1]) * 1000)
        except (ValueError, OverflowError):  # not a number, nan, inf, 1e400
            raise _error("adjust SIDE SECONDS: %r is not a number" % args[1]) from None
        if not abs(ms) <= 360000000:  # no time a clock holds (100 h at most)
            raise _error("adjust SIDE SECONDS: %r is not a time a clock holds" % args[1])
        return self._lines(s.adjust(args[0], ms, " ".join(args[2:])))

    def _board(self, args: list[str]) -> list[str]:
        s = self.cs
        assert s is not None
        if not args:
            return ["   " + s.board.fen()]
        try:
            with open(args[0], "x", encoding="utf-8") as f:
                f.write(s.svg())
        except OSError as e:
            raise _error("cannot write %s: %s" % (args[0], e.strerror or e)) from None
        return ["   the position drawn to %s" % args[0]]

    def _unrule(self, args: list[str]) -> list[str]:
        s = self.xq
        assert s is not None
        return self._lines(s.undo_ruling())  # the kept record follows (no result)

    def _overrule(self, args: list[str]) -> list[str]:
        s = self.xq
        assert s is not None
        if not args:
            raise _error("overrule draw, red, black or play, then why")
        return self._lines(s.overrule(args[0], " ".join(args[1:])))

    def _score(self, args: list[str]) -> list[str]:
        s = self.gs
        assert s is not None
        sc = s.score()
        return ["   %s (%s), %d dead stones marked" % (sc.chinese(), sc.sgf(), len(s.dead_stones))]

    def _moves(self, args: list[str]) -> list[str]:
        out = []
        for p in self.session.played:
            t = "" if p.clock_ms is None else "  %s left" % _ms(p.clock_ms)
            u = "" if p.used_ms is None else ", %s used" % _ms(p.used_ms)
            out.append("%4d. %-6s %s%s%s" % (p.ply, self.session.name(p.side), p.text, t, u))
        return out or ["   no moves yet"]

    def _save(self, args: list[str]) -> list[str]:
        """``save``: the record file now (it is kept after every change anyway);
        ``save PATH``: a copy, never over a file this console did not write."""
        path = args[0] if args else self.out
        if not path:
            raise _error("save PATH")
        mine = path == self.out or path in self.copies
        self.session.save(path, replace=mine)
        if path != self.out:
            self.copies.add(path)
        return ["   record written to %s" % path]

    def _late(self, args: list[str]) -> list[str]:
        """``late SEQ``: the clock's events up to SEQ came while no console
        watched (the hall server's, after its restart): their presses wait for
        their moves, as on a resumed console."""
        try:
            seq = int(args[0])
        except (IndexError, ValueError):
            raise _error("late SEQ (a clock event number)") from None
        self.session.late_upto = max(self.session.late_upto, seq)
        return []

    def _quit(self, args: list[str]) -> list[str]:
        self.done = True
        return []


def _error(text: str) -> ValueError:
    from qizhong.arbiter.session import ArbiterError

    return ArbiterError(text)


def _ms(ms: int) -> str:
    s = ms // 1000
    return "%d:%02d" % (s // 60, s % 60) if ms >= 20000 else "%d.%d" % (s, ms // 100 % 10)


def make_session(args: argparse.Namespace, clock: Clock) -> GameSession:
    """The session the command line asks for."""
    from qizhong.arbiter.chess import ChessSession
    from qizhong.arbiter.go import GoSession
    from qizhong.arbiter.xiangqi import XiangqiSession

    # --date: a date from the command line, its ISO text from a journal
    today = game_date(args.date) if isinstance(args.date, str) else args.date
    today = today or datetime.date.today()
    configure = bool(getattr(args, "configure", True))  # False: the clock is set up already
    # a round's board number (the hall's): the record's [Board] (SGF: GN names it)
    board: dict[str, Any] = {"Board": str(args.board)} if getattr(args, "board", None) else {}
    if args.game == "chess":
        return ChessSession(
            clock,
            args.spec or "rapid",
            left=args.left or "white",
            fen=args.fen,
            chess960=args.chess960 if args.chess960 is not None else False,
            lang=args.lang,
            strict=not args.late_entry,
            emt=args.emt,
            configure=configure,
            Event=args.event or "",
            Site=args.site or "",
            Date=today.strftime("%Y.%m.%d"),
            Round=args.round or "",
            White=args.white or "",
            Black=args.black or "",
            **board,
        )
    if args.game == "go":
        return GoSession(
            clock,
            args.spec or "go-byoyomi",
            size=args.size,
            komi=args.komi,
            left=args.left or "white",
            configure=configure,
            black=args.black or "",
            white=args.white or "",
            date=today.isoformat(),
            handicap=int(getattr(args, "handicap", 0) or 0),
            properties={
                k: v
                for k, v in (
                    ("EV", args.event),
                    ("RO", args.round),
                    ("PC", args.site),
                    ("GN", "board %s" % board["Board"] if board else ""),
                )
                if v
            },
        )
    return XiangqiSession(
        clock,
        args.spec or "xq-rapid",
        left=args.left or "red",
        fen=args.fen,
        knockout=True if args.knockout else None,
        strict=not args.late_entry,
        repetition=args.repetition,
        configure=configure,
        Event=args.event or "",
        Site=args.site or "",
        Date=today.strftime("%Y.%m.%d"),
        Round=args.round or "",
        Red=args.red or "",
        Black=args.black or "",
        **board,
    )


def game_date(text: str) -> datetime.date:
    """``--date``: a real calendar date, 2026-05-01 or 2026.05.01 (as PGN writes it)."""
    try:
        return datetime.date.fromisoformat(text.strip().replace(".", "-"))
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a date: YYYY-MM-DD" % text) from None


KEPT_ARGS = ("game", "spec", "left", "red", "black", "white", "event", "site", "round",
              "date", "fen", "knockout", "late_entry", "size", "komi", "lang", "chess960",
              "emt", "repetition", "board", "handicap")  # fmt: skip


def replay(
    header: dict[str, Any],
    actions: list[tuple[list[Any], list[dict[str, Any]]]],
    journal: Journal,
    late: int = 0,
    spans: list[tuple[int, int]] | None = None,
) -> Console:
    """The console of a journal's game, every action run again on the clock's
    journaled answers (whichever backend kept them: a file, the hall server's
    store). ``late``: presses up to this event came while nobody watched;
    ``spans``: this resume's (after, upto] span of such presses, beside the
    spans the journal keeps."""
    ns = argparse.Namespace(**header["args"])
    tape = journal.tape
    last = len(actions) - 1
    with journal.replaying(actions[0][1], last == 0):
        session = make_session(ns, cast("Clock", tape))
    session.late_upto = late
    session.late = [*header.get("late", []), *(spans or [])]
    session.hold_record = True
    console = Console(session, journal=journal)
    for i, (typed, answers) in enumerate(actions[1:], 1):
        with journal.replaying(answers, i == last):
            if typed[0] == "handle":
                console._handle(str(typed[1]))
            elif typed[0] == "poll":
                console._poll(0.0)
    session.hold_record = False
    console.done = False  # a `quit` in the journal ended that console, not this one
    return console
