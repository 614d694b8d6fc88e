# SPDX-License-Identifier: GPL-3.0-or-later
"""#34 items 2 and 4: logins end when they should, and the login limiter fits
a hall behind a reverse proxy.

- A login is bound to the password that made it: a restart with another
  password ends it (before: a cookie from the old password was still the
  arbiter, and its penalty was applied). It also ends after ``IDLE_S`` unused.
- Behind a trusted proxy the limiter counts the client's address from
  ``X-Forwarded-For`` (before: the proxy's, so 7 wrong tries from a phone
  locked the arbiter and every script out); from anyone else the header is
  ignored. Beside each address's count there is one for all addresses (before:
  40 loopback addresses made 200 wrong guesses without one 429)."""

import http.client
import json

from hallserver import PASSWORD

from qizhong.server.logins import Logins, Tokens, client
from qizhong.server.store import Store

HALL_SERVER = {"n": 1, "extra": ("--trusted-proxy", "127.0.0.1")}


def call(server, method, path, body=None, source="127.0.0.1", headers=(), cookie=""):
    host, port = server.url.split("//", 1)[1].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30, source_address=(source, 0))
    h = {"Content-Type": "application/json", **dict(headers)}
    if cookie:
        h["Cookie"] = cookie
    conn.request(method, path, None if body is None else json.dumps(body), h)
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, json.loads(data), r.headers


def _forwarded(addr):
    return {"X-Forwarded-For": addr}.items()


class FakeClock:
    def __init__(self, t=1000.0):
        self.t = t

    def __call__(self):
        return self.t


def test_a_limit_for_all_addresses_beside_each_ones():
    clock = FakeClock()
    logins = Logins(clock)
    guessed = 0
    for i in range(40):  # 40 addresses, each below its own limit
        address = "127.0.%d.1" % i
        for _ in range(Logins.FREE - 1):
            if logins.wait_s(address) > 0:
                break
            logins.failed(address)
            guessed += 1
    assert guessed == Logins.GLOBAL_FAILS  # then every address waits ...
    assert logins.wait_s("127.99.0.1") > 0
    clock.t += Logins.GLOBAL_WINDOW_S  # ... until the window has moved on
    assert logins.wait_s("127.99.0.1") == 0


def test_the_client_address_is_taken_from_a_trusted_proxy_only():
    from aiohttp.test_utils import make_mocked_request

    class Peer:
        def __init__(self, addr):
            self.addr = addr

        def get_extra_info(self, name, default=None):
            return (self.addr, 4000) if name == "peername" else default

    def req(peer, xff=None):
        headers = {} if xff is None else {"X-Forwarded-For": xff}
        return make_mocked_request("POST", "/api/login", headers=headers, transport=Peer(peer))

    proxy = frozenset({"10.0.0.1"})
    assert client(req("10.0.0.1", "198.51.100.7"), proxy) == "198.51.100.7"
    # A client's own header is not believed: the last hop the proxy added is.
    assert client(req("10.0.0.1", "203.0.113.9, 198.51.100.7"), proxy) == "198.51.100.7"
    assert client(req("10.0.0.1", "198.51.100.7, 10.0.0.1"), proxy) == "198.51.100.7"
    assert client(req("192.0.2.5", "198.51.100.7"), proxy) == "192.0.2.5"  # not a proxy
    assert client(req("10.0.0.1", "not-an-address"), proxy) == "10.0.0.1"
    assert client(req("10.0.0.1"), proxy) == "10.0.0.1"


def test_a_login_ends_after_its_idle_time_and_use_keeps_it(tmp_path):
    store = Store(str(tmp_path / "hall.sqlite"))
    clock = FakeClock(1_000_000.0)
    try:
        tokens = Tokens(store, clock)
        tokens.add("alive")
        tokens.add("idle")
        for _ in range(3):  # "alive" is used every 5 hours; "idle" not at all
            clock.t += 5 * 3600
            assert tokens.valid("alive")
        assert not tokens.valid("idle")  # 15 h unused (IDLE_S: 12 h)
        assert not tokens.valid("never-given") and not tokens.valid("")
        # A restart reads the last use the store has: "alive" goes on, "idle" is gone.
        again = Tokens(store, clock)
        clock.t += Tokens.IDLE_S - Tokens.TOUCH_S
        assert again.valid("alive") and not again.valid("idle")
    finally:
        store.close()


def test_behind_the_proxy_a_phone_s_wrong_tries_lock_out_only_the_phone(server):
    codes = [
        call(server, "POST", "/api/login", {"password": "guess%d" % i},
             headers=_forwarded("198.51.100.7"))[0]
        for i in range(7)
    ]  # fmt: skip
    assert codes[:5] == [403] * 5 and set(codes[5:]) == {429}, codes
    status, body, _ = call(
        server, "POST", "/api/login", {"password": PASSWORD}, headers=_forwarded("198.51.100.8")
    )
    assert status == 200 and body == {"arbiter": True}  # the arbiter's laptop, same proxy
    bearer = {"Authorization": "Bearer " + PASSWORD}.items()
    status, body, _ = call(server, "POST", "/api/boards/1/pause", {}, headers=bearer)
    assert status != 429, body  # a script on the proxy's machine itself


def test_an_untrusted_peer_cannot_spoof_its_address(server):
    codes = [
        call(server, "POST", "/api/login", {"password": "guess%d" % i}, source="127.0.0.2",
             headers=_forwarded("198.51.100.%d" % i))[0]
        for i in range(7)
    ]  # fmt: skip
    assert codes[:5] == [403] * 5 and set(codes[5:]) == {429}, codes


def test_a_new_password_ends_the_old_logins(server):
    status, _, headers = call(server, "POST", "/api/login", {"password": PASSWORD})
    assert status == 200
    cookie = headers["Set-Cookie"].split(";", 1)[0]
    assert call(server, "GET", "/api/me", cookie=cookie)[1] == {"arbiter": True}
    server.term()
    server.start()  # the same password: the login goes on
    assert call(server, "GET", "/api/me", cookie=cookie)[1] == {"arbiter": True}
    server.term()
    server.password = "a-new-password"
    server.start()
    assert call(server, "GET", "/api/me", cookie=cookie)[1] == {"arbiter": False}
    status, body, _ = call(server, "POST", "/api/boards/1/penalty", {"side": 0, "ms": -60000},
                           cookie=cookie)  # fmt: skip
    assert status == 401, body
