"""The moves the table asks about, drawn: for each move offered to choose (several fit
the board), the path it takes and what would stand on each cell it changes, so a page
draws every one on the board and names each by what differs from the others.

It describes the moves only; it never decides which one was played.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class Choice(BaseModel):
    """One move offered to choose, as a page draws it."""

    model_config = ConfigDict(frozen=True)

    move: str
    #: the cells it passes through in order (empty where the move has no one path)
    path: tuple[str, ...] = ()
    #: each cell that this move or another offered with it changes, with the pieces a
    #: hand would find there after this move (bottom first; none where it is empty)
    after: dict[str, tuple[str, ...]] = {}


def choices_of(game, base: Any, moves: tuple[str, ...]) -> tuple[Choice, ...]:
    """The ``moves`` (in notation) from ``base``, each with its path and what it leaves
    on every cell that any of them changes (so each says what stands where they differ,
    also where it leaves a cell as it was)."""
    before = game.stacks(base)
    parsed = [game.parse_move(base, text) for text in moves]
    ends = [game.stacks(game.apply(base, move)) for move in parsed]
    changed = {
        cell
        for stands in ends
        for cell in before.keys() | stands.keys()
        if before.get(cell, ()) != stands.get(cell, ())
    }
    return tuple(
        Choice(
            move=text,
            path=tuple(getattr(move, "path", ())),
            after={cell: stands.get(cell, ()) for cell in sorted(changed)},
        )
        for text, move, stands in zip(moves, parsed, ends, strict=True)
    )
