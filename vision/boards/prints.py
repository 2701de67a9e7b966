"""A field's print as taught, against what the camera sees there now (Fang den Hut!):
the print is flat, a hat stands up. A disc in the middle of each field shows, in
the start position where the field lies empty, its print's own light: its darkest
tenth (against the plain board) and how far its brightest tenth lies above that.
A hat there, of any colour and however like the print, brings its lit top and its
shaded side, or its foot in front of the ring: the darkest tenth drops, the spread
widens. Learned per field, compared per field, in the spread the frame's own
fields show (most of them empty): how unlike its print a field looks. Where it looks
unlike it, the colour of the part least like the print is the hat's, even where
the hat stands off the field's middle and the probes see the field beside it.
The spots beside a field's middle where several hats stand have discs of their own:
one that looks like its print holds no hat.

Samples and scores a disc per field; which hats stand there is the classifier's
call (``Crowds.read`` adds these costs to a field's readings).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision import looks
from vision.boards.hiding import hides
from vision.boards.probes import linear_levels
from vision.boards.sites import Site, turned_places
from vision.lens import Lens
from vision.locate import Pose
from vision.looks import Look

#: the disc's grid of points lies this far apart (mm)
GRID_MM = 1.0
#: the lowest and highest share of the disc's points that measure its darkest and its
#: brightest (a hat's shaded side covers a tenth of the disc even from above)
LOW, HIGH = 10, 90
#: a field's disc is measured only if this many of its points are never hidden by a
#: hat on another field: fewer say little
LEAST_POINTS = 12
#: the sites within this distance (mm) whose hats may hide points of a field's disc
REACH_MM = 60.0
#: the least spread (log) the frame's fields are taken to stray by: a frame whose
#: empty fields agree to the last grain of noise must not make every hat a wonder
LEAST_SPREAD = 0.03
#: weight of the newest look when a field's print is refreshed
REFRESH = 0.3
#: the share of a disc's points, those least like its print's colour, whose colour
#: says which hat stands there (a hat set off the field's middle covers part of it)
CHANGED = 0.25
#: how far (in the spread the frame's fields stray by) a field's disc may stray from
#: its print before each further spread costs alike, not more and more: on 16
#: path-traced tables 26 of 3,058 empty yellow fields strayed 3.5 to 6.4 spreads (a
#: neighbour's shadow on the disc's rim), while 265 of 270 with a hat strayed 5.4 and
#: more, most 15 and more
STRAY_SPREADS = 3.0
#: the fewest fields whose prints were learned for the frame's spread to be taken
LEAST_FIELDS = 12


class Prints:
    """The disc of every field a lone hat or a crowd stands on, for one pose: where its
    points fall in the frame, which of them no hat on another field can hide, and
    the print each field was taught."""

    def __init__(self, sites: list[Site], look: Look, lens: Lens, pose: Pose, board):
        spec = looks.data()["games"][look.game].get("prints", {})
        disc = float(spec.get("disc_mm", 0.0))
        #: the sites whose discs are read: each field's middle and the spots beside it
        #: that several hats may share, but a home field's
        self.rows = np.flatnonzero([disc > 0 and s.slot is None for s in sites])
        #: per row whether it is a spot beside a field's middle: spots and middles stray
        #: from their prints apart (a spot lies nearer the next field's hat and shadow)
        self.beside = np.array([sites[i].spot is not None for i in self.rows], bool)
        self.linear = linear_levels(look)
        #: per field its disc's darkest tenth, spread and median colour, as taught
        self.reference = np.full((len(self.rows), 5), np.nan, np.float32)
        self.flat = np.zeros((len(self.rows), 0), np.int64)
        self.measured = np.zeros(len(self.rows), bool)
        if not len(self.rows):
            return
        #: how unlike its print a field looks, and what a hat on it costs
        self.stands_cost = float(spec["stands_cost"])
        self.most = float(spec["most"])
        axis = np.arange(-disc, disc + 1e-9, GRID_MM)
        grid = np.stack(np.meshgrid(axis, axis), -1).reshape(-1, 2)
        grid = grid[np.linalg.norm(grid, axis=1) <= disc]
        eye = (-cv2.Rodrigues(pose.rvec)[0].T @ pose.tvec).ravel()
        hat = max((p for p in look.pieces.values() if not p.under), key=lambda p: p.height)
        w, h = lens.size
        # every place a hat may stand, and whose field it is on
        each = [turned_places(board, look, other) for other in sites]
        owner = np.repeat([other.cell for other in sites], [len(p) for p in each])
        places = np.concatenate(each)
        picks: list[np.ndarray | None] = []
        for i in self.rows:
            points = np.c_[np.asarray(sites[i].xy) + grid, np.zeros(len(grid))]
            near = places[
                (owner != sites[i].cell) & (np.linalg.norm(places - sites[i].xy, axis=1) < REACH_MM)
            ]
            hidden = hides(
                np.tile(points, (len(near), 1)), eye, np.repeat(near, len(points), 0), hat
            )
            seen = ~hidden.reshape(len(near), len(points)).any(axis=0)
            px = np.round(lens.project(points, pose.rvec, pose.tvec)).astype(np.int64)
            seen &= (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
            kept = np.flatnonzero(seen)
            if len(kept) < LEAST_POINTS:
                picks.append(None)
                continue
            # every disc the same length: the points kept, repeated in turn (their
            # shares of dark and bright stay as they are)
            kept = np.resize(kept, len(grid))
            picks.append(px[kept, 1] * w + px[kept, 0])
        #: the discs measured (the rest, too hidden, say nothing)
        self.measured = np.array([p is not None for p in picks])
        self.flat = np.array([p if p is not None else np.zeros(len(grid), np.int64) for p in picks])

    def measure(self, frame: np.ndarray, paper: np.ndarray) -> np.ndarray:
        """(fields, 8) each disc's darkest tenth (log, against the plain board ``paper``
        seen in the same frame), its brightest tenth's spread above that (log), its
        median colour and the median colour of its CHANGED share least like the
        print's (linear; NaN for a spot beside a field's middle)."""
        if not len(self.rows):
            return np.zeros((0, 8), np.float32)
        colour = self.linear[frame.reshape(-1, 3)[self.flat]]  # (fields, points, 3)
        light = colour.mean(axis=2)
        n = light.shape[1]
        at = (n * LOW // 100, n * HIGH // 100)
        low, high = np.moveaxis(np.partition(light, at, axis=1)[:, at], 1, 0)
        plain = np.median(paper.mean(axis=1)) if len(paper) else 1.0
        # the colours of a field's middle only: a spot's would name no hat
        middle = np.full((len(self.rows), 3), np.nan, np.float32)
        changed = middle.copy()
        mid = ~self.beside
        colour = colour[mid]
        middle[mid] = np.median(colour, axis=1)
        reference = self.reference[mid, 2:]
        printed = np.where(np.isnan(reference), middle[mid], reference)
        unlike = np.abs(np.log(colour / printed[:, None])).sum(axis=2)
        most = np.argpartition(-unlike, int(CHANGED * n), axis=1)[:, : max(1, int(CHANGED * n))]
        changed[mid] = np.median(np.take_along_axis(colour, most[..., None], axis=1), axis=1)
        stats = np.stack([np.log(low / plain), np.log(high / low)], 1)
        return np.concatenate([stats, middle, changed], 1).astype(np.float32)

    def learn(self, seen: np.ndarray, empty: np.ndarray, fresh: bool) -> None:
        """Take ``seen`` (``measure``) as the print of the fields ``empty`` (per site)
        calls empty; ``fresh``: forget what was learned before."""
        if fresh:
            self.reference[:] = np.nan
        empty = empty[self.rows] & self.measured
        new = empty & np.isnan(self.reference[:, 0])
        renew = empty & ~new
        seen = seen[:, :5]
        self.reference[new] = seen[new]
        self.reference[renew] = (1 - REFRESH) * self.reference[renew] + REFRESH * seen[renew]

    def costs(self, seen: np.ndarray, sites: int):
        """Per site (``sites`` of them): what reading it empty costs, its disc this
        unlike its print (squared, in the spread the frame's fields stray from theirs,
        at most ``most``), and what a hat there costs (``stands_cost``: a hat looks
        unlike the print by any amount), zero where the disc says nothing; and (sites,
        3) the colour of the part of each disc least like its print where it looks
        unlike it at least a hat's cost (NaN elsewhere): the hat's."""
        bare, hat = np.zeros(sites, np.float32), np.zeros(sites, np.float32)
        colour = np.full((sites, 3), np.nan, np.float32)
        known = ~np.isnan(self.reference[:, 0])
        if known.sum() < LEAST_FIELDS:
            return bare, hat, colour
        off = seen[:, :2] - self.reference[:, :2]
        for group in (known & ~self.beside, known & self.beside):
            if group.sum() < LEAST_FIELDS:
                continue
            centre = np.median(off[group], axis=0)
            spread = np.median(np.abs(off[group] - centre), axis=0)
            spread = np.maximum(1.4826 * spread, LEAST_SPREAD)
            far = np.sqrt((((off[group] - centre) / spread) ** 2).sum(axis=1))
            # squared near the frame's fields, linear beyond STRAY_SPREADS (Huber's):
            # an empty field strays up to some five spreads now and then, a hat
            # some fifteen and more
            c = STRAY_SPREADS
            cost = np.where(far <= c, far * far, 2 * c * far - c * c)
            bare[self.rows[group]] = np.minimum(cost, self.most)
        rows = self.rows[known]
        hat[rows] = self.stands_cost
        changed = rows[bare[rows] >= self.stands_cost]
        colour[changed] = seen[np.searchsorted(self.rows, changed), 5:]
        return bare, hat, colour
