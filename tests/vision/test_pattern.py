"""The board found with one marker, and with none, on the renderer's frames: the
other markers covered with a patch of the board's own colour (torn off, or a board
bought without them), the pose checked against where the renderer put the cells."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from engines import load_game
from vision import looks
from vision.boards import outline, pattern
from vision.boards.reader import BoardReader
from vision.locate import Pose
from vision.render import Renderer, random_scene

#: a pose is right when it puts every cell within this (px) of where it is drawn
RIGHT_PX = 3.0


def covered(frame, scene, board, keep: set[int]) -> np.ndarray:
    """``frame`` with every marker not in ``keep`` painted over with the colour of the
    paper just beside it (the middles of the patch's sides: off the marker, on the
    board's border)."""
    out = frame.copy()
    for marker in looks.markers(board):
        if marker.id in keep:
            continue
        x, y, h = *marker.xy, marker.size * 0.72
        square = np.array(
            [[x - h, y - h, 0], [x + h, y - h, 0], [x + h, y + h, 0], [x - h, y + h, 0]]
        )
        beside = np.array([[x - h, y, 0], [x + h, y, 0], [x, y - h, 0], [x, y + h, 0]])
        colours = [
            np.median(frame[py - 3 : py + 4, px - 3 : px + 4].reshape(-1, 3), axis=0)
            for px, py in scene.lens.project(beside, scene.rvec, scene.tvec).astype(int)
        ]
        corners = scene.lens.project(square, scene.rvec, scene.tvec).astype(np.int32)
        cv2.fillConvexPoly(out, corners, np.median(colours, axis=0).tolist())
    return out


def _located(name: str, seed: int, keep: set[int]):
    game = load_game(name)
    scene = random_scene(game.board, seed)
    start = game.observe(game.initial_state())
    frame = covered(Renderer(game, scene, seed).frame(start), scene, game.board, keep)
    reader = BoardReader(game, scene.lens)
    if not reader.locate(frame, start):
        return reader, None
    return reader, pose_miss_px(game, scene, reader)


def pose_miss_px(game, scene, reader) -> float:
    """How far (px, the worst cell) the reader's pose puts the board's cells from
    where the scene has them."""
    cells = np.array([[*c.xy, 0.0] for c in game.board.cells])
    truth = scene.lens.project(cells, scene.rvec, scene.tvec)
    found = scene.lens.project(cells, reader.pose.rvec, reader.pose.tvec)
    return float(np.linalg.norm(truth - found, axis=1).max())


@pytest.mark.parametrize(
    ("name", "seed"),
    [("sternhalma", 0), ("catch_the_hare", 1), ("fang_den_hut", 0), ("hakenschlagen", 3)],
)
def test_one_marker_and_the_boards_marks_put_every_cell_where_it_is(name, seed):
    reader, miss = _located(name, seed, keep={0})
    assert miss is not None, reader.refusal
    assert miss < RIGHT_PX
    assert reader.pose.way == "one marker"
    assert reader.pose.markers == 1
    assert reader.pose.matched >= 0.8


@pytest.mark.parametrize(("name", "seed"), [("sternhalma", 1), ("catch_the_hare", 2)])
def test_a_board_without_markers_is_found_by_its_outline_and_marks(name, seed):
    reader, miss = _located(name, seed, keep=set())
    assert miss is not None, reader.refusal
    assert miss < RIGHT_PX
    assert reader.pose.way == "pattern"
    assert reader.pose.markers == 0


def test_sternhalma_without_markers_is_turned_the_way_its_pieces_show():
    # a two-player start holds pieces at two opposite tips: the board turned half
    # round fits every hole as well, only the marbles' colours tell
    game = load_game("sternhalma", players=2)
    scene = random_scene(game.board, 4)
    start = game.observe(game.initial_state())
    frame = covered(Renderer(game, scene, 4).frame(start), scene, game.board, set())
    reader = BoardReader(game, scene.lens)
    assert reader.locate(frame, start), reader.refusal
    assert pose_miss_px(game, scene, reader) < RIGHT_PX


def test_a_view_without_the_board_keeps_the_markers_refusal():
    game = load_game("sternhalma")
    reader = BoardReader(game, random_scene(game.board, 0).lens)
    start = game.observe(game.initial_state())
    assert not reader.locate(np.full((720, 1280, 3), 90, np.uint8), start)
    assert "0 of the board's 4 markers seen" in reader.refusal


def test_a_pose_the_outline_disagrees_with_is_not_trusted_however_well_marks_fit():
    # the start position of Catch the Hare leaves only one side's marks empty: a pose
    # tilted about them fits every one, and only the outline shows it is wrong
    game = load_game("catch_the_hare")
    scene = random_scene(game.board, 2)
    start = game.observe(game.initial_state())
    frame = covered(Renderer(game, scene, 2).frame(start), scene, game.board, set())
    reader = BoardReader(game, scene.lens)
    marks, radius = reader._empty_marks(start), reader.look.cell_radius
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    quad = outline.outlines(frame, scene.lens)[0]
    right = Pose(scene.rvec, scene.tvec, 0.0, 0, way="pattern")
    assert pattern.trusted(
        pattern.judged(grey, right, scene.lens, marks, radius), quad, scene.lens, game.board
    )
    knocked = replace(right, tvec=scene.tvec + np.array([[6.0], [0.0], [0.0]]))
    wrong = pattern.judged(grey, knocked, scene.lens, marks, radius)
    assert not pattern.trusted(
        replace(wrong, matched=1.0, error_px=0.0), quad, scene.lens, game.board
    )


def test_a_board_not_found_by_its_outline_is_looked_for_again_only_after_a_while(monkeypatch):
    # the outline costs far more than the markers: a camera that cannot find the board
    # must not look for it on every frame (a Pi core), only every PATTERN_EVERY_S
    from vision.boards import reader as reader_module

    game = load_game("sternhalma")
    reader = BoardReader(game, random_scene(game.board, 0).lens)
    start = game.observe(game.initial_state())
    looked, clock = [], [100.0]
    monkeypatch.setattr(pattern, "located", lambda *a, **k: looked.append(1))
    reader.clock = lambda: clock[0]
    empty = np.full((720, 1280, 3), 90, np.uint8)
    for _ in range(5):
        assert not reader.locate(empty, start)
    assert len(looked) == 1
    clock[0] += reader_module.PATTERN_EVERY_S
    assert not reader.locate(empty, start)
    assert len(looked) == 2
    assert "0 of the board's 4 markers seen" in reader.refusal


def test_a_board_whose_paper_merges_with_glare_on_the_table_is_found_by_its_straight_edges():
    # a window's light on the table along the board's far side, brighter than the
    # paper: the bright region runs on past the board, the paper's edge stays straight
    game = load_game("sternhalma")
    scene = random_scene(game.board, 1)
    start = game.observe(game.initial_state())
    frame = covered(Renderer(game, scene, 1).frame(start), scene, game.board, set())
    left, bottom, right, top = looks.extent(game.board)
    edge = np.array([[left, top, 0], [right, top, 0], [right, bottom, 0], [left, bottom, 0]])
    corners = scene.lens.project(edge.astype(float), scene.rvec, scene.tvec)
    middle = np.round(corners.mean(axis=0)).astype(int)
    paper = np.median(frame[middle[1] - 5 : middle[1] + 5, middle[0] - 80 : middle[0] - 70], (0, 1))
    across, beyond = corners[1] - corners[0], corners[0] - corners[3]
    glare = [corners[0] + 0.6 * beyond - 0.3 * across, corners[1] + 0.6 * beyond + 0.3 * across]
    glare = np.round([*glare, corners[1], corners[0]]).astype(np.int32)
    cv2.fillConvexPoly(frame, glare, np.minimum(paper + 35, 255).tolist())
    nearest = [
        np.linalg.norm(quad[:, None] - corners[None], axis=2).min(axis=1).max()
        for quad in outline.bright_outlines(frame, scene.lens)
    ]
    assert min(nearest, default=np.inf) > RIGHT_PX  # the bright region is no help here
    reader = BoardReader(game, scene.lens)
    assert reader.locate(frame, start), reader.refusal
    assert pose_miss_px(game, scene, reader) < RIGHT_PX
    assert reader.pose.way == "pattern"


def test_a_slow_look_for_the_outline_waits_long_enough_to_keep_its_share_of_a_core(monkeypatch):
    # on a machine where a look costs 2 s of CPU, looking every PATTERN_EVERY_S would
    # take two thirds of a core while the board is not found
    from vision.boards import reader as reader_module

    game = load_game("sternhalma")
    reader = BoardReader(game, random_scene(game.board, 0).lens)
    start = game.observe(game.initial_state())
    looked, clock, cpu = [], [100.0], [0.0]

    def slow_look(*_, **__):
        looked.append(1)
        cpu[0] += 2.0

    monkeypatch.setattr(pattern, "located", slow_look)
    reader.clock = lambda: clock[0]
    monkeypatch.setattr(reader_module.time, "thread_time", lambda: cpu[0])
    empty = np.full((720, 1280, 3), 90, np.uint8)
    assert not reader.locate(empty, start)
    clock[0] += 2.0 / reader_module.PATTERN_SHARE - 1.0
    assert not reader.locate(empty, start)
    assert len(looked) == 1
    clock[0] += 1.0
    assert not reader.locate(empty, start)
    assert len(looked) == 2


def test_a_piece_laid_on_the_empty_board_by_a_wrong_way_round_does_not_count_as_its_colour():
    # Sternhalma's warm paper is nearer red than blue: a way round that puts the red
    # marbles on empty holes must not count them red for the paper's sake
    game = load_game("sternhalma", players=2)
    scene = random_scene(game.board, 4)
    start = game.observe(game.initial_state())
    frame = Renderer(game, scene, 4).frame(start)
    look = looks.look_for(game)
    turned = cv2.Rodrigues(scene.rvec)[0]
    shares = []
    for degrees in (0, 60, 120):
        a = np.radians(degrees)
        about = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
        pose = Pose(cv2.Rodrigues(turned @ about)[0], scene.tvec, 0.0, 0)
        shares.append(pattern._colour_share(frame, scene.lens, pose, game, look, start))
    assert shares[0] == 1.0
    assert max(shares[1:]) < pattern.LEAST_COLOUR_SHARE
