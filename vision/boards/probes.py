"""Where each site's probes look in the frame for one pose, and what they read there:
small rings (or discs) of points around a cell (no full warp of the frame), placed
where an empty cell shows plain board, and plain board points that follow the overall light.

Samples only; naming what a probe shows is the classifier's job.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision import looks
from vision.boards.hiding import HIDDEN_SHARE, hides
from vision.boards.sight import carried_probes
from vision.boards.sites import MIDDLE, Site, line_angles, outward, turned, turned_places
from vision.lens import Lens
from vision.locate import Pose
from vision.looks import Look

#: the rings of places a piece off its centre is looked for lie this far apart (mm):
#: no place within the reach is more than about half of it from one of them
RING_MM = 2.0
#: a piece is learned off its centre only where its probes' points spread at most
#: this share of theirs on the centre (a figure's ring wholly on its top at the centre
#: and at a place beside it shows no more than the sensor's noise between the two)
STOOD_SPREAD = 0.5
#: points sampled per probe; their median is robust to a highlight or an edge
POINTS = 12
#: the frame is smoothed (``Sampler.readable``) this many pixels beyond the farthest
#: pixel a probe reads (and the smoothing's own reach): a field's disc of print lies
#: within a site's probes' reach, and the frame's edge within it is smoothed alike
SMOOTH_ROOM_PX = 8
#: probe points look at the board at least this far (mm) from a printed line or mark
LINE_CLEARANCE_MM = 3.0
#: a ``darkest`` probe reads, per channel, this many points from its darkest one: a
#: shadow on a quarter of its points shows, a speck of noise on one or two does not
DARKEST_RANK = POINTS // 4 - 1
#: plain board points sampled to follow the overall light (auto exposure, white
#: balance); they lie this far (mm) from any site and outside the markers' quiet zones
PAPER_POINTS = 64
PAPER_CLEARANCE_MM = 10.0
#: a hat is tried standing round a home field's ring every this many degrees, to see
#: whether one could hide the field's middle from the camera
RING_STEP_DEG = 10.0
_LINEAR = (np.arange(256, dtype=np.float32) / 255) ** 2.2


def linear_levels(look: Look) -> np.ndarray:
    """sRGB levels to linear colour plus the look's ``dark_floor`` (a dark channel's
    few levels of noise would otherwise swing its log ratio more than a piece's
    colour does)."""
    return _LINEAR + np.float32(look.dark_floor)


class Sampler:
    """Pixel positions of every site's probes for one pose; ``features`` reads them."""

    def __init__(self, sites: list[Site], look: Look, lens: Lens, pose: Pose, board):
        self.sites = sites
        w, h = lens.size
        rotation = _rotation(pose)
        eye = (-rotation.T @ pose.tvec).ravel()
        xy = np.array([site.xy for site in sites], dtype=np.float64)
        lines = _line_directions([line_angles(board, site) for site in sites])
        pts = np.stack(
            [_probe_points(xy, probe, eye, lines, look.cell_radius) for probe in look.probes], 1
        ).reshape(-1, 3)
        shape = (len(sites), len(look.probes), POINTS)
        #: each probe point on the board's axes (mm), and the camera's centre
        self.points, self.eye = pts.reshape(shape + (3,)), eye
        #: where a piece set down off its centre may stand (mm), the centre first, and
        #: the ring each lies on (0 the centre); a spot beside a field's middle turns
        #: them with the way out through it (``moves``)
        self.offsets, self.rings = placement_offsets(look.placement_mm)
        #: frame pixels per mm of the board near each site
        xy = np.array([(*s.xy, 0.0) for s in sites])
        self.px_per_mm = lens.matrix[0, 0] / np.linalg.norm(xy - eye, axis=1)
        # a piece set down off its centre carries the probes that look at it; those on
        # the board around it stay on the cell (moved with it, the board in front of a
        # hollow showed the figure's foot and shadow, and a disk's sides its middle)
        self.carried = carried_probes(look)
        carried = np.repeat(np.tile(self.carried, len(sites)), POINTS)
        # a spot beside a field's middle turns the offsets with the way out through it
        # (the first straight out): every spot of every field is looked for alike
        out = outward(sites)
        #: (offsets, sites, 2) how far (mm) each site's carried probes move at each offset
        self.moves = turned(self.offsets[:, :1], self.offsets[:, 1:], out[:, 0], out[:, 1])
        each = np.repeat(self.moves, len(look.probes) * POINTS, axis=1)
        shift = np.concatenate([each, np.zeros(each.shape[:2] + (1,))], axis=2)
        shift = shift * carried[:, None]
        moved = pts[None] + shift
        px = lens.project(moved.reshape(-1, 3), pose.rvec, pose.tvec)
        px = np.round(px).astype(np.int64)
        inside = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
        self.visible = inside.reshape((len(self.offsets),) + shape)[0].all(axis=(1, 2))
        px[:, 0] = np.clip(px[:, 0], 0, w - 1)
        px[:, 1] = np.clip(px[:, 1], 0, h - 1)
        #: (offsets, sites, probes, points) each probe point's index in a flat frame
        self.flat = (px[:, 1] * w + px[:, 0]).reshape((len(self.offsets),) + shape)
        #: the sites read off their place (``features``): none on a ring of spots
        self.moving = np.array([s.slot is None for s in sites])
        #: the sites on a ring of spots (a home field's); per turn of the ring the look
        #: tries (``Slots.turns``) and place off its spot a piece may stand there
        #: (``ring_offsets``, the ring of places each lies on ``ring_rings``) their
        #: probe points' indices, as ``flat``
        self.slotted = np.array([s.slot is not None for s in sites])
        self.ring_offsets, self.ring_rings = np.zeros((1, 2)), np.zeros(1)
        self.turned = self.flat[:1, None, self.slotted]
        #: (turns, offsets, ring sites, 2) where (mm) each ring site stands at each turn
        #: of its ring and each of ``ring_offsets``
        self.ring_places = xy[self.slotted, :2][None, None]
        if self.slotted.any():
            moves = _turn_moves(sites, look, board, self.slotted)
            kind = board.cell(sites[int(np.argmax(self.slotted))].cell).kind
            self.ring_offsets, self.ring_rings = placement_offsets(look.slots[kind].placement_mm)
            off = np.c_[self.ring_offsets, np.zeros(len(self.ring_offsets))]
            moves = moves[:, None] + off[None, :, None]  # (turns, offsets, ring sites, 3)
            self.ring_places = xy[self.slotted, :2] + moves[..., :2]
            moved = pts.reshape(shape + (3,))[self.slotted][None, None] + moves[..., None, None, :]
            px = lens.project(moved.reshape(-1, 3), pose.rvec, pose.tvec)
            px = np.round(px).astype(np.int64)
            px[:, 0] = np.clip(px[:, 0], 0, w - 1)
            px[:, 1] = np.clip(px[:, 1], 0, h - 1)
            self.turned = (px[:, 1] * w + px[:, 0]).reshape(moved.shape[:-1])
        self.darkest = darkest_probes(look)
        #: per probe, the share of its points a piece on another site must cover before
        #: the probe shows that piece: a ``darkest`` probe's quarter read shows a dark
        #: one on as few as DARKEST_RANK + 1 points (``vision.boards.hiding``)
        self.showing = np.where(self.darkest, DARKEST_RANK / POINTS, HIDDEN_SHARE)
        self.linear = linear_levels(look)
        #: the frame's smoothing before the probes read it (px, ``readable``)
        self.smooth_px = look.smooth_px
        self.centres = lens.project(np.array([[*s.xy, 0.0] for s in sites]), pose.rvec, pose.tvec)
        paper = lens.project(_paper_points(sites, look, board), pose.rvec, pose.tvec)
        paper = np.round(paper).astype(np.int64)
        paper = paper[
            (paper[:, 0] >= 0) & (paper[:, 0] < w) & (paper[:, 1] >= 0) & (paper[:, 1] < h)
        ]
        self.paper_flat = paper[:, 1] * w + paper[:, 0]
        # a home field's middle that a hat on its ring may hide is not looked at: its
        # probes look at plain board, which it was learned empty on
        blind = _blind_middles(sites, look, board, self.points, eye)
        if blind.any() and len(self.paper_flat):
            self.flat[:, blind] = self.paper_flat[0]
            self.turned[..., blind[self.slotted], :, :] = self.paper_flat[0]
        #: the rectangle (rows, columns) ``readable`` smooths: every pixel a probe reads,
        #: the fields' discs among them, with room for the smoothing's reach (None for a
        #: look that reads the frame as it comes)
        self.smoothed = (
            _around(
                np.concatenate([self.flat.ravel(), self.turned.ravel(), self.paper_flat]),
                (w, h),
                int(np.ceil(3 * self.smooth_px)) + SMOOTH_ROOM_PX,
            )
            if self.smooth_px > 0
            else None
        )

    def readable(self, frame: np.ndarray) -> np.ndarray:
        """``frame`` as the probes read it: smoothed over the look's ``smooth_px``, so
        that a probe whose points fall on a pixel or two reads the colour there, not
        that pixel's noise. The reader hands every probe reading (``features``,
        ``stood``, ``paper``, ``turned_features``, a field's print) this frame."""
        if self.smoothed is None:
            return frame
        seen = frame.copy()
        seen[self.smoothed] = cv2.GaussianBlur(frame[self.smoothed], (0, 0), self.smooth_px)
        return seen

    def features(self, frame: np.ndarray, placed: bool = False) -> np.ndarray:
        """Linear colour (sites, probes, 3) of each probe: the median of its points, or
        their darkest quarter. ``placed``: (offsets, sites, probes, 3), the probes
        moved by each of ``offsets`` as well (the centre first); a spot on a home
        field's ring is never read off its place (the classifier reads a ring's from
        ``turned_features``): there, every offset shows its centre's."""
        pixels = frame.reshape(-1, 3)
        seen = self._read(pixels[self.flat[0]])
        if not placed:
            return seen
        found = np.repeat(seen[None], len(self.flat), axis=0)
        if len(self.flat) > 1:
            found[1:, self.moving] = self._read(pixels[self.flat[1:, self.moving]])
        return found

    def stood(self, frame: np.ndarray, standing: np.ndarray) -> np.ndarray:
        """``features`` (sites, probes, 3) with each site ``standing`` marks read where
        its piece stands: at the one of the offsets ``features(placed=True)`` tries
        where the points of the probes a piece carries are most alike (all on the
        piece, none on its edge, the board beside it or a line it would cover). A piece
        is learned from its own colour, not from a blend of its edge and the board,
        when it was set down off its centre (one hare, learned from one frame, was
        not read again)."""
        found = self.features(frame)
        pick = standing & self.moving
        if len(self.flat) == 1 or not pick.any() or not self.carried.any():
            return found
        flat = self.flat[:, pick][:, :, self.carried]  # (offsets, picked, probes, points)
        grey = self.linear[frame.reshape(-1, 3)[flat]].sum(axis=-1)
        spread = np.log(grey).std(axis=-1).sum(axis=-1)  # (offsets, picked)
        best = spread.argmin(axis=0)
        best[spread[best, np.arange(len(best))] > STOOD_SPREAD * spread[0]] = 0
        rows = np.flatnonzero(pick)
        found[rows] = self._read(frame.reshape(-1, 3)[self.flat[best, rows]])
        return found

    def turned_features(self, frame: np.ndarray) -> np.ndarray:
        """``features`` (turns, offsets, ring sites, probes, 3) of the sites on a ring
        of spots (``slotted``), the ring turned by each turn its look tries
        (``Slots.turns``) and each site moved by each of ``ring_offsets``."""
        return self._read(frame.reshape(-1, 3)[self.turned])

    def _read(self, pixels: np.ndarray) -> np.ndarray:
        """Each probe's linear colour from its points' pixels (..., points, 3)."""
        if not self.darkest.any():
            return self.linear[np.median(pixels, axis=-2).astype(np.uint8)]
        # one partial sort gives both the middle two points and the darkest quarter's
        low, high = (POINTS - 1) // 2, POINTS // 2
        ranked = np.partition(pixels, (DARKEST_RANK, low, high), axis=-2)
        seen = (ranked[..., low, :] + ranked[..., high, :].astype(np.float32)) / 2
        seen[..., self.darkest, :] = ranked[..., self.darkest, DARKEST_RANK, :]
        return self.linear[seen.astype(np.uint8)]

    def paper(self, frame: np.ndarray) -> np.ndarray:
        """Linear colour (points, 3) of the plain board points."""
        return self.linear[frame.reshape(-1, 3)[self.paper_flat]]


def _around(flat: np.ndarray, size: tuple[int, int], room: int) -> tuple[slice, slice]:
    """The rectangle (rows, columns) of a frame of ``size`` (width, height) holding
    every pixel of ``flat`` (flattened indices), ``room`` pixels beyond them."""
    w, h = size
    rows, columns = flat // w, flat % w
    return (
        slice(max(int(rows.min()) - room, 0), min(int(rows.max()) + room + 1, h)),
        slice(max(int(columns.min()) - room, 0), min(int(columns.max()) + room + 1, w)),
    )


def placement_offsets(reach: float) -> tuple[np.ndarray, np.ndarray]:
    """Where a piece set down up to ``reach`` mm off its centre is looked for: the
    centre and rings of six places out to the reach, RING_MM or less apart; and
    each place's ring (0 the centre)."""
    if reach <= 0:
        return np.zeros((1, 2)), np.zeros(1, int)
    rings = math.ceil(reach / RING_MM)
    turns = np.radians(np.arange(0, 360, 60))
    six = np.stack([np.cos(turns), np.sin(turns)], 1)
    offsets = [np.zeros((1, 2))] + [six * reach * k / rings for k in range(1, rings + 1)]
    return np.concatenate(offsets), np.repeat(np.arange(rings + 1), [1] + [6] * rings)


def _turn_moves(sites, look: Look, board, slotted: np.ndarray):
    """(turns, ring sites, 3): how far (mm) each ring site moves with each turn of its
    ring of spots the look tries (a board has one kind of ring): round its cell's
    centre, its probes kept facing the camera as they are."""
    ring = [site for site, on_ring in zip(sites, slotted) if on_ring]
    turns = look.slots[board.cell(ring[0].cell).kind].turns()
    places = np.stack([turned_places(board, look, site) for site in ring], 1)
    moves = np.zeros((len(turns), len(ring), 3))
    moves[..., :2] = places - np.array([site.xy for site in ring])
    return moves


def _blind_middles(sites, look: Look, board, points: np.ndarray, eye: np.ndarray) -> np.ndarray:
    """Per site: whether it is a home field's middle (``sites.MIDDLE``) that the
    camera does not see past a hat standing anywhere round the field's ring (from
    low, the hats round a field hide its middle: a hat read there would be one of
    them). Each probe counts as hidden as ``Hiding`` counts it."""
    blind = np.zeros(len(sites), bool)
    standing = [p for p in look.pieces.values() if not p.under]
    if not standing:
        return blind
    hat = max(standing, key=lambda p: p.height)
    turns = np.radians(np.arange(0.0, 360.0, RING_STEP_DEG))
    circle = np.stack([np.cos(turns), np.sin(turns)], 1)
    for i, site in enumerate(sites):
        if site.slot != MIDDLE:
            continue
        ring = look.slots[board.cell(site.cell).kind].ring
        flat = points[i].reshape(-1, 3)
        for place in np.asarray(site.xy) + ring * circle:
            shares = hides(flat, eye, place, hat).reshape(points.shape[1:3]).mean(axis=1)
            if (shares > HIDDEN_SHARE).any():
                blind[i] = True
                break
    return blind


def darkest_probes(look: Look) -> np.ndarray:
    """Per probe: whether it reads the darkest quarter of its points."""
    return np.array([probe.read == "darkest" for probe in look.probes])


def _paper_points(sites: list[Site], look: Look, board) -> np.ndarray:
    """Up to PAPER_POINTS board points (mm, z = 0) of plain printed board: clear of
    every piece a site can hold and of the markers, inside the board's edge."""
    left, bottom, right, top = looks.extent(board)
    border = looks.data()["markers"]["border_mm"]
    xs = np.linspace(left + border / 2, right - border / 2, 60)
    ys = np.linspace(bottom + border / 2, top - border / 2, 60)
    grid = np.stack(np.meshgrid(xs, ys), -1).reshape(-1, 2)
    reach = max(p.radius for p in look.pieces.values()) + PAPER_CLEARANCE_MM
    # the nearest site's distance, one site at a time: every point against every
    # site at once held 8-10 MB for a moment each time the board was located
    near = np.full(len(grid), np.inf)
    for site in sites:
        np.minimum(near, ((grid - site.xy) ** 2).sum(-1), out=near)
    keep = np.sqrt(near) >= reach
    for marker in looks.markers(board):
        quiet = marker.size * 0.7 + PAPER_CLEARANCE_MM / 2
        keep &= np.abs(grid - np.asarray(marker.xy)).max(axis=1) >= quiet
    grid = grid[keep]
    if len(grid) > PAPER_POINTS:
        grid = grid[np.linspace(0, len(grid) - 1, PAPER_POINTS).round().astype(int)]
    return np.c_[grid, np.zeros(len(grid))]


def _rotation(pose: Pose) -> np.ndarray:
    import cv2

    return cv2.Rodrigues(pose.rvec)[0]


def _line_directions(angles: list[np.ndarray]) -> np.ndarray:
    """Per site, the unit directions (cos, sin) of its printed lines, padded with NaN
    to the most lines a site has: (sites, lines, 2)."""
    most = max((len(a) for a in angles), default=0)
    directions = np.full((len(angles), most, 2), np.nan)
    for i, site_angles in enumerate(angles):
        for j, angle in enumerate(site_angles):
            directions[i, j] = math.cos(angle), math.sin(angle)
    return directions


def _probe_points(xy, probe, eye: np.ndarray, lines: np.ndarray, hole: float) -> np.ndarray:
    """POINTS board points of one probe on a ring (or its front half) round each site
    at ``xy`` (sites, 2), at the angles whose view lands furthest from the printed
    ``lines`` (``_line_directions``) and the cell's own mark, so an empty cell shows
    plain board; an ``outline`` probe's at the angles whose view lands nearest the
    cell's printed outline instead: (sites, POINTS, 3)."""
    if probe.arc == "disc":
        return _disc_points(xy, probe)
    toward = eye[:2] - xy
    facing = np.arctan2(toward[:, 1], toward[:, 0])[:, None]
    if probe.arc == "front":
        candidates = facing + np.linspace(-1.3, 1.3, 4 * POINTS)
    elif probe.arc == "sides":
        # left and right of a figure as the camera sees it: neither behind the figure
        # nor behind a neighbour in front of it
        across = np.linspace(-0.5, 0.5, 2 * POINTS)
        candidates = facing + np.concatenate([np.pi / 2 + across, -np.pi / 2 + across])
    else:
        around = np.linspace(0, 2 * np.pi, 8 * POINTS, endpoint=False)
        candidates = np.broadcast_to(around, (len(xy), len(around)))
    ring = np.stack([probe.r * np.cos(candidates), probe.r * np.sin(candidates)], -1)
    # where the camera's ray through each point meets the board, from the cell centre
    lift = probe.z / max(eye[2] - probe.z, 1e-6)
    landing = ring + (ring + xy[:, None] - eye[:2]) * lift
    if probe.arc == "outline":
        # a dark printed line that a figure standing there hides, whatever the light
        # does to the colours (a flash burns a white hare and the board to one white)
        off = np.abs(np.linalg.norm(landing, axis=-1) - hole)
        nearest = np.sort(np.argsort(off, axis=-1)[:, :POINTS], axis=-1)
        angles = np.take_along_axis(candidates, nearest, axis=-1)
    elif probe.read == "darkest":
        # evenly all round: a shadow falls to any one side
        angles = candidates[:, :: candidates.shape[1] // POINTS][:, :POINTS]
    else:
        angles = _clear_angles(candidates, landing, lines, hole)
    return np.stack(
        [
            xy[:, :1] + probe.r * np.cos(angles),
            xy[:, 1:] + probe.r * np.sin(angles),
            np.full(angles.shape, probe.z),
        ],
        -1,
    )


def _disc_points(xy, probe) -> np.ndarray:
    """POINTS board points spread evenly over the disc of ``probe.r`` round each site
    (sites, POINTS, 3): a ring that small meets only two or three pixels, and their
    median is one pixel's noise."""
    k = np.arange(POINTS) + 0.5
    radius = probe.r * np.sqrt(k / POINTS)
    angle = k * math.pi * (3 - math.sqrt(5))  # the golden angle: no two in a line
    spread = np.stack([radius * np.cos(angle), radius * np.sin(angle)], -1)
    points = np.broadcast_to(xy[:, None], (len(xy), POINTS, 2)) + spread
    return np.concatenate([points, np.full(points.shape[:2] + (1,), probe.z)], -1)


def _clear_angles(candidates, landing, lines: np.ndarray, hole: float) -> np.ndarray:
    """Per site, POINTS of its ``candidates`` whose ``landing`` lies furthest from the
    printed lines and the cell's own mark."""
    clearance = np.linalg.norm(landing, axis=-1) - hole
    for direction in np.moveaxis(lines, 1, 0):  # each site's first line, second, ...
        along = np.matmul(landing, direction[:, :, None])[..., 0]
        normal = np.stack([-direction[:, 1], direction[:, 0]], -1)
        across = np.abs(np.matmul(landing, normal[:, :, None])[..., 0])
        # a site with fewer lines has NaN for the rest: never ahead of them
        clearance = np.minimum(clearance, np.where(along > 0, across, np.inf))
    # where lines cross at the cell, take the POINTS clearest angles, never one pixel
    enough = np.sort(clearance, axis=-1)[:, -POINTS]
    clear = clearance >= np.minimum(enough, LINE_CLEARANCE_MM)[:, None]
    first = np.argsort(~clear, axis=-1, kind="stable")  # the clear ones, in order
    picks = np.linspace(0, clear.sum(axis=-1) - 1, POINTS, axis=-1).round().astype(int)
    return np.take_along_axis(candidates, np.take_along_axis(first, picks, axis=-1), axis=-1)
