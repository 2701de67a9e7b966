"""The world's cameras: where one stands and what its lens, sensor and processing do
to the light the path tracer traced through a pinhole. Lens distortion (Brown-Conrady,
as OpenCV writes its coefficients), vignetting, a partial white balance, auto
exposure, shot and read noise with a rolling shutter's row banding, sharpening, and
JPEG at a phone's or a webcam's quality.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from bench.world.data import world

SIZE = (1280, 720)


@dataclass(frozen=True)
class Camera:
    position: tuple[float, float, float]
    target: tuple[float, float, float]
    #: the image's up, in board coordinates
    up: tuple[float, float, float]
    hfov: float
    size: tuple[int, int]
    #: k1, k2, p1, p2, k3
    dist: tuple[float, float, float, float, float]
    quality: str
    pitch: float
    vignetting: float
    exposure: float
    white_balance: float
    full_well: float
    read_noise: float
    banding: float
    sharpen: float
    jpeg: int

    @property
    def focal(self) -> float:
        return self.size[0] / (2 * math.tan(math.radians(self.hfov) / 2))

    @property
    def matrix(self) -> np.ndarray:
        """The intrinsic matrix, OpenCV's convention (pixel centres on integers)."""
        f = self.focal
        w, h = self.size
        return np.array([[f, 0, w / 2 - 0.5], [0, f, h / 2 - 0.5], [0, 0, 1.0]])

    @property
    def rotation(self) -> np.ndarray:
        """Board to camera (x right, y down, z forward)."""
        z = np.subtract(self.target, self.position)
        z = z / np.linalg.norm(z)
        y = -np.asarray(self.up, float)
        y = y - (y @ z) * z
        y = y / np.linalg.norm(y)
        return np.array([np.cross(y, z), y, z])

    @property
    def rvec(self) -> np.ndarray:
        return cv2.Rodrigues(self.rotation)[0]

    @property
    def tvec(self) -> np.ndarray:
        return (-self.rotation @ np.asarray(self.position, float)).reshape(3, 1)

    def project(self, points) -> np.ndarray:
        """Board points (mm, N x 3) to pixels, through the distorting lens."""
        cam = (np.asarray(points, float) - self.position) @ self.rotation.T
        xy = cam[:, :2] / cam[:, 2:3]
        d = distort(xy, self.dist)
        k = self.matrix
        return d * k[0, 0] + k[:2, 2]


def distort(xy: np.ndarray, dist) -> np.ndarray:
    """Brown-Conrady: ideal normalised image points to where the lens puts them."""
    k1, k2, p1, p2, k3 = dist
    x, y = xy[..., 0], xy[..., 1]
    r2 = x * x + y * y
    radial = 1 + k1 * r2 + k2 * r2 * r2 + k3 * r2**3
    xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    return np.stack([xd, yd], -1)


def undistort(xy: np.ndarray, dist, rounds: int = 30) -> np.ndarray:
    """The ideal points the lens puts at ``xy`` (fixed-point iteration)."""
    ideal = xy.copy()
    for _ in range(rounds):
        ideal = ideal + (xy - distort(ideal, dist))
    return ideal


def pinhole_size(camera: Camera) -> tuple[int, int]:
    """The pinhole picture to trace: large enough that the lens's warp finds light for
    every pixel of the frame."""
    w, h = camera.size
    k = camera.matrix
    border = np.array(
        [[u, v] for u in np.linspace(0, w - 1, 9) for v in (0, h - 1)]
        + [[u, v] for u in (0, w - 1) for v in np.linspace(0, h - 1, 9)]
    )
    ideal = undistort((border - k[:2, 2]) / k[0, 0], camera.dist) * k[0, 0]
    half = np.abs(ideal).max(0) + 4
    return int(2 * math.ceil(max(half[0], w / 2))), int(2 * math.ceil(max(half[1], h / 2)))


def _folds(dist, corner: float) -> bool:
    """Whether the radial part of ``dist`` turns back before it reaches ``corner`` (the
    frame's corner, normalised, with 1 % to spare): such a lens model puts no ideal
    point at the corner, so no real lens has it."""
    k1, k2, _, _, k3 = dist
    r = np.linspace(0, 3, 3001)
    reached = r * (1 + k1 * r**2 + k2 * r**4 + k3 * r**6)
    turns = np.flatnonzero(np.diff(reached) <= 0)
    return bool(len(turns)) and reached[turns[0]] < corner * 1.01


def _unfolded(dist, corner: float) -> tuple:
    """``dist`` with k2 raised as little as makes it a real lens over the frame (a
    strong barrel k1 with a negative k2 folds back inside a wide frame's corners)."""
    k1, k2, p1, p2, k3 = dist
    while _folds((k1, k2, p1, p2, k3), corner):
        k2 += 0.005
    return (k1, k2, p1, p2, k3)


def fit_camera(extent, rng: np.random.Generator, quality: str) -> Camera:
    """A camera over the board at a seeded pose and lens, at the distance that makes
    the board fill the wished share of the frame."""
    spec = world()["camera"]
    q = world()["qualities"][quality]
    u = lambda bounds: float(rng.uniform(*bounds))  # noqa: E731
    left, bottom, right, top = extent
    target = np.array([(left + right) / 2, (bottom + top) / 2, 0.0])
    pitch, azimuth = u(spec["pitch"]), u((0, 360))
    roll = math.radians(float(rng.normal(0, spec["roll_sd"])))
    t = spec["tangential"]
    k1 = u(spec["k1"])
    dist = (k1, u(spec["k2"]) * abs(k1) / 0.2, u((-t, t)), u((-t, t)), 0.0)
    hfov, fill = u(spec["hfov"]), u(spec["fill"])
    dist = _unfolded(dist, math.hypot(*SIZE) / 2 / (SIZE[0] / 2 / math.tan(math.radians(hfov) / 2)))
    a, p = math.radians(azimuth), math.radians(pitch)
    away = np.array([math.cos(a), math.sin(a), 0.0])
    look = np.array([-math.cos(p) * away[0], -math.cos(p) * away[1], -math.sin(p)])
    right_dir = np.cross(look, -away)
    up = (-away) * math.cos(roll) + right_dir / np.linalg.norm(right_dir) * math.sin(roll)
    corners = np.array([[left, bottom, 0], [right, bottom, 0], [right, top, 0], [left, top, 0]])
    distance = 3 * max(right - left, top - bottom)
    sensor = dict(
        vignetting=u(spec["vignetting"]),
        exposure=u(spec["exposure"]),
        white_balance=u(spec["white_balance"]),
        full_well=u(q["full_well"]),
        read_noise=u(q["read_noise"]),
        banding=u(q["banding"]),
        sharpen=u(q["sharpen"]),
        jpeg=int(u(q["jpeg"])),
    )

    def at(d: float) -> Camera:
        return Camera(
            position=tuple(float(v) for v in target - look * d),
            target=tuple(float(v) for v in target),
            up=tuple(float(v) for v in up),
            hfov=hfov,
            size=SIZE,
            dist=dist,
            quality=quality,
            pitch=pitch,
            **sensor,
        )

    w, h = SIZE
    for _ in range(5):
        px = at(distance).project(corners)
        span = max(np.ptp(px[:, 0]) / w, np.ptp(px[:, 1]) / h)
        off = max(
            np.abs(px[:, 0] - w / 2).max() / (w / 2), np.abs(px[:, 1] - h / 2).max() / (h / 2)
        )
        distance *= max(span / fill, off / 0.97)
    return at(distance)


@lru_cache(maxsize=4)
def _warp(camera: Camera) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where each pixel of the frame takes its light from in the pinhole picture, and
    its squared distance from the centre (1 in the corners); the same for every
    frame of one camera."""
    w, h = camera.size
    k = camera.matrix
    rw, rh = pinhole_size(camera)
    u, v = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    seen = (np.stack([u, v], -1) - k[:2, 2]) / k[0, 0]
    ideal = undistort(seen, camera.dist, rounds=12) * k[0, 0] + [rw / 2 - 0.5, rh / 2 - 0.5]
    r2 = (seen**2).sum(-1)
    return (
        ideal[..., 0].astype(np.float32),
        ideal[..., 1].astype(np.float32),
        (r2 / r2.max()).astype(np.float32),
    )


def develop(light: np.ndarray, camera: Camera, rng: np.random.Generator) -> bytes:
    """The traced pinhole light (linear RGB, ``pinhole_size``) as the camera's JPEG
    file at ``camera.size``."""
    h = camera.size[1]
    to_x, to_y, r2 = _warp(camera)
    img = cv2.remap(light.astype(np.float32), to_x, to_y, cv2.INTER_LINEAR)
    img *= (1 - camera.vignetting * r2)[..., None]
    # a channel without light (a black picture) is left as it is, not divided by zero
    grey = np.maximum(img.reshape(-1, 3).mean(0), 1e-6)
    img *= ((grey.mean() / grey) ** camera.white_balance)[None, None]
    luminance = img @ np.array([0.2126, 0.7152, 0.0722])
    img *= 0.85 * camera.exposure / max(float(np.percentile(luminance, 97)), 1e-6)
    img = np.clip(img, 0, 1)
    img = rng.poisson(img * camera.full_well) / camera.full_well
    srgb = np.where(img <= 0.0031308, 12.92 * img, 1.055 * np.power(img, 1 / 2.4) - 0.055) * 255
    rows = rng.normal(0, camera.banding, (h, 1, 1))
    srgb = srgb + rng.normal(0, camera.read_noise, srgb.shape) + rows
    if camera.sharpen > 0:
        blur = cv2.GaussianBlur(srgb, (0, 0), 1.2)
        srgb = srgb + camera.sharpen * (srgb - blur)
    bgr = np.clip(srgb[..., ::-1], 0, 255).astype(np.uint8)
    return cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, camera.jpeg])[1].tobytes()
