"""Played games in a real browser (Debian's Chromium through Playwright), and their
records checked elsewhere: a finished Catch the Hare game is found on /games,
replayed to its end on the board drawing and downloaded; the record the panel
exports verifies with `boardref games verify` in a fresh clone of the repository; a
long history is shown a page at a time, the next one a tap away."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from boardref.outputs.panel.words import said
from engines.records import read
from engines.replay import verify
from tests.boardref.conftest import PIN_HASH, needs_chromium, start_service, stop_service
from tests.boardref.outputs.panel.test_browser_games import WAIT_MS
from tests.harness import free_port

ROOT = Path(__file__).resolve().parents[4]


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A panel table where a game of Catch the Hare was played to its end by taps;
    yields the panel's address and the game's number."""
    folder = tmp_path_factory.mktemp("history")
    port = free_port()
    config = folder / "config.toml"
    config.write_text(
        '[game]\nname = "catch_the_hare"\noptions = { max_plies = 80 }\n'
        f'[store]\npath = "{folder / "boardref.db"}"\n'
        f'[panel]\nport = {port}\nreferee_pin_hash = "{PIN_HASH}"\n'
        '[fleet]\ntable_id = "t3"\n'
    )
    service = start_service(folder, port, "--config", str(config), sim=False)
    try:
        yield play_to_the_end(f"http://127.0.0.1:{port}")
    finally:
        stop_service(service)


def play_to_the_end(url: str) -> tuple[str, int]:
    """Tap random legal moves until the game is over; the address and the game's number."""
    pick = random.Random(25)
    with httpx.Client(base_url=url, timeout=10) as table:
        for _ in range(200):
            state = table.get("/api/state").json()
            if state["phase"] == "over":
                break
            answer = table.post("/api/play", json={"move": pick.choice(state["moves"])})
            assert answer.status_code == 200, answer.text
        else:
            pytest.fail("the game did not end")
        (listed,) = table.get("/api/games").json()["games"]
    return url, listed["id"]


@needs_chromium
@pytest.mark.browser
def test_a_finished_game_is_replayed_to_its_end_and_its_record_downloaded(
    finished, browser, tmp_path
):
    from playwright.sync_api import expect

    url, game_id = finished
    page = browser.new_page(locale="en-US", viewport={"width": 1280, "height": 800})
    page.goto(f"{url}/games")
    row = page.locator("#games tbody tr", has_text="Catch the Hare")
    expect(row).to_have_count(1, timeout=WAIT_MS)
    expect(row).to_contain_text("t3")
    page.bring_to_front()
    row.locator("a", has_text="Replay").click()
    page.wait_for_selector("svg.board g[data-cell]", state="attached")
    expect(page.locator("body")).to_have_attribute("data-step", "0")
    hunters = page.locator('svg.board .cell[data-token="hunter"]')
    expect(hunters).to_have_count(12)
    page.click("#forward")
    expect(page.locator("body")).to_have_attribute("data-step", "1")
    expect(page.locator("#replay-step")).to_contain_text("Move 1 (the hunters): ")
    expect(page.locator("svg.board .cell.last")).to_have_count(2)
    page.click("#back")
    expect(page.locator("body")).to_have_attribute("data-step", "0")
    page.select_option("#speed", "150")
    page.click("#play")
    steps = page.locator("body").get_attribute("data-steps")
    expect(page.locator("body")).to_have_attribute("data-step", str(int(steps) - 1), timeout=60_000)
    expect(page.locator("#outcome")).to_be_visible()
    expect(page.locator("#forward")).to_be_disabled()
    page.click("#first")
    expect(page.locator("body")).to_have_attribute("data-step", "0")
    page.click("#last")
    expect(page.locator("body")).to_have_attribute("data-step", str(int(steps) - 1))
    with page.expect_download() as downloading:
        page.click("#download")
    saved = tmp_path / downloading.value.suggested_filename
    downloading.value.save_as(saved)
    assert saved.name == f"boardref-t3-game-{game_id}-catch_the_hare.txt"
    record = read(saved.read_text(encoding="utf-8"))
    assert record.game == "catch_the_hare" and record.table == "t3"
    assert verify(record).plies == int(steps) - 1 - sum(e.kind != "ply" for e in record.entries)


@needs_chromium
@pytest.mark.browser
def test_the_german_list_says_its_time_on_a_24_hour_clock_and_names_the_winner(finished, browser):
    """An English browser (whose own clock is 12-hour) switched to German by the
    language choice: the list's time is the page's language's, and the result names
    the winning side as the game does, in German."""
    from playwright.sync_api import expect

    url, _ = finished
    (listed,) = httpx.get(f"{url}/api/games").json()["games"]
    phone = {"width": 390, "height": 844}
    page = browser.new_page(locale="en-US", timezone_id="UTC", viewport=phone)
    page.goto(f"{url}/games")
    expect(page.locator("#games tbody tr", has_text="Catch the Hare")).to_have_count(1)
    page.select_option("#language", "de")
    row = page.locator("#games tbody tr", has_text="Hasenjagd")
    expect(row).to_have_count(1, timeout=WAIT_MS)
    started = datetime.fromtimestamp(listed["started"], UTC)
    expect(row.locator("td").first).to_have_text(started.strftime("%d.%m.%y, %H:%M"))
    result = row.locator("td").nth(5)  # when, table, game, players, moves, result
    if listed["winners"]:
        winners = ", ".join(said("de", w) for w in listed["winners_said"])
        expect(result).to_have_text(f"gewonnen: {winners}")
        assert "Platz" not in result.text_content()
    shot = os.environ.get("BOARDREF_SHOTS")
    if shot:
        page.screenshot(path=str(Path(shot) / "history-de-390.png"))


@pytest.mark.process
@pytest.mark.skipif(shutil.which("git") is None, reason="git is missing")
def test_a_record_exported_from_the_panel_verifies_in_a_fresh_clone(finished, tmp_path):
    url, game_id = finished
    exported = httpx.get(f"{url}/api/games/{game_id}", params={"form": "text"}, timeout=10)
    record = tmp_path / "record.txt"
    record.write_text(exported.text, encoding="utf-8")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    # the clone's code, not this checkout's: its folder comes first on the path
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONPATH": str(clone)}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, *args], cwd=clone, env=env, capture_output=True, text=True
        )

    where = run("-c", "import boardref, engines; print(boardref.__file__, engines.__file__)")
    assert where.stdout.split() == [
        str(clone / "boardref" / "__init__.py"),
        str(clone / "engines" / "__init__.py"),
    ]
    checked = run("-m", "boardref", "games", "verify", str(record))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "verifies: catch_the_hare" in checked.stdout
    forged = tmp_path / "forged.txt"
    lines = exported.text.splitlines()
    at = next(n for n, line in enumerate(lines) if line.startswith("3. "))
    number, seat, move = lines[at].split(" ", 2)
    lines[at] = f"{number} {seat} {move.split('-')[-1]}-{move.split('-')[0]}"
    forged.write_text("\n".join(lines) + "\n", encoding="utf-8")
    refused = run("-m", "boardref", "games", "verify", str(forged))
    assert refused.returncode == 1
    assert "does not verify: ply 3 (" in refused.stdout


#: games in the long history: more than the list's first page of 50
LONG = 60


@pytest.fixture(scope="module")
def long_history(tmp_path_factory):
    """A panel table whose log holds LONG ended games of Catch the Hare (one played
    through the referee, copied); yields the panel's address."""
    from boardref.eventlog.store import Store
    from tests.boardref.eventlog.test_history import play_to_the_end as tapped

    folder = tmp_path_factory.mktemp("long")
    store = Store(folder / "boardref.db")
    played = tapped(store, "catch_the_hare").game_id
    copies = [
        (
            "INSERT INTO games (game, players, options, seed, commitment, started, ended)"
            " SELECT game, players, options, seed, commitment, started + ?, ended + ?"
            " FROM games WHERE id = ?",
            (n, n, played),
        )
        for n in range(1, LONG)
    ]
    store.write(copies)
    store.write(
        [
            (
                "INSERT INTO events (game_id, kind, data, at)"
                " SELECT g.id, e.kind, e.data, e.at FROM games g, events e"
                " WHERE g.id != ? AND e.game_id = ? ORDER BY g.id, e.id",
                (played, played),
            )
        ]
    )
    store.close()
    port = free_port()
    config = folder / "config.toml"
    config.write_text(
        f'[store]\npath = "{folder / "boardref.db"}"\n[panel]\nport = {port}\n'
        '[game]\nname = "catch_the_hare"\n'
    )
    service = start_service(folder, port, "--config", str(config), sim=False)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_service(service)


@needs_chromium
@pytest.mark.browser
@pytest.mark.parametrize(
    ("language", "more", "size"),
    [("en", "More games", (800, 480)), ("de", "Weitere Spiele", (390, 844))],
)
def test_a_long_history_comes_a_page_at_a_time(long_history, browser, language, more, size):
    """At the kiosk's size in English and a phone's in German: the newest 50 games,
    then the rest a tap on the button below them, which then goes."""
    from playwright.sync_api import expect

    page = browser.new_page(locale="en-US", viewport=dict(zip(("width", "height"), size)))
    page.goto(f"{long_history}/games")
    rows = page.locator("#games tbody tr")
    expect(rows).to_have_count(50, timeout=WAIT_MS)
    page.select_option("#language", language)
    button = page.locator("#more")
    expect(button).to_have_text(more)
    expect(rows).to_have_count(50)
    button.click()
    expect(rows).to_have_count(LONG, timeout=WAIT_MS)
    expect(button).to_be_hidden()
    shot = os.environ.get("BOARDREF_SHOTS")
    if shot:
        page.screenshot(path=str(Path(shot) / f"history-more-{language}-{size[0]}.png"))
