"""The referee's board tools in a real browser (Playwright driving Debian's
/usr/bin/chromium), by clicks only: the last move replaced by tapping the piece and
where it really went, and a position set by tapping cells with a piece. Screenshots
at phone and kiosk size when $BOARDREF_SHOTS names a folder."""

from __future__ import annotations

import httpx
import pytest

from boardref.outputs.panel import words
from tests.boardref.at_the_table import SHOTS
from tests.boardref.conftest import PIN, needs_chromium
from tests.boardref.outputs.panel import test_browser_pages as pages
from tests.boardref.outputs.panel.test_browser_games import WAIT_MS
from tests.boardref.outputs.panel.test_browser_pages import KIOSK, PHONE, opened

pytestmark = [needs_chromium, pytest.mark.browser]
#: the fixtures: the shared table playing two-player Sternhalma, or the game a test names
sternhalma, table = pages.sternhalma, pages.table


def logged_in(browser, url, language):
    """The referee page, the PIN typed and Log in pressed."""
    from playwright.sync_api import expect

    page = opened(browser, url, "/referee", language, KIOSK)
    page.fill("#pin", PIN)
    page.click("#login")
    expect(page.locator("#correct-start")).to_be_visible(timeout=WAIT_MS)
    return page


def tap(page, cell):
    page.click(f'#board g.cell[data-cell="{cell}"]')


def shoot(page, name):
    """``page`` at phone and kiosk size, when $BOARDREF_SHOTS asks for screenshots."""
    if SHOTS is None:
        return
    for label, size in (("phone", PHONE), ("kiosk", KIOSK)):
        page.set_viewport_size(size)
        page.screenshot(path=SHOTS / f"referee-{name}-{label}.png", full_page=True)
    page.set_viewport_size(KIOSK)


def test_the_referee_replaces_a_misread_move_by_tapping_the_board(sternhalma, browser):
    from playwright.sync_api import expect

    said = words.table("de")
    page = logged_in(browser, sternhalma, "de")
    page.click("#correct-start")  # nothing played yet: says so, and what to do instead
    nothing = said["referee.nothing_to_correct"]
    expect(page.locator("#correct-note")).to_have_text(nothing, timeout=WAIT_MS)

    sim = opened(browser, sternhalma, "/sim")
    tap(sim, "l4")
    tap(sim, "m5")  # the board shows l4-m5; the player really moved to k5
    expect(sim.locator("body")).to_have_attribute("data-last", "l4-m5", timeout=WAIT_MS)
    expect(page.locator("body")).to_have_attribute("data-last", "l4-m5", timeout=WAIT_MS)
    # played, not only held as the move the board shows: a held move is not corrected
    expect(page.locator("#tentative")).to_be_empty(timeout=WAIT_MS)
    expect(page.locator("body")).to_have_attribute("data-plies", "1", timeout=WAIT_MS)
    page.click("#correct-start")
    asked = said["correct_tap_piece"].split("{")[0]  # "Erkannt wurde "
    expect(page.locator("#correct-note")).to_contain_text(asked + "l4-m5", timeout=WAIT_MS)
    # the header says what the referee does now, not whose turn it is; the others' pages
    # still show whose turn it is
    expect(page.locator("#turn")).to_have_text(said["turn_correcting"])
    expect(sim.locator("#turn")).not_to_have_text(said["turn_correcting"])
    # the position before the misread move, the move read drawn, the pieces that may move lit
    expect(page.locator('#board g.cell[data-cell="l4"]')).to_have_attribute("data-token", "red")
    expect(page.locator('#board g.cell[data-cell="l4"]')).to_have_class("cell last")
    expect(page.locator('#board g.cell[data-cell="k3"]')).to_have_class("cell hint")
    tap(page, "l4")
    expect(page.locator('#board g.cell[data-cell="k5"]')).to_have_class("cell destination")
    tap(page, "k5")
    expect(page.locator("#correct-move")).to_have_value("l4-k5")
    shoot(page, "correct-de")
    page.click("#correct-apply")
    replaced = said["referee.replaced"].format(replaced="l4-m5", move="l4-k5")
    expect(page.locator("#message")).to_contain_text(replaced, timeout=WAIT_MS)
    expect(page.locator("#turn")).not_to_have_text(said["turn_correcting"])
    state = httpx.get(f"{sternhalma}/api/state").json()
    assert state["last_played"] == "l4-k5" and state["position"]["k5"] == "red"
    # the board still shows the misread: the referee asks for the piece to be moved
    expect(sim.locator('g.cell[data-cell="m5"]')).to_have_class("cell error", timeout=WAIT_MS)
    shoot(page, "corrected-de")


@pytest.mark.parametrize("language", ["de", "en"])
def test_the_referee_moves_a_piece_by_tapping_cells(sternhalma, browser, language):
    from playwright.sync_api import expect

    said = words.table(language)
    page = logged_in(browser, sternhalma, language)
    expect(page.locator("#position-json")).not_to_have_attribute("open", "")
    # each piece's button is labelled as a button is: "Empty", "Red"
    empty = said["position_empty"]
    label = empty[0].upper() + empty[1:]
    expect(page.locator('#position-palette [data-token=""]')).to_have_text(label)
    page.click('#position-palette [data-token=""]')
    tap(page, "l4")
    page.click('#position-palette [data-token="red"]')
    tap(page, "k7")
    expect(page.locator('#board g.cell[data-cell="k7"]')).to_have_attribute("data-token", "red")
    expect(page.locator("#position-note")).to_have_text(said["position_taps"])
    shoot(page, f"position-{language}")
    page.click("#position-cells-apply")
    expect(page.locator("#position-note")).to_have_text(said["position_set"], timeout=WAIT_MS)
    position = httpx.get(f"{sternhalma}/api/state").json()["position"]
    assert position["k7"] == "red" and position["l4"] is None
    # one more red piece than the game has: refused in words, nothing set
    tap(page, "k9")
    page.click("#position-cells-apply")
    expect(page.locator("#refusal")).to_be_visible(timeout=WAIT_MS)
    assert httpx.get(f"{sternhalma}/api/state").json()["position"]["k9"] is None


@pytest.mark.parametrize("table", [("catch_the_hare", 2)], indirect=True)
def test_a_piece_there_is_one_of_moves_where_it_is_tapped(table, browser):
    from playwright.sync_api import expect

    page = logged_in(browser, table, "en")
    page.click('#position-palette [data-token="hare"]')
    tap(page, "b3")
    # drawn before it is set: the hare on b3 and gone from c3, where it stood
    expect(page.locator('#board g.cell[data-cell="b3"]')).to_have_attribute("data-token", "hare")
    expect(page.locator('#board g.cell[data-cell="c3"]')).to_have_attribute("data-token", "")
    page.click("#position-cells-apply")
    expect(page.locator("#position-note")).to_have_text("The position is set.", timeout=WAIT_MS)
    position = httpx.get(f"{table}/api/state").json()["position"]
    assert position["b3"] == "hare" and position["c3"] is None


def test_the_tools_appear_where_they_stay(sternhalma, browser):
    """Logged in, the tools appear once what they show is drawn, and hold still: a
    referee's first tap lands on what it was aimed at. (They used to show at once and
    then move ~400 px down within half a second, as the join codes, the position's
    palette and the diagnostics were drawn above the folded sections.)"""
    page = logged_in(browser, sternhalma, "en")
    tops = """() => [...document.querySelectorAll('.join, .referee-tools > *')]
        .map((part) => Math.round(part.getBoundingClientRect().top + scrollY))"""
    first = page.evaluate(tops)
    page.wait_for_timeout(1500)
    assert page.evaluate(tops) == first
