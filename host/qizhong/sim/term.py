# SPDX-License-Identifier: GPL-3.0-or-later
"""``make sim``: the real firmware on the simulated board, in this terminal.

Both displays are drawn from the firmware's own framebuffers; keys press the
levers and the arbiter keys; voice cues are shown as text and written to a
WAV file of what the speaker would play.
"""

from __future__ import annotations

import os
import select
import sys
import termios
import time
import tty

from qizhong.sim import audio
from qizhong.sim.simulator import Sim, SimError

KEYS: dict[str, tuple[str, str]] = {
    "a": ("lever", "0"),
    "l": ("lever", "1"),
    " ": ("key", "start"),
    "m": ("key", "menu"),
    "+": ("key", "plus"),
    "=": ("key", "plus"),
    "-": ("key", "minus"),
    "o": ("key", "ok"),
    "k": ("tilt", ""),
}
HELP = (
    "a / l  left / right lever    space  start, pause, resume    k  knock the clock over",
    "+ / -  (knocked) left / right player knocked it    m / o  menu / ok    q  quit",
)
QUADRANTS = " ▘▝▀▖▌▞▛▗▚▐▜▄▙▟█"  # bit 1: top-left, 2: top-right, 4: bottom-left, 8: bottom-right


def pixels(buf: bytes, width: int = 128, height: int = 64) -> list[list[int]]:
    """MONO_VLSB bytes to rows of 0/1."""
    return [
        [(buf[(y >> 3) * width + x] >> (y & 7)) & 1 for x in range(width)] for y in range(height)
    ]


def to_text(buf: bytes) -> list[str]:
    """A 128x64 display as 32x16 quadrant characters (each 4x4 pixels, any lit)."""
    px = pixels(buf)
    rows = []
    for cy in range(16):
        line = []
        for cx in range(32):
            bits = 0
            for q, (dx, dy) in enumerate(((0, 0), (2, 0), (0, 2), (2, 2))):
                x0, y0 = cx * 4 + dx, cy * 4 + dy
                if any(px[y0 + j][x0 + i] for i in (0, 1) for j in (0, 1)):
                    bits |= 1 << q
            line.append(QUADRANTS[bits])
        rows.append("".join(line))
    return rows


def screen(frames: dict[int, bytes], log: list[str], spec: str) -> str:
    blank = bytes(1024)
    left = to_text(frames.get(0, blank))
    right = to_text(frames.get(1, blank))
    out = [" 棋钟 qizhong · simulated board · " + spec, ""]
    out.append(" ┌" + "─" * 32 + "┐    ┌" + "─" * 32 + "┐")
    for a, b in zip(left, right, strict=True):
        out.append(" │" + a + "│    │" + b + "│")
    out.append(" └" + "─" * 32 + "┘    └" + "─" * 32 + "┘")
    out.append("")
    out.extend(" " + line for line in log[-6:])
    out.append("")
    out.extend(" " + h for h in HELP)
    return "\x1b[H\x1b[2J" + "\r\n".join(out) + "\r\n"


def start(spec: str, virtual: bool = False) -> tuple[Sim, str]:
    """A simulated clock configured with ``spec``, and the log's first line.
    Raises ValueError (the clock's reason) for a spec it refuses."""
    sim = Sim(virtual=virtual)
    reply = sim.command("config " + spec)
    if not reply.startswith("ok"):
        sim.close()
        raise ValueError(reply)
    return sim, "time control " + sim.command("tc").split(" ", 2)[2]


def main(spec: str, wav: str = "out/sim-voice.wav") -> int:
    if not sys.stdin.isatty():
        print("qizhong sim: needs a terminal (or use --headless)", file=sys.stderr)
        return 1
    try:
        sim, first = start(spec)
    except SimError as e:
        print("qizhong sim: %s" % e, file=sys.stderr)
        return 1
    except ValueError as e:
        print("qizhong sim: %s" % e, file=sys.stderr)
        return 2
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    log = [first]
    releases: list[tuple[float, int]] = []
    spoken: list[tuple[int, int]] = []
    try:
        tty.setcbreak(fd)
        dirty = True
        while True:
            if dirty:
                sys.stdout.write(screen(sim.frames, log, spec))
                sys.stdout.flush()
                dirty = False
            r, _, _ = select.select([sim.world, sim.link, sys.stdin], [], [], 0.05)
            now = time.monotonic()
            for when, lever in [x for x in releases if x[0] <= now]:
                releases.remove((when, lever))
                sim.world.sendall(b"lever %d up 0\n" % lever)
            if sim.world in r:
                before = (len(sim.cues), len(sim.beeps))
                sim.pump()
                dirty = True
                for t, cue in sim.cues[before[0] :]:
                    spoken.append((t, cue))  # the board's own instant
                    log.append("🔊 %s" % audio.voice.cue_text(cue))
                for _, on in sim.beeps[before[1] :]:
                    log.append("buzzer %s" % ("on" if on else "off"))
            if sim.link in r:
                for name, side, _t, value in sim.read_events():
                    log.append(
                        "%-8s %-5s %d" % (name, ("red", "black")[side] if side >= 0 else "", value)
                    )
                dirty = True
            if sys.stdin in r:
                ch = os.read(fd, 1).decode(errors="ignore")
                if ch in ("q", "\x04"):
                    break
                action = KEYS.get(ch)
                if action is None:
                    continue
                kind, arg = action
                if kind == "lever":
                    sim.world.sendall(b"lever %s down 0\n" % arg.encode())
                    releases.append((now + 0.08, int(arg)))
                elif kind == "key":
                    sim.world.sendall(b"key %s 0\n" % arg.encode())
                else:
                    sim.world.sendall(b"tilt 0\n")
    except KeyboardInterrupt:
        pass
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        sim.close()
        sys.stdout.write("\n")
    if spoken:
        os.makedirs(os.path.dirname(wav) or ".", exist_ok=True)
        audio.write_wav(wav, audio.render(spoken))
        print("qizhong sim: the speaker's sound is in %s" % wav)
    return 0
