"""The board's pose trued up by the board itself. Every cell's printed mark (a hole,
a point, a hollow, a ring) is symmetric round the cell's centre, so where a frame
shows that symmetry's centre is where the cell really is. Markers glued a few
millimetres or degrees off their places put the pose a millimetre or two off at the
cells; fitted again to the marks of the cells that stand empty, it puts every cell
where it is printed.

Refines a pose only: finding the markers is ``vision.locate``'s job, and what a cell
holds the classifier's.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from vision.lens import Lens
from vision.locate import Pose

#: the patch round each cell is sampled this finely (px per mm of the board)
PX_PER_MM = 2.0
#: ... and reaches this far (mm) beyond the cell's mark: the most the markers' pose may
#: be off at a cell for its mark to be found
REACH_MM = 4.0
#: a cell's mark counts if this much of the patch round it is symmetric about one
#: point (0-1): a piece, a hand or a shadow across it breaks the symmetry
LEAST_SYMMETRY = 0.5
#: ... and holds some contrast: mean square grey level (0-255) over the patch
LEAST_ENERGY = 4.0
#: fewest cells whose marks must be found to refit the pose
LEAST_CELLS = 6
#: a cell whose mark lies further than this (mm) from where the refitted pose puts it
#: is left out of the fit (and further than this many times the median)
OUTLIER_MM = 0.6
OUTLIER_MEDIANS = 3.0
#: a refit that moves a cell further than this (mm) is not believed: a board's marks
#: taken for its neighbours' (cells lie 25 mm apart or more). A cell further off than
#: REACH_MM is found in the second round, once the nearer cells have refitted the pose
MOST_MM = 2 * REACH_MM
#: points across a patch that are projected through the lens (the rest interpolated)
COARSE = 5
#: rounds of finding the marks round the last pose and refitting
ROUNDS = 2
#: marks whose patches are compared at once: each takes about 100 kB while it is
#: compared, so a board of a hundred empty cells at once would hold the service's
#: memory 15 MB higher for a moment every time the board is located
MARKS_AT_ONCE = 16


def trued_up(frame: np.ndarray, pose: Pose, lens: Lens, marks: np.ndarray, radius: float) -> Pose:
    """``pose`` refitted to the printed marks of the cells at ``marks`` (mm, the cells
    believed empty) in ``frame``; ``radius`` is a mark's (mm). The pose as it was when
    too few marks are found or they disagree with it by more than MOST_MM."""
    if len(marks) < LEAST_CELLS:
        return pose
    grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    board = np.c_[marks, np.zeros(len(marks))]
    rvec, tvec = pose.rvec.copy(), pose.tvec.copy()
    used = 0
    for _ in range(ROUNDS):
        off, strength = symmetry_centres(grey, lens, rvec, tvec, marks, radius)
        found = (strength >= LEAST_SYMMETRY) & (np.linalg.norm(off, axis=1) < REACH_MM)
        if found.sum() < LEAST_CELLS:
            return pose
        seen = lens.project(np.c_[marks + off, np.zeros(len(marks))], rvec, tvec)
        fitted = _fit(lens, board[found], seen[found], rvec, tvec)
        if fitted is None:
            return pose
        rvec, tvec, used = *fitted, int(found.sum())
    if _moved_mm(lens, board, pose, rvec, tvec) > MOST_MM:
        return pose
    return replace(pose, rvec=rvec, tvec=tvec, cells=used)


def symmetry_centres(grey, lens: Lens, rvec, tvec, marks: np.ndarray, radius: float):
    """Per mark, where its centre of symmetry lies (mm from where the pose puts it,
    board axes) and how strongly the patch round it is symmetric (0-1). Each patch is
    the board round the mark seen from straight above (the pose undoes perspective and
    lens), compared with itself turned half round: a pattern symmetric about a point
    ``d`` off the patch's centre matches its turned copy shifted by ``2 d``. The
    marks are taken ``MARKS_AT_ONCE`` at a time; each mark's answer is its own."""
    found = [
        _symmetry(grey, lens, rvec, tvec, marks[at : at + MARKS_AT_ONCE], radius)
        for at in range(0, len(marks), MARKS_AT_ONCE)
    ]
    if not found:
        return np.zeros((0, 2)), np.zeros(0)
    return np.concatenate([off for off, _ in found]), np.concatenate([s for _, s in found])


def _symmetry(grey, lens: Lens, rvec, tvec, marks: np.ndarray, radius: float):
    """``symmetry_centres`` for a few marks at once."""
    size = cv2.getOptimalDFTSize(int(np.ceil(2 * (radius + REACH_MM) * PX_PER_MM)))
    half = (size - 1) / 2 / PX_PER_MM
    # the lens bends a patch only gently: project a coarse grid, interpolate between
    steps = np.linspace(-half, half, COARSE)
    across, up = np.meshgrid(steps, -steps)  # the patch's rows run down the board's y
    points = marks[:, None, None, :] + np.stack([across, up], -1)[None]
    px = lens.project(np.c_[points.reshape(-1, 2), np.zeros(points[..., 0].size)], rvec, tvec)
    spread = _spread(COARSE, size)
    coarse = px.reshape(len(marks), COARSE, COARSE, 2).transpose(0, 3, 1, 2)
    maps = (spread @ coarse @ spread.T).transpose(0, 2, 3, 1)
    maps = np.ascontiguousarray(maps.reshape(len(marks) * size, size, 2), np.float32)
    patches = cv2.remap(grey, maps, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    patches = patches.reshape(len(marks), size, size).astype(np.float64)
    w, h = lens.size
    inside = ((px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)).reshape(
        len(marks), -1
    )
    window = cv2.createHanningWindow((size, size), cv2.CV_64F)
    patches = (patches - patches.mean(axis=(1, 2), keepdims=True)) * window
    turned = patches[:, ::-1, ::-1]
    energy = (patches**2).sum(axis=(1, 2))
    # the patches' correlation with their turned copies, every shift at once
    match = np.fft.irfft2(np.fft.rfft2(turned) * np.conj(np.fft.rfft2(patches)), s=(size, size))
    flat = match.reshape(len(marks), -1).argmax(axis=1)
    row, col = np.unravel_index(flat, (size, size))
    n = np.arange(len(marks))
    peak = match[n, row, col]
    shift = np.stack([_vertex(match, n, row, col, 1), _vertex(match, n, row, col, 0)], 1)
    shift = (shift + size / 2) % size - size / 2  # shifts wrap round the patch
    off = np.stack([-shift[:, 0], shift[:, 1]], 1) / 2 / PX_PER_MM
    # how much of the patch is symmetric about that point (1: all of it); a patch
    # of plain board, half out of the frame, has nothing to tell
    strength = np.where(
        inside.all(axis=1) & (energy > LEAST_ENERGY * size * size),
        peak / np.maximum(energy, 1e-9),
        0.0,
    )
    return off, strength


def _vertex(match: np.ndarray, n, row, col, axis: int) -> np.ndarray:
    """The peaks' positions along ``axis`` (0: rows, 1: columns) to a fraction of a
    pixel: the vertex of the parabola through each peak and its two neighbours."""
    size = match.shape[1]
    step = np.eye(2, dtype=int)[axis]
    before = match[n, (row - step[0]) % size, (col - step[1]) % size]
    after = match[n, (row + step[0]) % size, (col + step[1]) % size]
    centre = match[n, row, col]
    bend = before - 2 * centre + after
    at = np.where(bend < 0, 0.5 * (before - after) / np.where(bend < 0, bend, -1.0), 0.0)
    return (col if axis else row) + np.clip(at, -0.5, 0.5)


def _spread(coarse: int, size: int) -> np.ndarray:
    """(size, coarse) weights that interpolate ``coarse`` evenly spaced values to
    ``size`` evenly spaced ones over the same span, linearly."""
    at = np.linspace(0, coarse - 1, size)
    below = np.minimum(at.astype(int), coarse - 2)
    weights = np.zeros((size, coarse))
    weights[np.arange(size), below] = below + 1 - at
    weights[np.arange(size), below + 1] = at - below
    return weights


def _fit(lens: Lens, board: np.ndarray, seen: np.ndarray, rvec, tvec):
    """The pose from ``board`` points (mm) seen at ``seen`` (px), starting from
    ``rvec``, ``tvec``; the points that disagree with it most are left out and it is
    fitted again. None if too few agree."""
    keep = np.ones(len(board), bool)
    for _ in range(2):
        if keep.sum() < LEAST_CELLS:
            return None
        obj = np.ascontiguousarray(board[keep])
        img = np.ascontiguousarray(seen[keep]).reshape(-1, 1, 2)
        rvec, tvec = cv2.solvePnPRefineLM(
            obj, img, lens.matrix, lens.dist, rvec.copy(), tvec.copy()
        )
        miss = np.linalg.norm(lens.project(board, rvec, tvec) - seen, axis=1) / _px_per_mm(
            lens, board, rvec, tvec
        )
        keep = miss <= max(OUTLIER_MM, OUTLIER_MEDIANS * float(np.median(miss[keep])))
    return rvec, tvec


def _px_per_mm(lens: Lens, board: np.ndarray, rvec, tvec) -> np.ndarray:
    """Frame pixels per mm of the board near each point (as far as the camera is)."""
    camera = cv2.Rodrigues(rvec)[0] @ board.T + tvec
    return lens.matrix[0, 0] / np.linalg.norm(camera, axis=0)


def _moved_mm(lens: Lens, board: np.ndarray, pose: Pose, rvec, tvec) -> float:
    """How far (mm, most) the refit moved the cells in the frame."""
    a = lens.project(board, pose.rvec, pose.tvec)
    b = lens.project(board, rvec, tvec)
    return float(np.max(np.linalg.norm(a - b, axis=1) / _px_per_mm(lens, board, rvec, tvec)))
