"""What a game looks like to the camera, read from ``vision/looks.toml``: colours,
pieces as simple solids, the probes the reader looks through, and the ArUco markers
that locate a board.

Only reads packaged data and the game's board; it never looks at a frame.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

from engines.geometry import Board, Cell, Marker

#: a slot cell's observation joins the tokens on its spots with this, sorted
JOIN = "+"


@dataclass(frozen=True)
class Piece:
    """A token as a solid: sRGB colour, shape (cylinder, cone, sphere), size in mm;
    ``under``: a flat thing a figure may stand on; ``bare``: it stands on a bare cell
    only, never on such a thing; ``stays``: the set-up places it and it never moves;
    ``single``: the board holds one of it at most; ``odds``: how often a cell holds it
    against none."""

    token: str
    colour: tuple[int, int, int]
    shape: str
    radius: float
    height: float
    under: bool = False
    bare: bool = False
    stays: bool = False
    single: bool = False
    #: how often a cell holds it, against being empty, where the camera cannot tell
    odds: float = 1.0

    def radius_at(self, z):
        """The solid's radius ``z`` mm above its base (a cone tapers to a quarter; a
        sphere is taken as the cylinder around it)."""
        if self.shape == "cone":
            return self.radius * (1 - 0.75 * z / self.height)
        return self.radius


#: which part of its ring a probe looks at, and which of its points it reads (see
#: ``Probe``)
ARCS = ("ring", "front", "sides", "outline", "disc")
READS = ("median", "darkest")


@dataclass(frozen=True)
class Probe:
    """Where the reader looks at a cell: ``z`` mm above the board, ``r`` mm around the
    centre; ``arc``: the whole ``ring``, its ``front`` half facing the camera, its
    ``sides`` left and right as the camera sees them, its ``outline`` points whose
    view past an empty cell lands on the cell's printed outline, or points spread
    over the whole ``disc`` of radius ``r``; ``skip_rim``: not
    used where it sees the rim between a piece's top and its side; ``read``: the
    ``median`` of its points, or its ``darkest`` quarter (a figure's shadow on one
    side of it)."""

    z: float
    r: float
    arc: str = "ring"
    skip_rim: bool = False
    read: str = "median"


@dataclass(frozen=True)
class Slots:
    """Spots on one kind of cell that holds several pieces (a home field): ``count``
    of them on a ring ``ring`` mm round its centre. Nothing on the board says how far
    the ring is turned: the reader tries it turned in steps of ``turn_deg``, and looks
    for each piece up to ``placement_mm`` off its spot; with ``middle``, a hat alone on
    the field may stand in its middle as well."""

    count: int
    ring: float
    turn_deg: float = 0.0
    placement_mm: float = 0.0
    middle: bool = False

    def offsets(self, turn: float = 0.0) -> list[tuple[float, float]]:
        """Each spot's place (mm from the cell's centre), the ring turned ``turn``
        radians."""
        return [
            (
                self.ring * math.cos(turn + 2 * math.pi * k / self.count),
                self.ring * math.sin(turn + 2 * math.pi * k / self.count),
            )
            for k in range(self.count)
        ]

    def turns(self) -> np.ndarray:
        """The turns (radians) the reader tries: up to one spot's step, as the spots
        repeat after it; only the turn as given without a ``turn_deg``."""
        if self.turn_deg <= 0:
            return np.zeros(1)
        return np.radians(np.arange(0.0, 360.0 / self.count, self.turn_deg))


@dataclass(frozen=True)
class Look:
    """How one game's board and pieces look."""

    game: str
    surface: tuple[int, int, int]
    cell: str
    cell_radius: float
    probes: tuple[Probe, ...]
    pieces: dict[str, Piece]
    slots: dict[str, Slots]
    #: added to linear colour before the reader takes ratios (looks.toml ``dark_floor``)
    dark_floor: float = 0.01
    #: how far (mm) players set a piece off its cell's centre (looks.toml
    #: ``placement_mm``): the reader looks for each piece that far around
    placement_mm: float = 0.0
    #: a standing piece's light is judged with this many times its colour's spread
    #: (looks.toml ``figure_light``): rounded figures catch the light differently on
    #: each cell
    figure_light: float = 1.0
    #: whether a ``single`` piece is learned where it stands, up to ``placement_mm``
    #: off its cell (looks.toml ``learn_where_placed``), not on the cell's centre
    learn_where_placed: bool = False
    #: how far a figure's colour (not its light) may lie toward a disk's under it
    #: (looks.toml ``figure_bleed``, 0 none, 1 all the way): learned on a hollow
    figure_bleed: float = 0.0
    #: the frame is smoothed over this many pixels (a Gaussian's sigma) before the
    #: probes read it (looks.toml ``smooth_px``, 0 not at all): where the probes span
    #: a pixel or two, their median is that pixel's sensor noise
    smooth_px: float = 0.0

    def piece(self, token: str) -> Piece:
        return self.pieces[token]

    def tallest(self) -> float:
        return max(p.height for p in self.pieces.values())


@cache
def data() -> dict:
    text = (resources.files("vision") / "looks.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def colour(name: str) -> tuple[int, int, int]:
    return tuple(data()["colours"][name])


def skin_tones() -> list[tuple[int, int, int]]:
    return [tuple(rgb) for rgb in data()["hands"]["skin"]]


def look_for(game) -> Look:
    """The look of ``game`` (a loaded engine game): only the pieces it can put on the
    board with its seats (a seat piece counts when a seat has its colour) and options
    (an ``option`` piece counts when the game has that option on)."""
    entry = data()["games"].get(game.name)
    if entry is None:
        raise KeyError(f"vision has no look for {game.name!r}; add it to vision/looks.toml")
    colours = {_seat_colour(game, seat) for seat in range(game.players)}
    pieces = {}
    for token, spec in entry["tokens"].items():
        if spec.get("seat") and spec["colour"] not in colours and token not in colours:
            continue
        if "option" in spec and not getattr(game, "options", {}).get(spec["option"]):
            continue
        pieces[token] = _piece(game.name, token, spec)
    return Look(
        game.name,
        colour(entry["surface"]),
        entry["cell"],
        float(entry["cell_radius"]),
        tuple(_probe(game.name, p) for p in entry["probes"]),
        pieces,
        {
            kind: Slots(
                s["count"],
                s["ring"],
                float(s.get("turn_deg", 0.0)),
                float(s.get("placement_mm", 0.0)),
                bool(s.get("middle", False)),
            )
            for kind, s in entry.get("slots", {}).items()
        },
        float(entry.get("dark_floor", data()["dark_floor"])),
        float(entry.get("placement_mm", 0.0)),
        float(entry.get("figure_light", 1.0)),
        bool(entry.get("learn_where_placed", False)),
        float(entry.get("figure_bleed", 0.0)),
        float(entry.get("smooth_px", 0.0)),
    )


def _piece(name: str, token: str, spec: dict) -> Piece:
    """One ``tokens`` entry of looks.toml; a flag that is not true or false, or odds
    that are not a share above 0, are refused."""
    flags = {key: spec.get(key, False) for key in ("under", "bare", "stays", "single")}
    odds = spec.get("odds", 1.0)
    if not all(isinstance(v, bool) for v in flags.values()) or not (
        isinstance(odds, int | float) and 0 < odds <= 1
    ):
        raise ValueError(
            f"looks.toml [games.{name}] token {token}: under, bare, stays and single are true "
            f"or false, odds a number above 0 and at most 1"
        )
    return Piece(
        token,
        colour(spec["colour"]),
        spec["shape"],
        float(spec["radius"]),
        float(spec["height"]),
        **flags,
        odds=float(odds),
    )


def _probe(name: str, entry: dict) -> Probe:
    """One ``probes`` entry of looks.toml; a misspelt arc, rim or read is refused."""
    arc, rim, read = entry.get("arc", "ring"), entry.get("rim"), entry.get("read", "median")
    if arc not in ARCS or rim not in (None, "skip") or read not in READS:
        raise ValueError(
            f"looks.toml [games.{name}] probe {entry}: arc is one of {', '.join(ARCS)}, "
            f'rim is "skip" or left out, read is one of {", ".join(READS)}'
        )
    return Probe(float(entry["z"]), float(entry["r"]), arc, rim == "skip", read)


def _seat_colour(game, seat: int) -> str | None:
    """The colour of a seat's pieces: Hakenschlagen's hares, a game's ``colours``, or
    what ``seat_colour`` says."""
    for attribute in ("hare_colours", "colours"):
        colours = getattr(game, attribute, None)
        if colours:
            return colours[seat]
    return game.seat_colour(seat)


def markers(board: Board) -> tuple[Marker, ...]:
    """The board file's markers, else one at each corner of the cells' bounding box."""
    if board.markers:
        return board.markers
    spec = data()["markers"]
    size, gap = spec["size_mm"], spec["gap_mm"]
    xs = [c.xy[0] for c in board.cells]
    ys = [c.xy[1] for c in board.cells]
    reach = _cell_reach(board) + gap + size / 2
    left, right = min(xs) - reach, max(xs) + reach
    bottom, top = min(ys) - reach, max(ys) + reach
    corners = [(left, top), (right, top), (right, bottom), (left, bottom)]
    return tuple(Marker(i, xy, size) for i, xy in enumerate(corners))


def marker_places(board: Board) -> list[dict]:
    """Where each marker goes, for the person gluing them: its id, side, centre on the
    board's axes (mm, +x right, +y up, as the board file has them) and from the
    nearest of the board's corner cells (``corner_cells``), which is easier to
    measure from on a printed board. A marker turned so its own top points to the
    board's top."""
    corners = corner_cells(board)
    places = []
    for marker in markers(board):
        cell = min(corners, key=lambda c: math.dist(c.xy, marker.xy))
        places.append(
            {
                "id": marker.id,
                "side_mm": round(marker.size, 1),
                "centre_mm": [round(v, 1) for v in marker.xy],
                "from_cell": cell.id,
                "from_cell_mm": [round(m - c, 1) for m, c in zip(marker.xy, cell.xy)],
            }
        )
    return places


def corner_cells(board: Board) -> tuple[Cell, Cell, Cell, Cell]:
    """The cells furthest towards the board's left-top, right-top, right-bottom and
    left-bottom (the tips of Sternhalma's star, the corner points of a grid): the
    four a referee clicks on the camera picture when the markers cannot be seen."""
    chosen = []
    for sx, sy in ((-1, 1), (1, 1), (1, -1), (-1, -1)):
        chosen.append(max(board.cells, key=lambda c: (sx * c.xy[0] + sy * c.xy[1], c.id)))
    if len({c.id for c in chosen}) < 4:
        raise ValueError(f"{board.name}: fewer than four distinct corner cells")
    return tuple(chosen)


def _cell_reach(board: Board) -> float:
    """How far a piece may reach beyond its cell's centre: half the pitch, at least."""
    pts = np.array([c.xy for c in board.cells])
    if len(pts) < 2:
        return 20.0
    d = np.sqrt(((pts[:, None] - pts[None]) ** 2).sum(-1))
    np.fill_diagonal(d, np.inf)
    return float(max(np.min(d) / 2, 15.0))


def extent(board: Board) -> tuple[float, float, float, float]:
    """The printed board (left, bottom, right, top) in mm: markers plus a border."""
    border = data()["markers"]["border_mm"]
    pts = [m.xy for m in markers(board)] + [c.xy for c in board.cells]
    half = max(m.size for m in markers(board)) / 2 + border
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    return min(xs) - half, min(ys) - half, max(xs) + half, max(ys) + half


def dictionary():
    import cv2

    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, data()["markers"]["dictionary"]))


def split(token: str | None) -> list[str]:
    """The pieces of one observed token (a home field's hats), [] for None."""
    return [] if token is None else token.split(JOIN)
