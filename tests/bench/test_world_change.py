"""Where a change of a table's scene shows (``bench.world.change.region``): the
rectangle traced again must hold what came or went and its shadow, and a piece
nobody touched keeps its place. No tracing here: Mitsuba is not loaded."""

from __future__ import annotations

import cv2
import numpy as np

from bench.world.camera import pinhole_size
from bench.world.change import ARM_RISE, region
from bench.world.scene import kept, scene, set_up
from engines import load_game


def pinhole(camera, points) -> np.ndarray:
    """Where the tracer's undistorted picture shows ``points`` (OpenCV, no lens),
    those beyond it taken to its edge."""
    width, height = pinhole_size(camera)
    matrix = camera.matrix.copy()
    matrix[:2, 2] = [width / 2 - 0.5, height / 2 - 0.5]
    px = cv2.projectPoints(np.asarray(points, float), camera.rvec, camera.tvec, matrix, None)[0]
    return np.clip(px.reshape(-1, 2), 0, [width, height])


def inside(rect, px) -> bool:
    x, y, w, h = rect
    return bool(((px >= [x, y]) & (px <= [x + w, y + h])).all())


def table(seed: int = 5):
    game = load_game("catch_the_hare")
    start = game.observe(game.initial_state())
    return game, set_up(game, seed), start


def test_a_lifted_piece_and_its_shadow_lie_in_the_rectangle_and_little_else():
    game, su, start = table(3)  # a low window: the shadow reaches beyond the padding
    before = scene(game, su, start, 0)
    cell = next(c for c, t in start.items() if t)
    after = kept(scene(game, su, {**start, cell: None}, 0), before)
    rect = region(game, before, after)
    piece = next(p for p in before.pieces if p.cell == cell)
    top = np.array([*piece.xy, 20.0])
    shadows = [
        top + (top - light) * top[2] / (light[2] - top[2])
        for light in (np.array(su.light.lamp), np.array(su.light.window))
    ]
    shown = [top, [*piece.xy, 0.0]] + [[*s[:2], 0.0] for s in shadows]
    assert inside(rect, pinhole(su.camera, shown))
    width, height = pinhole_size(su.camera)
    assert rect[2] * rect[3] < 0.5 * width * height


def test_nothing_moved_traces_nothing():
    game, su, start = table()
    before = scene(game, su, start, 0)
    assert region(game, before, kept(scene(game, su, start, 0), before)) == (0, 0, 0, 0)


def test_an_arm_reaching_in_and_its_shadow_are_followed_to_the_edge_of_the_picture():
    game, su, start = table()
    before = scene(game, su, start, 0)
    cell = game.board.cells[len(game.board.cells) // 2]
    after = kept(scene(game, su, start, 0, tuple(cell.xy)), before)
    rect = region(game, before, after)
    rise = np.radians(ARM_RISE)
    axis = np.array([*np.multiply(after.arm.towards, np.cos(rise)), np.sin(rise)])
    arm = [np.add(after.arm.hand, axis * t) for t in (0, 150, 300)]
    in_front = [p for p in arm if (p - su.camera.position) @ su.camera.rotation[2] > 50]
    assert len(in_front) > 1
    hand, lamp = np.array(after.arm.hand), np.array(su.light.lamp)
    shadow = hand + (hand - lamp) * hand[2] / (lamp[2] - hand[2])
    assert inside(rect, pinhole(su.camera, in_front + [[*shadow[:2], 0.0]]))
    width, height = pinhole_size(su.camera)
    x, y, w, h = rect
    assert x == 0 or y == 0 or x + w == width or y + h == height


def test_a_piece_nobody_touched_keeps_its_place():
    game, su, start = table()
    before = scene(game, su, start, 0)
    cell = next(c for c, t in start.items() if t)
    after = kept(scene(game, su, {**start, cell: None}, 0), before)
    assert {p for p in before.pieces if p.cell != cell} == set(after.pieces)
