"""Every word a person can be shown exists in German and English, with the same
placeholders: the keys the Python side says (read from the source: each is a literal
beside its English), the keys the pages say, and the tokens and phases said by name."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from boardref.outputs.panel.words import LANGUAGES, table
from engines import load_game
from engines.words import placeholders

ROOT = Path(__file__).resolve().parents[4]
STATIC = ROOT / "boardref" / "outputs" / "panel" / "static"


def said_in_python() -> dict[str, str]:
    """Every ``words("key", "English", ...)`` / ``Words("key", "English")`` with literals."""
    found = {}
    for path in [*ROOT.glob("boardref/**/*.py"), *ROOT.glob("engines/**/*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (
                isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("words", "Words")
            ):
                continue
            key, english = (node.args + [None, None])[:2]
            if isinstance(key, ast.Constant) and isinstance(english, ast.Constant):
                found[key.value] = english.value
    return found


def said_in_pages() -> set[str]:
    """Keys the pages name literally: say("key"...) and data-say="key"."""
    keys = set()
    for path in STATIC.glob("**/*.js"):
        keys |= set(re.findall(r"""\bsay\(\s*["']([\w.]+)["']""", path.read_text(encoding="utf-8")))
    for path in STATIC.glob("*.html"):
        html = path.read_text(encoding="utf-8")
        keys |= set(re.findall(r'data-say(?:-placeholder)?="([\w.]+)"', html))
    return {key for key in keys if "{{" not in key}


PYTHON = said_in_python()


def test_the_python_side_says_some_words():
    assert "referee.capture" in PYTHON and len(PYTHON) > 30


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_key_the_python_side_says_is_in_the_table_with_its_placeholders(language):
    words = table(language)
    missing = sorted(set(PYTHON) - set(words))
    assert not missing, f"{language} lacks {missing}"
    differ = {
        key: (placeholders(english), placeholders(words[key]))
        for key, english in PYTHON.items()
        if placeholders(english) != placeholders(words[key])
    }
    assert not differ, differ


def test_the_english_table_says_what_the_code_says():
    english = table("en")
    differ = {key: (text, english[key]) for key, text in PYTHON.items() if english[key] != text}
    assert not differ, differ


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_key_a_page_says_is_in_the_table(language):
    missing = sorted(said_in_pages() - set(table(language)))
    assert not missing, f"{language} lacks {missing}"


def test_both_languages_have_the_same_keys_and_placeholders():
    en, de = table("en"), table("de")
    assert set(en) == set(de), set(en) ^ set(de)
    differ = [key for key in en if placeholders(en[key]) != placeholders(de[key])]
    assert not differ, differ


def test_every_phase_and_every_token_a_game_shows_has_words():
    from boardref.referee.kinds import Phase

    words = table("de")
    for phase in (Phase.SETUP, Phase.CHANCE, Phase.MOVE, Phase.AMBIGUOUS, Phase.OVER):
        assert f"phase_{phase}" in words
    # the board games' pieces; a stack ("red+red") is said part by part
    for name in ("sternhalma", "catch_the_hare", "hakenschlagen", "fang_den_hut"):
        game = load_game(name, max(load_game(name).player_counts))
        shown = game.observe(game.initial_state()).values()
        tokens = {part for t in shown if t is not None for part in t.split("+")} | {"piece"}
        missing = sorted(t for t in tokens if f"token.{t}" not in words)
        assert not missing, f"{name}: no words for tokens {missing}"
