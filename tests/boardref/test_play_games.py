"""Whole games played by people, by clicking and tapping only: the virtual board
(``/sim``), the kiosk (``/table``) and one phone per human seat (joined by its QR
code) are open at once; half the games are played in German. Every page is checked
as it is played (``at_the_table.Table.check``) and screenshotted at phone and kiosk
size. Nothing here is timed: waits are generous, so a busy machine cannot fail it.
"""

from __future__ import annotations

import pytest

from tests.boardref.at_the_table import WAIT_MS, Table, serve
from tests.boardref.conftest import needs_chromium

pytestmark = needs_chromium


@pytest.fixture
def people(tmp_path, browser):
    """Start a table and return a function opening its pages in a language."""
    started = []

    def sit_down(game: str, players: int, language: str) -> Table:
        service, url = serve(tmp_path, game, players)
        table = Table(browser, url, language, game)
        started.append((service, table))
        return table

    yield sit_down
    for service, table in started:
        table.close()
        service.terminate()
        service.wait(10)


def new_game(page, options: dict[str, bool] = {}) -> None:  # noqa: B006 - read only
    """Start a new game of the table's game from the dialog, ticking ``options``."""
    from playwright.sync_api import expect

    plies = page.locator("body").get_attribute("data-plies")
    page.click("#new-game-open")
    for name, ticked in options.items():
        page.locator(f'#new-game-options [data-option="{name}"]').set_checked(ticked)
    page.click("#new-game-start")
    expect(page.locator("#new-game")).not_to_be_visible(timeout=WAIT_MS)
    del plies


def wait_for_ply(page, plies: int) -> None:
    page.wait_for_selector(f'body[data-plies="{plies}"]', timeout=WAIT_MS)


@pytest.mark.parametrize("language", ["de"])
def test_three_people_play_the_card_game_on_their_phones_to_the_final_score(people, language):
    """The table deals; each phone plays from its own hand, capturing where it may."""
    from playwright.sync_api import expect

    table = people("fang_den_hut_cards", 3, language)
    kiosk = table.open("table", "/table")
    new_game(kiosk, {"single_game": True})
    phones = [table.join(seat) for seat in range(3)]
    for phone in phones:  # the deal is the table's, not a phone's
        expect(phone.locator("#draw")).to_be_disabled(timeout=WAIT_MS)
    kiosk.click("#draw")
    table.check()
    table.shoot("dealt")
    captures = 0
    for ply in range(30):
        for page in (kiosk, *phones):
            wait_for_ply(page, ply)
        mover = next(p for p in phones if p.locator('body[data-yours="yes"]').count())
        expect(mover.locator(".hand-card").first).to_be_visible(timeout=WAIT_MS)
        mover.locator(".hand-card").first.click()
        capture = mover.locator(".card-actions .capture")
        expect(mover.locator("#play-alone")).to_be_visible(timeout=WAIT_MS)
        if capture.count():
            capture.first.click()
            captures += 1
        else:
            mover.click("#play-alone")
        if ply in (1, 15):
            wait_for_ply(kiosk, ply + 1)
            table.check()
            table.shoot(f"ply{ply + 1}")
    expect(kiosk.locator("#outcome")).to_be_visible(timeout=WAIT_MS)
    expect(kiosk.locator("#outcome .scores li")).to_have_count(3)
    for phone in phones:
        expect(phone.locator("#outcome")).to_be_visible(timeout=WAIT_MS)
    assert captures > 0, "nobody captured a stack in a whole game"
    table.check()
    table.shoot("over")
