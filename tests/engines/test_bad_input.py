"""Bad input to the engine API gets a clear error of the engines' own kinds, never a
crash from deep inside: garbage notation, foreign moves, corrupt records, unknown
games, players and variants."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines import (
    GAMES,
    IllegalMove,
    Move,
    OptionError,
    RecordError,
    RulesError,
    load_game,
)
from engines.chance import Stream
from tests.volume import volume

#: a few generated inputs a game in the suite, as many as before in bench/bench_volume.py;
#: the suite's own suppressed checks are kept, as a list given here replaces them
FUZZ = dict(
    max_examples=volume(30, 150),
    suppress_health_check=[
        *settings.default.suppress_health_check,
        HealthCheck.function_scoped_fixture,
    ],
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


@pytest.mark.parametrize("name", GAMES)
@settings(**FUZZ)
@given(text=st.text(max_size=30))
def test_any_text_either_parses_to_a_legal_move_or_is_refused_with_a_reason(name, text):
    game = load_game(name)
    state = game.initial_state()
    try:
        move = game.parse_move(state, text)
    except IllegalMove as refusal:
        assert refusal.reason
    else:
        assert move in game.legal_moves(state)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("text", ["", "pass", "a1-", "-", ":", "a1--a2", "zz9-zz8", "a1:a1", 42])
def test_garbage_notation_is_refused(name, text):
    game = load_game(name)
    with pytest.raises(IllegalMove):
        game.parse_move(game.initial_state(), text)


@pytest.mark.parametrize("name", GAMES)
def test_a_move_from_another_position_is_refused_with_a_reason(name):
    game = load_game(name)
    stream = Stream("bad input")

    def drawn(state):
        # games with chance (a deal, a roll) need it drawn before anyone moves
        while (spec := game.chance(state)) is not None:
            state = game.resolve(state, spec.draw(stream))
        return state

    start = drawn(game.initial_state())
    first = game.legal_moves(start)[0]
    later = drawn(game.apply(start, first))
    with pytest.raises(IllegalMove) as refused:
        game.apply(later, first)
    assert str(first) in refused.value.reason


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("move", [None, "a1-a2", ("a1", "a2"), Move(("nowhere", "a1"))])
def test_something_that_is_not_a_move_is_refused(name, move):
    game = load_game(name)
    with pytest.raises(IllegalMove):
        game.apply(game.initial_state(), move)


@pytest.mark.parametrize("name", GAMES)
def test_a_state_of_another_game_is_refused(name):
    game = load_game(name)
    other = load_game(next(g for g in GAMES if g != name))
    with pytest.raises(RulesError, match=f"not a {name} state"):
        game.legal_moves(other.initial_state())


@pytest.mark.parametrize("name", GAMES)
@settings(**FUZZ)
@given(garbage=json_values)
def test_any_json_as_a_record_is_refused_unless_it_is_a_record(name, garbage):
    game = load_game(name)
    with pytest.raises(RecordError):
        game.from_json(garbage)


@pytest.mark.parametrize("name", GAMES)
@settings(**FUZZ)
@given(garbage=json_values, key=st.text(max_size=8))
def test_a_record_with_a_corrupt_state_is_refused_or_reads_as_a_whole_state(name, garbage, key):
    game = load_game(name)
    record = game.to_json(game.initial_state())
    for corrupt in (garbage, {**record["state"], key: garbage}):
        try:
            state = game.from_json({**record, "state": corrupt})
        except RecordError:
            continue
        assert game.from_json(game.to_json(state)) == state


@pytest.mark.parametrize("name", GAMES)
def test_a_record_of_another_game_or_setup_is_refused(name):
    game = load_game(name)
    record = game.to_json(game.initial_state())
    with pytest.raises(RecordError, match="is for 'chess'"):
        game.from_json({**record, "game": "chess"})
    with pytest.raises(RecordError, match="players"):
        game.from_json({**record, "players": 7})
    with pytest.raises(RecordError, match="no 'state'"):
        game.from_json({k: v for k, v in record.items() if k != "state"})
    assert game.from_json(json.loads(json.dumps(record))) == game.initial_state()


def test_a_sternhalma_record_with_eleven_pieces_or_a_shared_hole_is_refused():
    game = load_game("sternhalma")
    record = game.to_json(game.initial_state())
    pieces = record["state"]["pieces"]
    with pytest.raises(RecordError, match="11 pieces, not 10"):
        game.from_json(
            {**record, "state": {**record["state"], "pieces": [[*pieces[0], "m9"], pieces[1]]}}
        )
    with pytest.raises(RecordError, match="two pieces on"):
        game.from_json({**record, "state": {**record["state"], "pieces": [pieces[0], pieces[0]]}})


def test_unknown_games_players_and_variants_are_refused_by_name():
    with pytest.raises(OptionError, match="no game 'chess'"):
        load_game("chess")
    with pytest.raises(OptionError, match="for 2, 3, 4, 6 players, not 5"):
        load_game("sternhalma", players=5)
    with pytest.raises(OptionError, match="no option 'colour'"):
        load_game("sternhalma", colour="red")
    with pytest.raises(OptionError, match="must be bool"):
        load_game("sternhalma", no_leaving_goal="yes")
    with pytest.raises(OptionError, match="choose one of"):
        load_game("catch_the_hare", board="hexagonal")
    with pytest.raises(OptionError, match="below 1"):
        load_game("catch_the_hare", max_plies=0)
    with pytest.raises(OptionError, match="whole number"):
        load_game("sternhalma", players="3")
