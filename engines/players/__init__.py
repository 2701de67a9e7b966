"""Computer players for every registered game: ``RandomPlayer`` and ``SearchPlayer``
(Monte Carlo tree search, see ``engines.players.search``), with difficulty levels.

A player never reads what its seat may not know (hidden hands are dealt afresh
from ``game.view``) and never foresees chance (it imagines draws with its own RNG,
never the game's stream). It depends on ``engines`` only.

>>> from engines import load_game
>>> from engines.players import computer_move, player
>>> game = load_game("catch_the_hare")
>>> state = game.initial_state()
>>> move = computer_move(game, state, level="easy", seed=7)
>>> move in game.legal_moves(state)
True
>>> player("easy", seed=1)
SearchPlayer(playouts=25, deadline_s=5.0)
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
    """A difficulty: ``playouts`` iterations a move, the same work on any machine;
    ``ceiling_s`` only stops a search that would take far longer than it should
    (a machine slower than a Pi, or one busy with something else)."""

    playouts: int
    ceiling_s: float
    #: positions judged a move in the alpha-beta games, where one costs far less
    #: than a playout
    judgements: int


#: difficulty levels, weakest first. A playout is one iteration of the tree search,
#: or one position judged by the alpha-beta search (Catch the Hare, two-seat
#: Sternhalma). The counts make "hard" think at most about 20 s a move on a Pi in
#: the slowest game (Fang den Hut!, see docs/players.md); the ceilings are a few
#: times what a Pi needs
LEVELS = {
    "easy": Level(playouts=25, ceiling_s=5.0, judgements=25),
    "medium": Level(playouts=200, ceiling_s=15.0, judgements=200),
    "hard": Level(playouts=1000, ceiling_s=60.0, judgements=2000),
}
#: the names ``player`` understands: "random", "search" (the strongest level), a
#: level, or "search:N" (N playouts a move, no clock)
PLAYERS = ("random", "search", *LEVELS, "search:N")


def player(name: str, seed: Any = None, playouts: int | None = None) -> RandomPlayer | SearchPlayer:
    """The computer player called ``name`` (see ``PLAYERS``), seeded; ``playouts``
    replaces a search level's budget with that many iterations (no ceiling), as the
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
    return searcher(level, seed)


def searcher(level: Level, seed: Any = None) -> SearchPlayer:
    """The search player of ``level``, seeded."""
    return SearchPlayer(
        seed, playouts=level.playouts, deadline_s=level.ceiling_s, judgements=level.judgements
    )


def computer_move(game: Game, state: Any, level: str = "hard", seed: Any = None) -> Any:
    """The move the computer plays at ``level`` for the seat to act at ``state``:
    the level's playouts, cut only at its ceiling. Blocks while it searches (seconds
    on a Pi): run it off the event loop."""
    chosen = LEVELS.get(level)
    if chosen is None:
        raise OptionError(f"no level {level!r}; choose one of {', '.join(LEVELS)}")
    return searcher(chosen, seed).choose(game, state)


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
