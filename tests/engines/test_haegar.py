"""Hägar: Auf zu neuen Ufern!: the rule book's scoring example, laying coasters (the
landscape rule and its fallback, beer coasters, honky-tonk), tokens, the die, the
final round, the solo ranks, and the coaster table refusing mistakes."""

from __future__ import annotations

import random
import tomllib

import pytest

from engines import BoardFileError, IllegalMove, Move, RecordError, haegar, load_game
from engines.chance import Stream
from engines.coasters import parse_coasters
from engines.haegar import GOLD_TOKEN, OVER, HaegarState, Laid, Placement, solo_rank

BLUE, RED = 0, 1


def laid_state(game, laid, tokens=(), die=None, phase=OVER):
    """A constructed table: ``laid`` is (coaster, spot, facing) in the order laid;
    ``tokens`` maps field to a seat or GOLD_TOKEN."""
    turns = ("north", "east", "south", "west")
    coasters = tuple(Laid(c, game._spot_of[spot], turns.index(facing)) for c, spot, facing in laid)
    pile = tuple(sorted(set(game.coasters) - {c for c, _, _ in laid}))
    return HaegarState(
        phase=phase,
        turn=0,
        pile=pile,
        supply=((0, 0),) * game.players,
        laid=coasters,
        tokens=tuple(sorted((game.board.index[f], who) for f, who in dict(tokens).items())),
        die=die,
    )


# The book's example, rebuilt on five coasters (fields x 0..5 west to east, y 3..0):
#   W W | L L | F F        LAND (8 fields, shield on c02's north edge, printed gold on
#   F L | L L | W F        c02, a gold token on c05): blue 2 Hägars, red 1.
#   ----+-----+----        FOREST left (2, shield, printed gold on c01): red.
#   F L | L W              FOREST right (3, shield on c03): red.
#   W W | L W              "2" with a column arrow on c03, "4" with a row arrow on c05.
BOOK_LAYOUT = [
    ("c02", "n0e0", "north"),
    ("c01", "n0w1", "north"),
    ("c04", "s1w1", "north"),
    ("c03", "n0e1", "north"),
    ("c05", "s1e0", "north"),
]
BOOK_TOKENS = {
    "n0e0_sw": BLUE,
    "n0e0_ne": BLUE,
    "s1w1_ne": RED,  # on the big land, in the row of the "4"
    "s1w1_nw": RED,  # on the small forest on the left
    "n0e1_se": RED,  # on the forest on the right
    "s1e0_sw": GOLD_TOKEN,
}


def points(game, state, seat):
    landscapes = game.scoring(state)
    return (
        sum(land.gold_points[seat] for land in landscapes),
        sum(land.dominion_points[seat] for land in landscapes),
    )


def test_the_books_example_blue_10_beats_red_8_when_the_die_shows_2():
    game = load_game("haegar", players=2)
    state = laid_state(game, BOOK_LAYOUT, BOOK_TOKENS, die=2)
    assert points(game, state, BLUE) == (2, 8)
    assert points(game, state, RED) == (3, 5)
    assert game.doubled(state) == ("n0e1_nw", "n0e1_sw")  # the column of the 2: no token
    land = next(land for land in game.scoring(state) if land.kind == "land")
    assert (len(land.fields), land.gold, land.hagars, land.conqueror) == (8, 2, (2, 1), BLUE)
    outcome = game.outcome(state)
    assert outcome.scores == (10, 8) and outcome.winners == (BLUE,)
    assert outcome.reason == "Blue wins with 10 points (blue 10, red 8)"


def test_with_a_4_the_red_hagar_counts_twice_and_nobody_conquers_the_tied_land():
    game = load_game("haegar", players=2)
    state = laid_state(game, BOOK_LAYOUT, BOOK_TOKENS, die=4)
    assert game.doubled(state) == ("s1w1_nw", "s1w1_ne", "s1e0_nw", "s1e0_ne")
    land = next(land for land in game.scoring(state) if land.kind == "land")
    assert land.hagars == (2, 2) and land.conqueror is None
    assert points(game, state, BLUE) == (2, 0)
    assert points(game, state, RED) == (3, 5)
    assert game.outcome(state).winners == (RED,)


def test_a_skull_field_belongs_to_its_landscape_for_conquest_and_size():
    # the water on c01 is two fields, n0w1_nw and the skull n0w1_ne: a Hägar on the
    # first holds a landscape of two fields, the skull one included
    game = load_game("haegar", players=2)
    state = laid_state(game, BOOK_LAYOUT, {**BOOK_TOKENS, "n0w1_nw": RED}, die=2)
    water = next(land for land in game.scoring(state) if "n0w1_nw" in land.fields)
    assert water.kind == "water" and water.fields == ("n0w1_nw", "n0w1_ne")
    assert water.hagars == (0, 1) and water.gold_points == (0, 0)
    assert "A skull field belongs to its landscape" in haegar.__doc__


def test_the_die_line_turns_with_its_coaster():
    game = load_game("haegar", players=2)
    # c03 turned half round: its "2 column" field lies at the table's ne corner
    layout = [*BOOK_LAYOUT[:3], ("c03", "n0e1", "south"), BOOK_LAYOUT[4]]
    assert game.doubled(laid_state(game, layout, die=2)) == ("n0e1_ne", "n0e1_se")
    # c05's "4 row" turned a quarter runs north-south instead
    layout = [("c02", "n0e0", "north"), ("c05", "n0e1", "east")]
    assert game.doubled(laid_state(game, layout, die=4)) == ("n0e1_ne", "n0e1_se")


def test_doubled_gold_counts_two_for_every_seat_with_a_hagar_there():
    game = load_game("haegar", players=2)
    # c05 turned half round puts its "4 row" in the row of c02's printed gold
    layout = [("c02", "n0e0", "north"), ("c05", "n0e1", "south")]
    state = laid_state(game, layout, {"n0e0_sw": BLUE, "n0e0_ne": RED}, die=4)
    assert game.doubled(state) == ("n0e0_sw", "n0e0_se", "n0e1_sw", "n0e1_se")
    (land,) = game.scoring(state)
    assert (land.gold, land.hagars, land.conqueror) == (2, (2, 1), BLUE)
    assert points(game, state, BLUE) == (2, 4) and points(game, state, RED) == (2, 0)


def test_a_number_on_no_laid_coaster_doubles_nothing():
    game = load_game("haegar", players=2)
    state = laid_state(game, BOOK_LAYOUT, BOOK_TOKENS, die=6)
    assert game.doubled(state) == ()
    assert game.outcome(state).scores == (10, 8)


def test_equal_totals_all_win():
    game = load_game("haegar", players=2)
    state = laid_state(game, [("c02", "n0e0", "north")], {"n0e0_sw": BLUE, "n0e0_ne": RED})
    outcome = game.outcome(state)
    assert outcome.scores == (1, 1) and outcome.winners == (BLUE, RED)
    assert outcome.reason.startswith("Blue and red tie with 1 point ")


# --- laying coasters ----------------------------------------------------------------


def draw(game, state, coaster):
    return game.resolve(state, coaster)


def in_hand(game, laid, coaster, seat):
    """Seat ``seat`` holds ``coaster`` to lay beside the constructed ``laid``."""
    table = laid_state(game, laid)
    pile = tuple(c for c in table.pile if c != coaster)
    return HaegarState("place", seat, pile, ((4, 1),) * game.players, table.laid, coaster)


def test_the_first_coaster_lies_in_the_middle_turned_any_way():
    game = load_game("haegar", players=2)
    state = draw(game, game.initial_state(), "c06")
    assert game.to_move(state) == 0
    assert [str(m) for m in game.placements(state)] == [
        "c06 n0e0 north",
        "c06 n0e0 east",
        "c06 n0e0 south",
        "c06 n0e0 west",
    ]
    with pytest.raises(IllegalMove, match="first coaster lies in the middle, n0e0"):
        game.apply(state, Placement("c06", "n1e0", "north"))


def test_a_coaster_must_meet_its_own_landscape_across_an_edge_where_it_can():
    game = load_game("haegar", players=2)
    state = in_hand(game, [("c01", "n0e0", "north")], "c02", RED)
    legal = {str(m) for m in game.placements(state)}
    # c02 is all land; c01 shows land only at its se field (east and south edges)
    assert legal == {f"c02 {spot} {facing}" for spot in ("n0e1", "s1e0")
                     for facing in ("north", "east", "south", "west")}  # fmt: skip
    with pytest.raises(IllegalMove, match="no field of c02 meets a field of its own landscape"):
        game.apply(state, Placement("c02", "n1e0", "north"))
    with pytest.raises(IllegalMove, match="does not share an edge"):
        game.apply(state, Placement("c02", "n1e1", "north"))
    with pytest.raises(IllegalMove, match="already holds c01"):
        game.apply(state, Placement("c02", "n0e0", "north"))


def test_when_no_spot_meets_a_like_landscape_any_touching_spot_and_facing_is_legal():
    game = load_game("haegar", players=2)
    # c02 is all land and c03 has none: nothing can match
    state = in_hand(game, [("c02", "n0e0", "north")], "c03", RED)
    legal = game.placements(state)
    assert len(legal) == 16
    assert {m.spot for m in legal} == {"n1e0", "n0e1", "s1e0", "n0w1"}
    after = game.apply(state, Placement("c03", "s1e0", "west"))
    assert after.laid[-1] == Laid("c03", (0, -1), 3)


@pytest.mark.parametrize(
    ("players", "seats", "facings"),
    [
        (2, None, ("north", "south")),  # blue sits south, red north
        (3, None, ("north", "east", "south")),  # south, west, north
        (2, "east,west", ("west", "east")),
    ],
)
def test_a_beer_coaster_is_laid_with_its_glass_pointing_at_the_seat(players, seats, facings):
    options = {} if seats is None else {"seats": seats}
    game = load_game("haegar", players=players, **options)
    for seat, facing in enumerate(facings):
        state = in_hand(game, [], "c04", seat)
        assert [str(m) for m in game.placements(state)] == [f"c04 n0e0 {facing}"]
        wrong = "south" if facing != "south" else "north"
        with pytest.raises(IllegalMove, match="c04 is a beer coaster: its glass must point"):
            game.apply(state, Placement("c04", "n0e0", wrong))


def test_the_fallback_for_a_beer_coaster_counts_only_its_one_facing():
    game = load_game("haegar", players=2)
    # c07 (beer) would meet c08's land only turned east or west; blue, sitting south,
    # must lay it facing north, where it meets nothing: so any touching spot will do
    state = in_hand(game, [("c08", "n0e0", "east")], "c07", BLUE)
    assert sorted(str(m) for m in game.placements(state)) == [
        f"c07 {spot} north" for spot in ("n0e1", "n0w1", "n1e0", "s1e0")
    ]


def test_honky_tonk_records_a_beer_for_a_beer_coaster_in_line_with_another():
    game = load_game("haegar", players=2, honky_tonk=True)
    state = in_hand(game, [("c04", "n0e0", "north")], "c10", RED)
    in_row = game.apply(state, game.parse_move(state, "c10 n0e1 south"))
    assert in_row.beers == (RED,)
    assert game.beers_owed(in_row) == {RED: 1}
    record = game.to_json(in_row)
    assert record["state"]["beers"] == ["red"]
    with pytest.raises(RecordError, match="beers do not match"):
        game.from_json({**record, "state": {**record["state"], "beers": []}})
    # laid out of line with the other beer coaster, it costs nothing
    state = in_hand(game, [("c04", "n0e0", "north"), ("c05", "s1e0", "north")], "c10", BLUE)
    assert "c10 s1e1 north" in {str(m) for m in game.placements(state)}
    assert game.apply(state, Placement("c10", "s1e1", "north")).beers == ()
    plain = load_game("haegar", players=2)
    state = in_hand(plain, [("c04", "n0e0", "north")], "c10", RED)
    assert plain.apply(state, Placement("c10", "n0e1", "south")).beers == ()


def test_a_winner_owes_no_beer_and_the_outcome_names_who_does():
    game = load_game("haegar", players=2, honky_tonk=True)
    state = laid_state(game, BOOK_LAYOUT, BOOK_TOKENS, die=2)
    state = HaegarState(**{**state.__dict__, "beers": (BLUE, RED, RED)})
    assert game.beers_owed(state) == {RED: 2}
    assert game.outcome(state).reason.endswith("; red owes the winner 2 beers")


# --- tokens, the die, the final round -------------------------------------------------


def test_after_laying_the_seat_puts_one_token_on_that_coaster_but_not_on_a_skull():
    game = load_game("haegar", players=2)
    state = draw(game, game.initial_state(), "c01")
    state = game.apply(state, game.parse_move(state, "c01 n0e0 north"))
    moves = {str(m) for m in game.legal_moves(state)}
    assert moves == {f"{kind} n0e0_{corner}" for kind in ("hagar", "gold")
                     for corner in ("nw", "sw", "se")}  # fmt: skip
    with pytest.raises(IllegalMove, match="n0e0_ne shows a skull"):
        game.parse_move(state, "hagar n0e0_ne")
    with pytest.raises(IllegalMove, match="puts a token on c01 first"):
        game.apply(state, Move(("n0e0_nw", "n0e0_sw")))
    state = game.apply(state, game.parse_move(state, "gold n0e0_sw"))
    assert state.supply == ((4, 0), (4, 1)) and state.tokens == (
        (game.board.index["n0e0_sw"], GOLD_TOKEN),
    )
    state = draw(game, state, "c02")
    state = game.apply(state, game.parse_move(state, "c02 s1e0 north"))
    with pytest.raises(IllegalMove, match="a token goes on the coaster just laid, c02"):
        game.parse_move(state, "hagar n0e0_nw")


def play(game, choose, seed="haegar"):
    """A whole game: chance from a fixed stream, moves picked by ``choose``."""
    from engines.chance import Stream

    stream, state, seen = Stream(seed), game.initial_state(), []
    while game.outcome(state) is None:
        spec = game.chance(state)
        if spec is not None:
            state = game.resolve(state, spec.draw(stream))
        else:
            seen.append((state, game.legal_moves(state)))
            state = game.apply(state, choose(state, seen[-1][1]))
    return state, seen


def test_tokens_are_mandatory_while_they_last_and_then_only_coasters_are_laid():
    game = load_game("haegar", players=2)
    end, seen = play(game, lambda state, moves: moves[-1])
    token_turns = [state for state, _ in seen if state.phase == "token"]
    assert len(token_turns) == 10  # 4 Hägars and 1 gold each, over 6 turns each
    assert end.supply == ((0, 0), (0, 0)) and len(end.laid) == 12
    three = load_game("haegar", players=3)
    end, _ = play(three, lambda state, moves: moves[0])
    assert sorted(p for _, p in end.tokens) == [GOLD_TOKEN] * 3 + [0, 0, 0, 1, 1, 1, 2, 2, 2]


def test_the_final_round_runs_from_the_second_seat_round_to_the_starter():
    game = load_game("haegar", players=3)
    end, seen = play(game, lambda state, moves: moves[-1])
    finals = [(state.turn, moves) for state, moves in seen if state.phase == "final"]
    assert [turn for turn, _ in finals] == [1, 2, 0]
    assert end.die in range(1, 7) and game.outcome(end).scores == game.scores(end)
    # a Hägar keeps to its kind of landscape and lands on a free, skull-free field
    table = game._table(end.laid)
    for _, moves in finals:
        assert moves[0] == Move(())
        for move in moves[1:]:
            origin, dest = (game.board.index[f] for f in move.path)
            assert table[origin][0].landscape == table[dest][0].landscape
            assert not table[dest][0].skull


def test_the_starting_player_chosen_at_the_table_lays_first_rolls_and_acts_last():
    game = load_game("haegar", players=3, first_seat=2)
    start = game.initial_state()
    assert game.drawer(start) == 2
    end, seen = play(game, lambda state, moves: moves[0])
    layers = [state.turn for state, _ in seen if state.phase == "place"]
    assert layers[:4] == [2, 0, 1, 2]
    finals = [state.turn for state, _ in seen if state.phase == "final"]
    assert finals == [0, 1, 2]
    assert game.from_json(game.to_json(end)) == end


def test_a_hagar_cannot_change_its_landscape_in_the_final_round():
    game = load_game("haegar", players=2)
    state = laid_state(game, BOOK_LAYOUT, BOOK_TOKENS, die=2, phase="final")
    state = HaegarState(**{**state.__dict__, "turn": 1, "finals_left": 2})
    with pytest.raises(IllegalMove, match="stays in its kind of landscape, not land to water"):
        game.parse_move(state, "s1w1_ne-s1w1_sw")
    with pytest.raises(IllegalMove, match="no Hägar of red stands on n0e0_sw"):
        game.parse_move(state, "n0e0_sw-n0e0_se")
    afloat = HaegarState(**{**state.__dict__, "tokens": ((game.board.index["s1w1_sw"], RED),)})
    with pytest.raises(IllegalMove, match="n0w1_ne shows a skull"):
        game.parse_move(afloat, "s1w1_sw-n0w1_ne")
    assert game.parse_move(afloat, "s1w1_sw-n0w1_nw") == Move(("s1w1_sw", "n0w1_nw"))


def test_the_solo_game_lays_nine_coasters_and_ends_with_a_rank():
    game = load_game("haegar", players=1)
    end, seen = play(game, lambda state, moves: moves[0])
    assert len(end.laid) == 9 and len(end.pile) == 3
    outcome = game.outcome(end)
    assert outcome.winners == (0,)
    assert outcome.reason == f"{outcome.scores[0]} points: {solo_rank(outcome.scores[0])}"


@pytest.mark.parametrize(
    ("score", "title"),
    [
        (0, "simple drunkard"),
        (15, "simple drunkard"),
        (16, "lower sailor"),
        (20, "lower sailor"),
        (21, "higher chief"),
        (25, "higher chief"),
        (26, "legendary conqueror"),
        (60, "legendary conqueror"),
    ],
)
def test_the_solo_ranks_match_the_rule_book(score, title):
    assert solo_rank(score) == title


# --- the camera, records, the coaster table ---------------------------------------------


def test_the_camera_sees_each_printed_field_and_its_token():
    game = load_game("haegar", players=2)
    state = laid_state(game, [("c04", "n0e0", "east")], {"n0e0_ne": RED})
    seen = game.observe(state)
    # turned a quarter clockwise, c04's printed nw field lies at the table's ne corner
    assert [seen[f"n0e0_{c}"] for c in ("nw", "ne", "sw", "se")] == [
        "c04_sw",
        "c04_nw+red",
        "c04_se",
        "c04_ne",
    ]
    assert sum(token is not None for token in seen.values()) == 4


def test_the_camera_tells_every_legal_move_apart():
    game = load_game("haegar", players=3)
    _, seen = play(game, lambda state, moves: moves[len(moves) // 2])
    for state, moves in seen:
        looks = {tuple(game.observe(game.apply(state, move)).items()) for move in moves}
        assert len(looks) == len(moves)


def test_a_record_with_a_coaster_laid_against_the_rules_is_refused():
    game = load_game("haegar", players=2)
    end, _ = play(game, lambda state, moves: moves[0])
    record = game.to_json(end)
    assert game.from_json(record) == end
    laid = record["state"]["laid"]
    moved = [laid[0], [laid[1][0], "n5e5", laid[1][2]], *laid[2:]]
    with pytest.raises(RecordError, match=r"laid\[1\].*does not share an edge"):
        game.from_json({**record, "state": {**record["state"], "laid": moved}})


def coaster_table(**changes):
    """The shipped coaster table with the first coaster's fields changed."""
    from engines.geometry import load_board

    raw = [dict(c) for c in load_board("haegar").game["coaster"]]
    raw[0] = {**raw[0], **changes}
    return raw


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"nw": {"landscape": "lava"}}, "coaster 'c01' field nw: landscape 'lava'"),
        ({"nw": {"landscape": "land", "shield": "south"}}, "not an outer edge of the nw field"),
        ({"nw": {"landscape": "land", "die": 3}}, "a dice number and its arrow come together"),
        ({"nw": {"landscape": "land", "die": 7, "arrow": "row"}}, "die 7 must be"),
        ({"beer": "up"}, "beer = 'up'"),
        ({"id": "c02"}, "coaster 'c02': id used twice"),
        ({"colour": "red"}, r"unknown key\(s\) \['colour'\]"),
        ({"se": {"landscape": "land", "skull": True}, "nw": {"landscape": "water", "skull": True},
          "sw": {"landscape": "forest", "skull": True}}, "every field has a skull"),
    ],
)  # fmt: skip
def test_a_mistake_in_the_coaster_table_is_refused_naming_file_and_coaster(changes, problem):
    with pytest.raises(BoardFileError, match=problem) as refused:
        parse_coasters(coaster_table(**changes), "engines/boards/haegar.toml")
    assert str(refused.value).startswith("engines/boards/haegar.toml: ")


def test_the_box_holds_twelve_coasters():
    raw = tomllib.loads('[[coaster]]\nid = "c01"')["coaster"]
    with pytest.raises(BoardFileError, match="holds 12 coasters; found 1"):
        parse_coasters(raw, "mine.toml")


def test_a_wrong_seating_option_is_refused():
    with pytest.raises(Exception, match="must name 2 different table sides"):
        load_game("haegar", players=2, seats="south")
    with pytest.raises(Exception, match="'up' is not one of"):
        load_game("haegar", players=2, seats="south,up")


def tiny_table(cells: str):
    from engines.geometry import parse_board

    return parse_board(f'name = "t"\ntitle = "t"\ncells = [{cells}]', "t.toml")


ONE_SPOT = ", ".join(
    f'{{ id = "n0e0_{corner}", xy = [{x}, {y}], kind = "field", zone = "n0e0" }}'
    for corner, x, y in (("nw", -5, 5), ("ne", 5, 5), ("sw", -5, -5), ("se", 5, -5))
)


def test_a_table_too_small_or_misnamed_is_refused_naming_the_file():
    from engines.haegar import _table_grid

    assert _table_grid(tiny_table(ONE_SPOT), 10.0, "n0e0", 0, "t.toml").centre == (0, 0)
    with pytest.raises(BoardFileError, match="t.toml: the grid must hold every field within 1"):
        _table_grid(tiny_table(ONE_SPOT), 10.0, "n0e0", 1, "t.toml")
    with pytest.raises(BoardFileError, match="lies at corner ne of the spot named 'n0e0'"):
        _table_grid(tiny_table(ONE_SPOT.replace("n0e0_ne", "n0e0_xx")), 10.0, "n0e0", 0, "t.toml")
    with pytest.raises(BoardFileError, match="off the 12.0 mm grid"):
        _table_grid(tiny_table(ONE_SPOT), 12.0, "n0e0", 0, "t.toml")


def test_the_outcome_is_said_in_words_a_page_translates():
    game = load_game("haegar", players=2)
    said = game.outcome(laid_state(game, BOOK_LAYOUT, BOOK_TOKENS, die=2)).words
    params = dict(said.params)
    assert said.key == "rules.haegar.wins" and params["best"] == 10
    assert [dict(p.params)["points"] for p in params["scores"]] == [10, 8]
    state = HaegarState(
        **{**laid_state(game, BOOK_LAYOUT, BOOK_TOKENS, die=2).__dict__, "beers": (RED,)}
    )
    owed = game.outcome(state).words
    assert owed.key == "rules.haegar.owes_beers" and dict(owed.params)["reason"] == said
    assert str(owed).endswith("owes the winner 1 beer")


def test_the_seat_to_lay_draws_its_coaster_and_the_starting_player_rolls():
    game = load_game("haegar", players=2)
    state = game.initial_state()
    assert game.drawer(state) == 0
    state = game.resolve(state, "c02")
    assert game.drawer(state) is None  # laying, not drawing


@pytest.mark.parametrize("players", [2, 3])
def test_a_random_play_is_a_legal_move_drawn_uniformly_and_its_position(players):
    game, draws = load_game("haegar", players), Stream("haegar")
    state, phases = game.initial_state(), set()
    for number in range(400):
        if game.outcome(state) is not None:
            break
        spec = game.chance(state)
        if spec is not None:
            state = game.resolve(state, spec.draw(draws))
            continue
        phases.add(state.phase)
        move, after = game.random_play(state, random.Random(number))
        assert move == random.Random(number).choice(game.legal_moves(state))
        assert after == game.apply(state, move)
        state = after
    assert game.outcome(state) is not None and {"place", "token", "final"} <= phases
