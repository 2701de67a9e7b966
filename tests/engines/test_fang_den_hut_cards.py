"""Fang den Hut! card game: the deck and the deal, every capture rule, taking the
stacks that point at you, the two-player draw, the end of a game, hat scoring with
ties, the match, and hands that no other seat's view reveals."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from engines import BoardFileError, IllegalMove, NotationError, RecordError, RulesError, load_game
from engines.chance import Shuffle, Stream, deal
from engines.fang_den_hut_cards import CardsState, Play, hats_for_game
from engines.geometry import parse_board
from engines.players import random_playout as play_out


def start(players: int = 3, seed: str = "fang den hut", **options):
    """A game and its first dealt state, shuffled from ``seed``."""
    game = load_game("fang_den_hut_cards", players, **options)
    state = game.initial_state()
    return game, game.resolve(state, game.chance(state).draw(Stream(seed)))


def laid_out(game, hands, table=None, turn=0, draw_pile=()):
    """A game in progress with just these hands and stacks (bottom card first)."""
    nothing = ((),) * game.players
    return CardsState(
        hands=tuple(tuple(hand) for hand in hands),
        table=nothing if table is None else tuple(tuple(stack) for stack in table),
        taken=nothing,
        draw_pile=tuple(draw_pile),
        turn=turn,
    )


# --- the deck and the deal ---------------------------------------------------------


def test_the_deck_holds_values_0_to_9_and_a_blank_in_each_of_three_colours():
    game = load_game("fang_den_hut_cards")
    assert len(game.deck) == 33 == len(set(game.deck))
    for colour in ("red", "yellow", "blue"):
        assert [c for c in game.deck if c.startswith(colour)] == [
            *(f"{colour}{v}" for v in range(10)),
            f"{colour}_blank",
        ]
    assert game.cards["blue_blank"].value is None and game.cards["blue7"].value == 7


@pytest.mark.parametrize(
    ("players", "hand", "draw_pile", "set_aside"),
    [(2, 6, 21, 0), (3, 10, 0, 3), (4, 8, 0, 1), (5, 6, 0, 3)],
)
def test_the_deal_gives_each_player_their_hand_and_the_rest_to_the_draw_pile_or_aside(
    players, hand, draw_pile, set_aside
):
    game, state = start(players)
    assert [len(h) for h in state.hands] == [hand] * players
    assert (len(state.draw_pile), len(state.set_aside)) == (draw_pile, set_aside)
    everything = [c for h in state.hands for c in h] + [*state.draw_pile, *state.set_aside]
    assert Counter(everything) == Counter(game.deck)
    assert game.to_move(state) == 0


def test_the_deal_is_the_shuffle_drawn_from_the_stream_split_into_hands():
    game = load_game("fang_den_hut_cards", 2)
    spec = game.chance(game.initial_state())
    assert spec == Shuffle(game.deck)
    order = spec.draw(Stream("table 3"))
    hands, rest = deal(order, [6, 6])
    state = game.resolve(game.initial_state(), order)
    assert [set(h) for h in state.hands] == [set(h) for h in hands]
    assert state.draw_pile == rest


def test_nothing_can_be_played_before_the_deal():
    game = load_game("fang_den_hut_cards")
    state = game.initial_state()
    assert game.to_move(state) is None and game.legal_moves(state) == []
    with pytest.raises(IllegalMove, match="chance draw is pending"):
        game.apply(state, Play("red7"))


@pytest.mark.parametrize(
    "order",
    [None, "red7", ["red7"] * 33, ["red7", 5], [f"red{v}" for v in range(10)]],
)
def test_a_deal_that_is_not_an_order_of_the_whole_deck_is_refused(order):
    game = load_game("fang_den_hut_cards")
    with pytest.raises(RulesError, match="order of the 33 cards"):
        game.resolve(game.initial_state(), order)


def test_there_is_nothing_to_deal_while_the_cards_are_in_play():
    game, state = start()
    assert game.chance(state) is None
    with pytest.raises(RulesError, match="no deal is pending"):
        game.resolve(state, game.deck)


# --- capturing ---------------------------------------------------------------------

CAPTURES = [
    ("red5", "red3", "same colour, higher on lower"),
    ("red9", "red0", "same colour, 9 is higher than 0"),
    ("red1", "red0", "same colour, one higher"),
    ("red0", "red9", "same colour, 0 on 9"),
    ("red_blank", "red0", "same colour, blank on any value"),
    ("red_blank", "red9", "same colour, blank on any value"),
    ("yellow7", "yellow_blank", "same colour, any value on a blank"),
    ("yellow0", "yellow_blank", "same colour, any value on a blank"),
    ("blue4", "red4", "different colour, equal value"),
    ("yellow0", "blue0", "different colour, equal value"),
    ("red9", "yellow9", "different colour, equal value"),
    ("blue_blank", "red_blank", "different colour, blank on blank"),
]
REFUSALS = [
    ("red3", "red5", "same colour, lower on higher"),
    ("red8", "red9", "same colour, lower on higher"),
    ("red1", "red9", "only 0 captures 9"),
    ("red0", "red8", "0 captures only 9 of the higher values"),
    ("blue4", "red5", "different colour, different value"),
    ("blue0", "red9", "0 on 9 only within a colour"),
    ("blue9", "red0", "higher on lower only within a colour"),
    ("blue_blank", "red5", "a blank on a value of another colour"),
    ("blue5", "red_blank", "a value on a blank of another colour"),
]


@pytest.mark.parametrize(("card", "top", "rule"), CAPTURES, ids=[c[2] for c in CAPTURES])
def test_a_card_captures_a_stack_by_the_capture_rules(card, top, rule):
    game = load_game("fang_den_hut_cards")
    assert game.can_capture(card, top)
    state = _one_stack_to_capture(game, card, top)
    assert Play(card, top) in game.legal_moves(state)
    after = game.apply(state, game.parse_move(state, f"{card}:{top}"))
    assert after.table[0][-2:] == (top, card) and after.table[1] == ()
    seen = game.observe(after)
    assert (seen["stack_1"], seen["stack_2"]) == (card, None)


@pytest.mark.parametrize(("card", "top", "rule"), REFUSALS, ids=[r[2] for r in REFUSALS])
def test_a_capture_against_the_rules_is_refused(card, top, rule):
    game = load_game("fang_den_hut_cards")
    assert not game.can_capture(card, top)
    state = _one_stack_to_capture(game, card, top)
    assert Play(card, top) not in game.legal_moves(state)
    assert Play(card) in game.legal_moves(state)
    with pytest.raises(IllegalMove, match=f"{card} cannot capture {top}"):
        game.apply(state, Play(card, top))


def _one_stack_to_capture(game, card, top):
    """Player 1 holds ``card``; a stack of two cards topped by ``top`` points at
    player 2; everyone holds a card more, so the game goes on."""
    spare = [c for c in game.deck if c not in (card, top)]
    return laid_out(
        game,
        hands=[(card, spare[0]), (spare[1],), (spare[2],)],
        table=[(), (spare[3], top), ()],
    )


def test_every_capture_lists_every_other_stack_its_card_may_take():
    game = load_game("fang_den_hut_cards", 4)
    state = laid_out(
        game,
        hands=[("red4", "red_blank"), ("blue1",), ("blue2",), ("blue6",)],
        table=[(), ("yellow4",), ("red2",), ("blue9", "red9")],
    )
    assert sorted(map(str, game.legal_moves(state))) == [
        "red4",
        "red4:red2",
        "red4:yellow4",
        "red_blank",
        "red_blank:red2",
        "red_blank:red9",
    ]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_random_play_is_a_legal_move_drawn_uniformly_and_its_position(players):
    game, state = start(players)
    for number in range(200):
        if game.to_move(state) is None:
            break
        move, after = game.random_play(state, random.Random(number))
        assert move == random.Random(number).choice(game.legal_moves(state))
        assert after == game.apply(state, move)
        state = after


def test_the_stack_pointing_at_you_is_taken_before_you_play_and_cannot_be_captured():
    game = load_game("fang_den_hut_cards")
    state = laid_out(
        game,
        hands=[("red5", "red6"), ("blue1",), ("blue2",)],
        table=[("yellow3", "red3"), (), ()],
    )
    assert game.legal_moves(state) == [Play("red5"), Play("red6")]
    with pytest.raises(IllegalMove, match="red3 points at player 1, who takes it"):
        game.apply(state, Play("red5", "red3"))
    after = game.apply(state, Play("red5"))
    assert after.taken[0] == ("red3", "yellow3")
    assert after.table[0] == ("red5",)
    seen = game.observe(after)
    assert (seen["stack_1"], seen["taken_1"]) == ("red5", "face_down")
    assert game.view(after, 1)["taken"] == [2, 0, 0]


def test_a_captured_stack_turns_to_the_capturer_and_goes_to_them_at_the_end():
    game = load_game("fang_den_hut_cards")
    state = laid_out(
        game,
        hands=[("red2", "red8"), ("blue5", "yellow8"), ("yellow1", "red6")],
        table=[(), (), ()],
    )
    for text in ("red2", "blue5", "red6:red2"):
        state = game.apply(state, game.parse_move(state, text))
    assert state.table == ((), ("blue5",), ("red2", "red6"))
    state = game.apply(state, game.parse_move(state, "red8:red6"))
    assert state.table == (("red2", "red6", "red8"), ("blue5",), ())
    state = game.apply(state, game.parse_move(state, "yellow8:red8"))
    assert state.table == ((), ("red2", "red6", "red8", "yellow8"), ())
    assert state.taken == ((), ("blue5",), ())
    with pytest.raises(IllegalMove, match="red8 is not the top card of a stack"):
        game.apply(state, Play("yellow1", "red8"))
    end = game.apply(state, Play("yellow1"))
    assert end.results == ((0, 5, 1),)
    assert game.chance(end) is not None and game.to_move(end) is None


def test_a_card_not_in_the_hand_of_the_player_to_move_is_refused():
    game, state = start()
    theirs = state.hands[1][0]
    with pytest.raises(IllegalMove, match=f"{theirs} is not in player 1's hand"):
        game.apply(state, Play(theirs))


@pytest.mark.parametrize("text", ["", "red", "red10", "red7:", "red7:blue7:yellow7", "7red", 7])
def test_notation_that_names_no_card_play_is_refused(text):
    game, state = start()
    with pytest.raises(NotationError):
        game.parse_move(state, text)


@pytest.mark.parametrize("move", [Play(None), Play("green3"), Play("red7", ["blue7"]), "red7"])
def test_something_that_is_not_a_card_play_is_refused_with_a_reason(move):
    game, state = start()
    with pytest.raises(IllegalMove) as refused:
        game.apply(state, move)
    assert refused.value.reason


def test_moves_print_as_their_notation_and_read_back():
    game, state = start()
    state = game.apply(state, game.legal_moves(state)[0])
    for move in game.legal_moves(state):
        assert game.parse_move(state, str(move).upper()) == move


# --- two players -------------------------------------------------------------------


def test_with_two_players_each_card_played_is_replaced_from_the_draw_pile():
    game, state = start(2)
    top = state.draw_pile[0]
    after = game.apply(state, game.legal_moves(state)[0])
    assert top in after.hands[0] and len(after.hands[0]) == 6
    assert after.draw_pile == state.draw_pile[1:]


def test_with_two_players_play_goes_on_from_the_hands_once_the_draw_pile_is_gone():
    game, state = start(2, single_game=True)
    plays = 0
    while game.outcome(state) is None:
        assert game.to_move(state) == plays % 2
        state = game.apply(state, game.legal_moves(state)[-1])
        plays += 1
        if plays == 21:
            assert state.draw_pile == () and [len(h) for h in state.hands] == [6, 6]
    assert plays == 33
    assert sum(state.results[0]) == 33


# --- the end of a game and the match ------------------------------------------------


def test_at_the_end_every_player_takes_the_stacks_pointing_at_them():
    game = load_game("fang_den_hut_cards", single_game=True)
    state = laid_out(
        game,
        hands=[("red4",), (), ()],
        table=[("blue1",), ("blue2", "yellow2"), ("blue3",)],
    )
    state = CardsState(state.hands, state.table, (("red1", "red2"), ("red3",), ()), turn=0)
    end = game.apply(state, Play("red4"))
    # player 1 took blue1 and then played red4, which is theirs too
    assert end.results == ((4, 3, 1),)
    assert game.outcome(end).scores == (3, 2, 1)
    assert game.outcome(end).winners == (0,)
    assert set(game.observe(end).values()) == {"face_down", None}


def test_a_match_is_one_game_per_player_each_starting_once():
    game = load_game("fang_den_hut_cards", 4)
    states = play_out(game, game.initial_state(), random.Random(4), Stream("match"))
    deals = [s for s in states if game.chance(s) is not None]
    assert [s.turn for s in deals] == [0, 1, 2, 3]
    end = states[-1]
    assert len(end.results) == 4 and all(sum(cards) == 32 for cards in end.results)
    hats = [0] * 4
    for cards in end.results:
        hats = [a + b for a, b in zip(hats, hats_for_game(cards))]
    outcome = game.outcome(end)
    assert outcome.scores == tuple(hats) == game.hats(end)
    assert outcome.winners == tuple(s for s in range(4) if hats[s] == max(hats))
    with pytest.raises(IllegalMove, match="game is over"):
        game.apply(end, Play("red1"))


def test_the_table_chooses_who_starts_the_first_game_and_the_rest_follow_round():
    game = load_game("fang_den_hut_cards", 3, first_seat=2)
    states = play_out(game, game.initial_state(), random.Random(3), Stream("first seat"))
    deals = [s for s in states if game.chance(s) is not None]
    assert [s.turn for s in deals] == [2, 0, 1]
    assert all(game.drawer(s) is None for s in deals)  # the table deals
    assert game.from_json(game.to_json(deals[1])) == deals[1]


def test_players_tied_for_most_hats_share_the_win():
    game = load_game("fang_den_hut_cards", 2)
    state = CardsState(((), ()), ((), ()), ((), ()), results=((17, 16), (16, 17)))
    outcome = game.outcome(state)
    assert outcome.scores == (6, 6) and outcome.winners == (0, 1)
    assert "player 1 and player 2" in outcome.reason


@pytest.mark.parametrize(
    ("cards", "hats"),
    [
        ((10, 8, 7, 5), (3, 2, 1, 0)),
        ((5, 7, 8, 10), (0, 1, 2, 3)),
        ((12, 10, 8), (3, 2, 1)),
        ((9, 8, 7, 4, 2), (3, 2, 1, 0, 0)),
        # a shared first place: the next lower number, and later placings shift down
        ((10, 10, 7, 5), (2, 2, 1, 0)),
        ((10, 10, 10), (2, 2, 2)),
        ((11, 11, 8), (2, 2, 1)),
        # a shared second place
        ((10, 8, 8, 6), (3, 1, 1, 0)),
        ((12, 9, 9), (3, 1, 1)),
        # a shared third place
        ((10, 8, 7, 7), (3, 2, 0, 0)),
        ((9, 7, 5, 5, 4), (3, 2, 0, 0, 0)),
        # two shared placings: the shifts add up
        ((10, 10, 8, 8, 6), (2, 2, 0, 0, 0)),
        ((8, 8, 8, 8), (2, 2, 2, 2)),
        # a placing is a placing even without cards
        ((30, 0, 0), (3, 1, 1)),
        # two players: one hat per full five cards
        ((17, 16), (3, 3)),
        ((24, 9), (4, 1)),
        ((4, 29), (0, 5)),
    ],
)
def test_hats_are_scored_from_the_cards_taken_with_ties_as_the_book_says(cards, hats):
    assert hats_for_game(cards) == hats


# --- what each seat sees -------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_no_seat_ever_sees_another_hand_the_draw_pile_or_the_cards_set_aside(players):
    game = load_game("fang_den_hut_cards", players)
    pick = random.Random(players)
    states = play_out(game, game.initial_state(), pick, Stream(f"views {players}"))
    for state in states:
        tops = {stack[-1] for stack in state.table if stack}
        for seat in range(players):
            view = game.view(state, seat)
            assert (
                set(state.hands[seat]) <= _card_names(game, view) <= set(state.hands[seat]) | tops
            )
            # the view is the same however the cards this seat cannot see lie
            assert game.view(_unseen_rearranged(game, state, seat, pick), seat) == view


def _unseen_rearranged(game, state, seat, pick: random.Random):
    """``state`` with every card ``seat`` cannot see shuffled into the same places:
    other hands, the cards under each stack's top, the taken piles, the draw pile
    and the cards set aside."""
    places = [
        *(hand for s, hand in enumerate(state.hands) if s != seat),
        *(stack[:-1] for stack in state.table),
        *state.taken,
        state.draw_pile,
        state.set_aside,
    ]
    unseen = pick.sample([c for place in places for c in place], k=sum(map(len, places)))
    refilled = []
    for place in places:
        refilled.append(tuple(unseen[: len(place)]))
        del unseen[: len(place)]
    others = iter(refilled)
    hands = tuple(hand if s == seat else next(others) for s, hand in enumerate(state.hands))
    table = tuple(next(others) + stack[-1:] for stack in state.table)
    taken = tuple(next(others) for _ in state.taken)
    in_order = lambda cards: tuple(sorted(cards, key=game.deck.index))  # noqa: E731
    return CardsState(
        tuple(map(in_order, hands)),
        table,
        tuple(map(in_order, taken)),
        next(others),
        in_order(next(others)),
        state.turn,
        state.results,
    )


def test_a_seat_sees_its_own_hand_change_but_not_the_others():
    game, state = start(2)
    hidden = [*state.hands[1], *state.draw_pile]
    swapped = (hidden[-1], *hidden[1:-1], hidden[0])
    hands = (state.hands[0], tuple(sorted(swapped[:6], key=game.deck.index)))
    other = CardsState(hands, state.table, state.taken, swapped[6:], turn=state.turn)
    assert game.view(other, 0) == game.view(state, 0)
    assert game.view(other, 1) != game.view(state, 1)


def test_a_view_counts_what_it_does_not_show():
    game, state = start(5)
    state = game.apply(state, Play(state.hands[0][0]))
    view = game.view(state, 2)
    assert view["seat_names"][2] == "player 3" and view["to_move"] == 1
    assert view["hand_sizes"] == [5, 6, 6, 6, 6] and view["set_aside"] == 3
    assert view["table"] == [{"points_at": 0, "top": state.table[0][0], "cards": 1}]
    assert view["moves"] == [] and game.view(state, 1)["moves"] == [
        str(move) for move in game.legal_moves(state)
    ]
    assert json.loads(json.dumps(view)) == view


@pytest.mark.parametrize("seat", [-1, 3, "0", None, True])
def test_a_view_for_a_seat_not_at_the_table_is_refused(seat):
    game, state = start()
    with pytest.raises(RulesError, match="no seat"):
        game.view(state, seat)


def _card_names(game, value) -> set[str]:
    """Every card name anywhere in a JSON view."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return set().union(*(_card_names(game, v) for v in value))
    return {value} if value in game.cards else set()


# --- the table for the referee, and records -----------------------------------------


def test_every_legal_move_but_the_last_of_a_game_leaves_a_different_table():
    game, state = start(3, "distinct tables")
    pick = random.Random(3)
    # the last card goes face down at once with everything else, whatever it was
    while sum(map(len, state.hands)) > 1:
        seen = [game.observe(game.apply(state, m)) for m in game.legal_moves(state)]
        assert len({tuple(s.items()) for s in seen}) == len(seen)
        state = game.apply(state, pick.choice(game.legal_moves(state)))


def test_the_table_has_a_place_per_player_and_the_deck_in_the_middle():
    assert [c.id for c in load_game("fang_den_hut_cards", 2).board.cells] == [
        "deck",
        "stack_1",
        "taken_1",
        "stack_2",
        "taken_2",
    ]
    assert len(load_game("fang_den_hut_cards", 5).board.cells) == 11
    game = load_game("fang_den_hut_cards")
    assert game.observe(game.initial_state())["deck"] == "face_down"


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda s: {**s, "hands": [s["hands"][0], s["hands"][0], s["hands"][2]]}, "exactly once"),
        (lambda s: {**s, "hands": [s["hands"][0][1:], *s["hands"][1:]]}, "every card of the deck"),
        (lambda s: {**s, "turn": 3}, "turn must be a seat"),
        (lambda s: {**s, "hands": [["red77"], [], []]}, "card names"),
        (lambda s: {**s, "draw_pile": s["set_aside"], "set_aside": []}, "only two players"),
        (lambda s: {**s, "results": [[10, 10, 10]] * 4}, "at most 3 games"),
        (lambda s: {**s, "results": [[10, 10, 9]]}, "adding up to 30"),
    ],
)
def test_a_corrupt_record_is_refused_with_the_problem_named(change, problem):
    game, state = start()
    record = game.to_json(state)
    with pytest.raises(RecordError, match=problem):
        game.from_json({**record, "state": change(record["state"])})


def test_a_record_reads_back_as_the_same_state_between_games():
    game = load_game("fang_den_hut_cards", 3)
    states = play_out(game, game.initial_state(), random.Random(1), Stream("records"))
    for state in states[::7] + [states[-1]]:
        assert game.from_json(json.loads(json.dumps(game.to_json(state)))) == state


@pytest.mark.parametrize(
    ("game_table", "problem"),
    [
        ('colours = ["red", "Red"]\nvalues = [0, 1]', "colours must be"),
        ('colours = ["red"]\nvalues = [1, 1]', "values must be"),
        ('colours = ["red"]\nvalues = [0, 1, 2]', "cannot deal 10 each to 3 players"),
    ],
)
def test_a_table_file_with_a_broken_deck_is_refused_naming_the_file(
    monkeypatch, game_table, problem
):
    places = "".join(
        f'{{ id = "{kind}_{n}", xy = [{n}, {r}], kind = "{kind}", zone = "player_{n}" }},\n'
        for n in range(1, 6)
        for r, kind in ((1, "stack"), (2, "taken"))
    )
    broken = parse_board(
        'name = "fang_den_hut_cards"\ntitle = "x"\n'
        f'cells = [{{ id = "deck", xy = [0, 0], kind = "deck" }},\n{places}]\n'
        f"[game]\n{game_table}",
        "t.toml",
    )
    monkeypatch.setattr("engines.core.load_board", lambda name: broken)
    with pytest.raises(
        BoardFileError, match=f"engines/boards/fang_den_hut_cards.toml: .*{problem}"
    ):
        load_game("fang_den_hut_cards")


def test_a_record_with_a_bad_card_in_a_hand_names_the_seat_holding_it():
    game = load_game("fang_den_hut_cards", 2)
    state = game.initial_state()
    while game.chance(state) is not None:
        state = game.resolve(state, game.chance(state).draw(Stream("bad hand")))
    record = game.to_json(state)
    record["state"]["hands"][1] = ["nosuch"]
    with pytest.raises(RecordError, match="^hands of player 2 must be a list of card names"):
        game.from_json(record)
