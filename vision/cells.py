"""Cells to tokens: sample small patches where each cell's probes project into the
frame (no full warp), normalise them by what the empty cell looks like under the
same light, and name the token with a confidence.

Empty references and token colours are learned from a known position (the start
position when a game starts, each committed position after that); tokens never seen
yet start from their colours in ``vision/looks.toml``. Classifies only; whether the
frame is still enough to read is ``vision.stillness``'s business.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from vision import looks
from vision.camera import Camera
from vision.hiding import Hiding
from vision.locate import Pose
from vision.looks import JOIN, Look

#: points sampled per probe; their median is robust to a highlight or an edge
POINTS = 12
#: probe points look at the board at least this far (mm) from a printed line or mark
LINE_CLEARANCE_MM = 3.0
#: a probe that cannot see the piece it tests costs this much (log units squared)
UNSEEN_COST = 4.0
#: spreads of log colour ratios: floor and ceiling of learned ones, and an unlearned one
SPREAD_MIN, SPREAD_MAX, SPREAD_NOMINAL = 0.12, 0.35, 0.3
#: the floor of a spread learned from a single sample (shrinking with more)
SPREAD_FEW = 0.2
#: a probe this low sees the board just past the cell when nothing stands there
LOW_PROBE_MM = 8.0
#: the camera looks down at the board at least this steeply (degrees)
LOWEST_VIEW_DEG = 30.0
#: spread of a site's empty look borrowed from its neighbours (never seen empty)
SPREAD_BORROWED = 0.3
#: a probe's cost is capped so one odd probe cannot outvote the others entirely
COST_CAP = 200.0
#: a ``darkest`` probe reads, per channel, this many points from its darkest one: a
#: shadow on a quarter of its points shows, a speck of noise on one or two does not
DARKEST_RANK = POINTS // 4 - 1
#: a figure's shadow beside it, or its own side hiding the points behind it, leaves
#: a ``darkest`` probe around it at most this much of the light (log) of what lies
#: there: a figure on a disk of its own colour, seen from straight above
SHADE_MOST = math.log(0.8)
#: ... though it may not (a white figure's side under a flash, its shadow behind it):
#: a figure costs at most this much through a ``darkest`` probe
SHADE_CAP = 2 * UNSEEN_COST
#: a probe this close (mm) outside a piece's solid shows a blend of the piece and what
#: lies beside it (a tree's foot beside the ``sides`` probe)
OUTLINE_MM = 1.5
#: a site whose best reading costs more than this shows nothing the reader knows
#: (a finger, a sleeve); this many such sites and the frame is not read
UNEXPLAINED_COST = 120.0
UNEXPLAINED_SITES = 3
#: extra cost of a reading with a figure on a disk (-2 log of its prior odds)
STACK_COST = 4.0
#: extra cost of a reading that moves a piece that ``stays`` (looks.toml) from where the
#: last known position had it, or puts one where it had none (-2 log of the odds that
#: one was knocked off or misplaced since: about one in 400)
MOVED_COST = 12.0
#: extra cost of a ``single`` piece read on a cell other than the one that looks most
#: like it (-2 log of its odds: none; the most it may look unlike it and still be
#: read there)
SINGLE_COST = 30.0
#: the cells looked at for each single piece when the best places for all are chosen
SINGLE_CANDIDATES = 3
#: extra cost of each hat beyond the first on one field (-2 log of its odds: in random
#: Fang den Hut! games about one field in 16 that holds hats holds two, and one in 16
#: of those three)
CROWD_COST = 5.5
#: a probe sees a hat (or none) of a crowded field when more than this share of its
#: points' rays meets that hat first (or none): their median shows it
CROWD_SHARE = 1 / 2
#: a probe that shows neither one hat nor the board, whose points' rays meet a hat
#: less often than this (more pass close by one), shows the board with the hat's
#: colour bled in: not a clean hat colour (3 of 12 points on a hat leave the median
#: among the points beside it)
NEAR_SHARE = 1 / 3
#: heights at which a ray is tested against the hats of a crowded field
RAY_STEPS = 33
#: a hat's colour bleeds this far (mm) past its outline in a frame (blur, and JPEG's
#: colour at half resolution): a probe that close to one shows no clear board
BLEED_MM = 4.0
#: the most a probe that shows a blend of hats and board may cost
BLEND_MOST = 25.0
#: the darkest shadow a hat casts beside it (log of the light left)
SHADOW = math.log(0.4)
#: a site and this many of its nearest ones share their board level
NEIGHBOURS = 7
#: readings per site an observation lists in ``ranked``
RANKED = 3
#: weight of the newest sample when a reference is refreshed
REFRESH = 0.3
#: how the top face and the side of a solid are shaded relative to its colour in
#: looks.toml, for a piece not learned yet (the side gets less of the light from above)
TOP_SHADE, SIDE_SHADE = 0.95, 0.62
#: what a probe sees of a solid it lies in: its flat top, or its side (or a cone's
#: slope), depending on the camera's angle at that cell, or the rim between them
TOP, SIDE, EDGE = 0, 1, 2
#: a probe point this close (pixels) to the rim between a solid's top and its side
#: shows a blend of both (blur, JPEG's colour at half resolution): a figure's side
#: seen edge-on from nearly straight above
EDGE_PX = 2.0
#: plain board points sampled to follow the overall light (auto exposure, white
#: balance); they lie this far (mm) from any site and outside the markers' quiet zones
PAPER_POINTS = 64
PAPER_CLEARANCE_MM = 10.0
_LINEAR = (np.arange(256, dtype=np.float32) / 255) ** 2.2


def _linear(look: Look) -> np.ndarray:
    """sRGB levels to linear colour plus the look's ``dark_floor`` (a dark channel's
    few levels of noise would otherwise swing its log ratio more than a piece's
    colour does)."""
    return _LINEAR + np.float32(look.dark_floor)


@dataclass(frozen=True)
class Observation:
    """What the camera read: per cell a token or None, the confidence (0-1) of that
    reading, and the best few readings with their probabilities."""

    tokens: dict[str, str | None]
    confidence: dict[str, float]
    ranked: dict[str, tuple[tuple[str | None, float], ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Site:
    """One place a piece stands: a cell, one marked spot of a home field, or one spot
    (``spot``, 1 on) beside the centre of a field several hats may share."""

    cell: str
    xy: tuple[float, float]
    slot: int | None = None
    spot: int | None = None


def sites_of(board, look: Look) -> list[Site]:
    sites = []
    crowded = bool(crowd_layouts(look)[1])
    for cell in board.cells:
        slots = look.slots.get(cell.kind)
        if slots is None:
            sites.append(Site(cell.id, cell.xy))
            if crowded:
                spots = crowd_spots(board, cell, look)[1:]
                sites.extend(Site(cell.id, xy, spot=k) for k, xy in enumerate(spots, 1))
        else:
            for k, (dx, dy) in enumerate(slots.offsets()):
                sites.append(Site(cell.id, (cell.xy[0] + dx, cell.xy[1] + dy), k))
    return sites


def site_labels(sites: list[Site], tokens: dict[str, str | None]) -> list[str | None]:
    """The piece on each site for a known observation: a home field's pieces fill its
    spots in sorted order, as the renderer lays them out. A site that shows no single
    piece for sure (a crowded field's) is neither learned as empty nor as a piece."""
    labels = []
    for site in sites:
        token = tokens.get(site.cell)
        if site.spot is not None:
            # a hat in the middle or several hats only partly cover a spot beside it
            labels.append(None if token is None else CROWDED)
        elif site.slot is None:
            labels.append(token)
        else:
            parts = sorted(looks.split(token))
            labels.append(parts[site.slot] if site.slot < len(parts) else None)
    return labels


def crowd_layouts(look: Look) -> tuple[np.ndarray, dict[int, tuple[int, ...]]]:
    """Where several hats stand on one field, from the look's ``crowd``: the distinct
    spots (mm along and across the track, the middle first) and per count of hats the
    spots they stand on; (no spots, {}) for a game without."""
    crowd = looks.data()["games"][look.game].get("crowd", {})
    if not crowd:
        return np.zeros((0, 2)), {}
    spots: list[tuple[float, float]] = [(0.0, 0.0)]
    layouts = {1: (0,)}
    for count, places in sorted((int(n), places) for n, places in crowd.items()):
        if len(places) != count:
            raise ValueError(f"looks.toml {look.game} crowd.{count} has {len(places)} spots")
        for place in map(tuple, places):
            if place not in spots:
                spots.append(place)
        layouts[count] = tuple(spots.index(tuple(place)) for place in places)
    return np.array(spots, float), layouts


def crowd_spots(board, cell, look: Look) -> np.ndarray:
    """The spots of ``crowd_layouts`` on ``cell`` (mm on the board), turned with the
    track there (the mean direction of the lines to its neighbours, taken as axes),
    placed where a player sets a hat beside the others: where there is room for it."""
    key = (board.name, len(board.cells), look.game)
    if key not in _CROWD_SPOTS:
        _CROWD_SPOTS[key] = _place_crowds(board, look)
    return _CROWD_SPOTS[key][cell.id]


def _place_crowds(board, look: Look) -> dict[str, np.ndarray]:
    """Each field's crowd spots: of the layout's two mirror images across the track,
    the one whose spots of the largest layout alone stand further from where other
    fields' hats stand (their centres and their spots of the smaller layouts, either
    way round); such a spot still closer than a hat's width to those (on a spoke's
    first field: the ring fields on both sides) moves to the place beside the spots
    it stands with, as far from the nearest of them, with the most room."""
    spots, layouts = crowd_layouts(look)
    largest = max(layouts)
    smaller = sorted({s for n, layout in layouts.items() if n < largest for s in layout})
    extra = [s for s in range(len(spots)) if s not in smaller]
    kept = [s for s in layouts[largest] if s in smaller]
    width = 2 * max(p.radius for p in look.pieces.values() if not p.under)
    turns = np.radians(np.arange(0, 360, 5))
    circle = np.stack([np.cos(turns), np.sin(turns)], 1)
    mirrored = {
        c.id: _mirror_images(board, c, spots) for c in board.cells if c.kind not in look.slots
    }
    placed = {}
    for cell_id, images in mirrored.items():
        others = np.concatenate(
            [
                image[smaller]
                for other, their in mirrored.items()
                if other != cell_id
                for image in their
            ]
        )
        best = max(images, key=lambda image: _room(image[extra], others).min(initial=np.inf))
        best = best.copy()
        for s in extra:
            if _room(best[s : s + 1], others)[0] >= width or not kept:
                continue
            gap = np.linalg.norm(spots[kept] - spots[s], axis=1).min()
            around = (best[kept][:, None] + gap * circle[None]).reshape(-1, 2)
            apart = np.linalg.norm(around[:, None] - best[kept][None], axis=2).min(axis=1)
            around = around[apart >= gap - 1e-6]
            best[s] = around[np.argmax(_room(around, others))]
        placed[cell_id] = best
    return placed


def _room(points: np.ndarray, others: np.ndarray) -> np.ndarray:
    """How far (mm) each of ``points`` stands from the nearest of ``others``."""
    return np.linalg.norm(points[:, None] - others[None], axis=2).min(axis=1)


#: per board and game: each field's crowd spots (computed once: the renderer asks per frame)
_CROWD_SPOTS: dict[tuple, dict[str, np.ndarray]] = {}


def _mirror_images(board, cell, spots: np.ndarray) -> list[np.ndarray]:
    """``spots`` (mm along and across the track) on ``cell``, and mirrored across it."""
    angles = _line_angles(board, Site(cell.id, cell.xy))
    track = 0.5 * math.atan2(np.sin(2 * angles).sum(), np.cos(2 * angles).sum())
    along = np.array([math.cos(track), math.sin(track)])
    across = np.array([-along[1], along[0]])
    return [
        np.asarray(cell.xy) + spots[:, :1] * along + spots[:, 1:] * side
        for side in (across, -across)
    ]


class Sampler:
    """Pixel positions of every site's probes for one pose; ``features`` reads them."""

    def __init__(self, sites: list[Site], look: Look, camera: Camera, pose: Pose, board):
        self.sites = sites
        w, h = camera.size
        rotation = _rotation(pose)
        eye = (-rotation.T @ pose.tvec).ravel()
        pts = []
        for site in sites:
            lines = _line_angles(board, site)
            for probe in look.probes:
                pts.append(_probe_points(site.xy, probe, eye, lines, look.cell_radius))
        pts = np.concatenate(pts)
        shape = (len(sites), len(look.probes), POINTS)
        #: each probe point on the board's axes (mm), and the camera's centre
        self.points, self.eye = pts.reshape(shape + (3,)), eye
        #: frame pixels per mm of the board near each site
        xy = np.array([(*s.xy, 0.0) for s in sites])
        self.px_per_mm = camera.matrix[0, 0] / np.linalg.norm(xy - eye, axis=1)
        px = camera.project(pts, pose.rvec, pose.tvec)
        px = np.round(px).astype(np.int64)
        inside = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
        self.visible = inside.reshape(shape).all(axis=(1, 2))
        px[:, 0] = np.clip(px[:, 0], 0, w - 1)
        px[:, 1] = np.clip(px[:, 1], 0, h - 1)
        self.flat = (px[:, 1] * w + px[:, 0]).reshape(shape)
        self.darkest = _darkest(look)
        self.linear = _linear(look)
        self.centres = camera.project(np.array([[*s.xy, 0.0] for s in sites]), pose.rvec, pose.tvec)
        paper = camera.project(_paper_points(sites, look, board), pose.rvec, pose.tvec)
        paper = np.round(paper).astype(np.int64)
        paper = paper[
            (paper[:, 0] >= 0) & (paper[:, 0] < w) & (paper[:, 1] >= 0) & (paper[:, 1] < h)
        ]
        self.paper_flat = paper[:, 1] * w + paper[:, 0]

    def features(self, frame: np.ndarray) -> np.ndarray:
        """Linear colour (sites, probes, 3) of each probe: the median of its points, or
        their darkest quarter."""
        pixels = frame.reshape(-1, 3)[self.flat]
        seen = np.median(pixels, axis=2)
        if self.darkest.any():
            dark = pixels[:, self.darkest]
            seen[:, self.darkest] = np.partition(dark, DARKEST_RANK, axis=2)[:, :, DARKEST_RANK]
        return self.linear[seen.astype(np.uint8)]

    def paper(self, frame: np.ndarray) -> np.ndarray:
        """Linear colour (points, 3) of the plain board points."""
        return self.linear[frame.reshape(-1, 3)[self.paper_flat]]


def _darkest(look: Look) -> np.ndarray:
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
    sites_xy = np.array([s.xy for s in sites])
    reach = max(p.radius for p in look.pieces.values()) + PAPER_CLEARANCE_MM
    near = np.sqrt(((grid[:, None] - sites_xy[None]) ** 2).sum(-1)).min(axis=1)
    keep = near >= reach
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


def _line_angles(board, site: Site) -> np.ndarray:
    """Directions (radians) of the lines printed from a cell to its neighbours."""
    if site.slot is not None:
        return np.zeros(0)
    i = board.index[site.cell]
    x, y = site.xy
    return np.array(
        [
            math.atan2(board.cells[j].xy[1] - y, board.cells[j].xy[0] - x)
            for j in board.neighbours[i]
        ]
    )


def _probe_points(xy, probe, eye: np.ndarray, lines: np.ndarray, hole: float) -> np.ndarray:
    """POINTS board points of one probe on a ring (or its front half), at the angles
    whose view lands furthest from the printed lines and the cell's own mark, so an
    empty cell shows plain board; an ``outline`` probe's at the angles whose view
    lands nearest the cell's printed outline instead."""
    toward = eye[:2] - np.asarray(xy)
    facing = math.atan2(toward[1], toward[0])
    if probe.arc == "front":
        candidates = facing + np.linspace(-1.3, 1.3, 4 * POINTS)
    elif probe.arc == "sides":
        # left and right of a figure as the camera sees it: neither behind the figure
        # nor behind a neighbour in front of it
        across = np.linspace(-0.5, 0.5, 2 * POINTS)
        candidates = facing + np.concatenate([np.pi / 2 + across, -np.pi / 2 + across])
    else:
        candidates = np.linspace(0, 2 * np.pi, 8 * POINTS, endpoint=False)
    ring = np.stack([probe.r * np.cos(candidates), probe.r * np.sin(candidates)], 1)
    # where the camera's ray through each point meets the board, from the cell centre
    lift = probe.z / max(eye[2] - probe.z, 1e-6)
    landing = ring + (ring + np.asarray(xy) - eye[:2]) * lift
    if probe.arc == "outline":
        # a dark printed line that a figure standing there hides, whatever the light
        # does to the colours (a flash burns a white hare and the board to one white)
        nearest = np.argsort(np.abs(np.linalg.norm(landing, axis=1) - hole))[:POINTS]
        angles = candidates[np.sort(nearest)]
    elif probe.read == "darkest":
        # evenly all round: a shadow falls to any one side
        angles = candidates[:: len(candidates) // POINTS][:POINTS]
    else:
        angles = _clear_angles(candidates, landing, lines, hole)
    return np.stack(
        [
            xy[0] + probe.r * np.cos(angles),
            xy[1] + probe.r * np.sin(angles),
            np.full(POINTS, probe.z),
        ],
        1,
    )


def _clear_angles(candidates, landing, lines: np.ndarray, hole: float) -> np.ndarray:
    """POINTS of ``candidates`` whose ``landing`` lies furthest from the printed lines
    and the cell's own mark."""
    clearance = np.linalg.norm(landing, axis=1) - hole
    for angle in lines:
        direction = np.array([math.cos(angle), math.sin(angle)])
        along = landing @ direction
        across = np.abs(landing @ np.array([-direction[1], direction[0]]))
        clearance = np.minimum(clearance, np.where(along > 0, across, np.inf))
    # where lines cross at the cell, take the POINTS clearest angles, never one pixel
    enough = np.sort(clearance)[-POINTS]
    clear = candidates[clearance >= min(enough, LINE_CLEARANCE_MM)]
    return clear[np.linspace(0, len(clear) - 1, POINTS).round().astype(int)]


# --- what each reading predicts through each probe ------------------------------------

BOARD, ANY, BEYOND = "<board>", "<any>", "<beyond>"
#: a site's label while learning when it shows part of one or more pieces
CROWDED = "<crowded>"
_TOKEN, _BOARD, _ANY, _BEYOND, _SHADED_TOKEN, _SHADED_BOARD, _PAST = range(7)


@dataclass(frozen=True)
class Shaded:
    """What a ``darkest`` probe beside a figure sees: what lies there (the board or a
    disk's token), darkened by the figure's shadow or side."""

    lies: str


@dataclass(frozen=True)
class Past:
    """What a high probe over a low piece (a molehill, a disk) sees: the piece (its
    token lies there), where the camera's ray lands on it, or the board past it."""

    lies: str


def hypotheses(look: Look, slot: bool = False) -> list[tuple[str | None, tuple]]:
    """Every reading a site can have, with what each probe sees then: a piece's
    colour (its token), the empty board, or anything (the probe misses the piece)."""
    return [
        (label, tuple(_sight(probe, stack)[0] for probe in look.probes))
        for label, stack in _stacks(look, slot)
    ]


def _stacks(look: Look, slot: bool) -> list[tuple[str | None, list]]:
    """Every reading a site can have and the pieces standing there, bottom first."""
    standing = [p for p in look.pieces.values() if not p.under]
    under = [p for p in look.pieces.values() if p.under]
    found: list[tuple[str | None, list]] = [(None, [])]
    for piece in standing:
        for below in [None, *([] if slot else under)]:
            found.append((piece.token, [below, piece] if below else [piece]))
    if not slot:
        found.extend((below.token, [below]) for below in under)
    return found


def _sight(probe, stack) -> tuple[str | Shaded | Past, tuple | None]:
    """What ``probe`` sees of ``stack``, and (piece, height of its base) when the
    probe lies inside that piece's solid; a ``darkest`` probe beside a figure sees
    what lies there ``Shaded``."""
    # a high probe over an empty cell sees past it: the board as learned there, or
    # a neighbour's piece; over a low piece, that piece or past it
    what = BOARD if probe.z <= LOW_PROBE_MM else (Past(stack[-1].token) if stack else BEYOND)
    solid = None
    base = 0.0
    for piece in stack:
        top = base + piece.height
        level = base <= probe.z <= top
        radius = piece.radius_at(probe.z - base)
        inside = level and probe.r <= radius
        # a point inside a disk under a figure's foot is hidden by the figure
        covered = probe.z < base and probe.r <= piece.radius_at(0.0)
        if inside or covered or _lands_on(probe, piece, top):
            what, solid = piece.token, ((piece, base) if inside else None)
        elif probe.read == "darkest" and not piece.under and what in (BOARD, *_unders(stack)):
            what = Shaded(what)
        elif level and probe.r <= radius + OUTLINE_MM:
            what = ANY  # the piece's outline blurs into what lies beside it
        base = top
    return what, solid


def _unders(stack) -> list[str]:
    """The disks of ``stack``."""
    return [piece.token for piece in stack if piece.under]


def views(look: Look, stacks, sites: list[Site], sight) -> np.ndarray:
    """(sites, stacks, probes): whether each probe sees the TOP or the SIDE of the solid
    it lies in, by where the camera's ray from most of its points leaves that solid
    (``sight`` a ``Sampler``: its points, the camera's centre, pixels per mm). Near
    straight above a figure's front probe sees its top, from a slanted view its side:
    they are lit differently. EDGE, for a probe that skips the rim, where most of its
    points lie within EDGE_PX of the rim between the two in the frame (a side seen
    edge-on): they show a blend; and for a ``darkest`` probe where the camera does not
    look over the pieces on the neighbouring cells (whatever stands there)."""
    points, eye = sight.points, sight.eye
    found = np.full((len(points), len(stacks), len(look.probes)), TOP, np.int8)
    centres = np.array([site.xy for site in sites])
    for k, probe in enumerate(look.probes):
        if probe.read == "darkest":
            found[~_over_neighbours(look, probe, centres, eye), :, k] = EDGE
    for h, stack in enumerate(stacks):
        for k, probe in enumerate(look.probes):
            if probe.read == "darkest":
                continue
            solid = _sight(probe, stack)[1]
            if solid is None:
                continue
            piece, base = solid
            top = base + piece.height
            p = points[:, k]  # (sites, POINTS, 3)
            ray = eye - p
            reach = (top - p[..., 2]) / np.maximum(ray[..., 2], 1e-6)
            out = p[..., :2] + reach[..., None] * ray[..., :2] - centres[:, None]
            beyond = np.linalg.norm(out, axis=2) - piece.radius_at(piece.height)
            found[:, h, k] = np.where((beyond > 0).mean(axis=1) > 0.5, SIDE, TOP)
            if probe.skip_rim:
                edge = np.abs(beyond) * sight.px_per_mm[:, None] < EDGE_PX
                found[edge.mean(axis=1) > 0.5, h, k] = EDGE
    return found


def _over_neighbours(look: Look, probe, centres: np.ndarray, eye: np.ndarray) -> np.ndarray:
    """Per site: whether the camera sees every point of ``probe`` (a ring around the
    site) past the tallest piece standing on the nearest other site, its widest foot
    there (lower, the piece hides points and its shadow darkens them)."""
    standing = [p for p in look.pieces.values() if not p.under]
    tallest = max(p.height for p in standing) + max(
        (p.height for p in look.pieces.values() if p.under), default=0.0
    )
    widest = max(p.radius for p in standing)
    distance = np.linalg.norm(centres[:, None] - centres[None], axis=2)
    np.fill_diagonal(distance, np.inf)
    gap = np.maximum(distance.min(axis=1) - probe.r - widest, 1e-6)
    ground = np.linalg.norm(eye[:2] - centres, axis=1) + probe.r
    return (eye[2] - probe.z) / ground >= (tallest - probe.z) / gap


def _lands_on(probe, piece, top: float) -> bool:
    """A front probe above a flat piece whose view lands on its top face from any
    camera at least LOWEST_VIEW_DEG steep (the landing moves toward the far side).
    Any other probe above it lands on it from a steep camera and past it from a low
    one (an outline probe 15 mm up lands 25 mm behind the cell at 31 degrees)."""
    if not (piece.under and probe.z > top) or probe.arc != "front":
        return False
    reach = (probe.z - top) / math.tan(math.radians(LOWEST_VIEW_DEG))
    return max(probe.r, abs(probe.r - reach)) <= piece.radius


class Crowds:
    """The fields several hats may share, for one pose: their sites (centre first) and,
    per count of hats, what the camera sees through each probe of each site (the hat
    on one spot, no hat, or a mix), from which each reading of a field is scored."""

    CLEAR, MIXED, NEAR = -1, -2, -3

    def __init__(self, sites: list[Site], look: Look, points: np.ndarray, eye: np.ndarray):
        _, layouts = crowd_layouts(look)
        hat = max((p for p in look.pieces.values() if not p.under), key=lambda p: p.height)
        self.colours = [p.token for p in look.pieces.values() if not p.under]
        self.probes = len(look.probes)
        self.low = np.array([probe.z <= LOW_PROBE_MM for probe in look.probes])
        fields: dict[str, list[int]] = {}
        for i, site in enumerate(sites):
            if site.slot is None:
                fields.setdefault(site.cell, []).append(i)
        #: (fields, sites of a field): the site rows, the centre first
        self.rows = np.array(list(fields.values()))
        xy = np.array([site.xy for site in sites])
        index, holds, names, prior = [], [], [None], [0.0]
        for count, layout in sorted(layouts.items()):
            views = np.array(
                [self._views(points[rows], eye, xy[rows[list(layout)]], hat) for rows in self.rows]
            )
            # every way of setting ``count`` of the colours on the spots
            sets = np.array(list(itertools.product(range(len(self.colours)), repeat=count)))
            pick = sets[:, np.maximum(views, 0)].transpose(1, 0, 2, 3)
            # a probe sees a hat standing on another spot from outside: its slope (the
            # options of a probe: each colour as a hat on its own spot shows it, each as
            # seen from beside, the board, then the blends)
            own = np.array(layout)[np.maximum(views, 0)] == np.arange(views.shape[1])[:, None]
            pick = pick + len(self.colours) * ~own[:, None]
            board = np.select([views == self.CLEAR, views == self.NEAR], [0, 1], 2)
            clear = 2 * len(self.colours) + board[:, None]
            index.append(np.where(views[:, None] >= 0, pick, clear))
            holds.append(sets[:, :, None] == np.arange(len(self.colours)))
            names += [JOIN.join(sorted(self.colours[c] for c in chosen)) for chosen in sets]
            prior += [CROWD_COST * (count - 1)] * len(sets)
        index = np.concatenate(index, axis=1)
        #: the sets of colours readings hold (colours), and which each reading holds
        self.holds, held = np.unique(
            np.concatenate([h.any(axis=1) for h in holds]), axis=0, return_inverse=True
        )
        # a probe that sees a mix counts the blend of the set of colours the reading holds
        mixed = index == 2 * len(self.colours) + 2
        index = np.where(mixed, 2 * len(self.colours) + 2 + held.reshape(1, -1, 1, 1), index)
        fields, width = self.rows.shape
        options = 2 * len(self.colours) + 2 + len(self.holds)
        place = np.arange(fields * width * self.probes).reshape(fields, 1, width, self.probes)
        #: (fields, readings, sites, probes): which option of each probe a reading
        #: counts, in the flattened (fields, sites, probes, options) of ``read``
        self.index = place * options + index
        self.names = names
        self.prior = np.array(prior, np.float32)

    def _views(self, points, eye, hats, hat) -> np.ndarray:
        """Per site and probe (``points``): the hat it sees, CLEAR, NEAR (few of its
        points' rays meet a hat, more pass close by one) or MIXED. Each probe on its
        own: a probe near a hat's tip sees that hat past a neighbour that hides the same
        hat from the site's low probe."""
        flat = points.reshape(-1, 3)
        hits = _first_hat(flat, eye, hats, hat).reshape(points.shape[:3])
        near = _first_hat(flat, eye, hats, hat, BLEED_MM).reshape(points.shape[:3])
        shares = np.stack(
            [(near < 0).mean(axis=2), *((hits == j).mean(axis=2) for j in range(len(hats)))],
            axis=2,
        )
        seen = np.where(shares.max(axis=2) > CROWD_SHARE, shares.argmax(axis=2) - 1, self.MIXED)
        # a high probe over a spot without a hat may see anything past it
        near = (seen == self.MIXED) & ((hits >= 0).mean(axis=2) < NEAR_SHARE) & self.low
        return np.where(near, self.NEAR, seen)

    def read(
        self, rows: np.ndarray, cost: np.ndarray, names: list, limit: float, probes, slopes, shaded
    ):
        """Split one group's per-site costs (``rows`` sorted, ``cost`` over the
        readings ``names``, ``probes`` the same per probe) into (rows, cost, names,
        limit) of the single sites and of the fields (each on its centre row, a
        reading's name as ``observe`` joins it). ``slopes`` (sites, colours, probes) is
        what a probe seeing a hat's slope costs, ``shaded`` (sites, probes) what the
        board, perhaps in a hat's shadow, costs."""
        at = np.searchsorted(rows, self.rows)
        site = probes[at]  # (fields, sites, readings, probes)
        empty = site[:, :, names.index(None)]
        colour = np.moveaxis(site[:, :, [names.index(colour) for colour in self.colours]], 2, 3)
        slope = np.minimum(colour, np.moveaxis(slopes[at], 2, 3))
        colour = np.concatenate([colour, slope], axis=3)
        shaded = shaded[at]
        # a probe partly on a hat and partly on the board shows a blend of them; a clean
        # colour of no hat the reading holds there is unlikely, though how unlikely the
        # blend does not say
        by_colour = np.moveaxis(slope, 3, 0)
        held = np.stack([by_colour[holds].min(axis=0) for holds in self.holds], axis=3)
        blend = np.clip(np.minimum(held, shaded[..., None]), UNSEEN_COST * 0.5, BLEND_MOST)
        # the board, perhaps in the shadow of a hat here or on a neighbouring field; an
        # empty field's centre is far enough from its neighbours' hats to show no shadow
        clear = np.minimum(empty, shaded)
        # board with a nearby hat's colour bled into it: never a clean hat's colour
        near = np.minimum(clear, BLEND_MOST)
        options = np.concatenate([colour, clear[..., None], near[..., None], blend], axis=3)
        spread = options.ravel()[self.index].sum(axis=(2, 3))
        bare = empty[:, 0].sum(axis=1) + clear[:, 1:].sum(axis=(1, 2))
        field = np.concatenate([bare[:, None], spread], axis=1)
        single = ~np.isin(rows, self.rows)
        return [
            (rows[single], cost[single], names, limit),
            (self.rows[:, 0], field + self.prior, self.names, limit * self.rows.shape[1]),
        ]


def _first_hat(points: np.ndarray, eye: np.ndarray, hats: np.ndarray, hat, margin=0.0):
    """For each point (n, 3): the hat (of ``hats`` standing at (k, 2) mm, shaped as
    ``hat`` and ``margin`` mm wider) that the camera's ray through it meets first, -1
    for none."""
    heights = np.linspace(hat.height, 0.0, RAY_STEPS)
    reach = (eye[2] - heights[None]) / np.maximum(eye[2] - points[:, 2:3], 1e-6)
    xy = eye[:2] + reach[..., None] * (points[:, None, :2] - eye[:2])  # (n, heights, 2)
    radius = np.broadcast_to(hat.radius_at(heights), heights.shape) + margin
    distance = np.linalg.norm(xy[:, :, None] - hats[None, None], axis=3) / radius[:, None]
    inside = (distance <= 1).any(axis=2)
    first = inside.argmax(axis=1)
    nearest = distance[np.arange(len(points)), first].argmin(axis=1)
    return np.where(inside.any(axis=1), nearest, -1)


class Classifier:
    """Learned references for one pose: empty sites per probe, token colours.

    ``sight`` is the ``Sampler`` of the pose (its probes' points, the camera's centre
    and scale): with it a piece's colour is learned and predicted apart for probes
    that see its top and its side (without it, all as its top), and not from probes
    that see the rim between them."""

    def __init__(self, sites: list[Site], look: Look, centres: np.ndarray, sight=None):
        self.sites, self.look = sites, look
        self.centres = centres
        slots = np.array([s.slot is not None for s in sites])
        self.slotted = slots
        self.hyp_plain = hypotheses(look)
        self.hyp_slot = hypotheses(look, slot=True)
        #: the fields several hats may share (needs the probes' points and the camera)
        self.crowds = (
            Crowds(sites, look, sight.points, sight.eye)
            if sight is not None and any(s.spot is not None for s in sites)
            else None
        )
        #: per hypothesis list: (sites, hypotheses, probes) TOP, SIDE or EDGE, and the
        #: pieces each hypothesis stands on a site
        self.view: dict[int, np.ndarray] = {}
        self.stacks: dict[int, list[list]] = {}
        for hyps, slot in ((self.hyp_plain, False), (self.hyp_slot, True)):
            stacks = [stack for _, stack in _stacks(look, slot)]
            self.stacks[id(hyps)] = stacks
            self.view[id(hyps)] = (
                views(look, stacks, sites, sight)
                if sight is not None
                else np.full((len(sites), len(stacks), len(look.probes)), TOP, np.int8)
            )
        #: which probes the pieces standing on other sites hide from the camera
        self.hiding = None
        if sight is not None:
            xy = np.array([s.xy for s in sites])
            self.hiding = Hiding(sight, xy, [s.cell for s in sites])
        #: per token: (sites, probes) what each probe sees of it standing alone
        self.alone = {
            label: self.view[id(self.hyp_plain)][:, h]
            for h, (label, stack) in enumerate(_stacks(look, False))
            if len(stack) == 1
        }
        self.darkest = _darkest(look)
        self.linear = _linear(look)
        self.empty = np.ones((len(sites), len(look.probes), 3), np.float32)
        self.known = np.zeros(len(sites), bool)
        self.spread_empty = 0.12
        #: per token and channel (a probe through the TOP, then the same through the
        #: SIDE): mean log colour ratio, its spread, whether learned
        self.tokens: dict[str, np.ndarray] = {}
        self.spread: dict[str, np.ndarray] = {}
        self.learned: dict[str, np.ndarray] = {}
        #: the plain board points as first learned: the light the references are in
        self.paper: np.ndarray | None = None
        self._predicted: dict = {}
        self._levels: np.ndarray | None = None
        #: each site and its nearest neighbours in the frame
        distance = np.linalg.norm(centres[:, None] - centres[None], axis=2)
        self.near = np.argsort(distance, axis=1)[:, :NEIGHBOURS]
        #: sites the last frame showed something unknown on
        self.unexplained = 0
        #: per site the piece that stays there as last known ("" none, None unknown),
        #: and the pieces the last known position holds
        self.kept: list[str | None] = [None] * len(sites)
        self.present: set[str] = set()

    @property
    def ready(self) -> bool:
        return bool(self.known.any())

    # --- learning ----------------------------------------------------------------------

    def learn(
        self, features: np.ndarray, paper: np.ndarray, labels: list[str | None], fresh: bool
    ) -> None:
        """Take ``labels`` (per site) as the truth of ``features``: refresh the empty
        references and token colours (``fresh``: forget what was learned before).
        ``paper`` is the plain board seen in the same frame."""
        self._predicted.clear()
        self._levels = None
        if fresh or self.paper is None:
            self.paper = paper
        features = features / self._gain(paper)
        empty = np.array([label is None for label in labels])
        weight = 1.0 if fresh else REFRESH
        if fresh:
            self.known[:] = False
            self.kept = [None] * len(self.sites)
        self._remember(labels)
        # a probe a piece on another site hides shows that piece: nothing learned there
        hidden, beyond = self._hidden_by(labels)
        seen = ~(hidden | beyond)
        renew = (empty & self.known)[:, None] & seen
        self.empty[renew] = (1 - weight) * self.empty[renew] + weight * features[renew]
        self.empty[empty & ~self.known] = features[empty & ~self.known]
        self.known |= empty
        self._fill_unknown()
        if empty.any():
            self.spread_empty = _spread(np.log(features / self.empty)[empty[:, None] & seen])
        ratio = np.log(features / self._level())
        for token in {label for label in labels if label in self.look.pieces}:
            probes = self._own_probes(token)
            # only where the empty cell was seen does the ratio say what the piece adds
            rows = [i for i, label in enumerate(labels) if label == token and self.known[i]]
            if not probes or not rows:
                continue
            if token not in self.tokens or fresh:
                k = 2 * len(self.look.probes)
                self.tokens[token] = np.zeros((k, 3), np.float32)
                self.spread[token] = np.full(k, SPREAD_NOMINAL, np.float32)
                self.learned[token] = np.zeros(k, bool)
            # each probe and view on its own: a figure's top and its side are lit
            # differently
            rows = np.array(rows)
            for k in probes:
                shown = rows[~hidden[rows, k]]
                channels = self._channel(token, shown, k)
                # a probe on the rim shows neither the top nor the side
                for c in np.unique(channels[channels < 2 * len(self.look.probes)]):
                    self._learn_channel(token, c, ratio[shown[channels == c], k], weight)
        self._infer_empty(features, labels)
        self._levels = None  # the inferred empty looks change the levels

    def _remember(self, labels: list[str | None]) -> None:
        """Keep what stays where, and which pieces are on the board, from a known
        position (under a figure the piece that stays there is not seen: as before)."""
        pieces = self.look.pieces
        for i, label in enumerate(labels):
            if label is None:
                self.kept[i] = ""
            elif label in pieces and pieces[label].stays:
                self.kept[i] = label
        self.present = {label for label in labels if label in pieces}

    def _hidden_by(self, labels: list[str | None]) -> tuple[np.ndarray, np.ndarray]:
        """(sites, probes) twice: the probes the pieces ``labels`` name hide, and those
        that see one of them past the probe (``Hiding.hidden``)."""
        if self.hiding is None:
            none = np.zeros(self.empty.shape[:2], bool)
            return none, none
        pieces = self.look.pieces
        return self.hiding.hidden([[pieces[label]] if label in pieces else [] for label in labels])

    def _learn_channel(self, token: str, c: int, samples: np.ndarray, weight: float) -> None:
        mean = samples.mean(axis=0)
        # a spread from few samples says little: no tighter than the nominal shrunk
        spread = max(_spread(samples), min(SPREAD_FEW, SPREAD_NOMINAL / math.sqrt(len(samples))))
        if self.learned[token][c]:
            mean = (1 - weight) * self.tokens[token][c] + weight * mean
            spread = (1 - weight) * self.spread[token][c] + weight * spread
        self.tokens[token][c] = mean
        self.spread[token][c] = spread
        self.learned[token][c] = True

    def _channel(self, token: str, sites, probe: int):
        """The channel through which ``probe`` sees ``token`` alone on ``sites``."""
        return probe + len(self.look.probes) * self.alone[token][sites, probe].astype(int)

    def _level(self) -> np.ndarray:
        """(sites, 1, 3) what a piece's colour is compared with: the plain board under
        the light at each site, the brighter empty looks among it and its neighbours
        (a probe near a printed line or a coloured ring sees that, not the light)."""
        if self._levels is None:
            self._levels = np.percentile(self.empty[self.near, 0], 75, axis=1)[:, None]
        return self._levels

    def _infer_empty(self, features: np.ndarray, labels: list[str | None]) -> None:
        """A site never seen empty: what its piece looks like there, less what that
        piece adds to an empty cell, is the light on it (closer than a neighbour's)."""
        for i in np.flatnonzero(~self.known):
            token = labels[i]
            if (
                token in self.look.pieces
                and 0 in self._own_probes(token)
                and self.alone[token][i, 0] != EDGE
            ):
                mean = self._prototype(token, int(self._channel(token, i, 0)))[0]
                self.empty[i, 0] = features[i, 0] / np.exp(mean)

    def _own_probes(self, token: str) -> list[int]:
        """Probes that see ``token`` itself whatever lies under it."""
        seen = [s for label, s in self.hyp_plain if label == token]
        return [k for k in range(len(self.look.probes)) if all(s[k] == token for s in seen)]

    def _fill_unknown(self) -> None:
        """Sites never seen empty borrow the references of the nearest ones that were."""
        if not self.known.any() or self.known.all():
            return
        known = np.flatnonzero(self.known)
        for i in np.flatnonzero(~self.known):
            d = np.linalg.norm(self.centres[known] - self.centres[i], axis=1)
            nearest = known[np.argsort(d)[:3]]
            self.empty[i] = np.exp(np.log(self.empty[nearest]).mean(axis=0))

    def _prototype(self, token: str, channel: int) -> tuple[np.ndarray, float]:
        """What ``token`` adds to an empty cell through ``channel`` (mean log colour
        ratio) and its spread: as learned there, else as learned through its other
        probes with the same view, else as learned through the other view shaded
        like this one, else from its colour in looks.toml."""
        view = channel // len(self.look.probes)
        shade = math.log((TOP_SHADE, SIDE_SHADE)[view] / TOP_SHADE)
        if token in self.tokens:
            learned = self.learned[token]
            if learned[channel]:
                return self.tokens[token][channel], float(self.spread[token][channel])
            same = learned & (self._views() == view)
            if same.any():
                return self.tokens[token][same].mean(axis=0), SPREAD_NOMINAL
            if learned.any():
                return self._as_top(token) + shade, SPREAD_NOMINAL
        colour = self._log_colour(self.look.piece(token).colour) + math.log(TOP_SHADE)
        light = self._light()
        if light is not None:  # relative to colours already learned under this light
            return colour + light + shade, SPREAD_NOMINAL
        return colour - self._log_colour(self.look.surface) + shade, SPREAD_NOMINAL

    def _log_colour(self, rgb) -> np.ndarray:
        """Log linear colour (BGR) of an sRGB colour from looks.toml."""
        return np.log(self.linear[np.array(rgb[::-1])])

    def _views(self) -> np.ndarray:
        """The view (TOP or SIDE) of each channel."""
        return np.repeat([TOP, SIDE], len(self.look.probes))

    def _light(self) -> np.ndarray | None:
        """How learned token colours relate to their colours in looks.toml (mean log
        offset over the learned ones), None before any was learned; kept until the
        next learning."""
        if "light" not in self._predicted:
            anchors = [t for t in self.tokens if t in self.look.pieces and self.learned[t].any()]
            self._predicted["light"] = (
                np.mean(
                    [
                        self._as_top(t)
                        - (self._log_colour(self.look.piece(t).colour) + math.log(TOP_SHADE))
                        for t in anchors
                    ],
                    axis=0,
                )
                if anchors
                else None
            )
        return self._predicted["light"]

    def _as_top(self, token: str) -> np.ndarray:
        """A learned token's mean log colour ratio as its top would show it."""
        learned = self.learned[token]
        side = math.log(SIDE_SHADE / TOP_SHADE) * (self._views()[learned] == SIDE)
        return (self.tokens[token][learned] - side[:, None]).mean(axis=0)

    # --- reading -----------------------------------------------------------------------

    def classify(self, features: np.ndarray, paper: np.ndarray, visible: np.ndarray) -> Observation:
        """Name the piece on each site, and join sites into cells. Read once, then
        again without the probes the pieces read hide (a tree in front of a cell seen
        from low); the first reading says whether something unknown is in view."""
        f = features / self._gain(paper)
        board = np.log(f / self.empty)  # (S, K, 3)
        ratio = np.log(f / self._level())
        groups = []
        for group, hyps in ((~self.slotted, self.hyp_plain), (self.slotted, self.hyp_slot)):
            rows = np.flatnonzero(group)
            if not len(rows):
                continue
            crowd = None
            if hyps is self.hyp_plain and self.crowds is not None:
                # a field several hats may share is read from all its sites at once
                crowd = (
                    self._slopes(ratio[rows], self.crowds.colours),
                    self._shaded(rows, board[rows]),
                )
            probes = self._costs(rows, board[rows], ratio[rows], hyps)
            groups.append((rows, hyps, probes, crowd))
        parts, stacks, self.unexplained = self._read(groups)
        if self.hiding is not None:
            hidden, beyond = self.hiding.hidden(stacks)
            if hidden.any() or beyond.any():
                parts = self._read(groups, (hidden, beyond))[0]
        labels: list[str | None] = [None] * len(self.sites)
        probs: list[list[tuple[str | None, float]]] = [[] for _ in self.sites]
        for rows, cost, names, _ in parts:
            for i, ranked in zip(rows, _rank(cost, names)):
                labels[i] = ranked[0][0]
                probs[i] = ranked
        return self._cells(labels, probs, visible)

    def _read(self, groups, hiding=None):
        """Costs of every reading: (rows, costs, names, limit) of the single sites and
        of the crowded fields (each on its centre row); per site the pieces its best
        single reading stands there (none on a crowded field's spots); how many sites
        or fields show nothing known. ``groups``: (rows, hypotheses, per probe costs,
        a crowded field's slope and shade costs or None) of the plain and the slot
        sites. ``hiding``: (sites, probes) the probes a piece on another site hides,
        and those where an empty site's high probe shows one past it: they count as
        seeing anything."""
        parts: list[tuple] = []
        stacks: list[list] = [[] for _ in self.sites]
        unexplained = 0
        for rows, hyps, probes, crowd in groups:
            if hiding is not None:
                kinds = self._tables(hyps, rows)[2]
                hidden, beyond = hiding[0][rows][:, None], hiding[1][rows][:, None]
                unseen = hidden | (beyond & np.isin(kinds, (_BEYOND, _PAST)))
                probes = np.where(unseen, UNSEEN_COST * 0.5, probes)
            cost = probes.sum(axis=2) + self._tables(hyps, rows)[3] + self._moved(rows, hyps)
            if hyps is self.hyp_plain:
                cost = self._one_each(cost, hyps)
            for i, h in zip(rows, cost.argmin(axis=1)):
                if self.sites[i].spot is None:
                    stacks[i] = self.stacks[id(hyps)][h]
            names = [label for label, _ in hyps]
            part = (rows, cost, names, UNEXPLAINED_COST * len(self.look.probes))
            found = [part] if crowd is None else self.crowds.read(*part, probes, *crowd)
            for _, cost, _, limit in found:
                unexplained += int(np.count_nonzero(cost.min(axis=1) > limit))
            parts += found
        return parts, stacks, unexplained

    def _moved(self, rows, hyps) -> np.ndarray:
        """(sites, hypotheses): MOVED_COST where a hypothesis puts another piece that
        stays (or none) on a site than the last known position had there."""
        key = ("moved", id(hyps))
        if key not in self._predicted:
            stays = [
                next((p.token for p in stack if p.stays), "") for stack in self.stacks[id(hyps)]
            ]
            kept = np.array(self.kept, object)
            known = np.array([k is not None for k in self.kept])
            moved = (kept[:, None] != np.array(stays, object)[None]) & known[:, None]
            self._predicted[key] = np.where(moved, MOVED_COST, 0.0).astype(np.float32)
        return self._predicted[key][rows]

    def _one_each(self, cost: np.ndarray, hyps) -> np.ndarray:
        """``cost`` (sites, hypotheses) with each ``single`` piece the last known
        position holds read on the one site where it costs least over the best reading
        without a single piece (the pieces on distinct sites, chosen together); any
        other reading costs SINGLE_COST more there, and it costs that much more
        anywhere else (a single piece not on the board, everywhere)."""
        labels = np.array([label for label, _ in hyps], object)
        singles = [t for t, p in self.look.pieces.items() if p.single and t in labels]
        if not singles:
            return cost
        cost = cost.copy()
        playing = [t for t in singles if t in self.present]
        chosen: tuple = ()
        if playing:
            base = cost[:, ~np.isin(labels, singles)].min(axis=1)
            extra = np.array([cost[:, labels == t].min(axis=1) - base for t in playing])
            extra = np.minimum(extra, SINGLE_COST)
            # each piece's best few sites (should no way of putting them on distinct
            # sites be among them, two share one and the one read there wins it)
            candidates = np.argsort(extra, axis=1)[:, :SINGLE_CANDIDATES]
            ways = np.array(list(itertools.product(*candidates)))
            total = extra[np.arange(len(playing)), ways].sum(axis=1)
            distinct = (np.diff(np.sort(ways, axis=1), axis=1) != 0).all(axis=1)
            chosen = tuple(ways[np.argmin(np.where(distinct, total, np.inf))])
        for t in singles:
            cost[:, labels == t] += SINGLE_COST
        for t, i in zip(playing, chosen):
            cost[i, labels == t] -= SINGLE_COST
            cost[i, labels != t] += SINGLE_COST
        return cost

    def _slopes(self, ratio, tokens: list[str]) -> np.ndarray:
        """(sites, tokens, probes): what each probe costs if it shows ``tokens`` as a
        hat standing beside it, seen from outside. The camera's ray may meet that hat
        anywhere from its foot to its top face, so the probe may show it as any probe
        learned a hat's top or side: the cheapest of those counts (the front probe's
        own view of a side lies at the hat's foot, blurred with the board; from low,
        a probe behind a hat sees its top face, lit brighter than its slope)."""
        k = len(self.look.probes)
        if "slopes" not in self._predicted:
            found = [[self._prototype(token, c) for c in range(2 * k)] for token in tokens]
            means = np.array([[mean for mean, _ in row] for row in found], np.float32)
            spreads = np.array([[spread for _, spread in row] for row in found], np.float32)
            self._predicted["slopes"] = means, spreads
        means, spreads = self._predicted["slopes"]  # (tokens, looks, 3), (tokens, looks)
        d = (ratio[:, None, :, None] - means[None, :, None]) / spreads[None, :, None, :, None]
        return np.minimum((d * d).sum(axis=4).min(axis=3), COST_CAP)

    def _shaded(self, rows, board) -> np.ndarray:
        """Per site and probe: the cost of its empty look dimmed evenly, by no more
        than SHADOW (the board in a neighbouring hat's shadow)."""
        dim = np.clip(board.mean(axis=2, keepdims=True), SHADOW, 0.0)
        spread = np.where(self.known[rows], self.spread_empty, SPREAD_BORROWED)
        e = (board - dim) / spread[:, None, None]
        return np.minimum((e * e).sum(axis=2), COST_CAP)

    def _gain(self, paper: np.ndarray) -> np.ndarray:
        """The overall change of light since learning, from the plain board points
        (their median: a shadow or a highlight on a few does not count)."""
        if self.paper is None or not len(paper):
            return np.ones(3, np.float32)
        return np.median(paper / self.paper, axis=0)

    def _costs(self, rows, board, ratio, hyps) -> np.ndarray:
        """Cost (sites, hypotheses, probes): the squared distance, in spreads, of what
        a probe shows from what the hypothesis predicts there, capped."""
        means, spreads, kinds, _ = self._tables(hyps, rows)
        spread_empty = np.where(self.known[rows], self.spread_empty, SPREAD_BORROWED)
        d = (ratio[:, None] - means) / spreads[..., None]
        token = (d * d).sum(axis=3)  # (S, H, K)
        e = board / spread_empty[:, None, None]
        empty = (e * e).sum(axis=2)[:, None, :]  # (S, 1, K)
        beyond = np.minimum(empty, UNSEEN_COST * 2)
        per = np.select(
            [kinds == _TOKEN, kinds == _BOARD, kinds == _BEYOND, kinds == _PAST],
            [
                token,
                np.broadcast_to(empty, token.shape),
                np.broadcast_to(beyond, token.shape),
                np.minimum(token, beyond),
            ],
            UNSEEN_COST * 0.5,
        )
        dark = self.darkest
        if dark.any():
            # what lies beside a figure, at most SHADE_MOST as bright: any darker costs
            # nothing (a dark figure's side). A shadow dims every channel alike: judged
            # on their mean (three times its square: a sum over three channels' scale),
            # as the dark floor keeps a dark channel from dimming as much
            darker = np.maximum(d[:, :, dark].mean(axis=3) - SHADE_MOST / spreads[:, :, dark], 0)
            dimmed = np.maximum(e[:, dark].mean(axis=2) - SHADE_MOST / spread_empty[:, None], 0)
            on_token = np.minimum(3 * darker * darker, SHADE_CAP)
            on_board = np.minimum(3 * dimmed * dimmed, SHADE_CAP)[:, None, :]
            per[:, :, dark] = np.select(
                [kinds[:, :, dark] == _SHADED_TOKEN, kinds[:, :, dark] == _SHADED_BOARD],
                [on_token, np.broadcast_to(on_board, on_token.shape)],
                per[:, :, dark],
            )
        return np.minimum(per, COST_CAP)

    def _tables(self, hyps, rows):
        """Per site of ``rows``, hypothesis and probe: predicted mean and spread (by
        what the probe sees of the piece there, its top or its side) and what is seen
        (kept until the next learning); per hypothesis its prior cost."""
        if id(hyps) in self._predicted:
            return self._predicted[id(hyps)]
        k = len(self.look.probes)
        means = np.zeros((len(hyps), 2 * k, 3), np.float32)
        spreads = np.ones((len(hyps), 2 * k), np.float32)
        kinds = np.full((len(hyps), k), _ANY)
        # a figure on a disk is rarer than a bare disk: when both fit, the disk; a
        # piece with ``odds`` in looks.toml is rarer than an empty cell
        pieces = self.look.pieces
        prior = np.array(
            [
                STACK_COST
                * any(getattr(w, "lies", w) not in (label, BOARD, ANY, BEYOND) for w in seen)
                - 2 * math.log(pieces[label].odds if label in pieces else 1.0)
                for label, seen in hyps
            ],
            np.float32,
        )
        known: dict[tuple[str, int], tuple[np.ndarray, float]] = {}
        for h, (_, seen) in enumerate(hyps):
            for p, what in enumerate(seen):
                shaded, past = isinstance(what, Shaded), isinstance(what, Past)
                what = getattr(what, "lies", what)
                if what == BOARD:
                    kinds[h, p] = _SHADED_BOARD if shaded else _BOARD
                elif what == BEYOND:
                    kinds[h, p] = _BEYOND
                elif what != ANY:  # a token
                    kinds[h, p] = _SHADED_TOKEN if shaded else _PAST if past else _TOKEN
                    for c in (p, p + k):
                        if (what, c) not in known:
                            known[what, c] = self._prototype(what, c)
                        means[h, c], spreads[h, c] = known[what, c]
        view = self.view[id(hyps)][rows]  # (S, H, K)
        channel = np.arange(k) + k * np.minimum(view, SIDE).astype(int)
        h = np.arange(len(hyps))[None, :, None]
        # a probe on a piece's rim sees a blend of its top and side: anything
        kinds = np.where(view == EDGE, _ANY, kinds[None])
        self._predicted[id(hyps)] = means[h, channel], spreads[h, channel], kinds, prior
        return self._predicted[id(hyps)]

    def _cells(self, labels, probs, visible) -> Observation:
        tokens: dict[str, str | None] = {}
        confidence: dict[str, float] = {}
        ranked: dict[str, tuple] = {}
        for site, label, rank, seen in zip(self.sites, labels, probs, visible):
            if site.spot is not None:  # read with its field's centre
                continue
            conf = rank[0][1] if seen else 0.0
            if site.slot is None:
                tokens[site.cell] = label
                confidence[site.cell] = conf
                ranked[site.cell] = tuple(rank)
                continue
            parts = looks.split(tokens.get(site.cell))
            if label is not None:
                parts.append(label)
            tokens[site.cell] = JOIN.join(sorted(parts)) or None
            confidence[site.cell] = min(confidence.get(site.cell, 1.0), conf)
            ranked[site.cell] = ((tokens[site.cell], confidence[site.cell]),)
        return Observation(tokens, confidence, ranked)


def _spread(samples: np.ndarray) -> float:
    """A log-colour spread from samples (n, 3): twice their per-channel deviation,
    within bounds (few samples say little about the spread)."""
    deviation = float(np.sqrt(samples.var(axis=0).mean())) if len(samples) > 1 else 0.0
    return float(np.clip(2 * deviation + 0.03, SPREAD_MIN, SPREAD_MAX))


def _rank(cost: np.ndarray, labels: list) -> list[list[tuple[str | None, float]]]:
    """Per site (rows of ``cost``), its best RANKED labels by probability (a label's
    best hypothesis), most likely first."""
    names = list(dict.fromkeys(labels))
    member = np.zeros((len(labels), len(names)), np.float32)
    member[np.arange(len(labels)), [names.index(label) for label in labels]] = 1.0
    p = np.exp(-0.5 * (cost - cost.min(axis=1, keepdims=True)))
    best = (p[:, :, None] * member[None]).max(axis=1)
    best /= best.sum(axis=1, keepdims=True)
    order = np.argsort(-best, axis=1)[:, :RANKED]
    return [[(names[j], float(best[n, j])) for j in row] for n, row in enumerate(order)]
