"""Hägar's table mat and coasters as the camera knows them: the mat as a board (a
spot per coaster place, ArUco markers around its edge, from ``coasters.toml``
beside this file), each coaster's printed face drawn from the engine's coaster data
(the same picture the renderer prints), and a layout from a reading.

Pictures and geometry only: it never looks at a frame.
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources

import cv2
import numpy as np

from engines.coasters import CORNERS, Coaster
from engines.geometry import Board, Cell, Marker
from vision import looks

#: the colour levels of sRGB as linear light
LINEAR = (np.arange(256, dtype=np.float32) / 255) ** 2.2


@cache
def data() -> dict:
    text = (resources.files("vision.coasters") / "coasters.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def rgb(name: str) -> tuple[int, int, int]:
    colours = data()["colours"]
    return tuple(colours[name]) if name in colours else looks.colour(name)


def coaster_mm(game) -> float:
    """A coaster's side: two fields of the table file's grid."""
    return 2 * float(game.board.game["field_mm"])


def mat_board(game) -> Board:
    """The table mat as a board: a cell per spot within the mat's reach of the first
    coaster's spot, and its markers around them."""
    return _mat_board(game.board)


@cache
def _mat_board(table: Board) -> Board:
    spec = data()["mat"]
    side = 2 * float(table.game["field_mm"])
    reach = int(spec["reach"])
    centres = {
        cell.zone: tuple(
            np.mean([c.xy for c in table.cells if c.zone == cell.zone], axis=0).tolist()
        )
        for cell in table.cells
        if cell.zone
    }
    limit = (reach + 0.01) * side
    cells = tuple(
        Cell(spot, xy, "spot")
        for spot, xy in sorted(centres.items(), key=lambda kv: (-kv[1][1], kv[1][0]))
        if abs(xy[0]) < limit and abs(xy[1]) < limit
    )
    size = float(spec["marker_mm"])
    out = (reach + 0.5) * side + float(spec["marker_gap_mm"]) + size / 2
    markers = tuple(Marker(i, (x * out, y * out), size) for i, (x, y) in enumerate(spec["markers"]))
    return Board(f"{table.name}_mat", "the table mat", cells, (), {}, markers=markers)


# --- what a coaster looks like ----------------------------------------------------------


def face(coaster: Coaster, size_mm: float, px_per_mm: float) -> np.ndarray:
    """The coaster's printed face seen from above, upright (its printed top edge at
    the image's top), as an RGB image: each field in its landscape's colour with its
    gold, skull, dice number and shield; a beer coaster's glass at its side."""
    prints = data()["prints"]
    n = int(round(size_mm * px_per_mm))
    image = np.zeros((n, n, 3), np.uint8)
    half = size_mm / 2

    def px(x: float, y: float) -> tuple[int, int]:
        # 16ths of a pixel: cv2 draws with shift=4 for sub-pixel places
        return int(round((half + x) * px_per_mm * 16)), int(round((half - y) * px_per_mm * 16))

    def disc(x: float, y: float, r: float, colour) -> None:
        cv2.circle(image, px(x, y), int(round(r * px_per_mm * 16)), colour, -1, cv2.LINE_AA, 4)

    for corner, (ox, oy) in CORNERS.items():
        rows = slice((1 - oy) * n // 2, (2 - oy) * n // 2)  # north is the image's top
        image[rows, ox * n // 2 : (ox + 1) * n // 2] = rgb(coaster.fields[corner].landscape)
    for corner, (ox, oy) in CORNERS.items():
        printed = coaster.fields[corner]
        sx, sy = 2 * ox - 1, 2 * oy - 1  # towards the field's outer corner
        cx, cy = sx * half / 2, sy * half / 2
        px_, py_ = cx + sx * prints["corner_mm"], cy + sy * prints["corner_mm"]
        if printed.gold:
            r = prints["gold_mm"]
            disc(px_, py_, r, tuple(int(v * 0.7) for v in rgb("gold")))
            disc(px_, py_, r * 0.8, rgb("gold"))
        if printed.skull:
            r = prints["skull_mm"]
            disc(px_, py_, r, rgb("skull"))
            for eye in (-1, 1):
                disc(px_ + eye * 0.38 * r, py_ + 0.15 * r, 0.28 * r, rgb("skull_eyes"))
        if printed.die is not None:
            _die(image, px, disc, (px_, py_), printed.die, prints["die_mm"])
        if printed.shield is not None:
            _shield(image, px, (cx, cy), printed.shield, half, prints["shield_mm"])
    if coaster.beer is not None:
        r = prints["glass_mm"]
        dx, dy = _SIDE_STEP[coaster.beer]
        gx, gy = dx * (half - r - 2), dy * (half - r - 2)
        disc(gx, gy, r, rgb("glass"))
        disc(gx + dx * 0.35 * r, gy + dy * 0.35 * r, 0.55 * r, rgb("foam"))
    return image


#: a step of one towards each of SIDES (north, east, south, west), mm axes
_SIDE_STEP = ((0, 1), (1, 0), (0, -1), (-1, 0))
#: pips of a die face, in units of a third of its side from its centre
_PIPS = {
    1: [(0, 0)],
    2: [(-1, 1), (1, -1)],
    3: [(-1, 1), (0, 0), (1, -1)],
    4: [(-1, 1), (1, 1), (-1, -1), (1, -1)],
    5: [(-1, 1), (1, 1), (0, 0), (-1, -1), (1, -1)],
    6: [(-1, 1), (1, 1), (-1, 0), (1, 0), (-1, -1), (1, -1)],
}


def _die(image, px, disc, centre, number: int, side: float) -> None:
    x, y = centre
    a, b = px(x - side / 2, y + side / 2), px(x + side / 2, y - side / 2)
    cv2.rectangle(image, a, b, rgb("die"), -1, cv2.LINE_AA, 4)
    for i, j in _PIPS[number]:
        disc(x + i * side / 3.4, y + j * side / 3.4, side / 11, rgb("pips"))


def _shield(image, px, field_centre, side: int, half: float, width: float) -> None:
    """A shield on the middle of the field's outer edge ``side``, pointing inwards."""
    dx, dy = _SIDE_STEP[side]
    cx, cy = field_centre
    ex, ey = (cx, dy * half) if dy else (dx * half, cy)
    ax, ay = -dy, dx  # along the edge
    w = width / 2

    def at(along: float, inward: float) -> tuple[int, int]:
        return px(ex + ax * along - dx * inward, ey + ay * along - dy * inward)

    outline = [at(-w, 0), at(w, 0), at(w, 0.3 * width), at(0, 0.6 * width), at(-w, 0.3 * width)]
    cv2.fillConvexPoly(image, np.array(outline, np.int32), rgb("shield"), cv2.LINE_AA, 4)


def turned(image: np.ndarray, turn: int) -> np.ndarray:
    """An upright picture as it lies after ``turn`` quarter turns clockwise."""
    return np.ascontiguousarray(np.rot90(image, -turn))


# --- the table as observations ---------------------------------------------------------


def turn_of(coaster: Coaster, corner: str, printed: str) -> int:
    """The turn at which the coaster's ``printed`` corner lies at table ``corner``."""
    return next(
        t
        for t in range(4)
        if any(at == corner and p == printed for at, p, _ in coaster.on_table(t))
    )


def layout_of(game, seen: dict[str, str | None]):
    """From a ``game.observe``-style dict: ``{spot: (coaster id, turn)}`` and
    ``{field: token}``."""
    spots: dict[str, tuple[str, int]] = {}
    tokens: dict[str, str] = {}
    for name, token in seen.items():
        if token is None:
            continue
        printed, _, piece = token.partition(looks.JOIN)
        coaster_id, printed_corner = printed.rsplit("_", 1)
        spot, corner = name.rsplit("_", 1)
        if corner == "sw":
            spots[spot] = (coaster_id, turn_of(game.coasters[coaster_id], corner, printed_corner))
        if piece:
            tokens[name] = piece
    return spots, tokens
