"""The referee page's Board tab in a real browser (Playwright, Debian's chromium), on a
phone and on the kiosk, in English and German: the board check drawn cell by cell
with its counters and findings in words, and a tap on a cell lighting its LED."""

from __future__ import annotations

import pytest

from boardref.outputs.panel import words
from tests.boardref.conftest import PIN, needs_chromium, new_game, on_board
from tests.boardref.outputs.panel.test_browser_games import WAIT_MS

pytestmark = [needs_chromium, pytest.mark.browser]

KIOSK = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def sternhalma(sim_table):
    """The shared table playing two-player Sternhalma."""
    new_game(sim_table, "sternhalma", 2)
    return sim_table


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_board_tab_draws_every_cell_and_lights_a_tapped_one(
    sternhalma, browser, language, tmp_path
):
    """On a phone; then the same page turned to the kiosk's size."""
    from playwright.sync_api import expect

    said = words.table(language)
    page = browser.new_page(locale="de-DE" if language == "de" else "en-US", viewport=PHONE)
    on_board(page, f"{sternhalma}/referee")
    page.fill("#pin", PIN)
    page.click("#login")
    expect(page.locator("#refusal")).to_be_hidden(timeout=WAIT_MS)
    page.click("#board-check summary")
    expect(page.locator("#board-check summary")).to_have_text(said["board_tab"])
    expect(page.locator("#board-check-grid .check-cell")).to_have_count(121, timeout=WAIT_MS)
    expect(page.locator("#board-check-link th").first).to_have_text(said["board_scans"])
    expect(page.locator("#board-check-strip")).to_have_text(said["board.leds.in_order"])
    # nothing swept yet: the empty cells' sensors have never seen a piece, said in words
    never = said["board.never_seen"].split("{where}")[1][:20]
    expect(page.locator("#board-check-findings li").first).to_contain_text(never)
    more = said["board_more"].split("{n}")[1][:8]
    expect(page.locator("#board-check-findings li").last).to_contain_text(more)
    page.locator("#board-check-grid .check-cell[data-cell]").nth(60).scroll_into_view_if_needed()
    page.locator("#board-check-grid .check-cell").nth(60).click()
    cell = page.locator("#board-check-grid .check-cell").nth(60).get_attribute("data-cell")
    lit = said["board_led_lit"].replace("{what}", "")
    expect(page.locator("#board-led-note")).to_contain_text(lit, timeout=WAIT_MS)
    expect(page.locator("#board-led-cell")).to_have_value(cell)
    # mapping the strip: the lit LED's cell is tapped on the drawing, the next one lights
    page.click("#board-map-strip")
    first = said["board_map_lit"].replace("{led}", "0").replace("{count}", "121")
    expect(page.locator("#board-led-note")).to_have_text(first, timeout=WAIT_MS)
    expect(page.locator("#board-map-skip")).to_be_visible()
    page.locator("#board-check-grid .check-cell").nth(0).click()
    second = said["board_map_lit"].replace("{led}", "1").replace("{count}", "121")
    expect(page.locator("#board-led-note")).to_have_text(second, timeout=WAIT_MS)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.locator("#board-check").screenshot(path=str(tmp_path / f"board-{language}-phone.png"))

    page.set_viewport_size(KIOSK)
    expect(page.locator("#board-check-grid .check-cell")).to_have_count(121)
    page.click("#board-map-skip")
    third = said["board_map_lit"].replace("{led}", "2").replace("{count}", "121")
    expect(page.locator("#board-led-note")).to_have_text(third, timeout=WAIT_MS)
    page.locator("#board-check-grid .check-cell").nth(60).click()
    fourth = said["board_map_lit"].replace("{led}", "3").replace("{count}", "121")
    expect(page.locator("#board-led-note")).to_have_text(fourth, timeout=WAIT_MS)
    assert page.evaluate("document.documentElement.scrollWidth") <= KIOSK["width"]
    page.locator("#board-check").screenshot(path=str(tmp_path / f"board-{language}-kiosk.png"))
