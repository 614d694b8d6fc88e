# SPDX-License-Identifier: GPL-3.0-or-later
"""The host's half of arbiter authentication (docs/security.md): keys and tags.

A paired clock runs a request that changes it only with a tag made with its
key and a counter above the last one it took::

    ID VERB ARGS ~CTR TAG      TAG = HMAC-SHA256(KEY, "ID VERB ARGS ~CTR"), 32 hex

``KeyStore`` keeps each clock's key and counter, by its board id, in a JSON
file only its owner may read: ``$QIZHONG_KEYS``, else
``$XDG_CONFIG_HOME/qizhong/keys.json``, else ``~/.config/qizhong/keys.json``.
``Signer`` tags requests for a ``Link`` (``link.sign``); each counter is saved
before its frame goes out. ``attach`` gives a link its signer when the clock
says it is paired and its key is known; ``pair`` is the pairing step's host
side: the code the arbiter reads off the clock's display becomes the key.

    store = KeyStore.default()
    pair(clock.link, clock.hello.id, "7KQ3 M2XD 9WHE 4RTA", store)
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import os
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from qizhong.core import auth as fw
from qizhong.records import files

if TYPE_CHECKING:
    from qizhong.clocks.link import Link
    from qizhong.sim.simulator import Sim

ALPHABET = fw.ALPHABET
CTR_MAX = 10**fw.CTR_DIGITS - 1  # the largest counter a clock takes (9999999999)
# #12: how far a clock's claim (hello's ctr) may raise the host's counter above
# the last one this host signed. A second laptop with a copy of the key, or an
# old copy of the key file, is rarely more than a few hundred changes behind;
# a forged hello claiming 9999999999 must not lock the arbiter out.
CLAIM_MARGIN = 1000
_ALIASES = {"O": "0", "I": "1", "L": "1"}  # Crockford base32 reads these as digits


def normalize_code(text: str) -> str:
    """The pairing code as the clock made it; spaces, dashes and case do not
    matter, O reads as 0, I and L as 1. ValueError if it cannot be a code."""
    code = "".join(_ALIASES.get(c, c) for c in text.upper() if c not in " -_\t")
    bad = sorted({c for c in code if c not in ALPHABET})
    if bad:
        raise ValueError("a pairing code has no %s (it uses %s)" % ("".join(bad), ALPHABET))
    if len(code) != fw.CODE_LEN:
        raise ValueError(
            "a pairing code has %d characters, not %d (%r)" % (fw.CODE_LEN, len(code), text)
        )
    return code


def derive_key(code: str, board_id: str) -> bytes:
    """The key both ends derive from the code (``code`` normalised)."""
    return hmac.new(code.encode(), fw.PAIR_TEXT + board_id.encode(), hashlib.sha256).digest()


def tag(key: bytes, text: str) -> str:
    """The tag of ``ID VERB ARGS ~CTR``."""
    return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()[: fw.TAG_HEX]


class Signer:
    """Tags request texts: ``signer("12 pause")`` -> ``"12 pause ~7 <tag>"``."""

    def __init__(self, key: bytes, next_ctr: Callable[[], int]) -> None:
        self.key = key
        self.next_ctr = next_ctr  # the next counter, already saved

    def __call__(self, text: str) -> str:
        signed = "%s ~%d" % (text, self.next_ctr())
        return "%s %s" % (signed, tag(self.key, signed))


# -- the key store -------------------------------------------------------------------------


def default_path() -> str:
    path = os.environ.get("QIZHONG_KEYS")
    if path:
        return path
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "qizhong", "keys.json")


class KeyStore:
    """Keys and counters by board id, in one JSON file (mode 0600)::

    {"e66038b7133f5a2c": {"key": "<64 hex>", "ctr": 17}}
    """

    def __init__(self, path: str) -> None:
        self.path = path

    @classmethod
    def default(cls) -> KeyStore:
        return cls(default_path())

    @contextmanager
    def _locked(self) -> Iterator[dict[str, dict[str, object]]]:
        # One writer at a time (two commands at once must not take one counter twice).
        folder = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(folder, mode=0o700, exist_ok=True)
        fd = os.open(self.path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            data = self._read()
            yield data
            text = json.dumps(data, indent=1, sort_keys=True) + "\n"
            files.replace(self.path, text.encode(), 0o600)  # private, never through a link
        finally:
            os.close(fd)

    def _read(self) -> dict[str, dict[str, object]]:
        try:
            with open(self.path) as f:
                data = json.load(f)
        except FileNotFoundError:
            return {}
        except ValueError as e:
            raise ValueError("%s: not a key file (%s)" % (self.path, e))
        if not isinstance(data, dict):
            raise ValueError("%s: not a key file" % self.path)
        return data

    def get(self, board_id: str) -> tuple[bytes, int] | None:
        """The key and last counter for a clock, or None."""
        e = self._read().get(board_id)
        if not e:
            return None
        return bytes.fromhex(str(e["key"])), int(str(e["ctr"]))

    def put(self, board_id: str, key: bytes, ctr: int) -> None:
        with self._locked() as data:
            data[board_id] = {"key": key.hex(), "ctr": ctr}

    def forget(self, board_id: str) -> bool:
        with self._locked() as data:
            return data.pop(board_id, None) is not None

    def take(self, board_id: str, floor: int = 0) -> int:
        """The next counter for a clock, saved before it is used: above the
        last one this host signed, and above ``floor`` (the clock's claim)
        only up to ``CLAIM_MARGIN`` beyond it (#12: a forged ``hello`` cannot
        push the counter out of reach). ValueError once counters run out."""
        with self._locked() as data:
            e = data[board_id]
            last = int(str(e["ctr"]))
            ctr = max(last, min(floor, last + CLAIM_MARGIN)) + 1
            if ctr > CTR_MAX:
                raise ValueError("the counter for %s has run out: pair the clock again" % board_id)
            e["ctr"] = ctr
        return ctr

    def signer(self, board_id: str, floor: int = 0) -> Signer | None:
        got = self.get(board_id)
        if got is None:
            return None
        return Signer(got[0], lambda: self.take(board_id, floor))


# -- a link's side -------------------------------------------------------------------------


def attach(link: Link, hello: dict[str, str], store: KeyStore | None = None) -> bool:
    """Tag ``link``'s changes if the clock (its ``hello`` fields) is paired and
    ``store`` (default: ``KeyStore.default()``) has its key; True if so. An
    unpaired clock gets untagged requests, as before #8."""
    link.sign = None
    if hello.get("auth") != "1":
        return False
    store = store or KeyStore.default()
    link.sign = store.signer(hello.get("id", ""), claimed_ctr(hello))
    return link.sign is not None


def claimed_ctr(hello: dict[str, str]) -> int:
    """The counter a clock says it last took (``hello``'s ``ctr``): 0 unless
    it is a decimal number a clock can hold (1 .. ``CTR_MAX``). Only a claim:
    ``KeyStore.take`` bounds what it can do."""
    text = hello.get("ctr", "0")
    if not (text.isdigit() and text.isascii()) or len(text) > fw.CTR_DIGITS:
        return 0
    return int(text)


def pair(link: Link, board_id: str, code: str, store: KeyStore) -> None:
    """The pairing step's host side: with the clock showing ``code`` (the
    arbiter pressed ok three times on it), send ``pair`` tagged with the key
    the code gives; once the clock took it, store the key and tag from now on.
    CommandError (``auth``) if the code is wrong or pairing is off."""
    key = derive_key(normalize_code(code), board_id)
    link.sign = Signer(key, lambda: 1)
    try:
        link.request("pair")
    except BaseException:
        link.sign = None
        raise
    store.put(board_id, key, 1)
    link.sign = store.signer(board_id)


def unpair(link: Link, board_id: str, store: KeyStore) -> None:
    """Tell the clock to drop its key (a tagged ``unpair``), then forget it here."""
    link.request("unpair")
    store.forget(board_id)
    link.sign = None


# -- reading the code off a simulated display ----------------------------------------------

_GLYPHS: dict[bytes, str] = {}


def _glyphs() -> dict[bytes, str]:
    """MicroPython's 8x8 framebuf font, each glyph's 8 column bytes (MONO_VLSB),
    rendered by the micropython binary itself."""
    if not _GLYPHS:
        from qizhong.sim.simulator import micropython_path

        prog = (
            "import framebuf\n"
            "b = bytearray(8)\n"
            "f = framebuf.FrameBuffer(b, 8, 8, framebuf.MONO_VLSB)\n"
            "for c in range(32, 127):\n"
            "    f.fill(0)\n"
            "    f.text(chr(c), 0, 0, 1)\n"
            "    print(c, b.hex())\n"
        )
        out = subprocess.run(
            [micropython_path(), "-c", prog], check=True, capture_output=True, text=True
        ).stdout
        for line in out.splitlines():
            c, hexes = line.split()
            _GLYPHS.setdefault(bytes.fromhex(hexes), chr(int(c)))
    return _GLYPHS


def screen_text(fb: bytes) -> list[str]:
    """The text on a 128x64 MONO_VLSB frame, drawn with ``framebuf.text`` on
    the 8-px grid: 8 rows of 16 characters, ``?`` where a cell is no glyph."""
    glyphs = _glyphs()
    rows = []
    for page in range(8):
        row = fb[page * 128 : page * 128 + 128]
        rows.append("".join(glyphs.get(row[x : x + 8], "?") for x in range(0, 128, 8)))
    return rows


def read_code(fb: bytes) -> str:
    """The pairing code on a display frame (rows 3 and 5 of the pairing screen)."""
    rows = screen_text(fb)
    if rows[1].strip() != "PAIRING CODE":
        raise ValueError("the display shows no pairing code: %r" % rows)
    return normalize_code(rows[3] + rows[5])


def pair_sim(sim: Sim, store: KeyStore, t: int | None = None) -> None:
    """Pair a simulated clock as an arbiter would: ok three times at ``t``
    (default: now), read the code off the left display, ``pair`` over its link."""
    t = sim.now if t is None else t
    for i in range(fw.Guard.OK_PRESSES):
        sim.key("ok", t + 100 * i)
    board_id = sim.link.request("hello").fields()["id"]
    left = sim.frame()[0]
    if sim.board == "battery":  # #22: half the code on each glass (docs/segment-face.md)
        code = "".join(read_glass_code(sim.texts[i]) for i in (0, 1))
    else:
        code = read_code(left)
    pair(sim.link, board_id, code, store)


def read_glass_code(lines: list[tuple[int, int, str]]) -> str:
    """A segment glass's half of the pairing code: its status characters,
    under ``PAIr1`` / ``PAIr2`` on the big digits (the simulator's lines of
    what the glass shows, docs/segment-face.md)."""
    by = {(x, y): t for x, y, t in lines}
    if not by.get((0, 24), "").startswith("PA1R"):
        raise ValueError("the glass shows no pairing code: %r" % lines)
    return by.get((0, 8), "")
