"""The word tables are written by the book: a count is said in its plural form (never
"place(s)"), German says du throughout, a seat's name takes its case, and the service
(Babel) and a page (the browser's Intl.PluralRules) say every entry alike."""

from __future__ import annotations

import re

import pytest

from boardref.outputs.panel.words import LANGUAGES, said, table
from engines.words import arguments, placeholders, render, words

COUNTS = (0, 1, 2, 5)
#: counts that stand with no noun, so have no plural to choose (each with why)
BARE_COUNTS = {
    "prisoners": "a number after a colon: 'Red's prisoners: 3'",
    "sim.supply_left": "'3 left' under a piece's picture",
    "board_map_lit": "'LED 4 of 60': the LEDs are counted, the noun stands before",
    "rules.cannot_draw_bag": "'cannot draw 5 from a bag of 3': the bag's items are unnamed",
}
#: a number said with its noun after a bare {placeholder}: it needs the plural format
COUNTED_NOUNS = re.compile(
    r"\{(?:count\d?|n|players\d?|total|plies|games|left|points|best|hagars|h|gold_laid|"
    r"hunters|molehills|needed|wanted)\} "
    r"(?:places?|fields?|cells?|cards?|moves?|games?|players?|points?|hares?|"
    r"hunters?|marbles?|tables?|pieces?|captures?|beers?|pips?|seats?|molehills?|"
    r"Stellen?|Feld(?:er|ern)?|Karten?|Zug|Züge|Spiele?n?|Spielern?|Punkte?n?|Hasen?|"
    r"Jägern?|Murmeln?|Tische?n?|Figuren?|Biere?|Augen?|Plätze)\b"
)
#: German that is not du: the plural and polite imperatives, ihr and euch (a plural
#: imperative reads like "he starts", so it is looked for where a clause begins)
NOT_DU = re.compile(
    r"\b(?:ihr|euch|euer|eure[mnrs]?|Nehmt|Stellt|Legt|Setzt|Meldet|Tippt|Drückt|Wählt|"
    r"Spielt|Zieht|Würfelt|Bringt|Seid|Habt|Lasst)\b|\b\w+en Sie\b|"
    r"(?:^|[:;.]\s+)(?i:startet|klickt|schafft|versucht|nehmt|stellt|legt|setzt|"
    r"tippt|drückt|wählt|spielt|würfelt|bringt|macht|gebt|wartet|prüft|seht)\b"
)


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_entry_builds_a_plural_by_hand(language):
    by_hand = {k: v for k, v in table(language).items() if re.search(r"\w\((?:s|n|e|en|er)\)", v)}
    assert not by_hand, by_hand


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_count_is_said_in_its_plural(language):
    for key, text in table(language).items():
        bare = [name for name, kind in arguments(text) if name == "count" and kind is None]
        assert not bare or key in BARE_COUNTS, f"{language} {key}: {{count}} without plural"
        assert not COUNTED_NOUNS.search(text), f"{language} {key}: {text}"


def test_german_says_du_throughout():
    wrong = {k: v for k, v in table("de").items() if NOT_DU.search(v)}
    assert not wrong, wrong


def test_a_seat_is_named_in_the_case_its_sentence_asks():
    hunters = words("seat.the_hunters", "the hunters")
    prisoners = {"key": "prisoners", "params": {"seat": hunters.to_json(), "count": 2}}
    assert said("de", prisoners) == "Gefangene von den Jägern: 2"
    assert said("de", hunters) == "die Jäger"
    join = {"key": "join_code", "params": {"seat": words("seat.the_hare", "the hare").to_json()}}
    assert said("de", join) == "Beitrittscode für den Hasen"


def test_a_sentence_that_opens_with_a_name_opens_with_a_capital():
    hunters = words("seat.the_hunters", "the hunters").to_json()
    assert said("en", {"key": "to_move", "params": {"seat": hunters}}) == "The hunters to move"
    assert said("de", {"key": "rules.fang_den_hut_cards.move_no_card_hand",
                       "params": {"seat": hunters}}).startswith("Die Jäger ")


#: a place said as an ordinal, the CLDR way ("22nd place", "22. Platz")
ORDINALS = {
    "en": "{place, selectordinal, one {#st} two {#nd} few {#rd} other {#th}} place",
    "de": "{place, selectordinal, other {#.}} Platz",
}


def _with_counts() -> list[tuple[str, dict]]:
    """Every entry with a plural, its counts set to each of COUNTS and any other value
    to a number (which neither side says differently)."""
    cases = []
    english = table("en")
    for key, text in english.items():
        counted = {name for name, kind in arguments(text) if kind in ("plural", "selectordinal")}
        if not counted:
            continue
        for count in COUNTS:
            values = {name: count if name in counted else 7 for name in placeholders(text)}
            cases.append((key, values))
    return cases


@pytest.fixture
def page(sim_table, browser):
    tab = browser.new_page()
    tab.goto(f"{sim_table}/watch")
    return tab


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_service_and_a_page_say_every_count_alike(page, language):
    cases = _with_counts()
    assert len(cases) > 4 * 20
    hunters = words("seat.the_hunters", "the hunters").to_json()
    cases.append(("prisoners", {"seat": hunters, "count": 3}))
    cases.append(("join_code", {"seat": hunters}))
    in_browser = page.evaluate(
        """async ([lang, cases]) => {
          const panel = document.querySelector('script[src$="panel.js"]').src;
          const core = await import(panel.replace(/panel\\.js$/, "core.js"));
          await core.loadLanguage(lang);
          return cases.map(([key, params]) => core.say(key, params));
        }""",
        [language, cases],
    )
    on_service = [said(language, {"key": key, "params": params}) for key, params in cases]
    differ = [(c, b, s) for c, b, s in zip(cases, in_browser, on_service) if b != s]
    assert not differ, differ[:5]
    ordinal = ORDINALS[language]
    places = (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101)
    browser_places = page.evaluate(
        """async ([lang, template, places]) => {
          const panel = document.querySelector('script[src$="panel.js"]').src;
          const { formatMessage } = await import(panel.replace(/panel\\.js$/, "message.js"));
          return places.map((place) => formatMessage(template, { place }, lang, String));
        }""",
        [language, ordinal, places],
    )
    assert browser_places == [render(ordinal, {"place": p}, language) for p in places]
    if language == "de":
        assert "Gefangene von den Jägern: 3" in in_browser
        assert "2 Stellen" in " ".join(in_browser) and "1 Stelle " in " ".join(in_browser)


def test_every_sentence_for_spectators_stands_beside_its_own():
    for language in LANGUAGES:
        words_of = table(language)
        for key in (k for k in words_of if k.endswith(".watching")):
            assert key.removesuffix(".watching") in words_of, key
            assert not NOT_DU.search(words_of[key]) and "please" not in words_of[key], key


def test_spectators_are_told_what_happens_and_the_table_what_to_do(sim_table, browser):
    """The computer's move on a board: the kiosk asks for it to be carried out, a
    German spectator's page says that it will be."""
    from playwright.sync_api import expect

    from tests.boardref.conftest import new_game, on_board
    from tests.boardref.outputs.panel.test_browser_games import WAIT_MS

    new_game(sim_table, "sternhalma", 2, computer=[0])
    watch = on_board(browser.new_page(locale="de-DE"), f"{sim_table}/watch")
    kiosk = on_board(browser.new_page(locale="en-US"), f"{sim_table}/table")
    expect(kiosk.locator("#message")).to_contain_text(
        "please carry it out on the board", timeout=WAIT_MS
    )
    expect(watch.locator("#message")).to_contain_text("Der Computer", timeout=WAIT_MS)
    expect(watch.locator("#message")).to_contain_text("wird auf dem Brett ausgeführt")
    assert "bitte" not in watch.locator("#message").text_content()


@pytest.mark.parametrize(
    ("game", "language", "label", "then"),
    [
        ("fang_den_hut", "de", "Würfeln", None),
        ("fang_den_hut_cards", "de", "Mischen und austeilen", None),
        ("hakenschlagen", "en", "Lay out the disks", re.compile(r"^Draw (a marble|\d marbles)$")),
    ],
)
def test_the_draw_button_says_what_it_does_for_the_chance_at_hand(
    sim_table, browser, game, language, label, then
):
    from playwright.sync_api import expect

    from tests.boardref.conftest import new_game, on_board
    from tests.boardref.outputs.panel.test_browser_games import WAIT_MS

    new_game(sim_table, game, 2)
    locale = {"de": "de-DE", "en": "en-US"}[language]
    kiosk = on_board(browser.new_page(locale=locale), f"{sim_table}/table")
    expect(kiosk.locator("#draw")).to_have_text(label, timeout=WAIT_MS)
    if then:
        kiosk.click("#draw")
        expect(kiosk.locator("#draw")).to_have_text(then, timeout=WAIT_MS)
