"""Hägar's table as the referee's sensor (``vision.coasters.sensor``): observations in
``game.observe``'s form with a confidence per field, nothing read while a hand is in
view, a still table read once, and a change seen even when nothing moved enough for
the stillness check."""

from __future__ import annotations

import pytest

from engines import load_game
from vision.coasters.mat import mat_board
from vision.coasters.render import CoasterRenderer
from vision.coasters.sensor import CoasterSensor
from vision.render import random_scene


@pytest.fixture
def table():
    game = load_game("haegar", players=2)
    scene = random_scene(mat_board(game), 11, "easy", (640, 360))
    sensor = CoasterSensor(game, scene.lens)
    camera = CoasterRenderer(game, scene, 11)
    bare = dict.fromkeys(cell.id for cell in game.board.cells)
    assert sensor.learn(camera.frame(bare), bare)
    return game, sensor, camera


def _played(game, *moves: str):
    state = game.resolve(game.initial_state(), moves[0].split()[0])
    for text in moves:
        state = game.apply(state, game.parse_move(state, text))
    return game.observe(state)


def _still(sensor, camera, tokens, frames: int = 5):
    """The observations of ``frames`` frames of a still table holding ``tokens``."""
    return [sensor.feed(camera.frame(tokens)) for _ in range(frames)]


def test_a_still_table_is_observed_as_the_engine_observes_it_and_read_once(table):
    game, sensor, camera = table
    laid = _played(game, "c01 n0e0 east")
    seen = _still(sensor, camera, laid, 7)
    assert seen[:3] == [None, None, None], "the first frames after a change settle"
    assert seen[3].tokens == laid
    assert all(later is seen[3] for later in seen[4:]), "an unchanged view is not read again"
    assert min(seen[3].confidence[f"n0e0_{c}"] for c in ("sw", "se", "nw", "ne")) > 0.9


def test_a_token_put_down_is_seen_even_when_the_stillness_check_saw_no_movement(table):
    game, sensor, camera = table
    laid = _played(game, "c01 n0e0 east")
    _still(sensor, camera, laid)
    with_token = _played(game, "c01 n0e0 east", "gold n0e0_sw")
    assert with_token != laid
    seen = sensor.feed(camera.frame(with_token))
    assert sensor.status == "still", "a flat gold token moves too few pixels for the check"
    assert seen is not None and seen.tokens == with_token


def test_no_frame_with_a_hand_over_the_mat_is_observed(table):
    game, sensor, camera = table
    laid = _played(game, "c01 n0e0 east")
    _still(sensor, camera, laid)
    for _ in range(8):
        assert sensor.feed(camera.frame(laid, hands=("n0e0",))) is None
        assert sensor.status in ("moving", "blocked")


def test_fields_the_camera_cannot_tell_are_unknown_with_every_reading_equal(table):
    game, sensor, camera = table
    laid = _played(game, "c01 n0e0 east")
    reading = sensor.coasters.read(camera.frame(laid, hands=("n0e0",)))
    assert reading.unclear, "the hand leaves some spot unclear"
    observation = sensor.observation(reading)
    for spot in reading.unclear:
        name = f"{spot}_sw"
        assert observation.confidence[name] == 0.0
        assert observation.ranked[name] == ((None, 1e-6),)
    beyond = "s7e0_ne"  # a field of the table beyond the mat
    assert observation.confidence[beyond] == 0.0
