# SPDX-License-Identifier: GPL-3.0-or-later
"""The firmware on the simulated RP2040, and the trace of its wakes (#33).

``run(board, until_ms, events)`` boots firmware/boot.py and firmware/main.py,
unchanged, on MicroPython's unix port with the simulated chip of
``sim/rp2040/`` (rp2040sim.py: virtual time, interrupts, lightsleep, the
watchdog, I2C devices at their addresses) and returns its ``Trace``: every
wake (when, why, the sleep before it, the CPU cycles the loop then stayed
awake at the frequency the firmware set), the watchdog, the power pins, the
I2S, the displays' last frames. The trace's text format is rp2040sim.py's.

Events are ``(ms, "lever", 0|1, "down"|"up")``, ``(ms, "key", NAME,
"down"|"up")``, ``(ms, "tilt", "down"|"up")`` (the clock falls, stands
again), ``(ms, "usb", "on"|"off")`` and ``(ms, "host", "VERB ARGS")``: a
request of docs/protocol.md, framed and numbered, from a USB host (with USB
on; without, the bytes are lost). ``run(..., spec=NAME)`` has a host load
that time control at boot, then unplug (``configure``).
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass, field

from qizhong.core import proto, tcspec
from qizhong.sim.simulator import micropython_path, repo_root

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rp2040")
BOARDS = ("battery", "oled")
LEVER_GPIO = (2, 3)
KEY_GPIO = {"start": 4, "menu": 5, "plus": 6, "minus": 7, "ok": 8}
TILT_GPIO = 9
VBUS_GPIO = 24
ADC_FULL = 65535


@dataclass(frozen=True)
class Wake:
    """One wake: at ``t_us``, by ``cause``, after sleeping ``slept_us`` in
    ``mode``; then awake ``cycles`` at ``hz``."""

    t_us: int
    cause: str
    slept_us: int
    mode: str
    cycles: int
    hz: int

    @property
    def awake_us(self) -> int:
        return self.cycles * 1_000_000 // self.hz


@dataclass(frozen=True)
class Summary:
    seconds: float
    wakes: int
    wakes_per_s: float
    awake_us: int
    awake_pct: float
    hz: int


@dataclass
class Trace:
    board: str
    end: str  # "end" (until_ms), "reset", "off", "held" (blanked, enable held), "returned"
    wakes: list[Wake] = field(default_factory=list)
    events: list[tuple] = field(default_factory=list)
    resets: list[int] = field(default_factory=list)
    enable: list[tuple[int, int]] = field(default_factory=list)
    ram: dict[tuple[int, int], tuple[bytes, int]] = field(default_factory=dict)
    end_us: int = 0
    text: str = ""
    usb_out: str = ""  # what the clock sent its USB host (frames of docs/protocol.md)

    def summary(self, from_ms: int = 0, to_ms: int | None = None) -> Summary:
        """Wakes a second and percent awake between ``from_ms`` and ``to_ms``."""
        lo = from_ms * 1000
        hi = self.end_us if to_ms is None else to_ms * 1000
        ws = [w for w in self.wakes if lo <= w.t_us < hi]
        awake = sum(w.awake_us for w in ws)
        span = max(hi - lo, 1)
        hz = ws[-1].hz if ws else 0
        s = span / 1e6
        return Summary(s, len(ws), len(ws) / s, awake, 100.0 * awake / span, hz)

    def lines(self, kind: str) -> list[tuple]:
        return [e for e in self.events if e[0] == kind]


def parse(text: str) -> Trace:
    """A trace file's text as a ``Trace``."""
    rows = [ln.split() for ln in text.splitlines() if ln.strip()]
    if not rows or rows[0][:2] != ["chip", "1"]:
        raise ValueError("not a chip trace (version 1)")
    tr = Trace(board=rows[0][2], end="end", text=text)
    for r in rows[1:]:
        k = r[0]
        if k == "wake":
            tr.wakes.append(Wake(int(r[1]), r[2], int(r[3]), r[4], int(r[5]), int(r[6])))
        elif k == "ram":
            tr.ram[(int(r[1]), int(r[2]))] = (bytes.fromhex(r[3].strip("-")), int(r[4]))
        else:
            ev = (k, int(r[1]), *[int(x) if x.lstrip("-").isdigit() else x for x in r[2:]])
            tr.events.append(ev)
            if k == "wdt" and r[2] == "reset":
                tr.resets.append(int(r[1]))
            if k == "pin" and r[2] == "10":
                tr.enable.append((int(r[1]), int(r[3])))
            if k in ("end", "off", "reset", "wdt", "held"):
                tr.end_us = max(tr.end_us, int(r[1]))
    return tr


def game(
    minutes: int, press_every_ms: int, start_ms: int = 1000, pause_at_ms: int = -1
) -> list[tuple]:
    """The events of a game: the start key at ``start_ms``, then a press of
    alternate levers every ``press_every_ms`` (down, up 80 ms later) until
    ``minutes``; with ``pause_at_ms`` >= 0 the start key pauses it there and
    no lever is pressed after."""
    ev: list[tuple] = [(start_ms, "key", "start", "down"), (start_ms + 100, "key", "start", "up")]
    end = minutes * 60_000 if pause_at_ms < 0 else pause_at_ms
    t = start_ms + 1000
    side = 0
    while t + 80 < end:
        ev += [(t, "lever", side, "down"), (t + 80, "lever", side, "up")]
        side = 1 - side
        t += press_every_ms
    if pause_at_ms >= 0:
        ev += [(pause_at_ms, "key", "start", "down"), (pause_at_ms + 100, "key", "start", "up")]
    return ev


def configure(spec: str, at_ms: int = 500) -> list[tuple]:
    """Events: a USB host plugged in at ``at_ms`` loads time control ``spec``
    (a name or the syntax of docs/timecontrol.md), then is unplugged."""
    canon = tcspec.format(tcspec.parse(spec))
    return [
        (at_ms, "usb", "on"),
        (at_ms + 100, "host", "config " + canon),
        (at_ms + 400, "usb", "off"),
    ]


def _pins(board: str, events: list[tuple], rx: list[list[int]], data: bytearray) -> list[list[int]]:
    out = []
    rid = 0
    for e in sorted(events, key=lambda e: int(e[0])):
        ms, what = int(e[0]), e[1]
        if ms < 0:
            raise ValueError("an event before boot: %r" % (e,))
        if what == "host":
            rid += 1
            f = proto.frame("%d %s" % (rid, e[2]))
            rx.append([ms, len(f)])
            data += f
        elif what == "lever":
            out.append([ms, LEVER_GPIO[int(e[2])], 0 if e[3] == "down" else 1])
        elif what == "key":
            out.append([ms, KEY_GPIO[e[2]], 0 if e[3] == "down" else 1])
        elif what == "tilt":
            fallen = e[2] == "down"
            up = 1 if board == "battery" else 0  # battery: closes (low) when tipped
            out.append([ms, TILT_GPIO, (1 - up) if fallen else up])
        elif what == "usb":
            out.append([ms, VBUS_GPIO, 1 if e[2] == "on" else 0])
        else:
            raise ValueError("unknown event %r" % (e,))
    return out


def run(
    board: str,
    until_ms: int,
    events: list[tuple] = (),  # type: ignore[assignment]
    trace_path: str | None = None,
    cells_mv: int | None = None,
    usb: bool = False,
    costs: dict[str, int] | None = None,
    spec: str | None = None,
    firmware: str | None = None,
    flash: str | None = None,
    timeout_s: float = 600,
) -> Trace:
    """Boot the firmware on the simulated ``board`` and run it ``until_ms``."""
    if board not in BOARDS:
        raise ValueError("board is battery or oled, not %r" % board)
    fw = os.path.abspath(firmware) if firmware else os.path.join(repo_root(), "firmware")
    if cells_mv is None:
        cells_mv = 3000 if board == "battery" else 3900
    events = list(events) + (configure(spec) if spec else [])
    rx: list[list[int]] = []
    data = bytearray()
    with tempfile.TemporaryDirectory(prefix="qizhong-chip-") as tmp:
        path = trace_path or os.path.join(tmp, "trace.txt")
        cfg = {
            "board": board,
            "until_ms": until_ms,
            "firmware": fw,
            "trace": path,
            "pins": _pins(board, events, rx, data),
            "rx": rx,
            "world": {str(TILT_GPIO): 1 if board == "battery" else 0},
            # ADC0: the cells through a 100k/100k divider; ADC3: VSYS / 3
            "adc": {"0": cells_mv * ADC_FULL // 6600, "3": cells_mv * ADC_FULL // 9900},
            "usb": usb,
            "costs": costs or {},
            "flash": flash or os.path.join(tmp, "flash.img"),  # the journal's littlefs
        }
        cfg_path = os.path.join(tmp, "chip.json")
        with open(cfg_path, "w", encoding="utf-8") as f:
            json.dump(cfg, f)
        env = dict(os.environ, MICROPYPATH=HERE + ":" + fw + ":.frozen")
        with open(os.path.join(tmp, "usb.bin"), "wb") as f:
            f.write(data)  # the host's bytes, on stdin: the chip gives them out at their ms
        with open(os.path.join(tmp, "usb.bin"), "rb") as stdin:
            r = subprocess.run(
                [micropython_path(), "-X", "heapsize=2m", os.path.join(HERE, "run.py"), cfg_path],
                capture_output=True,
                text=True,
                timeout=timeout_s,
                cwd=tmp,
                env=env,
                stdin=stdin,
            )
        end = ""
        for ln in r.stdout.splitlines():
            if ln.startswith("chip: "):
                end = ln[6:]
        if r.returncode != 0 or end in ("", "error"):
            out = (r.stdout + r.stderr)[-4000:]  # the unix port's traceback is on stdout
            raise RuntimeError("the chip run failed (%d):\n%s" % (r.returncode, out))
        with open(path, encoding="utf-8") as f:
            tr = parse(f.read())
    tr.end = end
    tr.usb_out = "".join(ln + "\n" for ln in r.stdout.splitlines() if not ln.startswith("chip: "))
    return tr
