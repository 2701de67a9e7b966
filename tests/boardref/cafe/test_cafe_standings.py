"""The café's standings over a real mosquitto: two tables play named games, their
records reach the dashboard, and its standings (JSON and CSV, all time and a season)
equal openskill run independently here over both tables' records. A table set to
send no names (``[fleet] names = false``, a broker outside the café) sends its
records with anonymous seats, and no name reaches Home Assistant's topics or the
tables' state and events."""

from __future__ import annotations

import asyncio
import json
import random
from datetime import date, timedelta

import pytest
from openskill.models import PlackettLuce

from boardref.runtime.config import load_config
from boardref.runtime.service import Service
from engines.records import read
from tests.boardref.cafe.test_fleet_records import dashboard, day_games
from tests.boardref.outputs.test_fleet import Listener, broker, client_of  # noqa: F401
from tests.harness import WAIT, free_port, until
from tests.harness import reporting_table as table

NAMES = ("Anna", "Ben", "Cleo")
GAME = "catch_the_hare"


def play_named(service: Service, seating: tuple[str, str], pick: random.Random) -> None:
    """One game of the table with its two seats named, played to its end."""
    referee, players = service.referee, service.history.players
    if referee.phase == "over":
        referee.new_game(GAME)
    for seat, name in enumerate(seating):
        players.seat(referee.game_id, seat, players.called(name).id)
    while referee.phase != "over":
        referee.play(str(pick.choice(referee.game.legal_moves(referee.positions[-1]))))


def independently(records: list) -> dict[str, tuple[float, float, int]]:
    """openskill over the records as docs/league.md tells: in the order they ended
    (then as the day book lists them), each named seat its own team, the winner first."""
    model, rated = PlackettLuce(), {}
    for record in records:
        names = [record.tags.get(f"Player{s + 1}") for s in range(record.players)]
        if record.result is None or not any(names):
            continue
        ranks = [1 if s in record.result.winners else 2 for s in range(record.players)]
        teams = [[model.rating(*rated[n][:2]) if n in rated else model.rating()] for n in names]
        for name, [after] in zip(names, model.rate(teams, ranks=ranks), strict=True):
            if name is not None:
                rated[name] = (after.mu, after.sigma, rated.get(name, (0, 0, 0))[2] + 1)
    return rated


def test_the_cafes_standings_are_openskill_over_every_tables_records(tmp_path, broker):  # noqa: F811
    listener, states = Listener(broker.port), []
    listener.client.message_callback_add(
        "boardref/+/state", lambda client, data, message: states.append(message.payload.decode())
    )
    port = free_port()
    watching = dashboard(broker.url, port, tmp_path / "records")
    tables = {name: table(tmp_path, broker.url, name) for name in ("t1", "t2")}
    far = Service(
        load_config(
            **{
                "store.path": tmp_path / "far.db",
                "game.name": GAME,
                "fleet.url": broker.url,
                "fleet.table_id": "far",
                "fleet.names": False,
            }
        ),
        asyncio.new_event_loop(),
    )
    http = client_of(port)
    try:
        until(lambda: day_games(http) is not None, "the dashboard to answer")
        pick = random.Random(45)
        for service in tables.values():
            for _ in range(3):
                play_named(service, tuple(pick.sample(NAMES, 2)), pick)
        play_named(far, ("Anna", "Ben"), pick)

        def arrived():
            shown = day_games(http) or {"tables": {}}
            counts = {name: len(games) for name, games in shown["tables"].items()}
            return shown if counts == {"t1": 3, "t2": 3, "far": 1} else None

        shown = until(arrived, "every table's games at the dashboard")
        day, records = shown["day"], []
        for name in sorted(shown["tables"]):
            for n in range(1, len(shown["tables"][name]) + 1):
                records.append(((name, n), read(http.get(f"/api/day/{day}/{name}/{n}").text)))
        (far_record,) = [r for (name, _), r in records if name == "far"]
        assert not [tag for tag in far_record.tags if tag.startswith("Player")]
        assert {r.tags.get("Player1") for (name, _), r in records if name != "far"} <= set(NAMES)

        answer = http.get("/api/standings", params={"game": GAME})
        assert answer.status_code == 200, answer.text
        found = answer.json()
        assert set(found) == {"game", "season", "provisional_below", "rows", "games"}
        expected = independently([r for _, r in sorted(records, key=lambda k: (k[1].end, k[0]))])
        rows = {row["player"]: row for row in found["rows"]}
        assert rows.keys() == expected.keys()
        for name, (mu, sigma, games) in expected.items():
            assert rows[name]["mu"] == pytest.approx(mu, abs=1e-3), name
            assert rows[name]["sigma"] == pytest.approx(sigma, abs=1e-3), name
            assert rows[name]["games"] == games, name
        for row in found["rows"]:
            for number in row["game_ids"]:
                where = found["games"][str(number)]
                assert where["table"] in tables and where["day"] == day

        csv = http.get("/api/standings.csv", params={"game": GAME}).text.splitlines()
        assert csv[0].startswith("place,player") and len(csv) == 1 + len(rows)
        season = {"game": GAME, "first": day, "last": day}
        assert http.get("/api/standings", params=season).json()["rows"] == found["rows"]
        later = (date.fromisoformat(day) + timedelta(days=1)).isoformat()
        assert (
            http.get("/api/standings", params={**season, "first": later, "last": later}).json()[
                "rows"
            ]
            == []
        )
        backwards = http.get("/api/standings", params={**season, "first": later})
        assert backwards.status_code == 422 and "is after" in backwards.json()["detail"]
        assert http.get("/api/standings", params={"game": "chess"}).status_code == 404

        # names go in records only: never in a state, an event or Home Assistant's topics
        said = json.dumps({k: v.decode() for k, v in listener.retained.items()})
        said += json.dumps(listener.events) + "".join(states)
        assert states and not [name for name in NAMES if name in said]
    finally:
        http.close()
        listener.close()
        watching.terminate()
        watching.wait(WAIT)
        for service in (*tables.values(), far):
            service.close()
