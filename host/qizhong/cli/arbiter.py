# SPDX-License-Identifier: GPL-3.0-or-later
"""``qizhong arbiter``: the arbiter's console at the table (docs/arbiter.md).

``Console`` is the whole console without a terminal: ``handle(line)`` takes
one typed line (a move, or a command) and returns the lines to show;
``poll()`` returns what the clock reported meanwhile; ``hint(text)`` is the
instant check of a line being typed (the move it reads as, or the legal moves
that start with it); ``status()`` the live clocks. ``run_terminal`` is the
thin loop around it: on a terminal it redraws the clocks, the hint and the
prompt as keys come; from a pipe it reads one line at a time.
"""

from __future__ import annotations

import argparse
import codecs
import datetime
import os
import selectors
import signal
import sys
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from qizhong.cli import clock as cli_clock

if TYPE_CHECKING:  # the sessions load with the console, not with every `qizhong` command
    from qizhong.arbiter.chess import ChessSession
    from qizhong.arbiter.go import GoSession
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
claim SIDE [limit|rep]            natural move limit (XQ-R20) or repetition (XQ-R24)
offer SIDE | accept | decline     draw offers (XQ-R18)
resign SIDE | phone SIDE          resignation; a phone (XQ-R25)
knock SIDE                        SIDE knocked the clock over (EQ-5)
draw [why] | win SIDE [why]       the arbiter's ruling
undo | moves | status | save [PATH] | quit"""

_GO_HELP = """\
moves: type the point (Q16) or pass as each stone is placed; ? lists points.
       SIDE: black/white (b/w, 黑/白)
start | pause | resume            the clock
resign SIDE | agree               the end of play (GO-5); two passes end it too
dead POINT...                     mark (or unmark) dead chains, after play
score | count                     the area count (GO-6, GO-7); count ends the game
knock SIDE                        SIDE knocked the clock over (EQ-5)
foul SIDE [why] | draw [why] | win SIDE [why]
undo | moves | status | save [PATH] | quit"""

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

    def __init__(self, session: GameSession, out: str | None = None) -> None:
        from qizhong.arbiter.chess import ChessSession
        from qizhong.arbiter.go import GoSession
        from qizhong.arbiter.xiangqi import XiangqiSession

        self.session = session
        self.xq: XiangqiSession | None = session if isinstance(session, XiangqiSession) else None
        self.gs: GoSession | None = session if isinstance(session, GoSession) else None
        self.cs: ChessSession | None = session if isinstance(session, ChessSession) else None
        self.out = out  # where the record goes at the end
        self.saved: str | None = None
        self.done = False
        self.cue = ""  # the clock's last voice reading
        common: dict[str, Callable[[list[str]], list[str]]] = {
            "help": self._help,
            "?": self._help,
            "start": lambda a: self._lines(session.start()),
            "pause": lambda a: self._lines(session.pause()),
            "resume": lambda a: self._lines(session.resume()),
            "foul": self._foul,
            "knock": lambda a: self._lines(session.knock(self._one(a))),
            "draw": lambda a: self._lines(session.declare(None, " ".join(a))),
            "win": self._win,
            "undo": lambda a: self._lines(session.take_back()),
            "moves": self._moves,
            "status": lambda a: [self.status()],
            "save": self._save,
            "quit": self._quit,
            "resign": lambda a: self._lines(self._resign(self._one(a))),
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

    def handle(self, line: str) -> list[str]:
        """One typed line: a command or a move. Never raises for bad input."""
        from qizhong.arbiter.session import ArbiterError

        out = self.poll()
        text = line.strip()
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
            out.append("?  %s" % e)
        return out + self._after()

    def poll(self, timeout: float = 0.0) -> list[str]:
        """What the clock reported since the last call."""
        return self._lines(self.session.poll(timeout)) + self._after()

    def _after(self) -> list[str]:
        """At the end of the game the record is written once."""
        if self.session.over and self.saved is None and self.out:
            return self._write(self.out)
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
        """Leaving: the record is written if it was not yet."""
        out = self.poll()
        if self.saved is None and self.out:
            out += self._write(self.out)
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
            secs = float(args[1])
        except ValueError:
            raise _error("adjust SIDE SECONDS: %r is not a number" % args[1]) from None
        if not abs(secs) <= 360000:  # nan, inf, 1e400: no time on a clock (100h at most)
            raise _error("adjust SIDE SECONDS: %r is not a time a clock holds" % args[1])
        return self._lines(s.adjust(args[0], round(secs * 1000), " ".join(args[2:])))

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
        path = args[0] if args else self.out
        if not path:
            raise _error("save PATH")
        return self._write(path)

    def _write(self, path: str) -> list[str]:
        from qizhong.arbiter.session import ArbiterError

        try:
            self.saved = self.session.save(path)
        except ArbiterError as e:
            self.saved = ""  # tried: not again at every line
            # the record is not lost: shown here, to be copied (save PATH tries again)
            return ["?  %s; the record:" % e, *self.session.record_text().splitlines()]
        return ["   record written to %s" % path]

    def _quit(self, args: list[str]) -> list[str]:
        self.done = True
        return []


def _error(text: str) -> ValueError:
    from qizhong.arbiter.session import ArbiterError

    return ArbiterError(text)


def _ms(ms: int) -> str:
    s = ms // 1000
    return "%d:%02d" % (s // 60, s % 60) if ms >= 20000 else "%d.%d" % (s, ms // 100 % 10)


# -- the terminal -----------------------------------------------------------------------


def run_terminal(console: Console, stdin: IO[str], stdout: IO[str]) -> int:
    """The console on a terminal (redrawn as keys come), or line by line from a pipe."""
    for line in console.poll():
        print(line, file=stdout)
    if not stdin.isatty():
        try:
            for line in stdin:
                for out in console.handle(line):
                    print(out, file=stdout)
                if console.done:
                    break
        except KeyboardInterrupt:  # Ctrl-C (or SIGTERM, SIGHUP): the record is still written
            pass
        for out in console.close():
            print(out, file=stdout)
        return 0
    return _tty(console, stdin, stdout)


def _tty(console: Console, stdin: IO[str], stdout: IO[str]) -> int:  # pragma: no cover
    import termios
    import tty

    fd = stdin.fileno()
    old = termios.tcgetattr(fd)
    tty.setcbreak(fd)
    dec = codecs.getincrementaldecoder("utf-8")(errors="replace")
    sel = selectors.DefaultSelector()
    sel.register(fd, selectors.EVENT_READ)
    buf = ""
    drawn = False
    print("type help for the commands", file=stdout)
    try:
        while not console.done:
            above = console.poll()
            for _ in sel.select(0.2):
                data = os.read(fd, 1024)
                if not data:
                    console.done = True
                for ch in dec.decode(data):
                    if ch in "\r\n":
                        above += ["> " + buf, *console.handle(buf)]
                        buf = ""
                    elif ch in "\x7f\b":
                        buf = buf[:-1]
                    elif ch == "\t":
                        buf = console.complete(buf)
                    elif ch == "\x04" and not buf:
                        console.done = True
                    elif ch >= " ":
                        buf += ch
            if drawn:
                stdout.write("\r\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K")
            for line in above:
                stdout.write(line + "\n")
            stdout.write("%s\n%s\n> %s" % (console.status(), console.hint(buf), buf))
            stdout.flush()
            drawn = True
    except KeyboardInterrupt:
        pass
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)
        stdout.write("\n")
        for line in console.close():
            stdout.write(line + "\n")
        stdout.flush()
    return 0


# -- the command ------------------------------------------------------------------------


def make_session(args: argparse.Namespace, clock: Clock) -> GameSession:
    """The session the command line asks for."""
    from qizhong.arbiter.chess import ChessSession
    from qizhong.arbiter.go import GoSession
    from qizhong.arbiter.xiangqi import XiangqiSession

    today = datetime.date.today()
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
            Event=args.event or "",
            Site=args.site or "",
            Date=(args.date or today).strftime("%Y.%m.%d"),
            Round=args.round or "",
            White=args.white or "",
            Black=args.black or "",
        )
    if args.game == "go":
        return GoSession(
            clock,
            args.spec or "go-byoyomi",
            size=args.size,
            komi=args.komi,
            left=args.left or "white",
            black=args.black or "",
            white=args.white or "",
            date=(args.date or today).isoformat(),
            properties={
                k: v for k, v in (("EV", args.event), ("RO", args.round), ("PC", args.site)) if v
            },
        )
    return XiangqiSession(
        clock,
        args.spec or "xq-rapid",
        left=args.left or "red",
        fen=args.fen,
        knockout=True if args.knockout else None,
        strict=not args.late_entry,
        Event=args.event or "",
        Site=args.site or "",
        Date=(args.date or today).strftime("%Y.%m.%d"),
        Round=args.round or "",
        Red=args.red or "",
        Black=args.black or "",
    )


def game_date(text: str) -> datetime.date:
    """``--date``: a real calendar date, 2026-05-01 or 2026.05.01 (as PGN writes it)."""
    try:
        return datetime.date.fromisoformat(text.strip().replace(".", "-"))
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a date: YYYY-MM-DD" % text) from None


def cmd_arbiter(
    args: argparse.Namespace, stdin: IO[str] | None = None, stdout: IO[str] | None = None
) -> int:
    from qizhong.arbiter.chess import ChessSession
    from qizhong.arbiter.session import free_path
    from qizhong.arbiter.xiangqi import XiangqiSession

    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    if args.out:  # bad input before the clock is asked: a record nowhere to go is lost
        folder = os.path.dirname(os.path.abspath(args.out))
        if os.path.exists(args.out):
            raise ValueError("--out %s exists: it is never overwritten; name another" % args.out)
        if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
            raise ValueError("--out %s: no folder %s to write it in" % (args.out, folder))
    with cli_clock._clock(args) as clock:
        session = make_session(args, clock)
        out = args.out
        if not out:
            stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
            out = free_path("qizhong-%s%s" % (stamp, session.suffix()))
        console = Console(session, out)
        game_name = {"go": "Go", "chess": "Chess"}.get(args.game, "Xiangqi")
        print("%s game, %s; the record goes to %s" % (
            game_name, session.spec, out), file=stdout)  # fmt: skip
        if isinstance(session, ChessSession):
            print("   %s play: an illegal move or a wrong claim gives the opponent %d min (CH-5)%s"
                  % (session.time_class.value, session.penalty // 60000,
                     "; Armageddon: a draw is a win for Black (CH-6)"
                     if session.armageddon else ""), file=stdout)  # fmt: skip
        if isinstance(session, XiangqiSession) and session.rounds_limit:
            print("   at most %d rounds a day at this control (XQ-R27)" % session.rounds_limit,
                  file=stdout)  # fmt: skip

        def stop(signum: int, frame: object) -> None:
            raise KeyboardInterrupt  # as Ctrl-C: the console ends and writes the record

        old = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
        try:
            return run_terminal(console, stdin, stdout)
        finally:
            for sig, handler in old.items():
                signal.signal(sig, handler)


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``qizhong arbiter``."""
    s = sub.add_parser(
        "arbiter",
        help="the arbiter's console: the record synced with the clock",
        description="Keep a game's record at the table, synced with the clock's presses, "
        "and apply the rules with the clock's times (docs/arbiter.md). Type moves as they "
        "are made; `help` lists the commands. The record (PGN or SGF) is written at the end.",
    )
    s.add_argument("--game", choices=["xiangqi", "go", "chess"], default="xiangqi")
    s.add_argument("--port", help="serial device (default: $QIZHONG_PORT, or the one Pico)")
    s.add_argument(
        "--timeout", type=cli_clock._timeout, default=2.0, help="seconds to wait for a reply"
    )
    s.add_argument("--spec", help="time control (default xq-rapid, go-byoyomi, chess rapid)")
    s.add_argument(
        "--left",
        choices=["red", "black", "white"],
        help="whose lever is the left one (EQ-1; default red, in Go and chess white)",
    )
    s.add_argument("--out", help="the record file (default qizhong-DATE-TIME.pgn or .sgf)")
    s.add_argument("--red", help="Red's name")
    s.add_argument("--black", help="Black's name")
    s.add_argument("--white", help="White's name (Go, chess)")
    s.add_argument("--event")
    s.add_argument("--site")
    s.add_argument("--round")
    s.add_argument("--date", type=game_date, help="YYYY-MM-DD (or YYYY.MM.DD); default today")
    s.add_argument("--fen", help="Xiangqi, chess: a starting position")
    s.add_argument(
        "--knockout",
        action="store_true",
        help="Xiangqi: a single-game knock-out; a draw goes by fouls (XQ-R22)",
    )
    s.add_argument(
        "--late-entry",
        action="store_true",
        help="Xiangqi, chess: a press may come before its move is typed; rule XQ-R19 or "
        "CH-1 with nomove",
    )
    s.add_argument(
        "--lang",
        default="en",
        help="chess: the piece letters moves are typed in (en, de, fr, es, nl, ..., figurine)",
    )
    s.add_argument(
        "--chess960", type=int, metavar="N", help="chess: Chess960 from start position N (0-959)"
    )
    s.add_argument("--emt", action="store_true", help="chess: [%%emt] move times in the PGN")
    s.add_argument("--size", type=int, default=19, choices=[9, 13, 19], help="Go board size")
    s.add_argument("--komi", default="7.5", help="Go komi in points (default 7.5 = 3¾ stones)")
    s.set_defaults(func=cmd_arbiter)
