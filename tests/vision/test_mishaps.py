"""The camera under what people and tables do: a knocked camera, a lens nobody
calibrated, markers glued off their places, a board whose markers are hidden (the
figures per condition are bench/bench_vision.py's job)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from boardref.cli.app import app
from engines import load_game
from vision import looks
from vision.boards.evaluate import BUMP_PATIENCE
from vision.boards.reader import BoardReader
from vision.lens import Lens
from vision.locate import Locator, _corners
from vision.mishaps import CONDITIONS, Mishaps, bumped, placement, staged_camera
from vision.render import Renderer, random_scene
from vision.stillness import STILL_FRAMES


def _first_read(reader, camera, truth):
    """Frames of ``truth`` until the reader reads one (after a knock it waits for the
    view to settle and finds the board again)."""
    for n in range(BUMP_PATIENCE):
        seen = reader.feed(camera.frame(truth))
        if seen is not None and n >= STILL_FRAMES:
            return seen
    return None


@pytest.mark.slow
def test_a_knocked_camera_keeps_every_reference_and_reads_the_board_again(learned):
    game, camera, reader, start = learned("hakenschlagen", 31)
    pose = reader.pose
    camera.move_camera(bumped(camera.scene, 2.0, np.random.default_rng(1)))
    seen = _first_read(reader, camera, start)
    assert reader.pose is not pose, "the board was found anew"
    # the empty board was seen before the start: every cell's empty look is kept,
    # not only those the start position leaves empty
    assert reader.classifier.known.all()
    assert seen is not None and seen.tokens == start


@pytest.mark.slow
def test_a_knock_during_a_move_is_not_learned_as_the_last_position(learned):
    game, camera, reader, start = learned("catch_the_hare", 12)
    state = game.apply(game.initial_state(), game.legal_moves(game.initial_state())[0])
    moved = game.observe(state)
    camera.move_camera(bumped(camera.scene, 2.0, np.random.default_rng(2)))
    seen = _first_read(reader, camera, moved)
    assert seen is not None and seen.tokens == moved


def test_a_wide_distorted_lens_is_fitted_from_the_markers_without_calibration():
    game = load_game("sternhalma")
    scene = random_scene(game.board, 43, hfov=(72, 75), k1=(-0.15, -0.13))
    camera = Renderer(game, scene, 43)
    reader = BoardReader(game, Lens.guess(scene.lens.size))
    start = game.observe(game.initial_state())
    assert reader.learn(camera.frame(start), start), reader.refusal
    truth = scene.lens.matrix[0, 0]
    assert abs(reader.lens.matrix[0, 0] - truth) / truth < 0.05
    seen = None
    for _ in range(STILL_FRAMES + 1):
        seen = reader.feed(camera.frame(start))
    assert seen is not None and seen.tokens == start


#: the lenses nobody calibrated, as ``bench_vision`` sees the board through them
UNCALIBRATED = next(m for _, m in CONDITIONS.values() if not m.calibrated).lens_range()


def _cells_off_px(game, reader, scene) -> float:
    """How far (px, the worst cell) the reader's pose puts the board's cells from
    where the camera sees them."""
    cells = np.array([[*c.xy, 0.0] for c in game.board.cells])
    read = reader.lens.project(cells, reader.pose.rvec, reader.pose.tvec)
    seen = scene.lens.project(cells, scene.rvec, scene.tvec)
    return float(np.linalg.norm(read - seen, axis=1).max())


def test_three_markers_fit_the_lens_and_put_every_cell_where_it_is_seen():
    # a tuning set-up whose fourth marker is out of the picture: with the guessed lens
    # the three fitted a pose 21 px off at the board's far cells
    game = load_game("fang_den_hut")
    scene = random_scene(game.board, 31, "easy", **UNCALIBRATED)
    start = game.observe(game.initial_state())
    reader = BoardReader(game, Lens.guess(scene.lens.size))
    assert reader.learn(Renderer(game, scene, 31).frame(start), start), reader.refusal
    assert reader.pose.markers == 3 and not reader.lens.guessed
    assert _cells_off_px(game, reader, scene) < 3.0


def test_a_lens_with_a_second_distortion_term_is_fitted_and_the_board_read():
    # k1 and k2 bend the picture; the fit knows k1 only and explains the markers to
    # about 1.8 px (above the half of a pose's limit once asked of it): within a pose's
    # limit, so the fit is kept and the board read
    game = load_game("fang_den_hut")
    scene = random_scene(game.board, 49, hfov=(70, 75), k1=(-0.15, -0.12))
    bent = Lens(scene.lens.matrix, np.r_[scene.lens.dist[0], 0.25, 0.0, 0.0, 0.0], scene.lens.size)
    scene = dataclasses.replace(scene, lens=bent)
    camera = Renderer(game, scene, 49)
    start = game.observe(game.initial_state())
    reader = BoardReader(game, Lens.guess(scene.lens.size))
    assert reader.learn(camera.frame(start), start), reader.refusal
    assert not reader.lens.guessed
    seen = None
    for _ in range(STILL_FRAMES + 1):
        seen = reader.feed(camera.frame(start))
    assert seen is not None and seen.tokens == start


def test_a_refused_pose_says_how_many_markers_were_seen_and_what_to_do():
    game = load_game("catch_the_hare")
    reader = BoardReader(game, Lens.guess((640, 360)))
    assert not reader.learn(np.full((360, 640, 3), 200, np.uint8), {})
    assert reader.status == "unlocated"
    assert "0 of the board's 4 markers seen" in reader.refusal
    assert "nothing covers them" in reader.refusal


def test_a_lens_far_off_is_refused_with_the_markers_misfit():
    game = load_game("sternhalma")
    scene = random_scene(game.board, 43, hfov=(72, 75), k1=(-0.15, -0.13))
    frame = Renderer(game, scene, 43).frame(game.observe(game.initial_state()))
    wrong = Lens.guess(scene.lens.size)
    locator = Locator(game.board, Lens(wrong.matrix, wrong.dist, wrong.size))  # as calibrated
    assert locator.locate(frame) is None
    assert "4 markers seen, but they fit the board only to" in locator.refusal
    assert "calibrate the lens" in locator.refusal


def test_the_renderer_glues_a_marker_where_it_was_misplaced():
    game = load_game("catch_the_hare")
    scene = random_scene(game.board, 5)
    marker = looks.markers(game.board)[0]
    frame = Renderer(game, scene, 5, {marker.id: (3.0, -2.0, 4.0)}).frame({})
    locator = Locator(game.board, scene.lens)
    board_pts, image_pts = locator.markers_seen(frame)
    found = next(i for b, i in zip(board_pts, image_pts) if np.allclose(b, locator.corners[0]))
    turn = np.radians(4.0)
    spin = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    corners = _corners(marker.xy, marker.size)[:, :2] - marker.xy
    glued = corners @ spin.T + np.add(marker.xy, (3.0, -2.0))
    expected = scene.lens.project(np.c_[glued, np.zeros(4)], scene.rvec, scene.tvec)
    assert np.abs(found - expected).max() < 1.5


def test_pieces_are_set_down_off_centre_within_the_reach_asked():
    game = load_game("sternhalma")
    start = game.observe(game.initial_state())
    offsets = placement(start, np.random.default_rng(3), 1.5)
    assert set(offsets) == {cell for cell, token in start.items() if token}
    reach = np.hypot(*np.array(list(offsets.values())).T)
    assert reach.max() <= 1.5 and reach.mean() > 0.5


def test_vision_markers_gives_where_each_marker_goes():
    result = CliRunner().invoke(app, ["vision", "markers", "--game", "catch_the_hare"])
    assert result.exit_code == 0, result.output
    places = json.loads(result.output)["markers"]
    board = load_game("catch_the_hare").board
    assert [p["id"] for p in places] == [m.id for m in looks.markers(board)]
    first = places[0]
    cell = board.cell(first["from_cell"])
    assert np.allclose(np.add(cell.xy, first["from_cell_mm"]), first["centre_mm"])


def test_figures_set_down_4_mm_off_their_points_are_read_where_they_stand(learned):
    game, camera, reader, start = learned("catch_the_hare", 14)
    # each figure 4 mm to its left as the camera sees it: off its probes
    assert _read_aside(game, camera, reader, start, 4.0) == start


def test_a_staged_table_sets_each_piece_down_anew_and_knocks_the_camera_once():
    game = load_game("catch_the_hare")
    mishaps = Mishaps(placement_mm=4.0, bump_deg=2.0, bump_in_move=True, calibrated=False)
    renderer, lens = staged_camera(game, 5, "easy", (320, 180), mishaps, 2)
    assert lens.guessed, "the reader is given no calibration"
    start = game.observe(game.initial_state())
    renderer.frame(start)
    first = dict(renderer._set_down)
    moved = dict(start, a1=None, c3="hunter")
    pose = renderer.scene.rvec.copy()
    renderer.frame(moved)  # no hand: a bump during a move waits for one
    assert np.allclose(renderer.scene.rvec, pose)
    renderer.frame(moved, ("c3",))
    assert not np.allclose(renderer.scene.rvec, pose) and renderer.bumped
    assert renderer._set_down["b1"] == first["b1"], "a piece left alone stays where it was"
    assert renderer._set_down["c3"] != first.get("c3"), "a piece set down anew lands anew"


def test_simulate_refuses_an_unknown_mishap_in_words():
    result = CliRunner().invoke(
        app, ["simulate", "--sensor", "camera", "--mishap", "a cat on the board"]
    )
    assert result.exit_code == 2
    assert "mishap 'a cat on the board'" in result.output
    assert "camera bumped 2 degrees" in result.output


def test_marbles_set_down_5_mm_off_their_holes_are_read_where_they_stand(learned):
    game, camera, reader, start = learned("sternhalma", 14)
    # each marble 5 mm to its left as the camera sees it: half out of its hole
    assert _read_aside(game, camera, reader, start, 5.0) == start


def _read_aside(game, camera, reader, truth, mm: float):
    """What the reader reads of ``truth`` with every piece set down ``mm`` to its left
    as the camera sees it (None if it reads nothing)."""
    eye = camera.scene.position[:2]
    aside = {}
    for cell, token in truth.items():
        if token is not None:
            toward = np.subtract(game.board.cell(cell).xy, eye)
            aside[cell] = tuple(mm * np.array([-toward[1], toward[0]]) / np.linalg.norm(toward))
    seen = None
    for _ in range(STILL_FRAMES + 1):
        seen = reader.feed(camera.frame(truth, offsets=aside))
    return None if seen is None else seen.tokens
