"""The table's kiosk page keeps its layout as lines come and go beside the board: the
board is never laid out, painted and rastered anew at another size because the side
grew past the screen's foot and brought a scrollbar, and the page never starts or stops
scrolling (the compositor would draw the whole screen again). In a game the page keeps
its height: the side scrolls inside itself. Chromium on a kiosk shows classic
scrollbars, which Playwright hides by default, so this test's browser keeps them. The
kiosk's own address keeps the page still whatever its browser says of the screen."""

from __future__ import annotations

import httpx
import pytest

from boardref.runtime.kiosk import KIOSK_PAGE
from engines import load_game
from tests.boardref.conftest import Chromium, needs_chromium, new_game, on_board
from tests.boardref.outputs.panel.test_browser_games import COUNT_ANIMATIONS, draw
from tests.harness import CHROMIUM, CHROMIUM_ARGS

pytestmark = [needs_chromium, pytest.mark.browser]

KIOSK = {"width": 1280, "height": 800}
BOARD_WIDTH = "document.querySelector('svg.board').getBoundingClientRect().width"
SCROLLS = "document.documentElement.scrollHeight > innerHeight"
HEIGHT = "document.documentElement.scrollHeight"
NEXT_FRAME = "new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"


@pytest.fixture
def with_scrollbars():
    """A Chromium that shows scrollbars as the kiosk's does."""
    Chromium.launched()
    browser = Chromium.playwright.chromium.launch(
        executable_path=CHROMIUM, args=CHROMIUM_ARGS, ignore_default_args=["--hide-scrollbars"]
    )
    yield browser
    browser.close()


@pytest.fixture
def kiosk_in_game(sim_table, with_scrollbars):
    """The kiosk's page on a Sternhalma game a step in (between games the side scrolls
    inside itself and the page never does)."""
    new_game(sim_table, "sternhalma", 6)
    game = load_game("sternhalma", 6)
    step = next(m for m in game.legal_moves(game.initial_state()) if not m.leap)
    with httpx.Client(base_url=sim_table) as table:
        table.post("/api/sim/lift", json={"cell": step.origin}).raise_for_status()
        table.post("/api/sim/place", json={"cell": step.destination}).raise_for_status()
    page = on_board(with_scrollbars.new_page(viewport=KIOSK), f"{sim_table}/table")
    page.wait_for_selector("body[data-between='no']", state="attached")
    return page


def grow_the_side(page) -> None:
    """A line beside the board (a held move, a message) as tall as the screen."""
    page.evaluate(
        "() => { const line = document.createElement('p'); line.style.height = '100vh';"
        " document.querySelector('aside').append(line); }"
    )
    page.evaluate(NEXT_FRAME)


def test_the_board_keeps_its_size_when_the_side_grows_past_the_screen(kiosk_in_game):
    page = kiosk_in_game
    before = page.evaluate(BOARD_WIDTH)
    assert page.evaluate(SCROLLS), "the page would start scrolling once the side grows"
    grow_the_side(page)
    assert page.evaluate(SCROLLS)
    assert page.evaluate("innerWidth - document.documentElement.clientWidth") > 0, (
        "the page shows no scrollbar: the test would not see one come"
    )
    assert page.evaluate(BOARD_WIDTH) == before


@pytest.mark.parametrize("game", ["sternhalma", "hakenschlagen"])
def test_the_page_keeps_its_height_when_the_side_grows(kiosk_in_game, game):
    """The side scrolls inside itself: beside the board, and below Hakenschlagen's
    meadow (its layout, taken on by the page's game mark)."""
    page = kiosk_in_game
    page.evaluate(f"document.body.dataset.game = {game!r}")
    page.evaluate(NEXT_FRAME)
    height = page.evaluate(HEIGHT)
    assert height == page.evaluate("innerHeight") + 1
    grow_the_side(page)
    assert page.evaluate(HEIGHT) == height
    side = "document.querySelector('aside')"
    assert page.evaluate(f"{side}.scrollHeight > {side}.clientHeight")


def test_the_kiosks_address_keeps_a_draw_still_where_the_browser_welcomes_motion(
    sim_table, browser
):
    """The kiosk opens the table page at its own address (``kiosk_url``), which asks the
    page to keep still as a screen that asks for reduced motion does, in a browser that
    tells the page nothing of the kind: a new draw appears without rolling in, and
    still so once the kiosk has been to the played games and back to the table. The
    plain table page in the same browser rolls the die in."""
    from playwright.sync_api import expect

    new_game(sim_table, "fang_den_hut", 2)
    kiosk, plain = (
        browser.new_page(locale="en-US", viewport=KIOSK, reduced_motion="no-preference")
        for _ in range(2)
    )
    for page in (kiosk, plain):
        page.add_init_script(COUNT_ANIMATIONS)
    on_board(kiosk, sim_table + KIOSK_PAGE)
    draw(sim_table)
    expect(kiosk.locator("#drawn svg.die")).to_have_count(1)
    assert kiosk.evaluate("[window.rolled, document.getAnimations().length]") == [[], 0]
    on_board(plain, f"{sim_table}/table")
    expect(plain.locator("#drawn svg.die")).to_have_count(1)
    assert plain.evaluate("window.rolled") == ["die rolls"]

    kiosk.click(".history-link")
    kiosk.click("a.back")
    kiosk.wait_for_url(f"{sim_table}/table")
    kiosk.wait_for_selector("svg.board g[data-cell]", state="attached")
    expect(kiosk.locator("#drawn svg.die")).to_have_count(1)
    assert kiosk.evaluate("[window.rolled, document.getAnimations().length]") == [[], 0]
