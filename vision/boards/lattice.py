"""Where a board whose cells lie on a lattice (Sternhalma's star of holes, a grid of
points) is in a frame, found by its cells' own dark marks rather than by its paper's
edge: the marks are found as dark spots, grown from spot to neighbouring spot into a
lattice seen in perspective, and that lattice lined up with the board's cells every
way the lattice allows.

A paper hardly lighter than the table, or a table streaked by a window's light, hides
the printed board's outline; the marks, dark and round on the paper, still show.

Only proposes poses, each with its cells matched: which one is the board, which way
round and whether it is trusted is decided by ``vision.boards.pattern``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import product

import cv2
import numpy as np

from vision.lens import Lens
from vision.locate import camera_above

#: the spots are looked for at these radii (px): a mark from far off to close by
SPOT_RADII = (2.0, 3.0, 4.5, 6.5)
#: a spot is this much darker than the ring round it (share of the ring's grey), at least
SPOT_CONTRAST = 0.08
#: the lattice is grown over the spots at least this share as dark as the median of
#: the strongest ones (a board's marks): the star's lines leave fainter spots between
STRONG_SHARE = 0.5
STRONGEST = 60
#: spots further apart than this (px), and than this many times the stronger one's
#: radius, are two
SPOT_APART_PX = 3.0
SPOT_APART = 1.5
#: the strongest spots kept: a board's marks are among them, the table's grain and
#: the sensor's noise mostly not
SPOTS_KEPT = 1200
#: a spot is where the lattice puts a mark when it lies within this share of the
#: lattice's step there
ON_LATTICE = 0.25
#: lattices grown, each from a spot with its neighbours round it, until one reaches
#: this share of the board's cells
SEEDS_TRIED = 24
GROWN_ENOUGH = 0.5
#: a seed's neighbours must be found where this share of the lattice's neighbour
#: steps put them
SEED_NEIGHBOURS = 0.8
#: ... its steps at most this many times the shortest (perspective stretches them)
SEED_STEPS = 1.3
#: cells' coordinates in a board's lattice are whole numbers within this
WHOLE = 0.02
#: a lattice grown over more spots than the board has cells times this is the table's
#: grain, not the board
MOST_GROWN = 1.3
#: ways of lining the lattice up with the board kept: those matching at least this
#: share of the best one's spots on empty cells, and this share of the empty cells ...
NEAR_BEST = 0.8
LEAST_EMPTY = 0.5
#: ... with at most this many of the spots grown into the lattice beside the board's
#: cells ...
MOST_OUTSIDE = 2
#: ... and spots at no more than this share of the places one lattice step beyond
#: the board's outer cells (a way one step off puts some of those places on the
#: board's own outer cells) ...
MOST_BEYOND = 0.1
#: ... whose pose puts the spots within this share of a step of where they are seen
#: (RMS): a mirrored way fits no pose; spots further off than this many times the
#: median (and than POSE_FIT) are left out of the fit, and POSE_KEPT of them must stay
POSE_FIT = 0.1
OFF_MEDIANS = 3.0
POSE_KEPT = 0.5


@dataclass(frozen=True)
class Alignment:
    """A way the lattice seen lines up with the board: its cells (indices into the
    board's cells) and where their spots are (undistorted frame px), the pose they
    give, and the share of the places one lattice step beyond the board's outer
    cells where it puts a spot."""

    cells: np.ndarray
    seen: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    beyond: float


@dataclass(frozen=True)
class Lattice:
    """A board's cells as a lattice: its two steps (mm, columns), the first cell (mm)
    and every cell's whole-number coordinates, the steps from a cell to its
    neighbours, the maps that turn or mirror it onto itself, and the places one step
    beyond its outer cells (mm)."""

    basis: np.ndarray
    origin: np.ndarray
    coords: np.ndarray
    steps: np.ndarray
    turns: tuple[np.ndarray, ...]
    beyond: np.ndarray

    def cells_at(self, coords: np.ndarray) -> np.ndarray:
        """The index of the cell at each of ``coords``, -1 where none is."""
        low = self.coords.min(axis=0)
        grid = np.full(tuple(self.coords.max(axis=0) - low + 1), -1)
        grid[tuple((self.coords - low).T)] = np.arange(len(self.coords))
        at = coords - low
        inside = np.all((at >= 0) & (at < grid.shape), axis=1)
        found = np.full(len(coords), -1)
        found[inside] = grid[tuple(at[inside].T)]
        return found


_LATTICES: dict[str, Lattice | None] = {}


def board_lattice(board) -> Lattice | None:
    """``board``'s lattice, or None if its cells lie on no lattice of their nearest
    spacing."""
    if board.name not in _LATTICES:
        _LATTICES[board.name] = _lattice_of(np.array([c.xy for c in board.cells], float))
    return _LATTICES[board.name]


def _lattice_of(pts: np.ndarray) -> Lattice | None:
    if len(pts) < 4:
        return None
    apart = pts[:, None] - pts[None]
    dist = np.linalg.norm(apart, axis=2)
    np.fill_diagonal(dist, np.inf)
    step = dist.min()
    near = apart[np.abs(dist - step) < WHOLE * step]
    angles = np.arctan2(near[:, 1], near[:, 0])
    first = near[np.argmin(np.abs(angles))]
    across = [v for v in near if abs(first[0] * v[1] - first[1] * v[0]) > 0.1 * step**2]
    if not across:
        return None
    second = min(across, key=lambda v: np.arctan2(first[0] * v[1] - first[1] * v[0], first @ v))
    basis = np.c_[first, second]
    coords = np.linalg.solve(basis, (pts - pts[0]).T).T
    whole = np.round(coords)
    if np.abs(coords - whole).max() > WHOLE:
        return None
    steps = np.unique(np.round(np.linalg.solve(basis, near.T).T), axis=0).astype(int)
    cells = whole.astype(int)
    taken = {tuple(c) for c in cells.tolist()}
    out = {(c[0] + s[0], c[1] + s[1]) for c in cells.tolist() for s in steps.tolist()} - taken
    beyond = pts[0] + np.array(sorted(out), float).reshape(-1, 2) @ basis.T
    return Lattice(basis, pts[0], cells, steps, tuple(symmetries(basis)), beyond)


def symmetries(basis: np.ndarray) -> list[np.ndarray]:
    """The whole-number maps of lattice coordinates that turn or mirror the lattice
    onto itself (its steps keep their lengths and angles)."""
    inverse = np.linalg.inv(basis)
    found = []
    for entries in product((-1, 0, 1), repeat=4):
        m = np.array(entries, float).reshape(2, 2)
        if abs(abs(np.linalg.det(m)) - 1) > 1e-9:
            continue
        turn = basis @ m @ inverse
        if np.allclose(turn.T @ turn, np.eye(2), atol=WHOLE):
            found.append(m.astype(int))
    return found


def spots(grey: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dark round spots in ``grey``: their centres (frame px) and how much darker than
    their surround they are, strongest first."""
    smooth = cv2.GaussianBlur(grey, (5, 5), 1.2).astype(np.float32)
    half = cv2.pyrDown(smooth)
    found = []
    for radius in SPOT_RADII:
        # the larger spots are looked for in a copy half as wide: as well, and cheaper
        scale = 2 if radius > 2 * SPOT_RADII[0] else 1
        image = half if scale == 2 else smooth
        around = cv2.GaussianBlur(image, (0, 0), radius * 1.8 / scale)
        inner = cv2.GaussianBlur(image, (0, 0), radius * 0.6 / scale)
        dip = (around - inner) / np.maximum(around, 1.0)
        peak = (cv2.dilate(dip, np.ones((3, 3), np.uint8)) == dip) & (dip > SPOT_CONTRAST)
        ys, xs = np.nonzero(peak)
        found.append(np.c_[xs * scale, ys * scale, dip[ys, xs], np.full(len(xs), radius)])
    every = np.concatenate(found)
    every = every[np.argsort(-every[:, 2], kind="stable")]
    # the strongest spot in each square SPOT_APART_PX wide, then of those closer
    # than SPOT_APART radii the strongest
    square = np.floor(every[:, :2] / SPOT_APART_PX).astype(np.int64)
    _, first = np.unique(square[:, 0] * 100_000 + square[:, 1], return_index=True)
    every = every[np.sort(first)[:SPOTS_KEPT]]
    reach = np.maximum(SPOT_APART_PX, SPOT_APART * every[:, 3])
    close = np.linalg.norm(every[:, None, :2] - every[None, :, :2], axis=2) < reach[:, None]
    weaker = np.zeros(len(every), bool)
    for n in range(len(every)):
        if not weaker[n]:
            weaker[n + 1 :] |= close[n, n + 1 :]
    return every[~weaker, :2].astype(np.float64), every[~weaker, 2]


def _mapped(h: np.ndarray, coords: np.ndarray) -> np.ndarray:
    pts = np.c_[coords, np.ones(len(coords))] @ h.T
    return pts[:, :2] / pts[:, 2:3]


def _nearest(points: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    d = np.linalg.norm(at[:, None] - points[None], axis=2)
    best = d.argmin(axis=1)
    return best, d[np.arange(len(at)), best]


def grow(points: np.ndarray, seed: int, steps: np.ndarray, most: int) -> dict | None:
    """The lattice grown from spot ``seed`` over ``points`` (undistorted px): lattice
    coordinates -> spot index; None if the seed's neighbours do not look like the
    lattice's (``steps`` from a cell to its neighbours)."""
    apart = np.linalg.norm(points - points[seed], axis=1)
    near = np.argsort(apart)[1:9]
    # the steps are the shortest: a lattice of every other mark fits as well
    near = near[apart[near] <= SEED_STEPS * apart[near[0]]]
    best = None
    for a, b in product(near, near):
        u, v = points[a] - points[seed], points[b] - points[seed]
        if abs(u[0] * v[1] - u[1] * v[0]) < 0.2 * (u @ u):
            continue
        at = points[seed] + steps @ np.c_[u, v].T
        if np.linalg.norm(at - points[seed], axis=1).max() > SEED_STEPS * apart[near[0]]:
            continue  # steps of another shape of lattice
        index, dist = _nearest(points, at)
        hit = dist < ON_LATTICE * np.linalg.norm(u)
        if best is None or hit.sum() > best[0]:
            best = (int(hit.sum()), {tuple(s): int(i) for s, i, h in zip(steps, index, hit) if h})
    if best is None or best[0] < SEED_NEIGHBOURS * len(steps):
        return None
    grown = {(0, 0): seed, **best[1]}
    tried: set = set(grown)
    while len(grown) <= most:
        coords = np.array(list(grown), float)
        # least median of squares: a spot of the table taken early must not bend it
        robust = cv2.LMEDS if len(grown) > 2 * len(steps) else 0
        h, _ = cv2.findHomography(coords, points[list(grown.values())], robust)
        if h is None:
            return None
        fringe = {(c[0] + s[0], c[1] + s[1]) for c in grown for s in steps.tolist()} - tried
        if not fringe:
            break
        tried |= fringe
        ahead = np.array(sorted(fringe), float)
        at = _mapped(h, ahead)
        pitch = np.linalg.norm(_mapped(h, ahead + [1.0, 0.0]) - at, axis=1)
        index, dist = _nearest(points, at)
        used = set(grown.values())
        added = 0
        for c, i, d, p in zip(ahead, index, dist, pitch):
            if d < ON_LATTICE * p and int(i) not in used:
                grown[(int(c[0]), int(c[1]))] = int(i)
                used.add(int(i))
                added += 1
        if not added:
            break
    return grown


def alignments(frame, lens: Lens, board, empty: np.ndarray) -> list[Alignment]:
    """Ways the dark marks' lattice seen in ``frame`` lines up with ``board``'s cells,
    with at most MOST_OUTSIDE of its spots beside them and about as many on the
    ``empty`` cells (a mask over the board's cells) as the best one, best first; []
    if the board's cells lie on no lattice or none is seen."""
    lattice = board_lattice(board)
    if lattice is None:
        return []
    grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    found, strength = spots(grey)
    strong = strength >= STRONG_SHARE * np.median(strength[:STRONGEST])
    found, strength = found[strong], strength[strong]
    if len(found) < len(lattice.steps) + 1:
        return []
    # grown from the spots as dark as most are first: the board's marks are the most
    # spots alike, pieces leave darker and fainter ones beside them
    found = found[np.argsort(np.abs(strength - np.median(strength)), kind="stable")]
    flat = cv2.undistortPoints(found.reshape(-1, 1, 2), lens.matrix, lens.dist, P=lens.matrix)
    flat = flat.reshape(-1, 2)
    grown = _grown(flat, lattice)
    if len(grown) < len(lattice.steps) + 1:
        return []
    coords = np.array(list(grown), int)
    seen = flat[list(grown.values())]
    scored = []
    for turn in lattice.turns:
        turned = coords @ turn.T
        for shift in _shifts(lattice.coords, turned, len(coords) - MOST_OUTSIDE):
            at = lattice.cells_at(turned + shift)
            on = at >= 0
            scored.append((int(empty[at[on]].sum()), at[on], seen[on]))
    best = max((s[0] for s in scored), default=0)
    ways: list[Alignment] = []
    for on_empty, matched, where in sorted(scored, key=lambda s: -s[0]):
        if on_empty < max(NEAR_BEST * best, LEAST_EMPTY * empty.sum(), 4):
            continue
        way = _posed(lattice, matched, where, lens)
        if way is None or any(_same_pose(way, w, lens, lattice) for w in ways):
            continue
        way = replace(way, beyond=_marked(flat, lattice, lens, way.rvec, way.tvec))
        if way.beyond <= MOST_BEYOND:
            ways.append(way)
    return ways


def _same_pose(a: Alignment, b: Alignment, lens: Lens, lattice: Lattice) -> bool:
    """Whether two alignments put the board's cells within a pixel of each other (a
    board the same when mirrored is lined up twice)."""
    board = np.c_[lattice.origin + lattice.coords @ lattice.basis.T, np.zeros(len(lattice.coords))]
    apart = _flat_project(board, a.rvec, a.tvec, lens) - _flat_project(board, b.rvec, b.tvec, lens)
    return bool(np.abs(apart).max() < 1.0)


def _shifts(cells: np.ndarray, coords: np.ndarray, least: int) -> np.ndarray:
    """The shifts (lattice coordinates) that put at least ``least`` of ``coords`` on
    ``cells``: every cell less every coordinate, counted."""
    apart = (cells[None] - coords[:, None]).reshape(-1, 2)
    low = apart.min(axis=0)
    span = int(apart[:, 1].max() - low[1]) + 1
    code = (apart[:, 0] - low[0]) * span + (apart[:, 1] - low[1])
    votes = np.bincount(code)
    often = np.flatnonzero(votes >= least)
    return np.c_[often // span + low[0], often % span + low[1]]


def _grown(flat: np.ndarray, lattice: Lattice) -> dict:
    """The largest lattice grown from the first spots (up to SEEDS_TRIED, until one
    covers GROWN_ENOUGH of the board); {} if none."""
    most = int(MOST_GROWN * len(lattice.coords))
    grown: dict = {}
    for seed in range(min(SEEDS_TRIED, len(flat))):
        tried = grow(flat, seed, lattice.steps, most)
        if tried is not None and len(grown) < len(tried) <= most:
            grown = tried
        if len(grown) >= GROWN_ENOUGH * len(lattice.coords):
            break
    return grown


def _posed(lattice: Lattice, matched: np.ndarray, where: np.ndarray, lens: Lens):
    """The alignment of the board's cells ``matched`` with the spots ``where``
    (undistorted px): None unless a pose from above puts most of them (POSE_KEPT:
    pieces leave their spots a little off their holes) within POSE_FIT of a step of
    where they are seen."""
    board = lattice.origin + lattice.coords[matched] @ lattice.basis.T
    obj = np.c_[board, np.zeros(len(board))]
    kept = np.ones(len(obj), bool)
    for _ in range(2):  # fitted to all, then again without the spots it leaves far off
        ok, rvec, tvec = cv2.solvePnP(
            obj[kept], where[kept].reshape(-1, 1, 2), lens.matrix, None, flags=cv2.SOLVEPNP_IPPE
        )
        if not ok or not camera_above(rvec, tvec):
            return None
        back = _flat_project(obj, rvec, tvec, lens)
        ahead = _flat_project(obj + [*lattice.basis[:, 0], 0.0], rvec, tvec, lens)
        step = float(np.median(np.linalg.norm(ahead - back, axis=1)))
        off = np.linalg.norm(back - where, axis=1)
        kept = off <= max(OFF_MEDIANS * float(np.median(off)), POSE_FIT * step)
        if kept.sum() < max(POSE_KEPT * len(obj), 4):
            return None
    misfit = np.sqrt(np.mean(np.sum((back - where)[kept] ** 2, axis=1)))
    if misfit > POSE_FIT * step:
        return None
    return Alignment(matched[kept], where[kept], rvec, tvec, 0.0)


def _flat_project(points: np.ndarray, rvec, tvec, lens: Lens) -> np.ndarray:
    """Board points (mm, z = 0) in undistorted frame px."""
    at, _ = cv2.projectPoints(points, rvec, tvec, lens.matrix, None)
    return at.reshape(-1, 2)


def _marked(flat: np.ndarray, lattice: Lattice, lens: Lens, rvec, tvec) -> float:
    """The share of the places one step beyond the board's outer cells where the pose
    puts one of the spots ``flat`` (undistorted px), within ON_LATTICE of a step."""
    places = lattice.beyond
    if not len(places):
        return 0.0
    at = _flat_project(np.c_[places, np.zeros(len(places))], rvec, tvec, lens)
    ahead = places + lattice.basis[:, 0]
    step = np.linalg.norm(
        _flat_project(np.c_[ahead, np.zeros(len(places))], rvec, tvec, lens) - at, axis=1
    )
    _, dist = _nearest(flat, at)
    return float(np.mean(dist < ON_LATTICE * step))
