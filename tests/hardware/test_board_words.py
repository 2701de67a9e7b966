"""Every sentence of the board bring-up has a key in each language's word table, read
from the source (``words("key", "template", ...)`` calls), so the panel's Board tab
says it in German too."""

import ast
import json
from pathlib import Path

import pytest

from engines.words import placeholders

ROOT = Path(__file__).parents[2]
SOURCES = (
    "hardware/board_check.py",
    "hardware/wiring_wizard.py",
    "hardware/led_test.py",
    "hardware/calibration.py",
    "boardref/outputs/panel/board_routes.py",
)
TABLES = ROOT / "boardref" / "outputs" / "panel" / "i18n"


def _said() -> dict[str, str]:
    found = {}
    for name in SOURCES:
        tree = ast.parse((ROOT / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "words":
                key, english = node.args[0], node.args[1]
                assert isinstance(key, ast.Constant) and isinstance(english, ast.Constant), name
                assert key.value.startswith("board."), key.value
                given = {keyword.arg for keyword in node.keywords}
                assert given == placeholders(english.value), key.value
                assert found.setdefault(key.value, english.value) == english.value, key.value
    return found


@pytest.mark.parametrize("language", ["en", "de"])
def test_every_bring_up_sentence_is_in_the_word_table(language):
    table = json.loads((TABLES / language / "board.json").read_text(encoding="utf-8"))
    said = _said()
    for key, english in said.items():
        assert key in table, f"{key} missing from {language}/board.json"
        assert placeholders(table[key]) == placeholders(english), key
        if language == "en":
            assert table[key] == english, key
    dotted = {key for key in table if key.startswith("board.")}
    assert dotted == set(said), dotted ^ set(said)
