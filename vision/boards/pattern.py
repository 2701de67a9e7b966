"""The board found with fewer than two markers: from one marker's four corners, or
from the printed board's outline, then held to the board's own pattern (the marks
of its cells: holes, points, fields) before it is trusted.

One marker fixes the board near itself only (it is small), so the pose is refitted
to the marks of the nearest cells, then of ever more cells further away. Without a
marker the outline gives four corners but not which way round the board lies: every
way the outline allows is fitted to the marks, and the start position (which cells
hold pieces, and the pieces' colours) says which one is right. A pose is refused
unless enough of the empty cells' marks are found where it puts them.

Only finds poses; what a cell holds is the classifier's job.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from vision import looks
from vision.boards.marks import LEAST_CELLS, LEAST_SYMMETRY, REACH_MM, symmetry_centres, trued_up
from vision.lens import Lens
from vision.locate import Pose, camera_above

#: each round of refitting from one marker takes this many times the cells of the last
GROWTH = 1.6
#: a pose is believed when at least this share of the empty cells' marks are found
#: within REACH_MM of where it puts them
LEAST_MATCHED = 0.8
#: a pose refitted to the marks must still put the marker's corners within this
#: (px) of where they are seen: markers glued a little off move them a few pixels,
#: marks taken for their neighbours' a cell's pitch
MARKER_MISS_PX = 8.0
#: the outline is looked for in a copy of the frame this wide (px): enough for four
#: corners a few pixels off, which the marks then true up
OUTLINE_WIDTH = 640
#: the outline must cover at least this share of the frame
LEAST_OUTLINE = 0.08
#: a way round the outline whose corners reproject worse than this (px, in the frame)
#: is not the board's shape turned: not tried
OUTLINE_MISFIT_PX = 12.0
#: two ways round whose matched shares differ less than this are told apart by the
#: pieces' colours
TIE = 0.1
#: ... and one way round is taken only if its pieces' colours fit better than the
#: next way's by this much (0-2); else the board is not located: a board the same
#: every way round (Fang den Hut!'s ring, its hats on the home fields) is not guessed
COLOUR_MARGIN = 0.15


def from_one_marker(frame, poses, lens: Lens, marks, radius: float, marker) -> Pose | None:
    """The best of ``poses`` (one marker's, both of the plane's readings of it) refitted
    to the marks at ``marks`` (mm, the cells believed empty) outward from the
    ``marker`` (its corners on the board, mm, and in the frame, px); None unless
    LEAST_MATCHED of the marks agree and the marker stays within MARKER_MISS_PX."""
    grey = _grey(frame)
    board_pts, image_pts = marker
    order = np.argsort(np.linalg.norm(marks - board_pts[:, :2].mean(axis=0), axis=1))
    best = None
    for pose in poses:
        grown = _grown(grey, pose, lens, marks[order], radius)
        if grown is None or grown.matched < LEAST_MATCHED:
            continue
        back = lens.project(board_pts, grown.rvec, grown.tvec)
        if np.linalg.norm(back - image_pts, axis=1).max() > MARKER_MISS_PX:
            continue  # fitted to marks a cell or more off: the lattice fooled it
        if best is None or grown.matched > best.matched:
            best = grown
    return best


def _grown(grey, pose: Pose, lens: Lens, marks, radius: float) -> Pose | None:
    """``pose`` refitted to the nearest marks (``marks`` nearest first), then to ever
    more of them; None if a round finds too few."""
    count = min(len(marks), 2 * LEAST_CELLS)
    while True:
        trued = trued_up(grey, pose, lens, marks[:count], radius)
        if not trued.cells:
            return None
        pose = trued
        if count == len(marks):
            return judged(grey, pose, lens, marks, radius)
        count = min(len(marks), int(count * GROWTH))


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


def from_outline(frame, lens: Lens, game, look, truth: dict, empty) -> Pose | None:
    """The board found by its printed outline and held to the marks at ``empty`` (mm,
    the cells the start position ``truth`` leaves empty), turned the way ``truth``
    (cell -> token) shows; None if no way round matches LEAST_MATCHED of the marks."""
    board, radius = game.board, look.cell_radius
    grey = _grey(frame)
    if len(empty) < LEAST_CELLS:
        return None
    held = []
    for rvec, tvec in outline_poses(grey, lens, board):
        pose = Pose(rvec, tvec, 0.0, 0, way="pattern")
        trued = trued_up(grey, pose, lens, empty, radius)
        if trued.cells:
            held.append(judged(grey, trued, lens, empty, radius))
    if not held:
        return None
    held.sort(key=lambda p: -p.matched)
    tied = [p for p in held if p.matched > held[0].matched - TIE]
    misses = sorted(
        (_colour_miss(frame, lens, p, game, look, truth), n) for n, p in enumerate(tied)
    )
    if len(misses) > 1 and misses[1][0] - misses[0][0] < COLOUR_MARGIN:
        return None  # the pattern fits more than one way round and nothing tells which
    best = tied[misses[0][1]]
    return best if best.matched >= LEAST_MATCHED else None


def outline_poses(grey, lens: Lens, board) -> list[tuple[np.ndarray, np.ndarray]]:
    """Poses that put the printed board's corners (``looks.extent``) on the four
    corners of the largest bright quadrilateral in ``grey``: every way round that
    the board's shape allows."""
    h, w = grey.shape
    scale = OUTLINE_WIDTH / w
    small = cv2.GaussianBlur(cv2.resize(grey, (OUTLINE_WIDTH, int(h * scale))), (5, 5), 0)
    _, bright = cv2.threshold(small, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    bright = cv2.morphologyEx(bright, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
    contours, _ = cv2.findContours(bright, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return []
    outline = max(contours, key=cv2.contourArea)
    if cv2.contourArea(outline) < LEAST_OUTLINE * small.size:
        return []
    # straighten what the lens bent before fitting four sides
    points = outline.reshape(-1, 1, 2).astype(np.float64) / scale
    flat = cv2.undistortPoints(points, lens.matrix, lens.dist, P=lens.matrix)
    quad = _quadrilateral(flat.astype(np.float32))
    if quad is None:
        return []
    left, bottom, right, top = looks.extent(board)
    corners = np.array([[left, top, 0], [right, top, 0], [right, bottom, 0], [left, bottom, 0]])
    poses = []
    for turn in range(4):
        for image in (np.roll(quad, turn, 0), np.roll(quad[::-1], turn, 0)):
            pose = _corner_pose(corners, image, lens)
            if pose is not None:
                poses.append(pose)
    return poses


def _quadrilateral(points: np.ndarray) -> np.ndarray | None:
    """The four corners of a convex outline, or None if it has no four clear ones."""
    hull = cv2.convexHull(points)
    perimeter = cv2.arcLength(hull, True)
    for share in (0.01, 0.02, 0.03, 0.05):
        quad = cv2.approxPolyDP(hull, share * perimeter, True)
        if len(quad) == 4:
            return quad.reshape(4, 2).astype(np.float64)
    return None


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


def _colour_miss(frame, lens: Lens, pose: Pose, game, look, truth: dict) -> float:
    """How unlike the start position's pieces (their colours in ``looks.toml``) the
    frame is where ``pose`` puts them: the median distance of hue-and-saturation
    directions, 0 to 2; 0 for a board without pieces."""
    held = [
        (c.xy, look.pieces[t]) for c in game.board.cells if (t := truth.get(c.id)) in look.pieces
    ]
    if not held:
        return 0.0
    at = np.array([[*xy, piece.height / 2] for xy, piece in held])
    px = np.round(lens.project(at, pose.rvec, pose.tvec)).astype(int)
    h, w = frame.shape[:2]
    inside = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
    if frame.ndim == 2 or not inside.any():
        return 0.0
    seen = frame[px[inside, 1], px[inside, 0]][:, ::-1].astype(float)
    expected = np.array([piece.colour for (_, piece), i in zip(held, inside) if i], float)
    return float(np.median(np.linalg.norm(_chroma(seen) - _chroma(expected), axis=1)))


def _chroma(rgb: np.ndarray) -> np.ndarray:
    """Colours as unit vectors away from grey: their hue and saturation, not brightness."""
    away = rgb - rgb.mean(axis=1, keepdims=True)
    return away / np.maximum(np.linalg.norm(rgb, axis=1, keepdims=True), 1.0)


def _grey(frame: np.ndarray) -> np.ndarray:
    return frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
