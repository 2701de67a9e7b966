"""The computer players on every registered game: legal moves from random positions
(after chance, near the end), reproducible with a seed, the card player blind to
what its seat cannot see, and the arena's summary. Strength is measured in
``bench/bench_players.py``, never here."""

from __future__ import annotations

import random

import pytest

from engines import GAMES, RulesError, load_game
from engines.chance import Stream
from engines.players import (
    LEVELS,
    RandomPlayer,
    SearchPlayer,
    computer_move,
    knowledge,
    player,
    random_decisions,
    random_step,
)
from engines.players.arena import Match, play_match, wilson
from engines.players.knowledge import deal_unseen

#: two-seat setups of every game (each game's fewest seats, for speed)
SETUPS = {name: min(load_game(name).player_counts) for name in GAMES}
POSITIONS_PER_GAME = 4
#: games with a move limit end there (a draw is an end too)
MAX_PLIES = 80
#: a random Hakenschlagen game takes a quarter of a minute: only its first turns
DECISIONS = {"hakenschlagen": 12}
#: small budgets: these tests pin behaviour, not strength
PLAYOUTS = 12


def _positions(name: str, count: int, seed: int):
    """``count`` pairs of positions where a seat is to move, from random games of
    ``name``: one anywhere (after chance, too), and the last decision before the
    game ends."""
    game = load_game(name, SETUPS[name])
    if "max_plies" in game.options:
        game = load_game(name, SETUPS[name], max_plies=MAX_PLIES)
    pick = random.Random(seed)
    found = []
    for n in range(count):
        stream = Stream(f"{name} positions {seed} {n}")
        limit = DECISIONS.get(name, 5000)
        decisions = random_decisions(game, game.initial_state(), pick, stream, limit)
        found.append(decisions[pick.randrange(len(decisions))])
        found.append(decisions[-1])
    return game, found


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_every_player_chooses_a_legal_move_for_every_game(name):
    game, positions = _positions(name, POSITIONS_PER_GAME, seed=1)
    players = [RandomPlayer(1), SearchPlayer(1, playouts=PLAYOUTS)]
    for state in positions:
        moves = game.legal_moves(state)
        for chooser in players:
            assert chooser.choose(game, state) in moves


@pytest.mark.parametrize("name", GAMES)
def test_a_seeded_search_chooses_the_same_move_again(name):
    game, positions = _positions(name, 2, seed=2)
    for state in positions:
        first = SearchPlayer("same", playouts=PLAYOUTS).choose(game, state)
        again = SearchPlayer("same", playouts=PLAYOUTS).choose(game, state)
        assert first == again


def test_a_player_refuses_when_nobody_or_another_seat_is_to_move():
    hare = load_game("catch_the_hare", max_plies=1)
    state = hare.initial_state()
    with pytest.raises(RulesError, match="to move: the hunters, not the hare"):
        SearchPlayer(playouts=5).choose(hare, state, seat=1)
    over = hare.apply(state, hare.legal_moves(state)[0])
    with pytest.raises(RulesError, match="the game is over"):
        RandomPlayer().choose(hare, over)
    dice = load_game("fang_den_hut", 2)
    with pytest.raises(RulesError, match="a roll or draw comes first"):
        SearchPlayer(playouts=5).choose(dice, dice.initial_state())


def test_a_search_needs_a_budget():
    with pytest.raises(ValueError, match="budget"):
        SearchPlayer()


def test_computer_move_plays_its_levels_playouts():
    game = load_game("sternhalma", 2)
    state = game.initial_state()
    move = computer_move(game, state, level="easy", seed=1)
    assert move == SearchPlayer(1, playouts=LEVELS["easy"].playouts).choose(game, state)


def test_a_level_runs_all_its_playouts_on_a_slow_machine(monkeypatch):
    from engines.players import search

    game = load_game("haegar", 2)
    stream, pick = Stream(b"slow"), random.Random(1)
    state = game.initial_state()
    while game.to_move(state) is None or len(game.legal_moves(state)) < 2:
        state = random_step(game, state, pick, stream)
    # a clock that moves 5 ms at each reading: "easy" needs seconds here, as on a Pi
    ticks = iter(range(1_000_000))
    monkeypatch.setattr(search.time, "perf_counter", lambda: next(ticks) * 0.005)
    bot = player("easy", seed=1)
    bot.choose(game, state)
    assert bot.last_playouts == LEVELS["easy"].playouts


@pytest.mark.parametrize("name", ["haegar", "fang_den_hut"])
def test_a_clock_that_runs_out_inside_an_iteration_still_gives_a_legal_move(name, monkeypatch):
    from engines.players import search

    game = load_game(name, 2)
    stream = Stream(b"clock")
    state = game.initial_state()
    while game.to_move(state) is None:
        state = game.resolve(state, game.chance(state).draw(stream))
    # a clock that jumps a second at each reading: every iteration is cut short
    ticks = iter(range(1_000_000))
    monkeypatch.setattr(search.time, "perf_counter", lambda: float(next(ticks)))
    bot = SearchPlayer(seed=1, deadline_s=2.5)
    assert bot.choose(game, state) in game.legal_moves(state)
    assert bot.last_playouts == 0, "an iteration the clock cut is not counted"


def test_player_names_every_level_and_refuses_others():
    assert isinstance(player("random"), RandomPlayer)
    assert player("search").deadline_s == LEVELS["hard"].ceiling_s
    assert player("easy").playouts == LEVELS["easy"].playouts
    assert player("medium", playouts=9).playouts == 9
    assert (player("search:300").playouts, player("search:300").deadline_s) == (300, None)
    with pytest.raises(RulesError, match="no player 'grandmaster'"):
        player("grandmaster")
    with pytest.raises(RulesError, match="search:N"):
        player("search:many")


# --- hidden hands --------------------------------------------------------------------


def _dealt_cards(players: int, seed: str):
    game = load_game("fang_den_hut_cards", players)
    state = game.initial_state()
    state = game.resolve(state, game.chance(state).draw(Stream(seed)))
    pick = random.Random(seed)
    for _ in range(5):  # a few plays, so stacks and taken piles lie on the table
        state = game.apply(state, pick.choice(game.legal_moves(state)))
    return game, state


def _swap_unseen(game, state, seat: int, pick: random.Random):
    """The same table for ``seat`` with every card it cannot see dealt anew: other
    hands, the draw pile, the cards set aside, beneath the stacks and taken."""
    record = game.to_json(state)
    view = game.view(state, seat)
    swapped = game.to_json(deal_unseen(game, view, pick))
    assert swapped["state"]["hands"][seat] == record["state"]["hands"][seat]
    return game.from_json(swapped)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3])
def test_the_card_player_never_looks_at_hidden_cards(players):
    game, state = _dealt_cards(players, f"hidden {players}")
    seat = game.to_move(state)
    pick = random.Random(7)
    others = [_swap_unseen(game, state, seat, pick) for _ in range(3)]
    assert any(other != state for other in others), "the swap changed nothing"
    chosen = SearchPlayer("blind", playouts=60).choose(game, state)
    for other in others:
        assert game.view(other, seat) == game.view(state, seat)
        assert SearchPlayer("blind", playouts=60).choose(game, other) == chosen


def test_a_card_deal_agrees_with_the_seats_view():
    game, state = _dealt_cards(3, "agree")
    for seat in range(game.players):
        view = game.view(state, seat)
        dealt = deal_unseen(game, view, random.Random(seat))
        assert game.view(dealt, seat) == view


def test_a_hidden_game_without_a_dealer_is_refused_not_peeked_at(monkeypatch):

    monkeypatch.setitem(knowledge.KNOWLEDGE, "fang_den_hut_cards", knowledge.Knowledge())
    game, state = _dealt_cards(2, "refused")
    with pytest.raises(RulesError, match="hides information"):
        SearchPlayer(playouts=5).choose(game, state)


# --- the arena -------------------------------------------------------------------------


def test_wilson_intervals_hold_the_rate_and_stay_in_bounds():
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(0, 10)
    assert low == 0.0 and 0.25 < high < 0.35
    low, high = wilson(10, 10)
    assert 0.65 < low < 0.75 and high == 1.0


def test_the_arena_rotates_seats_and_reports_rates_with_intervals():
    result = play_match(Match("catch_the_hare", ("search", "random"), 4, 3, playouts=8))
    assert result["games"] == 4 and result["players"] == ["search", "random"]
    for entry in result["results"]:
        assert {"player", "games", "wins", "win_rate", "interval95", "draws", "losses"} <= set(
            entry
        )
        assert [seat["games"] for seat in entry["by_seat"]] == [2, 2]
        low, high = entry["interval95"]
        assert low <= entry["win_rate"] <= high
    search, rand = result["results"]
    assert search["wins"] + rand["wins"] + search["draws"] + search["shared"] == 4


def test_the_arena_counts_the_playouts_of_each_searched_move():
    match = Match("fang_den_hut_cards", ("easy", "random"), 1, 5, {"single_game": True}, 10)
    search, rand = play_match(match)["results"]
    assert search["move_playouts"]["p50"] == search["move_playouts"]["max"] == 10
    assert 0 < search["move_playouts"]["moves"] <= search["move_seconds"]["moves"]
    assert rand["move_playouts"] is None


@pytest.mark.slow
def test_an_arena_match_is_reproducible_under_a_playout_budget():
    match = Match("fang_den_hut_cards", ("easy", "random"), 2, 5, {"single_game": True}, 10)
    first, again = play_match(match), play_match(match)
    for result in (first, again):
        for entry in result["results"]:
            entry.pop("move_seconds")
    assert first == again


# --- game knowledge: the alpha-beta games ----------------------------------------------


def _hare_position(hare: str, hunters: list[str], turn: str):
    game = load_game("catch_the_hare")
    record = game.to_json(game.initial_state())
    record["state"] = {"hare": hare, "hunters": hunters, "turn": turn, "ply": 0}
    return game, game.from_json(record)


def test_the_hunters_close_the_net_when_one_move_encloses_the_hare():
    # the hare in the a5 corner; b3-b4 shuts its last way out with c3 behind b4
    hunters = ["a4", "a3", "b5", "c5", "c3", "b3", "d1", "e1", "d2", "e2"]
    game, state = _hare_position("a5", hunters, "hunters")
    for seed in range(3):
        move = SearchPlayer(seed, playouts=LEVELS["easy"].playouts).choose(game, state)
        ended = game.outcome(game.apply(state, move))
        assert ended is not None and ended.winners == (0,), str(move)


def test_the_hare_takes_the_capture_that_wins():
    # ten hunters, ten needed: one leap (c3 over c4 to c5) wins for the hare
    hunters = ["c4", "a1", "a2", "b1", "b2", "c1", "d1", "d2", "e1", "e2"]
    game, state = _hare_position("c3", hunters, "hare")
    move = SearchPlayer(1, playouts=LEVELS["easy"].playouts).choose(game, state)
    assert game.outcome(game.apply(state, move)).winners == (1,)


def _sternhalma(red: list[str], blue: list[str]):
    game = load_game("sternhalma", 2)
    record = game.to_json(game.initial_state())
    record["state"] = {"pieces": [red, blue], "turn": 0, "ply": 0, "passes": 0}
    return game, game.from_json(record)


#: blue's pieces out in the middle of the star, away from both targets
BLUE_ABROAD = ["e9", "g9", "i9", "k9", "m9", "o9", "q9", "s9", "u9", "d10"]


def test_the_sternhalma_search_fills_its_target_when_it_can():
    north = ["l14", "n14", "p14", "k15", "m15", "o15", "l16", "n16", "m17"]
    game, state = _sternhalma([*north, "i13"], BLUE_ABROAD)
    move = SearchPlayer(2, playouts=LEVELS["medium"].playouts).choose(game, state)
    assert str(move) == "i13-j14"
    assert game.outcome(game.apply(state, move)).winners == (0,)


def _squatter_costs(red_rest: list[str]) -> list[float]:
    """What a blue piece costs red (the judgements' sum) on m17, red's target tip,
    shut in by red, and on j14 with free holes outside the target beside it."""
    red = [*red_rest, "l16", "n16", "k15", "o15"]
    blue_rest = BLUE_ABROAD[:9]
    return [
        -(knowledge.sternhalma_judgement(g, s, 0) + knowledge.sternhalma_judgement(g, s, 1))
        for g, s in (_sternhalma(red, [*blue_rest, "m17"]), _sternhalma(red, [*blue_rest, "j14"]))
    ]


def test_a_squatter_costs_its_target_owner_less_with_ways_out_and_pays_nobody():
    # red's other six pieces just outside its target: the end of its race
    costs = _squatter_costs(["m13", "o13", "q13", "n12", "p12", "r12"])
    assert costs[0] == pytest.approx(knowledge.SQUATTER)
    assert 0 < costs[1] <= knowledge.SQUATTER - 2 * knowledge.WAY_OUT


def test_a_squatter_costs_nothing_while_its_target_owner_is_far_from_home():
    # red's other six pieces in the south of the star: blue's piece is no block yet
    assert _squatter_costs(["k5", "m5", "j6", "l6", "n6", "p6"]) == [0.0, 0.0]


@pytest.mark.parametrize("name", ["catch_the_hare", "sternhalma"])
def test_the_alpha_beta_search_keeps_to_its_playout_budget(name):
    game, positions = _positions(name, 2, seed=3)
    for state in positions:
        first_depth = len(game.legal_moves(state))
        for budget in (25, 200):
            chooser = SearchPlayer(4, playouts=budget)
            assert chooser.choose(game, state) in game.legal_moves(state)
            assert chooser.last_playouts <= max(budget, first_depth)


def _few_turns_position():
    """A Hakenschlagen position with only three turns to choose from (the root is
    fully tried within a few playouts, and the search goes deeper)."""
    game = load_game("hakenschlagen", 2)
    decisions = random_decisions(game, game.initial_state(), random.Random(0), Stream("s0"), 12)
    state = decisions[10]
    assert len(game.legal_moves(state)) == 3
    return game, state


@pytest.mark.parametrize("deeper", [False, True])
def test_a_hakenschlagen_search_lists_turns_below_the_root_only_once_visited_often(
    deeper, monkeypatch
):
    game, root = _few_turns_position()
    expand_after = knowledge.knowledge_of(game).expand_after
    listed = []
    full_list = game.legal_moves

    def legal_moves(state):
        listed.append(state)
        return full_list(state)

    monkeypatch.setattr(game, "legal_moves", legal_moves)
    playouts = 400 if deeper else expand_after - 1
    move = SearchPlayer(seed=3, playouts=playouts).choose(game, root)
    assert move in full_list(root)
    below_root = [state for state in listed if state != root]
    # fewer visits than expand_after: no position below the root is ever listed; more,
    # and the most visited ones are
    assert bool(below_root) is deeper
