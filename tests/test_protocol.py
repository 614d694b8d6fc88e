# SPDX-License-Identifier: GPL-3.0-or-later
"""The framed serial protocol (docs/protocol.md), both ends, over the simulated board."""

import random

import pytest
import serial

from qizhong.clocks.driver import DRAW, Clock
from qizhong.clocks.link import CommandError, Link
from qizhong.clocks.link import decode as frames_of
from qizhong.core import proto
from qizhong.sim import Sim

# -- frames ---------------------------------------------------------------------------------


def test_crc_is_ccitt_false():
    assert proto.crc16(b"123456789", 0, 9) == 0x29B1  # the catalogue check value


def test_frame_round_trip_and_resync_after_garbage():
    data = b"\x00\xffnoise" + proto.frame("12 pause") + b"$trunc" + proto.frame("13 resume")
    assert frames_of(data) == [(1, "12 pause"), (proto.E_TRUNCATED, ""), (1, "13 resume")]


@pytest.mark.parametrize(
    "data, err",
    [
        (b"$12 pause*0000\r\n", proto.E_CRC),
        (b"$12 pause\r\n", proto.E_TRUNCATED),
        (b"$12 pa\x01use*1234", proto.E_BYTE),
        (b"$12 pause*12G4", proto.E_BYTE),
        (b"$" + b"x" * (proto.MAX_BODY + 1) + b"*0000\n", proto.E_TOO_LONG),
        (b"$*1234", proto.E_TRUNCATED),
    ],
)
def test_broken_frames_are_reported(data, err):
    got = frames_of(data + proto.frame("1 status"))
    assert got == [(err, ""), (1, "1 status")]


def test_a_flipped_bit_never_passes():
    good = proto.frame("42 penalty 0 -120000")
    rng = random.Random(4)
    for _ in range(2000):
        bad = bytearray(good)
        i = rng.randrange(1, len(good) - 2)
        bad[i] ^= 1 << rng.randrange(7)
        star = good.index(b"*")
        if bad[:star] == good[:star] and bytes(bad[star:]).upper() == good[star:]:
            continue  # the CRC's hex digits in lower case: the same frame
        assert (1, "42 penalty 0 -120000") not in frames_of(bytes(bad))


def test_event_frames_parse_back():
    enc = proto.Encoder(["none", "press", "penalty"])
    n = enc.event(123456, 7200000, 2, 1, -120000, 0, 1234567)
    got = frames_of(bytes(enc.buf[:n]))
    assert got == [(1, "e 123456 7200000 penalty 1 -120000 0 1234567")]
    assert bytes(enc.buf[n - 2 : n]) == b"\r\n"


def test_event_log_keeps_the_last_size():
    log = proto.EventLog()
    for i in range(log.SIZE + 10):
        log.add(1, 0, i, 0, 0, 0)
    assert log.last == log.SIZE + 10
    assert log.oldest() == 11


# -- over the simulated clock ------------------------------------------------------------------


def play(sim: Sim, moves: int, t0: int = 1000, think: int = 3700) -> int:
    """Presses alternating from the right lever (Black starts Red's clock)."""
    t = t0
    for i in range(moves):
        sim.press(1 - i % 2, t)
        t += think + (i * 811) % 5000
    return t


def test_configure_then_play_events_match_the_status():
    with Sim() as sim:
        clock = Clock(sim.link)
        assert clock.hello.board == "sim" and clock.hello.proto == proto.PROTOCOL
        clock.configure("15m+10s")
        assert clock.time_control() == "15m+10s"
        clock.levers("red")
        play(sim, 21)
        st = clock.status()  # at the last press
        evs = clock.link.take_events()
        seqs = [e.seq for e in evs]
        assert seqs == list(range(1, st.seq + 1))
        presses = [e for e in evs if e.name == "press"]
        assert len(presses) == 20 and [e.side for e in presses[:4]] == [0, 1, 0, 1]
        last = presses[-1]
        assert last.left == st.left  # both times after the last press, as the status has them
        assert st.moves == (10, 10) and st.state == "running" and st.run == 0


def test_requests_refused_with_a_code():
    with Sim() as sim:
        clock = Clock(sim.link)
        with pytest.raises(CommandError) as e:
            clock.configure("15x")
        assert e.value.code == "spec"
        with pytest.raises(CommandError) as e:
            clock.pause()
        assert e.value.code == "state"
        with pytest.raises(CommandError) as e:
            clock.link.request("fly")
        assert e.value.code == "unknown"
        with pytest.raises(ValueError):
            clock.link.request(
                "config", "*180"
            )  # "*" cannot be in a frame: send the canonical form


def test_a_retried_request_runs_once():
    with Sim() as sim:
        clock = Clock(sim.link)
        clock.configure("10m")
        clock.start()
        sim.link.close()
        with serial.Serial(sim.serial_path, timeout=5) as raw:
            f = proto.frame("777 penalty 1 -60000")
            raw.write(f + f)  # the host lost the reply and sent it again
            got = b""
            while got.count(b"r 777 ok") < 2:
                got += raw.read(1)
        sim.link.open()
        assert clock.status().left == (600000, 540000)


def test_garbage_and_broken_frames_get_errors_and_the_clock_keeps_exact_time():
    with Sim() as sim, Sim() as twin:
        for s in (sim, twin):
            s.command("config 10m+5s")
            play(s, 4)
        sim.link.close()
        with serial.Serial(sim.serial_path, timeout=5) as raw:
            rng = random.Random(9)
            raw.write(bytes(rng.randrange(256) for _ in range(3000)).replace(b"$", b"#"))
            raw.write(b"$12 pause*0000\r\n")  # bad CRC
            raw.write(b"$13 pause\r\n")  # truncated
            raw.write(b"$" + b"y" * 500 + b"*0000\r\n")  # too long
            raw.write(proto.frame("14 status"))
            got = b""
            while b"r 14 ok" not in got:
                got += raw.read(1)
        errs = [body for r, body in frames_of(got) if r == proto.FRAME and body.startswith("r 0")]
        assert errs == ["r 0 err crc", "r 0 err truncated", "r 0 err too-long"]
        sim.link.open()
        for s in (sim, twin):
            play(s, 6, t0=40000)
            s.run_to(90000)
        a, b = sim.status(), twin.status()
        assert (a["left0"], a["left1"], a["moves0"]) == (b["left0"], b["left1"], b["moves0"])
        assert a["state"] == "running"


def test_reconnect_repeatedly_loses_and_duplicates_nothing():
    """The pty is closed and reopened between presses; presses happen while it is closed."""
    with Sim() as sim, Sim() as twin:
        host = Clock(sim.link)
        host.configure("5m byoyomi 3x20s")
        twin.command("config 5m byoyomi 3x20s")
        got = []
        t = 1000
        rng = random.Random(3)
        for i in range(40):
            closed = i % 3 != 2
            if closed:
                sim.link.close()
            for s in (sim, twin):
                s.press(1 - i % 2, t)
                s.run_to(t + 900)
            if closed:
                host.reconnect()
            got += host.events(0)
            t += rng.randrange(1000, 30000)
        sim.run_to(t)
        twin.run_to(t)
        host.link.sync()
        got += host.link.take_events()
        twin.status()
        want = [(e[0], e[1], e[2], e[3]) for e in twin.events]
        assert [e.seq for e in got] == list(range(1, len(got) + 1))
        assert [(e.name, e.side, e.t, e.arg) for e in got] == want
        assert host.link.opens == 1 + 27
        assert host.link.lost == 0


def test_a_host_away_too_long_is_told_what_was_lost():
    with Sim() as sim:
        host = Clock(sim.link)
        host.configure("60m")
        host.link.take_events()
        sim.link.close()
        n = proto.EventLog.SIZE + 40
        for i in range(n):
            sim.press(1 - i % 2, 1000 + 500 * i)
        host.reconnect()
        evs = host.link.take_events()
        assert host.link.lost > 0
        assert len(evs) == proto.EventLog.SIZE
        assert evs[-1].seq == host.status().seq


def test_whole_state_load_and_result_on_the_displays():
    with Sim() as sim:
        c = Clock(sim.link)
        c.configure("30m byoyomi 3x30s")
        c.load("black", (61000, 0), (40, 41), (3, 2))  # EQ-7: a replacement clock
        st = c.status()
        assert st.state == "paused" and st.run == 1
        assert st.left == (61000, 30000) and st.moves == (40, 41) and st.periods == (3, 2)
        c.resume()
        sim.run_to(sim.now + 31000)
        assert c.status().periods == (3, 1)
        c.finish(DRAW)
        assert c.status().result == DRAW
        evs = c.link.take_events()
        assert evs[-1].name == "finish" and evs[-1].arg == DRAW


def test_volume_and_mute():
    with Sim() as sim:
        c = Clock(sim.link)
        c.configure("1m count 10s")
        c.volume(4)
        c.mute()
        sim.key("start", 0)
        sim.run_to(75000)
        assert sim.cues == []  # muted: no voice
        assert sim.volumes == [(0, 4), (0, 0)]
        c.mute(False)
        with pytest.raises(CommandError):
            c.volume(11)
        st = c.status()
        assert (st.volume, st.muted) == (4, False)


@pytest.mark.parametrize("ppm", [50, -37])
def test_drift_calibration_against_a_skewed_crystal(ppm):
    with Sim(skew_ppm=ppm) as sim:
        clock = Clock(sim.link)
        trim = clock.calibrate(
            3600000, samples=7, now=lambda: sim.now, wait=lambda ms: sim.run_to(sim.now + ms)
        )
        assert abs(trim - ppm) <= 1
        t0, c0 = sim.now, clock.now()
        sim.run_to(t0 + 10 * 3600000)  # ten hours
        err = (clock.now() - c0) - 10 * 3600000
        assert abs(err) * 1000000 < 2 * 10 * 3600000, err  # under 2 ppm
        untrimmed = 10 * 3600000 * ppm // 1000000
        assert abs(untrimmed) > 10 * abs(err)


def test_link_reports_frames_it_could_not_read():
    with Sim() as sim:
        link: Link = sim.link
        link.feed(b"$e 1 2 press 0 0 0 0*0000\r\n")
        assert link.bad_frames == 1 and link.take_events() == []


def test_state_load_keeps_what_is_given_as_minus_one():
    with Sim() as sim:
        c = Clock(sim.link)
        c.configure("10m")
        c.load(0, (-1, 5000), (7, -1))  # EQ-7: only Black's time and Red's moves given
        st = c.status()
        assert st.left == (600000, 5000) and st.moves == (7, 0)


def test_the_widest_status_reply_fits_a_frame():
    # A reply's body ("r ID ...") is at most proto.MAX_BODY bytes, or the host gets
    # "err internal" instead of the status. Every field at the widest the clock
    # lets it be (t just under the 2**29 ms rebase, 100 h a side, 9999 moves, 99
    # periods, finished, Black's lever, volume 10, muted), then the request ID, the
    # event count and the side to move widened to theirs (65535, 2**31 - 1, -1).
    with Sim() as sim:
        for c in (
            "config 1m byoyomi 99x60s",
            "levers black",
            "volume 10",
            "mute on",
            "start",
            "pause",
            "set red 360000000 9999 99",
            "set black 360000000 9999 99",
            "finish",
        ):
            assert sim.command(c).startswith("ok"), c  # fmt: skip
        sim.run_to((1 << 29) - 1000)
        text = sim.command("status")
    f = dict(w.split("=", 1) for w in text.split()[2:])
    assert f["t"] == "536869912" and f["left"] == "360000000,360000000"
    widest = len("r 65535 " + text) + len("2147483647") - len(f["seq"]) + 2 - len(f["run"])
    assert widest <= proto.MAX_BODY, widest  # 199 of 200 with the freeze and kl fields
