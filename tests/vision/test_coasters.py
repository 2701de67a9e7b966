"""Hägar's coasters seen by the camera, on a few rendered frames (accuracy over many
layouts is `boardref vision eval --game haegar` and bench/bench_vision.py's job)."""

from __future__ import annotations

import copy
import json
import random

import numpy as np
import pytest
from typer.testing import CliRunner

from boardref.cli.app import app
from engines import load_game
from engines.chance import Stream
from engines.players import random_playout
from vision.coasters.mat import layout_of, mat_board
from vision.coasters.reader import CoasterReader
from vision.coasters.render import CoasterRenderer
from vision.render import random_scene


@pytest.fixture(scope="module")
def table():
    game = load_game("haegar")
    scene = random_scene(mat_board(game), 11, "easy")
    return game, CoasterRenderer(game, scene, 11), scene.lens


@pytest.fixture(scope="module")
def _unlocated(table):
    game, _, lens = table
    return CoasterReader(game, lens)


@pytest.fixture
def new_reader(_unlocated):
    """A reader that has not located the mat yet, as made anew (its pictures of every
    coaster are drawn once per module)."""
    detector = _unlocated.locator.detector  # OpenCV's detector cannot be copied
    return lambda: copy.deepcopy(
        _unlocated, {id(_unlocated.game): _unlocated.game, id(detector): detector}
    )


def _laid(coaster: str, turn: int, game) -> dict:
    """A ``game.observe`` dict with only ``coaster`` on the first spot at ``turn``."""
    seen = dict.fromkeys(cell.id for cell in game.board.cells)
    for corner, printed, _ in game.coasters[coaster].on_table(turn):
        seen[f"n0e0_{corner}"] = f"{coaster}_{printed}"
    return seen


def test_rendered_layouts_of_random_games_read_exactly_as_the_engine_observes_them(
    table, new_reader
):
    game, camera, lens = table
    reader = new_reader()
    pick = random.Random(5)
    for n in range(3):
        states = random_playout(game, game.initial_state(), pick, Stream(b"layout %d" % n))
        state = states[len(states) * (n + 1) // 4]
        truth = game.observe(state)
        reading = reader.read(camera.frame(truth))
        assert reading.found
        assert reading.observation(game) == truth
        spots, _ = layout_of(game, truth)
        assert {s: (r.coaster, r.turn) for s, r in reading.spots.items()} == spots


@pytest.mark.parametrize("turn", range(4))
def test_an_all_land_coaster_is_read_at_its_turn_from_its_printed_gold_and_shield(
    table, turn, new_reader
):
    game, camera, lens = table
    assert {f.landscape for f in game.coasters["c02"].fields.values()} == {"land"}
    reading = new_reader().read(camera.frame(_laid("c02", turn, game)))
    assert set(reading.spots) == {"n0e0"}
    spot = reading.spots["n0e0"]
    assert (spot.coaster, spot.turn) == ("c02", turn)
    assert dict(spot.quarters) == dict.fromkeys(("sw", "se", "nw", "ne"), "land")


def test_quarters_follow_the_turn(table, new_reader):
    game, camera, lens = table
    reading = new_reader().read(camera.frame(_laid("c01", 1, game)))
    # c01 upright: nw water, ne water (skull), sw forest, se land; a quarter turn
    # clockwise brings nw to ne, ne to se, se to sw, sw to nw
    assert dict(reading.spots["n0e0"].quarters) == {
        "ne": "water",
        "se": "water",
        "sw": "land",
        "nw": "forest",
    }


def test_a_hand_over_a_coaster_makes_the_reading_unclear_there(table, new_reader):
    game, _, lens = table
    # its own renderer: the shared one's draws (and so this hand) depend on the tests
    # before; a palm over a spot reads as the all-land c02 in about 1 of 20 draws,
    # which is why the referee's camera reads no frame with a hand in view at all
    camera = CoasterRenderer(game, random_scene(mat_board(game), 11, "easy"), 11)
    reader = new_reader()
    laid = _laid("c07", 2, game)
    assert reader.read(camera.frame(laid)).clear
    reading = reader.read(camera.frame(laid, hands=("n0e0",)))
    assert reading.found and not reading.clear
    assert "n0e0" in reading.unclear and "n0e0" not in reading.spots


def test_an_empty_table_reads_empty(table, new_reader):
    game, camera, lens = table
    reading = new_reader().read(camera.frame(dict.fromkeys(game.board.index)))
    assert reading.clear and reading.problem is None
    assert reading.spots == {} and reading.tokens == {}
    assert set(reading.observation(game).values()) == {None}


@pytest.mark.parametrize(
    "frame",
    [
        np.zeros((720, 1280, 3), np.uint8),
        np.full((720, 1280, 3), 255, np.uint8),
        np.zeros((720, 1280), np.uint8),
        None,
    ],
    ids=["black", "white", "grey-scale", "none"],
)
def test_a_frame_that_is_no_picture_says_so(table, frame, new_reader):
    game, _, lens = table
    reading = new_reader().read(frame)
    assert not reading.found and reading.spots == {}
    assert reading.problem.startswith("no picture")


def test_a_table_without_the_mat_is_not_found(table, new_reader):
    game, _, lens = table
    noise = np.random.default_rng(3).integers(60, 200, (720, 1280, 3), dtype=np.uint8)
    reading = new_reader().read(noise)
    assert not reading.found
    assert reading.problem.startswith("table not found")


@pytest.mark.slow
def test_vision_eval_for_haegar_prints_the_layout_rates():
    result = CliRunner().invoke(
        app, ["vision", "eval", "--game", "haegar", "--frames", "2", "--seed", "3"]
    )
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    for key in ("position", "rotation", "quarters", "tokens"):
        assert 0 <= figures[f"{key}_exact_rate"] <= 1
    assert figures["frames"] == 2 and figures["ms_per_frame_p50"] > 0


def test_the_marker_sheet_for_haegar_holds_the_mats_markers(tmp_path):
    import cv2

    out = tmp_path / "mat.png"
    result = CliRunner().invoke(app, ["vision", "markers", "--game", "haegar", "--out", str(out)])
    assert result.exit_code == 0, result.output
    sheet = cv2.imread(str(out), cv2.IMREAD_GRAYSCALE)
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    _, ids, _ = detector.detectMarkers(sheet)
    game = load_game("haegar")
    assert sorted(ids.ravel().tolist()) == [m.id for m in mat_board(game).markers]
