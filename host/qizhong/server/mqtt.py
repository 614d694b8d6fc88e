# SPDX-License-Identifier: GPL-3.0-or-later
"""``qizhong serve --mqtt HOST[:PORT]``: many laptops, one hall, over an MQTT broker.

Each server publishes, for every board it owns (docs/server.md, "MQTT")::

    qizhong/<tournament>/<clock id>/state   the board's state (JSON), retained, QoS 1
    qizhong/<tournament>/<clock id>/event   each clock event once kept (JSON), QoS 1
    qizhong/<tournament>/server/<name>      this server: its page's address; "" when it stops
    qizhong/<tournament>/<clock id>/cmd     in: a request for the clock, tagged by its arbiter
    qizhong/<tournament>/<clock id>/reply   out: the clock's reply to it

and subscribes to ``qizhong/<tournament>/+/state``: every other server's
boards join its hall (read-only here; their own server acts on them). A
board is named by its clock's id, unique in the hall (the Pico's flash id;
simulated clocks get the server's name in theirs). A server with no clocks
of its own is a dashboard of the whole tournament. paho-mqtt's network loop
runs in its own thread; publishing never blocks a clock's thread.

Commands from another laptop (``RemoteClock``) travel as the clock's own
request text, ``ID VERB ARGS ~CTR TAG``, tagged with the key only the
arbiter who paired the clock holds (docs/security.md). The owning server
sends that text to the clock unchanged (``Link.request_text``) and publishes
the reply: neither it nor the broker can make or alter a tag, and the clock
refuses a request whose tag does not match, or whose counter it has seen.
"""

from __future__ import annotations

import json
import os
import queue
import random
import threading
from typing import TYPE_CHECKING, Any

import paho.mqtt.client as mqtt

from qizhong.clocks import auth
from qizhong.clocks.link import CommandError, LinkError

if TYPE_CHECKING:
    from qizhong.server.app import Hall

QOS = 1


def parse_broker(text: str) -> tuple[str, int]:
    host, _, port = text.partition(":")
    if port and not port.isdigit():
        raise ValueError("--mqtt is HOST[:PORT], e.g. 127.0.0.1:1883")
    return host or "127.0.0.1", int(port or 1883)


class Bridge:
    """One server's link to the broker."""

    def __init__(self, hall: Hall, broker: str, name: str, url: str = "") -> None:
        self.hall = hall
        self.host, self.port = parse_broker(broker)
        self.name = name
        self.url = url
        self.root = "qizhong/%s" % hall.tournament
        self.connected = threading.Event()
        self.published = 0
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id="qizhong-%s-%d" % (name, os.getpid()),
        )
        self.client.will_set("%s/server/%s" % (self.root, name), "", QOS, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        hall.listeners.append(self.on_board)

    def start(self) -> None:
        self.client.connect_async(self.host, self.port, keepalive=30)
        self.client.loop_start()

    def stop(self) -> None:
        info = self.client.publish("%s/server/%s" % (self.root, self.name), "", QOS, retain=True)
        if self.connected.is_set():
            info.wait_for_publish(2.0)
        self.client.disconnect()
        self.client.loop_stop()

    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, rc: Any, props: Any = None
    ) -> None:
        client.subscribe("%s/+/state" % self.root, QOS)
        client.subscribe("%s/+/cmd" % self.root, QOS)
        client.publish(
            "%s/server/%s" % (self.root, self.name), json.dumps({"url": self.url}), QOS, retain=True
        )
        for st in list(self.hall.states.values()):  # everything again after a reconnect
            self.on_board(st.board.no, st.view(), None)
        self.connected.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            view = json.loads(msg.payload)
        except ValueError:
            return
        if msg.topic.endswith("/cmd"):
            self._command(msg.topic.split("/")[-2], view)
            return
        if not isinstance(view, dict) or view.get("server") == self.name:
            return  # our own boards come back from the broker: we know them
        self.hall.remote_board(view)

    def _command(self, clock_id: str, cmd: Any) -> None:
        """A tagged request from another laptop for one of our clocks: to the
        clock exactly as it came; the reply back to the broker."""
        st = next((s for s in self.hall.states.values() if s.board.clock_id == clock_id), None)
        if st is None or not isinstance(cmd, dict) or not isinstance(cmd.get("text"), str):
            return  # not ours (another server's clock), or not a command
        text = cmd["text"]
        topic = "%s/%s/reply" % (self.root, clock_id)
        rid = text.split(" ", 1)[0]

        def reply(ok: bool, answer: str) -> None:
            body = {"rid": rid, "ok": ok, "text": answer, "server": self.name}
            self.client.publish(topic, json.dumps(body), QOS)

        try:
            worker = self.hall.worker(st.board.no)
        except Exception:
            reply(False, "offline the clock is not connected")
            return
        fut = worker.call(lambda c: c.link.request_text(text))
        self.hall.store.add_action(st.board.no, "relay", {"text": text}, "mqtt")

        def done(f: Any) -> None:
            try:
                ok, answer = f.result()
            except (LinkError, ValueError) as e:
                ok, answer = False, "link %s" % e
            reply(ok, answer)

        fut.add_done_callback(done)

    def on_board(self, no: int, view: dict[str, Any], event: dict[str, Any] | None) -> None:
        """A board of ours changed (called on its worker's thread)."""
        view = dict(view, server=self.name, url=self.url)
        topic = "%s/%s" % (self.root, view["clock_id"])
        self.client.publish(topic + "/state", json.dumps(view), QOS, retain=True)
        if event is not None:
            self.client.publish(topic + "/event", json.dumps(event), QOS)
        self.published += 1


class RemoteClock:
    """A clock on another laptop, through the hall's broker, for the arbiter
    who paired it: every request tagged here with the key from ``keys``.

        remote = RemoteClock("127.0.0.1:1883", "hall", "e6614103e7452d2f")
        remote.pair("7KQ3 M2XD 9WHE 4RTA")    # the code on the clock's displays
        remote.request("penalty", "1 -60000")
    """

    TIMEOUT_S = 10.0

    def __init__(
        self, broker: str, tournament: str, clock_id: str, keys: auth.KeyStore | None = None
    ) -> None:
        self.clock_id = clock_id
        self.keys = keys or auth.KeyStore.default()
        self.root = "qizhong/%s/%s" % (tournament, clock_id)
        self._replies: queue.Queue[dict[str, Any]] = queue.Queue()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        self.client.on_message = self._on_message
        host, port = parse_broker(broker)
        self.client.connect(host, port, keepalive=30)
        self.client.subscribe(self.root + "/reply", QOS)
        self.client.loop_start()

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            self._replies.put(json.loads(msg.payload))
        except ValueError:
            pass

    def send_text(self, text: str) -> str:
        """Send a request text as it is; the reply's text (CommandError on ``err``)."""
        rid = text.split(" ", 1)[0]
        self.client.publish(self.root + "/cmd", json.dumps({"text": text}), QOS)
        while True:
            try:
                got = self._replies.get(timeout=self.TIMEOUT_S)
            except queue.Empty:
                raise LinkError("%s: no reply through the broker" % self.clock_id) from None
            if got.get("rid") == rid:
                if not got.get("ok"):
                    verb = text.split(" ")[1] if " " in text else "?"
                    raise CommandError.from_reply(verb, str(got.get("text", "")))
                return str(got.get("text", ""))

    @staticmethod
    def _rid() -> int:
        return random.randrange(30000, 60000)  # far from where a link's own ids run

    def request(self, verb: str, args: str = "") -> str:
        """A tagged request (the key and counter from ``keys``), its reply text."""
        signer = self.keys.signer(self.clock_id)
        if signer is None:
            raise CommandError(verb, "auth", "no key for %s: pair first" % self.clock_id)
        return self.send_text(signer(("%d %s %s" % (self._rid(), verb, args)).strip()))

    def pair(self, code: str) -> None:
        """The pairing step from this laptop: the code on the clock's displays."""
        key = auth.derive_key(auth.normalize_code(code), self.clock_id)
        self.send_text(auth.Signer(key, lambda: 1)("%d pair" % self._rid()))
        self.keys.put(self.clock_id, key, 1)
