"""A rematch through the panel's API (TestClient): the same game, variants and
computer seats start again with the start passed to the next player, and a phone that
held a seat is told its player's seat and new token, no other phone."""

from __future__ import annotations

from tests.boardref.outputs.panel.test_panel import LOCAL, REMOTE, card_table, client  # noqa: F401 - a fixture

BODY = {"game": "fang_den_hut_cards", "players": 3, "options": {"single_game": True},
        "computer": [2], "level": "easy"}


def test_a_rematch_starts_the_same_game_with_the_next_seat_starting(card_table):  # noqa: F811
    local = client(card_table, LOCAL)
    assert local.post("/api/game", json=BODY).status_code == 200
    referee = card_table.referee
    old = local.get("/api/state").json()
    assert old["options"]["first_seat"] == 0
    for first in (1, 2, 0):  # round the three seats, each starting once
        before = referee.game_id
        told = local.get("/api/rematch").json()
        assert told == {"starter": first, "first": first, "sides_change": False}
        assert local.post("/api/rematch", json={}).status_code == 200
        now = local.get("/api/state").json()
        assert referee.game_id != before and now["commitment"] != old["commitment"]
        for field in ("game", "players", "computer"):
            assert now[field] == old[field], field
        assert now["options"] == {**old["options"], "first_seat": first}
        assert now["to_move"] in (None, first)  # the cards are dealt first
    assert referee.level == "easy"


def test_in_catch_the_hare_the_players_change_sides(card_table):  # noqa: F811
    local, phone = client(card_table, LOCAL), client(card_table, REMOTE)
    hare = {"game": "catch_the_hare", "players": 2, "options": {}, "computer": [1]}
    assert local.post("/api/game", json=hare).status_code == 200
    referee, seats = card_table.referee, card_table.panel.seats
    held = seats.token(referee.game_id, 0)
    assert phone.get("/api/rejoin/0", params={"token": held}).json()["token"] is None  # joins
    assert local.post("/api/players/seat", json={"seat": 0, "name": "Anna"}).status_code == 200
    # the computer played the hare: its player starts the rematch, as the hunters
    told = local.get("/api/rematch").json()
    assert told == {"starter": 1, "first": 0, "sides_change": True}
    assert local.post("/api/rematch", json={}).status_code == 200
    now = local.get("/api/state").json()
    assert [seat["computer"] for seat in now["seats"]] == [True, False]
    assert local.get("/api/players/seated").json()["seats"] == {"1": "Anna"}
    fresh = seats.token(referee.game_id, 1)
    assert phone.get("/api/rejoin/0", params={"token": held}).json() == {"seat": 1, "token": fresh}
    # and back again
    assert local.post("/api/rematch", json={}).status_code == 200
    assert local.get("/api/players/seated").json()["seats"] == {"0": "Anna"}


def test_a_phone_of_the_game_before_is_told_its_new_token_and_no_other(card_table):  # noqa: F811
    local, phone = client(card_table, LOCAL), client(card_table, REMOTE)
    seats, referee = card_table.panel.seats, card_table.referee
    old = [seats.token(referee.game_id, seat) for seat in range(3)]
    nothing = {"seat": None, "token": None}
    assert phone.get("/api/rejoin/0", params={"token": old[0]}).json() == nothing
    assert local.post("/api/rematch", json={}).status_code == 200
    new = [seats.token(referee.game_id, seat) for seat in range(3)]
    rejoined = phone.get("/api/rejoin/0", params={"token": old[0]}).json()
    assert rejoined == {"seat": 0, "token": new[0]}
    assert phone.get("/api/rejoin/1", params={"token": old[0]}).json() == nothing
    assert phone.get("/api/rejoin/1", params={"token": "guess"}).json() == nothing
    # only the table and the referee start one; after another new game, nobody rejoins
    assert phone.post("/api/rematch", json={}).status_code == 403
    assert local.post("/api/game", json=BODY).status_code == 200
    assert phone.get("/api/rejoin/0", params={"token": new[0]}).json() == nothing
