"""Which probes of a site a piece standing on another site hides from the camera.

Seen from low, a tree or a figure hides the cells behind it: what a probe there shows
is that piece, not the site's own. Per pose, for every solid a piece can be (its shape,
standing on the board or on a disk) and every pair of sites within its reach, whether
the rays from a probe's points to the camera pass through that solid on the other
site; per position (known, or as first read), the probes its pieces hide.
"""

from __future__ import annotations

import numpy as np

#: a probe shows a piece on another site rather than its own when more than this share
#: of its points' rays to the camera pass through that piece (the median of its points
#: leans toward the piece well before half of them show it; a probe read at its
#: darkest points shows it sooner: ``Sampler.showing``)
HIDDEN_SHARE = 1 / 3
#: a point this close (pixels) to a piece's outline in the frame shows some of the
#: piece (blur, JPEG's colour at half resolution)
BLEED_PX = 1.5
#: pairs of sites (a piece on one, a probe of the other) whose rays are followed at
#: once: 64 pairs' rays take about 1 MB for a moment
PAIRS_AT_ONCE = 64


class Hiding:
    """For one pose: which probes of each site each solid hides, standing on each site,
    and which it shows past an empty site's probe. ``sight`` is the pose's
    ``Sampler`` (its probes' points, the camera's centre, pixels per mm at each site,
    the share of each probe's points a piece must cover to show: ``showing``);
    ``centres`` (sites, 2) mm, ``cells`` their cell ids: sites of one cell never hide
    each other."""

    def __init__(self, sight, centres: np.ndarray, cells: list):
        self.points, self.eye, self.centres = sight.points, sight.eye, centres
        self.same = np.array(cells)[:, None] == np.array(cells)[None]
        #: per site: how far (mm) a piece's outline reaches past its solid in the frame
        self.bleed = BLEED_PX / sight.px_per_mm
        self.showing = sight.showing
        #: per solid (shape, radius, height, base) and side of the probe (toward the
        #: camera, or beyond it): (sites standing on, sites, probes)
        self.meets: dict[tuple, np.ndarray] = {}
        #: per solid standing on the board: its reach (``_reach``)
        self.reaches: dict[tuple, float] = {}

    def hidden(
        self, stacks: list, past: list | None = None, moved: list | tuple = ()
    ) -> tuple[np.ndarray, np.ndarray]:
        """(sites, probes) twice: whether the pieces of ``stacks`` (per site, bottom
        first) hide each probe from the camera, and whether the camera's ray through
        each probe meets one of the pieces of ``past`` (``stacks`` where not given)
        beyond the probe (what a probe above an empty site shows past it). ``moved``:
        pieces standing off their site's place, each (piece, where it stands in mm,
        its site), hiding and shown past alike."""
        sites, probes = self.points.shape[:2]
        masks = []
        for beyond, standing in ((False, stacks), (True, stacks if past is None else past)):
            mask = np.zeros((sites, probes), bool)
            for j, stack in enumerate(standing):
                for piece, base in _solids(stack):
                    mask |= self._meets(piece, base, beyond)[j]
            for piece, xy, j in moved:
                mask |= self._meets_at(piece, np.asarray(xy, float), j, beyond)
            masks.append(mask)
        return masks[0], masks[1]

    def _reach(self, piece, base: float) -> float:
        """How far (mm) from a piece's centre a probe's site may lie whose rays the
        piece can meet: the most a ray through a probe's point travels across the
        board up to the piece's top (toward the camera) or down from the point (beyond
        it), the piece's width, its outline's bleed and a probe's ring round its site."""
        flat = self.points.reshape(-1, 3)
        rise = self.eye[2] - flat[:, 2]
        slope = np.linalg.norm(self.eye[:2] - flat[:, :2], axis=1) / rise
        per = self.points.shape[1] * self.points.shape[2]
        ring = np.repeat(self.centres, per, axis=0) - flat[:, :2]
        climb = max(base + piece.height, flat[:, 2].max())
        reach = climb * slope.max() + piece.radius + self.bleed.max()
        return float(reach + np.linalg.norm(ring, axis=1).max())

    def _meets_at(self, piece, xy: np.ndarray, j: int, beyond: bool) -> np.ndarray:
        """(sites, probes): the probes ``piece`` standing on the board at ``xy`` (mm),
        on site ``j``, meets as ``_meets`` finds them for a piece on its site's place."""
        key = (piece.shape, piece.radius, piece.height)
        if key not in self.reaches:
            self.reaches[key] = self._reach(piece, 0.0)
        probes, count = self.points.shape[1:3]
        near = np.linalg.norm(self.centres - xy, axis=1) <= self.reaches[key]
        behind = np.flatnonzero(near & ~self.same[j])
        mask = np.zeros((len(self.points), probes), bool)
        if len(behind):
            per = probes * count
            through = _through(
                self.points[behind].reshape(-1, 3),
                self.eye,
                np.broadcast_to(xy, (len(behind) * per, 2)),
                piece,
                0.0,
                beyond,
                np.repeat(self.bleed[behind], per),
            )
            mask[behind] = through.reshape(-1, probes, count).mean(axis=2) > self.showing
        return mask

    def _meets(self, piece, base: float, beyond: bool) -> np.ndarray:
        key = (piece.shape, piece.radius, piece.height, base, beyond)
        if key not in self.meets:
            sites, probes, count = self.points.shape[:3]
            # only sites within the piece's reach
            reach = self._reach(piece, base)
            apart = np.linalg.norm(self.centres[:, None] - self.centres[None], axis=2)
            near = (apart <= reach) & ~self.same
            meets = np.zeros((sites, sites, probes), bool)  # (standing on, sites, probes)
            pairs = np.argwhere(near)
            per = probes * count
            # a few pairs of sites at a time: every ray of every pair at once held the
            # service's memory 5-8 MB higher for a moment, on the loop
            for at in range(0, len(pairs), PAIRS_AT_ONCE):
                standing, behind = pairs[at : at + PAIRS_AT_ONCE].T
                through = _through(
                    self.points[behind].reshape(-1, 3),
                    self.eye,
                    np.repeat(self.centres[standing], per, axis=0),
                    piece,
                    base,
                    beyond,
                    np.repeat(self.bleed[behind], per),
                )
                shares = through.reshape(-1, probes, count).mean(axis=2)
                meets[standing, behind] = shares > self.showing
            self.meets[key] = meets
        return self.meets[key]


def hides(points: np.ndarray, eye: np.ndarray, centre, piece) -> np.ndarray:
    """Per point (n, 3): whether ``piece`` standing on the board at ``centre`` (mm)
    hides it from the camera at ``eye``."""
    n = len(points)
    at = np.broadcast_to(np.asarray(centre, float), (n, 2))
    return _through(points, eye, at, piece, 0.0, False, np.zeros(n))


def _solids(stack) -> list[tuple]:
    """The solids of a stack of pieces (bottom first): each piece and its base."""
    found, base = [], 0.0
    for piece in stack:
        found.append((piece, base))
        base += piece.height
    return found


def _through(points, eye: np.ndarray, centres: np.ndarray, piece, base, beyond, bleed):
    """Per point (n, 3): whether the camera's ray through it passes through ``piece``
    standing ``base`` mm above the board on its centre (n, 2), ``bleed`` (per point)
    mm wider: between the point and the camera, or (``beyond``) between the point and
    the board. Along the ray, the squared distance from the piece's axis less its
    squared radius (which a cone's slope shrinks in step with height) is a quadratic
    in height: the ray passes through where it is negative between the ends of that
    stretch within the piece's height."""
    top = base + piece.height
    if beyond:
        low, high = np.full(len(points), base), np.minimum(points[:, 2], top)
    else:
        low, high = np.maximum(points[:, 2], base), np.full(len(points), top)
    slope = (eye[:2] - points[:, :2]) / (eye[2] - points[:, 2:3])  # mm across per mm up
    # where each ray would cross the board's plane, from the piece's axis
    offset = points[:, :2] - points[:, 2:3] * slope - centres
    taper = (piece.radius_at(piece.height) - piece.radius) / piece.height  # per mm up
    # the radius the taper gives at the board's plane
    radius0 = piece.radius - taper * base + bleed
    a = (slope * slope).sum(axis=1) - taper * taper
    b = 2 * ((offset * slope).sum(axis=1) - radius0 * taper)
    c = (offset * offset).sum(axis=1) - radius0 * radius0
    vertex = np.clip(-b / np.where(a > 0, 2 * a, np.inf), low, high)
    least = np.minimum.reduce([_at(a, b, c, z) for z in (low, vertex, high)])
    return (low < high) & (least < 0)


def _at(a, b, c, z):
    return (a * z + b) * z + c
