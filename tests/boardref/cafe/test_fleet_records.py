"""The café's day of games over a real mosquitto: a table's finished game arrives at
the dashboard with its result and its record, which verifies; the whole day comes
as one zip; a restarted dashboard still has the day; and a card table's shuffle
reaches the broker without the order of its cards."""

from __future__ import annotations

import asyncio
import io
import json
import random
import subprocess
import sys
import time
import zipfile
from datetime import UTC, datetime

import httpx

from boardref.outputs.panel import words
from boardref.runtime.config import load_config
from boardref.runtime.service import Service
from engines.records import read
from engines.replay import verify
from tests.boardref.outputs.test_fleet import (  # noqa: F401 (broker is a fixture)
    WAIT,
    Listener,
    broker,
    client_of,
    free_port,
    table,
    until,
)


def dashboard(url: str, port: int, folder) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "boardref",
            "fleet",
            "--mqtt",
            url,
            "--port",
            str(port),
            "--records",
            str(folder),
        ],  # fmt: skip
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def day_games(http: httpx.Client) -> dict | None:
    try:
        return http.get("/api/day", timeout=2).json()
    except httpx.HTTPError:
        return None


def test_a_finished_games_result_and_record_arrive_at_the_dashboard(tmp_path, broker, browser):  # noqa: F811
    port = free_port()
    watching = dashboard(broker.url, port, tmp_path / "records")
    service = table(tmp_path, broker.url, "t2")
    http = client_of(port)
    try:
        until(lambda: day_games(http) is not None, "the dashboard to answer")
        referee, pick = service.referee, random.Random(4)
        while referee.phase != "over":
            referee.play(str(pick.choice(referee.game.legal_moves(referee.positions[-1]))))
        winner = referee.game.seat_name(referee.game.outcome(referee.positions[-1]).winners[0])

        def arrived():
            shown = day_games(http)
            return shown if shown and shown["tables"].get("t2") else None

        shown = until(arrived, "the finished game at the dashboard")
        (game,) = shown["tables"]["t2"]
        assert game["game"] == "catch_the_hare" and game["winners"] == [winner]
        assert game["plies"] == referee.published.plies
        day = shown["day"]
        text = http.get(f"/api/day/{day}/t2/1").text
        record = read(text)
        assert record.table == "t2" and verify(record).plies == game["plies"]
        packed = http.get(f"/api/day/{day}.zip")
        with zipfile.ZipFile(io.BytesIO(packed.content)) as archive:
            names = archive.namelist()
            assert names == [
                "t2/boardref-t2-game-1-catch_the_hare.txt",
                "t2/boardref-t2-game-1-catch_the_hare.json",
            ]
            assert read(archive.read(names[0]).decode()) == record
        page = http.get("/").text
        assert "daybook.js" in page
        said_in_german(f"http://127.0.0.1:{port}/", browser, game)
        watching.terminate()
        watching.wait(WAIT)
        watching = dashboard(broker.url, port, tmp_path / "records")
        until(lambda: (day_games(http) or {}).get("tables"), "the restarted dashboard's day")
        assert day_games(http)["tables"]["t2"] == [game]
    finally:
        http.close()
        watching.terminate()
        watching.wait(WAIT)
        service.close()


def said_in_german(url: str, browser, game: dict) -> None:
    """The day's game on a German dashboard in an English browser: its end on a 24-hour
    clock, and its moves and the table's games counted in German."""
    from playwright.sync_api import expect

    page = browser.new_page(locale="en-US", timezone_id="UTC")
    page.goto(url)
    expect(page.locator("#day-tables li")).to_have_count(1, timeout=WAIT * 1000)
    page.select_option("#language", "de")
    ended = datetime.fromisoformat(game["end"].replace("Z", "+00:00")).astimezone(UTC)
    moves = f"{game['plies']} Züge" if game["plies"] != 1 else "1 Zug"
    expect(page.locator("#day-tables li")).to_contain_text(f"{ended:%H:%M} Hasenjagd, {moves}")
    expect(page.locator("#day-tables h3")).to_have_text("t2: 1 Spiel")
    # the winner as the game names them in German ("der Hase"), not the record's "hare"
    winner = words.said("de", game["winners_said"][0])
    expect(page.locator("#day-tables li")).to_contain_text(f"gewonnen: {winner}")


def test_a_card_tables_shuffle_reaches_the_broker_without_its_order(tmp_path, broker):  # noqa: F811
    listener = Listener(broker.port)
    config = load_config(
        **{
            "store.path": tmp_path / "cards.db",
            "game.name": "fang_den_hut_cards",
            "game.players": 3,
            "fleet.url": broker.url,
            "fleet.table_id": "cards",
        }
    )
    service = Service(config, asyncio.new_event_loop())
    try:
        until(lambda: service.reporter.connected, "the table to connect")
        service.referee.draw()
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            drawn = [e for e in listener.events["cards"] if e["kind"] == "chance"]
            if drawn:
                break
            time.sleep(0.05)
        (shuffled,) = drawn
        assert shuffled["data"]["spec"]["kind"] == "shuffle"
        assert shuffled["data"]["outcome"] is None
        dealt = service.referee.log[-1][1]["outcome"]  # the order the table keeps
        assert json.dumps(dealt)[1:-1] not in json.dumps(shuffled)
    finally:
        service.close()
        listener.close()
