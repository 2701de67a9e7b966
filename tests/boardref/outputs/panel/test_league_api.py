"""The league's routes (TestClient): who may read and change players, seats, seasons
and ratings, and the standings as JSON and CSV; every refusal in words."""

from __future__ import annotations

import threading

import pytest

from boardref.eventlog.league_games import Outcome, row_statement
from boardref.league import ledger
from boardref.runtime.config import load_config
from tests.boardref.conftest import PIN, PIN_HASH, started
from tests.boardref.outputs.panel.test_panel import LOCAL, REMOTE, client


@pytest.fixture
def cafe(tmp_path):
    config = load_config(
        **{
            "store.path": tmp_path / "cafe.db",
            "game.name": "fang_den_hut_cards",
            "game.players": 3,
            "panel.referee_pin_hash": PIN_HASH,
        }
    )
    service = started(config)
    yield service
    service.close()


def referee_of(service):
    referee = client(service, ("192.168.1.2", 5000))
    assert referee.post("/api/referee/login", json={"pin": PIN}).status_code == 200
    return referee


def test_only_the_referee_changes_players_and_the_table_may_list_them(cafe):
    kiosk, phone, referee = client(cafe, LOCAL), client(cafe, REMOTE), referee_of(cafe)
    assert kiosk.post("/api/players", json={"name": "Anna"}).status_code == 403
    assert phone.get("/api/players").status_code == 403
    anna = referee.post("/api/players", json={"name": "Anna"}).json()
    ben = referee.post("/api/players", json={"name": "Ben"}).json()
    taken = referee.post(f"/api/players/{ben['id']}/rename", json={"name": "anna"})
    assert taken.status_code == 409 and taken.json()["said"]["key"] == "league.name_taken"
    assert referee.post(f"/api/players/{ben['id']}/merge", json={"into": anna["id"]}).json() == {
        "id": anna["id"],
        "name": "Anna",
        "games": 0,
    }
    missing = referee.post(f"/api/players/{ben['id']}/delete", json={})
    assert missing.status_code == 404 and "no player" in missing.json()["detail"]
    assert [p["name"] for p in kiosk.get("/api/players").json()] == ["Anna"]
    assert referee.post(f"/api/players/{anna['id']}/delete", json={}).status_code == 200
    assert kiosk.get("/api/players").json() == []


def test_a_phone_names_its_own_seat_only(cafe):
    kiosk, phone = client(cafe, LOCAL), client(cafe, REMOTE)
    game_id = cafe.referee.game_id
    token = cafe.panel.seats.token(game_id, 1)
    mine = phone.post("/api/players/seat", json={"seat": 1, "token": token, "name": " Cleo "})
    assert mine.status_code == 200 and mine.json() == {"game_id": game_id, "seats": {"1": "Cleo"}}
    other = phone.post("/api/players/seat", json={"seat": 0, "token": token, "name": "Cleo"})
    assert other.status_code == 403
    twice = kiosk.post("/api/players/seat", json={"seat": 0, "name": "cleo"})
    assert twice.status_code == 409 and "already plays seat 2" in twice.json()["detail"]
    assert kiosk.post("/api/players/seat", json={"seat": 5, "name": "Dora"}).status_code == 404
    assert kiosk.post("/api/players/seat", json={"seat": 1}).json()["seats"] == {}
    assert phone.get("/api/players/seated").json() == {"game_id": game_id, "seats": {}}


def test_standings_and_seasons_are_read_by_anyone_and_set_by_the_referee(cafe):
    phone, referee = client(cafe, REMOTE), referee_of(cafe)
    season = {"name": "Winter", "first": "2026-12-01", "last": "2027-02-28"}
    assert phone.post("/api/seasons", json=season).status_code == 403
    assert referee.post("/api/seasons", json=season).status_code == 200
    backwards = referee.post("/api/seasons", json=season | {"last": "2026-11-01"})
    assert (
        backwards.status_code == 422
        and backwards.json()["said"]["key"] == "league.season_backwards"
    )
    assert phone.get("/api/seasons").json() == [season]
    found = phone.get("/api/standings", params={"game": "fang_den_hut_cards", "season": "winter"})
    assert found.json() == {
        "game": "fang_den_hut_cards",
        "season": season,
        "provisional_below": 5,
        "rows": [],
    }
    sheet = phone.get("/api/standings.csv", params={"game": "sternhalma", "season": "Winter"})
    assert sheet.headers["content-type"].startswith("text/csv")
    assert 'filename="standings-sternhalma-Winter.csv"' in sheet.headers["content-disposition"]
    assert sheet.text.startswith("place,player,")
    assert phone.get("/api/standings", params={"game": "chess"}).status_code == 404
    unknown = phone.get("/api/standings", params={"game": "sternhalma", "season": "Spring"})
    assert unknown.status_code == 404 and unknown.json()["detail"] == "There is no season Spring"
    assert referee.post("/api/seasons/delete", json={"name": "Winter"}).status_code == 200
    open_game = referee.post(f"/api/games/{cafe.referee.game_id}/rated", json={"rated": True})
    assert open_game.status_code == 409


def test_a_rematch_keeps_the_named_players_in_their_seats(cafe):
    kiosk = client(cafe, LOCAL)
    for seat, name in ((0, "Anna"), (2, "Ben")):
        assert kiosk.post("/api/players/seat", json={"seat": seat, "name": name}).status_code == 200
    before = cafe.referee.game_id
    assert kiosk.post("/api/rematch", json={}).status_code == 200
    seated = kiosk.get("/api/players/seated").json()
    assert seated["game_id"] != before and seated["seats"] == {"0": "Anna", "2": "Ben"}


def test_the_table_answers_while_its_standings_are_worked_out(cafe, monkeypatch):
    history = cafe.history
    anna = history.players.add("Anna")
    ended = Outcome(
        1,
        "fang_den_hut_cards",
        "2026-11-29T20:00:00Z",
        (None,) * 3,
        ((0,), (1,), (2,)),
        (1.0, 2.0, 2.0),
        (0,),
        True,
        True,
    )
    history.store.write([row_statement(ended, 1e9)])
    history.players.seat(1, 0, anna.id)
    rating, held = threading.Event(), threading.Event()
    rate = ledger.rate

    def slow(game, rated):  # a rating that takes as long as the test wants
        rating.set()
        assert held.wait(60)
        rate(game, rated)

    monkeypatch.setattr(ledger, "rate", slow)
    with client(cafe, REMOTE) as phone:
        asked = {}
        standings = threading.Thread(
            target=lambda: asked.update(
                reply=phone.get("/api/standings", params={"game": "fang_den_hut_cards"})
            )
        )
        standings.start()
        try:
            assert rating.wait(60)
            # one event loop serves both: it answers while the rating is under way
            assert phone.get("/api/health").status_code == 200
            assert phone.get("/api/players/seated").status_code == 200
            assert "reply" not in asked
        finally:
            held.set()
            standings.join(60)
    assert [row["player"] for row in asked["reply"].json()["rows"]] == ["Anna"]


def test_a_push_says_the_seats_names_may_have_changed_only_when_they_may_have(cafe):
    """A page asks for the seats' names after a push whose ``names_seq`` is new: a
    seat named or a player renamed makes one, a move does not."""
    kiosk, referee = client(cafe, LOCAL), referee_of(cafe)
    before = kiosk.get("/api/state").json()
    assert kiosk.post("/api/draw", json={}).status_code == 200  # the deal
    dealt = kiosk.get("/api/state").json()
    assert dealt["seq"] > before["seq"] and dealt["names_seq"] == before["names_seq"]
    anna = kiosk.post("/api/players/seat", json={"seat": 0, "name": "Anna"})
    assert anna.status_code == 200
    named = kiosk.get("/api/state").json()
    assert named["names_seq"] == named["seq"] > dealt["seq"]
    player = referee.get("/api/players").json()[0]["id"]
    assert referee.post(f"/api/players/{player}/rename", json={"name": "Ann"}).status_code == 200
    renamed = kiosk.get("/api/state").json()
    assert renamed["names_seq"] == renamed["seq"] > named["seq"]
    assert kiosk.get("/api/players/seated").json()["seats"] == {"0": "Ann"}
