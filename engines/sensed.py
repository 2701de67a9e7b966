"""A turn's outcomes by what sensors would read after each, kept as a few shared
readings and two small numbers per outcome.

Most of a big turn's outcomes read alike but for one figure: every space the fox
may end on, after the same jump and molehill. ``SensedOutcomes`` keeps each shared
reading once (a row) and, per outcome, its row and the cell the figure stands on:
a turn of a hundred thousand outcomes is a few thousand rows and two arrays, not a
tuple per outcome. Pure data: it never looks anything up by itself (the referee's
``boardref.referee.successors`` does) and never builds a position.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

#: ``SensedOutcomes.cell`` of an outcome that reads exactly as its row
NO_CELL = -1


@dataclass(frozen=True)
class SensedOutcomes:
    """Outcome ``n`` reads as row ``row[n]`` of ``rows`` (one flat changes tuple per
    sensor: cell index, token, cell index, token ..., in board order, where the
    reading differs from the position's), with the figure shown as ``tokens`` (one
    per sensor) added on cell ``cell[n]``, or with nothing added when that is
    ``NO_CELL``. A cell added never appears in its row's changes and never reads
    as the figure in the position, so it always adds one change per sensor.

    >>> sensed = SensedOutcomes([((3, "hare"),)], ("fox",), array("i", [0, 0]), array("h", [-1, 5]))
    >>> list(sensed)
    [(0, (3, 'hare')), (1, (3, 'hare', 5, 'fox'))]
    """

    rows: list[tuple[tuple, ...]]
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
        for ref, *changes in outcomes:
            refs.append(ref)
            row.append(ids.setdefault(tuple(changes), len(ids)))
        cell = array("h", [NO_CELL]) * len(refs)
        return cls(list(ids), (), row, cell), refs

    def __len__(self) -> int:
        return len(self.row)

    def changes(self, n: int) -> tuple[tuple, ...]:
        """What each sensor reads differently after outcome ``n``."""
        shared, cell = self.rows[self.row[n]], self.cell[n]
        if cell == NO_CELL:
            return shared
        return tuple(
            with_change(changes, cell, token) for changes, token in zip(shared, self.tokens)
        )

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
