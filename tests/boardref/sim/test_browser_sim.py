"""The virtual board of /sim in a real browser (Playwright driving Debian's
/usr/bin/chromium): moves made by clicking only, as with real pieces. A Catch the
Hare double capture ends with both hunters in the tray; Fang den Hut!'s first hat
leaves a home of six and is drawn on its field; a piece held in hand survives a
reload. Waits are generous; nothing here is timed.
"""

from __future__ import annotations

import re

import httpx
import pytest

from engines import load_game
from tests.boardref.conftest import kept_page, needs_chromium, on_board
from tests.boardref.outputs.panel import test_browser_games as games
from tests.boardref.outputs.panel.test_browser_games import set_position

WAIT_MS = 10_000
SCREEN = {"width": 1280, "height": 800}
#: the fixture: a --sim service of the game and player count a test names
table = games.table

pytestmark = [needs_chromium, pytest.mark.browser]


@pytest.fixture(scope="module")
def sim_tab():
    """The virtual board's tab, which each test goes to afresh."""
    yield from kept_page(locale="en-US", viewport=SCREEN)


def click_cell(page, cell):
    page.click(f'g.cell[data-cell="{cell}"]')


@pytest.mark.parametrize("table", [("catch_the_hare", 2)], indirect=True)
def test_a_double_capture_ends_with_both_hunters_in_the_tray(table, browser, sim_tab):
    from playwright.sync_api import expect

    game = load_game("catch_the_hare")
    record = game.to_json(game.initial_state())
    hunters = ["a1", "b1", "c1", "d1", "e1", "d2", "e2", "b3", "b4", "e4", "d5", "e5"]
    record["state"] = {"hare": "a3", "hunters": sorted(hunters), "turn": "hare", "ply": 7}
    sim = on_board(sim_tab, f"{table}/sim")
    expect(sim.locator("#turn")).to_have_text("The hunters to move", timeout=WAIT_MS)
    set_position(table, record)
    expect(sim.locator("#turn")).to_have_text("The hare to move", timeout=WAIT_MS)
    expect(sim.locator('g.cell[data-cell="a3"]')).to_have_attribute("data-token", "hare")

    click_cell(sim, "a3")
    expect(sim.locator("#sim-hand .sim-piece")).to_have_count(1)
    click_cell(sim, "a5")
    # the referee asks for the captured hunters (the "capture" notice) and lights b3
    expect(sim.locator('g.cell[data-cell="b3"]')).to_have_class("cell remove", timeout=WAIT_MS)
    notice = httpx.get(f"{table}/api/state").json()["notice"]
    assert notice["key"] == "referee.capture" and notice["params"] == {"cells": ["b3", "b4"]}
    for hunter in ("b3", "b4"):
        click_cell(sim, hunter)
        sim.click("#sim-to-tray")
    expect(sim.locator("#sim-tray .sim-piece[data-token=hunter]")).to_have_count(2)
    expect(sim.locator("#last")).to_have_text("Last move: the hare over 2 hunters", timeout=WAIT_MS)
    expect(sim.locator("#turn")).to_have_text("The hunters to move", timeout=WAIT_MS)
    assert httpx.get(f"{table}/api/state").json()["position"]["b3"] is None

    # a takeback: the hunters come back from the tray, the hare goes home
    assert httpx.post(f"{table}/api/takeback", json={}).status_code == 200
    sim.locator("#sim-tray .sim-piece").first.click()
    click_cell(sim, "b3")
    sim.locator("#sim-tray .sim-piece").first.click()
    click_cell(sim, "b4")
    click_cell(sim, "a5")
    click_cell(sim, "a3")
    expect(sim.locator("#sim-tray .sim-piece")).to_have_count(0)
    expect(sim.locator("#turn")).to_have_text("The hare to move", timeout=WAIT_MS)
    expect(sim.locator("#message")).to_have_text("", timeout=WAIT_MS)


@pytest.mark.parametrize("table", [("fang_den_hut", 4)], indirect=True)
def test_a_hat_leaves_a_home_of_six_and_stands_on_its_field(table, browser, sim_tab):
    from playwright.sync_api import expect

    sim = on_board(sim_tab, f"{table}/sim")
    expect(sim.locator("#turn")).to_have_text("Red rolls", timeout=WAIT_MS)
    sim.click("#draw")
    expect(sim.locator("#turn")).to_have_text("Red to move", timeout=WAIT_MS)
    home = sim.locator('.stack.home[data-cell="home_red"]')
    expect(home).to_have_attribute("data-count", "6")

    click_cell(sim, "home_red")
    lifted = re.compile(r"\blifted\b")
    expect(sim.locator('g.cell[data-cell="home_red"]')).to_have_class(lifted, timeout=WAIT_MS)
    destinations = sim.locator("g.cell.destination")
    expect(destinations.first).to_be_attached(timeout=WAIT_MS)
    field = destinations.first.get_attribute("data-cell")
    expect(home).to_have_attribute("data-count", "5")
    expect(sim.locator("#sim-hand .sim-piece[data-token=red]")).to_have_count(1)

    click_cell(sim, field)
    hat = sim.locator(f'.stack[data-cell="{field}"]')
    expect(hat).to_have_attribute("data-top", "red")
    # said as a person says it: from the red home to the gate, else so many fields on
    said = "red gate" if field == "gate_red" else r"(one field|\d fields)"
    last = re.compile(f"Last move: red: red home → {said}$")
    expect(sim.locator("#last")).to_have_text(last, timeout=WAIT_MS)
    expect(home).to_have_attribute("data-count", "5")
    assert httpx.get(f"{table}/api/state").json()["position"]["home_red"].count("red") == 5


@pytest.mark.parametrize("table", [("fang_den_hut", 4)], indirect=True)
def test_a_hat_standing_beside_towers_is_taken_from_among_them(table, browser, sim_tab):
    """On a grey field hats and towers stand side by side: the hand takes the one the
    person picks, not the one drawn last."""
    from playwright.sync_api import expect

    from tests.engines.test_fang_den_hut import position

    game = load_game("fang_den_hut", 4)
    beside = ["blue[green,green]", "green", "yellow[green]"]
    state = position(game, {"gate_green": beside}, turn="green", roll=2)
    set_position(table, game.to_json(state))
    sim = on_board(sim_tab, f"{table}/sim")
    expect(sim.locator("#turn")).to_have_text("Green to move", timeout=WAIT_MS)
    click_cell(sim, "gate_green")
    picker = sim.locator("#sim-cell-box")
    expect(picker).to_be_visible(timeout=WAIT_MS)
    expect(sim.locator("#sim-cell-title")).to_have_text("Which piece from green gate?")
    expect(sim.locator("#sim-cell .sim-piece")).to_have_count(3)
    sim.click('#sim-cell .sim-piece[data-token="green"]')
    expect(sim.locator("#sim-hand .sim-piece[data-token=green]")).to_have_count(1, timeout=WAIT_MS)
    expect(picker).to_be_hidden()
    click_cell(sim, "r21")
    said = "Last move: green: green gate → 2 fields"
    expect(sim.locator("#last")).to_have_text(said, timeout=WAIT_MS)
    after = httpx.get(f"{table}/api/state").json()["position"]
    assert after["gate_green"] == "blue+yellow" and after["r21"] == "green", after


@pytest.mark.parametrize("table", [("sternhalma", 2)], indirect=True)
def test_a_piece_in_hand_stays_in_hand_over_a_reload_and_on_every_page(table, browser, sim_tab):
    from playwright.sync_api import expect

    sim = on_board(sim_tab, f"{table}/sim")
    expect(sim.locator("#turn")).to_have_text("Red to move", timeout=WAIT_MS)
    click_cell(sim, "l4")
    expect(sim.locator("#sim-hand .sim-piece[data-origin=l4]")).to_have_count(1)
    other = on_board(browser.new_page(locale="en-US", viewport=SCREEN), f"{table}/sim")
    expect(other.locator("#sim-hand .sim-piece[data-origin=l4]")).to_have_count(1)
    sim.reload()
    sim.wait_for_selector("svg.board g[data-cell]", state="attached")
    expect(sim.locator("#sim-hand .sim-piece[data-origin=l4]")).to_have_count(1)
    expect(sim.locator('g.cell[data-cell="l4"]')).to_have_attribute("data-token", "")

    # the other page puts it down; this one sees the hand empty and the piece placed
    click_cell(other, "k5")
    expect(other.locator("#last")).to_have_text("Last move: red: one step", timeout=WAIT_MS)
    expect(sim.locator("#sim-hand .sim-piece")).to_have_count(0, timeout=WAIT_MS)
    expect(sim.locator('g.cell[data-cell="k5"]')).to_have_attribute("data-token", "red")
