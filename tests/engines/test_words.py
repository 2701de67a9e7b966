"""Every sentence an engine says has a key in each language's word table.

The keys are read from the source (``words("key", "template", ...)`` calls), so a
new refusal without its translations fails here, not on a German player's panel.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import engines
from engines import GAMES, load_game
from engines.words import placeholders

ENGINES = Path(engines.__file__).parent
TABLES = Path(__file__).parents[2] / "boardref" / "outputs" / "panel" / "i18n"
LANGUAGES = ("en", "de")
ERRORS = {
    "RulesError",
    "IllegalMove",
    "NotationError",
    "RecordError",
    "OptionError",
    "SetupError",
    "BoardFileError",
}
#: raises that may stay plain English, each with why
PLAIN = {
    # an owner edits board files; the message names the file for the log, not a page
    "BoardFileError": "board files are read by their owner in the log",
}


def _calls() -> list[tuple[str, ast.Call]]:
    found = []
    for path in sorted(ENGINES.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "words":
                found.append((f"{path.relative_to(ENGINES)}:{node.lineno}", node))
    return found


def _table(language: str) -> dict[str, str]:
    return json.loads((TABLES / language / "rules.json").read_text(encoding="utf-8"))


@pytest.mark.slow
def test_every_words_call_names_a_literal_key_and_english_template():
    for where, call in _calls():
        key, english = call.args[:2]
        assert isinstance(key, ast.Constant) and isinstance(key.value, str), where
        assert isinstance(english, ast.Constant) and isinstance(english.value, str), where
        assert key.value.startswith(("rules.", "seat.")), where
        given = {keyword.arg for keyword in call.keywords}
        assert given == placeholders(english.value), where


def test_each_key_has_one_english_template():
    seen: dict[str, str] = {}
    for where, call in _calls():
        key, english = call.args[0].value, call.args[1].value
        assert seen.setdefault(key, english) == english, f"{where}: {key} said two ways"


@pytest.mark.slow
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_key_is_in_the_word_table_with_the_same_placeholders(language):
    table = _table(language)
    for where, call in _calls():
        key, english = call.args[0].value, call.args[1].value
        assert key in table, f"{where}: {key} missing from {language}/rules.json"
        assert placeholders(table[key]) == placeholders(english), f"{language}: {key}"
        if language == "en":
            assert table[key] == english, key


def test_the_tables_hold_no_key_the_engines_do_not_say():
    said = {call.args[0].value for _, call in _calls()}
    for language in LANGUAGES:
        # "<key>.watching" is how a spectator's page says a key the engines say
        keys = {key.removesuffix(".watching") for key in _table(language)}
        assert keys == said, language


def test_no_refusal_is_a_plain_sentence():
    for path in sorted(ENGINES.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
                continue
            name = getattr(node.exc.func, "id", None)
            if name not in ERRORS or name in PLAIN or not node.exc.args:
                continue
            said = node.exc.args[0]
            plain = isinstance(said, ast.JoinedStr | ast.BinOp) or (
                isinstance(said, ast.Constant) and isinstance(said.value, str)
            )
            assert not plain, f"{path.name}:{node.lineno}: raise {name} with words(...)"


def test_every_outcome_reason_is_words():
    for path in sorted(ENGINES.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Outcome":
                reason = node.args[1] if len(node.args) > 1 else None
                assert not isinstance(reason, ast.JoinedStr | ast.Constant), (
                    f"{path.name}:{node.lineno}"
                )


@pytest.mark.parametrize("name", GAMES)
def test_every_seat_of_every_game_is_named_in_both_tables(name):
    tables = {language: _table(language) for language in LANGUAGES}
    for players in load_game(name).player_counts:
        game = load_game(name, players)
        for seat in range(players):
            said = game.seat_words(seat)
            assert said.key.startswith("seat.") and said.key != "seat.colour", (name, seat)
            assert game.seat_name(seat) == str(said)
            for language, table in tables.items():
                assert said.key in table, (language, said.key)
