"""The pages a person plays with, in a real browser (Playwright driving Debian's
/usr/bin/chromium): the new-game dialog in words, the kiosk's join codes on one
screen, a phone that has not joined, and the referee's tools on a phone."""

from __future__ import annotations

import contextlib
import json

import httpx
import pytest

from boardref.league.standings import Row
from boardref.outputs.panel import words
from boardref.outputs.panel.access import PIN_ATTEMPTS
from boardref.outputs.panel.league_api import Standings
from tests.boardref.at_the_table import SHOTS
from tests.boardref.conftest import (
    PIN,
    kept_page,
    needs_chromium,
    new_game,
    on_board,
    serve,
    stop_service,
)
from tests.boardref.outputs.panel.test_browser_games import WAIT_MS

pytestmark = [needs_chromium, pytest.mark.browser]
KIOSK = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
LOCALES = {"en": "en-US", "de": "de-DE"}


@pytest.fixture
def table(sim_table, request):
    """The shared table, playing the game, player count and computer seats a test names."""
    new_game(sim_table, *request.param)
    return sim_table


@pytest.fixture
def sternhalma(sim_table):
    """The shared table playing two-player Sternhalma."""
    new_game(sim_table, "sternhalma", 2)
    return sim_table


#: what a phone's requests carry when a proxy on the Pi passes them on
BEHIND = {"X-Forwarded-For": "192.168.1.40"}


def opened(browser, url, path, language="en", viewport=KIOSK, headers=None):
    """``path`` on a page of its own, for a test that logs in on it."""
    page = browser.new_page(locale=LOCALES[language], viewport=viewport, extra_http_headers=headers)
    return on_board(page, url + path)


@pytest.fixture(scope="module")
def tabs():
    """A kept tab per language (conftest.kept_page), for the tests that neither log
    in nor choose a language on it."""
    kept = {language: kept_page(locale=locale) for language, locale in LOCALES.items()}
    yield {language: next(page) for language, page in kept.items()}
    for page in kept.values():
        next(page, None)


def tab(tabs, url, path, language="en", viewport=KIOSK):
    """``path`` on the language's kept tab, turned to ``viewport``."""
    page = tabs[language]
    page.set_viewport_size(viewport)
    return on_board(page, url + path)


@pytest.mark.parametrize("table", [("sternhalma", 2)], indirect=True)
@pytest.mark.parametrize("language", ["en", "de"])
def test_the_new_game_dialog_speaks_words_and_starts_a_game_by_clicking(
    table, browser, tabs, language
):
    from playwright.sync_api import expect

    said = words.table(language)
    page = tab(tabs, table, "/table", language)
    page.click("#new-game-open")
    names = page.locator("#new-game-name option")
    expect(names).to_have_count(6)
    assert said["game.catch_the_hare.title"] in names.all_inner_texts()
    assert "catch_the_hare" not in names.all_inner_texts()
    page.select_option("#new-game-name", label=said["game.catch_the_hare.title"])
    expect(page.locator("#new-game-about")).to_have_text(said["game.catch_the_hare.about"])
    dialog = page.locator("#new-game")
    expect(dialog).to_contain_text(said["option.catch_the_hare.min_hunters.about"])
    expect(dialog).not_to_contain_text("min_hunters")
    page.select_option("#option-hunters", label=said["choice.catch_the_hare.hunters.10"])
    captures = {"key": "option.catch_the_hare.min_hunters.captures", "params": {"n": 1}}
    expect(page.locator("#new-game-handicap")).to_have_text(words.said(language, captures))
    # the seat by its name in the page's language
    hare = words.said(language, {"key": "seat.the_hare", "params": {}})
    page.locator("#new-game-computer label", has_text=hare).locator("input").check()
    page.click("#new-game-start")
    expect(dialog).not_to_be_visible(timeout=WAIT_MS)
    state = httpx.get(f"{table}/api/state").json()
    assert state["game"] == "catch_the_hare" and state["options"]["hunters"] == 10
    assert state["computer"] == [1]


def settled_boxes(page, selector: str) -> list[dict]:
    """Where every element ``selector`` finds sits, taken in one go once every picture
    among them has loaded: the codes are drawn again when the café's players arrive,
    and a picture not yet loaded has no size."""
    found = page.wait_for_function(
        """(selector) => {
          const all = [...document.querySelectorAll(selector)];
          const loaded = (e) => e.tagName !== "IMG" || (e.complete && e.naturalWidth);
          if (!all.every(loaded)) return null;
          const box = (r) => ({ y: r.y, height: r.height });
          return all.map((e) => box(e.getBoundingClientRect()));
        }""",
        arg=selector,
        timeout=WAIT_MS,
    )
    return found.json_value()


@pytest.mark.parametrize("table", [("sternhalma", 6, [5])], indirect=True)
def test_the_kiosk_shows_every_join_code_on_one_screen_and_none_for_the_computer(
    table, browser, tabs
):
    from playwright.sync_api import expect

    page = tab(tabs, table, "/table")
    codes = page.locator("#join-codes img")
    expect(codes).to_have_count(5, timeout=WAIT_MS)
    expect(page.locator('#join-codes figure[data-seat="5"]')).to_have_count(0)
    # each code's caption names its seat as a name standing alone: "Red", not "red"
    expect(page.locator('#join-codes figure[data-seat="0"] figcaption')).to_have_text("Red")
    for box in settled_boxes(page, "#join-codes img"):
        assert box["height"] > 0 and 0 <= box["y"] <= KIOSK["height"] - box["height"], box
    assert page.evaluate("document.documentElement.scrollHeight") <= KIOSK["height"]
    expect(page.locator("#join-warning")).to_contain_text("127.0.0.1")


@contextlib.contextmanager
def cafe_players(url: str, names):
    """The café's players ``names``, added by the referee and deleted again after."""
    with httpx.Client(base_url=url, timeout=10) as referee:
        assert referee.post("/api/referee/login", json={"pin": PIN}).status_code == 200
        added = [referee.post("/api/players", json={"name": name}).json() for name in names]
        try:
            yield added
        finally:
            for player in added:
                referee.post(f"/api/players/{player['id']}/delete")


def standings_row(place: int) -> Row:
    """A row of a café's standings."""
    rating = 30.0 - place
    return Row(
        place=place, player=f"Player number {place}", computer=False, rating=rating,
        mu=rating + 6, sigma=2.0, games=10 + place, wins=place,
        last_played="2026-11-20T20:00:00+00:00", provisional=place % 3 == 0, game_ids=(1, 2),
    )  # fmt: skip


@contextlib.contextmanager
def standings_of(page, rows: list[Row]):
    """``page`` is answered ``rows`` when it asks for the standings, until the end."""
    answer = Standings(game="sternhalma", season=None, rows=rows).model_dump_json()

    def standings(route, _request):
        route.fulfill(status=200, content_type="application/json", body=answer)

    page.route("**/api/standings?*", standings)
    try:
        yield
    finally:
        page.unroute("**/api/standings?*", standings)


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("table", [("sternhalma", 6, [5])], indirect=True)
def test_six_seats_with_the_cafes_players_to_pick_still_fit_one_kiosk_screen(
    table, browser, tabs, language
):
    from playwright.sync_api import expect

    # a café of twelve rated players: the standings between games take the room the
    # codes leave, scrolling inside it (the rows are the league's own: tests/boardref/league)
    rows = [standings_row(place) for place in range(1, 13)]
    with (
        cafe_players(table, ("Anna", "Ben", "Carla Maria", "Dieter", "Emine")),
        standings_of(tabs[language], rows),
    ):
        page = tab(tabs, table, "/table", language)
        picks = page.locator("#join-codes select.seat-player")
        expect(picks).to_have_count(5, timeout=WAIT_MS)
        expect(picks.first.locator("option")).to_have_count(6)  # anonymous and five
        expect(page.locator("#standings-rows tbody tr")).to_have_count(12, timeout=WAIT_MS)
        boxes = settled_boxes(page, "#join-codes img, #join-codes select.seat-player")
        if SHOTS is not None:
            page.screenshot(path=SHOTS / f"six-seats-players-{language}.png")
        assert len(boxes) == 10
        for box in boxes:
            assert box["height"] > 0 and 0 <= box["y"] <= KIOSK["height"] - box["height"], box
        assert page.evaluate("document.documentElement.scrollHeight") <= KIOSK["height"]
        # the standings' title stays on the screen; their rows scroll inside their box
        title = page.locator("#standings-title").bounding_box()
        assert title is not None and title["y"] + title["height"] <= KIOSK["height"], title


@pytest.mark.parametrize("language", ["en", "de"])
def test_a_phone_without_its_token_says_it_has_not_joined(sternhalma, browser, tabs, language):
    from playwright.sync_api import expect

    said = words.table(language)
    page = tab(tabs, sternhalma, "/play/1", language, PHONE)
    expect(page.locator("#not-joined")).to_contain_text(said["not_joined"], timeout=WAIT_MS)
    expect(page.locator("#not-joined")).to_contain_text(said["how_to_join"])
    expect(page.locator("#turn")).to_be_hidden()
    expect(page.locator("pre")).to_have_count(0)


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_referee_page_fits_a_phone_and_its_position_editor_round_trips(
    sternhalma, browser, language
):
    from playwright.sync_api import expect

    said = words.table(language)
    table = sternhalma
    page = opened(browser, table, "/referee", language, PHONE)
    expect(page.locator(".login")).to_contain_text("pin-hash")
    page.fill("#pin", "0000")
    page.click("#login")
    expect(page.locator("#refusal")).to_be_visible(timeout=WAIT_MS)
    page.fill("#pin", PIN)
    page.click("#login")
    expect(page.locator("#refusal")).to_be_hidden(timeout=WAIT_MS)
    editor = page.locator("#position-record")
    page.wait_for_function(
        "() => document.querySelector('#position-record').value.includes('sternhalma')"
    )
    record = json.loads(editor.input_value())
    assert record["game"] == "sternhalma"
    expect(editor).to_be_hidden()  # the record is the advanced way: the board is the editor
    page.click("#position-json summary")
    # the record /api/state shows (its state part) is taken as it is
    shown = httpx.get(f"{table}/api/state").json()["record"]
    editor.fill(json.dumps(shown))
    page.click("#position-apply")
    expect(page.locator("#position-note")).to_have_text(said["position_set"], timeout=WAIT_MS)
    editor.fill("{ not json")
    page.click("#position-apply")
    expect(page.locator("#position-note")).to_have_text(said["position_not_json"])
    page.click("#position-reload")
    page.wait_for_function(
        "() => document.querySelector('#position-record').value.includes('sternhalma')"
    )
    assert json.loads(editor.input_value()) == record
    expect(page.locator("#camera-view")).to_be_hidden()
    page.click("#diagnostics summary")
    expect(page.locator("#diagnostics-data th").first).to_have_text(said["diagnostics.link"])
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


@pytest.mark.parametrize("table", [("sternhalma", 2)], indirect=True)
def test_a_hole_on_a_phone_answers_a_tap_beside_it(table, browser, tabs):
    from playwright.sync_api import expect

    page = tab(tabs, table, "/sim", viewport=PHONE)
    hole = page.locator('g.cell[data-cell="m1"] .hole')  # the tip of the star: no neighbour below
    box = hole.bounding_box()
    assert box["width"] < 16, "the hole itself is small on a phone"
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2 + 15)
    expect(page.locator('g.cell[data-cell="m1"]')).to_have_class("cell selected", timeout=WAIT_MS)


def test_the_referee_page_explains_a_damaged_log_and_a_pin_lockout(tmp_path, browser):
    """In English and in German, on one table: the PIN lockout, once earned on the
    English page, is explained on the German one at its next try."""
    from playwright.sync_api import expect

    (tmp_path / "boardref.db").write_bytes(b"not an event log: a file SQLite cannot read " * 200)
    service, url = serve(tmp_path, "sternhalma", 2)
    try:
        moved = list(tmp_path.glob("boardref.db.damaged-*"))
        assert len(moved) == 1 and moved[0].read_bytes().startswith(b"not an event log")
        pages = {}
        for language in ("en", "de"):
            said = words.table(language)
            # a phone behind a proxy: the table's own screen is never locked out
            page = pages[language] = opened(browser, url, "/referee", language, PHONE, BEHIND)
            page.fill("#pin", PIN)
            page.click("#login")
            notice = page.locator("#log-damaged")
            expect(notice).to_be_visible(timeout=WAIT_MS)
            expect(notice).to_contain_text(str(moved[0]))
            expect(notice).to_contain_text(said["log_damaged"].split("{")[0])
            page.click("#logout")
        for language, pins in (("en", ["000000"] * PIN_ATTEMPTS + [PIN]), ("de", [PIN])):
            page = pages[language]
            for pin in pins:
                page.fill("#pin", pin)
                with page.expect_response("**/api/referee/login"):
                    page.click("#login")
            lock = page.locator("#pin-lock")
            expect(lock).to_be_visible(timeout=WAIT_MS)
            expect(lock).to_contain_text(words.table(language)["server.pin_wait"].split("{")[0])
            expect(page.locator("#login")).to_be_disabled()
    finally:
        stop_service(service)
