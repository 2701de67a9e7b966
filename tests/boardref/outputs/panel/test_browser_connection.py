"""A page that loses its service or its board, in a real browser (Playwright driving
Debian's /usr/bin/chromium) against real `boardref serve --sim` processes: it says so
in words, refuses clicks meanwhile, reconnects by itself, and never shows a state
older than the one it shows."""

from __future__ import annotations

import json
import re

import pytest

from tests.boardref.conftest import (
    PIN_HASH,
    needs_chromium,
    new_game,
    on_board,
    start_service,
    stop_service,
)
from tests.harness import free_port

pytestmark = [needs_chromium, pytest.mark.browser]

LOST = {
    "en-US": "Lost the table's service: reconnecting…",
    "de-DE": "Verbindung zum Tisch verloren: verbinde neu …",
}
LINK_DOWN = {"en-US": "The board is not connected", "de-DE": "Das Brett ist nicht verbunden"}


def table_config(folder) -> tuple[int, str]:
    """A config for a Catch the Hare table on a free port; the port and the config."""
    port = free_port()
    config = folder / "config.toml"
    config.write_text(
        f'[game]\nname = "catch_the_hare"\n[store]\npath = "{folder / "boardref.db"}"\n'
        f'[panel]\nport = {port}\nreferee_pin_hash = "{PIN_HASH}"\n'
    )
    return port, str(config)


@pytest.mark.parametrize("locale", ["en-US", "de-DE"])
def test_a_page_says_it_lost_the_service_refuses_clicks_and_comes_back_by_itself(
    tmp_path, browser, locale
):
    from playwright.sync_api import expect

    port, config = table_config(tmp_path)
    page = browser.new_context(locale=locale).new_page()
    service = start_service(tmp_path, port, "--config", config)
    try:
        on_board(page, f"http://127.0.0.1:{port}/sim")
        banner = page.locator("#connection")
        expect(banner).to_be_hidden()
        stop_service(service)
        expect(banner).to_be_visible(timeout=15_000)
        expect(banner).to_have_text(LOST[locale])
        # a click meanwhile is refused in words, not swallowed
        page.locator("svg.board g[data-cell]").first.click()
        expect(page.locator("#refusal")).to_contain_text(LOST[locale])
        service = start_service(tmp_path, port, "--config", config)
        expect(banner).to_be_hidden(timeout=30_000)
        page.wait_for_selector("svg.board g[data-cell]", state="attached")
        expect(page.locator("body")).to_have_attribute("data-phase", "move")
    finally:
        stop_service(service)


def pushed(page, change):
    """Every state the service pushes to ``page`` from now on passes through
    ``change`` (state -> the states the page gets instead); the states as they came."""
    came = []

    def handler(socket):
        service = socket.connect_to_server()

        def forward(message):
            state = json.loads(message)
            came.append(state)
            for instead in change(state):
                socket.send(json.dumps(instead))

        service.on_message(forward)

    # the page's socket, whatever it asks for (/sim asks for the virtual board)
    page.route_web_socket(re.compile(r"/ws(\?.*)?$"), handler)
    return came


@pytest.mark.parametrize("locale", ["en-US", "de-DE"])
def test_the_board_link_going_down_is_said_in_words(sim_table, browser, locale):
    from playwright.sync_api import expect

    new_game(sim_table, "sternhalma", 2)
    page = browser.new_context(locale=locale).new_page()
    pushed(page, lambda state: [{**state, "link": "down"}])
    on_board(page, f"{sim_table}/table")
    expect(page.locator("#link")).to_have_text(LINK_DOWN[locale])


def test_a_state_older_than_the_one_shown_is_ignored_and_a_new_run_is_taken(sim_table, browser):
    from playwright.sync_api import expect

    new_game(sim_table, "sternhalma", 2)
    page = browser.new_context(locale="de-DE").new_page()
    # each state comes twice: itself, then a late copy of the one before it that
    # claims another game's progress
    came = pushed(page, lambda state: [state, {**state, "seq": state["seq"] - 1, "plies": 99}])
    on_board(page, f"{sim_table}/sim")
    body = page.locator("body")
    expect(body).to_have_attribute("data-plies", "0")
    expect(body).to_have_attribute("data-connected", "yes")
    shown = came[-1]
    # the page's own judgement (the module it runs, by its address)
    judged = page.evaluate(
        """async (states) => {
          const script = document.querySelector("script[type=module]").src;
          const core = await import(script.replace("panel.js", "core.js"));
          return states.map((state) => core.isCurrent(state));
        }""",
        [
            {**shown, "seq": shown["seq"] + 1},
            {**shown, "seq": shown["seq"] - 1},
            {**shown, "run": "a-service-started-again", "seq": 0},
        ],
    )
    assert judged == [True, False, True]


def test_a_game_switch_draws_the_new_games_board(sim_table, browser):
    import httpx
    from playwright.sync_api import expect

    new_game(sim_table, "sternhalma", 2)
    page = browser.new_context(locale="en-US").new_page()
    on_board(page, f"{sim_table}/sim")
    expect(page.locator("svg.board g[data-cell]")).to_have_count(121)
    new_game(sim_table, "catch_the_hare", 2)
    cells = len(httpx.get(f"{sim_table}/api/board").json()["cells"])
    assert cells != 121
    expect(page.locator("svg.board g[data-cell]")).to_have_count(cells)


def test_the_played_games_page_says_it_lost_the_service_and_tries_again(tmp_path, browser):
    from playwright.sync_api import expect

    port, config = table_config(tmp_path)
    page = browser.new_context(locale="de-DE").new_page()
    service = start_service(tmp_path, port, "--config", config)
    try:
        page.goto(f"http://127.0.0.1:{port}/games")
        banner = page.locator("#connection")
        expect(page.locator("#none")).to_be_visible()
        stop_service(service)
        page.select_option("#filter-game", "sternhalma")
        expect(banner).to_have_text(LOST["de-DE"])
        expect(banner).to_be_visible()
        service = start_service(tmp_path, port, "--config", config)
        expect(banner).to_be_hidden(timeout=30_000)
    finally:
        stop_service(service)
