# SPDX-License-Identifier: GPL-3.0-or-later
"""Random power cuts through the real firmware, checked against an uncut twin (#8).

    .venv/bin/python benchmarks/power_cuts.py [CUTS] [SEED] [REAL_CUTS]

Two simulated clocks on littlefs images (``Sim(flash=...)``) get the same
random game: presses (some by the wrong side), start and pause, knocks, and
arbiter commands over the serial link. Time moves deadline by deadline, as
the firmware's own sleep would. Then one of them loses its power at an
arbitrary instant, half the time by SIGKILL between two steps, half the
time by a tear inside a flash write (``Sim.cut_after``: a random byte of the
next few KB the firmware writes, erases included). It boots again on its
image, and the check is independent of the journal:

- the restored record is the twin's newest, or for a torn write the one
  before it (the generations match step for step);
- the clock's state equals the twin's status at that record's instant (the
  running side paused), field by field;
- nothing older than ``Journal.PERIOD_MS`` is lost, and after a SIGKILL the
  moves, the waiting side's time and all settings are exactly the twin's
  at the cut: only the running side's last seconds go;
- event numbers go on above everything sent before the cut.

Then the twin takes a copy of the image, both boot, and play goes on. Prints
how many cuts recovered, how, and the journal's timings and flash use. The
test (tests/test_journal.py) runs 50 of these; ``make bench`` runs 1,000.

Then REAL_CUTS (default 200, about 0.4 s each) SIGKILL cuts in real time (#12): a real-time
clock on an image is pressed and cut at random instants while a host
(``Clock``) listens on the port throughout. Each cut counts as recovered
when the host has seen the new boot (``Link.restarts``), the clock answers
paused or idle with no fewer moves than the host saw pressed, and no event
number reached the host twice or out of order. Printed with the recovery
time (the cut to the host knowing the new boot).
"""

from __future__ import annotations

import itertools
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "host"))

from qizhong.clocks.driver import Clock  # noqa: E402
from qizhong.sim import PowerCut, Sim, micropython_path  # noqa: E402

PERIOD_MS = 10000  # firmware/qizhong/journal.py Journal.PERIOD_MS

SPECS = (
    "15m+10s",
    "5m+3s",
    "20m count 10s",
    "3m byoyomi 3x20s",
    "2m canadian 3/40s",
    "2/1m+10s:1m+5s",
    "3m bronstein 3s",
    "3m delay 3s",
    "3m hourglass",
    "10m+5s red -40% record 9m30s flag run",
)

FIELDS = ("state", "run", "left", "moves", "periods", "flag", "result", "levers", "volume", "mute")


def fields(reply: str) -> dict[str, str]:
    return dict(w.split("=", 1) for w in reply.split() if "=" in w)


class CutError(AssertionError):
    """A power cut did not recover as the journal promises."""


class Rig:
    """A clock on a flash image and its twin, fed the same inputs."""

    def __init__(self, folder: str, spec: str, seed: int) -> None:
        self.rng = random.Random(seed)
        self.spec = spec
        self.images = (os.path.join(folder, "clock.img"), os.path.join(folder, "twin.img"))
        for path in self.images:
            if os.path.exists(path):
                os.remove(path)
        self.sim = Sim(flash=self.images[0])
        self.twin = Sim(flash=self.images[1])
        self.now = 0
        self.cuts = {"kill": 0, "torn-old": 0, "torn-new": 0}
        self.lost_ms: list[int] = []
        self.seen_seq = 0  # the highest event number the host got before a cut
        for s in (self.sim, self.twin):
            s.command("config " + spec)
        self._reset_history()

    def close(self) -> None:
        self.sim.close()
        self.twin.close()

    # -- the twin's history -----------------------------------------------------

    def _journal(self, s: Sim) -> dict[str, str]:
        return fields(s.command("journal"))

    def _reset_history(self) -> None:
        self.by_gen: dict[int, tuple[int, dict[str, str]]] = {}
        self.gens: list[int] = []  # the twin's generation after each step
        self._note()

    def _note(self) -> None:
        j = self._journal(self.twin)
        gen = int(j["gen"])
        if gen not in self.by_gen:
            self.by_gen[gen] = (int(j["saved"]), fields(self.twin.command("status")))
        self.gens.append(gen)

    # -- driving both -------------------------------------------------------------

    def _both(self, act, note: bool = True) -> None:
        """``act(s)`` on the twin, then on the clock (which may lose power)."""
        act(self.twin)
        try:
            act(self.sim)
        finally:
            if note:
                self._note()

    def _to(self, t: int) -> None:
        while True:
            d = self.twin.deadline
            if d != self.sim.deadline and self.sim.proc.poll() is None:
                raise CutError(
                    "deadlines differ: %d vs %d\n%s\n%s\n%s\n%s"
                    % (
                        self.sim.deadline,
                        d,
                        self.sim.command("status"),
                        self.twin.command("status"),
                        self.sim.command("journal"),
                        self.twin.command("journal"),
                    )
                )
            nxt = t if d < 0 or d >= t or d <= self.now else d
            self.now = nxt
            self._both(lambda s, x=nxt: s.at(x))
            if nxt == t:
                return

    def step(self, serial: bool) -> None:
        """One random action a little later (``serial``: commands allowed)."""
        rng = self.rng
        self._to(self.now + rng.choice((1, 40, 700, 2600, 6100, 15000, 33000)))
        st = fields(self.twin.command("status"))
        state = st["state"]
        t = self.now + 1
        self._to(t)
        r = rng.random()
        if serial and r < 0.12:
            cmd = rng.choice(
                (
                    "penalty 0 -30000",
                    "penalty 1 60000",
                    "volume %d" % rng.randrange(11),
                    "mute on",
                    "mute off",
                    "levers black",
                    "levers red",
                    "set 1 %d" % rng.randrange(20000, 200000),
                )
            )
            self._both(lambda s: (s.command(cmd), s.at(self.now)))  # at: the new deadline
            return
        if state in ("idle", "paused") or (state == "knocked" and r < 0.5):
            if state == "knocked":  # the arbiter names who knocked it (EQ-5)
                key = rng.choice(("plus", "minus"))
                self._both(lambda s: s.key(key, t))
                t += 1
                self._to(t)
            self._both(lambda s: s.key("start", t))
            return
        if state in ("flagged", "finished"):
            if serial:
                self._both(lambda s: (s.command("new"), s.at(self.now)))
                return
            for key in ("menu", "ok", "ok", "ok"):  # the setup menu: a new game
                self._both(lambda s, k=key, at=t: s.key(k, at))
                t += 1
                self._to(t)
            return
        if state == "running" and r < 0.04:
            self._both(lambda s: s.tilt(t))
            return
        if state == "running" and r < 0.08:
            self._both(lambda s: s.key("start", t))  # pause
            return
        run = int(st["run"])
        left_side = 0 if st["levers"] == "red" else 1
        lever = (0 if run == left_side else 1) if rng.random() < 0.93 else rng.randrange(2)
        self._both(lambda s: s.lever(lever, True, t))
        self._to(t + 60)
        self._both(lambda s: s.lever(lever, False, t + 60))

    # -- a power cut --------------------------------------------------------------

    def cut(self) -> str:
        """Play a little, cut the power somewhere, check the recovery. Returns the kind."""
        rng = self.rng
        for _ in range(rng.randrange(1, 12)):
            self.step(serial=True)
        self.sim.status()  # collect every event sent so far
        self.seen_seq = self.sim.link.last_seq
        gen_before = self.gens[-1]
        if rng.random() < 0.5:
            kind = "kill"
            self._to(self.now + rng.choice((0, 1, 900, 4000, 9999, 10001, 17000, 26000)))
            self.sim.status()
            self.seen_seq = self.sim.link.last_seq
            t_cut = self.now
            self.sim.power_cut(restart=False)
            allowed = {self.gens[-1]}
        else:
            self.sim.cut_after(rng.randrange(0, 6000))
            self.twin.at(self.now)  # the same deadline as the clock just got
            while True:
                before = self.gens[-1]
                try:
                    self.step(serial=False)
                except PowerCut:
                    break
                if len(self.gens) > 400:
                    raise CutError("the armed cut never came")
            t_cut = self.now
            after = self.gens[-1]
            allowed = set(range(before, after + 1))
            kind = "torn"
        twin_now = fields(self.twin.command("status"))
        self.twin.power_cut(restart=False)
        shutil.copyfile(self.images[0], self.images[1])
        self.sim.power_on()
        self.twin.power_on()
        numbers = self._numbering()
        j = self._journal(self.sim)
        st = fields(self.sim.command("status"))
        if j["restored"] == "none":
            raise CutError("nothing restored (gen before %d)" % gen_before)
        gen, saved, _el, _seq = (int(x) for x in j["restored"].split(","))
        if gen not in allowed:
            raise CutError(
                "%s cut: restored gen %d, the twin had %s" % (kind, gen, sorted(allowed))
            )
        t_rec, want = self.by_gen[gen]
        if t_rec != saved:
            raise CutError("gen %d saved at %d, the twin at %d" % (gen, saved, t_rec))
        want = dict(want)
        if want["state"] == "running":  # a clock not running loses nothing while it waits
            if not 0 <= t_cut - saved <= PERIOD_MS:
                raise CutError("lost %d ms: more than the period" % (t_cut - saved))
            want["state"] = "paused"
        for k in FIELDS:
            if st[k] != want[k]:
                raise CutError(
                    "%s cut, gen %d: %s %s, the twin had %s" % (kind, gen, k, st[k], want[k])
                )
        if kind == "kill":  # only the running side's last seconds may go
            for k in ("moves", "periods", "levers", "volume", "mute", "flag"):
                if st[k] != twin_now[k]:
                    raise CutError("kill: %s %s, the twin at the cut %s" % (k, st[k], twin_now[k]))
            if twin_now["state"] == "running" and "hourglass" not in self.spec:
                run = int(twin_now["run"])
                a = [int(x) for x in st["left"].split(",")]
                b = [int(x) for x in twin_now["left"].split(",")]
                if a[1 - run] != b[1 - run] or not 0 <= a[run] - b[run] <= PERIOD_MS:
                    raise CutError("kill: left %s, the twin at the cut %s" % (a, b))
                self.lost_ms.append(a[run] - b[run])
        elif gen == max(allowed):
            kind = "torn-new"
        else:
            kind = "torn-old"
        boot = numbers[-1]
        if boot.arg != int(_seq) or boot.seq <= self.seen_seq:
            raise CutError("boot event %d arg %d: numbering" % (boot.seq, boot.arg))
        self.cuts[kind] += 1
        self._reset_history()
        return kind

    def _numbering(self):
        """After a reboot, before any other request: the host syncs. The Link
        drops an event whose number it has seen, so a number used twice
        would lose the boot event."""
        link = self.sim.link
        link.sync()
        boots = [e for e in link.take_events() if e.name == "boot"]
        if not boots:
            raise CutError("no boot event after the reboot: its number was used before")
        return boots


def run(cuts: int, seed: int = 1, folder: str | None = None, games: int = 10) -> dict[str, object]:
    """``cuts`` power cuts over ``games`` games (a spec each); returns the figures."""
    own = folder is None
    work = folder or tempfile.mkdtemp(prefix="qizhong-cuts-")
    out: dict[str, object] = {"cuts": 0, "recovered": 0}
    kinds = {"kill": 0, "torn-old": 0, "torn-new": 0}
    lost: list[int] = []
    commit_us: list[int] = []  # mean per boot
    commit_max: list[int] = []  # worst per boot
    flash: list[str] = []
    start = time.monotonic()
    try:
        for g in range(games):
            n = cuts // games + (1 if g < cuts % games else 0)
            if not n:
                continue
            rig = Rig(work, SPECS[(seed + g) % len(SPECS)], seed * 1000 + g)
            try:
                for _ in range(n):
                    j = fields(rig.sim.command("journal"))
                    us = j["us"].split(",")
                    if int(j["commits"]):
                        commit_us.append(int(us[2]) // int(j["commits"]))
                        commit_max.append(int(us[1]))
                    flash.append(j.get("flash", ""))
                    rig.cut()
                    out["cuts"] = int(str(out["cuts"])) + 1
                    out["recovered"] = int(str(out["recovered"])) + 1
                for k, v in rig.cuts.items():
                    kinds[k] += v
                lost += rig.lost_ms
            finally:
                rig.close()
    finally:
        if own:
            shutil.rmtree(work, ignore_errors=True)
    out["kinds"] = kinds
    out["lost_ms"] = lost
    out["commit_us"] = commit_us
    out["commit_max"] = commit_max
    out["seconds"] = time.monotonic() - start
    return out


def realtime(cuts: int = 1000, seed: int = 1) -> dict[str, object]:
    """``cuts`` SIGKILL cuts of a real-time clock a host listens to throughout."""
    rng = random.Random(seed)
    out: dict[str, object] = {"cuts": 0, "recovered": 0}
    recover_ms: list[float] = []
    got = []
    bad: list[str] = []
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        img = os.path.join(tmp, "clock.img")
        with Sim(virtual=False, display=False, open_link=False, flash=img) as sim:
            clock = Clock(sim.serial_path, timeout=5.0)
            clock.configure("90m+30s")
            k = 0
            for _ in range(cuts):
                if clock.status().state == "paused":
                    clock.resume()
                for _ in range(rng.randrange(0, 4)):  # presses, 30-60 ms each
                    sim.world.sendall(b"lever %d down 0\n" % (1 - k % 2))
                    time.sleep(0.02 + rng.random() * 0.01)  # past the 20 ms settle window
                    sim.world.sendall(b"lever %d up 0\n" % (1 - k % 2))
                    time.sleep(0.01 + rng.random() * 0.02)
                    k += 1
                got += clock.events(rng.random() * 0.02)
                seen = len(clock.link.restarts)
                t0 = time.monotonic()
                sim.power_cut()  # SIGKILL at this instant, then power on
                while len(clock.link.restarts) == seen and time.monotonic() - t0 < 10:
                    got += clock.events(0.01)
                recover_ms.append((time.monotonic() - t0) * 1000)
                out["cuts"] = int(str(out["cuts"])) + 1
                st = clock.status()
                got += clock.events(0)
                presses = sum(1 for e in got if e.name == "press")
                why = []
                if len(clock.link.restarts) != seen + 1:
                    why.append("the host saw no new boot")
                elif clock.link.restarts[-1].renumbered:
                    why.append("numbering started again")
                if st.state not in ("paused", "idle"):
                    why.append("state %s" % st.state)
                if sum(st.moves) < presses:
                    why.append("%d moves, %d presses seen" % (sum(st.moves), presses))
                if why:
                    bad.append("; ".join(why))
                else:
                    out["recovered"] = int(str(out["recovered"])) + 1
            got += clock.events(0.1)
            out["restarts"] = len(clock.link.restarts)
            out["lost"] = clock.link.lost
    seqs = [e.seq for e in got]
    out["events"] = len(got)
    out["duplicated"] = len(seqs) - len(set(seqs))
    out["out_of_order"] = sum(1 for a, b in itertools.pairwise(seqs) if b <= a)
    out["bad"] = bad[:5]
    recover_ms.sort()
    out["p50"] = recover_ms[len(recover_ms) // 2] if recover_ms else 0.0
    out["p99"] = recover_ms[len(recover_ms) * 99 // 100] if recover_ms else 0.0
    out["seconds"] = time.monotonic() - start
    return out


def report_realtime(r: dict[str, object]) -> None:
    print(
        "real-time power cuts: %s, recovered: %s; host: %s events, %s duplicated, "
        "%s out of order, %s numbers skipped"
        % (
            r["cuts"],
            r["recovered"],
            r["events"],
            r["duplicated"],
            r["out_of_order"],
            r["lost"],
        )
    )
    print(
        "recovery (cut to the host knowing the new boot): p50 %.0f ms, p99 %.0f ms; "
        "wall time %.1f s" % (r["p50"], r["p99"], r["seconds"])  # type: ignore[str-format]
    )
    for why in r["bad"]:  # type: ignore[attr-defined]
        print("  not recovered: " + why)


GAMES = (  # (name, spec, moves per side, mean ms per move): a long game of each kind
    ("xiangqi rapid", "15m+10s", 60, 14000),
    ("xiangqi count", "20m count 10s", 80, 15000),
    ("go byo-yomi", "60m byoyomi 3x30s", 150, 25000),
    ("chess classical", "40/90m+30s:30m+30s", 60, 100000),
)


def game_wear(folder: str, spec: str, moves: int, think: int, seed: int = 1) -> dict[str, int]:
    """One whole game on a fresh image, time stepped deadline by deadline (so
    every periodic commit happens): commits and flash use."""
    rng = random.Random(seed)
    path = os.path.join(folder, "wear.img")
    if os.path.exists(path):
        os.remove(path)
    with Sim(flash=path) as sim:
        sim.step = True
        sim.command("config " + spec)
        t = 1000
        for i in range(2 * moves + 1):
            sim.press(1 - i % 2, t)
            t += max(500, int(rng.expovariate(1 / think)))
            if fields(sim.command("status"))["state"] not in ("running", "idle"):
                break
        j = fields(sim.command("journal"))
    progs, nbytes, erases, worst = (int(x) for x in j["flash"].split(","))
    us = [int(x) for x in j["us"].split(",")]
    n = int(j["commits"])
    return {
        "commits": n,
        "minutes": t // 60000,
        "progs": progs,
        "bytes": nbytes,
        "erases": erases,
        "worst_block": worst,
        "us_mean": us[2] // max(1, n),
        "us_max": us[1],
    }


WEAR_MP = """
import sys
sys.path.insert(0, %(firmware)r)
import vfs
from boards import flashfile
from qizhong import app, journal, tcspec


class Bench:
    NAME = board_id = "bench"
    left_side = 0
    fb = (None, None)

    def boot_id(self):
        return "bench"


f = flashfile.Flash(None, %(blocks)d)
vfs.VfsLfs2.mkfs(f, progsize=flashfile.PROG)
a = app.App(Bench(), tcspec.parse("60m byoyomi 3x30s"))
jr = journal.Journal("/state", vfs.VfsLfs2(f, progsize=flashfile.PROG))
jr.start(a)
a.clock.start(0, 0)
t = 0
for i in range(%(commits)d):
    t += 997
    a.clock.press(a.clock.run, t)
    jr.save(a)
print(f.erases, " ".join(str(w) for w in f.wear))
"""


def season_wear(commits: int, blocks: int = 64) -> tuple[int, list[int]]:
    """``commits`` journal commits on a chip of ``blocks`` 4 KB blocks (the
    real journal and littlefs on MicroPython): total erases, and each block's."""
    prog = WEAR_MP % {
        "firmware": os.path.join(ROOT, "firmware"),
        "blocks": blocks,
        "commits": commits,
    }
    out = subprocess.run(
        [micropython_path(), "-c", prog], check=True, capture_output=True, text=True, timeout=600
    ).stdout.split()
    return int(out[0]), [int(w) for w in out[1:]]


def main() -> int:
    cuts = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    r = run(cuts, seed)
    lost = sorted(r["lost_ms"])  # type: ignore[arg-type]
    us = sorted(r["commit_us"])  # type: ignore[arg-type]
    print("power cuts: %d, recovered: %d (%s)" % (r["cuts"], r["recovered"], r["kinds"]))
    if lost:
        print(
            "time lost by the running side (SIGKILL cuts while running): "
            "median %d ms, max %d ms (bound %d)" % (lost[len(lost) // 2], lost[-1], PERIOD_MS)
        )
    if us:
        print(
            "commit on the unix port (CRC, littlefs, file writes): mean %d us (median of "
            "boots), worst %d us" % (us[len(us) // 2], max(r["commit_max"]))  # type: ignore[call-overload]
        )
    print(
        "wall time %.1f s (%.0f ms per cut)"
        % (r["seconds"], 1000 * r["seconds"] / max(1, int(str(r["cuts"]))))
    )
    print("flash use of whole games (4096-byte blocks, littlefs prog 256):")
    with tempfile.TemporaryDirectory() as folder:
        for name, spec, moves, think in GAMES:
            w = game_wear(folder, spec, moves, think)
            print(
                "  %-16s %-20s %3d min: %4d commits, %7d bytes programmed, %3d erases "
                "(1 per %.0f commits), most on one block %d; commit mean %d us, max %d us"
                % (
                    name,
                    spec,
                    w["minutes"],
                    w["commits"],
                    w["bytes"],
                    w["erases"],
                    w["commits"] / max(1, w["erases"]),
                    w["worst_block"],
                    w["us_mean"],
                    w["us_max"],
                )
            )
    n = 100000
    erases, wear = season_wear(n)
    print(
        "wear levelling: %d commits on a 64-block chip: %d erases (1 per %.1f commits); "
        "per block min %d, median %d, max %d"
        % (n, erases, n / erases, min(wear), sorted(wear)[len(wear) // 2], max(wear))
    )
    real = int(sys.argv[3]) if len(sys.argv) > 3 else 200  # about 0.4 s each
    rt = realtime(real, seed)
    report_realtime(rt)
    return 0 if r["cuts"] == r["recovered"] and rt["cuts"] == rt["recovered"] else 1


if __name__ == "__main__":
    sys.exit(main())
