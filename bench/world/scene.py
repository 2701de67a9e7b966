"""A scene of the world, described before anything is drawn: the board, the camera,
the light, every piece where a person set it down, and an arm if one reaches in. The
description is the ground truth a frame is scored against.

Everything comes from a seed, so a scene is the same on every machine; it never looks
at the reader's idea of the board.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import asdict, dataclass, field, replace

import numpy as np

from bench.world.camera import Camera, fit_camera
from bench.world.data import world
from engines.geometry import Marker

#: rounds of pushing overlapping pieces apart (each round every pair once)
APART_ROUNDS = 20
#: which markers a set-up's board carries: all, one (the others torn off or under
#: things) or none (a store-bought board)
MARKER_CHOICES = ("all", "one", "none")


@dataclass(frozen=True)
class Piece:
    """One piece as it stands: its cell, its name, where its axis meets the board
    (mm), how high its foot is, how it is turned (degrees)."""

    cell: str
    name: str
    xy: tuple[float, float]
    z: float
    turn: float


@dataclass(frozen=True)
class Light:
    lamp: tuple[float, float, float]
    lamp_side: float
    lamp_kelvin: float
    window: tuple[float, float, float]
    window_side: float
    window_kelvin: float
    window_share: float
    room: float
    room_kelvin: float


@dataclass(frozen=True)
class Arm:
    """A player's arm: the hand's centre over the board and the way to the shoulder."""

    hand: tuple[float, float, float]
    towards: tuple[float, float]
    skin: tuple[int, int, int]
    sleeve: tuple[int, int, int]


@dataclass(frozen=True)
class SetUp:
    """One table: the board and its markers, the camera, the light, the marbles."""

    game: str
    board: str
    seed: int
    extent: tuple[float, float, float, float]
    markers: tuple[Marker, ...]
    camera: Camera
    light: Light
    table_wood: tuple[int, int, int]
    glass: bool


@dataclass(frozen=True)
class Scene:
    set_up: SetUp
    truth: dict[str, str | None]
    pieces: tuple[Piece, ...]
    arm: Arm | None = None
    seed: int = 0
    notes: dict = field(default_factory=dict)

    def describe(self) -> dict:
        """Everything that decides the picture, as plain data (the cache's key)."""
        return asdict(self)


def board_markers(board) -> tuple[Marker, ...]:
    """The board file's markers, else the table's rule: one beyond each corner of the
    cells' bounding box."""
    if board.markers:
        return board.markers
    spec = world()["markers"]
    pts = np.array([c.xy for c in board.cells])
    d = np.sqrt(((pts[:, None] - pts[None]) ** 2).sum(-1))
    np.fill_diagonal(d, np.inf)
    reach = max(float(d.min()) / 2, spec["least_reach"]) + spec["gap"] + spec["size"] / 2
    left, bottom = pts.min(0) - reach
    right, top = pts.max(0) + reach
    corners = [(left, top), (right, top), (right, bottom), (left, bottom)]
    return tuple(Marker(i, (float(x), float(y)), spec["size"]) for i, (x, y) in enumerate(corners))


def board_extent(board) -> tuple[float, float, float, float]:
    """The printed board (left, bottom, right, top), mm."""
    markers = board_markers(board)
    half = max(m.size for m in markers) / 2 + world()["markers"]["border"]
    pts = np.array([m.xy for m in markers] + [c.xy for c in board.cells])
    (left, bottom), (right, top) = pts.min(0) - half, pts.max(0) + half
    return float(left), float(bottom), float(right), float(top)


def set_up(game, seed: int, quality: str = "phone", markers: str = "all") -> SetUp:
    """A table for ``game`` from ``seed``: camera, lens, light and marbles."""
    rng = np.random.default_rng([seed, 46])
    spec = world()
    u = lambda bounds: float(rng.uniform(*bounds))  # noqa: E731
    extent = board_extent(game.board)
    every = board_markers(game.board)
    shown = {"all": every, "one": (every[int(rng.integers(len(every)))],), "none": ()}[markers]
    left, bottom, right, top = extent
    centre = np.array([(left + right) / 2, (bottom + top) / 2])
    reach = max(right - left, top - bottom)
    lt = spec["light"]
    lamp_at = centre + rng.normal(0, reach * 0.3, 2)
    side = u((0, 2 * math.pi))
    window_at = centre + u(lt["window_distance"]) * np.array([math.cos(side), math.sin(side)])
    light = Light(
        lamp=(float(lamp_at[0]), float(lamp_at[1]), u(lt["lamp_height"])),
        lamp_side=u(lt["lamp_side"]),
        lamp_kelvin=u(lt["lamp_kelvin"]),
        window=(float(window_at[0]), float(window_at[1]), u((500, 900))),
        window_side=u(lt["window_side"]),
        window_kelvin=u(lt["window_kelvin"]),
        window_share=u(lt["window_share"]),
        room=u(lt["room"]),
        room_kelvin=u(lt["room_kelvin"]),
    )
    camera = fit_camera(extent, rng, quality)
    # a lamp hangs above the camera: one below it would fill the picture with its back
    above = camera.position[2] + lt["lamp_above_camera"]
    if light.lamp[2] < above:
        light = replace(light, lamp=(light.lamp[0], light.lamp[1], above))
    woods = spec["table"]["woods"]
    return SetUp(
        game=game.name,
        board=game.board.name,
        seed=seed,
        extent=extent,
        markers=shown,
        camera=camera,
        light=light,
        table_wood=tuple(woods[int(rng.integers(len(woods)))]),
        glass=bool(rng.random() < 0.6),
    )


def scene(game, table: SetUp, truth: dict, seed: int, arm: bool | tuple = False) -> Scene:
    """The position ``truth`` (cell -> token, as ``game.observe`` gives it) set out
    on ``table`` as people set pieces down, from ``seed``; with ``arm``, a player's
    arm reaching over the board, its hand over the point (x, y mm) ``arm`` gives if
    it gives one."""
    rng = np.random.default_rng([table.seed, seed, 47])
    looks = world()["games"][game.name]
    join = world()["tokens"]["join"]
    board = game.board
    pieces: list[Piece] = []
    for cell_id, token in truth.items():
        if token is None:
            continue
        cell = board.cell(cell_id)
        names = token.split(join)
        under = [n for n in names if looks["tokens"][n].get("under")]
        standing = [n for n in names if n not in under]
        base = 3.0 if under else 0.0
        for name in under:
            pieces.append(_set_down(cell.id, name, cell.xy, 0.0, rng, looks["placed"] / 2))
        for name, spot in zip(standing, _spots(game, cell, len(standing), rng)):
            z = _marble_rest(looks) if looks["tokens"][name]["shape"] == "marble" else base
            pieces.append(_set_down(cell.id, name, spot, z, rng, looks["placed"]))
    return Scene(
        set_up=table,
        truth=dict(truth),
        pieces=tuple(_apart(pieces, looks)),
        arm=_arm(table, rng, arm if isinstance(arm, tuple) else None) if arm else None,
        seed=seed,
    )


def laid(truth: dict, under: dict) -> dict:
    """The position as it lies on the table: ``truth`` (``game.observe``'s top piece
    per cell) with the disk ``under`` names (cell -> token) beneath the figure on its
    cell, joined as the world joins pieces on one cell (observe names the figure only)."""
    join = world()["tokens"]["join"]
    return {c: f"{under[c]}{join}{t}" if t and c in under else t for c, t in truth.items()}


def _set_down(cell: str, name: str, xy, z: float, rng, sd: float) -> Piece:
    off = np.clip(rng.normal(0, sd, 2), -2.5 * sd, 2.5 * sd)
    return Piece(
        cell, name, (float(xy[0] + off[0]), float(xy[1] + off[1])), z, float(rng.uniform(0, 360))
    )


def _marble_rest(looks: dict) -> float:
    """How high a marble's foot is, resting in its hole's rim: its centre sits at
    sqrt(r^2 - hole^2), so its foot is that less its radius (below the board)."""
    r, hole = looks["marble_radius"], looks["cell_radius"]
    return math.sqrt(r * r - hole * hole) - r


def _spots(game, cell, count: int, rng) -> list[tuple[float, float]]:
    """Where ``count`` pieces on one cell stand: the cell's centre for one; a home
    field's ring of spots; else side by side across the track."""
    x, y = cell.xy
    if count <= 1:
        return [(x, y)]
    looks = world()["games"][game.name]
    if cell.kind == "home":
        start = float(rng.uniform(0, 2 * math.pi))
        step = 2 * math.pi / looks["home_spots"]
        ring = looks["home_ring"]
        return [
            (x + ring * math.cos(start + i * step), y + ring * math.sin(start + i * step))
            for i in range(count)
        ]
    index = game.board.index[cell.id]
    nearest = min(
        (game.board.cells[n] for n in game.board.neighbours[index]),
        key=lambda c: math.dist(c.xy, cell.xy),
        default=None,
    )
    along = np.array([1.0, 0.0]) if nearest is None else np.subtract(nearest.xy, cell.xy)
    along = along / np.linalg.norm(along)
    across = np.array([-along[1], along[0]])
    crowd = looks["crowd"][min(count, len(looks["crowd"])) - 1]
    spots = [np.array([x, y]) + a * along + c * across for a, c in crowd]
    return [(float(p[0]), float(p[1])) for p in spots[:count]] + [(x, y)] * (count - len(spots))


def _arm(table: SetUp, rng, over: tuple | None) -> Arm:
    spec = world()["hand"]
    left, bottom, right, top = table.extent
    hand = (
        float(rng.uniform(left + 30, right - 30)),
        float(rng.uniform(bottom + 30, top - 30)),
        float(rng.uniform(*spec["height"])),
    )
    if over is not None:
        hand = (float(over[0]), float(over[1]), hand[2])
    side = int(rng.integers(4)) * math.pi / 2 + float(rng.normal(0, 0.3))
    skin, sleeve = spec["skin"], spec["sleeves"]
    return Arm(
        hand=hand,
        towards=(math.cos(side), math.sin(side)),
        skin=tuple(skin[int(rng.integers(len(skin)))]),
        sleeve=tuple(sleeve[int(rng.integers(len(sleeve)))]),
    )


def kept(scene: Scene, before: Scene) -> Scene:
    """``scene`` with the pieces of every cell whose token is as in ``before`` standing
    where they stood there: a piece nobody touched has not moved."""
    same = {c for c, t in scene.truth.items() if t is not None and before.truth.get(c) == t}
    pieces = [p for p in before.pieces if p.cell in same]
    stood = len(pieces)
    pieces += [p for p in scene.pieces if p.cell not in same]
    looks = world()["games"][scene.set_up.game]
    return replace(scene, pieces=tuple(_apart(pieces, looks, stood)))


def _apart(pieces: list[Piece], looks: dict, fixed: int = 0) -> list[Piece]:
    """``pieces`` with any two that stand in each other (their feet overlapping: each
    set down off its spot on its own) pushed apart along the line between them until
    they touch, as a hat set down against another slides off it. The first ``fixed``
    pieces stood there before and stay; disks under figures are not pushed."""
    foot = [_foot(looks, p.name) for p in pieces]
    xy = np.array([p.xy for p in pieces], dtype=np.float64).reshape(-1, 2)
    solid = [i for i, p in enumerate(pieces) if not looks["tokens"][p.name].get("under")]
    for _ in range(APART_ROUNDS):
        pushed = False
        for a, b in itertools.combinations(solid, 2):
            apart = xy[b] - xy[a]
            gap = float(np.hypot(*apart))
            overlap = foot[a] + foot[b] - gap
            if overlap <= 1e-6 or b < fixed:
                continue
            way = apart / gap if gap > 1e-9 else np.array([1.0, 0.0])
            # a piece that stood before stays; else both give way alike
            share = 0.0 if a < fixed else 0.5
            xy[a] -= way * overlap * share
            xy[b] += way * overlap * (1 - share)
            pushed = True
        if not pushed:
            break
    return [replace(p, xy=(float(x), float(y))) for p, (x, y) in zip(pieces, xy)]


def _foot(looks: dict, name: str) -> float:
    """How far (mm) a piece reaches out from its axis: its widest."""
    shape = looks["tokens"][name]["shape"]
    return float(looks["marble_radius"]) if shape == "marble" else max(r for r, _ in shape)
