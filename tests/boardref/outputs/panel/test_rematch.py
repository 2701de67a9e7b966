"""A rematch through the panel's API (TestClient): the same game, variants and
computer seats start again, and a phone that held a seat is told its new token, no
other phone."""

from __future__ import annotations

from tests.boardref.outputs.panel.test_panel import LOCAL, REMOTE, card_table, client  # noqa: F401 - a fixture

BODY = {"game": "fang_den_hut_cards", "players": 3, "options": {"single_game": True},
        "computer": [2], "level": "easy"}


def test_a_rematch_starts_the_same_game_with_the_same_seats(card_table):  # noqa: F811
    local = client(card_table, LOCAL)
    assert local.post("/api/game", json=BODY).status_code == 200
    referee = card_table.referee
    before, old = referee.game_id, local.get("/api/state").json()
    assert local.post("/api/rematch", json={}).status_code == 200
    now = local.get("/api/state").json()
    assert referee.game_id != before and now["commitment"] != old["commitment"]
    for field in ("game", "players", "options", "computer"):
        assert now[field] == old[field], field
    assert referee.level == "easy"


def test_a_phone_of_the_game_before_is_told_its_new_token_and_no_other(card_table):  # noqa: F811
    local, phone = client(card_table, LOCAL), client(card_table, REMOTE)
    seats, referee = card_table.panel.seats, card_table.referee
    old = [seats.token(referee.game_id, seat) for seat in range(3)]
    assert phone.get("/api/rejoin/0", params={"token": old[0]}).json() == {"token": None}
    assert local.post("/api/rematch", json={}).status_code == 200
    new = [seats.token(referee.game_id, seat) for seat in range(3)]
    assert phone.get("/api/rejoin/0", params={"token": old[0]}).json() == {"token": new[0]}
    assert phone.get("/api/rejoin/1", params={"token": old[0]}).json() == {"token": None}
    assert phone.get("/api/rejoin/1", params={"token": "guess"}).json() == {"token": None}
    # only the table and the referee start one; after another new game, nobody rejoins
    assert phone.post("/api/rematch", json={}).status_code == 403
    assert local.post("/api/game", json=BODY).status_code == 200
    assert phone.get("/api/rejoin/0", params={"token": new[0]}).json() == {"token": None}
