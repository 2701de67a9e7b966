"""Is the view still, and is nothing over the board? Each frame is compared, at a
quarter of its size, with the previous one (motion) and with the view of the position
committed last (the pieces as they stand, their shadows, the light of the moment)
outside the places pieces and their shadows can cover (a hand or an arm must cross
those to reach any cell). Only frames still for ``STILL_FRAMES`` in a row may be
read, and of those only one that shows a change since the last frame read
(``unchanged_since_read``): a still board is read once, not on every frame.

Judges frames only; it never reads a cell.
"""

from __future__ import annotations

import cv2
import numpy as np

#: frames in a row without motion or obstruction before a frame may be read
STILL_FRAMES = 3
#: a pixel (quarter size, 0-255) changed by more than this moved
MOTION_LEVEL = 22
#: the background differs where a pixel, both views blurred over BACKGROUND_BLUR
#: pixels (quarter size), changed by more than this since it was learned: blurred,
#: the noise stays far below it, while an arm in a skin tone much like the table's
#: brown still differs by more than it over its whole width
BACKGROUND_LEVEL = 8
BACKGROUND_BLUR = 5
#: changed pixels (quarter size) that make a frame moving or the board obstructed
MOTION_PIXELS = 12
BLOCKED_PIXELS = 16
#: a pixel (quarter size) changed by more than this since the last frame read changed
#: the board: below the motion level, so a change too slow for the motion check (light
#: drifting, a piece nudged a little at a time) is still read
CHANGE_LEVEL = 11
#: still but obstructed this many frames in a row: the light or the set-up changed,
#: so take this view as the new background (a hand is never this still)
ACCEPT_AFTER = 40
SCALE = 4


class Stillness:
    """Motion and obstruction over one board in one pose."""

    def __init__(
        self, size: tuple[int, int], board_outline: np.ndarray, piece_zones, surround: np.ndarray
    ):
        """``surround`` is the board with a band of table around it: an arm reaching
        over the board crosses that band even where tall pieces hide the board's rim."""
        w, h = size
        roi = np.zeros((h // SCALE, w // SCALE), np.uint8)
        cv2.fillConvexPoly(roi, np.round(board_outline / SCALE).astype(np.int32), 255)
        around = np.zeros_like(roi)
        cv2.fillConvexPoly(around, np.round(surround / SCALE).astype(np.int32), 255)
        zones = np.zeros_like(roi)
        for polygon in piece_zones:
            cv2.fillConvexPoly(zones, np.round(polygon / SCALE).astype(np.int32), 255)
        grown = cv2.dilate(zones, np.ones((3, 3), np.uint8))
        # only the board and the band around it are ever compared: the rest of the
        # frame (some 40 % of it) is neither scaled down nor looked at
        x, y, cw, ch = cv2.boundingRect(cv2.bitwise_or(roi, around))
        if not cw or not ch:  # nothing of the board in view: the whole frame
            x, y, ch, cw = 0, 0, *roi.shape
        inside = slice(y, y + ch), slice(x, x + cw)
        #: the part of a frame compared, in its pixels: whole 4x4 blocks of it
        self._crop = slice(SCALE * y, SCALE * (y + ch)), slice(SCALE * x, SCALE * (x + cw))
        self.size = (cw, ch)
        self.roi = roi[inside]
        self.background_mask = cv2.bitwise_and(around, cv2.bitwise_not(grown))[inside]
        self.previous: np.ndarray | None = None
        #: the background (the last clear view) blurred as it is compared, and its
        #: mean colour
        self._blurred: np.ndarray | None = None
        self._mean: np.ndarray | None = None
        self.still = 0
        self.blocked = 0
        #: the last frame read, at quarter size; None once anything moved since
        self._read: np.ndarray | None = None
        #: the last frame read, kept until the referee commits what it showed
        self._last_read: np.ndarray | None = None

    def small(self, frame: np.ndarray) -> np.ndarray:
        """The part of ``frame`` compared at a quarter size, each pixel the mean of its
        4x4 block: bilinear at exactly half size averages 2x2, then area averages those
        2x2 (together a seventh of the time of one area resize)."""
        w, h = self.size
        half = cv2.resize(frame[self._crop], (2 * w, 2 * h), interpolation=cv2.INTER_LINEAR)
        return cv2.resize(half, self.size, interpolation=cv2.INTER_AREA)

    def look(self, frame: np.ndarray) -> str:
        """``moving``, ``blocked``, ``settling`` or ``still`` for this frame."""
        small = self.small(frame)
        previous, self.previous = self.previous, small
        if self._blurred is None:
            self._take_background(small)
        if previous is None or _changed(small, previous, self.roi, MOTION_LEVEL) > MOTION_PIXELS:
            self._read = None
            self.still = 0
            self.blocked = 0
            return "moving"
        levelled = cv2.blur(self._levelled(small), (BACKGROUND_BLUR, BACKGROUND_BLUR))
        if _changed(levelled, self._blurred, self.background_mask, BACKGROUND_LEVEL) > (
            BLOCKED_PIXELS
        ):
            self._read = None
            self.still = 0
            self.blocked += 1
            if self.blocked < ACCEPT_AFTER:
                return "blocked"
            self._take_background(small)
        self.blocked = 0
        self.still += 1
        return "still" if self.still >= STILL_FRAMES else "settling"

    def read(self) -> None:
        """The frame looked at last was read: later frames are compared with it."""
        self._read = self._last_read = self.previous

    def accept_read(self) -> None:
        """The last frame read showed the position the referee committed: it is the
        background from now on (the pieces as they stand, their shadows, the light of
        the moment). A frame only read is not: an arm creeping in too slowly for the
        motion check would be taken into it a little at a time."""
        if self._last_read is not None:
            self._take_background(self._last_read)

    def unchanged_since_read(self) -> bool:
        """Whether the board has stayed still since the last frame read and the frame
        looked at last shows it as that frame did."""
        if self._read is None or self.previous is None:
            return False
        return _changed(self.previous, self._read, self.roi, CHANGE_LEVEL) <= MOTION_PIXELS

    def accept(self, frame: np.ndarray) -> None:
        """This frame's board, without hands, is the background from now on."""
        self._take_background(self.small(frame))
        self._last_read = None  # read before: no longer what the board shows

    def _take_background(self, small: np.ndarray) -> None:
        """``small`` is the background from now on: blurred and measured once here,
        not on every frame compared with it."""
        self._blurred = cv2.blur(small, (BACKGROUND_BLUR, BACKGROUND_BLUR))
        self._mean = np.array(cv2.mean(small, self.background_mask)[:3])

    def _levelled(self, small: np.ndarray) -> np.ndarray:
        """``small`` brought to the background's overall brightness (auto exposure)."""
        now = np.array(cv2.mean(small, self.background_mask)[:3])
        return cv2.multiply(small, tuple(self._mean / np.maximum(now, 1)) + (1.0,))


def _changed(a: np.ndarray, b: np.ndarray, mask: np.ndarray, level: int) -> int:
    """Pixels inside ``mask`` where some channel differs by more than ``level``."""
    diff = cv2.absdiff(a, b)
    _, over = cv2.threshold(diff.reshape(diff.shape[0], -1), level, 255, cv2.THRESH_BINARY)
    b, g, r = cv2.split(over.reshape(diff.shape))
    over = cv2.max(cv2.max(b, g), r)  # numpy's max over a short last axis is slow
    return cv2.countNonZero(cv2.bitwise_and(over, mask))
