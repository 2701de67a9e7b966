"""Where the board lies in the frame: ArUco markers at the positions the board's data
gives (``vision.looks.markers``), or the board's four corner cells clicked on the referee page,
turned into the camera's pose over the board plane.

Finds the pose only; deciding when to look again is the reader's job.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from engines.geometry import Board
from vision import looks
from vision.lens import Lens

#: fewest markers that fix the board (each gives four corners)
MIN_MARKERS = 2
#: a pose whose markers reproject worse than this (px, RMS) is refused
MAX_REPROJECTION_PX = 3.0
#: without a calibration, the lens is fitted to the markers of this many frames
LENS_VIEWS = 5
#: each of a marker's cells is read from this many pixels square of its picture with
#: the perspective taken out (OpenCV's default 4): a far marker 20-25 px wide, blurred
#: and noisy, had its cells misread at 4 and was not found; a pose from the two markers
#: left at one end of a long board put its far cells one or two cells off
PIXELS_PER_MARKER_CELL = 8


@dataclass(frozen=True)
class Pose:
    """The board in the frame: rotation and translation of the board plane (mm) into
    the camera, and how well the markers fitted."""

    rvec: np.ndarray
    tvec: np.ndarray
    error_px: float
    markers: int
    #: cells whose printed marks trued the pose up (``vision.boards.marks``); 0 if
    #: it rests on the markers (or clicked cells) alone
    cells: int = 0
    #: how the board was found: "markers", "one marker" (the board's outline turned
    #: as the marker shows, and its marks), "pattern" (the outline turned as the
    #: start position shows, and the marks) or "clicked" (corner cells)
    way: str = "markers"
    #: the share of the empty cells' marks found where the pose puts them; None if
    #: not checked (a pose from two markers or more)
    matched: float | None = None

    def moved_from(self, other: Pose, lens: Lens, board_points: np.ndarray) -> float:
        """How far (px, largest) the given board points moved between two poses."""
        a = lens.project(board_points, self.rvec, self.tvec)
        b = lens.project(board_points, other.rvec, other.tvec)
        return float(np.max(np.linalg.norm(a - b, axis=1)))


class Locator:
    """Finds one board's markers in frames seen through one camera."""

    def __init__(self, board: Board, lens: Lens):
        self.board, self.lens = board, lens
        params = cv2.aruco.DetectorParameters()
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        params.perspectiveRemovePixelPerCell = PIXELS_PER_MARKER_CELL
        self.detector = cv2.aruco.ArucoDetector(looks.dictionary(), params)
        self.corners = {m.id: _corners(m.xy, m.size) for m in looks.markers(board)}
        #: why the last frame gave no pose, in words for the referee page; None if it did
        self.refusal: str | None = None
        #: the markers found in the last frame looked at: their corners on the board
        #: and in the frame (``markers_seen``)
        self.seen: tuple[list[np.ndarray], list[np.ndarray]] = ([], [])
        #: without a calibration: the markers' corners (board, frame) of the frames
        #: the lens is fitted to
        self._views: list[tuple[np.ndarray, np.ndarray]] = []

    def locate(self, frame: np.ndarray) -> Pose | None:
        """The board's pose in ``frame``, or None (``refusal`` says why)."""
        board_pts, image_pts = self.seen = self.markers_seen(frame)
        if len(board_pts) < MIN_MARKERS:
            self.refusal = (
                f"{len(board_pts)} of the board's {len(self.corners)} markers seen; at least "
                f"{MIN_MARKERS} are needed: check that nothing covers them, that they are "
                "in the picture and lit without glare"
            )
            return None
        board_pts, image_pts = np.concatenate(board_pts), np.concatenate(image_pts)
        if self.lens.guessed:
            self._fit_lens(board_pts, image_pts)
        return self.from_points(board_pts, image_pts, len(board_pts) // 4)

    def _fit_lens(self, board_pts: np.ndarray, image_pts: np.ndarray) -> None:
        """No calibration: fit the lens to the markers' corners seen so far (the first
        LENS_VIEWS frames the board is found in) and keep the fit once it explains
        them as well as a pose must (MAX_REPROJECTION_PX): a lens the focal length and
        the first distortion term do not wholly describe (its centre off the frame's,
        a second distortion term) fits a little worse than a calibrated one."""
        self._views = [*self._views[-(LENS_VIEWS - 1) :], (board_pts, image_pts)]
        fitted = self.lens.fitted(self._views)
        if fitted is not None and fitted.rms_px <= MAX_REPROJECTION_PX:
            self.lens = fitted

    def markers_seen(self, frame: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """The board's markers found in ``frame``: per marker its corners on the board
        (mm, z = 0) and in the frame (px)."""
        grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        found, ids, _ = self.detector.detectMarkers(grey)
        board_pts, image_pts = [], []
        for marker, corners in zip(ids.ravel() if ids is not None else (), found):
            if int(marker) in self.corners:
                board_pts.append(self.corners[int(marker)])
                image_pts.append(corners.reshape(4, 2))
        return board_pts, image_pts

    def from_points(self, board_pts: np.ndarray, image_pts: np.ndarray, markers: int = 0):
        """The pose from board points (mm, z = 0) and where they are in the frame."""
        obj = np.ascontiguousarray(board_pts, dtype=np.float64)
        img = np.ascontiguousarray(image_pts, dtype=np.float64).reshape(-1, 1, 2)
        ok, rvec, tvec = cv2.solvePnP(
            obj, img, self.lens.matrix, self.lens.dist, flags=cv2.SOLVEPNP_IPPE
        )
        if not ok:
            self.refusal = "the markers seen give no pose: show more of them"
            return None
        rvec, tvec = cv2.solvePnPRefineLM(obj, img, self.lens.matrix, self.lens.dist, rvec, tvec)
        back = self.lens.project(obj, rvec, tvec)
        error = float(np.sqrt(np.mean(np.sum((back - img.reshape(-1, 2)) ** 2, axis=1))))
        # the camera must look at the board from above: points given out of order
        # can fit a mirrored board seen from below
        if not camera_above(rvec, tvec):
            self.refusal = "the points given put the camera under the board: give them in order"
            return None
        if error > MAX_REPROJECTION_PX and not markers:
            self.refusal = (
                f"the clicked cells fit the board only to {error:.1f} px: click the centres "
                "of the four corner cells, in order"
            )
            return None
        if error > MAX_REPROJECTION_PX:
            self.refusal = (
                f"{markers} markers seen, but they fit the board only to {error:.1f} px "
                f"(at most {MAX_REPROJECTION_PX:.0f}): calibrate the lens "
                "(boardref vision calibrate-camera), or check that the markers are printed "
                "at true size and glued flat where the marker sheet shows"
            )
            return None
        self.refusal = None
        return Pose(rvec, tvec, error, markers)

    def from_corner_cells(self, image_points) -> Pose | None:
        """The manual fallback: where the centres of the board's four corner cells
        (``looks.corner_cells``: left-top, right-top, right-bottom, left-bottom) are
        in the frame, clicked on the referee page."""
        cells = looks.corner_cells(self.board)
        board_pts = np.array([[*c.xy, 0.0] for c in cells])
        pose = self.from_points(board_pts, np.asarray(image_points, float).reshape(4, 2))
        return pose and replace(pose, way="clicked")


def camera_above(rvec, tvec) -> bool:
    """The camera is in front of the board's plane and above it."""
    return tvec[2, 0] > 0 and -(cv2.Rodrigues(rvec)[0].T @ tvec)[2, 0] > 0


def _corners(xy, size) -> np.ndarray:
    """A marker's corners in the order ArUco reports them (its image's top-left first,
    clockwise), on a board whose +y is the marker's top."""
    x, y, h = xy[0], xy[1], size / 2
    return np.array([[x - h, y + h, 0], [x + h, y + h, 0], [x + h, y - h, 0], [x - h, y - h, 0]])
