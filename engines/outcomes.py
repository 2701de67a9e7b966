"""A turn's distinct outcomes as a list whose moves are written out only when read.

Some turns end in tens of thousands of distinct positions (a Hakenschlagen hand with
the fox and molehill marbles: every fox space times every molehill space). Listing
them as end keys (small ints) is fast; building a move object for each is not, and
most callers read only a few (a random player picks one, the referee looks one up).
``Outcomes`` behaves like the list ``legal_moves`` promises: ``len``, indexing,
slicing, iteration, ``in`` and ``==`` with a list. It never changes after it is made.

``in`` asks whether a move is legal here: a move is in when it leads to one of the
outcomes, even if it is not the move listed for that outcome (a turn whose uses come
in another order that the rules allow). So ``move in game.legal_moves(state)`` agrees
with ``game.apply``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Iterator, Sequence
from typing import Any


class Outcomes(Sequence):
    """Moves, one per key in ``ends`` (each key one distinct outcome, in order).

    ``move_of(key)`` writes a key's move out; ``key_of(move)`` is the key a move
    leads to, or None when the move is not legal here.

    >>> moves = Outcomes([1, 2, 3], lambda key: f"m{key}", lambda move: int(move[1:]))
    >>> len(moves), moves[0], moves[-2:], "m2" in moves, moves == ["m1", "m2", "m3"]
    (3, 'm1', ['m2', 'm3'], True, True)
    >>> "m02" in moves, "m4" in moves
    (True, False)
    """

    __slots__ = ("ends", "_order", "_move_of", "_key_of")

    def __init__(
        self,
        ends: Collection[Hashable],
        move_of: Callable[[Any], Any],
        key_of: Callable[[Any], Hashable | None],
    ) -> None:
        self.ends = ends
        self._order: list | None = None
        self._move_of = move_of
        self._key_of = key_of

    def __len__(self) -> int:
        return len(self.ends)

    def __getitem__(self, index: Any) -> Any:
        if self._order is None and not isinstance(index, slice) and hasattr(self.ends, "at"):
            return self._move_of(self.ends.at(index))  # ends that find one by position
        if self._order is None:
            self._order = list(self.ends)
        if isinstance(index, slice):
            return [self._move_of(key) for key in self._order[index]]
        return self._move_of(self._order[index])

    def __iter__(self) -> Iterator:
        return map(self._move_of, self.ends)

    def __contains__(self, move: object) -> bool:
        key = self._key_of(move)
        return key is not None and key in self.ends

    def listed(self, move: object) -> Any:
        """The move listed for the outcome ``move`` leads to, or None if it is not legal."""
        key = self._key_of(move)
        return self._move_of(key) if key is not None and key in self.ends else None

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Outcomes | list | tuple):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        shown = ", ".join(map(str, self[:3]))
        more = f", ... {len(self) - 3} more" if len(self) > 3 else ""
        return f"Outcomes([{shown}{more}])"
