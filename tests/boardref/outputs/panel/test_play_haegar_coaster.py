"""Hägar's coaster in hand, by tapping only: a German phone turns its coaster by
tapping it, sees it lie on the chosen spot before laying it, and lays it as turned;
and a guest plays a whole game against the computer on the kiosk, the computer's
turns told in whole sentences. Nothing here is timed: waits are generous.
"""

from __future__ import annotations

import random
import re

import httpx
import pytest

from tests.boardref.at_the_table import WAIT_MS
from tests.boardref.conftest import needs_chromium
from tests.boardref.outputs.panel.test_play_games import new_game
from tests.boardref.outputs.panel.test_play_haegar import changed, take_turn

pytestmark = [needs_chromium, pytest.mark.browser]

SIDES = ["north", "east", "south", "west"]


def test_a_phone_turns_its_coaster_by_tapping_and_lays_it_as_it_was_previewed(people):
    from playwright.sync_api import expect

    table = people("haegar", 2, "de")
    kiosk = table.open("table", "/table")
    phone = table.join(0)
    phone.bring_to_front()
    expect(phone.locator('body[data-yours="yes"]')).to_have_count(1, timeout=WAIT_MS)
    phone.click("#draw")
    in_hand = phone.locator("#coaster-in-hand")
    picture = in_hand.locator("svg.coaster-picture")
    # drawn as a coaster, upright, and said once: "Gezogen" shows nothing more
    expect(picture.locator(".field-area")).to_have_count(4, timeout=WAIT_MS)
    expect(in_hand).to_have_attribute("data-facing", "north")
    expect(phone.locator("#drawn")).to_be_hidden()
    expect(in_hand).to_contain_text("tippe ihn an")
    upright = picture.inner_html()
    picture.click()  # a quarter turn clockwise
    expect(in_hand).to_have_attribute("data-facing", "east")
    assert picture.inner_html() != upright, "the picture did not turn"
    phone.locator("g.spot.tappable").first.click()
    preview = phone.locator("g.coaster-preview")
    expect(preview.locator(".field-area")).to_have_count(4, timeout=WAIT_MS)
    facing = preview.get_attribute("data-facing")
    # the four facings drawn, the one it lies at marked
    buttons = phone.locator(".facings button")
    expect(buttons).to_have_count(4)
    expect(buttons.locator("svg.coaster-picture")).to_have_count(4)
    expect(phone.locator(".facings button.chosen")).to_have_attribute("data-facing", facing)
    table.check()
    table.shoot("previewed")
    turned = facing
    for _ in range(4):  # tapped where it lies, it turns there, to a facing that fits
        preview.click()
        turned = SIDES[(SIDES.index(turned) + 1) % 4]
        expect(phone.locator("g.coaster-preview")).to_have_attribute("data-facing", turned)
        expect(in_hand).to_have_attribute("data-facing", turned)
        if phone.locator(f'.facings button.facing[data-facing="{turned}"]').count():
            break
        expect(phone.locator(".lay-help")).to_contain_text("darf er hier nicht liegen")
    phone.locator(f'.facings button.facing[data-facing="{turned}"]').click()
    laid = kiosk.locator(".over .coaster")
    expect(laid).to_have_count(1, timeout=WAIT_MS)
    coaster, spot, lies = httpx.get(f"{table.url}/api/state").json()["record"]["laid"][0]
    assert lies == turned, "laid otherwise than it was shown"
    expect(phone.locator("#drawn")).to_be_hidden()  # no upright description of it left
    table.check()
    table.shoot("laid")


#: the computer's turns in whole sentences, and what they used to say
COMPUTER_SAYS = re.compile(
    r"^The computer (lays its coaster|puts a Hägar|puts its gold|moves its Hägar|leaves its)"
)
HALF_SENTENCE = re.compile(r"The computer plays (A coaster|Move|Put|Leave)")


def test_a_guest_plays_haegar_against_the_computer_to_the_end_on_the_kiosk(people):
    from playwright.sync_api import expect

    table = people("haegar", 2, "en")
    kiosk = table.open("table", "/table")
    new_game(kiosk, computer=(1,))
    guest = kiosk.locator('#join-codes figure[data-seat="0"] figcaption').inner_text()
    choose = random.Random(23)
    seen = {"draws": 0, "laid": 0, "tokens": 0, "finals": 0}
    told = set()
    for _ in range(100):
        if kiosk.locator("#outcome").is_visible():
            break
        # whose turn, the phase and the count of moves from one snapshot of the page: read
        # one by one, the computer could move between them, and the test would wait for a
        # change only the guest can make
        turn, phase, plies = kiosk.evaluate(
            "() => [document.getElementById('turn').innerText,"
            " document.body.dataset.phase, document.body.dataset.plies]"
        )
        if guest.lower() not in turn.lower():  # the computer's draw or turn: it acts by itself
            if phase == "move":  # it is announced for a moment before it is made
                kiosk.wait_for_function(
                    "plies => document.getElementById('message').textContent"
                    ".startsWith('The computer') || document.body.dataset.plies !== plies",
                    arg=plies,
                    timeout=WAIT_MS,
                )
            # what one snapshot shows: the announcement, and the coaster it lays drawn
            message, shown = kiosk.evaluate(
                "() => [document.getElementById('message').innerText,"
                " document.querySelectorAll('g.coaster-preview.computer .field-area').length]"
            )
            assert not HALF_SENTENCE.search(message), message
            if message.startswith("The computer"):
                assert COMPUTER_SAYS.match(message), message
                told.add(COMPUTER_SAYS.match(message).group(1))
                assert shown == (4 if "lays its coaster" in message else 0), (message, shown)
                if len(told) == 1:
                    table.check()
                    table.shoot("computer")
            if phase != "over":
                changed(kiosk, phase, plies)
            continue
        take_turn(kiosk, choose, seen)
    expect(kiosk.locator("#outcome")).to_be_visible(timeout=WAIT_MS)
    expect(kiosk.locator("#landscape-scores.final")).to_be_visible(timeout=WAIT_MS)
    assert seen["laid"] == 6, seen  # the guest's half of the twelve coasters
    assert "lays its coaster" in told, told
    table.check()
    table.shoot("over")
