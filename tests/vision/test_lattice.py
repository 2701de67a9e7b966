"""A board found by its cells' own marks grown into a lattice, on the renderer's
frames with every marker covered: where the paper's outline cannot be told from the
table, and never on a lattice that runs on past the board's cells."""

from __future__ import annotations

import cv2
import numpy as np

from engines import load_game
from tests.vision.test_pattern import RIGHT_PX, covered, pose_miss_px
from vision import looks
from vision.boards import lattice, outline
from vision.boards.reader import BoardReader
from vision.render import Renderer, random_scene


def _unmarked(players: int, seed: int):
    game = load_game("sternhalma", players=players)
    scene = random_scene(game.board, seed)
    start = game.observe(game.initial_state())
    frame = covered(Renderer(game, scene, seed).frame(start), scene, game.board, set())
    return game, scene, start, frame


def _paper_everywhere(frame, scene, board) -> np.ndarray:
    """``frame`` with the table round the printed board painted the paper's colour
    (taken just inside the board's corner): no edge of the paper left to see."""
    left, bottom, right, top = looks.extent(board)
    edge = np.array([[left, top, 0], [right, top, 0], [right, bottom, 0], [left, bottom, 0]])
    corners = scene.lens.project(edge.astype(float), scene.rvec, scene.tvec)
    inside = np.round(corners[0] + 0.04 * (corners[2] - corners[0])).astype(int)
    x, y = inside
    paper = np.median(frame[y - 3 : y + 4, x - 3 : x + 4].reshape(-1, 3), axis=0)
    board_mask = np.zeros(frame.shape[:2], np.uint8)
    cv2.fillConvexPoly(board_mask, np.round(corners).astype(np.int32), 255)
    out = frame.copy()
    out[board_mask == 0] = paper.astype(np.uint8)
    return out


def test_the_board_lattices():
    star = lattice.board_lattice(load_game("sternhalma").board)
    assert star is not None and len(star.steps) == 6 and len(star.turns) == 12
    grid = lattice.board_lattice(load_game("catch_the_hare").board)
    assert grid is not None and len(grid.steps) == 4 and len(grid.turns) == 8
    assert lattice.board_lattice(load_game("fang_den_hut").board) is None
    # the places beyond the star are one step from its cells and none of them
    cells = np.array([c.xy for c in load_game("sternhalma").board.cells])
    apart = np.linalg.norm(star.beyond[:, None] - cells[None], axis=2).min(axis=1)
    assert np.allclose(apart, 25.0, atol=0.05)


def test_a_star_on_a_table_of_its_paper_s_colour_is_found_by_its_holes():
    game, scene, start, frame = _unmarked(2, 4)
    frame = _paper_everywhere(frame, scene, game.board)
    left, bottom, right, top = looks.extent(game.board)
    edge = np.array([[left, top, 0], [right, top, 0], [right, bottom, 0], [left, bottom, 0]])
    corners = scene.lens.project(edge.astype(float), scene.rvec, scene.tvec)
    nearest = [
        np.linalg.norm(quad[:, None] - corners[None], axis=2).min(axis=1).max()
        for quad in outline.outlines(frame, scene.lens)
    ]
    assert min(nearest, default=np.inf) > RIGHT_PX  # no outline of the paper to go by
    reader = BoardReader(game, scene.lens)
    assert reader.locate(frame, start), reader.refusal
    assert pose_miss_px(game, scene, reader) < RIGHT_PX
    assert reader.pose.way == "pattern"
    assert reader.pose.matched >= 0.8


def test_a_lattice_running_on_past_the_board_is_not_taken_for_it():
    # holes drawn one step beyond the outer cells of one side: a larger board than
    # this one, which this board's cells fit more than one way; none may be taken
    game, scene, start, frame = _unmarked(2, 4)
    frame = _paper_everywhere(frame, scene, game.board)
    star = lattice.board_lattice(game.board)
    side = star.beyond[star.beyond[:, 1] > 0]
    beyond = scene.lens.project(np.c_[side, np.zeros(len(side))], scene.rvec, scene.tvec)
    cells = np.array([[*c.xy, 0.0] for c in game.board.cells])
    px = scene.lens.project(cells, scene.rvec, scene.tvec)
    hole = 0.3 * float(np.median(np.linalg.norm(px[1:] - px[:-1], axis=1)))
    for x, y in beyond:
        cv2.circle(frame, (int(round(x)), int(round(y))), max(2, int(hole / 2)), (40, 40, 40), -1)
    reader = BoardReader(game, scene.lens)
    assert not reader.locate(frame, start)
    # nor is a way proposed that puts the cells a step off: the right one may be
    # (its spots beside the cells are few), turned about the board's symmetry
    empty = np.array([start[c.id] is None for c in game.board.cells])
    for way in lattice.alignments(frame, scene.lens, game.board, empty):
        found = scene.lens.project(cells, way.rvec, way.tvec)
        steps = np.linalg.norm(found[:, None] - px[None], axis=2).min(axis=1).max()
        assert steps < RIGHT_PX
        assert np.linalg.norm(found.mean(axis=0) - px.mean(axis=0)) < RIGHT_PX
