"""The café fleet on a real mosquitto (Debian's package; .ci/run installs it), started
on a free loopback port with a temporary config: tables report, the dashboard shows
them, a broker outage loses no event, and a killed table is marked offline."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import threading
from collections import defaultdict

import httpx
import paho.mqtt.client as mqtt
import pytest
import websockets
from playwright.sync_api import sync_playwright

from boardref.cafe.dashboard import BEHIND, Fleet, Watcher
from boardref.outputs.fleet import ACK_WAIT, RECONNECT, Broker
from boardref.runtime.service import Service
from tests.boardref.conftest import needs_chromium
from tests.harness import (
    CHROMIUM,
    CHROMIUM_ARGS,
    MOSQUITTO,
    WAIT,
    Mosquitto,
    free_port,
    start_dashboard,
    until,
)
from tests.harness import reporting_table as table

pytestmark = pytest.mark.skipif(
    not os.path.exists(MOSQUITTO), reason="mosquitto is missing; .ci/run installs it"
)


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
        subscribed = threading.Event()
        client.on_connect = lambda c, *_: c.subscribe([("boardref/#", 1), ("homeassistant/#", 1)])
        client.on_subscribe = lambda *_: subscribed.set()
        client.on_message = self._message
        client.reconnect_delay_set(0.2, 1)
        client.connect("127.0.0.1", port)
        client.loop_start()
        self.client = client
        # the broker keeps (and queues for) the session only once it has subscribed: an
        # event a table sends before that is not the listener's to miss
        assert subscribed.wait(WAIT), "the listener's subscription was not acknowledged"

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


def play(service: Service, moves: int, pick: random.Random) -> None:
    referee = service.referee
    for _ in range(moves):
        if referee.phase == "over":
            referee.new_game("catch_the_hare")
        state = referee.positions[-1]
        referee.play(str(pick.choice(referee.game.legal_moves(state))))


@contextlib.contextmanager
def watched(tmp_path, broker, names: list[str]):
    """Tables reporting to ``broker`` and the dashboard watching them, on a port."""
    tables = {name: table(tmp_path, broker.url, name) for name in names}
    port = free_port()
    fleet = start_dashboard(broker.url, port)
    try:
        yield tables, port
    finally:
        fleet.terminate()
        fleet.wait(WAIT)
        for service in tables.values():
            service.close()


def client_of(port: int) -> httpx.Client:
    """One client for every request to the dashboard on ``port``: httpx.get builds a
    TLS context each time (30 ms of CPU)."""
    return httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=5)


def test_five_tables_play_and_the_dashboard_shows_all_five_live(tmp_path, broker):
    tables_at = [f"t{n}" for n in range(1, 6)]
    with watched(tmp_path, broker, tables_at) as (tables, port), client_of(port) as http:
        pick = random.Random(1)
        for service in tables.values():
            play(service, pick.randint(3, 8), pick)

        def all_live():
            try:
                rows = http.get("/api/tables").json()
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
        page = http.get("/").text
        assert "dashboard.js" in page


def test_a_page_that_connects_late_gets_the_whole_fleet_then_only_changes(tmp_path, broker):
    tables_at = [f"north-t{n}" for n in range(1, 4)]
    with watched(tmp_path, broker, tables_at) as (tables, port), client_of(port) as http:
        pick = random.Random(3)
        for service in tables.values():
            play(service, 3, pick)

        def all_shown():
            rows = http.get("/api/tables").json()
            plies = {row["table"]: (row["state"] or {}).get("plies") for row in rows}
            return plies == {name: s.referee.published.plies for name, s in tables.items()}

        until(all_shown, "the dashboard to hold every table")
        plies = {name: service.referee.published.plies for name, service in tables.items()}

        async def watch() -> tuple[dict, list[dict]]:
            async with websockets.connect(f"ws://127.0.0.1:{port}/ws") as page:
                whole = json.loads(await page.recv())
                mover = tables["north-t2"]
                target = mover.referee.published.plies + 1
                play(mover, 1, pick)
                changes = []
                while True:
                    changes.append(json.loads(await asyncio.wait_for(page.recv(), WAIT)))
                    if changes[-1]["rows"].get("north-t2", {}).get("plies") == target:
                        return whole, changes

        whole, changes = asyncio.run(watch())
        assert whole["whole"] is True
        assert set(whole["rows"]) == set(tables)
        for name in tables:
            row = whole["rows"][name]
            assert row["plies"] == plies[name]
            assert (row["site"], row["game"], row["status"]) == (
                "north",
                "catch_the_hare",
                "online",
            )
        for change in changes:
            assert "whole" not in change
            assert set(change["rows"]) == {"north-t2"}, "a table that did not move was sent"
        sent = set().union(*(change["rows"]["north-t2"] for change in changes))
        assert "plies" in sent
        assert not sent & {"site", "game", "players", "status", "started"}, sent


@needs_chromium
@pytest.mark.browser
def test_the_staff_page_counts_filters_sorts_and_links_every_table(tmp_path, broker):
    names = ["north-t1", "north-t2", "south-t1"]
    with watched(tmp_path, broker, names) as (tables, port), sync_playwright() as playwright:
        pick = random.Random(4)
        play(tables["north-t1"], 5, pick)
        play(tables["south-t1"], 2, pick)
        tables.pop("north-t2").close()  # goes offline
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = chromium.new_page(viewport={"width": 1280, "height": 800}, locale="en")
            page.goto(f"http://127.0.0.1:{port}/")
            shown = "#rows > [role=row]"
            page.wait_for_function(
                "() => document.getElementById('count-offline').textContent === '1' && "
                "document.querySelector('[data-table=north-t1] .moves').textContent === '5'"
            )
            counts = {
                key: page.text_content(f"#count-{key}")
                for key in ("playing", "idle", "offline", "alerts")
            }
            assert counts == {"playing": "2", "idle": "0", "offline": "1", "alerts": "1"}
            said = page.text_content("button[data-show=offline]")
            assert said == "1 table offline", "a count with its noun in the plural it asks"
            assert page.text_content("[data-table=north-t2] .alert") == "table offline"
            link = page.get_attribute("[data-table=south-t1] a", "href")
            assert link.endswith("/watch") and link.startswith("http")

            page.select_option("#site", "south")
            assert page.locator(shown).all_inner_texts()[0].startswith("south-t1")
            assert page.locator(shown).count() == 1
            page.select_option("#site", "")
            page.click("button[data-show=offline]")
            assert [r.get_attribute("data-table") for r in page.locator(shown).all()] == [
                "north-t2"
            ]
            page.click("button[data-show=offline]")  # again: every table
            page.select_option("#sort", "moves")
            order = [r.get_attribute("data-table") for r in page.locator(shown).all()]
            assert order[0] == "north-t1" and len(order) == 3
            assert "sort=moves" in page.url  # a bookmark keeps the view

            page.select_option("#language", "de")
            page.wait_for_function(
                "() => document.querySelector('h1').textContent === 'Alle Tische'"
            )
            assert page.text_content("[data-table=north-t2] .alert") == "Tisch offline"
            assert page.text_content("button[data-show=playing]") == "2 Tische spielen"
            assert page.text_content("button[data-show=offline]") == "1 Tisch offline"
            assert page.text_content("[data-table=north-t1] .game") == "Hasenjagd"
            # the seat to move in the page's language, not as the table named it
            assert page.text_content("[data-table=north-t1] .to-move") in ("die Jäger", "der Hase")
        finally:
            chromium.close()


def test_a_page_that_falls_behind_is_sent_the_whole_fleet_instead_of_what_it_missed():
    fleet = Fleet(Broker.from_url("mqtt://127.0.0.1:1"))  # never started: no broker needed
    fleet._loop = asyncio.new_event_loop()
    try:
        for name in ("north-t1", "north-t2"):
            fleet._take(name, "status", "online")
        page = Watcher(fleet, None, None)
        for plies in range(BEHIND + 5):
            state = {"table": "north-t1", "game": "catch_the_hare", "plies": plies}
            fleet._take("north-t1", "state", json.dumps(state))
            page.offer(json.dumps({"rows": {"north-t1": {"plies": plies}}}))
        waiting = [json.loads(text) for text in page._waiting]
        assert len(waiting) < BEHIND
        caught_up = next(m for m in waiting if m.get("whole"))
        assert set(caught_up["rows"]) == {"north-t1", "north-t2"}
        assert waiting[-1]["rows"]["north-t1"]["plies"] == BEHIND + 4
    finally:
        fleet._loop.close()


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
