"""The referee keeps the café league tidy on the pages, clicking and typing only
(``at_the_table``): on the referee page, after the PIN, a player renamed (a name
taken refused in words), two entries that are one person merged, one deleted after
saying that all their data goes, a season added; on the played-games page a game
the referee corrected, left out of the standings by the rules, counted after all.
The API says afterwards that each change was made. In English and in German.
"""

from __future__ import annotations

import httpx
import pytest

from boardref.outputs.panel import words
from tests.boardref.at_the_table import WAIT_MS, open_section
from tests.boardref.conftest import PIN, needs_chromium
from tests.harness import until

pytestmark = [needs_chromium, pytest.mark.browser]

WINTER = {"name": "Winter 2026", "first": "2026-12-01", "last": "2027-02-28"}


def a_corrected_game(url: str) -> httpx.Client:
    """The referee's client, after a game between Anna and Ben in which the referee set
    a misread move right and which a new game ended; the café also knows "Ana" (Anna
    again) and "Guest"."""
    referee = httpx.Client(base_url=url)
    assert referee.post("/api/referee/login", json={"pin": PIN}).status_code == 200
    ids = {}
    for name in ("Anna", "Ana", "Ben", "Guest"):
        ids[name] = referee.post("/api/players", json={"name": name}).json()["id"]
    for seat, name in enumerate(("Anna", "Ben")):
        assert referee.post(
            "/api/players/seat", json={"seat": seat, "player": ids[name]}
        ).is_success
    for step, cell in (("lift", "l4"), ("place", "m5")):  # the board reads l4-m5
        assert referee.post(f"/api/sim/{step}", json={"cell": cell}).is_success
    until(lambda: referee.get("/api/state").json()["last_played"] == "l4-m5", "the move is played")
    assert referee.post("/api/correct", json={"move": "l4-k5"}).status_code == 200
    assert referee.post("/api/game", json={"game": "sternhalma", "players": 2}).is_success
    return referee


def player(page, name: str):
    return page.locator(f'#league-players-list li[data-player="{name}"]')


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_referee_renames_merges_deletes_players_adds_a_season_and_rates_a_game(
    people, language
):
    from playwright.sync_api import expect

    said = words.table(language)
    table = people("sternhalma", 2, language)
    referee = a_corrected_game(table.url)
    page = table.open("referee", "/referee")
    page.fill("#pin", PIN)
    page.click("#login")
    open_section(page, "league-players")
    one_game = {"en": "1 game", "de": "1 Partie"}[language]
    expect(player(page, "Anna")).to_contain_text(one_game, timeout=WAIT_MS)
    table.shoot("players")

    player(page, "Guest").locator('button[data-act="rename"]').click()
    player(page, "Guest").locator("input").fill("Anna")  # taken: refused in words
    player(page, "Guest").locator('button[data-act="save"]').click()
    taken = said["league.name_taken"].replace("{name}", "Anna")
    expect(page.locator("#league-players-note")).to_have_text(taken, timeout=WAIT_MS)
    # the refusal is the browser's only complaint: Chromium logs the answer's 409
    assert [e for e in table.errors if "409" not in e] == []
    table.errors.clear()
    player(page, "Guest").locator("input").fill("Carla")
    player(page, "Guest").locator('button[data-act="save"]').click()
    expect(player(page, "Carla")).to_be_visible(timeout=WAIT_MS)

    player(page, "Ana").locator('button[data-act="merge"]').click()
    player(page, "Ana").locator("select").select_option(label="Anna")
    table.shoot("merge")
    player(page, "Ana").locator('button[data-act="merge"]').click()
    expect(player(page, "Ana")).to_have_count(0, timeout=WAIT_MS)

    player(page, "Carla").locator('button[data-act="delete"]').click()
    warning = said["league.delete_warning"].replace("{name}", "Carla")
    expect(player(page, "Carla").locator(".league-warning")).to_have_text(warning)
    table.shoot("delete")
    player(page, "Carla").locator('button[data-act="delete_for_good"]').click()
    expect(player(page, "Carla")).to_have_count(0, timeout=WAIT_MS)

    open_section(page, "league-seasons")
    page.fill("#season-name", WINTER["name"])
    page.fill("#season-first", WINTER["first"])
    page.fill("#season-last", WINTER["last"])
    page.click("#season-add")
    expect(page.locator(f'#league-seasons-list li[data-season="{WINTER["name"]}"]')).to_be_visible(
        timeout=WAIT_MS
    )
    table.check()
    table.shoot("seasons")

    page.goto(table.url + "/games")
    played = page.locator("#games tbody tr")
    expect(played).to_have_count(1, timeout=WAIT_MS)
    expect(played.locator(".rated-now")).to_have_text(said["history.rated_left_out"])
    played.locator(".rated-change").click()
    expect(played.locator(".rated-now")).to_have_text(
        said["history.rated_counted"], timeout=WAIT_MS
    )
    table.check()
    table.shoot("rated")

    players = referee.get("/api/players").json()
    assert sorted((p["name"], p["games"]) for p in players) == [("Anna", 1), ("Ben", 1)]
    assert referee.get("/api/seasons").json() == [WINTER]
    standings = referee.get("/api/standings", params={"game": "sternhalma"}).json()
    assert sorted(row["player"] for row in standings["rows"]) == ["Anna", "Ben"]
    referee.close()
