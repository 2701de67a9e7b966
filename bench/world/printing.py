"""The printed board and the table under it, as images the path tracer maps onto
them: paper with its fibres (or a wooden board's grain), the board's lines and cell
marks in ink, the ArUco markers glued where the table has them, a wooden table top.
"""

from __future__ import annotations

import cv2
import numpy as np

from bench.world.data import world

PX_PER_MM = 5.0
#: fixed-point bits for OpenCV's anti-aliased drawing
SHIFT = 4


def _noise(shape, rng, scale: float) -> np.ndarray:
    """Smooth noise at about ``scale`` px, -1..1."""
    small = rng.normal(0, 1, (max(2, int(shape[0] / scale)), max(2, int(shape[1] / scale))))
    big = cv2.resize(small.astype(np.float32), (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)
    return big / max(float(np.abs(big).max()), 1e-6)


def _grain(shape, rng, along_x: bool = True) -> np.ndarray:
    """Wood grain, 0..1: rings warped by smooth noise."""
    h, w = shape
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    across = y if along_x else x
    warp = _noise(shape, rng, 120) * 40 + _noise(shape, rng, 30) * 6
    return (0.5 + 0.5 * np.sin((across + warp) / 9.0)) ** 3


def board_print(game, table, rng: np.random.Generator) -> np.ndarray:
    """The board as printed and glued, sRGB BGR uint8, ``PX_PER_MM`` over
    ``table.extent`` (its first row the board's top edge)."""
    looks = world()["games"][game.name]
    left, bottom, right, top = table.extent
    w, h = int((right - left) * PX_PER_MM), int((top - bottom) * PX_PER_MM)
    paper = np.array(looks["paper"][::-1], np.float32)
    if looks["cell"] == "hole":  # Sternhalma's board is wood
        tone = (
            1
            + 0.12 * (_grain((h, w), rng) - 0.5)
            + 0.04 * _noise((h, w), rng, 60)[..., None].squeeze(-1)
        )
    else:  # paper: soft blotches and fibres
        tone = (
            1
            + 0.025 * _noise((h, w), rng, 80)
            + 0.008 * rng.normal(0, 1, (h, w)).astype(np.float32)
        )
    img = np.clip(paper[None, None] * tone[..., None], 0, 255).astype(np.uint8)
    s = 1 << SHIFT

    def px(xy):
        return int(round((xy[0] - left) * PX_PER_MM * s)), int(round((top - xy[1]) * PX_PER_MM * s))

    ink = tuple(int(v) for v in looks["ink"][::-1])
    board = game.board
    for path in board.lines + board.links:
        pts = [px(board.cell(c).xy) for c in path]
        for a, b in zip(pts, pts[1:]):
            cv2.line(img, a, b, ink, int(1.4 * PX_PER_MM), cv2.LINE_AA, SHIFT)
    radius = int(looks["cell_radius"] * PX_PER_MM * s)
    for cell in board.cells:
        centre = px(cell.xy)
        if looks["cell"] == "hole":
            cv2.circle(img, centre, radius, (30, 44, 62), -1, cv2.LINE_AA, SHIFT)
            cv2.circle(img, centre, int(radius * 0.6), (18, 26, 38), -1, cv2.LINE_AA, SHIFT)
        elif looks["cell"] == "point":
            cv2.circle(img, centre, radius, ink, -1, cv2.LINE_AA, SHIFT)
        elif looks["cell"] == "hollow":
            cv2.circle(img, centre, radius, (236, 232, 226), -1, cv2.LINE_AA, SHIFT)
            cv2.circle(img, centre, radius, ink, int(1.2 * PX_PER_MM), cv2.LINE_AA, SHIFT)
        else:
            fill = looks["fields"].get(cell.kind)
            r = radius * (2.6 if cell.kind == "home" else 1)
            if fill:
                cv2.circle(img, centre, int(r), tuple(fill[::-1]), -1, cv2.LINE_AA, SHIFT)
            cv2.circle(img, centre, int(r), ink, int(1.2 * PX_PER_MM), cv2.LINE_AA, SHIFT)
    for marker in table.markers:
        _glue(img, marker, px, rng)
    return img


def _glue(img, marker, px, rng) -> None:
    """A marker printed on white paper, glued upright with a white border of one
    module, slightly askew as glued by hand."""
    spec = world()["markers"]
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, spec["dictionary"]))
    side = int(round(marker.size * PX_PER_MM))
    code = cv2.aruco.generateImageMarker(dictionary, marker.id, side)
    module = side // 6
    sheet = np.full((side + 2 * module, side + 2 * module), 246, np.uint8)
    sheet[module : module + side, module : module + side] = np.where(code > 127, 246, 22)
    cx, cy = (v / (1 << SHIFT) for v in px(marker.xy))
    turn = float(rng.normal(0, 0.5))
    half = sheet.shape[0] / 2
    m = cv2.getRotationMatrix2D((half, half), turn, 1.0)
    m[:, 2] += (cx - half, cy - half)
    h, w = img.shape[:2]
    warped = cv2.warpAffine(
        cv2.cvtColor(sheet, cv2.COLOR_GRAY2BGR), m, (w, h), flags=cv2.INTER_AREA
    )
    mask = cv2.warpAffine(np.ones_like(sheet, np.float32), m, (w, h))[..., None]
    img[:] = (img * (1 - mask) + warped * mask).astype(np.uint8)


def table_top(wood, rng: np.random.Generator, size: int = 1024) -> np.ndarray:
    """A wooden table top, sRGB BGR uint8."""
    tone = 0.8 + 0.35 * _grain((size, size), rng) + 0.05 * _noise((size, size), rng, 50)
    return np.clip(np.array(wood[::-1], np.float32)[None, None] * tone[..., None], 0, 255).astype(
        np.uint8
    )
