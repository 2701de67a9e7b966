"""The simulated table's virtual board for every game: a game with a board answers
its virtual board, one played on the panel says in words (404) that it has none, on
every /api/sim route, never a 500."""

from __future__ import annotations

import asyncio

import pytest
from fastapi.testclient import TestClient

from boardref.outputs.panel.api import build_app
from boardref.runtime.config import load_config
from boardref.runtime.service import Service
from engines import GAMES
from tests.boardref.outputs.panel.test_panel import LOCAL

#: the games a simulated table plays on the panel, with no board
PANEL_GAMES = {"fang_den_hut_cards", "haegar"}
ROUTES = [
    ("get", "/api/sim/board", None),
    ("get", "/api/sim/virtual", None),
    ("post", "/api/sim/lift", {"cell": "a1"}),
    ("post", "/api/sim/lift", {"off": "tray"}),
    ("post", "/api/sim/place", {"cell": "a1", "piece": 0}),
    ("post", "/api/sim/place", {"off": "tray", "piece": 0}),
    ("post", "/api/sim/unpack", {"piece": 0}),
]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_sim_route_answers_in_words(game, tmp_path):
    config = load_config(**{"store.path": tmp_path / "log.db", "game.name": game})
    service = Service(config, asyncio.new_event_loop(), sim=True)
    try:
        client = TestClient(build_app(service.panel), client=LOCAL, base_url="http://localhost")
        boardless = service.virtual is None
        assert boardless == (game in PANEL_GAMES)
        for method, path, body in ROUTES:
            answer = getattr(client, method)(path, **({} if body is None else {"json": body}))
            assert answer.status_code < 500, (path, body, answer.text)
            if boardless:
                assert answer.status_code == 404, (path, answer.text)
                assert answer.json()["said"]["key"] == "server.played_on_panel"
        if not boardless:
            assert client.get("/api/sim/virtual").json()["stacks"]
    finally:
        service.close()
