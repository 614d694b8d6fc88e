# SPDX-License-Identifier: GPL-3.0-or-later
"""The power-loss journal and power cuts (#8, docs/journal.md).

The record format on CPython; littlefs, torn writes at every byte and the
allocation check on MicroPython (tests/mp/journal_check.py); and power cuts
through the real firmware on the simulator, by SIGKILL and by tearing a
flash write, each checked against a twin clock that was not cut
(benchmarks/power_cuts.py runs 1,000 of them).
"""

import os
import random
import re
import subprocess
import sys
import zlib

import pytest

from conftest import ROOT
from qizhong.clocks.driver import Clock
from qizhong.core import app as A
from qizhong.core import clock as C
from qizhong.core import journal as J
from qizhong.core import tcspec, voice
from qizhong.core.timecontrol import SideTime
from qizhong.sim import PowerCut, Sim, SimError

sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import power_cuts


class Bench:
    """The hardware under an App on CPython: framebuffers, volume, trim."""

    NAME = "bench"
    board_id = "bench"
    left_side = 0
    fb = (None, None)

    def __init__(self):
        self.volume = -1
        self.trim = 0

    def boot_id(self):
        return "bench"

    def set_volume(self, v):
        self.volume = v

    def set_trim(self, ppm):
        self.trim = ppm

    def set_voice(self, lang):
        self.lang = lang

    def say(self, cue, t):
        pass

    def beep(self, on, t):
        pass

    def write_n(self, buf, n):
        pass


def booted(folder, spec="xq-rapid"):
    app = A.App(Bench(), tcspec.parse(spec))
    app.journal = J.Journal(str(folder))
    app.journal.start(app)
    return app


def play(app, moves, t=1000, think=3700):
    """``moves`` presses by the side to move; returns the last one's time."""
    c = app.clock
    for i in range(moves):
        if i:
            t += think + (i * 811) % 5000
        c.tick(t)
        app.drain()
        c.press(c.run if c.state == C.RUNNING else 1, t)
        app.drain()
        c.release(0, t + 50)
        c.release(1, t + 50)
    return t


# -- the record ------------------------------------------------------------------------


def test_crc_is_zlibs_crc32():
    rng = random.Random(4)
    for n in (0, 1, 7, 107, 300):
        data = bytes(rng.randrange(256) for _ in range(n))
        assert J.crc32(data) == zlib.crc32(data)


def test_every_side_field_is_journaled():
    # A field added to SideTime must be added to the record (journal.SIDE).
    assert set(vars(SideTime())) == set(J.SIDE_FIELDS)
    assert (
        len(J.SIDE_FIELDS) == len(J.SIDE.lstrip("<")) + 3
    )  # ot, flagged, recorded, warned: one byte


def test_every_clock_field_is_journaled_or_transient():
    # A field added to Clock must be journaled, or named here as lost on purpose.
    kept = {"tc", "left_side", "sides", "state", "run", "t0", "first_flag", "knocker", "result"}
    ring = {"_ek", "_es", "_et", "_ea", "_head", "_count", "ev_side", "ev_t", "ev_arg"}
    transient = ring | {"lost", "late", "_nk", "_ns", "down", "_held", "now"}
    assert set(vars(C.Clock(tcspec.parse("15m+10s")))) == kept | transient


def test_a_record_round_trips_through_files(tmp_path):
    a = booted(tmp_path, "10m+5s red -40%")
    a.volume, a.muted, a.trim = 4, True, 35
    a.clock.left_side = 1
    t = play(a, 9)
    a.clock.tick(t + 2500)  # 2.5 s into the move in progress
    a.journal.save(a)
    before = [a.clock.left(i, t + 2500) for i in (0, 1)]
    a.journal.close()
    b = booted(tmp_path)
    c = b.clock
    r = b.journal.restored
    assert r.gen == a.journal.gen and r.saved == t + 2500 and r.el == 2500
    assert tcspec.format(c.tc) == "10m+5s red -40%"
    assert c.state == C.PAUSED and c.run == a.clock.run
    assert [c.left(i, 0) for i in (0, 1)] == before
    assert [s.moves for s in c.sides] == [s.moves for s in a.clock.sides]
    assert (b.volume, b.muted, b.trim, c.left_side) == (4, True, 35, 1)
    assert (b.board.volume, b.board.trim) == (0, 35)
    assert b.log.last == a.journal.seq_hi and b.log.first == a.journal.seq_hi + 1


def test_the_voice_round_trips_beside_mute_and_an_older_record_reads_as_mandarin(tmp_path):
    a = booted(tmp_path, "10m byoyomi 3x60s")
    try:
        a.muted = True
        a.set_voice(voice.LANGS.index("ja"), 1, 0)  # Japanese, counting down
        a.journal.save(a)
        a.journal.close()
        voice.use(0, 0)  # a power cut: the clock boots in Mandarin
        b = booted(tmp_path)
        assert (voice.LANGS[voice.lang], voice.STYLES[voice.style], b.muted) == ("ja", "down", True)
        assert b.board.lang == "ja"  # the board speaks it again
        assert b.clock.tc.overtime.table == voice.byoyomi_table(60000, False)  # retabled
        b.journal.close()
        # A record written before the voice existed had 0 or 1 in that byte.
        jr = J.Journal(str(tmp_path))
        r = jr.open()  # the newest record
        jr.close()
        assert r is not None and (r.muted, r.voice) == (True, 5)
        r.voice = 0
        voice.use(0, 0)
        J.restore(r, booted(tmp_path / "other"))
        assert (voice.lang, voice.style) == (0, 0)
        r.voice = 10  # no such language: refused, nothing changed
        with pytest.raises(ValueError, match="voice 10"):
            J.restore(r, booted(tmp_path / "third"))
        assert (voice.lang, voice.style) == (0, 0)
    finally:
        voice.use(0, 0)


def test_a_damaged_record_is_never_taken(tmp_path):
    a = booted(tmp_path, "60m byoyomi 3x30s")
    play(a, 5)
    data = bytes(a.journal.buf)
    assert J.decode(data).gen == a.journal.gen
    for i in range(len(data)):  # every single flipped bit
        for bit in range(8):
            bad = bytearray(data)
            bad[i] ^= 1 << bit
            assert J.decode(bytes(bad)) is None, (i, bit)
    for n in range(len(data)):  # every truncation
        assert J.decode(data[:n]) is None
    rng = random.Random(2)
    for _ in range(200):
        assert J.decode(bytes(rng.randrange(256) for _ in range(len(data)))) is None


def test_a_record_from_another_layout_is_ignored(tmp_path, monkeypatch):
    a = booted(tmp_path)
    play(a, 3)
    a.journal.close()
    monkeypatch.setattr(J, "VERSION", J.VERSION + 1)
    b = booted(tmp_path)
    assert b.journal.restored is None and b.clock.state == C.IDLE
    assert b.log.last == 0  # nothing usable: a fresh clock, numbering from 1


# -- littlefs, torn writes, allocation (MicroPython) -------------------------------------


def test_journal_checks_on_micropython(micropython, tmp_path):
    r = subprocess.run(
        [micropython, os.path.join(ROOT, "tests", "mp", "journal_check.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "journal: 5 passed, 0 failed" in r.stdout
    torn = re.findall(r"^torn: (\w+) commit, (\d+) bytes, (\d+) erases", r.stdout, re.M)
    assert {k for k, _, _ in torn} == {"first", "plain", "erase"}
    assert all(int(n) > 0 for _, n, _ in torn)
    print(r.stdout)


# -- power cuts through the firmware -------------------------------------------------------


def test_random_power_cuts_all_recover(tmp_path):
    r = power_cuts.run(50, seed=3, folder=str(tmp_path), games=5)
    assert r["cuts"] == r["recovered"] == 50
    kinds = r["kinds"]
    assert kinds["kill"] and kinds["torn-old"] and kinds["torn-new"], kinds
    assert all(0 <= ms <= power_cuts.PERIOD_MS for ms in r["lost_ms"])


def test_power_cut_comes_back_paused_and_resumes(tmp_path):
    with Sim(flash=str(tmp_path / "f.img")) as sim:
        sim.step = True  # time moves deadline by deadline, as on the clock
        sim.command("config 5m+3s")
        sim.press(1, 1000)  # Black's lever starts Red's clock
        sim.press(0, 4000)
        sim.run_to(27000)  # Black thinks 23 s: committed at 14 s and 24 s
        assert sim.status()["left1"] == 300000 - 23000
        sim.power_cut()
        st = sim.status()
        assert (st["state"], st["run"], st["moves0"], st["moves1"]) == ("paused", 1, 1, 0)
        assert st["left0"] == 300000 - 3000 + 3000
        assert st["left1"] == 300000 - 20000  # 20 s committed, 3 s lost (< PERIOD_MS)
        j = power_cuts.fields(sim.command("journal"))
        assert j["restored"].split(",")[1:3] == ["24000", "20000"]  # saved, el
        sim.key("start", 30000)  # the arbiter resumes
        sim.run_to(31000)
        assert sim.status()["left1"] == 300000 - 21000
        assert [e[0] for e in sim.events if e[0] in ("boot", "resume")][-2:] == ["boot", "resume"]


def test_event_numbers_go_on_and_the_host_gets_no_duplicates(tmp_path):
    with Sim(flash=str(tmp_path / "f.img")) as sim:
        host = Clock(sim.link)
        host.configure("20m count 10s")
        t = 1000
        got = []
        for cut in range(4):
            for i in range(6):
                sim.press(1 - i % 2, t)
                t += 1500 + 900 * i
            sim.run_to(t)  # some cues: numbers that commit nothing
            got += host.events()
            host.link.sync()
            got += host.link.take_events()
            before = max(e.seq for e in got)
            if cut % 2:
                sim.power_cut()
            else:  # torn inside the next commit
                sim.cut_after(100)
                with pytest.raises(PowerCut):
                    sim.press(1, t)  # the side to move: its press commits
                sim.power_on()
            host.reconnect()  # the driver: a new boot, so it asks for everything kept
            new = host.link.take_events()
            assert new and new[0].name == "boot" and new[0].seq > before
            assert 0 < new[0].arg < new[0].seq  # the last number the restored record gave out
            got += new
            host.start() if host.status().state == "idle" else host.resume()
            t = sim.now + 1000
        host.link.sync()
        got += host.link.take_events()
        seqs = [e.seq for e in got]
        assert seqs == sorted(set(seqs))  # never one number twice
        assert [e.name for e in got].count("boot") == 1 + 4
        assert host.status().seq == max(seqs)


def test_the_journal_does_not_change_the_time(tmp_path):
    # The same game on a journaling clock and a plain one: the same events at
    # the same instants (periodic commits touch nothing).
    out = []
    for flash in (str(tmp_path / "f.img"), None):
        with Sim(flash=flash) as sim:
            sim.step = True
            sim.command("config 1m byoyomi 3x20s")
            rng = random.Random(8)
            t = 500
            for i in range(40):
                sim.press(1 - i % 2, t)
                t += rng.choice((900, 7000, 12000, 26000))
            sim.run_to(t)
            st = sim.status()
            sim.link.sync()  # every event, even one sent before the port opened
            evs = sim.events + [(e.name, e.side, e.t, e.arg) for e in sim.link.take_events()]
            out.append((sorted(evs, key=lambda e: e[2]), st))
    assert out[0] == out[1]
    assert any(e[0] == "period" for e in out[0][0])


def test_the_arbiters_key_and_counter_survive_a_power_cut(tmp_path):
    # A paired clock stays paired, and a counter it took is never taken again.
    from qizhong.clocks import auth
    from qizhong.clocks.link import CommandError

    store = auth.KeyStore(str(tmp_path / "keys.json"))
    with Sim(flash=str(tmp_path / "f.img")) as sim:
        auth.pair_sim(sim, store)
        sim.link.request("penalty", "1 5000")  # tagged by the store's signer
        hello = sim.link.request("hello").fields()
        assert hello["auth"] == "1"
        ctr = int(hello["ctr"])
        replay = sim.link.sign
        sim.power_cut()
        hello = sim.link.request("hello").fields()
        assert (hello["auth"], int(hello["ctr"])) == ("1", ctr)
        sim.link.sign = None
        with pytest.raises(CommandError, match="required"):
            sim.link.request("penalty", "1 5000")
        bad = auth.Signer(store.get(hello["id"])[0], lambda: ctr)  # a counter already used
        sim.link.sign = bad
        with pytest.raises(CommandError, match="replay"):
            sim.link.request("penalty", "1 5000")
        sim.link.sign = replay
        sim.link.request("penalty", "1 5000")  # the store's next counter: accepted
        assert sim.status()["left1"] == 900000 + 10000


def test_without_flash_there_is_no_journal():
    with Sim() as sim:
        assert sim.command("journal") == "ok journal off"
        sim.link.sync()  # the boot event may have been sent before the port opened
        evs = sim.events + [(e.name, e.side, e.t, e.arg) for e in sim.link.take_events()]
        assert evs == [("boot", -1, 0, 0)] and sim.status()["seq"] == 1
        with pytest.raises(SimError):
            sim.power_on()


def test_an_image_that_will_not_mount_is_never_formatted(tmp_path):
    img = tmp_path / "bad.img"
    junk = random.Random(1).randbytes(64 * 4096)
    img.write_bytes(junk)
    with pytest.raises(SimError, match="not a littlefs image"):
        Sim(flash=str(img))
    assert img.read_bytes() == junk
