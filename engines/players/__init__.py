"""Computer players for every registered game: ``RandomPlayer`` and ``SearchPlayer``
(Monte Carlo tree search, see ``engines.players.search``), with difficulty levels.

A player never reads what its seat may not know (hidden hands are dealt afresh
from ``game.view``) and never foresees chance (it imagines draws with its own RNG,
never the game's stream). It depends on ``engines`` only.

>>> from engines import load_game
>>> from engines.players import computer_move, player
>>> game = load_game("catch_the_hare")
>>> state = game.initial_state()
>>> move = computer_move(game, state, seconds=0.5, seed=7)
>>> move in game.legal_moves(state)
True
>>> player("easy", seed=1)
SearchPlayer(playouts=25, deadline_s=0.5)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines.core import Game
from engines.errors import OptionError
from engines.players.search import (
    RandomPlayer,
    SearchPlayer,
    random_decisions,
    random_playout,
    random_step,
)


@dataclass(frozen=True)
class Level:
    """A difficulty: at most ``playouts`` iterations and ``seconds`` a move."""

    playouts: int | None
    seconds: float | None


#: difficulty levels, weakest first; "hard" is the strongest and stays within 2 s.
#: A playout is one iteration of the tree search, or one position judged by the
#: alpha-beta search (Catch the Hare, two-seat Sternhalma)
LEVELS = {
    "easy": Level(playouts=25, seconds=0.5),
    "medium": Level(playouts=200, seconds=1.0),
    "hard": Level(playouts=2000, seconds=2.0),
}
#: the names ``player`` understands: "random", "search" (the strongest level), a
#: level, or "search:N" (N playouts a move, no clock)
PLAYERS = ("random", "search", *LEVELS, "search:N")


def player(name: str, seed: Any = None, playouts: int | None = None) -> RandomPlayer | SearchPlayer:
    """The computer player called ``name`` (see ``PLAYERS``), seeded; ``playouts``
    replaces a search level's budget with that many iterations (no clock), as the
    reproducible benchmarks do."""
    if name == "random":
        return RandomPlayer(seed)
    kind, _, count = name.partition(":")
    if kind == "search" and count:
        if not count.isdigit() or int(count) < 1:
            raise OptionError(f"{name!r}: write search:N with N playouts a move, N >= 1")
        return SearchPlayer(seed, playouts=int(count))
    level = LEVELS.get("hard" if kind == "search" else name)
    if level is None:
        raise OptionError(f"no player {name!r}; choose one of {', '.join(PLAYERS)}")
    if playouts is not None:
        return SearchPlayer(seed, playouts=playouts)
    return SearchPlayer(seed, playouts=level.playouts, deadline_s=level.seconds)


def computer_move(
    game: Game, state: Any, seconds: float = 2.0, level: str = "hard", seed: Any = None
) -> Any:
    """The move the computer plays for the seat to act at ``state``, chosen within
    about ``seconds`` (less if the level's own budget is smaller). Blocks while it
    searches: run it off the event loop."""
    chosen = LEVELS.get(level)
    if chosen is None:
        raise OptionError(f"no level {level!r}; choose one of {', '.join(LEVELS)}")
    budget = seconds if chosen.seconds is None else min(seconds, chosen.seconds)
    return SearchPlayer(seed, playouts=chosen.playouts, deadline_s=budget).choose(game, state)


__all__ = [
    "LEVELS",
    "PLAYERS",
    "Level",
    "RandomPlayer",
    "SearchPlayer",
    "computer_move",
    "player",
    "random_decisions",
    "random_playout",
    "random_step",
]
