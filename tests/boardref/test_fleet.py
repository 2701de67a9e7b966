"""The café fleet on a real mosquitto (Debian's package; .ci/run installs it), started
on a free loopback port with a temporary config: tables report, the dashboard shows
them, a broker outage loses no event, and a killed table is marked offline."""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import defaultdict

import httpx
import paho.mqtt.client as mqtt
import pytest

from boardref.config import load_config
from boardref.fleet import ACK_WAIT, RECONNECT, discovery
from boardref.harness import free_port
from boardref.service import Service

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
WAIT = 30.0

pytestmark = pytest.mark.skipif(
    not os.path.exists(MOSQUITTO), reason="mosquitto is missing; .ci/run installs it"
)


def until(check, what: str, wait: float = WAIT):
    deadline = time.monotonic() + wait
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


class Mosquitto:
    """A broker of our own on loopback, with persistence so a restart keeps sessions."""

    def __init__(self, folder):
        self.port = free_port()
        self.url = f"mqtt://127.0.0.1:{self.port}"
        self.config = folder / "mosquitto.conf"
        self.config.write_text(
            f"listener {self.port} 127.0.0.1\nallow_anonymous true\n"
            f"persistence true\npersistence_location {folder}/\n"
        )
        self.process = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [MOSQUITTO, "-c", str(self.config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

        def accepting():
            with socket.socket() as probe:
                return probe.connect_ex(("127.0.0.1", self.port)) == 0

        until(accepting, "mosquitto to listen")

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(WAIT)


@pytest.fixture
def broker(tmp_path):
    mosquitto = Mosquitto(tmp_path)
    mosquitto.start()
    yield mosquitto
    if mosquitto.process.poll() is None:
        mosquitto.stop()


class Listener:
    """A subscriber that keeps its session across broker restarts."""

    def __init__(self, port: int):
        self.events: dict[str, list[dict]] = defaultdict(list)
        self.status: dict[str, str] = {}
        self.retained: dict[str, bytes] = {}
        self._lock = threading.Lock()
        client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2, client_id="test-listener", clean_session=False
        )
        client.on_connect = lambda c, *_: c.subscribe([("boardref/#", 1), ("homeassistant/#", 1)])
        client.on_message = self._message
        client.reconnect_delay_set(0.2, 1)
        client.connect("127.0.0.1", port)
        client.loop_start()
        self.client = client

    def _message(self, client, userdata, message):
        with self._lock:
            parts = message.topic.split("/")
            if message.topic.startswith("homeassistant/"):
                self.retained[message.topic] = message.payload
            elif parts[2] == "event":
                self.events[parts[1]].append(json.loads(message.payload))
            elif parts[2] == "status":
                self.status[parts[1]] = message.payload.decode()

    def close(self):
        self.client.loop_stop()
        self.client.disconnect()


def table(tmp_path, url: str, name: str) -> Service:
    """A table whose moves are tapped on the panel, reporting to the broker."""
    config = load_config(
        **{
            "store.path": tmp_path / f"{name}.db",
            "game.name": "catch_the_hare",
            "fleet.url": url,
            "fleet.table_id": name,
        }
    )
    service = Service(config)
    service.start(asyncio.new_event_loop())
    return service


def play(service: Service, moves: int, pick: random.Random) -> None:
    referee = service.referee
    for _ in range(moves):
        if referee.phase == "over":
            referee.new_game("catch_the_hare")
        state = referee.positions[-1]
        referee.play(str(pick.choice(referee.game.legal_moves(state))))


def test_five_tables_play_and_the_dashboard_shows_all_five_live(tmp_path, broker):
    tables = {f"t{n}": table(tmp_path, broker.url, f"t{n}") for n in range(1, 6)}
    port = free_port()
    dashboard = subprocess.Popen(
        [sys.executable, "-m", "boardref", "fleet", "--mqtt", broker.url, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        pick = random.Random(1)
        for service in tables.values():
            play(service, pick.randint(3, 8), pick)

        def all_live():
            try:
                rows = httpx.get(f"http://127.0.0.1:{port}/api/tables", timeout=2).json()
            except httpx.HTTPError:
                return None
            shown = {row["table"]: row for row in rows}
            ok = set(shown) == set(tables) and all(
                shown[name]["status"] == "online"
                and (shown[name]["state"] or {}).get("plies")
                == tables[name].referee.published.plies
                for name in tables
            )
            return shown if ok else None

        shown = until(all_live, "the dashboard to show every table as it stands")
        assert shown["t1"]["state"]["game"] == "catch_the_hare"
        assert shown["t1"]["seconds_in_game"] is not None
        page = httpx.get(f"http://127.0.0.1:{port}/").text
        assert "dashboard.js" in page
    finally:
        dashboard.terminate()
        dashboard.wait(WAIT)
        for service in tables.values():
            service.close()


def test_a_broker_outage_loses_no_event_and_keeps_each_tables_order(tmp_path, broker):
    listener = Listener(broker.port)
    tables = {f"t{n}": table(tmp_path, broker.url, f"t{n}") for n in range(1, 4)}
    pick = random.Random(2)
    try:
        until(lambda: all(s.reporter.connected for s in tables.values()), "tables to connect")
        for service in tables.values():
            play(service, 4, pick)
        broker.stop()
        until(lambda: not any(s.reporter.connected for s in tables.values()), "the outage")
        for service in tables.values():
            play(service, 5, pick)  # played while the broker is down: into the outbox
        assert all(s.store.size()["outbox"] > 0 for s in tables.values())
        broker.start()
        for service in tables.values():
            play(service, 3, pick)

        def everything_arrived():
            return all(
                s.store.size()["outbox"] == 0
                and len({e["seq"] for e in listener.events[name]}) == _accepted(s)
                for name, s in tables.items()
            )

        # a table's reconnection attempts back off up to RECONNECT[1] seconds while the
        # broker is down (longer on a busy machine): its next try may come that late,
        # and an unacknowledged event is sent again after ACK_WAIT
        until(
            everything_arrived,
            "every event to reach the listener",
            RECONNECT[1] + 2 * ACK_WAIT + WAIT,
        )
        for name, service in tables.items():
            seqs = []
            for event in listener.events[name]:  # QoS 1 may repeat; the first copies count
                if event["seq"] not in seqs:
                    seqs.append(event["seq"])
            assert seqs == sorted(seqs), f"{name}'s events arrived out of order"
            kinds = [e["kind"] for e in _first_copies(listener.events[name])]
            logged = ["game_started"] + [kind for kind, _ in service.referee.log]
            assert kinds == logged, f"{name}'s events differ from its log"
    finally:
        listener.close()
        for service in tables.values():
            service.close()


def _accepted(service: Service) -> int:
    return 1 + len(service.referee.log)  # the game start, then every logged event


def _first_copies(events: list[dict]) -> list[dict]:
    seen, first = set(), []
    for event in events:
        if event["seq"] not in seen:
            seen.add(event["seq"])
            first.append(event)
    return first


def test_the_last_will_marks_a_killed_table_offline(tmp_path, broker):
    listener = Listener(broker.port)
    config = tmp_path / "config.toml"
    config.write_text(
        f'[game]\nname = "catch_the_hare"\n[store]\npath = "{tmp_path}/k.db"\n'
        f'[fleet]\nurl = "{broker.url}"\ntable_id = "kitchen"\n'
    )
    service = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "boardref",
            "serve",
            "--config",
            str(config),
            "--port",
            str(free_port()),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        until(lambda: listener.status.get("kitchen") == "online", "the table to come online")
        service.send_signal(signal.SIGKILL)
        service.wait(WAIT)
        until(lambda: listener.status.get("kitchen") == "offline", "the last will")
    finally:
        service.kill()
        listener.close()


SENSOR_KEYS = {
    "availability",
    "availability_mode",
    "availability_template",
    "availability_topic",
    "default_entity_id",
    "device",
    "device_class",
    "enabled_by_default",
    "encoding",
    "entity_category",
    "entity_picture",
    "expire_after",
    "force_update",
    "icon",
    "json_attributes_template",
    "json_attributes_topic",
    "last_reset_value_template",
    "name",
    "object_id",
    "options",
    "payload_available",
    "payload_not_available",
    "platform",
    "qos",
    "state_class",
    "state_topic",
    "suggested_display_precision",
    "unique_id",
    "unit_of_measurement",
    "value_template",
}
BINARY_SENSOR_KEYS = (
    SENSOR_KEYS
    - {
        "state_class",
        "last_reset_value_template",
        "options",
        "suggested_display_precision",
        "unit_of_measurement",
    }
) | {"off_delay", "payload_off", "payload_on"}
DEVICE_KEYS = {
    "configuration_url",
    "connections",
    "hw_version",
    "identifiers",
    "manufacturer",
    "model",
    "model_id",
    "name",
    "serial_number",
    "suggested_area",
    "sw_version",
    "via_device",
}


def test_discovery_payloads_use_only_home_assistants_documented_keys():
    entities = discovery("t1")
    assert {(c, k) for c, k, _ in entities} >= {("sensor", "game"), ("binary_sensor", "board_link")}
    for component, _, config in entities:
        allowed = SENSOR_KEYS if component == "sensor" else BINARY_SENSOR_KEYS
        assert set(config) <= allowed, set(config) - allowed
        assert set(config["device"]) <= DEVICE_KEYS
        assert config["unique_id"].startswith("boardref_t1_")
        assert {"state_topic", "availability_topic", "unique_id", "device"} <= set(config)


def test_discovery_is_published_and_sent_again_when_home_assistant_comes_back(tmp_path, broker):
    listener = Listener(broker.port)
    service = table(tmp_path, broker.url, "t9")
    try:
        topic = "homeassistant/sensor/boardref_t9/game/config"
        until(lambda: topic in listener.retained, "discovery")
        listener.retained.clear()
        listener.client.publish("homeassistant/status", "online", qos=1)
        until(lambda: topic in listener.retained, "discovery after Home Assistant's restart")
        assert json.loads(listener.retained[topic])["state_topic"] == "boardref/t9/state"
    finally:
        listener.close()
        service.close()
