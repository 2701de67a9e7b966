"""Markers far from the camera: a few pixels a cell, blurred and noisy, still found."""

from __future__ import annotations

import cv2
import numpy as np

from engines import load_game
from vision import looks
from vision.lens import Lens
from vision.locate import Locator

#: frame size of the drawn markers, and where each marker's top-left corner lies
SIZE = (320, 240)
PLACES = ((60, 60), (200, 60), (200, 170), (60, 170))


def _far_markers(seed: int, width: float) -> np.ndarray:
    """The board's four markers ``width`` px wide (quiet zone besides) and tilted a
    little, blurred as a webcam's lens does, with sensor noise and JPEG at 60."""
    rng = np.random.default_rng(seed)
    frame = np.full(SIZE[::-1], 200, np.uint8)
    for marker, (x, y) in zip(looks.markers(load_game("hakenschlagen").board), PLACES):
        drawn = cv2.aruco.generateImageMarker(looks.dictionary(), marker.id, 60)
        drawn = cv2.copyMakeBorder(drawn, 10, 10, 10, 10, cv2.BORDER_CONSTANT, value=255)
        side = width * 80 / 60
        seen = np.float32([[x, y], [x + side, y + 3], [x + side, y + 0.8 * side + 3]])
        warp = cv2.getAffineTransform(np.float32([[0, 0], [80, 0], [80, 80]]), seen)
        shown = cv2.warpAffine(drawn, warp, SIZE, flags=cv2.INTER_AREA)
        covered = cv2.warpAffine(np.full_like(drawn, 255), warp, SIZE, flags=cv2.INTER_NEAREST)
        frame[covered > 0] = shown[covered > 0]
    frame = cv2.GaussianBlur(frame, (0, 0), 1.2)
    frame = np.clip(frame + rng.normal(0, 6, frame.shape), 0, 255).astype(np.uint8)
    jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 60])[1]
    return cv2.cvtColor(cv2.imdecode(jpeg, cv2.IMREAD_GRAYSCALE), cv2.COLOR_GRAY2BGR)


def test_markers_24_px_wide_blurred_and_noisy_are_all_found():
    # read from 4 px a cell with the perspective taken out (OpenCV's default), 7 of
    # these 40 markers were missed; a board's far markers look like this from a
    # camera a metre and more above a long board, and the two near ones left put
    # its far cells a cell or two off
    board = load_game("hakenschlagen").board
    locator = Locator(board, Lens.guess(SIZE))
    for seed in range(10):
        board_points, _ = locator.markers_seen(_far_markers(seed, 24.0))
        assert len(board_points) == 4, seed
