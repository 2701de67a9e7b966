"""The played games name their players (TestClient): the list gives each game's named
seats, and a replay the names its record carries."""

from __future__ import annotations

from tests.boardref.eventlog.test_history import play_to_the_end
from tests.boardref.outputs.panel.test_league_api import cafe  # noqa: F401 - a fixture
from tests.boardref.outputs.panel.test_panel import LOCAL, client


def test_the_list_and_the_replay_name_the_seats_that_were_named(cafe):  # noqa: F811
    kiosk = client(cafe, LOCAL)
    played = play_to_the_end(cafe.store, "catch_the_hare", referee=cafe.referee)
    # the game just ended can still be named, until the next one starts
    assert kiosk.post("/api/players/seat", json={"seat": 1, "name": "Anna"}).status_code == 200
    page = kiosk.get("/api/games").json()
    assert [game["id"] for game in page["games"]] == [played.game_id]
    assert page["names"] == {str(played.game_id): {"1": "Anna"}}
    replayed = kiosk.get(f"/api/games/{played.game_id}/replay").json()
    assert replayed["names"] == {"1": "Anna"}
    record = kiosk.get(f"/api/games/{played.game_id}").json()
    assert record["tags"]["Player2"] == "Anna"  # the replay's names are the record's
    # an anonymous seat is in neither
    assert kiosk.post("/api/players/seat", json={"seat": 1}).status_code == 200
    assert kiosk.get("/api/games").json()["names"] == {}
    assert kiosk.get(f"/api/games/{played.game_id}/replay").json()["names"] == {}
