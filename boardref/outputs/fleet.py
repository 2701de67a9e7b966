"""Reporting one table to the café's MQTT broker (paho-mqtt 2.x), with Home Assistant
discovery (``home_assistant.py``).

Topics: ``boardref/<table>/state`` (retained, the table as the dashboard shows it),
``boardref/<table>/event`` (QoS 1, in order: every accepted event, numbered),
``boardref/<table>/record`` (QoS 1: each ended game's record) and
``boardref/<table>/status`` ("online"; "offline" is the last will); Home Assistant's
events go to ``boardref/<table>/home_assistant/<key>``. Events wait in
the table's own SQLite outbox until the broker acknowledges them, one at a time and
in order, so a broker outage or a restart of the service loses none. On a café
broker (``mosquitto.acl``) a table logs in with its table name as its user name,
and may write only its own topics. The reporter only reports; it never changes the
game, and never says the broker's password in a message or a log.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import ssl
import stat
import sys
import threading
import time
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import paho.mqtt.client as mqtt

from boardref.eventlog.store import Store, StoreError
from boardref.outputs.display import Display
from boardref.outputs.home_assistant import Happenings, discovery, event_topic, said_state
from boardref.referee.events import Heard
from boardref.referee.kinds import EventKind

log = logging.getLogger(__name__)

ROOT = "boardref"
VERSION = version("boardref")  # pyproject.toml's, as installed
ACK_WAIT = 5.0  # seconds to wait for the broker's PUBACK before trying again later
RECONNECT = (1, 30)  # seconds: first and longest wait between reconnection attempts
#: the settings of a broker login, as the config names them
LOGIN = ("url", "user", "password", "password_file", "certfile", "keyfile")

@dataclass(frozen=True)
class Broker:
    """Where the broker is and how to log in: a URL like mqtts://host:8883, with a user
    and password in it or given beside it, and a client certificate for mqtts."""

    host: str
    port: int
    tls: bool
    username: str | None = None
    #: never shown: not in this object's repr, a log line or an error message
    password: str | None = field(default=None, repr=False)
    #: the table's own certificate and its key (PEM), for a broker that asks for one
    certfile: str | None = None
    keyfile: str | None = None

    @classmethod
    def from_url(cls, url: str) -> Broker:
        """The broker of ``url``; a user and password in it are percent-decoded
        (``p%40ss`` is ``p@ss``). A bad URL is refused without repeating it, since it
        may hold a password."""
        try:
            parts = urlsplit(url)
            host, port = parts.hostname, parts.port
        except ValueError:  # its message quotes the URL
            parts, host, port = None, None, None
        if parts is None or parts.scheme not in ("mqtt", "mqtts") or not host:
            raise ValueError(
                "expected a broker URL like mqtt://host:1883 or mqtts://host (a password in "
                "it writes @ : / ? # % as %40 %3A %2F %3F %23 %25)"
            )
        tls = parts.scheme == "mqtts"
        return cls(
            host,
            port or (8883 if tls else 1883),
            tls,
            None if parts.username is None else unquote(parts.username),
            None if parts.password is None else unquote(parts.password),
        )

    @classmethod
    def logged_in(
        cls,
        url: str,
        user: str | None = None,
        password: str | None = None,
        password_file: Path | None = None,
        certfile: Path | None = None,
        keyfile: Path | None = None,
        names: dict[str, str] | None = None,
    ) -> Broker:
        """The broker ``url`` names, logged in as the rest say: the one login of a table
        and of the café dashboard. A ``ValueError`` says what is wrong in words that
        never show the password, naming each setting as ``names`` does (the command
        line's options; the config's keys by default)."""
        named = {key: key for key in LOGIN} | (names or {})
        try:
            broker = cls.from_url(url)
        except ValueError as exc:
            raise ValueError(f"{named['url']}: {exc}") from None
        if user is not None and broker.username is not None:
            raise ValueError(f"{named['user']}: it is in {named['url']} too: give it once")
        if [password, password_file, broker.password].count(None) < 2:
            raise ValueError(
                f"{named['password']}: give it once: in {named['url']}, as {named['password']} "
                f"or as {named['password_file']}"
            )
        if keyfile is not None and certfile is None:
            raise ValueError(
                f"{named['keyfile']}: it is the key of a {named['certfile']}: give the "
                f"{named['certfile']} too"
            )
        if certfile is not None and not broker.tls:
            raise ValueError(
                f"{named['certfile']}: a client certificate needs an mqtts:// {named['url']}"
            )
        if password_file is not None:
            password = _password_in(Path(password_file), named["password_file"])
        return dataclasses.replace(
            broker,
            username=broker.username if user is None else user,
            password=broker.password if password is None else password,
            certfile=None if certfile is None else str(certfile),
            keyfile=None if keyfile is None else str(keyfile),
        )

    def client(
        self,
        client_id: str,
        ca_file: str | None,
        on_connect,
        on_disconnect,
        on_message,
        on_connect_fail=None,
    ) -> mqtt.Client:
        """A paho client for this broker: login, TLS, reconnect backoff, callbacks."""
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id)
        if self.username:
            client.username_pw_set(self.username, self.password)
        if self.tls:
            client.tls_set(
                ca_certs=ca_file,
                certfile=self.certfile,
                keyfile=self.keyfile,
                cert_reqs=ssl.CERT_REQUIRED,
            )
        client.reconnect_delay_set(*RECONNECT)
        client.on_connect = on_connect
        client.on_disconnect = on_disconnect
        client.on_message = on_message
        client.on_connect_fail = on_connect_fail
        return client


def _password_in(path: Path, name: str) -> str:
    """The password ``path`` holds (one line); refused when every user of the
    machine may read it, as ssh refuses such a key: the file's one purpose is to keep
    the password from them."""
    try:
        if path.stat().st_mode & stat.S_IROTH:
            raise ValueError(
                f"{name}: every user of this machine can read {path}: "
                f"`chmod o-r {path}` (or `chmod 600`) and start again"
            )
        return path.read_text(encoding="utf-8").rstrip("\r\n")
    except (OSError, UnicodeDecodeError) as exc:
        said = getattr(exc, "strerror", None) or "not UTF-8 text"
        raise ValueError(f"{name}: cannot read {path}: {said}") from None


def topic(table: str, kind: str) -> str:
    return f"{ROOT}/{table}/{kind}"


class Reporter:
    """Keeps one table's state, events and status on the broker."""

    def __init__(
        self,
        store: Store,
        broker: Broker,
        table: str,
        ca_file: str | None = None,
        discovery_prefix: str = "homeassistant",
        panel_url: str | None = None,
        language: str = "en",
    ):
        self.store = store
        self.table = table
        self.discovery_prefix = discovery_prefix
        #: the table's panel, linked from its device in Home Assistant
        self.panel_url = panel_url
        #: the table's language: what Home Assistant shows is said in it
        self.language = language
        self._happenings = Happenings(language)
        self.connected = False
        self._state: str | None = None
        self._state_sent: str | None = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._failure: str | None = None
        self.client = broker.client(
            f"boardref-{table}",
            ca_file,
            self._connected,
            self._disconnected,
            self._message,
            self._connect_failed,
        )
        self.client.will_set(topic(table, "status"), "offline", qos=1, retain=True)
        self.broker = broker
        self._sender = threading.Thread(target=self._send, name="boardref-fleet", daemon=True)

    def start(self) -> None:
        """Connect in the background; a broker that is down is retried by itself."""
        self.client.connect_async(self.broker.host, self.broker.port, keepalive=15)
        self.client.loop_start()
        self._sender.start()

    def close(self) -> None:
        """Say goodbye (offline, retained) and stop."""
        self._stop.set()
        self._wake.set()
        self._sender.join(timeout=ACK_WAIT + 1)
        if self.connected:
            goodbye = self.client.publish(
                topic(self.table, "status"), "offline", qos=1, retain=True
            )
            # the connection may drop meanwhile; then the last will says offline instead
            with contextlib.suppress(RuntimeError, ValueError):
                goodbye.wait_for_publish(timeout=2)
        self.client.disconnect()
        self.client.loop_stop()

    # --- what the table reports ------------------------------------------------------------

    def on_event(self, event: Heard) -> None:
        """A referee listener: accepted events go to the outbox, in order."""
        if not event.accepted:
            return
        data = event.data
        if event.kind == EventKind.CHANCE and data["spec"]["kind"] == "shuffle":
            # a shuffled deck holds every hand: it is revealed in the game's record
            data = {**data, "outcome": None}
        message = {"table": self.table, "kind": event.kind, "data": data, "at": time.time()}
        try:
            self.store.queue(topic(self.table, "event"), json.dumps(message))
        except StoreError as exc:
            log.error("event %s not queued for the broker: %s", event.kind, exc)
        self._wake.set()

    def report_record(self, record: dict[str, Any]) -> None:
        """An ended game's record (``engines.records.to_json``), for the café's day of
        games; through the outbox like the events, so none is lost."""
        message = {"table": self.table, "record": record, "at": time.time()}
        try:
            self.store.queue(topic(self.table, "record"), json.dumps(message))
        except StoreError as exc:
            log.error("the record of a game not queued for the broker: %s", exc)
        self._wake.set()

    def report_state(self, state: dict[str, Any]) -> None:
        """The table as the dashboard shows it; only the newest is kept and sent."""
        text = json.dumps({"table": self.table, **state}, sort_keys=True)
        if text != self._state:
            self._state = text
            self._wake.set()
        for key, payload in self._happenings.news(state):
            self._tell_home_assistant(key, payload)

    def _tell_home_assistant(self, key: str, payload: dict[str, Any]) -> None:
        """An event of the moment (an alert, the game over): sent while connected, never
        kept, since Home Assistant would only replay it late."""
        if self.connected:
            self.client.publish(event_topic(self.table, key), json.dumps(payload), qos=1)

    # --- inside --------------------------------------------------------------------------

    def _connected(self, client, userdata, flags, reason, properties) -> None:
        if reason.is_failure:
            log.warning("broker refused the table: %s", reason)
            return
        self.connected = True
        self._failure = None
        client.publish(topic(self.table, "status"), "online", qos=1, retain=True)
        client.subscribe(f"{self.discovery_prefix}/status", qos=1)
        self._announce()
        self._state_sent = None  # the broker may have lost it: send it again
        self._wake.set()
        log.info("reporting table %s to %s:%d", self.table, self.broker.host, self.broker.port)

    def _connect_failed(self, client, userdata) -> None:
        """A connection attempt failed (no broker, TLS refused...): say why, once per
        distinct reason, since paho retries quietly by itself."""
        # paho calls this inside its ``except OSError``: the error is the one handled
        error = sys.exc_info()[1]
        reason = f"{type(error).__name__}: {error}" if error is not None else "no answer"
        if reason != self._failure:
            self._failure = reason
            log.warning(
                "cannot reach the broker %s:%d%s (%s); retrying, events wait in the outbox",
                self.broker.host,
                self.broker.port,
                " over TLS" if self.broker.tls else "",
                reason,
            )

    def _disconnected(self, client, userdata, flags, reason, properties) -> None:
        self.connected = False
        log.warning("broker connection lost (%s); events wait in the outbox", reason)

    def _message(self, client, userdata, message) -> None:
        if message.topic == f"{self.discovery_prefix}/status" and message.payload == b"online":
            self._announce()  # Home Assistant restarted and forgot its entities

    def _announce(self) -> None:
        announced = discovery(self.table, VERSION, self.discovery_prefix, self.panel_url)
        for component, key, config in announced:
            self.client.publish(
                f"{self.discovery_prefix}/{component}/boardref_{self.table}/{key}/config",
                json.dumps(config),
                qos=1,
                retain=True,
            )

    def _send(self) -> None:
        """The sender thread: send whatever waits, whenever woken (or each second)."""
        while not self._stop.is_set():
            self._wake.wait(timeout=1.0)
            self._wake.clear()
            self.send()

    def send(self) -> None:
        """Drain the outbox one acknowledged message at a time, then the state (the
        sender thread's work, callable by whoever runs many tables' sends at once)."""
        if not self.connected:
            return
        try:
            self._send_waiting()
            self._send_state()
        except (StoreError, RuntimeError, ValueError) as exc:
            log.warning("reporting paused: %s", exc)

    def _send_waiting(self) -> None:
        while not self._stop.is_set() and self.connected:
            waiting = self.store.waiting()
            if not waiting:
                return
            for number, where, payload in waiting:
                # the outbox number orders a table's events: it only ever grows
                numbered = json.dumps({"seq": number, **json.loads(payload)})
                info = self.client.publish(where, numbered, qos=1)
                info.wait_for_publish(timeout=ACK_WAIT)
                if not info.is_published():
                    return  # the broker went away; this one is sent again later
                self.store.sent(number)

    def _send_state(self) -> None:
        state = self._state
        if state is not None and state != self._state_sent:
            info = self.client.publish(topic(self.table, "state"), state, qos=1, retain=True)
            info.wait_for_publish(timeout=ACK_WAIT)
            if info.is_published():
                self._state_sent = state


def dashboard_state(display: Display, panel_url: str | None, language: str = "en") -> dict:
    """The part of the pushed display the café dashboard and Home Assistant use; what
    Home Assistant shows is in ``said``, in the table's ``language``."""
    shown, link = display.state, display.link
    seats = shown.seats
    winners = [] if shown.outcome is None else shown.outcome.winners
    alerts = []
    if link not in ("up", "none"):
        alerts.append("board disconnected")
    if shown.errors:
        alerts.append("board differs from the game")
    if shown.phase == "ambiguous":
        alerts.append("a move needs choosing")
    return {
        "game": shown.game,
        "players": shown.players,
        "seat_name": shown.seat_name,
        "phase": shown.phase,
        "plies": shown.plies,
        "last_move": shown.last_played,
        "winner": ", ".join(seats[s].name for s in winners if s < len(seats)) or None,
        # the same names as words, for a page to say in its own language
        "seat_said": None if shown.acting is None else _words(seats[shown.acting]),
        "winners_said": [_words(seats[s]) for s in winners if s < len(seats)],
        "link": link,
        "camera": display.camera,
        "said": said_state(display, language, alerts),
        "message": shown.message,
        "alerts": alerts,
        "started": display.started,
        "panel_url": panel_url,
    }


def _words(seat) -> dict:
    """A seat's name as words (key and params) for a page's word table."""
    return seat.words.model_dump(include={"key", "params"})
