"""The kiosk of a card table, in German, in a real Chromium: a card the mover does
not hold, or one played onto a card that tops no stack, is refused with the same
words ("Das ist kein Zug, den Spieler 1 jetzt machen kann: wähl eine Karte auf dem
Handy von Spieler 1"), never the reason that would tell the mover's hand. No page
offers the table an illegal card to tap, so the kiosk page sends it through its own
post(), as a script on the kiosk would; the deal is a click. Screenshot in
$BOARDREF_SHOTS when set."""

from __future__ import annotations

import re

import httpx
import pytest

from tests.boardref.at_the_table import KIOSK, SHOTS
from tests.boardref.conftest import kept_page, needs_chromium, on_board
from tests.boardref.outputs.panel import test_browser_games as games

WAIT_MS = 10_000
table = games.table
GENERIC = (
    "Das ist kein Zug, den Spieler {n} jetzt machen kann: "
    "wähl eine Karte auf dem Handy von Spieler {n}"
)
#: the kiosk page's own post() (core.js beside the page's panel.js)
POST = """async (move) => {
  const panel = document.querySelector('script[type=module]').src;
  const core = await import(new URL("core.js", panel));
  return core.post("/api/play", { move });
}"""

pytestmark = [needs_chromium, pytest.mark.browser]


@pytest.fixture(scope="module")
def german():
    yield from kept_page(locale="de-DE", viewport=KIOSK)


@pytest.mark.parametrize("table", [("fang_den_hut_cards", 3)], indirect=True)
def test_the_kiosk_hears_one_refusal_whatever_the_card(table, german):
    from playwright.sync_api import expect

    kiosk = on_board(german, f"{table}/table")
    kiosk.click("#draw")  # the deal
    expect(kiosk.locator("#draw")).to_be_disabled(timeout=WAIT_MS)
    state = httpx.get(f"{table}/api/state").json()
    generic = GENERIC.format(n=state["to_move"] + 1)
    refusal = kiosk.locator("#refusal")
    # captures, right after the deal: no stack lies on the table yet, so each is refused
    # whether the mover holds the card (no such stack) or not (not in the hand)
    for move in ("red0:blue9", "green5:yellow_blank", "blue9:red0", "yellow2:red1"):
        kiosk.evaluate("() => { document.getElementById('refusal').textContent = ''; }")
        kiosk.evaluate(POST, move)
        expect(refusal).to_contain_text(generic, timeout=WAIT_MS)
        said = refusal.inner_text()
        assert not re.search(r"\bHand\b|oberste", said), said  # "Handy" is the phone
    if SHOTS is not None:
        kiosk.screenshot(path=SHOTS / "refusal-de-card-table-kiosk.png", full_page=True)
