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
    #: each cell the move changes, with the pieces a hand would find there after it
    #: (bottom first; none where it empties the cell)
    after: dict[str, tuple[str, ...]] = {}


def choices_of(game, base: Any, moves: tuple[str, ...]) -> tuple[Choice, ...]:
    """The ``moves`` (in notation) from ``base``, each with its path and the cells it
    changes."""
    before = game.stacks(base)
    drawn = []
    for text in moves:
        move = game.parse_move(base, text)
        stands = game.stacks(game.apply(base, move))
        after = {
            cell: stands.get(cell, ())
            for cell in before.keys() | stands.keys()
            if before.get(cell, ()) != stands.get(cell, ())
        }
        drawn.append(Choice(move=text, path=tuple(getattr(move, "path", ())), after=after))
    return tuple(drawn)
