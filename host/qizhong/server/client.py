# SPDX-License-Identifier: GPL-3.0-or-later
"""Every ``qizhong`` command on a clock the hall server owns, through the server.

A port has one owner (#12). When it is a running ``qizhong serve``, the
commands (``qizhong start``, ``penalty``, ``status``, ``qizhong arbiter``...)
need not fail: ``via_server`` finds the server by the owner's pid (the server
leaves its address beside the port locks, ``registry_path``), and gives a
``Clock`` whose ``ServerLink`` sends each request over the server's API,
exactly as this program made it (tagged here when the clock is paired and
this laptop has its key), and reads the events from the server's record.
Acting needs the arbiter's password: ``$QIZHONG_ARBITER_PASSWORD``.
"""

from __future__ import annotations

import json
import os
import random
import re
import time
import urllib.error
import urllib.request
from typing import Any

from qizhong.clocks import auth
from qizhong.clocks.driver import Clock
from qizhong.clocks.link import (
    CommandError,
    Event,
    Link,
    LinkError,
    PortBusy,
    Reply,
    lock_path,
)
from qizhong.records import files


def registry_path(pid: int) -> str:
    """Where the server with ``pid`` leaves its address (beside the port locks)."""
    return os.path.join(os.path.dirname(lock_path("/qizhong-serve")), "serve-%d.json" % pid)


def register(url: str) -> str:
    """Leave this server's address at ``registry_path``: written to a new
    private file (mode 0600, a name no one could plant a link at beforehand)
    in the same folder, then renamed over the path; a link found at the path
    is replaced, never followed."""
    path = registry_path(os.getpid())
    files.replace(path, json.dumps({"url": url, "pid": os.getpid()}).encode(), 0o600)
    return path


def _read_registry(path: str) -> dict[str, Any]:
    """A server's address file, never through a link."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    with os.fdopen(fd) as f:
        got = json.load(f)
    if not isinstance(got, dict):
        raise ValueError("not an address file")
    return got


def next_page(link: str) -> str | None:
    """The path of a paged answer's next page, from its ``Link`` header."""
    m = re.match(r'\s*<(/[^>]*)>\s*;\s*rel="next"', link)
    return m.group(1) if m else None


class ServerLink(Link):
    """A ``Link`` to one board's clock through the hall server's API."""

    POLL_S = 0.1  # how often ``poll`` asks the server for new events while it waits

    def __init__(
        self, url: str, board: int, port: str, password: str = "", timeout: float = Link.TIMEOUT_S
    ) -> None:
        super().__init__(port, timeout=timeout, open_now=False)
        self.url = url.rstrip("/")
        self.board = board
        self.password = password
        self._row = 0  # the server's last event row handed out
        self._skip_old()

    def _api(self, path: str, body: dict[str, Any] | None = None) -> Any:
        return self._call(path, body)[0]

    def _events(self, after: int) -> list[dict[str, Any]]:
        """The board's kept events after row ``after``: every page of them
        (the server's ``Link: <...>; rel="next"`` header names the next)."""
        path: str | None = "/api/boards/%d/events?after=%d" % (self.board, after)
        out: list[dict[str, Any]] = []
        while path is not None:
            rows, headers = self._call(path)
            out += rows
            path = next_page(headers.get("Link", ""))
        return out

    def _call(self, path: str, body: dict[str, Any] | None = None) -> tuple[Any, Any]:
        req = urllib.request.Request(self.url + path)
        if body is not None:
            req = urllib.request.Request(
                self.url + path,
                data=json.dumps(body).encode(),
                method="POST",
                headers={"Content-Type": "application/json"},
            )
            if self.password:
                req.add_header("Authorization", "Bearer " + self.password)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout + 5) as r:
                return json.load(r), r.headers
        except urllib.error.HTTPError as e:
            try:
                why = json.load(e).get("error", e.reason)
            except ValueError:
                why = e.reason
            if e.code == 401:
                raise LinkError(
                    "the hall server at %s owns %s and wants the arbiter's password: "
                    "set QIZHONG_ARBITER_PASSWORD" % (self.url, self.port)
                ) from None
            raise LinkError("the hall server at %s: %s" % (self.url, why)) from None
        except OSError as e:
            raise LinkError("the hall server at %s: %s" % (self.url, e)) from None

    def _skip_old(self) -> None:
        rows = self._events(0)
        self._row = rows[-1]["id"] if rows else 0

    # -- the Link's face ---------------------------------------------------------------

    def open(self) -> None:
        pass  # the server holds the port

    def close(self) -> None:
        pass

    @property
    def is_open(self) -> bool:
        return True

    def request(self, verb: str, args: str = "") -> Reply:
        rid = random.randrange(30000, 60000)  # far from where the server's own ids run
        text = ("%d %s %s" % (rid, verb, args)).strip()
        if self.sign is not None and not auth.fw.is_open(verb, args):
            text = self.sign(text)
        got = self._api("/api/boards/%d/request" % self.board, {"text": text})
        if not got["ok"]:
            raise CommandError.from_reply(verb, got["text"])
        return Reply(rid, got["text"])

    def sync(self) -> None:
        pass  # the server's record has every event

    def poll(self, timeout: float = 0.0) -> list[Event]:
        deadline = time.monotonic() + timeout
        while True:
            out = self.take_events()
            if out or time.monotonic() >= deadline:
                return out
            time.sleep(min(self.POLL_S, max(0.0, deadline - time.monotonic())))

    def take_events(self) -> list[Event]:
        rows = self._events(self._row)
        out = []
        for r in rows:
            self._row = r["id"]
            if r["boot"] == "host":
                continue  # the server's own notes (lost, found)
            out.append(Event(r["seq"], r["t"], r["name"], r["side"], r["arg"], tuple(r["left"])))
            self.last_seq, self.boot = r["seq"], r["boot"]
        return out


def via_server(
    port: str, busy: PortBusy, timeout: float = Link.TIMEOUT_S, password: str | None = None
) -> Clock | None:
    """A ``Clock`` on ``port`` through the hall server that owns it, or None
    if its owner is not a hall server."""
    try:
        url = str(_read_registry(registry_path(busy.pid))["url"])
    except (OSError, ValueError, KeyError):
        return None
    pw = os.environ.get("QIZHONG_ARBITER_PASSWORD", "") if password is None else password
    try:
        with urllib.request.urlopen(url.rstrip("/") + "/api/boards", timeout=5) as r:
            boards = json.load(r)
    except (OSError, ValueError):
        return None
    real = os.path.realpath(port)
    for b in boards:
        if os.path.realpath(b["port"]) == real:
            return Clock(ServerLink(url, int(b["no"]), port, pw, timeout))
    return None
