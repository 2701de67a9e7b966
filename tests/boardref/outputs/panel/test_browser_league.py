"""The café league as people meet it, clicking and typing only (``at_the_table``): a
phone joins its seat and gives a nickname, the kiosk shows it on its seat and in its
pick of the café's players, the game is played to its end, the kiosk and the café's
dashboard (over a real mosquitto) show the standings with the names, a standings
row opens the played games behind it, and the kiosk's Rematch starts a new game with
the same players on the same seats (the card game: the table decides who starts, so
the seats stay). In English and in German.
"""

from __future__ import annotations

import pytest

from tests.boardref.at_the_table import KIOSK, WAIT_MS
from tests.boardref.cafe.test_fleet_records import dashboard
from tests.boardref.conftest import needs_chromium
from tests.boardref.outputs.panel.test_play_games import new_game, play_to_the_end
from tests.boardref.outputs.test_fleet import broker  # noqa: F401 (a fixture)
from tests.harness import free_port

pytestmark = [needs_chromium, pytest.mark.browser, pytest.mark.broker]

NAMES = ("Anna", "Ben")


def give_name(phone, name: str) -> None:
    from playwright.sync_api import expect

    expect(phone.locator("#nickname")).to_be_visible(timeout=WAIT_MS)
    phone.fill("#nickname-name", name)
    phone.click("#nickname-give")
    expect(phone.locator("#nickname-now")).to_contain_text(name, timeout=WAIT_MS)


def seat_names(page) -> list[str]:
    return page.locator("#seat-list li").all_inner_texts()


@pytest.mark.parametrize("language", ["en", "de"])
def test_named_players_finish_a_game_see_the_standings_and_rematch(
    people,
    broker,  # noqa: F811
    tmp_path,
    language,
):
    from playwright.sync_api import expect

    port = free_port()
    watching = dashboard(broker.url, port, tmp_path / "records")
    try:
        table = people("fang_den_hut_cards", 2, language, fleet=broker.url)
        kiosk = table.open("table", "/table")
        new_game(kiosk, {"single_game": True})
        # before the first move the kiosk shows the standings: none yet
        expect(kiosk.locator("#standings-none")).to_be_visible(timeout=WAIT_MS)
        phones = [table.join(seat) for seat in range(2)]
        expect(phones[0].locator("#nickname-name")).to_have_value("")  # anonymous by default
        for phone, name in zip(phones, NAMES, strict=True):
            give_name(phone, name)
        for seat, name in enumerate(NAMES):  # the kiosk names each seat's player
            expect(kiosk.locator(f'#seat-list li[data-seat="{seat}"]')).to_contain_text(name)
            picked = kiosk.locator(f'#join-codes select[data-seat="{seat}"] option:checked')
            expect(picked).to_have_text(name, timeout=WAIT_MS)
        for phone in phones:
            expect(phone.locator("#seat-list")).to_contain_text(NAMES[1])
        table.check()
        table.shoot("named")

        play_to_the_end(kiosk, phones)
        outcome = kiosk.locator("#outcome .winners").inner_text()
        # the outcome names the winners (both, when the game ends level)
        winners = [name for name in NAMES if name in outcome]
        assert winners, outcome
        standings = kiosk.locator("#standings")
        for name in NAMES:
            expect(standings.locator(f'tr[data-player="{name}"]')).to_be_visible(timeout=WAIT_MS)
        expect(standings.locator("tr.provisional")).to_have_count(2)  # one game each
        first = standings.locator("tbody tr").first
        assert first.get_attribute("data-player") in winners
        assert first.locator("td").nth(4).inner_text() == "1", "one win"

        cafe = table.context.new_page()
        cafe.set_viewport_size(KIOSK)
        cafe.goto(f"http://127.0.0.1:{port}/")
        on_cafe = cafe.locator('#standings-games section[data-game="fang_den_hut_cards"]')
        for name in NAMES:
            expect(on_cafe.locator(f'tr[data-player="{name}"]')).to_be_visible(timeout=WAIT_MS)
        expect(cafe.locator("#day-tables")).to_contain_text(winners[0], timeout=WAIT_MS)
        table.pages["dashboard"] = cafe
        table.check()
        table.shoot("over")
        del table.pages["dashboard"]

        # a row's games are one tap away: the played-games page lists just that game
        standings.locator(f'tr[data-player="{NAMES[0]}"] a').click()
        expect(kiosk.locator("#games tbody tr")).to_have_count(1, timeout=WAIT_MS)
        kiosk.go_back()
        expect(kiosk.locator("#rematch")).to_be_visible(timeout=WAIT_MS)
        for seat, name in enumerate(NAMES):  # the page back asks for the names again
            expect(kiosk.locator(f'#seat-list li[data-seat="{seat}"]')).to_contain_text(
                name, timeout=WAIT_MS
            )

        before = seat_names(kiosk)
        kiosk.click("#rematch")
        for page in (kiosk, *phones):
            expect(page.locator("#outcome")).to_be_hidden(timeout=WAIT_MS)
            expect(page.locator("body")).to_have_attribute("data-plies", "0", timeout=WAIT_MS)
        for seat, name in enumerate(NAMES):  # the same players on the same seats
            expect(kiosk.locator(f'#seat-list li[data-seat="{seat}"]')).to_contain_text(name)
        assert seat_names(kiosk) == before
        for phone, name in zip(phones, NAMES, strict=True):
            expect(phone.locator("body")).to_have_attribute("data-joined", "yes", timeout=WAIT_MS)
            expect(phone.locator("#nickname-now")).to_contain_text(name, timeout=WAIT_MS)
        # the phone reopened in the rematch offers its name again (the test's phones
        # share one browser, so the name given last)
        expect(phones[-1].locator("#nickname-name")).to_have_value(NAMES[-1])
        # between games again: the standings with the game just played
        expect(standings.locator(f'tr[data-player="{NAMES[0]}"]')).to_be_visible(timeout=WAIT_MS)
        table.check()
        table.shoot("rematch")
    finally:
        watching.terminate()
        watching.wait(timeout=10)
