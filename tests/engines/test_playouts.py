"""A game's own fast playout (``playout``, on a working copy or with steps of its
own) plays exactly what ``chance``, ``resolve`` and ``random_play`` play step by
step: from positions all through seeded games, the same end (winners, scores and
reason, or the position reached after the move limit) with the same draws from
``pick`` and from the chance stream."""

from __future__ import annotations

import random
from functools import partial

import pytest

from engines import GAMES, load_game
from engines.chance import Stream
from engines.core import Game, Outcome
from engines.players import random_playout

#: the games with a playout of their own, each with the tables it is tried on
FAST = {
    "haegar": [{"players": 1}, {"players": 2}, {"players": 3, "honky_tonk": True}],
    "fang_den_hut": [
        {"players": 2},
        {"players": 4, "team": True},
        {"players": 3, "tower": True},
        {"players": 4, "golden_hat": True},
        {"players": 6, "total_team": True},
    ],
    "fang_den_hut_cards": [{"players": 2}, {"players": 3}, {"players": 5, "single_game": True}],
}
#: seeded games per table, and the positions of each that a playout starts from
GAMES_PER_TABLE = 3
STARTS_PER_GAME = 5


def test_every_game_with_its_own_playout_is_checked_here():
    own = {name for name in GAMES if hasattr(load_game(name), "playout")}
    assert own == set(FAST)


def ending(game: Game, end: Outcome | object) -> object:
    """What a playout's end is compared by."""
    if isinstance(end, Outcome):
        return ("outcome", end.winners, end.scores, end.reason)
    return ("position", game.to_json(end))


def stepwise(
    game: Game, state: object, pick: random.Random, sample, limit: int
) -> Outcome | object:
    """Random play as the rules make it step by step, through the public methods."""
    plies = 0
    while (ended := game.outcome(state)) is None:
        spec = game.chance(state)
        if spec is not None:
            state = game.resolve(state, sample(spec))
            continue
        if plies >= limit:
            return state
        state = game.random_play(state, pick)[1]
        plies += 1
    return ended


def played(game: Game, playout, state: object, seed: int, limit: int) -> tuple:
    """A seeded playout's end, and where its two sources of chance stand after it."""
    pick, stream = random.Random(seed), Stream(f"playout {seed}")
    end = playout(state, pick, lambda spec: spec.draw(stream), limit)
    return ending(game, end), pick.random(), stream.counter


@pytest.mark.parametrize(
    ("name", "options"), [(name, options) for name, tables in FAST.items() for options in tables]
)
def test_the_fast_playout_plays_as_the_rules_step_by_step(name, options):
    game = load_game(name, **options)
    compared = 0
    for number in range(GAMES_PER_TABLE):
        states = random_playout(
            game, game.initial_state(), random.Random(number), Stream(f"game {number}")
        )
        step = max(1, len(states) // STARTS_PER_GAME)
        for at, state in enumerate(states[::step]):
            seed = 1000 * number + at
            for limit in (1000, 3):
                fast = played(game, game.playout, state, seed, limit)
                assert fast == played(game, partial(stepwise, game), state, seed, limit), (
                    f"{name} {options}, game {number}, position {at * step}, limit {limit}"
                )
                compared += 1
    assert compared >= GAMES_PER_TABLE * STARTS_PER_GAME


@pytest.mark.parametrize(
    ("name", "options"), [(name, options) for name, tables in FAST.items() for options in tables]
)
def test_the_fast_playout_draws_each_move_as_the_rules_do_from_every_position(name, options):
    """One move (and the chance after it) from every position of two seeded games:
    the fast playout lists the moves in its own way, and must draw the same one."""
    game = load_game(name, **options)
    compared = 0
    for number in range(2):
        states = random_playout(
            game, game.initial_state(), random.Random(number), Stream(f"every {number}")
        )
        for at, state in enumerate(states):
            fast = played(game, game.playout, state, at, 1)
            assert fast == played(game, partial(stepwise, game), state, at, 1), (
                f"{name} {options}, game {number}, position {at}"
            )
            compared += 1
    assert compared >= 40
