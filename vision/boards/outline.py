"""Where the printed board's edge may be in a frame: four-cornered outlines that may
be the paper's, found two ways apart. Bright regions (the paper is lighter than a
wooden or dark table) serve where the table is evenly lit; straight edges serve
where a window's light or a lamp's glare on the table merges with the paper, since a
table's grain and its streaks of light are never long and straight.

Only proposes outlines: which one is the board, and which way round, is decided by
``vision.boards.pattern`` against the board's own marks.
"""

from __future__ import annotations

from itertools import combinations

import cv2
import numpy as np

from vision.lens import Lens

#: the outline is looked for in a copy of the frame this wide (px): enough for four
#: corners a few pixels off, which the marks then true up
OUTLINE_WIDTH = 640
#: the outline must cover at least this share of the frame
LEAST_OUTLINE = 0.05
#: brightness levels (0-255) above the frame's own split of dark and light at which
#: the board's outline is looked for: a table with bright streaks or a window's
#: light on it merges with the paper at the lower ones
OUTLINE_LEVELS = range(0, 100, 8)
#: a bright region is the board's outline when its area is within this share of
#: the quadrilateral through its four corners
QUAD_FIT = 0.05
#: a side's line is fitted to the outline's points between this share of its length
#: from either corner ...
SIDE_MIDDLE = 0.15
#: ... and within this (px) of the side
SIDE_REACH_PX = 6.0
#: outlines whose corners lie this close (px) are one
SAME_OUTLINE_PX = 8.0
#: bright regions proposed, largest first
OUTLINES_TRIED = 3
#: straight edges' outlines proposed, best borne out first (a table's own edge and
#: the paper's sides drawn on to it make a larger one), then largest: most are not
#: the board's shape, which costs little to tell
EDGE_OUTLINES = 12
#: edges are looked for in the copy blurred this much (px across): the paper's grain
#: and the sensor's noise are no edges
EDGE_BLUR = 5
#: Canny's thresholds on the copy's colour channels
EDGE_LOW, EDGE_HIGH = 40, 120
#: a straight stretch of edge is this long at least (share of the copy's width) ...
LEAST_STRETCH = 0.06
#: ... with gaps of at most this (px, in the copy)
STRETCH_GAP = 3
#: stretches this close in direction (degrees) and this near (px, in the frame) lie
#: on one line
SAME_LINE_DEGREES = 1.5
SAME_LINE_PX = 4.0
#: the longest lines (by their stretches' length) that outlines are built from
LINES_KEPT = 14
#: an outline's side must be this much covered by its line's stretches (the part of
#: it in the frame: glare on the table hides stretches of the paper's edge), and its
#: corners turn by at least this much (degrees)
SIDE_BORNE = 0.25
LEAST_CORNER_DEGREES = 30.0


def outlines(frame, lens: Lens) -> list[np.ndarray]:
    """Outlines that may be the printed board's (undistorted frame px): the bright
    regions' first, then the straight edges' not already among them."""
    found = bright_outlines(frame, lens)
    for quad in edge_outlines(frame, lens):
        if not any(_same(quad, q) for q in found):
            found.append(quad)
    return found


def bright_outlines(frame, lens: Lens) -> list[np.ndarray]:
    """Four-cornered bright regions of ``frame`` that may be the printed board, in
    undistorted frame px, largest first: the paper is lighter in every colour than
    a wooden or dark table, so the frame's darkest channel is split at several levels."""
    light = frame if frame.ndim == 2 else frame.min(axis=2)
    h, w = light.shape
    scale = OUTLINE_WIDTH / w
    small = cv2.GaussianBlur(cv2.resize(light, (OUTLINE_WIDTH, int(h * scale))), (5, 5), 0)
    split, _ = cv2.threshold(small, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    found: list[tuple[float, np.ndarray]] = []
    for level in OUTLINE_LEVELS:
        if split + level >= 255:
            break
        above = (small > split + level).astype(np.uint8) * 255
        bright = cv2.morphologyEx(above, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
        contours, _ = cv2.findContours(bright, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        for outline in contours:
            if cv2.contourArea(outline) < LEAST_OUTLINE * small.size:
                continue
            quad = _quadrilateral(outline, small.shape, scale, lens)
            if quad is not None and not any(_same(quad, q) for _, q in found):
                found.append((cv2.contourArea(outline), quad))
    return [q for _, q in sorted(found, key=lambda f: -f[0])[:OUTLINES_TRIED]]


def _quadrilateral(outline, shape, scale: float, lens: Lens) -> np.ndarray | None:
    """The four corners (undistorted frame px) of a bright region's ``outline`` (in
    the copy of ``shape``, ``scale`` of the frame), or None unless it is about as
    large as the quadrilateral through them (QUAD_FIT): where straight lines through
    the middles of its four sides meet, as the blur rounds the corners off."""
    points = outline.reshape(-1, 1, 2).astype(np.float64)
    # the frame's edge, where it cuts the paper, is no side of the board
    sides = ~np.any((points < 2) | (points > np.array(shape[::-1]) - 3), axis=2).ravel()
    flat = cv2.undistortPoints(points / scale, lens.matrix, lens.dist, P=lens.matrix)
    flat = flat.astype(np.float32)
    hull = cv2.convexHull(flat)
    perimeter = cv2.arcLength(hull, True)
    for share in (0.01, 0.02, 0.03, 0.05):
        quad = cv2.approxPolyDP(hull, share * perimeter, True)
        if len(quad) == 4:
            quad = _straightened(quad.reshape(4, 2).astype(np.float64), flat.reshape(-1, 2)[sides])
            area = cv2.contourArea(outline) / scale**2
            if abs(area / cv2.contourArea(quad.astype(np.float32)) - 1) <= QUAD_FIT:
                return quad
            return None
    return None


def _same(quad: np.ndarray, other: np.ndarray) -> bool:
    """Whether two outlines' corners lie within SAME_OUTLINE_PX of each other."""
    return bool(
        np.linalg.norm(quad[:, None] - other[None], axis=2).min(axis=1).max() < SAME_OUTLINE_PX
    )


def _cross2(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The z part of the cross product of 2-vectors (rows of) ``a`` and ``b`` (NumPy
    2 no longer takes 2-vectors in ``np.cross``)."""
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def _straightened(quad: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``quad``'s corners moved to where lines fitted to the ``points`` along the
    middle of each side meet; a corner stays where it was if a side has too few."""
    lines = []
    for a, b in zip(quad, np.roll(quad, -1, 0)):
        along = b - a
        length = np.linalg.norm(along)
        t = (points - a) @ along / length**2
        apart = np.abs(_cross2(along, points - a)) / length
        side = points[(t > SIDE_MIDDLE) & (t < 1 - SIDE_MIDDLE) & (apart < SIDE_REACH_PX)]
        if len(side) < 2:
            return quad
        vx, vy, x, y = cv2.fitLine(side.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append(np.cross([x, y, 1.0], [x + vx, y + vy, 1.0]))
    corners = [np.cross(lines[k - 1], lines[k]) for k in range(4)]
    if any(abs(c[2]) < 1e-9 for c in corners):
        return quad
    return np.array([c[:2] / c[2] for c in corners])


def edge_outlines(frame, lens: Lens) -> list[np.ndarray]:
    """Four-cornered outlines whose sides lie along long straight edges of ``frame``,
    in undistorted frame px, best borne out (``SIDE_BORNE``) and largest first."""
    h, w = frame.shape[:2]
    scale = OUTLINE_WIDTH / w
    small = cv2.resize(frame, (OUTLINE_WIDTH, int(h * scale)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (EDGE_BLUR, EDGE_BLUR), 0)
    channels = [small] if small.ndim == 2 else cv2.split(small)
    edges = np.bitwise_or.reduce([cv2.Canny(c, EDGE_LOW, EDGE_HIGH) for c in channels])
    stretches = cv2.HoughLinesP(
        edges,
        1,
        np.pi / 360,
        30,
        minLineLength=LEAST_STRETCH * OUTLINE_WIDTH,
        maxLineGap=STRETCH_GAP,
    )
    if stretches is None:
        return []
    ends = stretches.reshape(-1, 2, 2).astype(np.float64) / scale
    flat = cv2.undistortPoints(ends.reshape(-1, 1, 2), lens.matrix, lens.dist, P=lens.matrix)
    lines = _lines(flat.reshape(-1, 2, 2))
    frame_box = np.array([w, h], float)
    found: list[tuple[float, float, np.ndarray]] = []
    for borne, quad in _quads(lines, frame_box):
        area = cv2.contourArea(quad.astype(np.float32))
        if area >= LEAST_OUTLINE * w * h and not any(_same(quad, q) for *_, q in found):
            found.append((-round(borne, 1), -area, quad))
    found.sort(key=lambda f: f[:2])
    return [q for *_, q in found[:EDGE_OUTLINES]]


def _lines(ends: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Stretches (pairs of end points) gathered into lines, longest first: per line a
    point on it, its unit direction and its stretches' spans along it."""
    lengths = np.linalg.norm(ends[:, 1] - ends[:, 0], axis=1)
    lines: list[list] = []
    for n in np.argsort(-lengths):
        a, b = ends[n]
        along = (b - a) / lengths[n]
        for line in lines:
            origin, direction, spans = line
            normal = np.array([-direction[1], direction[0]])
            turn = np.degrees(np.arccos(min(1.0, abs(float(direction @ along)))))
            if (
                turn < SAME_LINE_DEGREES
                and max(abs((a - origin) @ normal), abs((b - origin) @ normal)) < SAME_LINE_PX
            ):
                spans.append(sorted(((a - origin) @ direction, (b - origin) @ direction)))
                break
        else:
            lines.append([a, along, [[0.0, float(lengths[n])]]])
    covered = [sum(e - s for s, e in spans) for _, _, spans in lines]
    order = np.argsort(covered)[::-1][:LINES_KEPT]
    return [(lines[k][0], lines[k][1], np.array(lines[k][2])) for k in order]


def _quads(lines, frame_box: np.ndarray):
    """Quadrilaterals of four of ``lines``, two pairs of opposite sides, with how well
    every side is borne out by its line's stretches where it is in the frame
    (``_borne``), for those borne out well enough."""
    count = len(lines)
    homogeneous = np.array([np.cross([*o, 1.0], [*(o + d), 1.0]) for o, d, _ in lines])
    meet = np.cross(homogeneous[:, None], homogeneous[None])  # every two lines' crossing
    parallel = np.abs(meet[..., 2]) < 1e-9
    meet = meet[..., :2] / np.where(parallel, 1.0, meet[..., 2])[..., None]
    sides = np.array(
        [
            order
            for a, b, c, d in combinations(range(count), 4)
            for order in ((a, c, b, d), (a, b, c, d), (a, b, d, c))
        ],
        dtype=int,
    ).reshape(-1, 4)
    before = np.roll(sides, 1, axis=1)  # corner k lies between sides k-1 and k
    quads = meet[before, sides]
    inside = np.all((quads >= 0) & (quads <= frame_box), axis=2).sum(axis=1)
    # the board is trusted only with three of its corners in the frame
    for n in np.flatnonzero(~parallel[before, sides].any(axis=1) & (inside >= 3)):
        borne = _borne(quads[n], [lines[k] for k in sides[n]], frame_box)
        if borne >= SIDE_BORNE:
            yield borne, quads[n]


def _borne(quad: np.ndarray, lines, frame_box: np.ndarray) -> float:
    """How much of its outline (its part in the frame) ``quad``'s lines' stretches
    cover (0-1); 0 unless it is convex, turns enough at each corner (corner k lies
    between sides k-1 and k) and every side is covered SIDE_BORNE at least."""
    edges = np.roll(quad, -1, 0) - quad
    turns = _cross2(edges, np.roll(edges, -1, 0))
    if not (np.all(turns > 0) or np.all(turns < 0)):
        return 0.0
    lengths = np.linalg.norm(edges, axis=1)
    sines = np.abs(turns) / (lengths * np.roll(lengths, -1))
    if np.any(sines < np.sin(np.radians(LEAST_CORNER_DEGREES))):
        return 0.0
    covered = seen = 0.0
    for k, (origin, direction, spans) in enumerate(lines):
        start, end = sorted(
            ((quad[k] - origin) @ direction, (quad[(k + 1) % 4] - origin) @ direction)
        )
        start, end = _in_frame(origin, direction, start, end, frame_box)
        if end - start < 1.0:
            continue
        cover = _covered(np.clip(spans, start, end))
        if cover < SIDE_BORNE * (end - start):
            return 0.0
        covered, seen = covered + cover, seen + end - start
    return covered / seen if seen else 0.0


def _in_frame(origin, direction, start: float, end: float, frame_box: np.ndarray):
    """The span [start, end] along a line cut to the part inside the frame."""
    for axis in range(2):
        if abs(direction[axis]) < 1e-12:
            continue
        bounds = sorted(
            (
                (0 - origin[axis]) / direction[axis],
                (frame_box[axis] - origin[axis]) / direction[axis],
            )
        )
        start, end = max(start, bounds[0]), min(end, bounds[1])
    return start, end


def _covered(spans: np.ndarray) -> float:
    """The length the ``spans`` ([start, end] rows) cover together, overlaps once."""
    total, reached = 0.0, -np.inf
    for start, end in spans[np.argsort(spans[:, 0])]:
        total += max(0.0, end - max(start, reached))
        reached = max(reached, end)
    return total
