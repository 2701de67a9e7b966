"""The panel in a real browser (Playwright driving Debian's /usr/bin/chromium; never
`playwright install`): a move played by clicks on the virtual board reaches the
table page, an illegal move is explained on both, the language switches, and a
seat marked as the computer's in the new-game dialog announces its move, refuses
another and takes its own carried out.

Speed is measured in bench/bench_panel.py; here waits are generous so a busy machine
cannot fail the test.
"""

from __future__ import annotations

import httpx
import pytest

from engines import load_game
from tests.boardref.conftest import kept_page, needs_chromium, new_game, on_board

WAIT_MS = 10_000

pytestmark = [needs_chromium, pytest.mark.browser]


@pytest.fixture
def panel(sim_table):
    """The shared table playing two-player Sternhalma."""
    new_game(sim_table, "sternhalma", 2)
    return sim_table


@pytest.fixture(scope="module")
def sim():
    """The virtual board's tab, which each test goes to afresh."""
    yield from kept_page(locale="en-US")


def click_cell(page, cell):
    page.click(f'g[data-cell="{cell}"]')


def test_a_move_clicked_on_the_virtual_board_reaches_the_table(panel, browser, sim, kiosk):
    from playwright.sync_api import expect

    on_board(sim, panel + "/sim")
    table = on_board(kiosk, panel + "/table")
    expect(table.locator("#turn")).to_have_text("Red to move", timeout=WAIT_MS)
    click_cell(sim, "l4")
    expect(sim.locator("#sim-hand")).to_contain_text("l4")
    click_cell(sim, "k5")
    expect(table.locator("#last")).to_have_text("Last move: red: one step", timeout=WAIT_MS)
    expect(table.locator("#turn")).to_have_text("Blue to move", timeout=WAIT_MS)
    expect(table.locator('g[data-cell="k5"] .piece')).to_have_attribute("fill", "#d62828")


def test_an_illegal_move_is_explained_on_both_pages_until_it_is_undone(panel, browser, sim, kiosk):
    from playwright.sync_api import expect

    game = load_game("sternhalma")
    start = game.initial_state()
    origin = next(m.origin for m in game.legal_moves(start))
    on_board(sim, panel + "/sim")
    table = on_board(kiosk, panel + "/table")
    # the start position must be read first: before it, a lifted piece is set-up
    expect(table.locator("#turn")).to_have_text("Red to move", timeout=WAIT_MS)
    click_cell(sim, origin)
    click_cell(sim, "m9")  # the centre: no move of red's reaches it
    for page in (sim, table):
        expect(page.locator("#message")).to_contain_text("Not allowed", timeout=WAIT_MS)
        expect(page.locator('g[data-cell="m9"]')).to_have_class("cell error", timeout=WAIT_MS)
    click_cell(sim, "m9")
    click_cell(sim, origin)
    for page in (sim, table):
        expect(page.locator("#message")).to_have_text("", timeout=WAIT_MS)


def test_the_language_follows_the_browser_and_switches(panel, browser):
    from playwright.sync_api import expect

    table = on_board(browser.new_page(locale="de-DE"), panel + "/table")
    expect(table.locator("#turn")).to_have_text("Am Zug: Rot", timeout=WAIT_MS)
    expect(table.locator("#draw")).to_have_text("Ziehen")
    table.select_option("#language", "en")
    expect(table.locator("#draw")).to_have_text("Draw")
    table.reload()
    table.wait_for_selector("svg.board")
    expect(table.locator("#turn")).to_have_text("Red to move", timeout=WAIT_MS)


def test_the_computer_seat_from_the_dialog_plays_and_only_its_move_is_taken(
    panel, browser, sim, kiosk
):
    from playwright.sync_api import expect

    on_board(sim, panel + "/sim")
    table = on_board(kiosk, panel + "/table")
    expect(table.locator("#turn")).to_have_text("Red to move", timeout=WAIT_MS)
    table.click("#new-game-open")
    expect(table.locator("#new-game-computer input")).to_have_count(2)
    table.check('#new-game-computer input[data-seat="1"]')
    table.select_option("#new-game-level", "easy")
    table.click("#new-game-start")
    expect(table.locator("#new-game")).not_to_be_visible(timeout=WAIT_MS)
    expect(table.locator("#turn")).to_have_text("Red to move", timeout=WAIT_MS)

    # the guest (red) moves; the computer (blue) answers on the panel
    click_cell(sim, "l4")
    click_cell(sim, "k5")
    message = table.locator("#message")
    expect(message).to_contain_text("along the lit path", timeout=WAIT_MS)
    announced = httpx.get(f"{panel}/api/state").json()["expected"]
    game = load_game("sternhalma", 2)
    start = game.initial_state()
    guest = game.apply(start, game.parse_move(start, "l4-k5"))
    path = game.parse_move(guest, announced).path
    for cell in path:
        expect(table.locator(f'g[data-cell="{cell}"]')).to_have_class("cell expected")

    # another legal move of blue's is refused, and put back
    other = next(
        m
        for m in game.legal_moves(guest)
        if game.apply(guest, m) != game.apply(guest, game.parse_move(guest, announced))
    )
    click_cell(sim, other.origin)
    click_cell(sim, other.path[-1])
    expect(message).to_contain_text("Please play the computer's move", timeout=WAIT_MS)
    click_cell(sim, other.path[-1])
    click_cell(sim, other.origin)

    # the announced move, carried out, is taken
    click_cell(sim, path[0])
    click_cell(sim, path[-1])
    jumps = len(path) - 1 if ":" in announced else 0
    played = {0: "one step", 1: "one jump"}.get(jumps, f"{jumps} jumps")
    expect(table.locator("#last")).to_have_text(f"Last move: blue: {played}", timeout=WAIT_MS)
    expect(table.locator("#turn")).to_have_text("Red to move", timeout=WAIT_MS)
    assert httpx.get(f"{panel}/api/state").json()["expected"] is None
