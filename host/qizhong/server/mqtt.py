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

On a locked broker (docs/security.md) each server logs in (``BrokerLogin``:
``--mqtt-user``, ``--mqtt-password-file``, ``--mqtt-ca`` for TLS), and the
broker's ACL keeps it to its own announcement and its own clocks' topics.
"""

from __future__ import annotations

import json
import os
import queue
import random
import select
import stat
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import paho.mqtt.client as mqtt

from qizhong.clocks import auth
from qizhong.clocks.link import CommandError, LinkError
from qizhong.server import validate

if TYPE_CHECKING:
    from qizhong.server.hall import Hall

QOS = 1


@dataclass(frozen=True)
class BrokerLogin:
    """How to log in to the broker (docs/security.md, "A locked broker"):
    a user name and password (mosquitto's ``password_file``), and TLS with
    the broker's certificate checked against ``ca`` (a CA file). Empty: an
    anonymous, plain connection.

        login = BrokerLogin.from_files("laptop1", "/home/arbiter/.qizhong-mqtt")
    """

    user: str = ""
    password: str = field(default="", repr=False)
    ca: str = ""

    @classmethod
    def from_files(cls, user: str, password_file: str = "", ca: str = "") -> BrokerLogin:
        """The password is the first line of ``password_file``, a file only
        its owner may read (never the command line, which others can see)."""
        password = ""
        if password_file:
            password = read_password(password_file)
            if not user:
                raise ValueError("a broker password needs a user name (--mqtt-user)")
        if ca and not os.path.isfile(ca):
            raise ValueError("--mqtt-ca %s: no such file" % ca)
        return cls(user if password_file else "", password, ca)

    def apply(self, client: mqtt.Client) -> None:
        if self.user:
            client.username_pw_set(self.user, self.password)
        if self.ca:
            client.tls_set(ca_certs=self.ca)  # the broker's certificate and name checked


def read_password(path: str) -> str:
    """The first line of a private file: refused if others may read it, if it
    is empty, or if it is not a plain file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as e:
        raise ValueError("the broker's password file %s: %s" % (path, e.strerror)) from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise ValueError("the broker's password file %s is not a plain file" % path)
        if st.st_mode & 0o077:
            raise ValueError(
                "the broker's password file %s may be read by others (mode %03o): chmod 600 it"
                % (path, stat.S_IMODE(st.st_mode))
            )
        first = f.read(4096).split(b"\n", 1)[0].rstrip(b"\r")
    try:
        password = first.decode()
    except UnicodeDecodeError:
        raise ValueError("the broker's password file %s is not UTF-8 text" % path) from None
    if not password:
        raise ValueError("the broker's password file %s is empty" % path)
    return password


def parse_broker(text: str) -> tuple[str, int]:
    host, _, port = text.partition(":")
    if port and not port.isdigit():
        raise ValueError("--mqtt is HOST[:PORT], e.g. 127.0.0.1:1883")
    return host or "127.0.0.1", int(port or 1883)


class Bridge:
    """One server's link to the broker."""

    MAX_SERVERS = 64
    # Requests from the broker for our clocks, all clocks together, counted
    # before a byte is parsed (#34: a stranger's flood takes a bounded share
    # of the links and of this thread, never a press's turn): more are
    # dropped and counted (``flooded``), never queued and never answered.
    CHANGES_PER_S = 20  # tagged (``~``): each is 2 commits and a clock's check
    QUERIES_PER_S = 20  # untagged: read-only queries, and the refusals of untagged changes
    # Other servers' board states read, all together: a newer state of a
    # board replaces its older one not yet read, so a flood costs a dict
    # entry per board, not a parse per message.
    STATES_PER_S = 200  # as many as the pages get (hall.REMOTE_BATCH each REMOTE_S)
    MAX_REMOTE = 2000  # other servers' boards shown here
    MAX_COMMAND = 1024  # bytes of a command message (a request is at most a frame)
    READ_BATCH = 64  # messages read from the socket between two waits

    def __init__(
        self,
        hall: Hall,
        broker: str,
        name: str,
        url: str = "",
        login: BrokerLogin | None = None,
    ) -> None:
        self.hall = hall
        self.host, self.port = parse_broker(broker)
        self.name = name
        self.url = url
        self.root = "qizhong/%s" % hall.tournament
        self.connected = threading.Event()
        self.published = 0
        self.refused = ""  # why the broker last refused us ("" not refused)
        self.dropped = 0  # messages from the broker refused (too big, malformed, untagged)
        self.last_drop = ""
        self.servers: dict[str, str] = {}  # other servers' announced page addresses
        self._waiting: dict[str, Any] = {}  # states whose server has not announced itself
        self._changes = Bucket(self.CHANGES_PER_S, self.CHANGES_PER_S)
        self._queries = Bucket(self.QUERIES_PER_S, self.QUERIES_PER_S)
        self._reads = Bucket(self.STATES_PER_S, self.STATES_PER_S / 4)
        self.flooded = 0  # requests dropped over CHANGES_PER_S / QUERIES_PER_S
        self.replaced = 0  # other servers' states replaced by a newer one before being read
        self.read = 0  # other servers' states read (parsed and checked)
        self._unread: dict[str, bytes] = {}  # clock id -> its newest state not yet read
        self._ours: dict[str, int] = {}  # our clocks' ids -> board number
        hall.bridge = self
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id="qizhong-%s-%d" % (name, os.getpid()),
        )
        (login or BrokerLogin()).apply(self.client)
        self.client.will_set("%s/server/%s" % (self.root, name), "", QOS, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.on_socket_register_write = self._wake
        self._wake_r, self._wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self._closing = threading.Event()
        self._out: queue.SimpleQueue[tuple[str, str, bool]] = queue.SimpleQueue()
        self._queued = self._done = 0  # messages handed to _send, and published
        self._thread = threading.Thread(target=self._run, name="mqtt", daemon=True)
        hall.listeners.append(self.on_board)

    def start(self) -> None:
        self.client.connect_async(self.host, self.port, keepalive=30)
        self._thread.start()

    def _wake(self, client: Any, userdata: Any, sock: Any) -> None:
        try:
            os.write(self._wake_w, b"x")
        except BlockingIOError:
            pass  # a wake is pending already

    def _run(self) -> None:
        """paho's network loop, waiting with poll(): paho's own loop_start
        waits with select(), which fails once a server with hundreds of
        clocks has descriptors numbered 1024 or more."""
        c = self.client
        while not self._closing.is_set():
            sock = c.socket()
            if sock is None:
                try:
                    c.reconnect()
                except OSError:
                    self._closing.wait(1.0)
                continue
            p = select.poll()
            fd = sock.fileno()
            p.register(fd, select.POLLIN | (select.POLLOUT if c.want_write() else 0))
            p.register(self._wake_r, select.POLLIN)
            ready = dict(p.poll(1000 if not self._unread else 1000 // self.STATES_PER_S + 10))
            if self._wake_r in ready:
                try:
                    os.read(self._wake_r, 4096)
                except BlockingIOError:
                    pass
            self._publish_queued()
            rc = mqtt.MQTT_ERR_SUCCESS
            if ready.get(fd, 0) & (select.POLLIN | select.POLLERR | select.POLLHUP):
                rc = c.loop_read()  # one message: paho reads one a call
                for _ in range(self.READ_BATCH):  # and those behind it, without a wait each
                    if rc != mqtt.MQTT_ERR_SUCCESS or c.socket() is not sock:
                        break
                    if not dict(p.poll(0)).get(fd, 0) & select.POLLIN:
                        break
                    rc = c.loop_read()
            self._read_states()
            if rc == mqtt.MQTT_ERR_SUCCESS and c.want_write():
                rc = c.loop_write()
            if rc == mqtt.MQTT_ERR_SUCCESS:
                c.loop_misc()
            elif c.socket() is not None:
                self._closing.wait(0.05)
            if c.socket() is None and not self._closing.is_set():
                self.connected.clear()
                self._closing.wait(1.0)  # then reconnect

    def stop(self) -> None:
        """A clean stop: every board of ours ``down`` (retained, so no server
        shows its time ticking), then this server's address cleared; all
        written to the broker (within 5 s) before the goodbye."""
        for st in list(self.hall.states.values()):
            view = dict(st.view(), link="down", link_text="its server stopped")
            view.update(server=self.name, url=self.url)
            topic = "%s/%s/state" % (self.root, st.board.clock_id)
            self._send(topic, validate.dumps(view), retain=True)
        self._send("%s/server/%s" % (self.root, self.name), "", retain=True)
        deadline = time.monotonic() + 5.0
        while self.connected.is_set() and time.monotonic() < deadline:
            if self._done == self._queued and not self.client.want_write():
                break
            self._closing.wait(0.01)  # the network thread writes them
        self.client.disconnect()  # queued too: the network thread writes it
        while self.client.socket() is not None and time.monotonic() < deadline:
            self._closing.wait(0.01)
        self._closing.set()
        self._wake(None, None, None)
        if self._thread.is_alive():
            self._thread.join(5.0)
        os.close(self._wake_r)
        os.close(self._wake_w)

    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, rc: Any, props: Any = None
    ) -> None:
        if rc.is_failure:  # a wrong login, say: said once, then tried again each second
            if str(rc) != self.refused:
                print("qizhong serve: the broker refused us: %s" % rc, file=sys.stderr, flush=True)
            self.refused = str(rc)
            return
        self.refused = ""
        client.subscribe("%s/server/+" % self.root, QOS)  # first: whose links are whose
        client.subscribe("%s/+/state" % self.root, QOS)
        client.subscribe("%s/+/cmd" % self.root, QOS)
        client.publish(
            "%s/server/%s" % (self.root, self.name), json.dumps({"url": self.url}), QOS, retain=True
        )
        for st in list(self.hall.states.values()):  # everything again after a reconnect
            self.on_board(st.board.no, st.view(), None)
        self.connected.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        """Every message from the broker, whoever sent it: nothing it holds may
        end paho's thread (which would end the bridge), so every error is
        caught here, counted and dropped."""
        try:
            self._message(msg.topic, bytes(msg.payload))
        except Exception as e:  # RecursionError included: one bad message, not the bridge
            self.dropped += 1
            self.last_drop = "%s: %s" % (msg.topic[:80], str(e)[:200])

    def _message(self, topic: str, payload: bytes) -> None:
        """What a message costs before it is bounded: a topic split, a dict
        lookup and a token (#34). Requests for our clocks take their
        bucket's token first; states wait unread, one per board
        (``_read_states``)."""
        words = topic.split("/")
        if len(words) != 4:
            return
        cid, kind = words[2], words[3]
        if cid == "server":
            self._server(kind, payload)
        elif kind == "cmd":
            if cid not in self._ours:
                return  # another server's clock
            if len(payload) > self.MAX_COMMAND:
                raise validate.Invalid("%d bytes, more than %d" % (len(payload), self.MAX_COMMAND))
            if not (self._changes if b"~" in payload else self._queries).take():
                self.flooded += 1  # dropped before it costs a parse, a reply or the clock
                return
            self._command(cid, validate.parse(payload, self.MAX_COMMAND))
        elif kind == "state" and cid not in self._ours:  # ours come back from the broker
            if len(payload) > validate.MAX_MQTT:
                raise validate.Invalid("%d bytes, more than %d" % (len(payload), validate.MAX_MQTT))
            if cid in self._unread:
                self.replaced += 1  # keeps its turn: each board is read in its order
            elif len(self._unread) >= self.MAX_REMOTE:
                raise validate.Invalid("more than %d boards' states unread" % self.MAX_REMOTE)
            self._unread[cid] = payload

    def _read_states(self) -> None:
        """Other servers' states, the oldest-waiting board first, at most
        ``STATES_PER_S`` a second."""
        while self._unread and self._reads.take():
            cid = next(iter(self._unread))
            payload = self._unread.pop(cid)
            self.read += 1
            try:
                self._state(cid, payload)
            except Exception as e:
                self.dropped += 1
                self.last_drop = "%s state: %s" % (cid[:80], str(e)[:200])

    def _state(self, cid: str, payload: bytes) -> None:
        if not payload:  # a retained state cleared
            self.hall.remote_gone(cid)
            return
        view = validate.parse(payload, validate.MAX_MQTT)
        if not isinstance(view, dict) or view.get("server") == self.name:
            return  # our own boards come back from the broker: we know them
        server = view.get("server")
        if not validate.is_name(server) or not validate.is_name(cid):
            raise validate.Invalid("a state names no server, or a bad clock id")
        url = self.servers.get(str(server), "")
        if not url:  # its server has not announced itself (yet): kept until it does
            if len(self._waiting) < self.MAX_REMOTE or cid in self._waiting:
                self._waiting[cid] = view
            return
        self.hall.remote_board(validate.remote_view(view, cid, url))

    def _server(self, name: str, payload: bytes) -> None:
        """Another server's announcement (its page's address), or its end:
        empty when it stopped, or its last will when it died. Its boards are
        then shown ``down``: no time ticks there any more."""
        if name == self.name or not validate.is_server_name(name):
            return
        info = validate.parse(payload, 1024) if payload else None
        url = info.get("url") if isinstance(info, dict) else None
        if not validate.is_url(url):
            self.servers.pop(name, None)
            self.hall.server_down(name)
            return
        if name not in self.servers and len(self.servers) >= self.MAX_SERVERS:
            return
        self.servers[name] = str(url)
        for cid, view in list(self._waiting.items()):
            if isinstance(view, dict) and view.get("server") == name:
                del self._waiting[cid]
                try:
                    self.hall.remote_board(validate.remote_view(view, cid, str(url)))
                except validate.Invalid:
                    self.dropped += 1

    def _command(self, clock_id: str, cmd: Any) -> None:
        """A tagged request from another laptop for one of our clocks: to the
        clock exactly as it came; the reply back to the broker. Recorded
        before it is queued (``relay``, ``pending``) and its outcome after.
        Only the clock's own tag lets a change through (``validate.command``);
        relays wait in their own short queue behind the clock's events."""
        st = self.hall.states.get(self._ours.get(clock_id, 0))
        if st is None or st.board.clock_id != clock_id:
            return  # not ours (another server's clock, or one no longer on that board)
        topic = "%s/%s/reply" % (self.root, clock_id)
        raw = cmd.get("text") if isinstance(cmd, dict) else None
        rid = raw.split(" ", 1)[0][:8] if isinstance(raw, str) else ""

        def reply(ok: bool, answer: str) -> None:
            body = {"rid": rid, "ok": ok, "text": answer, "server": self.name}
            self._send(topic, json.dumps(body))

        try:
            text = validate.command(cmd)
        except validate.Invalid as e:
            reply(False, "refused %s" % e)
            return
        no = st.board.no
        try:
            worker = self.hall.worker(no)
        except Exception:
            reply(False, "offline the clock is not connected")
            return
        if not worker.relay_room():
            reply(False, "busy too many requests from the broker: try again")
            return
        aid = 0
        if validate.is_change(text):  # a query changes nothing: not recorded, as over HTTP
            try:
                aid = self.hall.store.add_action(no, "relay", {"text": text}, "mqtt")
            except Exception as e:  # the record cannot be written: nothing is sent
                reply(False, "record cannot be written: %s" % e)
                return
        fut = worker.call(lambda c: c.link.request_text(text), relay=True)

        def done(f: Any) -> None:
            try:
                ok, answer = f.result()
                outcome = "ok" if ok else "refused: %s" % answer
            except Exception as e:  # LinkError, ValueError, the relay queue full
                ok, answer = False, "link %s" % e
                outcome = "no clock: %s" % e
            try:
                if aid and f.exception() is None and not ok:  # the clock refused it
                    self.hall.store.relay_refused(aid, no, answer)
                elif aid:
                    self.hall.store.action_done(aid, outcome)
            except Exception:
                pass  # the action stays pending in the file; the reply still goes
            reply(ok, answer)

        fut.add_done_callback(done)

    def on_board(self, no: int, view: dict[str, Any], event: dict[str, Any] | None) -> None:
        """A board of ours changed (called on its worker's thread)."""
        view = dict(view, server=self.name, url=self.url)
        self._ours[str(view["clock_id"])] = no
        topic = "%s/%s" % (self.root, view["clock_id"])
        self._send(topic + "/state", validate.dumps(view), retain=True)
        if event is not None:
            self._send(topic + "/event", validate.dumps(event))
        self.published += 1

    def _send(self, topic: str, payload: str, retain: bool = False) -> None:
        """Publish from any thread without waiting: paho's own locks are held
        by its thread while it handles what arrives (a flood, say), so a
        clock's thread only queues here; the network thread publishes."""
        self._queued += 1
        self._out.put((topic, payload, retain))
        self._wake(None, None, None)

    def _publish_queued(self) -> None:
        while True:
            try:
                topic, payload, retain = self._out.get_nowait()
            except queue.Empty:
                return
            self.client.publish(topic, payload, QOS, retain=retain)
            self._done += 1


class Bucket:
    """A token bucket: ``take`` is true at most ``rate`` times a second on
    average, ``burst`` at once."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = burst
        self.at = time.monotonic()
        self._lock = threading.Lock()

    def take(self) -> bool:
        with self._lock:
            now = time.monotonic()
            self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
            self.at = now
            if self.tokens < 1:
                return False
            self.tokens -= 1
            return True


class RemoteClock:
    """A clock on another laptop, through the hall's broker, for the arbiter
    who paired it: every request tagged here with the key from ``keys``.

        remote = RemoteClock("127.0.0.1:1883", "hall", "e6614103e7452d2f")
        remote.pair("7KQ3 M2XD 9WHE 4RTA")    # the code on the clock's displays
        remote.request("penalty", "1 -60000")
    """

    TIMEOUT_S = 10.0

    def __init__(
        self,
        broker: str,
        tournament: str,
        clock_id: str,
        keys: auth.KeyStore | None = None,
        login: BrokerLogin | None = None,
    ) -> None:
        """``login``: this laptop's login on a locked broker (``BrokerLogin``);
        ``LinkError`` if the broker refuses it."""
        self.clock_id = clock_id
        self.keys = keys or auth.KeyStore.default()
        self.root = "qizhong/%s/%s" % (tournament, clock_id)
        self._replies: queue.Queue[dict[str, Any]] = queue.Queue()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        self.client.on_message = self._on_message
        answered: queue.Queue[Any] = queue.Queue()
        self.client.on_connect = lambda c, u, f, rc, p=None: answered.put(rc)
        (login or BrokerLogin()).apply(self.client)
        host, port = parse_broker(broker)
        try:
            self.client.connect(host, port, keepalive=30)
        except OSError as e:
            raise LinkError("the broker at %s: %s" % (broker, e)) from None
        self.client.loop_start()
        try:
            rc = answered.get(timeout=self.TIMEOUT_S)
        except queue.Empty:
            rc = "no answer"
        if rc == "no answer" or rc.is_failure:
            self.close()
            raise LinkError("the broker at %s refused us: %s" % (broker, rc))
        self.client.subscribe(self.root + "/reply", QOS)

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
