"""The coasters of Hägar: Auf zu neuen Ufern!: read the tile set (the
``[[game.coaster]]`` tables of ``engines/boards/haegar.toml``), validate it, and turn
coasters on the table.

A coaster is four fields (nw, ne, sw, se as printed upright) with their landscape and
printed gold, skull, shield and dice number; a beer coaster also knows where its glass
points. A coaster is turned in quarter turns clockwise: turn 0 lies upright (printed
top edge north), turn 1 has its top edge facing east. This module only reads data and
does geometry; it knows nothing of whose turn it is or what is legal.

>>> from engines.geometry import load_board
>>> coasters = parse_coasters(load_board("haegar").game["coaster"], "haegar.toml")
>>> c04 = coasters["c04"]
>>> c04.fields["ne"].landscape, SIDES[c04.beer]
('land', 'south')
>>> [(corner, printed, field.landscape) for corner, printed, field in c04.on_table(1)]
[('sw', 'se', 'water'), ('se', 'ne', 'land'), ('nw', 'sw', 'water'), ('ne', 'nw', 'forest')]
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engines.errors import BoardFileError

LANDSCAPES = ("land", "forest", "water")
#: sides of a coaster, of a field and of the table, clockwise from north
SIDES = ("north", "east", "south", "west")
#: a field's corner of its coaster and its offset in fields from the coaster's sw corner
CORNERS = {"sw": (0, 0), "se": (1, 0), "nw": (0, 1), "ne": (1, 1)}
#: where a corner goes after a quarter turn clockwise
_QUARTER_TURN = {"nw": "ne", "ne": "se", "se": "sw", "sw": "nw"}
#: the outer edges of each corner's field
_OUTER = {
    "nw": ("north", "west"),
    "ne": ("north", "east"),
    "sw": ("south", "west"),
    "se": ("south", "east"),
}
ARROWS = ("row", "column")
COASTERS_IN_THE_BOX = 12
_ID = re.compile(r"^[a-z][a-z0-9_]*$")
_FIELD_KEYS = {"landscape", "gold", "skull", "shield", "die", "arrow"}
_COASTER_KEYS = {"id", "beer", *CORNERS}


@dataclass(frozen=True)
class Field:
    """One printed field: its landscape and what is printed on or beside it."""

    landscape: str
    gold: bool = False
    skull: bool = False
    #: index in SIDES of the outer edge with a shield (printed upright), or None
    shield: int | None = None
    die: int | None = None
    #: "row" or "column" as printed upright, with a die
    arrow: str | None = None

    def arrow_on_table(self, turn: int) -> str | None:
        """The arrow's direction once the coaster lies with ``turn`` quarter turns."""
        if self.arrow is None or turn % 2 == 0:
            return self.arrow
        return ARROWS[1 - ARROWS.index(self.arrow)]


@dataclass(frozen=True)
class Coaster:
    """One coaster as printed: ``fields`` by printed corner; ``beer`` = SIDES index."""

    id: str
    fields: dict[str, Field]
    beer: int | None = None
    _turned: tuple[tuple[tuple[str, str, Field], ...], ...] = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        turned = []
        for turn in range(4):
            at = {}
            for printed in CORNERS:
                corner = printed
                for _ in range(turn):
                    corner = _QUARTER_TURN[corner]
                at[corner] = (printed, self.fields[printed])
            turned.append(tuple((corner, *at[corner]) for corner in CORNERS))
        object.__setattr__(self, "_turned", tuple(turned))

    def on_table(self, turn: int) -> tuple[tuple[str, str, Field], ...]:
        """``(table corner, printed corner, field)`` for the table corners sw, se, nw,
        ne when the coaster lies at ``turn``."""
        return self._turned[turn]

    def beer_turn(self, side: int) -> int | None:
        """The one turn at which the glass points to table side ``side`` (None: no beer)."""
        return None if self.beer is None else (side - self.beer) % 4


def parse_coasters(raw: Any, source: str) -> dict[str, Coaster]:
    """Validate the ``[[game.coaster]]`` tables read from ``source``, by coaster id;
    every problem names ``source`` and the coaster."""

    def fail(problem: str) -> BoardFileError:
        return BoardFileError(f"{source}: {problem}")

    if not isinstance(raw, list) or len(raw) != COASTERS_IN_THE_BOX:
        count = len(raw) if isinstance(raw, list) else 0
        raise fail(f"the box holds {COASTERS_IN_THE_BOX} coasters; found {count} [[game.coaster]]")
    coasters: dict[str, Coaster] = {}
    for n, entry in enumerate(raw, start=1):
        coaster = _parse_coaster(entry, f"coaster {n}", fail)
        if coaster.id in coasters:
            raise fail(f"coaster {coaster.id!r}: id used twice")
        coasters[coaster.id] = coaster
    return coasters


def _parse_coaster(entry: Any, where: str, fail: Callable[[str], BoardFileError]) -> Coaster:
    if not isinstance(entry, dict):
        raise fail(f"{where}: must be a [[game.coaster]] table")
    coaster_id = entry.get("id")
    if not isinstance(coaster_id, str) or not _ID.match(coaster_id):
        raise fail(f"{where}: id {coaster_id!r} must be lower-case letters, digits, '_'")
    where = f"coaster {coaster_id!r}"
    unknown = set(entry) - _COASTER_KEYS
    if unknown:
        raise fail(f"{where}: unknown key(s) {sorted(unknown)}; allowed {sorted(_COASTER_KEYS)}")
    beer = entry.get("beer")
    if beer is not None and beer not in SIDES:
        raise fail(f"{where}: beer = {beer!r}; the glass points to one of {', '.join(SIDES)}")
    fields = {}
    for corner in CORNERS:
        if corner not in entry:
            raise fail(f"{where}: field {corner} is missing (a coaster has nw, ne, sw, se)")
        fields[corner] = _parse_field(entry[corner], corner, f"{where} field {corner}", fail)
    if all(f.skull for f in fields.values()):
        raise fail(f"{where}: every field has a skull; a token must fit somewhere")
    return Coaster(coaster_id, fields, None if beer is None else SIDES.index(beer))


def _parse_field(raw: Any, corner: str, where: str, fail: Callable[[str], BoardFileError]) -> Field:
    if not isinstance(raw, dict):
        raise fail(f'{where}: must be a table like {{ landscape = "land" }}')
    unknown = set(raw) - _FIELD_KEYS
    if unknown:
        raise fail(f"{where}: unknown key(s) {sorted(unknown)}; allowed {sorted(_FIELD_KEYS)}")
    landscape = raw.get("landscape")
    if landscape not in LANDSCAPES:
        raise fail(f"{where}: landscape {landscape!r}; choose one of {', '.join(LANDSCAPES)}")
    for flag in ("gold", "skull"):
        if not isinstance(raw.get(flag, False), bool):
            raise fail(f"{where}: {flag} must be true or false")
    shield = raw.get("shield")
    if shield is not None and shield not in _OUTER[corner]:
        raise fail(
            f"{where}: shield {shield!r} is not an outer edge of the {corner} field "
            f"({' or '.join(_OUTER[corner])})"
        )
    die, arrow = raw.get("die"), raw.get("arrow")
    if die is not None and (isinstance(die, bool) or die not in range(1, 7)):
        raise fail(f"{where}: die {die!r} must be a number from 1 to 6")
    if (die is None) != (arrow is None):
        raise fail(f"{where}: a dice number and its arrow come together (die = 2, arrow = ...)")
    if arrow is not None and arrow not in ARROWS:
        raise fail(f"{where}: arrow {arrow!r}; choose row or column")
    return Field(
        landscape,
        raw.get("gold", False),
        raw.get("skull", False),
        None if shield is None else SIDES.index(shield),
        die,
        arrow,
    )
