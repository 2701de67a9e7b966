"""Where a change of a table's scene shows in the traced pinhole picture: the
rectangle holding every piece and arm that came or went, their shadows under the
lamp and the window, and their mirror images in the glossy board. Only this
rectangle need be traced again and laid over the light of the scene before.

What a change does beyond the rectangle is left as it was: the little light it
bounces onto the table further off and the room light it hides from it. The
rectangle is padded (``PAD``) to hold most of that; the rest is far under the
camera's own noise.
"""

from __future__ import annotations

import math

import numpy as np

from bench.world.camera import pinhole_size
from bench.world.data import world

#: pixels added round the rectangle: the film's filter, soft shadow edges, bounced light
PAD = 24
#: how far the arm rises towards the shoulder (degrees) and where the sleeve ends (mm)
ARM_RISE = 25
ARM_REACH = 900
#: how near the camera (mm, along its view) a change is still followed into the picture
NEAR = 20.0
#: a shadow is followed this far beyond what casts it (times its height) at most
LONGEST_SHADOW = 40.0


def region(game, before, after) -> tuple[int, int, int, int]:
    """The rectangle (x, y, width, height) of the pinhole picture where ``after``
    differs from ``before`` (two scenes of one set-up); (0, 0, 0, 0) when nothing
    moved, the whole picture when a change reaches behind the camera."""
    set_up = after.set_up
    width, height = pinhole_size(set_up.camera)
    looks = world()["games"][game.name]
    came_or_went = set(before.pieces) ^ set(after.pieces)
    solid = [_piece_points(p, looks) for p in came_or_went]
    if before.arm != after.arm:
        solid += [_arm_points(a) for a in (before.arm, after.arm) if a is not None]
    if not solid:
        return 0, 0, 0, 0
    points = np.concatenate(solid)
    # what reaches behind the camera is followed back to where it enters the picture
    anchor = points.mean(0)
    shadows = _shadows(points, _lights(set_up.light), _table(set_up))
    every = [
        _in_front(set_up.camera, p, a)
        for p, a in (
            (points, anchor),
            (points * [1, 1, -1], anchor * [1, 1, -1]),
            (shadows, anchor * [1, 1, 0]),
        )
    ]
    px = _pinhole(set_up.camera, np.concatenate(every), (width, height))
    x0, y0 = np.floor(px.min(0)).astype(int) - PAD
    x1, y1 = np.ceil(px.max(0)).astype(int) + PAD
    x0, y0 = max(int(x0), 0), max(int(y0), 0)
    x1, y1 = min(int(x1), width), min(int(y1), height)
    if x1 <= x0 or y1 <= y0:
        return 0, 0, 0, 0
    return x0, y0, x1 - x0, y1 - y0


def _box(centre, half) -> np.ndarray:
    """The corners of a box round ``centre`` reaching ``half`` (x, y, z) each way."""
    signs = np.array([[a, b, c] for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)])
    return np.asarray(centre, float) + signs * np.asarray(half, float)


def _piece_points(piece, looks: dict) -> np.ndarray:
    spec = looks["tokens"][piece.name]
    x, y = piece.xy
    if spec["shape"] == "marble":
        r = looks["marble_radius"]
        return _box((x, y, piece.z + r), (r, r, r))
    reach = max(p[0] for p in spec["shape"])
    tall = max(p[1] for p in spec["shape"])
    return _box((x, y, piece.z + tall / 2), (reach, reach, tall / 2))


def _arm_points(arm) -> np.ndarray:
    """Boxes along the hand, forearm and sleeve (``render._arm``'s shapes)."""
    spec = world()["hand"]
    length = spec["hand_size"][0]
    thick = spec["arm_radius"] * 1.15
    rise = math.radians(ARM_RISE)
    tx, ty = arm.towards
    size = math.hypot(tx, ty) or 1.0
    axis = np.array([tx / size * math.cos(rise), ty / size * math.cos(rise), math.sin(rise)])
    hand = np.asarray(arm.hand, float)
    boxes = [_box(hand, (length / 2, length / 2, length / 2))]
    boxes += [_box(hand + axis * t, (thick, thick, thick)) for t in np.linspace(0, ARM_REACH, 37)]
    return np.concatenate(boxes)


def _lights(light) -> np.ndarray:
    """Points spanning the lamp and the window, the lights that cast shadows."""
    lx, ly, lz = light.lamp
    half = light.lamp_side / 2
    lamp = [(lx + a * half, ly + b * half, lz) for a in (-1, 1) for b in (-1, 1)]
    return np.concatenate([np.array(lamp), _box(light.window, [light.window_side / 2] * 3)])


def _table(set_up) -> tuple[np.ndarray, np.ndarray]:
    """The table top's corners (lowest, highest x and y): no shadow falls beyond it."""
    left, bottom, right, top = set_up.extent
    margin = world()["table"]["margin"]
    return np.array([left - margin, bottom - margin]), np.array([right + margin, top + margin])


def _shadows(points: np.ndarray, lights: np.ndarray, table) -> np.ndarray:
    """Where each point's shadow from each light falls on the table."""
    p = np.repeat(points, len(lights), axis=0)
    s = np.tile(lights, (len(points), 1))
    height = np.maximum(p[:, 2], 0.0)
    drop = s[:, 2] - p[:, 2]
    # a light below the point throws its shadow up and away: follow it far out
    t = np.where(drop > 1e-6, height / np.maximum(drop, 1e-6), LONGEST_SHADOW)
    t = np.minimum(t, LONGEST_SHADOW)
    away = p[:, :2] - s[:, :2]
    foot = np.clip(p[:, :2] + away * t[:, None], *table)
    return np.column_stack([foot, np.zeros(len(foot))])


def _depth(camera, points: np.ndarray) -> np.ndarray:
    """Points (mm) in the camera's frame (x right, y down, z forward)."""
    return (points - np.asarray(camera.position, float)) @ camera.rotation.T


def _in_front(camera, points: np.ndarray, anchor: np.ndarray) -> np.ndarray:
    """``points``, those behind the camera's near plane moved towards ``anchor`` (a
    point in front of the camera) until they are just in front of it."""
    z = _depth(camera, points)[:, 2]
    za = float(_depth(camera, anchor[None])[0, 2])
    if za <= NEAR:
        return points  # the change itself is behind the camera: _pinhole says so
    t = np.where(z < NEAR, (NEAR - z) / np.maximum(za - z, 1e-9), 0.0)
    return points + (anchor - points) * t[:, None]


def _pinhole(camera, points: np.ndarray, size) -> np.ndarray | None:
    """Board points (mm) to pixels of the pinhole picture the tracer makes (the
    ideal projection, before the lens's warp); None if any lies behind the camera."""
    cam = _depth(camera, points)
    if (cam[:, 2] < NEAR * 0.999).any():
        return None
    f = camera.focal
    return cam[:, :2] / cam[:, 2:3] * f + [size[0] / 2 - 0.5, size[1] / 2 - 0.5]
