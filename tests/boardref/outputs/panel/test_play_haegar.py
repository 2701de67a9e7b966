"""Hägar played by two people to the final score, by tapping only, in German: the
kiosk (``/table``) and both phones (joined by their QR codes) open at once. Each seat
draws its coaster on its phone, taps a spot and a facing to lay it, then a token
button; after the last coaster the starting player rolls the die on the phone, and
each seat makes its last move (a Hägar moved, or a pass). No board is read: Hägar is
a panel game. Nothing here is timed: waits are generous, so a busy machine cannot
fail it.
"""

from __future__ import annotations

import random

import pytest

from tests.boardref.at_the_table import WAIT_MS
from tests.boardref.conftest import needs_chromium

pytestmark = [needs_chromium, pytest.mark.browser]


def changed(page, phase: str, plies: str) -> None:
    """Until the page shows another phase or another count of moves."""
    page.wait_for_function(
        "([phase, plies]) => document.body.dataset.phase !== phase"
        " || document.body.dataset.plies !== plies",
        arg=[phase, plies],
        timeout=WAIT_MS,
    )


def take_turn(phone, choose: random.Random, seen: dict[str, int]) -> None:
    """What the seat whose phone this is does now: draw, lay a coaster by its spot and
    facing, tap a token button, or in the last round a Hägar and where it goes."""
    phone.bring_to_front()
    body = phone.locator("body")
    phase, plies = body.get_attribute("data-phase"), body.get_attribute("data-plies")
    if phase == "chance":
        seen["draws"] += 1
        phone.click("#draw")
    elif phone.locator("g.spot.tappable").count():
        spots = phone.locator("g.spot.tappable")
        spots.nth(choose.randrange(spots.count())).click()
        facings = phone.locator(".facings button.facing")
        facings.first.wait_for(timeout=WAIT_MS)
        facings.nth(choose.randrange(facings.count())).click()
        seen["laid"] += 1
    else:
        origins = phone.locator("button.hagar-origin")
        if origins.count():  # the last round: which Hägar, then where to
            origins.nth(choose.randrange(origins.count())).click()
            phone.locator('button.token-move[data-move*="-"]').first.wait_for(timeout=WAIT_MS)
        buttons = phone.locator(".token-moves button.token-move")
        buttons.first.wait_for(timeout=WAIT_MS)
        moves = buttons.evaluate_all("bs => bs.map(b => b.dataset.move)")
        moving = [i for i, move in enumerate(moves) if "-" in move]
        pick = choose.choice(moving) if moving else choose.randrange(len(moves))
        seen["finals" if moving or moves == ["pass"] else "tokens"] += 1
        buttons.nth(pick).click()
    changed(phone, phase, plies)


def test_two_people_play_a_whole_game_of_haegar_in_german_to_the_final_score(people):
    table = people("haegar", 2, "de")
    from playwright.sync_api import expect

    kiosk = table.open("table", "/table")
    phones = [table.join(seat) for seat in range(2)]
    table.check()
    table.shoot("start")
    choose = random.Random(19)
    seen = {"draws": 0, "laid": 0, "tokens": 0, "finals": 0}
    shots = {6: "laying", 12: "all-laid"}
    for _ in range(80):
        if kiosk.locator("#outcome").is_visible():
            break
        mover = next((p for p in phones if p.locator('body[data-yours="yes"]').count()), None)
        if mover is None:  # between two snapshots
            phones[0].wait_for_timeout(100)
            continue
        for other in phones:  # only the seat whose turn it is has something to tap
            if other is not mover:
                expect(other.locator("g.spot.tappable, .token-moves button")).to_have_count(0)
        take_turn(mover, choose, seen)
        if seen["laid"] in shots and kiosk.locator("body").get_attribute("data-phase") != "chance":
            kiosk.wait_for_function(
                "n => document.querySelectorAll('g.coaster').length === n", arg=seen["laid"]
            )
            table.check()
            table.shoot(shots.pop(seen["laid"]))
    expect(kiosk.locator("#outcome")).to_be_visible(timeout=WAIT_MS)
    for phone in phones:
        expect(phone.locator("#outcome")).to_be_visible(timeout=WAIT_MS)
        expect(phone.locator("#landscape-scores.final")).to_be_visible(timeout=WAIT_MS)
    # twelve coasters and the die drawn on the phones, the last round tapped
    assert seen == {"draws": 13, "laid": 12, "tokens": seen["tokens"], "finals": 2}, seen
    assert seen["tokens"] >= 8, seen
    table.check()
    table.shoot("over")
