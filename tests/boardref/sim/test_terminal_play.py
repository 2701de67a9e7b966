"""`boardref play`: the terminal demo plays a refereed game to its end."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from boardref.cli.app import app
from boardref.sim.terminal import play


def test_a_random_game_is_played_to_its_end_and_mistakes_are_refused():
    lines: list[str] = []
    summary = play(
        "sternhalma", 3, seed=1, max_plies=40, delay=0, wrong_tries=0.5, say=lines.append
    )
    assert summary["reason"] == "move limit of 40 reached"
    assert summary["refused"] > 0
    assert sum("refused" in line for line in lines) == summary["refused"]
    assert lines[-1].startswith("\nGame over")
    assert lines[0].count("R") == 10  # the start position: ten red pieces


def test_the_sentences_read_well_for_a_side_named_in_the_plural():
    lines: list[str] = []
    play("catch_the_hare", 2, seed=3, max_plies=20, delay=0, wrong_tries=1, say=lines.append)
    said = "\n".join(lines)
    assert "by the hunters" in said
    assert "the hunters tries" not in said and "the hunters plays" not in said


def test_the_command_prints_a_json_summary():
    result = CliRunner().invoke(
        app, ["play", "--game", "catch_the_hare", "--seed", "2", "--delay", "0"]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output.strip().splitlines()[-1])
    assert summary["reason"]


def test_an_unknown_game_is_a_clear_error_not_a_traceback():
    result = CliRunner().invoke(app, ["play", "--game", "chess"])
    assert result.exit_code == 2
    assert "no game 'chess'" in result.output


def test_pin_hash_prints_a_hash_the_panel_accepts():
    from boardref.outputs.panel.access import check_pin

    result = CliRunner().invoke(app, ["pin-hash", "--pin", "864213"])
    assert result.exit_code == 0
    stored = result.output.strip()
    assert stored.startswith("scrypt$") and check_pin("864213", stored)
    assert not check_pin("864214", stored)


@pytest.mark.parametrize("pin", ["12", "8642", "86421"])
def test_pin_hash_refuses_a_pin_of_fewer_than_six_characters(pin):
    refused = CliRunner().invoke(app, ["pin-hash", "--pin", pin])
    assert refused.exit_code == 2
    assert refused.output.strip() == "error: a PIN has 6 to 32 characters"
