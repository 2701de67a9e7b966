"""Where pieces stand on a board, as the camera reads it: one site per cell, per
spot on a home field's ring (the reader turns the ring to where the hats stand), and
per spot beside a field's centre that several hats may share; what each site holds
in a known position; the printed lines from a cell.

Geometry only: it never looks at a frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vision import looks
from vision.looks import Look

#: a site's label while learning when it shows part of one or more pieces
CROWDED = "<crowded>"
#: the ``slot`` of a home field's middle (``Slots.middle``): a spot the ring does not
#: turn, where a hat alone on the field may stand
MIDDLE = -1


@dataclass(frozen=True)
class Site:
    """One place a piece stands: a cell, one spot on a home field's ring (``slot``, 0
    on, or MIDDLE: its middle; ``zone``: whose home it is), or one spot (``spot``, 1
    on) beside the centre of a field several hats may share."""

    cell: str
    xy: tuple[float, float]
    slot: int | None = None
    spot: int | None = None
    zone: str | None = None
    #: the cell's kind (a field's colour in Fang den Hut!)
    kind: str | None = None


def sites_of(board, look: Look) -> list[Site]:
    sites = []
    crowded = bool(crowd_layouts(look)[1])
    for cell in board.cells:
        slots = look.slots.get(cell.kind)
        if slots is None:
            sites.append(Site(cell.id, cell.xy, kind=cell.kind))
            if crowded:
                spots = crowd_spots(board, cell, look)[1:]
                sites.extend(Site(cell.id, xy, spot=k) for k, xy in enumerate(spots, 1))
        else:
            for k, (dx, dy) in enumerate(slots.offsets()):
                sites.append(Site(cell.id, (cell.xy[0] + dx, cell.xy[1] + dy), k, zone=cell.zone))
            if slots.middle:
                sites.append(Site(cell.id, cell.xy, MIDDLE, zone=cell.zone))
    return sites


def turned_places(board, look: Look, site: Site) -> np.ndarray:
    """(turns, 2) where ``site`` stands (mm) at each turn of its home field's ring the
    reader tries (``Slots.turns``); a site on no ring, where it is."""
    if site.slot is None:
        return np.array([site.xy], float)
    centre = np.asarray(board.cell(site.cell).xy, float)
    turns = look.slots[board.cell(site.cell).kind].turns()
    dx, dy = np.subtract(site.xy, centre)
    return centre + turned(dx, dy, np.cos(turns), np.sin(turns))


def turned(dx, dy, cos, sin) -> np.ndarray:
    """The offsets (``dx``, ``dy``) turned by the angles whose cosine and sine are
    given, broadcast together, the two coordinates on the last axis."""
    return np.stack([cos * dx - sin * dy, sin * dx + cos * dy], axis=-1)


def outward(sites: list[Site]) -> np.ndarray:
    """(sites, 2): per spot beside a field's middle, the way (a unit vector) from the
    middle out through it; (1, 0) for every other site."""
    middles = {s.cell: s.xy for s in sites if s.spot is None and s.slot is None}
    out = np.tile([1.0, 0.0], (len(sites), 1))
    for i, site in enumerate(sites):
        if site.spot is not None:
            away = np.subtract(site.xy, middles[site.cell])
            out[i] = away / np.linalg.norm(away)
    return out


def site_labels(sites: list[Site], tokens: dict[str, str | None]) -> list[str | None]:
    """The piece on each site for a known observation: a home field's pieces fill its
    ring's spots in sorted order, its middle empty (the reader finds the turn of the
    ring and the spot the first stands on, or a hat alone in the middle:
    ``Classifier.lesson``). A site that shows no single piece for
    sure (a crowded field's) is neither learned as empty nor as a piece."""
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
            labels.append(parts[site.slot] if 0 <= site.slot < len(parts) else None)
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
    angles = line_angles(board, Site(cell.id, cell.xy))
    track = 0.5 * math.atan2(np.sin(2 * angles).sum(), np.cos(2 * angles).sum())
    along = np.array([math.cos(track), math.sin(track)])
    across = np.array([-along[1], along[0]])
    return [
        np.asarray(cell.xy) + spots[:, :1] * along + spots[:, 1:] * side
        for side in (across, -across)
    ]


def line_angles(board, site: Site) -> np.ndarray:
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
