# SPDX-License-Identifier: GPL-3.0-or-later
"""Arbiter authentication (issue #8, docs/security.md): HMAC, pairing at the
clock's keys and display, tagged changes, replays, open queries, the host's
key store and ``qizhong pair``; the real firmware on the simulated board."""

import hashlib
import hmac
import os
import random
import stat
import subprocess

import pytest
import serial

from conftest import ROOT
from qizhong.cli import clock as cli_clock
from qizhong.cli import pair as cli_pair
from qizhong.clocks import auth
from qizhong.clocks.driver import Clock
from qizhong.clocks.link import CommandError
from qizhong.core import auth as fw
from qizhong.core import proto
from qizhong.sim import Sim

# RFC 4231 test cases 1-4, 6, 7: (key, data, HMAC-SHA-256); case 5 is truncated to 128 bits.
RFC4231 = [
    (
        b"\x0b" * 20,
        b"Hi There",
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
    ),
    (
        b"Jefe",
        b"what do ya want for nothing?",
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    ),
    (
        b"\xaa" * 20,
        b"\xdd" * 50,
        "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
    ),
    (
        bytes(range(1, 26)),
        b"\xcd" * 50,
        "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
    ),
    (
        b"\xaa" * 131,
        b"Test Using Larger Than Block-Size Key - Hash Key First",
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
    ),
    (
        b"\xaa" * 131,
        b"This is a test using a larger than block-size key and a larger than block-size "
        b"data. The key needs to be hashed before being used by the HMAC algorithm.",
        "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
    ),
]
RFC4231_CASE5 = (b"\x0c" * 20, b"Test With Truncation", "a3b6167473100ee06e0c796c2955552b")


@pytest.fixture
def store(tmp_path, monkeypatch):
    """A key file of the test's own; the default store points there too."""
    path = tmp_path / "cfg" / "keys.json"
    monkeypatch.setenv("QIZHONG_KEYS", str(path))
    return auth.KeyStore(str(path))


def paired(sim: Sim, store: auth.KeyStore) -> Clock:
    auth.pair_sim(sim, store)
    return Clock(sim.link, keys=store)


def fields(sim: Sim) -> dict[str, str]:
    return sim.link.request("hello").fields()


def raw_requests(sim: Sim, bodies: list[str], wire: bytearray | None = None) -> list[str]:
    """Send request bodies as frames straight onto the pty; their reply texts.
    ``wire`` collects every byte both ways."""
    sim.link.close()
    out = []
    wire = bytearray() if wire is None else wire
    with serial.Serial(sim.serial_path, timeout=5) as raw:
        for body in bodies:
            raw.write(proto.frame(body))
            wire += proto.frame(body)
            rid = body.split(" ", 1)[0]
            got = b""
            dec = proto.Decoder()
            reply = None
            while reply is None:
                b = raw.read(1)
                assert b, "no reply to %r" % body
                if dec.push(b[0]) == proto.FRAME and dec.body().startswith("r %s " % rid):
                    reply = dec.body().split(" ", 2)[2]
                got += b
            wire += got
            out.append(reply)
    sim.link.open()
    return out


# -- HMAC ---------------------------------------------------------------------------------


@pytest.mark.parametrize("key, data, want", RFC4231)
def test_firmware_hmac_matches_rfc4231(key, data, want):
    assert fw.hmac_sha256(key, data).hex() == want
    assert hmac.new(key, data, hashlib.sha256).hexdigest() == want


def test_firmware_hmac_truncated_rfc4231_case5():
    key, data, want = RFC4231_CASE5
    assert fw.hmac_sha256(key, data).hex()[:32] == want


def test_firmware_hmac_on_micropython_matches_cpython(micropython):
    rng = random.Random(8)
    cases = [(k, d) for k, d, _ in RFC4231]
    cases += [
        (rng.randbytes(rng.choice([0, 1, 63, 64, 65, 200])), rng.randbytes(rng.randrange(300)))
        for _ in range(40)
    ]
    prog = "import sys\nsys.path.insert(0, %r)\nfrom qizhong import auth\n" % os.path.join(
        ROOT, "firmware"
    )
    prog += "".join(
        "print(auth.hmac_sha256(bytes.fromhex(%r), bytes.fromhex(%r)).hex())\n" % (k.hex(), d.hex())
        for k, d in cases
    )
    prog += "print(auth.tag(b'k', '12 pause ~3'))\n"
    prog += "print(auth.derive_key('7KQ3M2XD9WHE4RTA', 'e66038b7133f5a2c').hex())\n"
    out = subprocess.run(
        [micropython, "-c", prog], capture_output=True, text=True, check=True
    ).stdout.split()
    want = [hmac.new(k, d, hashlib.sha256).hexdigest() for k, d in cases]
    want.append(auth.tag(b"k", "12 pause ~3"))
    want.append(auth.derive_key("7KQ3M2XD9WHE4RTA", "e66038b7133f5a2c").hex())
    assert out == want


def test_codes_and_their_normal_form():
    codes = {fw.new_code() for _ in range(200)}
    assert len(codes) == 200
    assert all(len(c) == 16 and set(c) <= set(fw.ALPHABET) for c in codes)
    assert fw.new_code(lambda n: bytes(n)) == "0" * 16
    assert fw.new_code(lambda n: b"\xff" * n) == "Z" * 16
    assert auth.normalize_code("7kq3-m2xd 9whe 4rta") == "7KQ3M2XD9WHE4RTA"
    assert auth.normalize_code("O0Il ABCD EFGH JKMN") == "0011ABCDEFGHJKMN"
    with pytest.raises(ValueError, match="no U"):
        auth.normalize_code("U" * 16)
    with pytest.raises(ValueError, match="16 characters"):
        auth.normalize_code("ABCD")


def test_tag_form_is_parsed_strictly():
    r = proto.Request().parse("12 pause")
    assert (r.rid, r.verb, r.args, r.ctr) == (12, "pause", [], 0)
    r = proto.Request().parse("12 penalty 0 -500 ~77 " + "a" * 32)
    assert (r.verb, r.args, r.signed, r.ctr, r.tag) == (
        "penalty", ["0", "-500"], "12 penalty 0 -500 ~77", 77, "a" * 32)  # fmt: skip
    for bad in ("12 pause ~x " + "a" * 32, "12 pause ~0 " + "a" * 32, "12 pause ~5 abc",
                "12 pause ~5", "12 pause ~12345678901 " + "a" * 32,
                "12 ~5 " + "a" * 32, "12 pause ~5 x ~6 " + "a" * 32):  # fmt: skip
        with pytest.raises(proto.TagForm):
            proto.Request().parse(bad)


# -- pairing at the clock ------------------------------------------------------------------------


def test_pairing_shows_a_code_and_the_host_pairs_with_it(store):
    with Sim() as sim:
        assert fields(sim)["auth"] == "0"
        for t in (1000, 1400, 2900):  # ok three times within 2 s
            sim.key("ok", t)
        left, right = sim.frame()
        code = auth.read_code(left)
        assert auth.read_code(right) == code  # both displays show it
        assert code not in sim.link.request("status").text
        f = fields(sim)
        assert code not in " ".join(f.values())
        auth.pair(sim.link, f["id"], code, store)
        f = fields(sim)
        assert (f["auth"], f["ctr"]) == ("1", "1")
        assert store.get("sim") == (auth.derive_key(code, "sim"), 1)
        evs = sim.link.take_events()
        assert [(e.name, e.arg, e.t) for e in evs if e.name == "pair"] == [("pair", 1, 2900)]
        with pytest.raises(ValueError, match="no pairing code"):
            auth.read_code(sim.frame()[0])  # the code is gone once paired
        mode = stat.S_IMODE(os.stat(store.path).st_mode)
        assert mode == 0o600


@pytest.mark.parametrize(
    "keys, why",
    [
        ([("ok", 1000), ("ok", 1500)], "two presses"),
        ([("ok", 1000), ("ok", 2000), ("ok", 3001)], "too slow"),
        ([("ok", 1000), ("plus", 1100), ("ok", 1200), ("ok", 1300)], "another key between"),
        ([("start", 500), ("ok", 1000), ("ok", 1100), ("ok", 1200)], "the clock runs"),
        ([("menu", 500), ("ok", 1000), ("ok", 1100), ("ok", 1200)], "the setup menu is open"),
    ],
)
def test_no_pairing_without_the_key_sequence(keys, why, store):
    with Sim() as sim:
        sim.command("config 10m")
        for name, t in keys:
            sim.key(name, t)
        with pytest.raises(ValueError, match="no pairing code"):
            auth.read_code(sim.frame()[0])
        with pytest.raises(CommandError, match="pairing is off"):
            auth.pair(sim.link, "sim", "0" * 16, store)


def test_pairing_ends_on_a_key_a_press_or_its_timeout(store):
    with Sim() as sim:
        board = fields(sim)["id"]
        for name, t in (("ok", 1000), ("ok", 1100), ("ok", 1200), ("minus", 5000)):
            sim.key(name, t)
        with pytest.raises(ValueError):
            auth.read_code(sim.frame()[0])
        for t in (6000, 6100, 6200):
            sim.key("ok", t)
        code = auth.read_code(sim.frame()[0])
        assert sim.deadline == 6200 + fw.Guard.PAIR_MS  # the code goes off by itself
        sim.run_to(6200 + fw.Guard.PAIR_MS)
        with pytest.raises(ValueError):
            auth.read_code(sim.frame()[0])
        with pytest.raises(CommandError, match="pairing is off"):
            auth.pair(sim.link, board, code, store)
        for t in (200000, 200100, 200200):
            sim.key("ok", t)
        code = auth.read_code(sim.frame()[0])
        sim.press(1, 201000)  # a lever: the game starts, and the code goes
        with pytest.raises(CommandError, match="pairing is off"):
            auth.pair(sim.link, board, code, store)
        assert store.get(board) is None and fields(sim)["auth"] == "0"


def test_a_game_started_from_the_host_takes_the_code_off_the_displays():
    with Sim() as sim:
        for t in (1000, 1100, 1200):
            sim.key("ok", t)
        auth.read_code(sim.frame()[0])
        assert sim.command("start") == "ok start"  # unpaired: anyone may
        with pytest.raises(ValueError, match="no pairing code"):
            auth.read_code(sim.frame()[0])


def test_wrong_codes_are_refused_and_five_end_the_step(store):
    with Sim() as sim:
        for t in (1000, 1100, 1200):
            sim.key("ok", t)
        code = auth.read_code(sim.frame()[0])
        wrong = ("1" if code[0] != "1" else "2") + code[1:]
        for _ in range(fw.Guard.PAIR_TRIES):
            with pytest.raises(CommandError, match="code"):
                auth.pair(sim.link, "sim", wrong, store)
        with pytest.raises(CommandError, match="pairing is off"):
            auth.pair(sim.link, "sim", code, store)  # the right one, too late
        f = fields(sim)
        assert f["auth"] == "0" and f["authfail"] == str(fw.Guard.PAIR_TRIES)
        with pytest.raises(CommandError, match="code"):  # an untagged pair never pairs
            sim.link.request("pair")


def test_pairing_again_replaces_the_key(store, tmp_path):
    other = auth.KeyStore(str(tmp_path / "other.json"))
    with Sim() as sim:
        first = paired(sim, store)
        first.configure("10m")
        auth.pair_sim(sim, other, t=sim.now + 1000)  # a second host, paired at the clock
        sim.link.sign = store.signer("sim")
        with pytest.raises(CommandError) as e:
            first.configure("5m")  # the old key no longer works
        assert e.value.code == "auth" and e.value.message.startswith("tag")
        second = Clock(sim.link, keys=other)
        second.configure("5m")
        assert second.time_control() == "5m"


# -- changes need a tag --------------------------------------------------------------------


CHANGES = [
    "config 5m",
    "override 5m",
    "start",
    "pause",
    "resume",
    "penalty 0 60000",
    "knock 0",
    "set 1 1000",
    "state 0 1000 0 -1 1000 0 -1 running",
    "levers black",
    "new",
    "finish red",
    "volume 3",
    "mute on",
    "trim 200",
    "unpair",
    "mem hold",
    "pair",
    "fly",
]


def test_unauthenticated_changes_are_all_refused_and_nothing_changes(store):
    with Sim() as sim:
        clock = paired(sim, store)
        clock.configure("10m+5s")
        clock.start()
        sim.run_to(sim.now + 7000)
        sim.link.sign = None  # a host without the key
        before = clock.status()
        for line in CHANGES:
            got = sim.command(line)
            assert got.startswith("err auth"), (line, got)
        after = clock.status()
        assert after == before  # the same instant: nothing changed, no event
        assert fields(sim)["authfail"] == str(len(CHANGES) - 1)  # "pair" is not counted
        sim.run_to(sim.now + 3000)
        assert clock.status().left == (before.left[0] - 3000, before.left[1])


def test_read_only_queries_stay_open(store):
    with Sim() as sim:
        paired(sim, store)
        sim.link.sign = None
        for line in ("hello", "status", "since 0", "time", "tc", "mem", "mem collect"):
            assert sim.command(line).startswith("ok"), line


def test_replays_and_forgeries_are_refused(store):
    with Sim() as sim:
        clock = paired(sim, store)
        clock.configure("10m")
        clock.start()
        sign = store.signer("sim")
        assert sign is not None
        pen1 = sign("501 penalty 1 60000")
        pen2 = sign("502 penalty 1 60000")
        pen3 = sign("503 penalty 0 1000")
        ctr = int(pen3.split()[-2][1:])
        wrong_key = auth.Signer(b"k" * 32, lambda: ctr + 10)("504 penalty 1 60000")
        forged_id = "505" + pen3[3:]  # another id under pen3's tag and counter
        t3 = pen3.split()[-1]
        forged_args = "508 penalty 0 99999 ~%d %s" % (ctr + 3, t3)  # pen3's tag, new counter
        lower = auth.Signer(store.get("sim")[0], lambda: ctr - 1)("506 penalty 1 60000")
        again = auth.Signer(store.get("sim")[0], lambda: ctr)("507 penalty 1 60000")
        got = raw_requests(
            sim,
            [pen1, pen2, pen3, pen1, "600 status", pen2, wrong_key, forged_id, forged_args,
             lower, again, "601 penalty 1 60000 ~%d " % (ctr + 1) + "0" * 32],
        )  # fmt: skip
        assert got[:3] == ["ok penalty"] * 3
        assert got[3] == "err auth replay: counter %d is not above %d" % (ctr - 2, ctr)
        assert got[4].startswith("ok status")
        assert got[5].startswith("err auth replay")
        assert got[6] == "err auth tag: wrong tag"
        assert got[7].startswith("err auth replay")
        assert got[8] == "err auth tag: wrong tag"
        assert got[9].startswith("err auth replay") and got[10].startswith("err auth replay")
        assert got[11] == "err auth tag: wrong tag"
        assert clock.status().left == (601000, 720000)  # each penalty once


def test_a_change_retried_after_a_query_runs_once(store):
    """The reply to a tagged change was lost; a query came between; the retry
    gets the first reply, and is not run again (nor refused as a replay)."""
    with Sim() as sim:
        clock = paired(sim, store)
        clock.configure("10m")
        sign = store.signer("sim")
        assert sign is not None
        pen = sign("700 penalty 0 5000")
        got = raw_requests(sim, [pen, "701 since 0", "702 time", pen])
        assert got[0] == got[3] == "ok penalty"
        assert clock.status().left == (605000, 600000)


def test_a_tag_on_an_unpaired_clock_is_refused(store):
    with Sim() as sim:
        got = sim.command("pause ~1 " + "0" * 32)
        assert got.startswith("err auth unpaired")
        assert sim.command("config 7m") == "ok config"  # unpaired: open, as before #8


def test_unpair_opens_the_clock_again(store):
    with Sim() as sim:
        clock = paired(sim, store)
        auth.unpair(clock.link, "sim", store)
        assert fields(sim)["auth"] == "0" and store.get("sim") is None
        assert sim.command("config 3m") == "ok config"
        sim.status()
        assert [e[3] for e in sim.events if e[0] == "pair"] == [1, 0]


# -- the host's side --------------------------------------------------------------------------


def test_counters_are_saved_before_use_and_follow_the_clock(store):
    with Sim() as sim:
        clock = paired(sim, store)
        for i in range(5):
            clock.volume(i)
        assert store.get("sim")[1] == 6 and fields(sim)["ctr"] == "6"
        key = store.get("sim")[0]
        store.put("sim", key, 2)  # an old copy of the key file
        clock = Clock(sim.link, keys=store)  # hello says the clock took 6
        clock.volume(9)
        assert store.get("sim")[1] == 7 and fields(sim)["ctr"] == "7"


def test_a_store_without_the_key_gets_a_clear_refusal(store, tmp_path):
    with Sim() as sim:
        paired(sim, store)
        clock = Clock(sim.link, keys=auth.KeyStore(str(tmp_path / "empty.json")))
        assert clock.link.sign is None
        with pytest.raises(CommandError) as e:
            clock.pause()
        assert e.value.code == "auth" and "paired" in e.value.message


def test_bad_key_files_are_reported(tmp_path):
    path = tmp_path / "keys.json"
    path.write_text("[1, 2")
    with pytest.raises(ValueError, match="not a key file"):
        auth.KeyStore(str(path)).get("sim")


def test_the_longest_replies_and_tagged_requests_fit_a_frame():
    status = (
        "r 65535 ok status t=2147483647 state=finished run=-1 left=-2147483647,2147483647"
        " moves=9999,9999 periods=99,99 flag=-1 result=-1 levers=black locked=1"
        " seq=2147483647 volume=10 mute=1 auth=1"
    )
    hello = (
        "r 65535 ok hello proto=1 fw=0.1.0 board=pico id=e66038b7133f5a2c boot=7fffffff"
        " seq=2147483647 auth=1 ctr=9999999999 authfail=2147483647"
    )
    assert len(status) <= proto.MAX_BODY and len(hello) <= proto.MAX_BODY
    sign = auth.Signer(b"k", lambda: 9999999999)
    longest = sign("65535 " + "x" * (proto.MAX_BODY - 6 - 45))
    assert len(longest) <= proto.MAX_BODY


# -- qizhong pair ---------------------------------------------------------------------------------


def test_cli_pair_with_the_code_then_commands_are_tagged(store, capsys):
    with Sim(open_link=False) as sim:
        for t in (1000, 1100, 1200):
            sim.key("ok", t)
        code = auth.read_code(sim.frame()[0])
        wrong = ("1" if code[0] != "1" else "2") + code[1:]
        base = ["--port", sim.serial_path, "--keys", store.path, "--timeout", "5"]
        assert cli_pair.main([*base, "--code", "not a code"]) == 2
        assert cli_pair.main([*base, "--code", wrong]) == 3
        assert cli_pair.main([*base, "--code", code.lower()]) == 0
        out = capsys.readouterr()
        assert "paired with clock sim" in out.out and "refused pair" in out.err
        with cli_clock._clock(_ns(sim.serial_path)) as c:  # the default store: $QIZHONG_KEYS
            assert c.link.sign is not None
            c.configure("12m")
        assert cli_pair.main([*base, "--unpair"]) == 0
        assert cli_pair.main([*base, "--unpair"]) == 3
        sim.link.open()
        assert sim.command("tc") == "ok tc 12m" and fields(sim)["auth"] == "0"


def _ns(port):
    import argparse

    return argparse.Namespace(port=port, timeout=5.0)


def test_an_eavesdropper_sees_neither_code_nor_key_and_cannot_reuse_the_frames():
    with Sim() as sim:
        for t in (1000, 1100, 1200):
            sim.key("ok", t)
        code = auth.read_code(sim.frame()[0])
        key = auth.derive_key(code, "sim")
        sign = auth.Signer(key, iter(range(1, 100)).__next__)
        frames = [sign("800 pair"), sign("801 config 10m"), sign("802 penalty 0 1000")]
        wire = bytearray()
        got = raw_requests(sim, ["799 hello", *frames, "803 status"], wire)
        assert got[1:4] == ["ok pair", "ok config", "ok penalty"]
        for secret in (code, code.lower(), key.hex(), key.hex().upper()):
            assert secret.encode() not in wire
        for t in (5000, 5100, 5200):  # pairing again: a new code
            sim.key("ok", t)
        assert auth.read_code(sim.frame()[0]) != code
        replayed = raw_requests(sim, frames)  # what the eavesdropper recorded
        assert replayed[0].startswith("err auth code")
        assert all(r.startswith("err auth replay") for r in replayed[1:])
