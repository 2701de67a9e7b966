"""What each probe of a site sees for every reading the site can have: a piece's
colour, the empty board, the board shaded by a figure, anything past a low piece, or
nothing for sure; and whether a probe sees a solid's top, its side or the rim
between them from the camera's position.

Predicts from the pieces' shapes (``vision/looks.toml``) and the camera's position
only; it never looks at a frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vision.boards.sites import Site
from vision.looks import Look

#: a probe that cannot see the piece it tests costs this much (log units squared)
UNSEEN_COST = 4.0
#: a probe this low sees the board just past the cell when nothing stands there
LOW_PROBE_MM = 8.0
#: the camera looks down at the board at least this steeply (degrees)
LOWEST_VIEW_DEG = 30.0
#: a probe this close (mm) outside a piece's solid shows a blend of the piece and what
#: lies beside it (a tree's foot beside the ``sides`` probe)
OUTLINE_MM = 1.5
#: what a probe sees of a solid it lies in: its flat top, or its side (or a cone's
#: slope), depending on the camera's angle at that cell, or the rim between them
TOP, SIDE, EDGE = 0, 1, 2
#: a probe point this close (pixels) to the rim between a solid's top and its side
#: shows a blend of both (blur, JPEG's colour at half resolution): a figure's side
#: seen edge-on from nearly straight above
EDGE_PX = 2.0

BOARD, ANY, BEYOND = "<board>", "<any>", "<beyond>"
#: what a probe is judged against: a piece's colour, the board, anything, the board or
#: a piece past the site, a piece or the board in a figure's shade, a low piece or past it
(
    SEES_TOKEN,
    SEES_BOARD,
    SEES_ANY,
    SEES_BEYOND,
    SEES_SHADED_TOKEN,
    SEES_SHADED_BOARD,
    SEES_PAST,
) = range(7)


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
    colour (its token), the empty board, or anything (the probe misses the piece).
    A piece set down up to ``placement_mm`` off its centre carries some probes with
    it; toward one that stays, its outline may come that much nearer."""
    off = np.where(carried_probes(look), 0.0, look.placement_mm)
    return [
        (label, tuple(_sight(probe, stack, reach)[0] for probe, reach in zip(look.probes, off)))
        for label, stack in stacks_of(look, slot)
    ]


def bleeds(look: Look, stacks: list[list]) -> tuple[np.ndarray, ...] | None:
    """Where a figure's colour may show some of the disk it stands on: the stacks of a
    figure on a disk, the index of that disk lying bare, and (those stacks, probes)
    whether the probe sees the figure; None where no figure stands on a disk or
    ``figure_bleed`` is 0."""
    if look.figure_bleed <= 0:
        return None
    on = [
        h
        for h, stack in enumerate(stacks)
        if len(stack) == 2 and stack[0].under and [stack[0]] in stacks
    ]
    if not on:
        return None
    disk = [stacks.index([stacks[h][0]]) for h in on]
    seen = [[_sight(p, stacks[h])[0] == stacks[h][1].token for p in look.probes] for h in on]
    return np.array(on), np.array(disk), np.array(seen)


def stacks_of(look: Look, slot: bool) -> list[tuple[str | None, list]]:
    """Every reading a site can have and the pieces standing there, bottom first."""
    standing = [p for p in look.pieces.values() if not p.under]
    under = [p for p in look.pieces.values() if p.under]
    found: list[tuple[str | None, list]] = [(None, [])]
    for piece in standing:
        for below in [None, *([] if slot or piece.bare else under)]:
            found.append((piece.token, [below, piece] if below else [piece]))
    if not slot:
        found.extend((below.token, [below]) for below in under)
    return found


def _sight(probe, stack, off: float = 0.0) -> tuple[str | Shaded | Past, tuple | None]:
    """What ``probe`` sees of ``stack``, and (piece, height of its base) when the
    probe lies inside that piece's solid; a ``darkest`` probe beside a figure sees
    what lies there ``Shaded``; one within ``off`` mm more of a piece's outline, a
    blend of both."""
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
        elif level and probe.r < radius + OUTLINE_MM + off:
            what = ANY  # the piece's outline blurs into what lies beside it
        base = top
    return what, solid


def carried_probes(look: Look) -> np.ndarray:
    """Per probe: whether a piece set down off its centre carries it, as it looks at
    the piece whichever stands there; one that sees the board beside a piece (or the
    board in its shade) stays on the cell. An ``outline`` probe goes with the figure
    too: left on the cell, it sees past a figure set down toward the camera to the
    line it should hide. (Moved over an empty cell it finds the paper beside the
    line, as bright as a white figure: the reader never reads a ``single`` figure on
    a second cell.)"""
    standing = [p for p in look.pieces.values() if not p.under]
    seen = [[_sight(probe, [p])[0] for p in standing] for probe in look.probes]
    return np.array([all(getattr(w, "lies", w) != BOARD for w in row) for row in seen])


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
    edge-on): they show a blend. A ``darkest`` probe sees no solid (whether the pieces
    on the neighbouring cells hide its points is ``vision.boards.hiding``'s say)."""
    points, eye = sight.points, sight.eye
    found = np.full((len(points), len(stacks), len(look.probes)), TOP, np.int8)
    centres = np.array([site.xy for site in sites])
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


def _lands_on(probe, piece, top: float) -> bool:
    """A front probe above a flat piece whose view lands on its top face from any
    camera at least LOWEST_VIEW_DEG steep (the landing moves toward the far side).
    Any other probe above it lands on it from a steep camera and past it from a low
    one (an outline probe 15 mm up lands 25 mm behind the cell at 31 degrees)."""
    if not (piece.under and probe.z > top) or probe.arc != "front":
        return False
    reach = (probe.z - top) / math.tan(math.radians(LOWEST_VIEW_DEG))
    return max(probe.r, abs(probe.r - reach)) <= piece.radius
