"""Projecting what a perfect camera sees onto what each sensor kind reports."""

from __future__ import annotations

import pytest

from engines import GAMES, RulesError, load_game
from engines.observation import PIECE, project


@pytest.mark.parametrize("name", GAMES)
def test_presence_sensors_see_where_pieces_stand_but_not_which(name):
    game = load_game(name)
    seen = game.observe(game.initial_state())
    hall = project(seen, "presence")
    assert hall.keys() == seen.keys()
    assert {cell for cell, token in hall.items() if token == PIECE} == {
        cell for cell, token in seen.items() if token is not None
    }
    # a table game (Hägar) starts with nothing on the table at all
    assert set(hall.values()) <= {PIECE, None}


def test_two_positions_differing_only_in_colours_look_alike_to_hall_sensors():
    game = load_game("catch_the_hare")
    seen = game.observe(game.initial_state())
    swapped = {**seen, "c3": "hunter", "a1": "hare"}
    assert project(seen, "presence") == project(swapped, "presence")
    assert project(seen, "camera") != project(swapped, "camera")


def test_an_unknown_sensor_kind_is_refused():
    with pytest.raises(RulesError, match="unknown sensor kind 'sonar'"):
        project({}, "sonar")
