# SPDX-License-Identifier: GPL-3.0-or-later
"""#34 item 5: an idempotency key is bound to its request: its board, its
kind (method and path) and its body. The same key with the same request is
a retry (the first answer, applied once); with another request it is 409
and nothing is done. Before, the key was looked up alone: a start of board 2
and a -60 s penalty, sent with a key already used on board 1, got 200
``repeated: true`` and were never applied."""

import urllib.error

from hallserver import PASSWORD

HALL_SERVER = {"n": 2, "up": True}


def _post(server, path, body):
    try:
        return 200, server.post(path, body)
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def test_a_key_used_for_one_request_is_refused_for_another(server):
    ws = server.socket()
    first = _post(server, "/api/boards/1/start", {"side": 0, "key": "k-1"})
    assert first[0] == 200 and not first[1].get("repeated")
    again = _post(server, "/api/boards/1/start", {"side": 0, "key": "k-1"})
    assert again[0] == 200 and again[1].get("repeated")  # a retry: the first answer
    # The same key on another board, another action, another body: 409, not done.
    code, text = _post(server, "/api/boards/2/start", {"side": 0, "key": "k-1"})
    assert code == 409 and "key" in text
    code, _ = _post(server, "/api/boards/1/penalty", {"side": 0, "ms": -60000, "key": "k-1"})
    assert code == 409
    code, _ = _post(server, "/api/boards/1/start", {"side": 1, "key": "k-1"})
    assert code == 409
    assert server.get("/api/boards/2")["state"] == "idle"  # board 2 never started
    one = server.get("/api/boards/1")
    assert one["left"][0] >= 14 * 60000  # no -60 s penalty taken (15 min control)
    # The same key in the header is the same key.
    req = {"side": 0}
    import json
    import urllib.request

    r = urllib.request.Request(
        server.url + "/api/boards/2/start",
        data=json.dumps(req).encode(),
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Authorization": "Bearer " + PASSWORD,
            "Idempotency-Key": "k-1",
        },
    )
    try:
        urllib.request.urlopen(r, timeout=30)
        raise AssertionError("a used key took another request")
    except urllib.error.HTTPError as e:
        assert e.code == 409
    # A fresh key does it.
    assert _post(server, "/api/boards/2/start", {"side": 0, "key": "k-2"})[0] == 200
    server.wait(ws, lambda m: m["type"] == "board" and m["board"]["no"] == 2
                and m["board"]["state"] == "running")  # fmt: skip
