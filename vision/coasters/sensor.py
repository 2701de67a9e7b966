"""The camera as Hägar's sensor: frames of the table mat in, an ``Observation`` per
table field out (``game.observe``'s tokens, with a confidence and ranked readings,
as ``vision.boards.reader.BoardReader`` gives for a board) whenever the view has been
still and clear of hands for a few frames (``vision.stillness``).

How sure a field is comes from how much better its spot's best picture fitted than
the next ones (``coasters.TableReading.fits``) and likewise for its token. Fields
the camera cannot see (beyond the mat, or on a spot nothing fits: a glass, a hand)
are unknown: every reading is equally likely there, so the referee's weighing
decides them by the rules alone and asks the players when that leaves a choice. It
never decides whether a reading is a legal move.
"""

from __future__ import annotations

import cv2
import numpy as np

from engines.coasters import CORNERS
from vision.boards.reader import MOVED_PX, SURROUND_MM
from vision.coasters.mat import coaster_mm, data
from vision.coasters.reader import BARE, CoasterReader
from vision.lens import Lens
from vision.observation import RANKED, Observation
from vision.stillness import ACCEPT_AFTER, Stillness

#: misfits (``TableReading.fits``) this far apart make one picture e times likelier
#: than the other: right reads beat the next picture by 0.006 at the least, 0.08 as
#: a rule, so a close call stays doubtful and a plain one is sure
FIT_SPREAD = 0.01
#: the same for the colour distance of a field's token readings (right reads win by
#: 0.077 at the least)
TOKEN_SPREAD = 0.02
#: readings likelier than this fraction of the best are kept in ``ranked``
KEEP = 1e-4
#: the probability an unknown field gives its one ranked reading: the weighing's
#: floor, so every reading costs the same there
UNKNOWN = 1e-6
#: a still view is read again only when, at half size, at least ``CHANGED_PIXELS``
#: channel values over the mat differ by more than ``CHANGED_LEVEL`` from the view
#: last read: rendered noise reaches 26 (hard scenes), a token put down changes
#: three pixels by 54 or more even at 640x360
CHANGED_LEVEL = 40
CHANGED_PIXELS = 3


class CoasterSensor:
    """Reads Hägar's table through one camera, as a referee's sensor."""

    def __init__(self, game, lens: Lens):
        self.game = game
        self.lens = lens
        self.coasters = CoasterReader(game, lens)
        self.mat = self.coasters.mat
        self.stillness: Stillness | None = None
        #: the position the referee last committed (None until the first is learned)
        self.truth: dict[str, str | None] | None = None
        self.status = "unlocated"
        self._fields = [cell.id for cell in game.board.cells]
        #: the last observation, the half-size view it was read from, and where the
        #: mat lies in such a view
        self._last: Observation | None = None
        self._last_view: np.ndarray | None = None
        self._mat_mask: np.ndarray | None = None

    @property
    def refusal(self) -> str | None:
        """Why the mat could not be found in the last frame looked at, in words."""
        return self.coasters.locator.refusal

    @property
    def pose(self):
        return self.coasters.pose

    # --- set-up ------------------------------------------------------------------------

    def locate(self, frame: np.ndarray) -> bool:
        """Find the mat by its markers; True if found. A pose that moved makes a new
        stillness check (its view of the mat changed)."""
        old = self.coasters.pose
        if not self.coasters.locate(frame):
            return False
        pose = self.coasters.pose
        anchor = np.array([[*cell.xy, 0.0] for cell in self.mat.cells])
        if self.stillness is None or pose.moved_from(old, self.lens, anchor) >= MOVED_PX:
            self._watch()
        return True

    def _watch(self) -> None:
        """A new view of the mat: a stillness check for it, and nothing read in it yet."""
        zone = self._zone()
        self.stillness = Stillness(
            self.lens.size, self.outline(), [zone], self.outline(SURROUND_MM)
        )
        w, h = self.lens.size
        mask = np.zeros((h // 2, w // 2), np.uint8)
        cv2.fillConvexPoly(mask, np.round(zone / 2).astype(np.int32), 255)
        self._mat_mask = np.repeat(mask, 3, axis=1)  # each pixel's three channel values
        self._last = self._last_view = None
        if self.status == "unlocated":
            self.status = "located"

    def set_corners(self, points) -> bool:
        """The manual fallback: the mat's four corner spots (``looks.corner_cells`` of
        the mat) clicked on the referee page; False if they give no view from above."""
        if not self.coasters.use(self.coasters.locator.from_corner_cells(points)):
            return False
        self._watch()
        return True

    def learn(self, frame: np.ndarray, truth: dict[str, str | None], fresh: bool = False) -> bool:
        """``frame`` shows ``truth``: its view of the table around the mat is the
        background the stillness check compares with. The coasters' look is printed
        (``coasters.face``), so nothing else is learned; ``fresh`` changes nothing.
        False if the mat cannot be found."""
        if self.pose is None and not self.locate(frame):
            return False
        self.stillness.accept(frame)
        self.truth = dict(truth)
        return True

    def confirm(self, truth: dict[str, str | None]) -> None:
        """The referee committed ``truth``."""
        self.truth = dict(truth)

    def showed(self, truth: dict[str, str | None]) -> bool:
        """Always: the mat learns nothing from a committed position's frame."""
        return True

    # --- reading -----------------------------------------------------------------------

    def feed(self, frame: np.ndarray) -> Observation | None:
        """An observation if this frame is still, clear of hands and shows the mat."""
        if self.pose is None and not self.locate(frame):
            self.status = "unlocated"
            return None
        state = self.stillness.look(frame)
        if state == "blocked" and self.stillness.blocked == ACCEPT_AFTER // 2:
            self.locate(frame)  # long blocked but still: perhaps the mat or camera moved
        self.status = state
        if state != "still":
            self._last = None  # something moved: the next still view is read afresh
            return None
        view = _half(frame)
        if self._last is not None and not self._changed(view):
            return self._last  # the view last read, still: the same reading
        reading = self.coasters.read(frame)
        if not reading.found:
            self.status = "unlocated"
            return None
        self._last, self._last_view = self.observation(reading), view
        return self._last

    def _changed(self, view: np.ndarray) -> bool:
        """Whether the mat in ``view`` differs from the view last read."""
        # per channel value, as flat rows: cv2 is many times faster than numpy here
        diff = cv2.absdiff(view, self._last_view).reshape(view.shape[0], -1)
        _, over = cv2.threshold(diff, CHANGED_LEVEL, 255, cv2.THRESH_BINARY)
        return cv2.countNonZero(cv2.bitwise_and(over, self._mat_mask)) >= CHANGED_PIXELS

    def observation(self, reading) -> Observation:
        """A ``TableReading`` as the referee's ``Observation``: per table field the
        readings by probability, unknown where the camera cannot see."""
        tokens = dict.fromkeys(self._fields)
        confidence = dict.fromkeys(self._fields, 0.0)
        ranked = {name: ((None, UNKNOWN),) for name in self._fields}
        unclear = set(reading.unclear)
        for spot, fits in reading.fits.items():
            if spot in unclear:
                continue
            for name, field_ranked in self._spot_fields(spot, fits, reading.token_fits):
                ranked[name] = field_ranked
                tokens[name], confidence[name] = field_ranked[0]
        return Observation(tokens, confidence, ranked)

    def _spot_fields(self, spot: str, fits, token_fits):
        """Each field of ``spot`` with its ranked readings: every picture that fitted
        the spot, with every token that fitted the field, by joint probability."""
        misfits = np.array([misfit for _, misfit in fits])
        chance = _likelihoods(misfits, FIT_SPREAD)
        readings: dict[str, dict[str | None, float]] = {}
        for (candidate, _), p in zip(fits, chance):
            if p < KEEP:
                continue
            if candidate is BARE:
                for corner in CORNERS:
                    name = f"{spot}_{corner}"
                    readings.setdefault(name, {})
                    readings[name][None] = readings[name].get(None, 0.0) + p
                continue
            coaster_id, turn = candidate
            for corner, printed, _ in self.game.coasters[coaster_id].on_table(turn):
                name = f"{spot}_{corner}"
                base = f"{coaster_id}_{printed}"
                found = token_fits.get(name, ((None, 0.0),))
                token_chance = _likelihoods(np.array([e for _, e in found]), TOKEN_SPREAD)
                options = readings.setdefault(name, {})
                for (token, _), q in zip(found, token_chance):
                    if p * q < KEEP:
                        continue
                    label = base if token is None else f"{base}+{token}"
                    options[label] = options.get(label, 0.0) + p * q
        for name, options in readings.items():
            best = sorted(options.items(), key=lambda kv: -kv[1])[:RANKED]
            yield name, tuple(best)

    # --- geometry ----------------------------------------------------------------------

    def _extent(self, margin: float) -> np.ndarray:
        """The corners of the square the mat's spots cover, ``margin`` mm beyond it."""
        xy = np.array([cell.xy for cell in self.mat.cells])
        half = coaster_mm(self.game) / 2 + margin
        (left, bottom), (right, top) = xy.min(0) - half, xy.max(0) + half
        return np.array([[left, bottom], [right, bottom], [right, top], [left, top]])

    def outline(self, margin: float = 0.0) -> np.ndarray:
        """The spots' square in the frame, ``margin`` mm beyond its edge."""
        corners = np.c_[self._extent(margin), np.zeros(4)]
        return self.lens.project(corners, self.pose.rvec, self.pose.tvec)

    def _zone(self) -> np.ndarray:
        """Where in the frame coasters and tokens can be: the spots' square up to the
        tallest token's height (with room), as one convex outline."""
        tallest = max(float(t["height"]) for t in data()["tokens"].values()) * 1.2
        square = self._extent(0.0)
        solid = np.concatenate([np.c_[square, np.zeros(4)], np.c_[square, np.full(4, tallest)]])
        px = self.lens.project(solid, self.pose.rvec, self.pose.tvec).astype(np.float32)
        return px[cv2.convexHull(px, returnPoints=False).ravel()]


def _likelihoods(misfits: np.ndarray, spread: float) -> np.ndarray:
    """Misfits (best first or not) as probabilities that sum to 1."""
    p = np.exp(-(misfits - misfits.min()) / spread)
    return p / p.sum()


def _half(frame: np.ndarray) -> np.ndarray:
    """``frame`` at half size (bilinear at exactly half averages each 2x2 block)."""
    h, w = frame.shape[:2]
    return cv2.resize(frame, (w // 2, h // 2), interpolation=cv2.INTER_LINEAR)
