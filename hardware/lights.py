"""The cell-light plan: what the referee wants the board's LEDs to say, turned into one
colour per LED for ``firmware_bridge.host.Link.set_leds``.

This module only paints what it is told (cell ids in a ``Highlights``); it never looks
at a game, a rule or a sensor, and never sends anything itself. It runs on every sensor
change, so a frame is a copy of a cached background plus a few byte writes.

>>> lights = CellLights(["a1", "a2", "a3"], Palette.load())
>>> lights.frame(Highlights(destinations=frozenset({"a2"}), lifted="a1")).hex(" ")
'ff ff ff 00 78 ff 00 00 00'
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from hardware import datafiles

RGB = tuple[int, int, int]

#: The roles of the cell LEDs, lowest precedence first: where roles meet on one cell,
#: the later one shows. Guidance (one cell at a time) beats errors because it is the one
#: thing to do next; errors beat the lifted piece and its destinations because a wrong
#: board must be put right before anything else counts; the last move is history and
#: yields to everything happening now.
ROLES = ("last_move", "destination", "lifted", "error", "place", "remove")


@dataclass(frozen=True)
class Highlights:
    """What the cell LEDs should say, in cell ids."""

    destinations: frozenset[str] = frozenset()  # legal destinations of the lifted piece
    lifted: str | None = None  # where a piece was lifted from
    last_move: tuple[str, ...] = ()  # cells of the last accepted move (path)
    errors: frozenset[str] = frozenset()  # cells that differ from the last legal position
    place: str | None = None  # guidance: put a piece here (one cell at a time)
    remove: str | None = None  # guidance: take the piece off here
    turn_colour: str | None = None  # colour name of the seat to move, e.g. "red"


@dataclass(frozen=True)
class Palette:
    """Colours by role and by name, from ``hardware/palette.toml`` and the owner's
    overrides. Build it with ``Palette.load``."""

    cells: Mapping[str, RGB]  # cell-LED role -> colour, one entry per name in ROLES
    status: Mapping[str, RGB]  # status-LED colours of moods that show no seat
    colours: Mapping[str, RGB]  # seat and piece colours by name
    turn_level: float  # share of full brightness of the turn wash

    @classmethod
    def load(cls, overrides: Mapping | None = None) -> "Palette":
        """The packaged palette with ``overrides`` ({table: {key: [r, g, b]}}, the
        layout of palette.toml) laid over it; ValueError says which entry is wrong."""
        name = "palette.toml"
        return cls.from_tables(datafiles.load(name, overrides, open_tables=("colours",)), name)

    @classmethod
    def from_tables(cls, tables: Mapping[str, Mapping], name: str = "palette") -> "Palette":
        """A palette from tables laid out like palette.toml; ``name`` labels errors."""
        missing = {"cells", "status", "turn", "colours"} - tables.keys()
        if missing:
            raise ValueError(f"{name}: missing tables {', '.join(sorted(missing))}")
        cells = _colour_table(name, "cells", tables["cells"])
        if set(cells) != set(ROLES):
            raise ValueError(
                f"{name}: [cells] must give exactly the roles {', '.join(ROLES)}, "
                f"not {', '.join(sorted(cells))}"
            )
        level = tables["turn"].get("level")
        if isinstance(level, bool) or not isinstance(level, int | float) or not 0 <= level <= 1:
            raise ValueError(f"{name}: turn.level = {level!r}: expected a number 0..1")
        return cls(
            cells=cells,
            status=_colour_table(name, "status", tables["status"]),
            colours=_colour_table(name, "colours", tables["colours"]),
            turn_level=float(level),
        )

    def colour(self, name: str) -> RGB:
        """The colour called ``name``; ValueError naming the known ones if there is none."""
        try:
            return self.colours[name]
        except KeyError:
            known = ", ".join(sorted(self.colours))
            raise ValueError(f"no colour named {name!r} in the palette (known: {known})") from None


class CellLights:
    """Frames for the cell LEDs of one board.

    ``cells`` are the cell ids in LED order (the sensor index order of the board's
    wiring); None marks an LED that sits on no cell and stays dark. Cells a
    ``Highlights`` names that have no LED are left out: a board may light only some
    of its cells.
    """

    def __init__(self, cells: Sequence[str | None], palette: Palette):
        ids = [cell for cell in cells if cell is not None]
        if len(ids) != len(set(ids)):
            twice = sorted({cell for cell in ids if ids.count(cell) > 1})
            raise ValueError(f"cells with more than one LED: {', '.join(twice)}")
        self.palette = palette
        self.count = len(cells)
        self._offset = {cell: 3 * i for i, cell in enumerate(cells) if cell is not None}
        self._role = {role: bytes(palette.cells[role]) for role in ROLES}
        # The wash depends only on the seat colour, so each seat's background is built
        # once; the empty key is the dark board shown when no seat is to move.
        self._backgrounds = {None: bytes(3 * self.count)}

    def frame(self, highlights: Highlights) -> bytes:
        """r, g, b for each LED in order, ready for ``Link.set_leds``.

        ValueError if ``turn_colour`` is not a colour of the palette.
        """
        frame = bytearray(self._background(highlights.turn_colour))
        paint = self._paint
        paint(frame, highlights.last_move, "last_move")
        paint(frame, highlights.destinations, "destination")
        paint(frame, (highlights.lifted,), "lifted")
        paint(frame, highlights.errors, "error")
        paint(frame, (highlights.place,), "place")
        paint(frame, (highlights.remove,), "remove")
        return bytes(frame)

    def _paint(self, frame: bytearray, cells, role: str) -> None:
        colour = self._role[role]
        offset = self._offset
        for cell in cells:
            at = offset.get(cell)
            if at is not None:
                frame[at : at + 3] = colour

    def _background(self, turn_colour: str | None) -> bytes:
        background = self._backgrounds.get(turn_colour)
        if background is None:
            level = self.palette.turn_level
            glow = bytes(round(c * level) for c in self.palette.colour(turn_colour))
            background = bytearray(3 * self.count)
            for at in self._offset.values():
                background[at : at + 3] = glow
            background = self._backgrounds[turn_colour] = bytes(background)
        return background


def _colour_table(name: str, table: str, entries: Mapping) -> Mapping[str, RGB]:
    colours = {}
    for key, value in entries.items():
        if not (
            isinstance(value, list | tuple)
            and len(value) == 3
            and all(type(c) is int and 0 <= c <= 255 for c in value)
        ):
            raise ValueError(
                f"{name}: {table}.{key} = {value!r}: expected [r, g, b], each a whole number 0..255"
            )
        colours[key] = tuple(value)
    return MappingProxyType(colours)
