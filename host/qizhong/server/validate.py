# SPDX-License-Identifier: GPL-3.0-or-later
"""What crosses the hall's wires, checked before anything acts on it or shows it.

The broker is open to anyone on the hall's network (docs/security.md, "The
hall's network"): every message from it is bounded in size before it is
parsed, parsed without NaN or Infinity and without letting a deep nesting
escape (``parse``), and a board state from it is rebuilt field by field
from a strict schema (``remote_view``): integers in range, short strings,
known words, and a link only to the ``http(s)`` address its server
announced. A command from it must carry the clock's own tag (``command``).
Values from the HTTP API are checked by ``query_int``, ``ack_id`` and
``control``: a bad one is a JSON 400, never a 500.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from qizhong import timecontrol
from qizhong.core import auth as core_auth
from qizhong.core import proto

MAX_MQTT = 8192  # bytes of one message from the broker (a board's state is about 1 kB)
MAX_TEXT = 200  # a name, a port, a spec, a link text
MAX_ALERTS = 32
MAX_INT = 2**53 - 1  # what every JSON reader keeps exact
MAX_MS = 100 * 3600 * 1000  # a side's time, either sign
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")  # a server's name, a clock's id
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
URL = re.compile(r"^https?://[A-Za-z0-9.\[\]:-]{1,100}(/[A-Za-z0-9._~/-]{0,100})?$")
GAMES = ("xiangqi", "go", "chess")
LINKS = ("up", "lost", "connecting", "busy", "down")
STATES = ("idle", "running", "paused", "knocked", "flagged", "finished")
ALERT_KINDS = ("knock", "flag", "held", "lost", "store", "worker", "nomove", "foul", "proposal")


class Invalid(ValueError):
    """Input that breaks the schema; its text says which field and why."""


def _no_constant(name: str) -> Any:
    raise Invalid("%s is not a JSON number" % name)


def parse(payload: bytes, limit: int = MAX_MQTT) -> Any:
    """JSON from the wire: at most ``limit`` bytes, strict numbers, any depth
    refused cleanly (Invalid, never RecursionError)."""
    if len(payload) > limit:
        raise Invalid("%d bytes, more than %d" % (len(payload), limit))
    try:
        return json.loads(payload, parse_constant=_no_constant)
    except RecursionError:
        raise Invalid("nested too deep") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise Invalid("not JSON: %s" % e) from None


def dumps(obj: Any) -> str:
    """JSON out: never NaN or Infinity (ValueError instead)."""
    return json.dumps(obj, allow_nan=False)


def _int(v: Any, name: str, lo: int = -MAX_INT, hi: int = MAX_INT) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise Invalid("%s: an integer from %d to %d" % (name, lo, hi))
    return v


def _str(v: Any, name: str, limit: int = MAX_TEXT) -> str:
    if not isinstance(v, str) or len(v.encode("utf-8", "replace")) > limit:
        raise Invalid("%s: a string of at most %d bytes" % (name, limit))
    if CONTROL.search(v):
        raise Invalid("%s: a control character" % name)
    return v


def _word(v: Any, name: str, words: tuple[str, ...]) -> str:
    if v not in words:
        raise Invalid("%s: one of %s" % (name, ", ".join(words)))
    return str(v)


def _pair(v: Any, name: str, item: Any) -> list[Any]:
    if not isinstance(v, list) or len(v) != 2:
        raise Invalid("%s: a list of two" % name)
    return [item(x, name) for x in v]


def is_name(text: Any) -> bool:
    return isinstance(text, str) and bool(NAME.match(text))


# A topic's last word names what it carries (``qizhong/hall/CLOCK/cmd``): no
# server may take one as its name, or ``qizhong/hall/server/cmd`` (which the
# ACL's ``pattern write qizhong/+/+/cmd`` lets any login write) would be an
# announcement (#34 item 7).
RESERVED = ("cmd", "state", "event", "reply", "server")


def is_server_name(text: Any) -> bool:
    """A name a server may announce itself by: a name, and not a topic's word."""
    return is_name(text) and str(text).lower() not in RESERVED


def base_url(text: str) -> str:
    """An announced address as the base of its links: ending in ``/`` (an
    address without a path gave ``http://127.0.0.1:9board/7``)."""
    return text if text.endswith("/") else text + "/"


def is_url(text: Any) -> bool:
    """An ``http(s)`` address a card may link to (no script, no other scheme)."""
    return isinstance(text, str) and bool(URL.match(text))


def remote_view(view: Any, clock_id: str, url: str) -> dict[str, Any]:
    """Another server's board state, rebuilt from the schema (Invalid if it
    breaks it). ``clock_id``: the topic's; ``url``: the address its server
    announced, the only link the card gets."""
    if not isinstance(view, dict):
        raise Invalid("a board state is a JSON object")
    server = view.get("server")
    if not is_server_name(server):
        raise Invalid("server: a name of letters, digits, . _ -")
    if view.get("clock_id") != clock_id or not is_name(clock_id):
        raise Invalid("clock_id: the topic's clock id")
    if not is_url(url):
        raise Invalid("url: its server has announced no http(s) address")
    ms = lambda v, n: _int(v, n, -MAX_MS, MAX_MS)  # noqa: E731
    count = lambda v, n: _int(v, n, 0, 100000)  # noqa: E731
    side = lambda v, n: _int(v, n, -1, 1)  # noqa: E731
    periods = lambda v, n: _int(v, n, -1, 1000)  # noqa: E731
    alerts = view.get("alerts", [])
    if not isinstance(alerts, list) or len(alerts) > MAX_ALERTS:
        raise Invalid("alerts: a list of at most %d" % MAX_ALERTS)
    out: dict[str, Any] = {
        "no": _int(view.get("no"), "no", 1, 100000),
        "clock_id": clock_id,
        "server": server,
        "url": base_url(url),
        "port": _str(view.get("port", ""), "port"),
        "game": _word(view.get("game"), "game", GAMES),
        "players": _pair(view.get("players"), "players", _str),
        "spec": _str(view.get("spec", ""), "spec"),
        "link": _word(view.get("link"), "link", LINKS),
        "link_text": _str(view.get("link_text", ""), "link_text"),
        "state": _word(view.get("state"), "state", STATES),
        "run": side(view.get("run"), "run"),
        "left": _pair(view.get("left"), "left", ms),
        "t": _int(view.get("t"), "t"),
        "now": _int(view.get("now"), "now"),
        "moves": _pair(view.get("moves"), "moves", count),
        "played": count(view.get("played", 0), "played"),
        "periods": _pair(view.get("periods", [-1, -1]), "periods", periods),
        "result": _int(view.get("result"), "result", -1, 2),
        "flag": _pair(view.get("flag"), "flag", _bool),
        "knocks": count(view.get("knocks", 0), "knocks"),
        "held": side(view.get("held", -1), "held"),
        "game_no": count(view.get("game_no", 1), "game_no"),
        "events": _int(view.get("events", 0), "events", 0),
        "alerts": [_alert(a) for a in alerts],
        "session_rev": count(view.get("session_rev", 0), "session_rev"),
        "knocker": side(view.get("knocker", -1), "knocker"),
    }
    out["key"] = "%s-%d" % (server, out["no"])
    return out


def _bool(v: Any, name: str) -> bool:
    if not isinstance(v, bool):
        raise Invalid("%s: true or false" % name)
    return v


def _alert(a: Any) -> dict[str, Any]:
    if not isinstance(a, dict):
        raise Invalid("alerts: objects")
    out = {
        "id": _int(a.get("id"), "alert id"),
        "kind": _word(a.get("kind"), "alert kind", ALERT_KINDS),
        "side": _int(a.get("side"), "alert side", -1, 1),
        "t": _int(a.get("t", 0), "alert t"),
        "host_ms": _int(a.get("host_ms", 0), "alert host_ms"),
    }
    for k in ("text", "rule"):  # a session's alert (server/session.py) says what and why
        if k in a:
            out[k] = _str(a[k], "alert " + k)
    if "knocker" in a:  # a knock's alert: the side the arbiter named (EQ-5), its opponent's bonus
        out["knocker"] = _int(a["knocker"], "alert knocker", -1, 1)
        out["bonus"] = _int(a.get("bonus", 0), "alert bonus", 0, MAX_MS)
    return out


def command(cmd: Any) -> str:
    """A request text from the broker for one of our clocks: returned if it
    may be relayed. Only the clock's own read-only queries go untagged; any
    other request must end in the clock's ``~CTR TAG`` (docs/security.md),
    which the clock then checks: so an unpaired clock (which has no key)
    refuses every change from the broker, and a paired one every change not
    made by its arbiter."""
    if not isinstance(cmd, dict) or not isinstance(cmd.get("text"), str):
        raise Invalid('a command is {"text": "ID VERB ARGS ~CTR TAG"}')
    text = cmd["text"]
    if len(text) > proto.MAX_BODY:
        raise Invalid("longer than a frame")
    try:
        req = proto.Request().parse(text)
    except ValueError as e:
        raise Invalid("not a request: %s" % e) from None
    if not req.ctr and not core_auth.is_open(req.verb, req.args):
        raise Invalid("auth required: a change from the broker carries the clock's tag")
    return text


def unprintable(text: str) -> bool:
    """``text`` has a character no name may hold: a control or format
    character (U+0085, U+202E's reversal), a line or paragraph separator
    (U+2028, U+2029), a private or unassigned one. A name goes into PGN tags,
    CSV cells and pages, where each of these ends a line or turns the text."""
    return any(unicodedata.category(c)[0] == "C" or unicodedata.category(c) in ("Zl", "Zp")
               for c in text)  # fmt: skip


def player(name: Any, field: str = "name") -> str:
    """A player's name: NFC text of at most ``MAX_TEXT`` bytes, nothing
    ``unprintable`` (a newline would end a record's tag; #34 item 10)."""
    if not isinstance(name, str):
        raise Invalid("%s: a text" % field)
    text = _str(unicodedata.normalize("NFC", name).strip(), field)
    if unprintable(text):
        raise Invalid("%s: a control or format character" % field)
    return text


def is_change(text: str) -> bool:
    """Whether a request text (already checked by ``command``) changes the clock."""
    req = proto.Request().parse(text)
    return not core_auth.is_open(req.verb, req.args)


def query_int(value: str, name: str) -> int:
    """A non-negative integer from a query string (``?after=``)."""
    if not value.isascii() or not value.isdigit() or len(value) > 15:
        raise Invalid("%s: a non-negative integer" % name)
    return int(value)


def control(spec: Any, name: str = "spec") -> str:
    """A time control as the clock takes it: printable ASCII, at most
    ``MAX_TEXT`` bytes, readable (docs/timecontrol.md)."""
    if not isinstance(spec, str):
        raise Invalid("%s: a time control text" % name)
    if not spec.isascii() or not spec.isprintable() or len(spec) > MAX_TEXT:
        raise Invalid("%s: printable ASCII of at most %d bytes" % (name, MAX_TEXT))
    try:
        timecontrol.parse(spec)
    except ValueError as e:
        raise Invalid("%s: %s" % (name, e)) from None
    return spec
