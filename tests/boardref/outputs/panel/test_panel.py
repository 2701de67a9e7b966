"""The panel's API and WebSocket, with FastAPI's TestClient, on a service without
sensors (the referee is fed readings by hand)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from boardref.outputs.panel.access import PIN_ATTEMPTS
from boardref.outputs.panel.api import build_app
from boardref.runtime.config import load_config
from tests.boardref.conftest import PIN, started

LOCAL = ("127.0.0.1", 50000)
REMOTE = ("192.168.1.30", 50000)


@pytest.fixture
def card_table(tmp_path):
    """A table for the card game: no board, moves are tapped on the panel."""
    config = load_config(
        **{
            "store.path": tmp_path / "cards.db",
            "game.name": "fang_den_hut_cards",
            "game.players": 3,
        }
    )
    service = started(config)
    yield service
    service.close()


def client(service, where=LOCAL) -> TestClient:
    return TestClient(build_app(service.panel), client=where, base_url="http://localhost")


def lay_out(service, state=None) -> None:
    referee = service.referee
    state = referee.game.initial_state() if state is None else state
    referee.sense(referee.game.sense(state, "presence"), 100.0)
    referee.tick(101.0)


def play_on_board(service, move=None):
    """Set ``move`` (by default the first legal one) down on the hall sensors and let
    the reading settle; the move played."""
    referee = service.referee
    state = referee.positions[-1]
    move = referee.game.legal_moves(state)[0] if move is None else move
    referee.sense(referee.game.sense(referee.game.apply(state, move), "presence"), 200.0)
    referee.tick(201.0)
    return move


def test_the_state_and_the_board_are_there_to_read(service):
    local = client(service)
    state = local.get("/api/state").json()
    assert state["game"] == "sternhalma" and state["phase"] == "setup"
    assert state["notice"]["key"] == "referee.setup" and state["seats"][0]["name"] == "red"
    board = local.get("/api/board").json()
    assert len(board["cells"]) == 121 and board["lines"]
    assert {g["name"] for g in local.get("/api/catalogue").json()} >= {
        "sternhalma",
        "catch_the_hare",
    }
    assert local.get("/api/health").json()["status"] == "ok"


@pytest.mark.parametrize("page", ["/table", "/watch", "/referee", "/sim", "/play/1"])
def test_every_page_is_served_with_its_role(service, page):
    response = client(service).get(page)
    assert response.status_code == 200
    assert f'data-role="{page.split("/")[1]}"' in response.text


def test_pages_and_languages_that_do_not_exist_are_404(service):
    local = client(service)
    assert local.get("/play/7").status_code == 404
    assert local.get("/i18n/fr.json").status_code == 404
    assert "Würfeln" in local.get("/i18n/de.json").json()["draw"]


def test_the_websocket_pushes_every_change(service):
    with client(service).websocket_connect("ws://localhost/ws") as socket:
        assert socket.receive_json()["phase"] == "setup"
        lay_out(service)
        assert socket.receive_json()["phase"] == "move"


def test_the_table_acts_and_others_may_not(service):
    lay_out(service)
    move = play_on_board(service)
    assert client(service, REMOTE).post("/api/takeback", json={}).status_code == 403
    response = client(service).post("/api/takeback", json={})
    assert response.status_code == 200 and response.json()["detail"] == str(move)
    refused = client(service).post("/api/draw", json={})
    assert refused.status_code == 409 and refused.json()["said"]["key"] == "referee.nothing_to_draw"


def test_a_post_from_another_site_is_refused(service):
    response = client(service).post(
        "/api/takeback", json={}, headers={"Origin": "http://evil.example"}
    )
    assert response.status_code == 403 and "other sites" in response.json()["detail"]
    same = client(service).post("/api/confirm", json={}, headers={"Origin": "http://localhost"})
    assert same.status_code == 409  # passed the check; nothing to confirm


@pytest.mark.slow
@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/game", {"game": 5}),
        ("/api/game", {"game": "sternhalma", "colour": "red"}),
        ("/api/choose", {}),
        ("/api/sim/lift", {"cell": "../../etc"}),
        ("/api/referee/login", {"pin": ""}),
        ("/api/draw", {"seat": 99}),
    ],
)
def test_malformed_bodies_are_refused_before_anything_happens(service, path, body):
    before = len(service.referee.log)
    assert client(service).post(path, json=body).status_code == 422
    assert len(service.referee.log) == before


def test_a_new_game_from_the_table(service):
    local = client(service)
    first_code = local.get("/api/qr/0").content
    assert local.get("/api/qr/0").content == first_code  # the same seat, the same code
    response = local.post("/api/game", json={"game": "sternhalma", "players": 3})
    assert response.status_code == 200
    assert local.get("/api/state").json()["players"] == 3
    assert local.get("/api/qr/0").content != first_code, "the new game's seat has a new code"
    other_board = local.post("/api/game", json={"game": "catch_the_hare"})
    assert other_board.status_code == 409 and "wired for" in other_board.json()["detail"]
    bad = local.post("/api/game", json={"game": "sternhalma", "options": {"blocked_goal": 3}})
    assert bad.status_code == 409 and "must be bool" in bad.json()["detail"]


def test_a_table_without_a_board_may_switch_games(card_table):
    local = client(card_table)
    response = local.post(
        "/api/game", json={"game": "catch_the_hare", "options": {"board": "no_diagonal"}}
    )
    assert response.status_code == 200
    state = local.get("/api/state").json()
    assert state["game"] == "catch_the_hare" and state["sensor"] == "panel"
    assert len(local.get("/api/board").json()["cells"]) == 25
    assert state["moves"], "an open game shows its moves to every page"


def test_a_player_acts_only_with_the_seat_token_and_only_on_their_turn(service):
    local = client(service)
    lay_out(service)
    qr = local.get("/api/qr/0")
    assert qr.status_code == 200 and qr.headers["content-type"] == "image/svg+xml"
    assert client(service, REMOTE).get("/api/qr/0").status_code == 403
    phone = client(service, REMOTE)
    token = service.panel.seats.token(service.referee.game_id, 0)
    other = service.panel.seats.token(service.referee.game_id, 1)
    assert phone.post("/api/confirm", json={"seat": 0, "token": "nope"}).status_code == 403
    assert phone.post("/api/confirm", json={"seat": 1, "token": other}).status_code == 403
    assert phone.post("/api/confirm", json={"seat": 0, "token": token}).status_code == 409
    assert phone.get("/api/state", params={"seat": 0, "token": "x"}).status_code == 403
    mine = phone.get("/api/state", params={"seat": 0, "token": token}).json()
    # an open game hides nothing: the phone draws the public record, no private view
    assert mine["view"] is None and mine["record"]["pieces"]


def test_the_referee_logs_in_with_the_pin_and_may_correct(service):
    lay_out(service)
    phone = client(service, REMOTE)
    assert phone.post("/api/correct", json={"move": "l4-k5"}).status_code == 403
    assert phone.get("/api/correction").status_code == 403
    assert phone.get("/api/diagnostics").status_code == 403
    assert phone.post("/api/referee/login", json={"pin": "0000"}).status_code == 403
    login = phone.post("/api/referee/login", json={"pin": PIN})
    assert login.status_code == 200
    cookie = login.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie
    misread = str(play_on_board(service))
    choices = phone.get("/api/correction").json()
    assert (
        choices["replaces"] == misread
        and {"move": "l4-k5", "path": ["l4", "k5"], "cells": ["k5", "l4"]} in choices["moves"]
    )
    assert phone.post("/api/correct", json={"move": "l4-k5"}).status_code == 200
    assert service.referee.log[-2:] == [
        ("takeback", {"move": misread}),
        ("move", {"move": "l4-k5", "seat": 0, "corrected": True}),
    ]
    refused = phone.post("/api/correct", json={"move": "zz9-a1"})
    assert refused.status_code == 409 and "no cell" in refused.json()["detail"]
    assert phone.get("/api/diagnostics").json()["sensor"] == "presence"
    phone.post("/api/referee/logout", json={})
    assert phone.post("/api/correct", json={"move": "a1-a2"}).status_code == 403


@pytest.mark.slow
def test_pin_attempts_are_rate_limited(service):
    guesser = client(service, ("10.0.0.9", 1))
    for _ in range(PIN_ATTEMPTS):
        assert guesser.post("/api/referee/login", json={"pin": "1111"}).status_code == 403
    blocked = guesser.post("/api/referee/login", json={"pin": PIN})
    assert blocked.status_code == 429 and int(blocked.headers["retry-after"]) > 0
    other = client(service, ("10.0.0.10", 1))
    assert other.post("/api/referee/login", json={"pin": PIN}).status_code == 200


def test_reading_never_changes_anything(service):
    local = client(service)
    before = (len(service.referee.log), service.referee.phase)
    for path in (
        "/",
        "/table",
        "/api/state",
        "/api/board",
        "/api/catalogue",
        "/api/health",
        "/api/qr/0",
        "/api/referee/session",
        "/openapi.json",
    ):
        assert local.get(path).status_code == 200
    assert (len(service.referee.log), service.referee.phase) == before


def test_the_virtual_board_exists_only_on_a_simulated_table(service):
    local = client(service)
    assert local.get("/api/sim/board").status_code == 404
    assert local.post("/api/sim/lift", json={"cell": "m1"}).status_code == 404


def test_the_referee_tunes_the_settle_time(service):
    phone = client(service, REMOTE)
    assert phone.post("/api/settings", json={"settle_ms": 500}).status_code == 403
    phone.post("/api/referee/login", json={"pin": PIN})
    assert phone.post("/api/settings", json={"settle_ms": 5}).status_code == 422
    assert phone.post("/api/settings", json={"settle_ms": 500}).status_code == 200
    assert service.referee.settle == 0.5
    assert phone.get("/api/diagnostics").json()["settle_ms"] == 500


def test_a_card_table_is_played_on_the_panel_and_only_the_mover_sees_the_moves(card_table):
    local = client(card_table)
    state = local.get("/api/state").json()
    assert state["sensor"] == "panel" and state["phase"] == "chance"
    assert local.post("/api/draw", json={}).status_code == 200  # shuffle and deal
    state = local.get("/api/state").json()
    assert state["phase"] == "move" and state["moves"] == [], "hands are hidden from the table"
    assert state["last_draw"] is None, "the shuffled deck is never shown"
    mover = state["to_move"]
    seats = card_table.panel.seats
    game_id = card_table.referee.game_id
    token = seats.token(game_id, mover)
    phone = client(card_table, REMOTE)
    mine = phone.get("/api/state", params={"seat": mover, "token": token}).json()
    assert mine["moves"]
    other = (mover + 1) % 3
    other_token = seats.token(game_id, other)
    theirs = phone.get("/api/state", params={"seat": other, "token": other_token}).json()
    assert theirs["moves"] == []
    wrong = phone.post(
        "/api/play", json={"move": mine["moves"][0], "seat": other, "token": other_token}
    )
    assert wrong.status_code == 403
    played = phone.post("/api/play", json={"move": mine["moves"][0], "seat": mover, "token": token})
    assert played.status_code == 200
    assert card_table.referee.log[-1][1]["move"] == mine["moves"][0]
    assert local.post("/api/sim/lift", json={"cell": "deck"}).status_code == 404


def test_a_board_table_refuses_moves_tapped_on_the_panel(service):
    lay_out(service)
    refused = client(service).post("/api/play", json={"move": "l4-k5"})
    assert refused.status_code == 409 and "read from the board" in refused.json()["detail"]


def test_open_games_show_their_record_and_hidden_hands_never_do(service, card_table):
    record = client(service).get("/api/state").json()["record"]
    assert record["turn"] == 0 and len(record["pieces"]) == 2
    client(card_table).post("/api/draw", json={})
    assert client(card_table).get("/api/state").json()["record"] is None


def test_the_card_table_shows_the_open_stacks_and_the_board_its_data(card_table):
    local = client(card_table)
    local.post("/api/draw", json={})
    mover = local.get("/api/state").json()["to_move"]
    token = card_table.panel.seats.token(card_table.referee.game_id, mover)
    phone = client(card_table, REMOTE)  # the one phone that joined the mover's seat
    move = phone.get("/api/state", params={"seat": mover, "token": token}).json()["moves"][0]
    phone.post("/api/play", json={"move": move, "seat": mover, "token": token})
    report = local.get("/api/state").json()["report"]
    assert report["table"] and report["table"][0]["cards"] >= 1
    assert "hand" not in str(report), "the report is public: no hands"
    assert local.get("/api/board").json()["game"], "the board file's [game] data is served"


def test_the_games_list_names_the_seats_for_each_player_count(service):
    games = {g["name"]: g for g in client(service).get("/api/catalogue").json()}
    seats = games["catch_the_hare"]["seat_names"]["2"]
    assert [seat["key"] for seat in seats] == ["seat.the_hunters", "seat.the_hare"]
    assert len(games["sternhalma"]["seat_names"]["6"]) == 6
    hunters = next(o for o in games["catch_the_hare"]["options"] if o["name"] == "min_hunters")
    assert hunters["minimum"] == 1


@pytest.mark.slow
def test_join_codes_point_where_phones_reach_and_say_when_they_cannot(tmp_path, monkeypatch):
    from boardref.outputs.panel import address

    monkeypatch.setattr(address, "lan_address", lambda: "192.168.1.20")
    cases = [
        ({}, "http://127.0.0.1:8000", True),
        ({"panel.host": "0.0.0.0", "panel.port": 8123}, "http://192.168.1.20:8123", False),
        ({"panel.public_url": "http://table.local:80/"}, "http://table.local:80", False),
    ]
    for n, (settings, url, loopback) in enumerate(cases):
        config = load_config(**{"store.path": tmp_path / f"{n}.db", **settings})
        service = started(config)
        try:
            assert client(service, REMOTE).get("/api/join").json() == {
                "url": url,
                "loopback": loopback,
            }
        finally:
            service.close()


def test_a_phone_learns_whether_its_token_has_joined_the_game(service):
    phone = client(service, REMOTE)
    token = service.panel.seats.token(service.referee.game_id, 1)
    assert phone.get("/api/join/1", params={"token": token}).json()["ok"] is True
    assert phone.get("/api/join/1").json()["ok"] is False
    assert phone.get("/api/join/0", params={"token": token}).json()["ok"] is False
    client(service).post("/api/game", json={"game": "sternhalma", "players": 2})
    assert phone.get("/api/join/1", params={"token": token}).json()["ok"] is False


def test_the_position_editor_round_trips_the_state_record_and_the_full_one(service):
    lay_out(service)
    referee = client(service, REMOTE)
    assert referee.get("/api/position").status_code == 403
    assert referee.post("/api/referee/login", json={"pin": PIN}).status_code == 200
    full = referee.get("/api/position").json()["record"]
    assert full["game"] == "sternhalma" and full["state"]["ply"] == 0
    shown = referee.get("/api/state").json()["record"]
    moved = {**shown, "pieces": [[*shown["pieces"][0][1:], "k5"], shown["pieces"][1]]}
    assert referee.post("/api/position", json={"record": moved}).status_code == 200
    assert referee.get("/api/state").json()["position"]["k5"] == "red"
    assert referee.post("/api/position", json={"record": full}).status_code == 200
    assert referee.get("/api/position").json()["record"] == full


def test_the_api_docs_and_the_icon_are_served_from_this_machine(service):
    local = client(service)
    docs = local.get("/api/docs").text
    assert "/api/docs/assets/swagger-ui-bundle.js" in docs and "cdn" not in docs.lower()
    assert local.get("/api/docs/assets/swagger-ui-bundle.js").status_code == 200
    assert local.get("/api/docs/assets/swagger-ui.css").status_code == 200
    icon = local.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"] == "image/svg+xml"


def test_every_pushed_state_is_numbered_after_the_last_within_its_service_run(service):
    from boardref.outputs.panel.panel import Panel

    with client(service).websocket_connect("ws://localhost/ws") as socket:
        first = socket.receive_json()
        lay_out(service)
        second = socket.receive_json()
        play_on_board(service)
        third = socket.receive_json()
    assert first["run"] == second["run"] == third["run"]
    assert first["seq"] < second["seq"] < third["seq"]
    # a service started again is another run: its pages take its states afresh
    assert Panel(service, None, service.displays.shown, service.panel.control).run != first["run"]
