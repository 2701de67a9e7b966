"""Rules engines for the games boardref referees: pure functions of immutable states.

>>> from engines import load_game, GAMES
>>> game = load_game("catch_the_hare", board="no_diagonal")
>>> state = game.initial_state()
>>> move = game.parse_move(state, "c2-c1")
Traceback (most recent call last):
...
engines.errors.IllegalMove: c2-c1: c1 is occupied: move to a free point

Engines never do I/O beyond reading their packaged board files, and import nothing
from the other boardref packages.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from engines.core import PASS, Game, Move, Option, Outcome
from engines.errors import (
    BoardFileError,
    IllegalMove,
    NotationError,
    OptionError,
    RecordError,
    RulesError,
)
from engines.words import words

# name -> "module:class". A new engine registers here and the shared random-game
# test (tests/engines/test_random_games.py) exercises it with no further work.
_ENGINES = {
    "sternhalma": "engines.sternhalma:Sternhalma",
    "catch_the_hare": "engines.catch_the_hare:CatchTheHare",
    "haegar": "engines.haegar:Haegar",
    "fang_den_hut_cards": "engines.fang_den_hut_cards:FangDenHutCards",
    "fang_den_hut": "engines.fang_den_hut:FangDenHut",
    "hakenschlagen": "engines.hakenschlagen:Hakenschlagen",
}
GAMES: tuple[str, ...] = tuple(_ENGINES)


def load_game(name: str, players: int | None = None, **options: Any) -> Game:
    """The rules of game ``name`` for ``players`` (the game's default when None)."""
    if name not in _ENGINES:
        raise OptionError(
            words(
                "rules.no_game_boardref_knows",
                "no game {name}; boardref knows {games}",
                name=repr(name),
                games=", ".join(GAMES),
            )
        )
    module, cls = _ENGINES[name].split(":")
    game: Game = getattr(import_module(module), cls)(players, **options)
    return game


__all__ = [
    "GAMES",
    "PASS",
    "BoardFileError",
    "Game",
    "IllegalMove",
    "Move",
    "NotationError",
    "Option",
    "OptionError",
    "Outcome",
    "RecordError",
    "RulesError",
    "load_game",
]
