"""Who starts a rematch, and where its players sit: the start passes to the next
player, so that over an evening each player starts in turn.

Where the table chooses who starts (a game with a ``first_seat``; the Fang den Hut!
card game's book even has each player start once), the next seat starts and everyone
keeps their seat. Where the sides decide (in Catch the Hare the hunters move first),
the players change sides instead: each moves one seat back, so the next player takes
the starting side, and a computer seat moves with its side's player. It only
arranges seats; it never changes a game's variant or the computer's strength.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engines.core import FIRST_SEAT, Game


@dataclass(frozen=True)
class Seating:
    """How a rematch of a game is seated."""

    #: the rematch's options (the game's, with the next starting seat where it has one)
    options: dict[str, Any]
    #: the rematch's computer seats
    computer: tuple[int, ...]
    #: ``moved[seat]``: the seat the player of ``seat`` takes in the rematch
    moved: tuple[int, ...]
    #: the seat of the game just played whose player starts the rematch
    starter: int

    @property
    def sides_change(self) -> bool:
        return any(seat != to for seat, to in enumerate(self.moved))


def next_seating(game: Game, computer: Iterable[int]) -> Seating:
    """The rematch of ``game`` (its computer seats ``computer``) with the start passed on."""
    players = game.players
    if FIRST_SEAT.name in game.options:
        first = (game.options[FIRST_SEAT.name] + 1) % players
        return Seating(
            {**game.options, FIRST_SEAT.name: first},
            tuple(sorted(computer)),
            tuple(range(players)),
            first,
        )
    moved = tuple((seat - 1) % players for seat in range(players))
    return Seating(
        dict(game.options),
        tuple(sorted(moved[seat] for seat in computer)),
        moved,
        moved.index(0),
    )
