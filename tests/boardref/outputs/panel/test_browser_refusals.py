"""A refused move in a real browser, in German: a Sternhalma piece set down beyond
its reach on /sim (clicks only) is told the true cause and what to do, the places
it may go glow, the kiosk says it without a coordinate and the referee page with
them. A board read as no legal move, or a piece moved with the board out of step, is
told to be put back as the table shows it: its lights where they are on, else the
board on the screen. Screenshots of /sim and the kiosk at phone and kiosk size when
$BOARDREF_SHOTS names a folder."""

from __future__ import annotations

import re

import pytest

from engines import load_game
from tests.boardref.at_the_table import KIOSK, PHONE, SHOTS
from tests.boardref.conftest import PIN, kept_page, needs_chromium, on_board
from tests.boardref.outputs.panel import test_browser_games as games
from tests.boardref.outputs.panel.test_browser_connection import pushed
from tests.engines.test_sternhalma import position

WAIT_MS = 10_000
#: the fixture: a --sim service of the game and player count a test names
table = games.table
#: a Sternhalma hole's coordinates, as only the referee page and records give them
COORDINATE = re.compile(r"\b[a-q]\d{1,2}\b")

pytestmark = [needs_chromium, pytest.mark.browser]


@pytest.fixture(scope="module")
def german():
    yield from kept_page(locale="de-DE", viewport=KIOSK)


@pytest.mark.parametrize("table", [("sternhalma", 2)], indirect=True)
def test_a_piece_set_beyond_its_reach_is_told_the_cause_and_where_it_may_go(table, browser, german):
    from playwright.sync_api import expect

    sim = on_board(german, f"{table}/sim")
    expect(sim.locator("#turn")).to_have_text(re.compile("Rot"), timeout=WAIT_MS)
    sim.click('g.cell[data-cell="l4"]')
    expect(sim.locator("#sim-hand .sim-piece")).to_have_count(1)
    sim.click('g.cell[data-cell="l6"]')
    message = sim.locator("#message")
    expect(message).to_contain_text("spring über genau eine Figur", timeout=WAIT_MS)
    said = message.inner_text()
    assert "weder ein Schritt aufs Nachbarloch noch ein Sprung über eine Figur" in said
    assert "stell die Figur auf eine der leuchtenden Stellen" in said
    assert not COORDINATE.search(said), said
    for lit in ("k5", "m5"):
        expect(sim.locator(f'g.cell[data-cell="{lit}"]')).to_have_class(re.compile("destination"))
    expect(sim.locator('g.cell[data-cell="l6"]')).to_have_class(re.compile("error"))
    shoot(sim, "sim")

    kiosk = on_board(german.context.new_page(), f"{table}/table")
    expect(kiosk.locator("#message")).to_contain_text("leuchtenden Stellen", timeout=WAIT_MS)
    told = kiosk.locator("#message").inner_text()
    assert told == said
    expect(kiosk.locator('g.cell[data-cell="k5"]')).to_have_class(re.compile("destination"))
    shoot(kiosk, "table")
    kiosk.close()

    # the referee page alone gives the coordinates
    context = browser.new_context(locale="de-DE", viewport=KIOSK)
    referee = context.new_page()
    referee.goto(f"{table}/referee")
    referee.fill("#pin", PIN)
    referee.click("#login")
    expect(referee.locator("#message")).to_contain_text(
        "stell die Figur auf k5, m5", timeout=WAIT_MS
    )
    context.close()

    sim.click('g.cell[data-cell="l6"]')  # the piece back where it came from
    sim.click('g.cell[data-cell="l4"]')
    expect(message).to_have_text("", timeout=WAIT_MS)


#: how the kiosk says to put the pieces back: as the lights show, as the screen marks them
PUT_BACK = {
    "en-US": ("put the pieces back as the lights show",
              "put the pieces back as the board on the screen marks them"),
    "de-DE": ("stell die Figuren zurück, wie die Lichter zeigen",
              "stell die Figuren zurück, wie das Brett auf dem Bildschirm sie markiert"),
}


@pytest.mark.parametrize("table", [("sternhalma", 2)], indirect=True)
@pytest.mark.parametrize("locale", ["en-US", "de-DE"])
def test_a_board_read_as_no_move_is_put_back_as_the_table_shows_it(table, browser, locale):
    from playwright.sync_api import expect

    lit, unlit = PUT_BACK[locale]
    context = browser.new_context(locale=locale, viewport=KIOSK)
    sim = on_board(context.new_page(), f"{table}/sim")
    expect(sim.locator("body")).to_have_attribute("data-phase", "move", timeout=WAIT_MS)
    sim.click('g.cell[data-cell="l4"]')
    sim.click('g.cell[data-cell="m9"]')  # the centre: no move of red's reaches it
    sim.click('g.cell[data-cell="n4"]')  # and another piece lifted: no move at all
    expect(sim.locator("#message")).to_contain_text(lit, timeout=WAIT_MS)
    kiosk = told_as_the_table_shows_it(context, table, (lit, unlit), f"unreadable-{locale}")
    sim.click('g.cell[data-cell="n4"]')  # the board put back
    sim.click('g.cell[data-cell="m9"]')
    sim.click('g.cell[data-cell="l4"]')
    expect(kiosk.locator("#message")).to_have_text("", timeout=WAIT_MS)
    context.close()


def told_as_the_table_shows_it(context, table: str, put_back: tuple[str, str], what: str):
    """The kiosk says to put the pieces back as the lights show (the simulated board's
    link is up: its cells are lit), and a kiosk pushed the state as a table without
    lights (or with them off) says it with its words; the first kiosk."""
    from playwright.sync_api import expect

    lit, unlit_words = put_back
    kiosk = on_board(context.new_page(), f"{table}/table")
    expect(kiosk.locator("#message")).to_contain_text(lit, timeout=WAIT_MS)
    shoot(kiosk, "table", what)
    dark = context.new_page()
    pushed(dark, lambda state: [unlit_notice(state)])
    on_board(dark, f"{table}/table")
    expect(dark.locator("#message")).to_contain_text(unlit_words, timeout=WAIT_MS)
    shoot(dark, "table", f"{what}-dark")
    return kiosk


def unlit_notice(state: dict) -> dict:
    """``state`` as a table with no cell lights is pushed it."""
    notice = state.get("notice")
    return {**state, "notice": unlit(notice)} if notice else state


def unlit(said: dict) -> dict:
    """Words (``{key, params}``) that point at the lights, the words inside them too,
    as said at a table without them."""
    params = {
        name: unlit(value) if isinstance(value, dict) and "key" in value else value
        for name, value in said["params"].items()
    }
    if "lights" in params:
        params["lights"] = "off"
    return {**said, "params": params}


@pytest.mark.parametrize("table", [("sternhalma", 2)], indirect=True)
@pytest.mark.parametrize("locale", ["en-US", "de-DE"])
def test_a_piece_moved_out_of_step_is_put_back_as_the_table_shows_it(table, browser, locale):
    """Red's jump i9:k11 may still grow (blue rings m9); red then steps f10 to g9,
    where i9 could have stepped: the piece may go there, not with the board as it is.
    The other pieces stay at home."""
    from playwright.sync_api import expect

    game = load_game("sternhalma", 2)
    red = ["i9", "f10", "j4", "k3", "l2", "l4", "m1", "m3", "n2", "n4"]
    blue = ["j10", "m11", "p10", "p8", "m7", "j8", "j14", "k15", "l14", "l16"]
    games.set_position(table, game.to_json(position(game, {0: red, 1: blue})))
    context = browser.new_context(locale=locale, viewport=KIOSK)
    sim = on_board(context.new_page(), f"{table}/sim")
    sim.click('g.cell[data-cell="i9"]')
    sim.click('g.cell[data-cell="k11"]')
    expect(sim.locator("body")).to_have_attribute("data-last", "i9:k11", timeout=WAIT_MS)
    sim.click('g.cell[data-cell="f10"]')
    sim.click('g.cell[data-cell="g9"]')
    told_as_the_table_shows_it(context, table, OUT_OF_STEP[locale], f"out-of-step-{locale}")
    context.close()


#: how the kiosk says a piece moved with the board out of step is put right: as the
#: lights show, as the screen marks them
OUT_OF_STEP = {
    "en-US": ("not with the board as it is: put the pieces back as the lights show and move "
              "again",
              "not with the board as it is: put the pieces back as the board on the screen "
              "marks them and move again"),
    "de-DE": ("stell die Figuren zurück, wie die Lichter zeigen, und zieh noch einmal",
              "stell die Figuren zurück, wie das Brett auf dem Bildschirm sie markiert, und "
              "zieh noch einmal"),
}


def shoot(page, role: str, what: str = "refusal-de") -> None:
    if SHOTS is None:
        return
    size = page.viewport_size
    for label, shape in (("phone", PHONE), ("kiosk", KIOSK)):
        page.set_viewport_size(shape)
        page.screenshot(path=SHOTS / f"{what}-{role}-{label}.png", full_page=True)
    page.set_viewport_size(size)
