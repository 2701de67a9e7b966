"""The board as printed, seen from straight above: its lines, holes and coloured
spaces on a stretch of bare table, with the ArUco markers glued at its corners
(where they were meant to go, or a little off). The synthetic camera
(``vision.render``) lays this texture on the table and photographs it."""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision import looks
from vision.looks import Look

#: texture resolution of the printed board, pixels per millimetre (at most)
TEXTURE_PX_PER_MM = 4.0
#: how much bare table shows around the board in the texture, mm
TABLE_MARGIN = 400.0


def bgr(rgb) -> tuple[int, int, int]:
    """An RGB colour (0-255, floats allowed) as OpenCV's BGR, clipped."""
    r, g, b = (int(min(max(float(v), 0.0), 255.0)) for v in rgb)
    return b, g, r


#: rows of the board's texture coloured at a time (bounds the memory it takes)
TEXTURE_BAND = 256


#: boards whose print (with its markers in place) is kept, the oldest dropped first:
#: a print takes up to 48 MB, so the table keeps the one board it plays on; the
#: tests, which switch boards, keep more
KEPT_PRINTS = 1
#: (board, look, texture, what its markers cover) of the boards last printed; the
#: scenes of one board share its print (it is only read)
_printed: list[tuple] = []


def keep_prints(count: int) -> int:
    """Keep the prints of the last ``count`` boards from now on (the older ones go at
    once); how many were kept before."""
    global KEPT_PRINTS
    before, KEPT_PRINTS = KEPT_PRINTS, count
    _keep_newest(count)
    return before


def _keep_newest(count: int) -> None:
    del _printed[: max(len(_printed) - count, 0)]


def board_texture(board, look: Look, misplaced: dict | None = None):
    """The printed board seen from straight above (BGR), and the map from board mm to
    texture pixels as ((scale_x, offset_x), (scale_y, offset_y)); markers glued as
    ``misplaced`` says (see ``Renderer``). The last boards with their markers in
    place are printed once and shared (``KEPT_PRINTS``); one with markers glued off
    is a copy of its print with the markers taken off again and glued where they
    were misplaced."""
    printed = next((p for p in _printed if p[0] is board and p[1] == look), None)
    if printed is None:
        _keep_newest(KEPT_PRINTS - 1)  # the old prints go before the new one is made
        covered: list = []
        printed = (board, look, print_board(board, look, None, covered), covered)
        _printed.append(printed)
    texture, to_px = printed[2]
    if not misplaced:
        return texture, to_px
    texture = texture.copy()
    for rows, columns, under in reversed(printed[3]):
        texture[rows, columns] = under
    _glue_markers(texture, board, misplaced, to_px)
    return texture, to_px


def print_board(board, look: Look, misplaced: dict | None, covered: list | None = None):
    """``board_texture``, made anew; what each marker covered before it was glued is
    added to ``covered`` as (rows, columns, pixels)."""
    left, bottom, right, top = looks.extent(board)
    span = max(right - left, top - bottom) + 2 * TABLE_MARGIN
    s = min(TEXTURE_PX_PER_MM, 4000 / span)
    tl = left - TABLE_MARGIN
    tw = int((right - left + 2 * TABLE_MARGIN) * s)
    th = int((top - bottom + 2 * TABLE_MARGIN) * s)
    to_px = ((s, -tl * s), (-s, (top + TABLE_MARGIN) * s))
    grain = np.random.default_rng(7).normal(0, 1, (th // 8 + 1, tw // 8 + 1)).astype(np.float32)
    grain = cv2.resize(cv2.GaussianBlur(grain, (0, 0), 1.5), (tw, th))
    x0, y0 = _px((left, top), to_px)
    x1, y1 = _px((right, bottom), to_px)
    texture = np.empty((th, tw, 3), np.uint8)
    table = np.array(looks.colour("table")[::-1], np.float32)
    surface = np.array(look.surface[::-1], np.float32)
    # a band of rows at a time: a texture 4000 px square as float colours all at
    # once took half a gigabyte while it was made; one channel at a time, the grain
    # scaled once for all three (four times faster than three channels at once)
    for top_row in range(0, th, TEXTURE_BAND):
        rows = slice(top_row, min(th, top_row + TEXTURE_BAND))
        inner = (slice(max(y0 - top_row, 0), max(y1 - top_row, 0)), slice(x0, x1))
        around, on_board = grain[rows] * np.float32(6), grain[rows][inner] * np.float32(4)
        channels = []
        for table_level, surface_level in zip(table, surface, strict=True):
            shade = around + table_level
            shade[inner] = on_board + surface_level
            channels.append(np.clip(shade, 0, 255, out=shade).astype(np.uint8))
        texture[rows] = cv2.merge(channels)
    line = bgr(looks.colour("board_line"))
    mm = lambda v: max(1, int(round(v * s * 16)))  # noqa: E731
    for path in (*board.lines, *board.links):
        for a, b in zip(path, path[1:]):
            pa = _px16(board.cell(a).xy, to_px)
            pb = _px16(board.cell(b).xy, to_px)
            cv2.line(texture, pa, pb, line, max(1, int(1.5 * s)), cv2.LINE_AA, 4)
    surface = np.array(look.surface, dtype=np.float64)
    for cell in board.cells:
        c = _px16(cell.xy, to_px)
        r = mm(look.cell_radius)
        if look.cell == "hole":
            cv2.circle(texture, c, r, bgr(looks.colour("hole")), -1, cv2.LINE_AA, 4)
        elif look.cell == "point":
            cv2.circle(texture, c, r, line, -1, cv2.LINE_AA, 4)
        elif look.cell == "hollow":
            cv2.circle(texture, c, r, bgr(surface * 0.82), -1, cv2.LINE_AA, 4)
            cv2.circle(texture, c, r, line, max(1, int(0.8 * s)), cv2.LINE_AA, 4)
        else:
            name = f"field_{cell.kind}"
            ring = (
                looks.colour(name)
                if name in looks.data()["colours"]
                else looks.colour("board_line")
            )
            slots = look.slots.get(cell.kind)
            radius = look.cell_radius + (slots.ring if slots else 0)
            # a home field is one big field: nothing on it marks where a hat stands
            cv2.circle(texture, c, mm(radius), bgr(ring), max(2, int(2.5 * s)), cv2.LINE_AA, 4)
    _glue_markers(texture, board, misplaced, to_px, covered)
    return texture, to_px


def _glue_markers(texture, board, misplaced: dict | None, to_px, covered: list | None = None):
    """Every marker of ``board`` glued into ``texture``, off its place as ``misplaced``
    says; what each covered goes to ``covered``."""
    for marker in looks.markers(board):
        dx, dy, turn = (misplaced or {}).get(marker.id, (0.0, 0.0, 0.0))
        xy = (marker.xy[0] + dx, marker.xy[1] + dy)
        _glue(texture, marker, xy, turn, to_px, to_px[0][0], covered)


def _glue(texture, marker, xy, turn: float, to_px, s: float, covered=None) -> None:
    """``marker`` printed with its white quiet zone, centred at ``xy`` (mm) and turned
    ``turn`` degrees anticlockwise, into ``texture``; what it covers goes to
    ``covered`` (when given) as (rows, columns, pixels)."""
    side = int(round(marker.size * s))
    quiet = int(round(marker.size * 0.2 * s))
    patch = np.full((side + 2 * quiet,) * 2, 255, np.uint8)
    patch[quiet : quiet + side, quiet : quiet + side] = cv2.aruco.generateImageMarker(
        looks.dictionary(), marker.id, side
    )
    cx, cy = _px(xy, to_px)
    if not turn:
        x, y = cx - side // 2 - quiet, cy - side // 2 - quiet
        _cover(texture, slice(y, y + len(patch)), slice(x, x + len(patch)), covered)
        texture[y : y + len(patch), x : x + len(patch)] = patch[..., None]
        return
    room = int(math.ceil(len(patch) * math.sqrt(2))) + 2
    pad = (room - len(patch)) // 2
    big = cv2.copyMakeBorder(patch, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    mask = cv2.copyMakeBorder(np.full_like(patch, 255), pad, pad, pad, pad, cv2.BORDER_CONSTANT)
    centre = ((len(big) - 1) / 2, (len(big) - 1) / 2)
    spin = cv2.getRotationMatrix2D(centre, turn, 1.0)
    big = cv2.warpAffine(big, spin, big.shape[::-1], flags=cv2.INTER_LINEAR)
    mask = cv2.warpAffine(mask, spin, mask.shape[::-1], flags=cv2.INTER_LINEAR)
    x, y = cx - len(big) // 2, cy - len(big) // 2
    _cover(texture, slice(y, y + len(big)), slice(x, x + len(big)), covered)
    region = texture[y : y + len(big), x : x + len(big)]
    alpha = (mask.astype(np.float32) / 255)[..., None]
    region[:] = (alpha * big[..., None] + (1 - alpha) * region).astype(np.uint8)


def _cover(texture, rows: slice, columns: slice, covered: list | None) -> None:
    if covered is not None:
        covered.append((rows, columns, texture[rows, columns].copy()))


def _px(xy, to_px) -> tuple[int, int]:
    (sx, ox), (sy, oy) = to_px
    return int(round(xy[0] * sx + ox)), int(round(xy[1] * sy + oy))


def _px16(xy, to_px) -> tuple[int, int]:
    (sx, ox), (sy, oy) = to_px
    return int(round((xy[0] * sx + ox) * 16)), int(round((xy[1] * sy + oy) * 16))
