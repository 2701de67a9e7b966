"""The physically rendered world's ground truth agrees with itself: the camera the
bench hands the reader (matrix, distortion, pose) projects the board as the world's
own lens does, the lens warp inverts, and every piece of the truth is set out on the
board. No tracing here: Mitsuba is not loaded."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from bench.world.camera import develop, distort, pinhole_size, undistort
from bench.world.data import world
from bench.world.scene import board_markers, laid, scene, set_up
from engines import load_game

GAMES = [("sternhalma", {"players": 6}), ("catch_the_hare", {}), ("fang_den_hut", {})]


@pytest.mark.parametrize("seed", [0, 7, 1_000_003])
def test_the_camera_the_reader_is_given_sees_the_board_where_the_world_draws_it(seed):
    game = load_game("catch_the_hare")
    camera = set_up(game, seed).camera
    cells = np.array([[*c.xy, 0.0] for c in game.board.cells])
    opencv = cv2.projectPoints(
        cells, camera.rvec, camera.tvec, camera.matrix, np.array(camera.dist)
    )[0]
    assert np.abs(opencv.reshape(-1, 2) - camera.project(cells)).max() < 1e-6


def test_the_lens_warp_inverts_the_distortion():
    dist = (-0.22, 0.09, 0.002, -0.002, 0.0)
    points = np.random.default_rng(1).uniform(-0.8, 0.8, (200, 2))
    assert np.abs(distort(undistort(points, dist), dist) - points).max() < 1e-6


def test_every_world_lens_reaches_the_frame_s_corners_without_folding_back():
    """A strong barrel lens drawn with a negative k2 turned back inside a wide frame's
    corners (seed 15): the warp found no light for the corners and the pinhole size
    was NaN. A world camera is one a real lens could be."""
    game = load_game("catch_the_hare")
    for seed in [*range(40), *range(1_000_000, 1_000_040)]:
        camera = set_up(game, seed).camera
        w, h = camera.size
        corners = np.array([[0.0, 0.0], [w - 1, 0.0], [0.0, h - 1], [w - 1, h - 1]])
        k = camera.matrix
        normalised = (corners - k[:2, 2]) / k[0, 0]
        ideal = undistort(normalised, camera.dist)
        within_a_pixel = 1 / k[0, 0]
        assert np.abs(distort(ideal, camera.dist) - normalised).max() < within_a_pixel, seed
        assert max(pinhole_size(camera)) < 3 * w, seed


@pytest.mark.parametrize(("name", "options"), GAMES)
def test_every_piece_of_the_truth_is_set_out_near_its_cell(name, options):
    game = load_game(name, **options)
    truth = game.observe(game.initial_state())
    placed = scene(game, set_up(game, 3), truth, 1)
    join = world()["tokens"]["join"]
    expected = sorted(
        (cell, n) for cell, token in truth.items() if token for n in token.split(join)
    )
    assert sorted((p.cell, p.name) for p in placed.pieces) == expected
    for piece in placed.pieces:
        # a home field's hats stand on its ring of spots; every other piece within a few mm
        reach = 40.0 if game.board.cell(piece.cell).kind == "home" else 12.0
        assert np.hypot(*np.subtract(piece.xy, game.board.cell(piece.cell).xy)) < reach


def test_a_board_with_one_marker_or_none_carries_that_many():
    game = load_game("sternhalma")
    every = board_markers(game.board)
    assert len(set_up(game, 5, markers="all").markers) == len(every) == 4
    assert len(set_up(game, 5, markers="one").markers) == 1
    assert set_up(game, 5, markers="none").markers == ()


@pytest.mark.parametrize("seed", [1_500_001, *range(20)])
def test_the_lamp_hangs_above_the_camera_so_its_back_never_fills_the_picture(seed):
    table = set_up(load_game("fang_den_hut"), seed)
    clearance = world()["light"]["lamp_above_camera"]
    assert table.light.lamp[2] >= table.camera.position[2] + clearance - 1e-9


def test_a_black_picture_develops_to_a_black_jpeg_not_a_crash():
    camera = set_up(load_game("catch_the_hare"), 0).camera
    light = np.zeros((*pinhole_size(camera)[::-1], 3), np.float32)
    jpeg = develop(light, camera, np.random.default_rng(0))
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape == (camera.size[1], camera.size[0], 3)
    assert image.mean() < 20


def test_a_figure_on_a_disk_stands_on_the_disk_that_observe_does_not_name():
    game = load_game("hakenschlagen")
    truth = game.observe(game.initial_state())
    cell = next(c for c, token in truth.items() if token is None)
    truth[cell] = "fox"
    placed = scene(game, set_up(game, 3), laid(truth, {cell: "carrot"}), 1)
    on_cell = sorted((p.z, p.name) for p in placed.pieces if p.cell == cell)
    assert on_cell == [(0.0, "carrot"), (3.0, "fox")]


def test_two_hats_set_down_side_by_side_touch_but_never_stand_in_each_other():
    """Each hat of a pair is set down up to 5 mm off its spot, and the spots of a pair
    lie 20 mm apart for hats 18 mm wide: 28 of these 120 neighbouring pairs stood 0.1
    to 5.3 mm inside each other, as no hats can. A hat set against another slides off
    it."""
    game = load_game("fang_den_hut")
    looks = world()["games"]["fang_den_hut"]
    foot = max(r for r, _ in looks["tokens"]["green"]["shape"])
    truth = dict.fromkeys(game.observe(game.initial_state()))
    truth.update(gate_green="green+green", r5="red+red+red")
    touching = 0
    for seed in range(40):
        placed = scene(game, set_up(game, 3), truth, seed).pieces
        for cell in ("gate_green", "r5"):
            hats = np.array([p.xy for p in placed if p.cell == cell])
            apart = np.linalg.norm(hats[:, None] - hats[None], axis=2)[
                np.triu_indices(len(hats), 1)
            ]
            assert apart.min() >= 2 * foot - 1e-3, (seed, cell, apart.min())
            touching += int(np.isclose(apart.min(), 2 * foot, atol=1e-3))
    assert touching > 0  # some pairs were set down in each other and now touch
