"""One test for every registered engine (OpenSpiel's RandomSimTest is the model):
random games from start to end, checking the contract's invariants at every state.

The suite plays a few games of each setup, enough to reach every kind of position and
wrong try it checks (``EVENTS``, asserted); ``bench/bench_volume.py`` plays the full
volume. A new engine gets this for free: add it to ``engines.GAMES`` and, if it has variants
worth covering, a line to ``VARIANTS``.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from engines import GAMES, PASS, IllegalMove, Move, RulesError, load_game
from engines.chance import Stream
from tests.volume import volume

GAMES_PER_SETUP = volume(2, 12)
#: games whose turns have thousands of outcomes or that last hundreds of turns:
#: (random games to play, check every n-th position); each game still runs to its
#: end, its last position is always checked, and a sample of moves is round-tripped
LONG_GAMES = {"hakenschlagen": (1, volume(50, 25)), "fang_den_hut": (volume(1, 3), 5)}
#: games that run to max_plies with a hundred or more moves at every position, each
#: round-tripped and tried: fewer random games, every position of each still checked
FEWER_GAMES = {"sternhalma": volume(1, 4)}
MAX_ROUND_TRIPS = 40
MAX_PLIES = 150
#: a game without a max_plies option must end by itself within this many steps
HARD_LIMIT = 5000
#: (game, players, options) combinations run besides each game's defaults
VARIANTS = {
    "sternhalma": [
        (3, {}),
        (4, {"no_leaving_goal": True}),
        (6, {"blocked_goal": True}),
    ],
    "catch_the_hare": [
        (2, {"board": "less_diagonal", "single_capture": True}),
        (2, {"board": "no_diagonal", "hunters": 10, "min_hunters": 8}),
    ],
    "haegar": [(1, {}), (3, {"honky_tonk": True}), (2, {"seats": "east,west"})],
    "fang_den_hut_cards": [(2, {}), (4, {}), (5, {}), (3, {"single_game": True})],
    "hakenschlagen": [(2, {"board": "square"}), (3, {"trees": 2, "carrots": 4}), (5, {})],
    "fang_den_hut": [
        (2, {"last_standing": True}),
        (4, {"team": True, "tower": True}),
        (6, {"total_team": True, "golden_hat": True}),
    ],
}
_MOVES = {"a seat to move", "game over"}
_TRIES = {"wrong try refused", "wrong try reached a legal position"}
#: what each game's random games reach at every setup: positions with a seat to move,
#: a chance to draw and a game over, offered rolls declined, wrong tries refused and
#: wrong tries that a legal move also makes (judged only where every move was made)
EVENTS = {
    "sternhalma": _MOVES | _TRIES,
    "catch_the_hare": _MOVES | _TRIES,
    "haegar": _MOVES | {"chance", "wrong try refused"},
    "fang_den_hut_cards": _MOVES | {"chance"},
    "hakenschlagen": _MOVES | {"chance"},
    "fang_den_hut": _MOVES | {"chance", "roll declined", "wrong try refused"},
}
SETUPS = [(name, None, {}) for name in GAMES] + [
    (name, players, options) for name, rows in VARIANTS.items() for players, options in rows
]


def _id(setup) -> str:
    name, players, options = setup
    extra = ",".join(f"{k}={v}" for k, v in options.items())
    return f"{name}-{players or 'default'}" + (f"-{extra}" if extra else "")


def test_every_registered_game_has_variants_besides_its_defaults():
    # SETUPS plays each game's defaults; a new engine must also name its variants here
    assert sorted(VARIANTS) == sorted(GAMES) == sorted(EVENTS)
    assert all(VARIANTS[name] for name in GAMES)


@pytest.mark.slow
@pytest.mark.parametrize("setup", SETUPS, ids=_id)
def test_random_games_keep_every_invariant(setup):
    name, players, options = setup
    game = load_game(name, players, **options)
    pick = random.Random(f"{name}-{players}-{sorted(options.items())}")
    if "first_seat" in game.options:  # the table chooses who starts
        options = {**options, "first_seat": pick.randrange(game.players)}
        game = load_game(name, players, **options)
    limited = "max_plies" in game.options
    if limited:
        game = load_game(name, players, max_plies=MAX_PLIES, **options)
    games, every = LONG_GAMES.get(name, (FEWER_GAMES.get(name, GAMES_PER_SETUP), 1))
    seen = Counter()
    for n in range(games):
        stream = Stream(f"random game {n}")
        state = game.initial_state()
        for step in range(HARD_LIMIT):
            ended = game.outcome(state) is not None
            if ended or step % every == 0:
                seen.update(_check_state(game, state, pick))
            if ended:
                break
            spec = game.chance(state)
            if spec is not None:
                if getattr(spec, "optional", False) and pick.random() < 0.3:
                    state = game.apply(state, PASS)  # an offered roll declined
                    seen["roll declined"] += 1
                    continue
                state = game.resolve(state, spec.draw(stream))
                continue
            before = hash(state)
            _, following = game.random_play(state, pick)  # listing them is checked above
            assert hash(state) == before, "apply changed the state it was given"
            state = following
        else:
            pytest.fail(f"a random game of {name} did not end within {HARD_LIMIT} steps")
        if limited:
            assert state.ply <= MAX_PLIES, "the game ran past max_plies"
    assert set(seen) == EVENTS[name], "the random games no longer reach what they check"


def _check_state(game, state, pick: random.Random) -> list[str]:
    """Check the contract at ``state``; the kinds of position and try it met."""
    hash(state)
    record = game.to_json(state)
    assert game.from_json(json.loads(json.dumps(record))) == state
    seen = game.observe(state)
    assert list(seen) == [cell.id for cell in game.board.cells]
    assert seen == game.observe(game.from_json(record))
    for sensor in ("camera", "presence"):
        assert game.sense(state, sensor).keys() == seen.keys()
    for seat in range(game.players):
        json.dumps(game.view(state, seat))

    outcome = game.outcome(state)
    assert outcome == game.outcome(state)
    if outcome is not None:
        assert game.to_move(state) is None and game.drawer(state) is None
        assert game.legal_moves(state) == []
        with pytest.raises(IllegalMove, match="game is over"):
            game.apply(state, Move(("a1", "a2")))
        return ["game over"]
    if game.chance(state) is not None:
        assert game.to_move(state) is None and game.legal_moves(state) == []
        assert game.drawer(state) in (None, *range(game.players))
        return ["chance"]
    assert game.drawer(state) is None

    moves = game.legal_moves(state)
    assert moves, "a seat to move always has a move (a pass, if nothing else)"
    assert len(set(moves)) == len(moves), "legal_moves lists a move twice"
    sampled = len(moves) > MAX_ROUND_TRIPS and game.name in LONG_GAMES
    checked = pick.sample(moves, MAX_ROUND_TRIPS) if sampled else moves
    successors = set()
    for move in checked:
        assert game.parse_move(state, str(move)) == move
        successors.add(game.apply(state, move))
    assert game.to_move(state) in range(game.players)
    # wrong tries are judged against every successor, so only when all were made
    return [
        "a seat to move",
        *_check_wrong_tries(game, state, [] if sampled else moves, successors, pick),
    ]


def _check_wrong_tries(game, state, moves, successors, pick: random.Random) -> list[str]:
    """Random paths from a piece that can move: ``apply`` either refuses with a
    reason or leads to a position some legal move also reaches. What each try met."""
    met = []
    origins = [m.path[0] for m in moves if getattr(m, "path", ())]
    cells = [cell.id for cell in game.board.cells]
    for _ in range(8 if origins else 0):
        path = (pick.choice(origins),) + tuple(pick.choices(cells, k=pick.randint(1, 3)))
        wrong = Move(path, leap=pick.random() < 0.5)
        try:
            after = game.apply(state, wrong)
        except IllegalMove as refusal:
            assert refusal.reason
            # reading the move refuses it too, though it need not build the position
            with pytest.raises(RulesError):
                game.parse_move(state, str(wrong))
            met.append("wrong try refused")
        else:
            assert after in successors
            met.append("wrong try reached a legal position")
    return met
