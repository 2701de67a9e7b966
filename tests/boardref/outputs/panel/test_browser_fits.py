"""Every page of every game fits a phone: at 390 px wide nothing runs off to the side
(a page that scrolls sideways hides its buttons from a thumb), in English and in
German, in the middle of a game and at its end (the score tables are widest there).
Pages are opened as people open them, the phone joined by its seat's QR code."""

from __future__ import annotations

import httpx
import pytest

from engines import load_game
from tests.boardref.conftest import PIN, needs_chromium, new_game
from tests.boardref.outputs.panel.test_browser_games import (
    WAIT_MS,
    join_by_qr,
    played,
    set_position,
)

pytestmark = [needs_chromium, pytest.mark.browser]
PHONE = {"width": 390, "height": 844}
LOCALES = {"en": "en-US", "de": "de-DE"}
#: each game, its players, and its position: after this many draws and moves, or at
#: its end (None) for the games whose random play ends quickly
GAMES = {
    "sternhalma": (3, 12),
    "catch_the_hare": (2, 10),
    "hakenschlagen": (4, 14),
    "fang_den_hut": (4, 30),
    "fang_den_hut_cards": (4, None),
    "haegar": (3, None),
}
PAGES = ("/table", "/sim", "/watch", "/play/0", "/referee", "/games")


def steps(name: str, players: int, count: int | None) -> dict:
    """The record of ``name`` after ``count`` random draws and moves (None: its end)."""
    game, taken = load_game(name, players=players), []  # the positions played so far

    def enough(state) -> bool:
        taken.append(state)
        return game.outcome(state) is not None or (count is not None and len(taken) > count)

    return played(name, players, 5, enough)


def sideways(page) -> int:
    """How far the page runs over the phone's width, in CSS pixels."""
    return page.evaluate("document.documentElement.scrollWidth") - PHONE["width"]


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("name", list(GAMES))
def test_no_page_scrolls_sideways_on_a_phone(sim_table, browser, name, language):
    players, count = GAMES[name]
    new_game(sim_table, name, players)
    set_position(sim_table, steps(name, players, count))
    context = browser.new_context(locale=LOCALES[language], viewport=PHONE)
    page = context.new_page()
    # the referee logs in (the cookie is the context's), the phone joins by its code
    assert page.request.post(f"{sim_table}/api/referee/login", data={"pin": PIN}).ok
    over = {}
    for path in PAGES:
        if path.startswith("/play/"):
            join_by_qr(page, sim_table, 0)
        else:
            page.goto(sim_table + path)
        drawn = "#list" if path == "/games" else "#turn:not(:empty)"
        page.wait_for_selector(drawn, timeout=WAIT_MS)
        page.wait_for_load_state("networkidle")
        if sideways(page) > 0:
            over[path] = sideways(page)
    context.close()
    assert httpx.get(f"{sim_table}/api/state").json()["game"] == name
    assert not over, f"{name} in {language}: pages wider than a phone (px over): {over}"
