"""Random play from a position, as a computer player's search plays it out: chance
drawn by the caller's ``sample``, moves drawn with the caller's ``pick``, to the end
of the game or for a number of moves. A game may play its own playouts faster
(``playout`` on the game, see ``engines.players.search``); it must make the same
draws in the same order. This module never draws chance itself.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any


def played_out(
    state: Any,
    pick: random.Random,
    sample: Callable[[Any], Any],
    limit: int,
    tick: Callable[[], None],
    steps: tuple[Callable, Callable, Callable, Callable],
) -> Any:
    """The outcome once the game ends, else the state after ``limit`` moves.
    ``steps`` are the game's ``outcome``, ``chance``, ``resolve`` and the state after
    a random move (``random_play(state, pick)[1]``), or faster ones making the same
    draws; ``tick()`` before each step (a search's clock, which may stop it)."""
    outcome, chance, resolve, move = steps
    plies = 0
    while True:
        tick()
        ended = outcome(state)
        if ended is not None:
            return ended
        spec = chance(state)
        if spec is not None:
            state = resolve(state, sample(spec))
            continue
        if plies >= limit:
            return state
        state = move(state, pick)
        plies += 1
