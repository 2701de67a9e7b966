"""The board found with fewer than two markers: by its cells' dark marks grown into a
lattice (``vision.boards.lattice``) where its cells lie on one, else by the printed
board's outline; turned the way one marker (or, without one, the start position)
shows, then held to the board's own pattern (the marks of its cells: holes, points,
fields) before it is trusted.

One marker is too small to fix the far side of a board, and the empty cells' marks
of a start position often lie on one side only, so a pose fitted to them alone can
fit every mark and still be a centimetre off across the board. A pose from the
outline is therefore trusted only when two things seen apart agree with it: the
printed outline's four corners, and the empty cells' marks, found where it puts them
with a small residual. A pose from the lattice has the whole board's marks behind
it, and is trusted only when no mark lies beside the board's cells or one step
beyond them (a lattice a row off) and the empty cells' marks are found where it puts
them. Anything less is "not located": a wrong pose must never read a board.

Only finds poses; what a cell holds is the classifier's job.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from vision import looks
from vision.boards import lattice
from vision.boards.marks import LEAST_CELLS, LEAST_SYMMETRY, REACH_MM, symmetry_centres, trued_up
from vision.boards.outline import outlines
from vision.boards.sites import site_labels, sites_of, turned_places
from vision.lens import Lens
from vision.locate import Pose, camera_above

#: a pose is believed when at least this share of the empty cells' marks are found
#: within REACH_MM of where it puts them ...
LEAST_MATCHED = 0.8
#: ... those marks' centres lie within this of where it puts them (px, RMS: right
#: poses leave 0.04-0.47 px, a mark or two beside a piece taken for another; a pose
#: fitted to the marks of one side of the board can leave as little, which is why
#: the outline must agree as well) ...
MARKS_RMS_PX = 0.6
#: ... and it puts the printed board's corners within this (px, the largest) of the
#: outline's corners seen in the frame: right poses 2-5 px, wrong ones 10 px and more
OUTLINE_AGREES_PX = 8.0
#: ... at the corners this far (px) inside the frame, three of them at least
OUTLINE_EDGE_PX = 12.0
#: the one marker must stay within this (px) of where it is seen: markers glued a
#: little off move it a few pixels, the outline taken the wrong way round hundreds
MARKER_MISS_PX = 8.0
#: a way round the outline whose corners reproject worse than this (px, in the frame)
#: is not the board's shape turned: not tried
OUTLINE_MISFIT_PX = 12.0
#: outlines of the board's shape held to the marks, in the order proposed: each
#: costs the marks' search four or eight times
SHAPES_TRIED = 4
#: two ways round whose matched shares differ less than this are told apart by the
#: pieces' colours ...
TIE = 0.1
#: ... unless one of them leaves its marks further off than this many times
#: MARKS_RMS_PX: a way round that puts the marks of a board nearly the same every
#: way round a pixel or two off is not the board (the right one leaves 0.1-0.5 px)
TIE_RMS = 2.0
#: ... and one way round is taken only if at least this share of the start
#: position's pieces look most like their own colour of the colours in play there ...
LEAST_COLOUR_SHARE = 0.5
#: ... and this much more of them than the next way's; else the board is not
#: located: a board the same every way round and no colours to tell is not guessed
COLOUR_MARGIN = 0.3
#: a piece's colour is the median over a square this wide (px) round its middle
COLOUR_PATCH_PX = 5
#: the cell marks (looks.toml ``cell``) dark spots enough to grow a lattice from: a
#: hollow or a ring is light inside
DARK_MARKS = ("hole", "point")


def located(frame, lens: Lens, game, look, truth: dict | None, marks, marker=None):
    """The board's pose from its lattice of marks (``by_lattice``) or its outline, held
    to the marks at ``marks`` (mm, the cells believed empty) and turned the way the
    one ``marker`` (its corners on the board, mm, and in the frame, px) or, without
    one, the start position ``truth`` (cell -> token) shows; None unless the pose is
    trusted."""
    grey = _grey(frame)
    if len(marks) < LEAST_CELLS or (marker is None and truth is None):
        return None
    found = by_lattice(frame, lens, game, look, truth, marks, marker)
    if found is not None:
        return found
    tried = 0
    for quad in outlines(frame, lens):
        ways = outline_poses(quad, lens, game.board)
        if marker is not None:
            ways = [p for p in ways if _marker_miss(p, lens, marker) <= 2 * OUTLINE_MISFIT_PX]
        if not ways:
            continue  # not the board's shape seen from above
        tried += 1
        if tried > SHAPES_TRIED:
            break
        poses = [Pose(r, t, 0.0, 0 if marker is None else 1, way="pattern") for r, t in ways]
        best = _turned(
            frame, lens, game, look, truth, _held(grey, lens, look, marks, marker, poses)
        )
        if best is not None and trusted(best, quad, lens, game.board):
            return best
    return None


def by_lattice(frame, lens: Lens, game, look, truth: dict | None, marks, marker=None):
    """The board's pose from its cells' marks grown into a lattice
    (``vision.boards.lattice``), held to the marks at ``marks`` and turned the way the
    one ``marker`` or the start position ``truth`` shows; None unless trusted: the
    lattice lines up with the board's cells and none beyond them, and the marks are
    found where the pose puts them (LEAST_MATCHED, MARKS_RMS_PX)."""
    if look.cell not in DARK_MARKS:
        return None
    board = game.board
    cells = np.array([c.xy for c in board.cells], float)
    empty = np.linalg.norm(cells[:, None] - marks[None], axis=2).min(axis=1) < 1e-6
    grey = _grey(frame)
    ways = [
        Pose(w.rvec, w.tvec, 0.0, 0 if marker is None else 1, way="pattern")
        for w in lattice.alignments(frame, lens, board, empty)
    ]
    # each way is trued up only if the marker, or the pieces' colours, leave it in
    # the running: truing up costs the marks' search twice over
    if marker is not None:
        ways = [
            w for w in ways if _marker_miss((w.rvec, w.tvec), lens, marker) <= 2 * OUTLINE_MISFIT_PX
        ]
    elif truth is not None and len(ways) > 1:
        shares = [_colour_share(frame, lens, w, game, look, truth) for w in ways]
        ways = [w for w, share in zip(ways, shares) if share >= max(shares) - COLOUR_MARGIN]
    best = _turned(frame, lens, game, look, truth, _held(grey, lens, look, marks, marker, ways))
    if best is None or best.matched is None:
        return None
    if best.matched < LEAST_MATCHED or best.error_px > MARKS_RMS_PX:
        return None
    return best


def _held(grey, lens: Lens, look, marks, marker, poses: list[Pose]) -> list[Pose]:
    """``poses`` trued up to the marks at ``marks`` and ``judged`` by them; with the
    one ``marker``, those that keep it within MARKER_MISS_PX of where it is seen."""
    held = []
    for pose in poses:
        trued = trued_up(grey, pose, lens, marks, look.cell_radius)
        if trued.cells:
            held.append(judged(grey, trued, lens, marks, look.cell_radius))
    if marker is None:
        return held
    return [
        replace(p, way="one marker")
        for p in held
        if _marker_miss((p.rvec, p.tvec), lens, marker) <= MARKER_MISS_PX
    ]


def trusted(pose: Pose, quad: np.ndarray, lens: Lens, board) -> bool:
    """Whether the marks and the outline (``quad``, undistorted frame px) both agree
    with ``pose`` (``judged``) as closely as right poses do."""
    if pose.matched is None or pose.matched < LEAST_MATCHED or pose.error_px > MARKS_RMS_PX:
        return False
    back, _ = cv2.projectPoints(_corners(board), pose.rvec, pose.tvec, lens.matrix, None)
    miss = np.linalg.norm(back.reshape(-1, 1, 2) - quad[None], axis=2).min(axis=1)
    # a corner at the frame's edge is where the frame cuts the paper, not the paper's
    w, h = lens.size
    at = lens.project(_corners(board), pose.rvec, pose.tvec)
    inside = np.all((at > OUTLINE_EDGE_PX) & (at < np.array([w, h]) - OUTLINE_EDGE_PX), axis=1)
    return bool(inside.sum() >= 3 and miss[inside].max() <= OUTLINE_AGREES_PX)


def judged(grey, pose: Pose, lens: Lens, marks, radius: float) -> Pose:
    """``pose`` with the share of ``marks`` found where it puts them (``matched``) and
    how far off they are in the frame (``error_px``, RMS)."""
    off, strength = symmetry_centres(grey, lens, pose.rvec, pose.tvec, marks, radius)
    found = (strength >= LEAST_SYMMETRY) & (np.linalg.norm(off, axis=1) < REACH_MM)
    if not found.any():
        return replace(pose, matched=0.0)
    flat = np.zeros((int(found.sum()), 1))
    at = lens.project(np.c_[marks[found], flat], pose.rvec, pose.tvec)
    seen = lens.project(np.c_[marks[found] + off[found], flat], pose.rvec, pose.tvec)
    error = float(np.sqrt(np.mean(np.sum((at - seen) ** 2, axis=1))))
    return replace(pose, matched=float(found.mean()), error_px=error)


def _turned(frame, lens: Lens, game, look, truth, held: list[Pose]) -> Pose | None:
    """Of the ways round ``held``, the one the marks fit best, told from ways that fit
    about as well by the start position's colours; None if nothing tells them apart."""
    if not held:
        return None
    best = max(p.matched or 0.0 for p in held)
    tied = sorted(
        (
            p
            for p in held
            if (p.matched or 0.0) > best - TIE and p.error_px <= TIE_RMS * MARKS_RMS_PX
        ),
        key=lambda p: -(p.matched or 0.0),
    )
    if not tied:
        return None
    if len(tied) == 1:
        return tied[0]
    if truth is None:
        return None
    shares = sorted(
        ((_colour_share(frame, lens, p, game, look, truth), n) for n, p in enumerate(tied)),
        reverse=True,
    )
    if shares[0][0] < LEAST_COLOUR_SHARE or shares[0][0] - shares[1][0] < COLOUR_MARGIN:
        return None  # the pattern fits more than one way round and nothing tells which
    return tied[shares[0][1]]


def outline_poses(quad: np.ndarray, lens: Lens, board) -> list[tuple[np.ndarray, np.ndarray]]:
    """Poses that put the printed board's corners (``looks.extent``) on the corners of
    ``quad`` (undistorted frame px): every way round that the board's shape allows."""
    corners = _corners(board)
    poses = []
    for turn in range(4):
        for image in (np.roll(quad, turn, 0), np.roll(quad[::-1], turn, 0)):
            pose = _corner_pose(corners, image, lens)
            if pose is not None:
                poses.append(pose)
    return poses


def _corners(board) -> np.ndarray:
    left, bottom, right, top = looks.extent(board)
    return np.array([[left, top, 0], [right, top, 0], [right, bottom, 0], [left, bottom, 0]])


def _corner_pose(corners, image, lens: Lens):
    """The pose putting board ``corners`` at undistorted frame points ``image``, if the
    camera is above the board and they fit within OUTLINE_MISFIT_PX."""
    ok, rvec, tvec = cv2.solvePnP(
        corners, image.reshape(-1, 1, 2), lens.matrix, None, flags=cv2.SOLVEPNP_IPPE
    )
    if not ok or not camera_above(rvec, tvec):
        return None
    back, _ = cv2.projectPoints(corners, rvec, tvec, lens.matrix, None)
    if np.abs(back.reshape(-1, 2) - image).max() > OUTLINE_MISFIT_PX:
        return None
    return rvec, tvec


def _marker_miss(pose, lens: Lens, marker) -> float:
    """How far (px, largest) ``pose`` (rvec, tvec) puts the marker's corners from
    where they are seen."""
    board_pts, image_pts = marker
    return float(np.linalg.norm(lens.project(board_pts, *pose) - image_pts, axis=1).max())


def _colour_share(frame, lens: Lens, pose: Pose, game, look, truth: dict) -> float:
    """The share of the start position's pieces (``truth``) that look, where ``pose``
    puts them, most like their own colour (``looks.toml``) of the colours in play:
    hue and saturation compared, not brightness, and against each other rather than
    the colours' exact values, which the room's light shifts; 0 without pieces. A
    home field's hats are looked for at each turn of its ring, the best one counted."""
    sites = sites_of(game.board, look)
    held = [
        (site, look.pieces[label])
        for site, label in zip(sites, site_labels(sites, truth))
        if label in look.pieces
    ]
    if not held or frame.ndim == 2:
        return 0.0
    places = [turned_places(game.board, look, site) for site, _ in held]
    owner = np.repeat(np.arange(len(held)), [len(p) for p in places])
    turn = np.concatenate([np.arange(len(p)) for p in places])
    rise = np.array([held[i][1].height / 2 for i in owner])
    at = np.c_[np.concatenate(places), rise]
    px = np.round(lens.project(at, pose.rvec, pose.tvec)).astype(int)
    h, w = frame.shape[:2]
    half = COLOUR_PATCH_PX // 2
    inside = np.all((px >= half) & (px < np.array([w, h]) - half), axis=1)
    if not inside.any():
        return 0.0
    seen = np.array(
        [
            np.median(frame[y - half : y + half + 1, x - half : x + half + 1].reshape(-1, 3), 0)
            for x, y in px[inside]
        ]
    )[:, ::-1]
    expected = np.array([held[i][1].colour for i in owner[inside]], float)
    palette = np.unique(expected, axis=0)
    chroma = _chroma(palette)
    board = _empty_colour(frame, lens, pose, game, truth, float(rise.mean()))
    if board is not None:  # a piece must look more like its colour than the board
        chroma = np.vstack([chroma, _chroma(board[None])])
    apart = np.linalg.norm(_chroma(seen)[:, None] - chroma[None], axis=2)
    nearest = apart.argmin(axis=1)
    own = (nearest < len(palette)) & np.all(
        palette[np.minimum(nearest, len(palette) - 1)] == expected, axis=1
    )
    # per cell and turn of its ring, its pieces in their own colour: each cell's best
    shown: dict[tuple[str, int], int] = {}
    for i, t, is_own in zip(owner[inside], turn[inside], own):
        key = (held[i][0].cell, int(t))
        shown[key] = shown.get(key, 0) + int(is_own)
    best: dict[str, int] = {}
    for (cell, _), count in shown.items():
        best[cell] = max(best.get(cell, 0), count)
    return sum(best.values()) / len(np.unique(owner[inside]))


def _empty_colour(frame, lens: Lens, pose: Pose, game, truth: dict, rise: float):
    """The median colour (RGB) the frame shows where ``pose`` puts the empty cells of
    ``truth``, seen as a piece's middle ``rise`` mm above them would be; None if none
    is in the frame."""
    empty = [c.xy for c in game.board.cells if truth.get(c.id) is None]
    if not empty:
        return None
    at = np.c_[np.reshape(empty, (-1, 2)), np.full(len(empty), rise)]
    px = np.round(lens.project(at, pose.rvec, pose.tvec)).astype(int)
    h, w = frame.shape[:2]
    px = px[np.all((px >= 0) & (px < np.array([w, h])), axis=1)]
    if not len(px):
        return None
    return np.median(frame[px[:, 1], px[:, 0]].reshape(-1, 3), axis=0)[::-1].astype(float)


def _chroma(rgb: np.ndarray) -> np.ndarray:
    """Colours as unit vectors away from grey: their hue and saturation, not brightness."""
    away = rgb - rgb.mean(axis=1, keepdims=True)
    return away / np.maximum(np.linalg.norm(rgb, axis=1, keepdims=True), 1.0)


def _grey(frame: np.ndarray) -> np.ndarray:
    return frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
