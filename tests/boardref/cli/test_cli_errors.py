"""Every command with bad values (``bad_cli_calls.toml``): one sentence and exit
status 2, never a traceback, and nothing created where a path names no folder."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from boardref.cli.app import app

CALLS = tomllib.loads((Path(__file__).parent / "bad_cli_calls.toml").read_text())["calls"]


def filled(call: list[str], scratch: Path) -> list[str]:
    """The call with its placeholders as paths in ``scratch``."""
    (scratch / "folder").mkdir(exist_ok=True)
    (scratch / "file.txt").write_text("not anything boardref reads\n")
    paths = {"file": scratch / "file.txt", "folder": scratch / "folder"}
    return [part.format(missing=scratch / "nowhere" / "x.db", **paths) for part in call]


@pytest.mark.parametrize("call", CALLS, ids=" ".join)
def test_a_bad_value_is_refused_in_one_sentence(call, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, filled(call, tmp_path))
    said = result.output
    assert isinstance(result.exception, SystemExit | None), repr(result.exception)
    assert "Traceback" not in said
    assert result.exit_code == 2, said
    assert said.strip(), "it says why"
    assert not (tmp_path / "nowhere").exists(), "nothing is made for a typo"


def test_the_seats_the_computer_plays_are_named_in_words(tmp_path):
    result = CliRunner().invoke(app, ["simulate", "--computer", "x,y"])
    assert result.exit_code == 2
    assert "name seats by number, e.g. 1 or 0,2" in result.output
    assert "invalid literal" not in result.output
    result = CliRunner().invoke(app, ["simulate", "--computer", "9"])
    assert "this game has 2 seats, numbered 0 to 1" in result.output
