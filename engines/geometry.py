"""Board geometry: load a board file from ``engines/boards/*.toml`` and validate it.

A board is its cells (id, position in millimetres on the board plane, kind, zone), its
straight lines of cells, from which neighbour and jump tables are computed once, and
optional ``links``: paths of adjacent cells that need not be straight (a track that
bends), which add neighbours but no jumps, and optional ``markers``: where printed
ArUco markers lie on the board, for a camera to find it (vision places its own default
markers around the cells when a board gives none).
This module only reads packaged data; it knows nothing of any game's rules.

>>> board = load_board("catch_the_hare")
>>> len(board.cells), board.cell("c3").xy
(25, (100.0, 100.0))
>>> sorted(board.cells[i].id for i in board.neighbours[board.index["a1"]])
['a2', 'b1', 'b2']
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from engines.errors import BoardFileError

# Cells on one straight line must be this close (mm) to the line and to even spacing.
STRAIGHTNESS_MM = 0.5
CELL_ID = re.compile(r"^[a-z][a-z0-9_]*$")
TOP_LEVEL_KEYS = {"name", "title", "cells", "lines", "links", "game", "markers"}
CELL_KEYS = {"id", "xy", "kind", "zone"}
MARKER_KEYS = {"id", "xy", "size"}


@dataclass(frozen=True)
class Cell:
    """One place a piece can stand: a hole, a point, a hollow, a field."""

    id: str
    xy: tuple[float, float]
    kind: str
    zone: str | None = None


@dataclass(frozen=True)
class Marker:
    """A printed ArUco marker: its dictionary id, centre (mm) and side length (mm),
    upright with its top edge towards +y."""

    id: int
    xy: tuple[float, float]
    size: float


@dataclass(frozen=True, eq=False)
class Board:
    """A validated board: cells in file order plus tables computed from its lines.

    ``neighbours[i]`` holds the indices one step from cell ``i`` along a line;
    ``jumps[i]`` holds ``(over, land)`` index pairs for a jump from ``i`` over the
    next cell to the one behind it; ``jump_over[(i, land)]`` is the jumped cell.
    ``game`` is the file's free-form ``[game]`` table, read by the engine. ``links``
    are paths of adjacent cells whose neighbours count without a straightness check.
    """

    name: str
    title: str
    cells: tuple[Cell, ...]
    lines: tuple[tuple[str, ...], ...]
    game: dict[str, Any]
    links: tuple[tuple[str, ...], ...] = ()
    markers: tuple[Marker, ...] = ()
    index: dict[str, int] = field(init=False)
    neighbours: tuple[tuple[int, ...], ...] = field(init=False)
    jumps: tuple[tuple[tuple[int, int], ...], ...] = field(init=False)
    jump_over: dict[tuple[int, int], int] = field(init=False)

    def __post_init__(self) -> None:
        index = {cell.id: i for i, cell in enumerate(self.cells)}
        neighbours: list[list[int]] = [[] for _ in self.cells]
        jumps: list[list[tuple[int, int]]] = [[] for _ in self.cells]
        for line in self.lines:
            at = [index[cell_id] for cell_id in line]
            for a, b in zip(at, at[1:]):
                neighbours[a].append(b)
                neighbours[b].append(a)
            for a, b, c in zip(at, at[1:], at[2:]):
                jumps[a].append((b, c))
                jumps[c].append((b, a))
        for link in self.links:
            at = [index[cell_id] for cell_id in link]
            for a, b in zip(at, at[1:]):
                if b not in neighbours[a]:
                    neighbours[a].append(b)
                    neighbours[b].append(a)
        set_ = object.__setattr__
        set_(self, "index", index)
        set_(self, "neighbours", tuple(tuple(n) for n in neighbours))
        set_(self, "jumps", tuple(tuple(j) for j in jumps))
        set_(self, "jump_over", {(a, c): b for a, js in enumerate(jumps) for b, c in js})

    def cell(self, cell_id: str) -> Cell:
        return self.cells[self.index[cell_id]]

    def zone(self, zone: str) -> tuple[int, ...]:
        """Indices of the cells in one zone (a Sternhalma point, a home field...)."""
        return tuple(i for i, cell in enumerate(self.cells) if cell.zone == zone)

    def render(self, symbols: dict[str, str], empty: str = ".") -> str:
        """A text picture of the board: one character per cell, north at the top.

        Rows are the distinct y positions; columns are x in units of the smallest
        horizontal gap between cells of one row, so hex and square boards both work.
        """
        rows: dict[float, list[Cell]] = {}
        for cell in self.cells:
            rows.setdefault(round(cell.xy[1], 1), []).append(cell)
        for row in rows.values():
            row.sort(key=_x)
        gaps = [b.xy[0] - a.xy[0] for row in rows.values() for a, b in zip(row, row[1:])]
        unit = min((g for g in gaps if g > 1e-6), default=1.0) / 2
        left = min(cell.xy[0] for cell in self.cells)
        picture = []
        for y in sorted(rows, reverse=True):
            line: list[str] = []
            for cell in rows[y]:
                column = round((cell.xy[0] - left) / unit)
                line.extend(" " * (column - len(line)))
                line.append(symbols.get(cell.id) or empty)
            picture.append("".join(line).rstrip())
        return "\n".join(picture)


def _x(cell: Cell) -> float:
    return cell.xy[0]


@cache
def load_board(name: str) -> Board:
    """The packaged board file ``engines/boards/<name>.toml``, validated."""
    if not CELL_ID.match(name):
        raise BoardFileError(f"{name!r} is not a board name")
    resource = resources.files("engines") / "boards" / f"{name}.toml"
    if not resource.is_file():
        raise BoardFileError(f"no board file {name}.toml in engines/boards/")
    return parse_board(resource.read_text(encoding="utf-8"), f"engines/boards/{name}.toml")


def load_board_file(path: str | Path) -> Board:
    """A board file anywhere on disk (an owner's own edition), validated."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BoardFileError(f"{path}: cannot read: {exc.strerror}") from None
    return parse_board(text, str(path))


def parse_board(text: str, source: str) -> Board:
    """Parse and validate board TOML; every problem names ``source`` and the place."""

    def fail(problem: str) -> BoardFileError:
        return BoardFileError(f"{source}: {problem}")

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise fail(f"not valid TOML: {exc}") from None
    unknown = set(data) - TOP_LEVEL_KEYS
    if unknown:
        raise fail(f"unknown key(s) {sorted(unknown)}; a board file has {sorted(TOP_LEVEL_KEYS)}")
    for key in ("name", "title"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise fail(f"'{key}' must be a non-empty string")
    game = data.get("game", {})
    if not isinstance(game, dict):
        raise fail("'game' must be a table")
    cells = _parse_cells(data.get("cells"), fail)
    by_id = {c.id: c for c in cells}
    lines = _parse_lines(data.get("lines", []), by_id, fail)
    links = _parse_lines(data.get("links", []), by_id, fail, what="link")
    markers = _parse_markers(data.get("markers", []), fail)
    return Board(data["name"], data["title"], cells, lines, game, links, markers)


def _parse_markers(raw: Any, fail: Callable[[str], BoardFileError]) -> tuple[Marker, ...]:
    if not isinstance(raw, list):
        raise fail("'markers' must be an array of tables like { id = 0, xy = [0, 0], size = 30 }")
    markers: list[Marker] = []
    for n, entry in enumerate(raw, start=1):
        where = f"marker {n}"
        if not isinstance(entry, dict) or set(entry) != MARKER_KEYS:
            raise fail(f"{where}: must be a table with exactly {sorted(MARKER_KEYS)}")
        marker_id, xy, size = entry["id"], entry["xy"], entry["size"]
        if isinstance(marker_id, bool) or not isinstance(marker_id, int) or marker_id < 0:
            raise fail(f"{where}: id {marker_id!r} must be a whole number >= 0")
        if any(m.id == marker_id for m in markers):
            raise fail(f"{where}: id {marker_id} used twice")
        if not (isinstance(xy, list) and len(xy) == 2 and all(_finite(v) for v in xy)):
            raise fail(f"{where}: xy {xy!r} must be two finite numbers (millimetres)")
        if not _finite(size) or size <= 0:
            raise fail(f"{where}: size {size!r} must be a positive number (millimetres)")
        markers.append(Marker(marker_id, (float(xy[0]), float(xy[1])), float(size)))
    return tuple(markers)


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _parse_cells(raw: Any, fail: Callable[[str], BoardFileError]) -> tuple[Cell, ...]:
    if not isinstance(raw, list) or not raw:
        raise fail("'cells' must be a non-empty array of tables")
    cells: list[Cell] = []
    seen: set[str] = set()
    for n, entry in enumerate(raw, start=1):
        where = f"cell {n}"
        if not isinstance(entry, dict):
            raise fail(f'{where}: must be a table like {{ id = "a1", xy = [0, 0], kind = ... }}')
        unknown = set(entry) - CELL_KEYS
        if unknown:
            raise fail(f"{where}: unknown key(s) {sorted(unknown)}")
        cell_id = entry.get("id")
        if not isinstance(cell_id, str) or not CELL_ID.match(cell_id):
            raise fail(f"{where}: id {cell_id!r} must be lower-case letters, digits, '_'")
        where = f"cell {cell_id!r}"
        if cell_id in seen:
            raise fail(f"{where}: id used twice")
        seen.add(cell_id)
        xy = entry.get("xy")
        if not (
            isinstance(xy, list)
            and len(xy) == 2
            and all(isinstance(v, int | float) and not isinstance(v, bool) for v in xy)
            and all(math.isfinite(v) for v in xy)
        ):
            raise fail(f"{where}: xy {xy!r} must be two finite numbers (millimetres)")
        kind = entry.get("kind")
        if not isinstance(kind, str) or not kind:
            raise fail(f"{where}: kind must be a non-empty string")
        zone = entry.get("zone")
        if zone is not None and (not isinstance(zone, str) or not zone):
            raise fail(f"{where}: zone must be a non-empty string when given")
        cells.append(Cell(cell_id, (float(xy[0]), float(xy[1])), kind, zone))
    return tuple(cells)


def _parse_lines(
    raw: Any, cells: dict[str, Cell], fail: Callable[[str], BoardFileError], what: str = "line"
) -> tuple[tuple[str, ...], ...]:
    """``lines`` (straight, evenly spaced) or, with ``what="link"``, ``links`` (any shape)."""
    if not isinstance(raw, list):
        raise fail(f"'{what}s' must be an array of strings of cell ids")
    lines = []
    for n, entry in enumerate(raw, start=1):
        if not isinstance(entry, str):
            raise fail(f"{what} {n}: must be a string of cell ids separated by spaces")
        ids = tuple(entry.split())
        where = f"{what} {n} ({entry!r})"
        if len(ids) < 2:
            raise fail(f"{where}: needs at least two cells")
        for cell_id in ids:
            if cell_id not in cells:
                raise fail(f"{where}: unknown cell {cell_id!r}")
        if len(set(ids)) != len(ids):
            raise fail(f"{where}: a cell appears twice")
        if what == "line":
            problem = _straightness_problem(ids, cells)
            if problem:
                raise fail(f"{where}: {problem}")
        lines.append(ids)
    return tuple(lines)


def _straightness_problem(ids: tuple[str, ...], cells: dict[str, Cell]) -> str | None:
    """Why the cells of a line do not lie on one straight line at even spacing, or
    None when they do."""
    (x0, y0), (x1, y1) = cells[ids[0]].xy, cells[ids[1]].xy
    dx, dy = x1 - x0, y1 - y0
    if math.hypot(dx, dy) < STRAIGHTNESS_MM:
        return f"{ids[0]} and {ids[1]} are at the same place"
    for k, cell_id in enumerate(ids):
        x, y = cells[cell_id].xy
        off = math.hypot(x - (x0 + k * dx), y - (y0 + k * dy))
        if off > STRAIGHTNESS_MM:
            return f"{cell_id} is {off:.1f} mm off the straight, evenly spaced line"
    return None
