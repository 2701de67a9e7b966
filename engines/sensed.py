"""A turn's outcomes by what sensors would read after each, kept as a few shared
readings and two small numbers per outcome.

Most of a big turn's outcomes read alike but for one figure: every space the fox
may end on, after the same jump and molehill. ``SensedOutcomes`` keeps each shared
reading once (a row) and, per outcome, its row and the cell the figure stands on:
a turn of a hundred thousand outcomes is a few thousand rows and two arrays, not a
tuple per outcome. The rows themselves are flat arrays of cells and token ids
(``Rows``), not a tuple each: a big turn's index lives a while and its room would
be kept by the interpreter after it goes. Pure data: it never looks anything up by
itself (the referee's ``boardref.referee.successors`` does) and never builds a
position.
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

#: ``SensedOutcomes.cell`` of an outcome that reads exactly as its row
NO_CELL = -1


class Rows:
    """Shared readings, one flat changes tuple per sensor each (cell index, token,
    cell index, token ..., in board order), stored flat: sensor ``s``'s changes of
    row ``r`` are entries ``start[s][r]`` to ``start[s][r + 1]`` of ``at[s]`` (the
    cells) and ``shows[s]`` (the tokens' ids in ``names``). ``rows[r]`` writes a row
    out as tuples, for the few a caller looks at.

    >>> rows = Rows(1)
    >>> rows.add(((3, "hare", 7, None),))
    >>> rows[0], len(rows)
    (((3, 'hare', 7, None),), 1)
    """

    def __init__(self, sensors: int):
        self.sensors = sensors
        #: the tokens the rows show, by id, and their ids
        self.names: list[Any] = []
        self.ids: dict[Any, int] = {}
        self.start = [array("i", [0]) for _ in range(sensors)]
        self.at = [array("h") for _ in range(sensors)]
        self.shows = [array("B") for _ in range(sensors)]

    @classmethod
    def of(cls, sensors: int, rows: Iterable[tuple[tuple, ...]]) -> Rows:
        """``rows`` (one flat changes tuple per sensor each) stored flat."""
        found = cls(sensors)
        for changes in rows:
            found.add(changes)
        return found

    def id(self, token: Any) -> int:
        """The id of ``token``, given it if it has none yet."""
        found = self.ids.get(token)
        if found is None:
            found = self.ids[token] = len(self.names)
            self.names.append(token)
        return found

    def end(self) -> None:
        """Close the row whose changes were appended to ``at`` and ``shows``."""
        for s in range(self.sensors):
            self.start[s].append(len(self.at[s]))

    def add(self, changes: tuple[tuple, ...]) -> None:
        """Append a row: one flat changes tuple per sensor."""
        for s, flat in enumerate(changes):
            self.at[s].extend(flat[0::2])
            self.shows[s].extend(map(self.id, flat[1::2]))
        self.end()

    def add_with(self, r: int, cell: int, tokens: tuple, same: tuple) -> None:
        """Append row ``r`` with ``cell`` showing ``tokens[s]`` to sensor ``s``
        instead, or with ``cell`` left out where ``same[s]`` (the position showed
        that token there)."""
        for s in range(self.sensors):
            a, b = self.start[s][r], self.start[s][r + 1]
            cells, shows = self.at[s][a:b], self.shows[s][a:b]
            k = bisect_left(cells, cell)
            here = k < len(cells) and cells[k] == cell
            if not same[s]:
                cells[k : k + here] = array("h", [cell])
                shows[k : k + here] = array("B", [self.id(tokens[s])])
            elif here:
                del cells[k], shows[k]
            self.at[s].extend(cells)
            self.shows[s].extend(shows)
        self.end()

    def reading(self, r: int, s: int) -> tuple:
        """Sensor ``s``'s changes of row ``r``, a flat tuple."""
        a, b = self.start[s][r], self.start[s][r + 1]
        flat: list[Any] = [None] * (2 * (b - a))
        flat[0::2] = self.at[s][a:b]
        flat[1::2] = map(self.names.__getitem__, self.shows[s][a:b])
        return tuple(flat)

    def __len__(self) -> int:
        return len(self.start[0]) - 1 if self.sensors else 0

    def __getitem__(self, r: int) -> tuple[tuple, ...]:
        return tuple(self.reading(r, s) for s in range(self.sensors))

    def __iter__(self) -> Iterator[tuple[tuple, ...]]:
        return map(self.__getitem__, range(len(self)))

    def firsts(self) -> list[tuple]:
        """Every row's first sensor's changes, as tuples."""
        return [self.reading(r, 0) for r in range(len(self))]

    @property
    def nbytes(self) -> int:
        """Bytes of the arrays (the names are the game's, shared)."""
        parts = (*self.start, *self.at, *self.shows)
        return sys.getsizeof(self) + sum(map(sys.getsizeof, parts))


@dataclass(frozen=True)
class SensedOutcomes:
    """Outcome ``n`` reads as row ``row[n]`` of ``rows`` (one flat changes tuple per
    sensor: cell index, token, cell index, token ..., in board order, where the
    reading differs from the position's), with the figure shown as ``tokens`` (one
    per sensor) added on cell ``cell[n]``, or with nothing added when that is
    ``NO_CELL``. A cell added never appears in its row's changes and never reads
    as the figure in the position, so it always adds one change per sensor.

    >>> rows = Rows(1)
    >>> rows.add(((3, "hare"),))
    >>> sensed = SensedOutcomes(rows, ("fox",), array("i", [0, 0]), array("h", [-1, 5]))
    >>> list(sensed)
    [(0, (3, 'hare')), (1, (3, 'hare', 5, 'fox'))]
    """

    rows: Rows
    tokens: tuple
    row: array[int]
    cell: array[int]

    @classmethod
    def listed(cls, outcomes: Iterable[tuple]) -> tuple[SensedOutcomes, list[Any]]:
        """``(ref, changes, ...)`` rows (one changes tuple per sensor, as
        ``Game.sensed_successors`` lists them) as ``SensedOutcomes`` and the refs
        in their order: outcome ``n`` is ``refs[n]``."""
        ids: dict[tuple, int] = {}
        refs, row = [], array("i")
        rows: Rows | None = None
        for ref, *changes in outcomes:
            if rows is None:
                rows = Rows(len(changes))
            refs.append(ref)
            found = tuple(changes)
            r = ids.setdefault(found, len(ids))
            if r == len(rows):
                rows.add(found)
            row.append(r)
        cell = array("h", [NO_CELL]) * len(refs)
        return cls(rows or Rows(0), (), row, cell), refs

    def __len__(self) -> int:
        return len(self.row)

    def changes(self, n: int) -> tuple[tuple, ...]:
        """What each sensor reads differently after outcome ``n``."""
        return tuple(self.reading(n, s) for s in range(self.rows.sensors))

    def reading(self, n: int, sensor: int) -> tuple:
        """What sensor ``sensor`` reads differently after outcome ``n``."""
        changes, cell = self.rows.reading(self.row[n], sensor), self.cell[n]
        if cell == NO_CELL:
            return changes
        return with_change(changes, cell, self.tokens[sensor])

    def __iter__(self) -> Iterator[tuple]:
        """``(n, changes, ...)`` for every outcome, in order."""
        for n in range(len(self.row)):
            yield (n, *self.changes(n))


def with_change(changes: tuple, cell: int, token: Any) -> tuple:
    """Flat ``changes`` (in board order) with ``cell`` reading ``token`` added; ``cell``
    is not among them."""
    k = 0
    while k < len(changes) and changes[k] < cell:
        k += 2
    return changes[:k] + (cell, token) + changes[k:]


def without_change(changes: tuple, k: int) -> tuple:
    """Flat ``changes`` without the change at flat position ``k`` (its cell)."""
    return changes[:k] + changes[k + 2 :]
