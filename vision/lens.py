"""The camera's lens: intrinsics and distortion, from a chessboard calibration or a
guess, saved as JSON for the service; and projecting board points into the frame.

Never opens a device (frame sources live in ``hardware.frame_source``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

#: sub-pixel corner refinement: window and stop criteria for cornerSubPix
SUBPIX_WINDOW = (11, 11)
SUBPIX_STOP = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 1e-3)


#: a lens fitted from marker corners needs this many points: three markers' corners
#: (a board with one of its four out of the picture). With the guess for a lens, three
#: markers near one another still fit a pose within its limit at a wrong distance,
#: which puts the cells far from them many pixels off
FIT_POINTS = 12
#: plausible focal lengths for a fitted lens, in frame widths (about 150 to 15 degrees
#: across), and the strongest first distortion term believed
FOCAL_RANGE = (0.15, 4.0)
K1_MOST = 0.6
#: from this many points on, ``project`` works in numpy: OpenCV's projectPoints also
#: works out 15 derivatives a point that nothing here uses, four times the work for a
#: sampling map; below it numpy's per-call overhead costs more. Both give the same bits
NUMPY_FROM = 512


class CalibrationError(ValueError):
    """Calibration cannot be done or loaded; the message says why."""


@dataclass(frozen=True)
class Lens:
    """A lens: ``matrix`` (3x3), ``dist`` (OpenCV distortion coefficients) and the
    image ``size`` (width, height) they belong to."""

    matrix: np.ndarray
    dist: np.ndarray
    size: tuple[int, int]
    rms_px: float | None = None
    #: a first guess, not measured: the markers may tell better (``fitted``)
    guessed: bool = False

    @classmethod
    def guess(cls, size: tuple[int, int]) -> Lens:
        """An uncalibrated camera: a 60-degree lens, centred, no distortion."""
        w, h = size
        f = w / (2 * np.tan(np.radians(30)))
        matrix = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]], dtype=np.float64)
        return cls(matrix, np.zeros(5), size, guessed=True)

    def fitted(self, views: list[tuple[np.ndarray, np.ndarray]]) -> Lens | None:
        """The lens that best explains ``views``: per frame, flat board points (mm,
        z = 0) and where they are in it (px), such as the corners of a board's markers.
        Only the focal length and the first distortion term are fitted (the centre
        stays, pixels square): enough for a phone-style or wide camera to find a board
        without a chessboard. None if the views cannot tell (too few points) or the
        fit is implausible."""
        objects = [np.ascontiguousarray(b, np.float32).reshape(-1, 3) for b, _ in views]
        images = [np.ascontiguousarray(i, np.float32).reshape(-1, 1, 2) for _, i in views]
        if sum(len(o) for o in objects) < FIT_POINTS:
            return None
        flags = (
            cv2.CALIB_USE_INTRINSIC_GUESS
            | cv2.CALIB_FIX_PRINCIPAL_POINT
            | cv2.CALIB_FIX_ASPECT_RATIO
            | cv2.CALIB_ZERO_TANGENT_DIST
            | cv2.CALIB_FIX_K2
            | cv2.CALIB_FIX_K3
        )
        try:
            rms, matrix, dist, _, _ = cv2.calibrateCamera(
                objects, images, self.size, self.matrix.copy(), np.zeros(5), flags=flags
            )
        except cv2.error:
            return None
        f, w = matrix[0, 0], self.size[0]
        if not (FOCAL_RANGE[0] * w <= f <= FOCAL_RANGE[1] * w) or abs(dist.ravel()[0]) > K1_MOST:
            return None
        return Lens(matrix, dist.ravel(), self.size, float(rms))

    def scaled_to(self, size: tuple[int, int]) -> Lens:
        """The same lens at another resolution of the same sensor area."""
        if size == self.size:
            return self
        sx, sy = size[0] / self.size[0], size[1] / self.size[1]
        matrix = self.matrix.copy()
        matrix[0] *= sx
        matrix[1] *= sy
        return Lens(matrix, self.dist, size, self.rms_px, self.guessed)

    def project(self, points: np.ndarray, rvec: np.ndarray, tvec: np.ndarray) -> np.ndarray:
        """Board points (N, 3) in mm to pixels (N, 2)."""
        pts = np.ascontiguousarray(points, dtype=np.float64).reshape(-1, 3)
        k = np.zeros(14)
        k[: self.dist.size] = self.dist.ravel()
        if len(pts) < NUMPY_FROM or k[12:].any():  # few points, or a tilted sensor
            out, _ = cv2.projectPoints(pts.reshape(-1, 1, 3), rvec, tvec, self.matrix, self.dist)
            return out.reshape(-1, 2)
        # OpenCV's model, term by term in its order
        rotation = cv2.Rodrigues(np.asarray(rvec, np.float64).reshape(3))[0]
        t = np.asarray(tvec, np.float64).reshape(3)
        x, y, z = (
            pts[:, 0] * r[0] + pts[:, 1] * r[1] + pts[:, 2] * r[2] + t[i]
            for i, r in enumerate(rotation)
        )
        z = np.divide(1.0, z, out=np.ones_like(z), where=z != 0)
        x, y = x * z, y * z
        r2 = x * x + y * y
        r4 = r2 * r2
        r6 = r4 * r2
        cdist = 1 + k[0] * r2 + k[1] * r4 + k[4] * r6
        icdist = 1.0 / (1 + k[5] * r2 + k[6] * r4 + k[7] * r6)
        a1, a2, a3 = 2 * x * y, r2 + 2 * x * x, r2 + 2 * y * y
        xd = x * cdist * icdist + k[2] * a1 + k[3] * a2 + k[8] * r2 + k[9] * r4
        yd = y * cdist * icdist + k[2] * a3 + k[3] * a1 + k[10] * r2 + k[11] * r4
        m = self.matrix
        return np.stack([xd * m[0, 0] + m[0, 2], yd * m[1, 1] + m[1, 2]], 1)

    def to_json(self) -> dict:
        return {
            "image_size": list(self.size),
            "rms_px": self.rms_px,
            "camera_matrix": self.matrix.tolist(),
            "dist_coeffs": self.dist.ravel().tolist(),
        }

    @classmethod
    def from_json(cls, data: dict) -> Lens:
        try:
            matrix = np.array(data["camera_matrix"], dtype=np.float64)
            dist = np.array(data["dist_coeffs"], dtype=np.float64)
            size = tuple(int(v) for v in data["image_size"])
        except (KeyError, TypeError, ValueError) as exc:
            raise CalibrationError(f"not a camera calibration: {exc!r}") from None
        if matrix.shape != (3, 3) or dist.ndim != 1 or len(size) != 2:
            raise CalibrationError("a calibration has a 3x3 camera_matrix and a dist_coeffs list")
        return cls(matrix, dist, size, data.get("rms_px"))

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> Lens:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CalibrationError(f"{path}: cannot read the calibration: {exc}") from None
        return cls.from_json(data)


def parse_pattern(text: str) -> tuple[int, int]:
    """``9x6`` (inner corners across x down) as a tuple."""
    try:
        across, down = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise CalibrationError(f"pattern {text!r}: write inner corners as 9x6") from None
    if across < 2 or down < 2:
        raise CalibrationError(f"pattern {text!r}: needs at least 2x2 inner corners")
    return across, down


def calibrate(images: list[Path], pattern: tuple[int, int], square_mm: float = 1.0) -> Lens:
    """Calibrate from photos of a chessboard with ``pattern`` inner corners.

    Photos where the pattern is not found are skipped; at least three must show it.
    """
    grid = np.zeros((pattern[0] * pattern[1], 3), np.float32)
    grid[:, :2] = np.mgrid[0 : pattern[0], 0 : pattern[1]].T.reshape(-1, 2) * square_mm
    objects, corners, size = [], [], None
    for path in images:
        grey = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
        if grey is None:
            raise CalibrationError(f"{path}: not an image")
        if size is not None and grey.shape[::-1] != size:
            raise CalibrationError(f"{path}: every photo must have the same size as the first")
        size = grey.shape[::-1]
        found, points = cv2.findChessboardCorners(grey, pattern)
        if not found:
            continue
        points = cv2.cornerSubPix(grey, points, SUBPIX_WINDOW, (-1, -1), SUBPIX_STOP)
        objects.append(grid)
        corners.append(points)
    if len(corners) < 3:
        raise CalibrationError(
            f"the {pattern[0]}x{pattern[1]} pattern was found in {len(corners)} of "
            f"{len(images)} photos; calibration needs at least 3"
        )
    rms, matrix, dist, _, _ = cv2.calibrateCamera(objects, corners, size, None, None)
    return Lens(matrix, dist.ravel(), size, float(rms))


def default_path() -> Path:
    """Where ``boardref vision calibrate-camera`` saves and the service looks."""
    import os

    state = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(state) / "boardref" / "camera.json"
