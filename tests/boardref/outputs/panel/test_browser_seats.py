"""Seats claimed once, in a real Chromium on a served ``--sim`` card table (Fang den Hut!
card game, 3 players): the first phone that opens a seat's join link holds the seat; a
second phone (another browser, its own cookies) opening the same link is told in words
and sees no hand; the kiosk hides a joined seat's code and hands the seat over by a
click, the first phone is told and its hand disappears, and the seat's new code lets
the second phone in. A restarted service keeps every phone in its seat: the pages
connect again by themselves and show their hands without rejoining.
"""

from __future__ import annotations

import pytest

from tests.boardref.at_the_table import PHONE, WAIT_MS, Table
from tests.boardref.conftest import PIN, needs_chromium, serve, start_service, stop_service

pytestmark = [needs_chromium, pytest.mark.browser]

ELSEWHERE = {
    "de": "Dieser Platz spielt schon auf einem anderen Handy",
    "en": "This seat has joined on another phone",
}
HANDED_OVER = {
    "de": "Dieser Platz wurde an ein anderes Handy übergeben",
    "en": "This seat was handed over to another phone",
}


def test_a_second_phone_cannot_read_a_joined_seat_and_the_kiosk_hands_it_over(tmp_path, browser):
    from playwright.sync_api import expect

    service, url = serve(tmp_path, "fang_den_hut_cards", 3, settle_ms=150, public=True)
    table = Table(browser, url, "de", "seats")
    other = Table(browser, url, "de", "seats-second")  # another person's phone: own cookies
    try:
        kiosk = other.pages["table"] = table.open("table", "/table")  # both read the kiosk
        kiosk.click("#draw")  # shuffle and deal
        first = table.join(1)
        expect(first.locator(".hand-card").first).to_be_visible(timeout=WAIT_MS)
        joined = kiosk.locator('#join-codes figure[data-seat="1"]')
        expect(joined).to_have_attribute("data-joined", "yes", timeout=WAIT_MS)
        expect(joined.locator("img")).to_have_count(0)
        expect(kiosk.locator('#join-codes figure[data-seat="0"] img')).to_have_count(1)

        # the same link, read off a photo of the code, on another phone
        link = first.url[len(url) :]
        thief = other.open("seat 1", link, PHONE)
        expect(thief.locator("#seat-standing")).to_contain_text(ELSEWHERE["de"], timeout=WAIT_MS)
        expect(thief.locator("#not-joined")).to_be_visible()
        assert thief.locator(".hand-card").count() == 0
        table.shoot("joined")
        other.shoot("refused")

        joined.locator("button.hand-over").click()
        expect(first.locator("#seat-standing")).to_contain_text(HANDED_OVER["de"], timeout=WAIT_MS)
        expect(first.locator(".hand-card")).to_have_count(0, timeout=WAIT_MS)
        expect(joined.locator("img")).to_have_count(1, timeout=WAIT_MS)
        table.shoot("handed-over")

        # the old link no longer works anywhere; the new code lets the second phone in
        newcomer = other.join(1)
        expect(newcomer.locator(".hand-card").first).to_be_visible(timeout=WAIT_MS)
        expect(newcomer.locator("#not-joined")).to_be_hidden()
        expect(joined).to_have_attribute("data-joined", "yes", timeout=WAIT_MS)
        other.shoot("joined-anew")
        del other.pages["table"]  # the kiosk is checked once, with its own table
        table.check()
        other.check()
    finally:
        other.close()
        table.close()
        stop_service(service)


def test_a_restart_keeps_every_phone_in_its_seat(tmp_path, browser):
    from playwright.sync_api import expect

    service, url = serve(tmp_path, "fang_den_hut_cards", 3, settle_ms=150, public=True)
    table = Table(browser, url, "en", "seats-restart")
    try:
        kiosk = table.open("table", "/table")
        kiosk.click("#draw")
        phones = [table.join(seat) for seat in range(3)]
        for phone in phones:
            expect(phone.locator(".hand-card").first).to_be_visible(timeout=WAIT_MS)
        hands = [sorted(p.locator(".hand-card").all_inner_texts()) for p in phones]

        stop_service(service)
        for phone in phones:
            expect(phone.locator("body[data-connected='no']")).to_have_count(1, timeout=WAIT_MS)
        port = int(url.rsplit(":", 1)[1])
        service = start_service(tmp_path, port, "--config", str(tmp_path / "config.toml"))

        for phone, hand in zip(phones, hands, strict=True):
            expect(phone.locator("body[data-connected='yes']")).to_have_count(1, timeout=WAIT_MS)
            expect(phone.locator(".hand-card").first).to_be_visible(timeout=WAIT_MS)
            assert sorted(phone.locator(".hand-card").all_inner_texts()) == hand
            expect(phone.locator("#not-joined")).to_be_hidden()
        for seat in range(3):  # the kiosk still shows every seat as joined, no codes
            figure = kiosk.locator(f'#join-codes figure[data-seat="{seat}"]')
            expect(figure).to_have_attribute("data-joined", "yes", timeout=WAIT_MS)
        table.shoot("restarted")
        # the pages' tries to connect while the service was down are Chromium's to log
        table.errors = [e for e in table.errors if "ERR_CONNECTION_REFUSED" not in e]
        table.check()
    finally:
        table.close()
        stop_service(service)


def test_the_referee_hands_a_seat_over_from_the_referee_page(tmp_path, browser):
    from playwright.sync_api import expect

    service, url = serve(tmp_path, "fang_den_hut_cards", 3, settle_ms=150, public=True)
    table = Table(browser, url, "en", "seats-referee")
    referee = Table(browser, url, "en", "seats-referee-phone")  # the referee's own phone
    try:
        kiosk = table.open("table", "/table")
        first = table.join(2)
        expect(first.locator("#not-joined")).to_be_hidden(timeout=WAIT_MS)
        page = referee.open("referee", "/referee", PHONE)
        expect(page.locator("#join-codes figure")).to_have_count(0)  # not before the PIN
        page.fill("#pin", PIN)
        page.click("#login")
        joined = page.locator('#join-codes figure[data-seat="2"]')
        expect(joined).to_have_attribute("data-joined", "yes", timeout=WAIT_MS)
        referee.shoot("logged-in")
        joined.locator("button.hand-over").click()
        expect(first.locator("#seat-standing")).to_contain_text(HANDED_OVER["en"], timeout=WAIT_MS)
        expect(joined.locator("img")).to_have_count(1, timeout=WAIT_MS)
        expect(kiosk.locator('#join-codes figure[data-seat="2"] img')).to_have_count(1)
        referee.shoot("handed-over")
        table.check()
        referee.check()
    finally:
        referee.close()
        table.close()
        stop_service(service)
