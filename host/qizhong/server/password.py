# SPDX-License-Identifier: GPL-3.0-or-later
"""The arbiter's password, kept across restarts as a salted hash (#20 item 4).

The server keeps only ``pbkdf2_sha256$ITERATIONS$SALT$HASH`` in its store
(``settings``), never the password: a restart on the same file takes the
same password, given once (``--password-file``, ``$QIZHONG_ARBITER_PASSWORD``)
or made and printed at the first start. ``Password.check`` compares in
constant time; a password once found right is remembered (its SHA-256, in
memory) so a script's every request does not pay the key stretching.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

ITERATIONS = 200_000
SETTING = "arbiter_password"


def make_hash(password: str, iterations: int = ITERATIONS) -> str:
    salt = secrets.token_hex(16)
    dk = hashlib.pbkdf2_hmac("sha256", password.encode(), bytes.fromhex(salt), iterations)
    return "pbkdf2_sha256$%d$%s$%s" % (iterations, salt, dk.hex())


def matches(password: str, stored: str) -> bool:
    """``password`` against a ``make_hash`` text (False for a damaged one)."""
    try:
        kind, n, salt, want = stored.split("$")
        iterations = int(n)
        if kind != "pbkdf2_sha256" or not 1 <= iterations <= 10_000_000:
            return False
        dk = hashlib.pbkdf2_hmac("sha256", password.encode(), bytes.fromhex(salt), iterations)
    except ValueError:
        return False
    return hmac.compare_digest(dk.hex(), want)


class Password:
    """The arbiter's password as the server checks it: a plain one given at
    start, or the hash kept from an earlier start."""

    def __init__(self, plain: str = "", stored: str = "") -> None:
        if not plain and not stored:
            raise ValueError("no password")
        self._plain = plain
        self.stored = stored or make_hash(plain)
        self._good: set[str] = set()  # SHA-256 of passwords found right

    def check(self, given: str) -> bool:
        if self._plain:
            return hmac.compare_digest(given.encode(), self._plain.encode())
        digest = hashlib.sha256(given.encode()).hexdigest()
        if any(hmac.compare_digest(digest, g) for g in self._good):
            return True
        if matches(given, self.stored):
            self._good.add(digest)
            return True
        return False
