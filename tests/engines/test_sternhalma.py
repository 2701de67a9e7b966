"""Sternhalma rules on the start position and on constructed positions."""

from __future__ import annotations

import dataclasses
import random

import pytest

from engines import PASS, IllegalMove, Move, NotationError, load_game
from engines.core import Game
from engines.sternhalma import EMPTY, Seen, SternhalmaState


def position(game, pieces: dict[int, list[str]], turn: int = 0) -> SternhalmaState:
    holes = [EMPTY] * len(game.board.cells)
    for seat, cells in pieces.items():
        for cell in cells:
            holes[game.board.index[cell]] = seat
    return SternhalmaState(tuple(holes), turn)


def destinations(game, state, origin: str) -> set[str]:
    return {m.destination for m in game.legal_moves(state) if m.path and m.origin == origin}


@pytest.mark.parametrize("players", [2, 3])
def test_every_seat_has_fourteen_distinct_moves_at_the_start(players):
    game = load_game("sternhalma", players)
    start = game.initial_state()
    for seat in range(players):
        state = dataclasses.replace(start, turn=seat)
        pairs = {(m.origin, m.destination) for m in game.legal_moves(state)}
        assert len(pairs) == len(game.legal_moves(state)) == 14


def test_two_players_face_each_other():
    game = load_game("sternhalma", 2)
    assert game.homes == ("south", "north")
    assert game.targets == ("north", "south")


def test_three_players_take_every_other_point_and_aim_at_its_opposite():
    game = load_game("sternhalma", 3)
    assert game.homes == ("south", "northwest", "northeast")
    assert game.targets == ("north", "southeast", "southwest")
    assert set(game.homes).isdisjoint(game.targets)


def test_each_player_starts_with_ten_pieces_in_their_point():
    game = load_game("sternhalma", 6)
    seen = game.observe(game.initial_state())
    for seat, home in enumerate(game.homes):
        cells = {game.board.cells[i].id for i in game.board.zone(home)}
        assert {seen[c] for c in cells} == {game.colours[seat]}
    assert sum(v is not None for v in seen.values()) == 60


def test_the_rule_book_jump_chain_changes_direction_between_jumps():
    game = load_game("sternhalma", 2)
    state = position(game, {0: ["e13"], 1: ["f12", "f10"]})
    move = game.parse_move(state, "e13:g11:e9")
    after = game.apply(state, move)
    assert game.observe(after)["e9"] == "red"
    assert game.observe(after)["f12"] == game.observe(after)["f10"] == "blue"  # stay on the board
    assert "e9" in destinations(game, state, "e13")


def test_a_piece_is_jumped_at_most_once_per_move():
    game = load_game("sternhalma", 2)
    state = position(game, {0: ["k9"], 1: ["m9"]})
    assert game.apply(state, game.parse_move(state, "k9:o9"))
    with pytest.raises(IllegalMove, match="jumped only once"):
        game.apply(state, Move(("k9", "o9", "k9", "o9"), leap=True))


def test_generated_moves_reach_exactly_what_an_exhaustive_search_reaches():
    # The oracle follows every chain that jumps no piece twice, holes revisited or not.
    game = load_game("sternhalma", 3)
    pick = random.Random(7)
    for _ in range(40):
        state = game.initial_state()
        for _ in range(pick.randrange(0, 90)):
            state = game.apply(state, pick.choice(game.legal_moves(state)))
        generated = {(m.origin, m.destination) for m in game.legal_moves(state) if m.path}
        assert generated == _every_destination(game, state)
        for move in game.legal_moves(state):
            assert len(set(_jumped(game, move))) == len(_jumped(game, move))


@pytest.mark.parametrize("options", [{}, {"no_leaving_goal": True}])
@pytest.mark.parametrize("players", [2, 3, 6])
def test_random_play_draws_the_move_a_pick_from_the_legal_moves_draws(players, options):
    # playouts take the quick way; it must draw what a uniform pick from legal_moves
    # draws with the same seed, and lead where applying that move does
    game = load_game("sternhalma", players, **options)
    pick = random.Random(players)
    state = game.initial_state()
    for _ in range(400):
        if game.outcome(state) is not None:
            state = game.initial_state()
        seed = pick.random()
        quick = game.random_play(state, random.Random(seed))
        assert quick == Game.random_play(game, state, random.Random(seed))
        state = quick[1]


def test_random_play_after_the_end_is_refused_with_the_reason():
    game = load_game("sternhalma", 2, max_plies=1)
    state = game.random_play(game.initial_state(), random.Random(0))[1]
    with pytest.raises(IllegalMove, match="the game is over"):
        game.random_play(state, random.Random(0))
    with pytest.raises(IllegalMove, match="the game is over"):
        Game.random_play(game, state, random.Random(0))


def _every_destination(game, state) -> set[tuple[str, str]]:
    board, holes, names = game.board, state.holes, [c.id for c in game.board.cells]
    pairs = set()
    for origin, owner in enumerate(holes):
        if owner != state.turn:
            continue
        pairs |= {(names[origin], names[n]) for n in board.neighbours[origin] if holes[n] < 0}
        seen, stack = set(), [(origin, frozenset())]
        while stack:
            at, jumped = stack.pop()
            for over, land in board.jumps[at]:
                free = holes[land] < 0 or land == origin
                if holes[over] >= 0 and over != origin and over not in jumped and free:
                    key = (land, jumped | {over})
                    if key not in seen:
                        seen.add(key)
                        stack.append(key)
                        if land != origin:
                            pairs.add((names[origin], names[land]))
    return pairs


def _jumped(game, move) -> list[int]:
    at = [game.board.index[c] for c in move.path]
    return [game.board.jump_over[(a, b)] for a, b in zip(at, at[1:])] if move.leap else []


def test_a_move_never_ends_where_it_started():
    game = load_game("sternhalma", 2)
    # Six pieces around the hexagon i9 k11 o11 q9 o7 k7 let red on i9 jump in a loop.
    ring = ["j10", "m11", "p10", "p8", "m7", "j8"]
    state = position(game, {0: ["i9"], 1: ring})
    assert game.apply(state, game.parse_move(state, "i9:k11:o11:q9:o7:k7"))
    with pytest.raises(IllegalMove, match="different hole"):
        game.parse_move(state, "i9:k11:o11:q9:o7:k7:i9")
    for move in game.legal_moves(state):
        assert move.origin != move.destination


def test_steps_and_jumps_never_mix():
    game = load_game("sternhalma", 2)
    state = position(game, {0: ["e13"], 1: ["f12"]})
    with pytest.raises(NotationError, match="never mix"):
        game.parse_move(state, "e13:g11-g10")
    with pytest.raises(IllegalMove, match="one adjacent hole"):
        game.parse_move(state, "e13-f12-g11")
    with pytest.raises(IllegalMove, match="not next to"):
        game.parse_move(state, "e13-g11")


def test_jump_needs_a_piece_and_a_free_landing_hole():
    game = load_game("sternhalma", 2)
    state = position(game, {0: ["e13", "g11"], 1: ["f12"]})
    with pytest.raises(IllegalMove, match="g11 is occupied"):
        game.parse_move(state, "e13:g11")
    with pytest.raises(IllegalMove, match="no piece on g13"):
        game.parse_move(state, "e13:i13")


def test_moving_a_foreign_piece_or_from_an_empty_hole_is_refused_with_a_reason():
    game = load_game("sternhalma", 2)
    state = game.initial_state()
    with pytest.raises(IllegalMove, match="blue's, and red moves: move a piece of red"):
        game.parse_move(state, "p14-o13")
    with pytest.raises(IllegalMove, match="no piece on m9"):
        game.parse_move(state, "m9-n10")


def test_filling_the_opposite_point_wins_at_once():
    game = load_game("sternhalma", 2)
    north = [game.board.cells[i].id for i in game.board.zone("north")]
    state = position(game, {0: [c for c in north if c != "p14"] + ["o13"], 1: ["m9"]})
    assert game.outcome(state) is None
    ended = game.outcome(game.apply(state, game.parse_move(state, "o13-p14")))
    assert ended.winners == (0,) and "Red filled the north point" in ended.reason


def test_blocked_goal_lets_a_player_win_when_the_point_is_full_and_holds_an_own_piece():
    for blocked in (False, True):
        game = load_game("sternhalma", 2, blocked_goal=blocked)
        north = [game.board.cells[i].id for i in game.board.zone("north")]
        state = position(game, {0: north[:2], 1: north[2:]}, turn=1)
        outcome = game.outcome(state)
        assert (outcome is not None and outcome.winners == (0,)) is blocked


def test_no_leaving_goal_keeps_a_piece_in_its_target_point():
    free = load_game("sternhalma", 2)
    strict = load_game("sternhalma", 2, no_leaving_goal=True)
    north = {strict.board.cells[i].id for i in strict.board.zone("north")}
    state = position(free, {0: ["p14"], 1: ["m9"]})
    assert "o13" in destinations(free, state, "p14")
    assert destinations(strict, state, "p14") and destinations(strict, state, "p14") <= north
    with pytest.raises(IllegalMove, match="no_leaving_goal"):
        strict.parse_move(state, "p14-o13")


def test_a_player_without_a_move_passes_and_only_then():
    game = load_game("sternhalma", 2)
    # Red's only piece sits in the south tip m1 with both holes in front taken by blue
    # and the holes behind those taken too: no step, no jump.
    state = position(game, {0: ["m1"], 1: ["l2", "n2", "k3", "o3"]})
    assert game.legal_moves(state) == [PASS] and game.must_pass(state)
    assert not game.must_pass(game.initial_state())
    passed = game.apply(state, PASS)
    assert passed.turn == 1 and passed.passes == 1
    with pytest.raises(IllegalMove, match="may not pass"):
        game.apply(game.initial_state(), PASS)


def test_a_piece_in_its_goal_with_only_steps_out_of_it_must_pass():
    game = load_game("sternhalma", 2, no_leaving_goal=True)
    # Red's piece on a corner of its target point: the holes beside it in the point
    # are taken, and their far sides too; the free holes beside it lie outside
    state = position(game, {0: ["j14"], 1: ["l14", "k15", "n14", "l16"]})
    assert game.legal_moves(state) == [PASS] and game.must_pass(state)
    assert not load_game("sternhalma", 2).must_pass(state)


@pytest.mark.parametrize("no_leaving_goal", [False, True])
def test_must_pass_agrees_with_the_legal_moves_through_random_games(no_leaving_goal):
    game, pick = load_game("sternhalma", 3, no_leaving_goal=no_leaving_goal), random.Random(5)
    state = game.initial_state()
    for _ in range(600):
        assert game.must_pass(state) == (game.legal_moves(state) == [PASS])
        state = game.apply(state, pick.choice(game.legal_moves(state)))
    finished = game.apply(state, PASS) if game.must_pass(state) else state
    assert not game.must_pass(dataclasses.replace(finished, passes=3))


def test_when_every_player_has_to_pass_the_game_is_drawn():
    game = load_game("sternhalma", 2)
    state = dataclasses.replace(game.initial_state(), passes=2)
    assert game.outcome(state).is_draw


def test_max_plies_declares_a_draw():
    game = load_game("sternhalma", 2, max_plies=1)
    state = game.apply(game.initial_state(), game.legal_moves(game.initial_state())[0])
    assert game.outcome(state).reason == "move limit of 1 reached"


def test_a_jump_chain_set_down_mid_way_can_be_extended_and_a_step_cannot():
    game = load_game("sternhalma", 2)
    ring = ["j10", "m11", "p10", "p8", "m7", "j8"]
    state = position(game, {0: ["i9"], 1: ring})
    assert game.can_extend(state, game.parse_move(state, "i9:k11"))
    assert game.can_extend(state, game.parse_move(state, "i9:k11:o11:q9:o7"))
    assert not game.can_extend(state, game.parse_move(state, "i9-h10"))
    lone = position(game, {0: ["e13"], 1: ["f12", "f10"]})
    assert game.can_extend(lone, game.parse_move(lone, "e13:g11"))
    assert not game.can_extend(lone, game.parse_move(lone, "e13:g11:e9"))


def test_a_locked_game_is_drawn_when_a_position_comes_up_a_third_time():
    # no_leaving_goal: blue's piece is trapped in red's full target point and blue's
    # own pieces may not leave theirs, so nobody can win and nobody must pass
    game = load_game("sternhalma", no_leaving_goal=True)
    start = game.to_json(game.initial_state())
    south, north = start["state"]["pieces"]
    start["state"]["pieces"] = [[c for c in north if c != "m17"] + ["m9"], ["m17"] + south[:9]]
    del start["state"]["seen"]
    state = game.from_json(start)
    plies = 0
    while game.outcome(state) is None and plies < 400:
        state = game.apply(state, game.legal_moves(state)[0])
        assert game.from_json(game.to_json(state)) == state
        plies += 1
    outcome = game.outcome(state)
    assert outcome is not None and outcome.is_draw
    assert outcome.words.key == "rules.sternhalma.repetition"
    assert state.repeats == 3


def test_a_position_seen_twice_is_no_draw_yet():
    game = load_game("sternhalma")
    state = game.initial_state()
    for text in ("l4-k5", "l14-k13", "k5-l4", "k13-l14"):
        state = game.apply(state, game.parse_move(state, text))
    assert state.repeats == 2 and game.outcome(state) is None


def test_histories_of_the_same_positions_are_equal_however_they_were_counted():
    pick = random.Random(7)
    digests = [pick.getrandbits(64) for _ in range(300)] + [5, 5 + 2**60, 5 + 2**62]
    forwards, backwards = Seen(), Seen()
    for digest in digests:
        forwards = forwards.counted(digest, forwards.count(digest) + 1)
    for digest in reversed(digests):
        backwards = backwards.counted(digest, backwards.count(digest) + 1)
    assert forwards == backwards and hash(forwards) == hash(backwards)
    assert forwards.size == len(set(digests)) and forwards.count(5 + 2**60) == 1
    assert forwards.items() == sorted((d, 1) for d in set(digests))
    again = forwards.counted(5, 2)
    assert again != forwards and forwards.count(5) == 1 and again.count(5) == 2
