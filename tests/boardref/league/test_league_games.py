"""The league from games played through the panel's API (TestClient): phones join
with a name, the table seats the café's players, whole card games are played by the
phones to the final score. The standings must equal openskill run independently here
over the records the panel serves; a game the referee corrected is left out until
the referee rates it; records imported into another table's log give the same rows."""

from __future__ import annotations

import json
import random

import pytest
from fastapi.testclient import TestClient
from openskill.models import PlackettLuce
from typer.testing import CliRunner

from boardref.cli.app import app as cli
from boardref.outputs.panel.api import build_app
from boardref.runtime.config import load_config
from tests.boardref.conftest import PIN, PIN_HASH, started
from tests.boardref.outputs.panel.test_panel import LOCAL

pytestmark = pytest.mark.slow

GAME = "fang_den_hut_cards"
NEW_GAME = {"game": GAME, "players": 3, "options": {"single_game": True}}


@pytest.fixture
def cafe(tmp_path):
    config = load_config(
        **{
            "store.path": tmp_path / "cafe.db",
            "game.name": GAME,
            "game.players": 3,
            "panel.referee_pin_hash": PIN_HASH,
        }
    )
    service = started(config)
    yield service
    service.close()


def client(service, where=LOCAL) -> TestClient:
    return TestClient(build_app(service.panel), client=where, base_url="http://localhost")


class Table:
    """The kiosk, the referee and a phone per seat of one café table."""

    def __init__(self, service):
        self.service = service
        self.kiosk = client(service)
        self.referee = client(service, ("192.168.1.2", 5000))
        assert self.referee.post("/api/referee/login", json={"pin": PIN}).status_code == 200
        self.phones = [client(service, (f"192.168.1.{30 + s}", 5000)) for s in range(3)]

    def new_game(self) -> int:
        assert self.kiosk.post("/api/game", json=NEW_GAME).status_code == 200
        return self.service.referee.game_id

    def token(self, seat: int) -> str:
        return self.service.panel.seats.token(self.service.referee.game_id, seat)

    def play_to_the_end(self, pick: random.Random, corrected_at: int | None = None) -> None:
        """Each phone plays a random move of its own hand when its seat is to move (the
        table deals); at ply ``corrected_at`` the referee replaces the last move with
        another one the rules allowed there."""
        for ply in range(500):
            shown = self.kiosk.get("/api/state").json()
            if shown["phase"] == "over":
                return
            if shown["phase"] == "chance":
                answer = self.kiosk.post("/api/draw", json={})
            elif corrected_at is not None and ply >= corrected_at:
                corrected_at = None
                choices = self.referee.get("/api/correction").json()
                other = [m["move"] for m in choices["moves"] if m["move"] != choices["replaces"]]
                answer = self.referee.post("/api/correct", json={"move": pick.choice(other)})
            else:
                seat = shown["to_move"]
                phone, token = self.phones[seat], self.token(seat)
                view = phone.get("/api/state", params={"seat": seat, "token": token}).json()
                body = {"seat": seat, "token": token, "move": pick.choice(view["moves"])}
                answer = phone.post("/api/play", json=body)
            assert answer.status_code == 200, answer.text
        raise AssertionError("the game did not end")

    def records(self) -> list[dict]:
        games = self.kiosk.get("/api/games", params={"game": GAME}).json()["games"]
        return [self.kiosk.get(f"/api/games/{g['id']}").json() | {"id": g["id"]} for g in games]

    def standings(self, **params) -> list[dict]:
        answer = self.kiosk.get("/api/standings", params={"game": GAME, **params})
        assert answer.status_code == 200, answer.text
        return answer.json()["rows"]


def independently(records: list[dict]) -> dict[str, tuple[float, float, list[int]]]:
    """openskill over the records as a reader of docs/league.md would run it: games in
    the order they ended (then began, then by commitment), only finished ones with no
    referee's hand in them, each named seat its own team, places by winners then score."""
    model, rated = PlackettLuce(), {}
    for record in sorted(records, key=lambda r: (r["end"], r["start"], r["commitment"], r["id"])):
        touched = any(
            e["kind"] == "position" or "corrected" in e.get("marks", ()) for e in record["entries"]
        )
        if record["result"] is None or (touched and record["tags"].get("Rated") != "yes"):
            continue
        names = [record["tags"].get(f"Player{s + 1}") for s in range(record["players"])]
        result = record["result"]
        place = [(s not in result["winners"], -(result["scores"] or [0] * 3)[s]) for s in range(3)]
        ranks = [sorted(set(place)).index(p) + 1 for p in place]
        teams = [[model.rating(*rated[n][:2]) if n in rated else model.rating()] for n in names]
        for name, [after] in zip(names, model.rate(teams, ranks=ranks), strict=True):
            if name is not None:
                games = rated.get(name, (0, 0, []))[2]
                rated[name] = (after.mu, after.sigma, [*games, record["id"]])
    return rated


def as_rated(rows: list[dict]) -> dict[str, tuple[float, float, list[int]]]:
    return {row["player"]: (row["mu"], row["sigma"], row["game_ids"]) for row in rows}


def assert_close(found: dict, expected: dict) -> None:
    assert found.keys() == expected.keys()
    for name, (mu, sigma, games) in expected.items():
        assert found[name][0] == pytest.approx(mu, abs=1e-3), name
        assert found[name][1] == pytest.approx(sigma, abs=1e-3), name
        assert found[name][2] == games, name


def test_the_standings_are_openskill_over_the_records(cafe, tmp_path):
    table, pick = Table(cafe), random.Random(45)
    # game 1: the phones join with their names
    table.new_game()
    for seat, name in enumerate(("Anna", "Ben", "Cleo")):
        body = {"seat": seat, "token": table.token(seat), "name": name}
        assert table.phones[seat].post("/api/players/seat", json=body).status_code == 200
    table.play_to_the_end(pick)
    players = {p["name"]: p["id"] for p in table.kiosk.get("/api/players").json()}
    assert set(players) == {"Anna", "Ben", "Cleo"}
    # games 2 and 3: the kiosk picks them from the café's players, seats rotated;
    # in game 3 seat 2 plays anonymously
    for seating in (("Ben", "Cleo", "Anna"), ("Cleo", "Anna", None)):
        table.new_game()
        for seat, name in enumerate(seating):
            if name is not None:
                body = {"seat": seat, "player": players[name]}
                assert table.kiosk.post("/api/players/seat", json=body).status_code == 200
        table.play_to_the_end(pick)
    # game 4: the referee puts a move in; the rest is played as before
    corrected = table.new_game()
    for seat, name in enumerate(("Anna", "Ben", "Cleo")):
        table.kiosk.post("/api/players/seat", json={"seat": seat, "player": players[name]})
    table.play_to_the_end(pick, corrected_at=3)

    records = table.records()
    assert len(records) == 4
    rows = table.standings()
    assert_close(as_rated(rows), independently(records))
    assert all(corrected not in row["game_ids"] for row in rows)
    assert {row["player"]: row["games"] for row in rows} == {"Anna": 3, "Ben": 2, "Cleo": 3}
    assert all(row["provisional"] for row in rows)

    # the referee rates the corrected game after all: it counts from then on
    assert (
        table.kiosk.post(f"/api/games/{corrected}/rated", json={"rated": True}).status_code == 403
    )
    answer = table.referee.post(f"/api/games/{corrected}/rated", json={"rated": True})
    assert answer.status_code == 200
    records = table.records()
    rated_rows = table.standings()
    assert_close(as_rated(rated_rows), independently(records))
    assert all(corrected in row["game_ids"] for row in rated_rows)

    # the same records imported into another table's log give the same standings
    files = []
    for record in records:
        path = tmp_path / f"game-{record['id']}.txt"
        path.write_text(table.kiosk.get(f"/api/games/{record['id']}?form=text").text)
        files.append(str(path))
    elsewhere = str(tmp_path / "elsewhere.db")
    imported = CliRunner().invoke(cli, ["games", "import", *files, "--store", elsewhere])
    assert imported.exit_code == 0, imported.output
    answer = CliRunner().invoke(cli, ["standings", "--game", GAME, "--json", "--store", elsewhere])
    assert answer.exit_code == 0, answer.output
    there = json.loads(answer.output)
    fields = ("player", "mu", "sigma", "games", "wins", "last_played", "provisional")
    assert [{f: r[f] for f in fields} for r in there] == [
        {f: r[f] for f in fields} for r in rated_rows
    ]
