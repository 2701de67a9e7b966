"""Catch the Hare rules on the start position and on constructed positions."""

from __future__ import annotations

import random

import pytest

from engines import IllegalMove, OptionError, load_game
from engines.catch_the_hare import HARE, HUNTERS, HareState

# Constructed positions below hold few hunters; they use min_hunters=1 so that the
# rule under test, not the hare's win by captures, decides.


def position(game, hare: str, hunters: list[str], turn: int = HARE) -> HareState:
    index = game.board.index
    return HareState(index[hare], frozenset(index[c] for c in hunters), turn)


def moves(game, state) -> set[str]:
    return {str(m) for m in game.legal_moves(state)}


def test_the_hunters_move_first():
    game = load_game("catch_the_hare")
    state = game.initial_state()
    assert game.to_move(state) == HUNTERS
    hunters = {game.board.cells[i].id for i in state.hunters}
    assert {m.origin for m in game.legal_moves(state)} <= hunters
    with pytest.raises(IllegalMove, match="no hunter on c3"):
        game.parse_move(state, "c3-c4")


def test_the_start_position_follows_the_rule_book():
    game = load_game("catch_the_hare")
    seen = game.observe(game.initial_state())
    hunters = {cell for cell, token in seen.items() if token == "hunter"}
    assert hunters == {f"{f}{r}" for f in "abcde" for r in "12"} | {"a3", "e3"}
    assert seen["c3"] == "hare"


@pytest.mark.parametrize(("count", "missing"), [(11, {"e3"}), (10, {"a3", "e3"})])
def test_the_handicap_removes_the_ends_of_rank_three_first(count, missing):
    full = load_game("catch_the_hare").observe(load_game("catch_the_hare").initial_state())
    reduced = load_game("catch_the_hare", hunters=count)
    seen = reduced.observe(reduced.initial_state())
    assert {c for c in full if full[c] == "hunter" and seen[c] is None} == missing


def test_the_three_boards_differ_only_in_their_diagonals():
    def neighbours(board, cell):
        b = load_game("catch_the_hare", board=board).board
        return {b.cells[i].id for i in b.neighbours[b.index[cell]]}

    assert neighbours("original", "a1") == {"a2", "b1", "b2"}
    assert neighbours("original", "b1") == {"a1", "c1", "b2"}  # b1: file + rank odd
    assert neighbours("original", "a3") == {"a2", "a4", "b3", "b4", "b2"}
    assert neighbours("less_diagonal", "a3") == {"a2", "a4", "b3"}
    assert neighbours("less_diagonal", "a1") == {"a2", "b1", "b2"}
    assert neighbours("no_diagonal", "a1") == {"a2", "b1"}
    assert neighbours("no_diagonal", "c3") == {"b3", "d3", "c2", "c4"}


def test_every_prefix_of_a_capture_chain_is_a_legal_move():
    game = load_game("catch_the_hare", min_hunters=1)
    state = position(game, "c1", ["c2", "c4", "d5"])
    assert {"c1:c3", "c1:c3:c5", "c1:c3:c5:e5"} <= moves(game, state)
    after = game.apply(state, game.parse_move(state, "c1:c3"))
    assert game.observe(after)["c2"] is None, "a captured hunter leaves at once"
    assert game.observe(after)["c4"] == "hunter", "the hare may stop after any leap"


def test_prefixes_are_legal_in_positions_from_random_games():
    game = load_game("catch_the_hare", min_hunters=4)
    pick = random.Random(3)
    chains = 0
    for _ in range(60):
        state = game.initial_state()
        while game.outcome(state) is None:
            legal = moves(game, state)
            for move in game.legal_moves(state):
                for end in range(2, len(move.path)):
                    chains += 1
                    assert ":".join(move.path[:end]) in legal
            state = game.apply(state, pick.choice(game.legal_moves(state)))
    assert chains > 0, "no multi-capture came up; the check proved nothing"


def test_single_capture_allows_one_leap_per_turn():
    game = load_game("catch_the_hare", single_capture=True, min_hunters=1)
    state = position(game, "c1", ["c2", "c4"])
    assert "c1:c3" in moves(game, state) and "c1:c3:c5" not in moves(game, state)
    with pytest.raises(IllegalMove, match="single_capture"):
        game.parse_move(state, "c1:c3:c5")


def test_a_leap_takes_one_hunter_and_needs_a_free_point_and_a_line():
    game = load_game("catch_the_hare", min_hunters=1)
    state = position(game, "c1", ["c2", "c3"])
    with pytest.raises(IllegalMove, match="c3 is occupied"):
        game.parse_move(state, "c1:c3")
    with pytest.raises(IllegalMove, match="not a leap along a line"):
        game.parse_move(state, "c1:c5")
    no_diagonal = load_game("catch_the_hare", board="no_diagonal", min_hunters=1)
    with pytest.raises(IllegalMove, match="no line joins a1 and c3"):
        no_diagonal.parse_move(position(no_diagonal, "a1", ["b2"]), "a1:c3")


def test_the_hunters_cannot_leap():
    game = load_game("catch_the_hare", min_hunters=1)
    state = position(game, "c2", ["c1"], turn=HUNTERS)
    with pytest.raises(IllegalMove, match="cannot leap"):
        game.parse_move(state, "c1:c3")
    assert all(not m.leap for m in game.legal_moves(state))


def test_the_hare_wins_when_fewer_than_min_hunters_remain():
    game = load_game("catch_the_hare", hunters=10, min_hunters=10)
    state = position(game, "c3", ["a1", "b1", "c1", "d1", "e1", "a2", "b2", "c2", "d2", "d4"])
    assert game.outcome(state) is None
    after = game.apply(state, game.parse_move(state, "c3:e5"))
    outcome = game.outcome(after)
    assert outcome.winners == (HARE,) and "only 9 hunters left" in outcome.reason


def test_the_hunters_win_when_the_hare_cannot_move():
    game = load_game("catch_the_hare", min_hunters=1)
    state = position(game, "a1", ["a2", "b1", "b2", "a3", "c1", "c3"])
    assert game.legal_moves(state) == []
    assert game.outcome(state).winners == (HUNTERS,)


def test_a_side_with_no_move_loses_so_stuck_hunters_lose():
    game = load_game("catch_the_hare")
    everywhere_else = [c.id for c in game.board.cells if c.id != "c3"]
    state = position(game, "c3", everywhere_else, turn=HUNTERS)
    assert game.outcome(state).winners == (HARE,)
    assert "hunters cannot move" in game.outcome(state).reason


def test_max_plies_declares_a_draw():
    game = load_game("catch_the_hare", max_plies=2)
    state = game.initial_state()
    for _ in range(2):
        state = game.apply(state, game.legal_moves(state)[0])
    assert game.outcome(state).is_draw


def test_min_hunters_above_the_hunters_on_the_board_is_refused():
    with pytest.raises(OptionError, match="would win at once"):
        load_game("catch_the_hare", hunters=10, min_hunters=11)


def test_a_capture_chain_can_be_extended_while_a_hunter_is_left_to_leap():
    game = load_game("catch_the_hare", min_hunters=1)
    state = position(game, "c1", ["c2", "c4"])
    assert game.can_extend(state, game.parse_move(state, "c1:c3"))
    assert not game.can_extend(state, game.parse_move(state, "c1:c3:c5"))
    assert not game.can_extend(state, game.parse_move(state, "c1-b1"))
    single = load_game("catch_the_hare", min_hunters=1, single_capture=True)
    assert not single.can_extend(state, single.parse_move(state, "c1:c3"))


@pytest.mark.parametrize("text", ["a3-b5", "a3:b5"])
def test_a_move_between_points_no_line_joins_is_refused_for_that_reason(text):
    game = load_game("catch_the_hare")
    with pytest.raises(IllegalMove, match="no line joins a3 and b5") as refused:
        game.parse_move(game.initial_state(), text)
    assert refused.value.cause.key == "rules.catch_the_hare.no_line_joins"


def test_the_handicap_options_say_that_min_hunters_is_absolute():
    game = load_game("catch_the_hare")
    docs = {option.name: option.doc for option in game.OPTIONS}
    assert "first capture" in docs["hunters"] and "min_hunters" in docs["hunters"]
    assert "not counted from" in docs["min_hunters"]
