"""The panel's word tables: every game, variant and choice the new-game dialog offers
has a name and a description in every language, and the languages agree key by key
and placeholder by placeholder."""

from __future__ import annotations

import pytest

from boardref.outputs.panel import words
from engines import GAMES, load_game
from engines.words import placeholders, plural_form, plural_rules


def needed_keys() -> list[str]:
    """The keys the dialog looks up for the games and variants the engines offer."""
    keys = [f"level.{level}" for level in ("easy", "medium", "hard")]
    for name in GAMES:
        keys += [f"game.{name}.title", f"game.{name}.about"]
        for option in load_game(name).OPTIONS:
            keys += [f"option.{name}.{option.name}.title", f"option.{name}.{option.name}.about"]
            for value in option.choices or ():
                keys.append(f"choice.{name}.{option.name}.{value}")
    return keys


@pytest.mark.parametrize("language", words.LANGUAGES)
def test_every_game_variant_and_choice_has_words(language):
    table = words.table(language)
    missing = [key for key in needed_keys() if not table.get(key, "").strip()]
    assert not missing, f"i18n/{language} lacks {missing}"


def test_the_languages_have_the_same_keys_and_placeholders():
    english = words.table("en")
    for language in words.LANGUAGES:
        table = words.table(language)
        assert table.keys() == english.keys(), set(table) ^ set(english)
        for key, text in table.items():
            assert placeholders(text) == placeholders(english[key]), key


def test_the_hare_handicap_is_explained_in_numbers():
    for language in words.LANGUAGES:
        table = words.table(language)
        assert "n" in placeholders(table["option.catch_the_hare.min_hunters.captures"])
        assert "10" in table["option.catch_the_hare.hunters.about"]


@pytest.mark.parametrize("language", words.LANGUAGES)
def test_every_language_has_babels_plural_rules(language):
    """The plural rules kept for the tables' languages are Babel's (CLDR's), cardinal
    and ordinal, and a count is said in the form Babel's whole locale would give."""
    from babel import Locale

    locale, kept = Locale.parse(language), plural_rules()[language]
    assert kept["cardinal"] == locale.plural_form.rules
    assert kept["ordinal"] == locale.ordinal_form.rules
    for count in (0, 1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 1.5):
        assert plural_form(language, count) == locale.plural_form(count)
        assert plural_form(language, count, True) == locale.ordinal_form(count)
