# SPDX-License-Identifier: GPL-3.0-or-later
"""``qizhong serve --mqtt HOST[:PORT]``: many laptops, one hall, over an MQTT broker.

Each server publishes, for every board it owns (docs/server.md, "MQTT")::

    qizhong/<tournament>/<clock id>/state   the board's state (JSON), retained, QoS 1
    qizhong/<tournament>/<clock id>/event   each clock event once kept (JSON), QoS 1
    qizhong/<tournament>/server/<name>      this server: its page's address; "" when it stops

and subscribes to ``qizhong/<tournament>/+/state``: every other server's
boards join its hall (read-only here; their own server acts on them). A
board is named by its clock's id, unique in the hall (the Pico's flash id;
simulated clocks get the server's name in theirs). A server with no clocks
of its own is a dashboard of the whole tournament. paho-mqtt's network loop
runs in its own thread; publishing never blocks a clock's thread.
"""

from __future__ import annotations

import json
import os
import threading
from typing import TYPE_CHECKING, Any

import paho.mqtt.client as mqtt

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
        if not isinstance(view, dict) or view.get("server") == self.name:
            return  # our own boards come back from the broker: we know them
        self.hall.remote_board(view)

    def on_board(self, no: int, view: dict[str, Any], event: dict[str, Any] | None) -> None:
        """A board of ours changed (called on its worker's thread)."""
        view = dict(view, server=self.name, url=self.url)
        topic = "%s/%s" % (self.root, view["clock_id"])
        self.client.publish(topic + "/state", json.dumps(view), QOS, retain=True)
        if event is not None:
            self.client.publish(topic + "/event", json.dumps(event), QOS)
        self.published += 1
