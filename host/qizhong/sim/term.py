# SPDX-License-Identifier: GPL-3.0-or-later
"""``make sim``: the real firmware on the simulated board, in this terminal.

Fits an 80x24 terminal, all on one screen. Each display is drawn from the
firmware's own framebuffer: its big digits in quadrant blocks, and above
them, as text, the status line the firmware drew on it (moves, BY2, PAUSE,
KNOCK, the flag), or the setup menu or the pairing code when the firmware
shows those (the sim board sends each text it drew with the frame). Which
display is Red's comes from the clock's own status reply (the lever
mapping). The log gives the clock's events with times as a clock shows
them, and each voice cue once, as the speaker plays it. After the run, the
speaker's sound (voice cues and buzzer) is in a WAV file.

Keys (``sim/keys``, the same in ``qizhong demo``): ``a``/``l`` the left/right
lever, space start/pause/resume, ``k`` knock the clock over, ``+``/``-`` the
left/right player knocked it (and in the setup menu: the next/previous
choice), ``m`` the setup menu (again: cancel), ``o`` ok (step on, apply),
``n`` a new game under the same control, ``q`` quit.

Scripted time (the tests): with ``QIZHONG_TERM_STEP_MS=N`` the clock runs in
virtual time, and each key moves it on by N ms before it acts.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import termios
import time
import tty

from qizhong.core import face
from qizhong.sim import audio
from qizhong.sim.demo import _on_signal, _Stop, fit, fmt_clock, width
from qizhong.sim.keys import HELP, KEYS, QUIT
from qizhong.sim.simulator import Sim, SimError

ROWS, COLS = 24, 80
BOX_W = 32  # a display: 128 px in 4-px quadrant cells
DIGIT_TOP = 12  # px: the digits' rows (the status bar above is drawn as text)
DIGIT_ROWS = (64 - DIGIT_TOP) // 4
LOG_SHOWN = 3
QUADRANTS = " ▘▝▀▖▌▞▛▗▚▐▜▄▙▟█"  # bit 1: top-left, 2: top-right, 4: bottom-left, 8: bottom-right
SIDES = ("red", "black")
ICONS = (
    (face.FLAG_ICON, "⚑"),
    (face.REC_ICON, "✎ rec"),
    (face.BAT_ICON, "▯ battery"),
    (face.VOICE_ICON, "voice"),  # before a game: the voice, its language, its count's arrow
    (face.UP_ICON, "↑"),
    (face.DOWN_ICON, "↓"),
)


def pixels(buf: bytes, width: int = 128, height: int = 64) -> list[list[int]]:
    """MONO_VLSB bytes to rows of 0/1."""
    return [
        [(buf[(y >> 3) * width + x] >> (y & 7)) & 1 for x in range(width)] for y in range(height)
    ]


def to_text(buf: bytes, top: int = 0) -> list[str]:
    """A 128x64 display from pixel row ``top`` as 32-column rows of quadrant
    characters (each 4x4 pixels, any lit)."""
    px = pixels(buf)
    rows = []
    for cy in range((64 - top) // 4):
        line = []
        for cx in range(32):
            bits = 0
            for q, (dx, dy) in enumerate(((0, 0), (2, 0), (0, 2), (2, 2))):
                x0, y0 = cx * 4 + dx, top + cy * 4 + dy
                if any(px[y0 + j][x0 + i] for i in (0, 1) for j in (0, 1)):
                    bits |= 1 << q
            line.append(QUADRANTS[bits])
        rows.append("".join(line))
    return rows


def icons(buf: bytes) -> list[tuple[int, str]]:
    """The status bar's icons the firmware drew (face.icon: 8x8, at the text row),
    lit on a dark bar or dark on a lit one, as ``(x, name)``."""
    found = []
    for x in (face.STATE_X, face.STATE_X + 32, face.REC_X, face.BAT_X):
        cols = [(buf[x + i] >> face.TEXT_Y) & 0xFF for i in range(8)]
        for icon, name in ICONS:
            if cols == list(icon) or cols == [~b & 0xFF for b in icon]:
                found.append((x, name))
    return found


def status_text(texts: list[tuple[int, int, str]], buf: bytes) -> str:
    """A face's status bar as words, from what the firmware drew in its fields."""
    fields: dict[str, str] = {"moves": "", "ot": "", "state": ""}
    for x, y, text in sorted(texts):
        if y != face.TEXT_Y:
            continue
        key = "moves" if x < face.OT_X else "ot" if x < face.STATE_X else "state"
        fields[key] += text
    marks = [name for x, name in icons(buf)]
    state = fields["state"]
    moves = fields["moves"]
    if "⚑" in marks:
        marks.remove("⚑")
        state = "⚑ FLAG" + (" 1st" if state == "1st" else "")
    if "voice" in marks:  # the OLED before a game: speaker, language, arrow
        arrows = [m for m in marks if m in ("↑", "↓")]
        marks = [m for m in marks if m not in ("voice", "↑", "↓")]
        state = " ".join(["voice", state, *arrows])
    elif moves and not moves.isdigit():  # the glass before a game: the language, the arrow
        state = "voice %s %s" % (moves, state)
        moves = ""
    words = ["%s moves" % moves if moves else "", fields["ot"], state]
    return "  ".join(w for w in words + marks if w)


def is_face(texts: list[tuple[int, int, str]]) -> bool:
    """True when the display shows a player's face (not the menu or the pairing code)."""
    return all(y == face.TEXT_Y for _, y, _ in texts)


def text_screen(texts: list[tuple[int, int, str]], rows: int) -> list[str]:
    """A display of text (the setup menu, the pairing code) as ``rows`` lines:
    8-px text rows, two columns per 8-px character cell."""
    out = [[" "] * BOX_W for _ in range(rows)]
    for x, y, text in texts:
        row = y // 8 if rows > 64 // 8 else y // 8 * rows // 8
        col = x // 4
        for i, ch in enumerate(text):
            if 0 <= row < rows and col + i < BOX_W:
                out[row][col + i] = ch
    return ["".join(r) for r in out]


def stamp(ms: int) -> str:
    return "%02d:%02d" % (ms // 60000, ms // 1000 % 60)


class Term:
    """The terminal clock's screen over a running ``Sim``: keys in, 80x24 screens out.

    ``step_ms`` > 0: the Sim runs in virtual time, and each key moves it on by
    that much first (scripted time); 0: real time, the caller pumps the Sim."""

    LOG_KEEP = 500

    def __init__(self, sim: Sim, spec: str, step_ms: int = 0) -> None:
        self.sim = sim
        self.spec = spec
        self.step_ms = step_ms
        self.t = sim.now
        self.log: list[str] = []  # the last LOG_KEEP lines
        self.message = ""
        self.status: dict[str, str] = {}
        self.tc = ""
        self._seen = (len(sim.events), len(sim.cues), len(sim.beeps))
        self._releases: list[tuple[float, int]] = []
        self.refresh_at = -1.0  # real time: when to ask the clock's status again
        self.refresh()
        self.log.append("time control %s" % self.tc)
        if sim.virtual:
            sim.frame()

    # -- the clock's facts ----------------------------------------------------------

    def refresh(self) -> None:
        """The clock's status reply and time control (the serial link), and the log."""
        reply = self.sim.command("status")
        self.status = dict(w.split("=", 1) for w in reply.split() if "=" in w)
        self.tc = self.sim.command("tc").split(" ", 2)[-1]
        self.take()

    def side_of_display(self, i: int) -> int:
        """Which side's display ``i`` (0: left) is, from the clock's lever mapping."""
        left = SIDES.index(self.status.get("levers", "red"))
        return left if i == 0 else 1 - left

    def take(self) -> bool:
        """Log what came from the board and the link since last time; True if anything did."""
        sim = self.sim
        ev, cues, beeps = self._seen
        new = sim.events[ev:], sim.cues[cues:], sim.beeps[beeps:]
        self._seen = (len(sim.events), len(sim.cues), len(sim.beeps))
        lines: list[tuple[int, int, str]] = []  # (t, order, text): in time order
        for name, side, t, arg in new[0]:
            line = self.event_line(name, side, arg)
            if line:
                lines.append((t, 0, line))
        for t, cue in new[1]:
            lang = sim.voices[-1][1] if sim.voices else "cmn"
            lines.append((t, 1, "🔊 " + audio.cue_words(cue, lang)))
        for t, on in new[2]:
            if on:
                lines.append((t, 2, "🔔 buzzer"))
        self.log += ["%s %s" % (stamp(t), text) for t, _, text in sorted(lines)]
        del self.log[: -self.LOG_KEEP]
        return any(new)

    def event_line(self, name: str, side: int, arg: int) -> str:
        who = SIDES[side].capitalize() if side in (0, 1) else ""
        if name == "press":
            return "%s moved · %s left" % (who, fmt_clock(arg))
        if name == "start":
            return "start · %s to move" % who
        if name == "wrong":
            return "%s pressed out of turn" % who
        if name == "pause":
            return "paused"
        if name == "resume":
            return "resumed"
        if name == "flag":
            return "%s's flag fell%s" % (who, " first" if arg else "")
        if name == "overtime":
            return "%s in overtime" % who
        if name == "period":
            return "%s: a period used, %d left" % (who, arg)
        if name == "stage":
            return "%s: stage %d's time added" % (who, arg + 1)
        if name == "record":
            return "%s under the threshold: recording now optional for both (TC-9)" % who
        if name == "held":
            return "%s held the lever %d.%d s (EQ-3)" % (who, arg // 1000, arg % 1000 // 100)
        if name == "knock":
            return "clock knocked over (EQ-5)"
        if name == "penalty":
            return "%s penalty %s%s" % (who, "+" if arg >= 0 else "-", fmt_clock(abs(arg)))
        if name == "set":
            return "%s's time set to %s" % (who, fmt_clock(arg))
        if name == "finish":
            return "game over"
        if name == "config":
            what = ("time control", "override", "new game", "set up on the clock")
            return what[arg] if 0 <= arg < len(what) else "time control"
        if name == "levers":
            return "the left lever is %s's" % who
        if name == "volume":
            return "volume %d" % arg
        return ""  # cue: logged once, as the speaker plays it; boot, trim, pair

    # -- keys -------------------------------------------------------------------------

    def key(self, ch: str, now: float = 0.0) -> bool:
        """One key; False means quit."""
        if ch in QUIT:
            return False
        action = KEYS.get(ch)
        if action is None:
            return True
        kind, arg = action
        sim = self.sim
        self.message = ""
        if sim.virtual:
            self.t += self.step_ms
            sim.run_to(self.t)
        if kind == "new":
            reply = sim.command("new")
            if not reply.startswith("ok"):
                self.message = "new game refused: " + reply.split(" ", 2)[-1]
        elif sim.virtual:
            if kind == "lever":
                sim.press(int(arg), self.t)
            elif kind == "key":
                sim.key(arg, self.t)
            else:
                sim.tilt(self.t)
        elif kind == "lever":
            sim.world.sendall(b"lever %s down 0\n" % arg.encode())
            self._releases.append((now + 0.08, int(arg)))
        elif kind == "key":
            sim.world.sendall(b"key %s 0\n" % arg.encode())
        else:
            sim.world.sendall(b"tilt 0\n")
        if sim.virtual:
            sim.frame()
            self.refresh()
        else:  # the board takes the key in its own time: ask once it has
            self.refresh_at = now + 0.15
        return True

    def release_due(self, now: float) -> None:
        """Real time: the levers pressed 80 ms ago come up."""
        for when, lever in [x for x in self._releases if x[0] <= now]:
            self._releases.remove((when, lever))
            self.sim.world.sendall(b"lever %d up 0\n" % lever)

    # -- the screen -------------------------------------------------------------------

    def hint(self) -> str:
        if self.message:
            return "! " + self.message
        texts = self.sim.texts.get(0, [])
        if any(t.startswith("SETUP") for _, _, t in texts):
            return "Setup: + / - change the choice, o next step (last: apply), m cancel"
        if any(t.startswith(("PAIRING", "PA1R1")) for _, _, t in texts):
            return "Pairing: type the code into `qizhong pair`; any key cancels"
        state = self.status.get("state", "")
        if state == "idle":
            return "Ready: space starts Red's clock, or press a lever; m: setup menu"
        if state == "running":
            return "Running: press your lever after your move; space pauses"
        if state == "paused":
            return "Paused: space resumes"
        if state == "knocked":
            return "Knocked over (EQ-5): + / - who did it (left / right); space resumes"
        if state in ("flagged", "finished"):
            return "Game over: n a new game, m the setup menu"
        return ""

    def box(self, i: int) -> list[str]:
        blank = bytes(1024)
        buf = self.sim.frames.get(i, blank)
        texts = self.sim.texts.get(i, [])
        side = self.side_of_display(i)
        running = self.status.get("state") == "running" and self.status.get("run") == str(side)
        lever = "left lever a" if i == 0 else "right lever l"
        title = " %s%s · %s " % ("▶ " if running else "", SIDES[side].upper(), lever)
        h, v, tl, tr, bl, br = ("━", "┃", "┏", "┓", "┗", "┛") if running else "─│┌┐└┘"
        if is_face(texts):
            body = [fit(" " + status_text(texts, buf), BOX_W)]
            body += to_text(buf, DIGIT_TOP)
        else:
            body = text_screen(texts, DIGIT_ROWS + 1)
        top = tl + h + title + h * (BOX_W - 1 - width(title)) + tr
        return [top] + [v + row + v for row in body] + [bl + h * BOX_W + br]

    def render(self) -> list[str]:
        """The screen: exactly ROWS lines, none wider than COLS columns."""
        state = self.status.get("state", "").upper()
        title = " 棋钟 qizhong · simulated clock · %s" % self.tc
        lines = [fit(title, COLS - width(state) - 1) + state]
        for a, b in zip(self.box(0), self.box(1), strict=True):
            lines.append(" " + a + "  " + b)
        lines.append(" " + self.hint())
        shown = self.log[-LOG_SHOWN:]
        lines += [" " + line for line in shown] + [""] * (LOG_SHOWN - len(shown))
        lines += [" " + h for h in HELP]
        return [fit(line, COLS).rstrip() for line in lines[:ROWS]]


def frame(lines: list[str]) -> str:
    """One redraw in place: home, each line cleared to its end, no newline after the last."""
    return "\x1b[H" + "\r\n".join(line + "\x1b[K" for line in lines) + "\x1b[J"


def start(
    spec: str, virtual: bool = False, voice: str = "", board: str | None = None
) -> tuple[Sim, str]:
    """A simulated clock configured with ``spec`` (and ``voice``: "ja down",
    docs/voice.md), and the log's first line. Raises ValueError (the clock's
    reason) for a spec or a voice it refuses. ``board``: ``battery`` draws
    the battery board's segment glasses (docs/power.md)."""
    sim = Sim(virtual=virtual, board=board)
    for line in (["voice " + voice] if voice else []) + ["config " + spec]:
        reply = sim.command(line)
        if not reply.startswith("ok"):
            sim.close()
            raise ValueError(reply)
    return sim, "time control " + sim.command("tc").split(" ", 2)[2]


def speaker(sim: Sim, wav: str) -> str:
    """Write what the speaker played (voice cues and buzzer) to ``wav``; the line to print."""
    end = max([t for t, _ in sim.cues + sim.beeps] + [sim.now]) + 1000
    try:
        samples = audio.render(sim.cues, end, beeps=sim.beeps, voices=sim.voices)
        os.makedirs(os.path.dirname(wav) or ".", exist_ok=True)
        audio.write_wav(wav, samples)
    except OSError as e:
        return "qizhong sim: the speaker's sound was not written: %s" % e
    buzz = sum(1 for _, on in sim.beeps if on)
    return "qizhong sim: the speaker's sound (%d voice cues, %d buzzer sounds) is in %s" % (
        len(sim.cues),
        buzz,
        wav,
    )


def main(
    spec: str, wav: str = "out/sim-voice.wav", voice: str = "", board: str | None = None
) -> int:
    if not sys.stdin.isatty():
        print("qizhong sim: needs a terminal (or use --headless)", file=sys.stderr)
        return 1
    step = int(os.environ.get("QIZHONG_TERM_STEP_MS") or "0")
    try:
        sim, _ = start(spec, virtual=step > 0, voice=voice, board=board)
    except SimError as e:
        print("qizhong sim: %s" % e, file=sys.stderr)
        return 1
    except ValueError as e:
        print("qizhong sim: %s" % e, file=sys.stderr)
        return 2
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    out = sys.stdout
    code = 0
    handlers = {}
    for sig in (signal.SIGTERM, signal.SIGHUP):  # stop as after q: the firmware, the WAV
        handlers[sig] = signal.signal(sig, _on_signal)
    try:
        tty.setcbreak(fd)
        out.write("\x1b[?1049h\x1b[?25l")  # the alternate screen, no cursor
        term = Term(sim, spec, step)
        dirty = True
        while True:
            if dirty:
                out.write(frame(term.render()))
                out.flush()
                dirty = False
            waits = [fd] if sim.virtual else [sim.world, sim.link, fd]
            r, _, _ = select.select(waits, [], [], 0.05)
            now = time.monotonic()
            if not sim.virtual:
                term.release_due(now)
                if sim.world in r:
                    sim.pump()
                    dirty = True
                sim.read_events()
                if term.take() or 0 <= term.refresh_at <= now:
                    term.refresh_at = -1.0
                    term.refresh()
                    dirty = True
            if fd in r:
                data = os.read(fd, 64).decode(errors="ignore")
                if not data:
                    break
                if not all(term.key(ch, now) for ch in data):
                    break
                dirty = True
    except KeyboardInterrupt:
        code = 130
    except _Stop as e:
        code = e.code
    except SimError as e:
        print("\r\nqizhong sim: %s" % e, file=sys.stderr)
        code = 1
    finally:
        for sig, old in handlers.items():
            signal.signal(sig, old)
        if sim.virtual and sim.world is not None:  # what the speaker started plays out
            try:
                sim.run_to(sim.now + 3000)
            except SimError:
                pass
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        out.write("\x1b[?25h\x1b[?1049l")
        out.flush()
        sim.close()
    print(speaker(sim, wav))
    return code
