"""Hidden hands stay hidden: the card game played through the real service (a real
uvicorn, a real mosquitto), every HTTP reply, WebSocket frame and MQTT message kept,
and none may name a card its audience may not see: a seat sees its own hand and the
cards played; the table page, a spectator and the café's broker only the cards
played."""

from __future__ import annotations

import asyncio
import json
import re
import threading

import httpx
import paho.mqtt.client as mqtt
import pytest
import websockets

from boardref.outputs.panel.seats import DEVICE_COOKIE
from boardref.runtime.config import load_config
from boardref.runtime.service import Service
from tests.boardref.outputs.panel.test_hardening import RealServer
from tests.boardref.outputs.test_fleet import MOSQUITTO, Mosquitto, until

PLAYERS = 3
MOVES = 9

pytestmark = pytest.mark.skipif(not MOSQUITTO, reason="mosquitto is missing")


class Everything:
    """What each audience received, as text."""

    def __init__(self):
        self.heard: dict[str, list[str]] = {}
        self.lock = threading.Lock()

    def add(self, audience: str, text: str) -> None:
        with self.lock:
            self.heard.setdefault(audience, []).append(text)


def listen_to_the_broker(port: int, everything: Everything) -> mqtt.Client:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="eavesdropper")
    client.on_connect = lambda c, u, f, r, p: c.subscribe("#", qos=1)
    client.on_message = lambda c, u, m: everything.add("fleet", m.payload.decode("utf-8"))
    client.connect("127.0.0.1", port)
    client.loop_start()
    return client


async def watch(
    url: str, audience: str, everything: Everything, stop: threading.Event, cookie: str
) -> None:
    async with websockets.connect(url, additional_headers={"Cookie": cookie}) as socket:
        while not stop.is_set():
            try:
                frame = await asyncio.wait_for(socket.recv(), 0.2)
            except TimeoutError:
                continue
            everything.add(audience, frame)
            everything.add("frames", audience)


async def watch_all(watchers: dict[str, str], everything: Everything, stop, cookie: str) -> None:
    await asyncio.gather(
        *(watch(url, who, everything, stop, cookie) for who, url in watchers.items())
    )


@pytest.mark.broker
def test_no_reply_frame_or_message_names_a_card_its_audience_may_not_see(tmp_path):
    broker = Mosquitto(tmp_path)
    broker.start()
    everything = Everything()
    eavesdropper = listen_to_the_broker(broker.port, everything)
    config = load_config(
        **{
            "store.path": tmp_path / "cards.db",
            "game.name": "fang_den_hut_cards",
            "game.players": PLAYERS,
            "fleet.url": broker.url,
            "fleet.table_id": "cards",
        }
    )
    service = Service(config, asyncio.new_event_loop())
    referee, seats = service.referee, service.panel.seats
    try:
        with RealServer(service) as base:
            tokens = [seats.token(referee.game_id, seat) for seat in range(PLAYERS)]
            http = httpx.Client(base_url=base)
            for seat, token in enumerate(tokens):  # one phone joins every seat: its mark
                assert http.get(f"/api/join/{seat}", params={"token": token}).json()["ok"]
            cookie = f"{DEVICE_COOKIE}={http.cookies[DEVICE_COOKIE]}"
            ws = base.replace("http", "ws") + "/ws"
            watchers = {
                "table": ws,
                "spectator": f"{ws}?seat=0&token=guessed",
                **{f"seat{s}": f"{ws}?seat={s}&token={tokens[s]}" for s in range(PLAYERS)},
            }
            stop = threading.Event()
            watching = threading.Thread(
                target=lambda: asyncio.run(watch_all(watchers, everything, stop, cookie)),
                daemon=True,
            )
            watching.start()
            until(lambda: len(everything.heard.get("frames", ())) >= 5, "every page's first frame")

            def hear(audience: str, response: httpx.Response) -> httpx.Response:
                everything.add(audience, response.text)
                return response

            hear("table", http.post("/api/draw", json={}))  # shuffle and deal
            for _ in range(MOVES):
                hear("table", http.get("/api/state"))
                hear("spectator", http.get("/api/state", params={"seat": 1, "token": "x"}))
                seat = referee.published.to_move
                mine = {"seat": seat, "token": tokens[seat]}
                view = hear(f"seat{seat}", http.get("/api/state", params=mine)).json()["view"]
                move = view["moves"][0]
                pushed = len(everything.heard["frames"])
                hear(f"seat{seat}", http.post("/api/play", json={"move": move, **mine}))
                # a page is sent the newest of the states that come close together: each
                # move is let through to every page before the next, so every page
                # sees every move's state (the pages' own pace, not a test's burst)
                until(
                    lambda n=pushed: len(everything.heard["frames"]) >= n + len(watchers),
                    "every page's frame of the move",
                )
            until(lambda: not service.store.waiting(), "the outbox to empty")
            stop.set()
            watching.join(10)
    finally:
        eavesdropper.loop_stop()
        service.close()
        broker.stop()

    game, state = referee.game, referee.current()
    deck = set(game.deck)
    played = {
        part
        for kind, data in referee.log
        if kind == "move"
        for part in data["move"].split(":")
        if part in deck
    }
    assert played, "cards were played"
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(deck, key=len))) + r")\b")
    frames = everything.heard.pop("frames")
    assert set(frames) == set(watchers) and len(frames) > 5 * MOVES, "every page was pushed to"
    assert {"table", "spectator", "fleet", "seat0", "seat1", "seat2"} <= set(everything.heard)
    assert any('"kind": "chance"' in text for text in everything.heard["fleet"])
    for audience, texts in everything.heard.items():
        own = set(state.hands[int(audience[4:])]) if audience.startswith("seat") else set()
        hidden = deck - played - own
        for text in texts:
            leaked = set(pattern.findall(text)) & hidden
            assert not leaked, f"{audience} was told {sorted(leaked)[:5]} in {text[:200]}"
    # the seats do see their own hands
    for seat in range(PLAYERS):
        assert any(
            card in text for text in everything.heard[f"seat{seat}"] for card in state.hands[seat]
        )
    json.dumps(everything.heard)  # all of it was text
